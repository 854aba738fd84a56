/*
** rng.h: the small seedable random generator the players, the arena and
** the vector environment use (the oracle sits below the players).
** See Copyright Notice in README.md
*/
#ifndef DAB_RNG_H
#define DAB_RNG_H

#include <stdint.h>

/*
** xoshiro256** seeded through splitmix64.  One dab_rng per game and player
** makes a match repeatable exactly, whatever the thread count: no player
** keeps random state of its own.  Not thread-safe: one generator, one thread.
*/
typedef struct dab_rng {
  uint64_t s[4];
} dab_rng;

static inline uint64_t dab_splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Seeds r from seed; every seed (0 included) gives a valid state. */
static inline void dab_rng_seed(dab_rng *r, uint64_t seed) {
  for (int i = 0; i < 4; i++) r->s[i] = dab_splitmix64(&seed);
}

/* Seeds r from a seed and a stream number, e.g. (match seed, game index). */
static inline void dab_rng_seed2(dab_rng *r, uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ (stream * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull);
  dab_rng_seed(r, dab_splitmix64(&x));
}

static inline uint64_t dab_rng_next(dab_rng *r) {
  uint64_t *s = r->s;
  uint64_t x = s[1] * 5;
  uint64_t result = ((x << 7) | (x >> 57)) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = (s[3] << 45) | (s[3] >> 19);
  return result;
}

/* Uniform integer in 0..n-1 (n >= 1), by Lemire's multiply-shift (the
** bias is below 2^-32 for every n a board can have). */
static inline int dab_rng_below(dab_rng *r, int n) {
  return (int)(((dab_rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform double in [0, 1). */
static inline double dab_rng_unit(dab_rng *r) {
  return (double)(dab_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

#endif
