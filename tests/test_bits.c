/*
** test_bits.c: game/bits.h's pext, pdep and popcount, every path against
** bit-by-bit references.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include "game/bits.h"
#include "tests/testhelp.h"

static uint64_t ref_pext(uint64_t x, uint64_t m) {
  uint64_t r = 0;
  int k = 0;
  for (int i = 0; i < 64; i++)
    if (m >> i & 1) r |= (x >> i & 1) << k++;
  return r;
}

static uint64_t ref_pdep(uint64_t x, uint64_t m) {
  uint64_t r = 0;
  int k = 0;
  for (int i = 0; i < 64; i++)
    if (m >> i & 1) r |= (x >> k++ & 1) << i;
  return r;
}

static int ref_pop(uint64_t x) {
  int n = 0;
  for (int i = 0; i < 64; i++) n += (int)(x >> i & 1);
  return n;
}

/* One pair: the portable code and the chosen path against the references. */
static void check(uint64_t x, uint64_t m, int *bad) {
  uint64_t e = ref_pext(x, m), d = ref_pdep(x, m);
  int p = ref_pop(x);
  if (dab_pext64_soft(x, m) != e || dab_pext64(x, m) != e || dab_pdep64_soft(x, m) != d ||
      dab_pdep64(x, m) != d || dab_popcount64_soft(x) != p || dab_popcount64(x) != p) {
    if (++*bad <= 5)
      fprintf(stderr, "x=%016llx m=%016llx: pext %016llx/%016llx want %016llx, pdep %016llx/%016llx "
              "want %016llx, pop %d/%d want %d\n", (unsigned long long)x, (unsigned long long)m,
              (unsigned long long)dab_pext64_soft(x, m), (unsigned long long)dab_pext64(x, m),
              (unsigned long long)e, (unsigned long long)dab_pdep64_soft(x, m),
              (unsigned long long)dab_pdep64(x, m), (unsigned long long)d, dab_popcount64_soft(x),
              dab_popcount64(x), p);
  }
}

int main(void) {
  uint64_t st = 23;
  /* Edge masks: empty, full, the top bit alone, runs that reach bit 63. */
  const uint64_t edge[] = {0, ~0ull, 1ull << 63, 1, 0x8000000000000001ull, 0xffffffff00000000ull,
                           0x00000000ffffffffull, 0x5555555555555555ull, 0xaaaaaaaaaaaaaaaaull,
                           0xf0f0f0f0f0f0f0f0ull, 0x7fffffffffffffffull, 0xfffffffffffffffeull};
  int bad = 0;
  for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
    for (size_t j = 0; j < sizeof edge / sizeof edge[0]; j++) check(edge[i], edge[j], &bad);
  TH_CHECK(bad == 0, "edge masks: %d wrong", bad);

  /* Random words under random masks of every density, and run-shaped masks. */
  bad = 0;
  for (int n = 0; n < 200000; n++) {
    uint64_t x = th_splitmix64(&st), m = th_splitmix64(&st);
    switch (n % 4) {
      case 1: m &= th_splitmix64(&st); break;                 /* sparse */
      case 2: m |= th_splitmix64(&st); break;                 /* dense */
      case 3: {                                               /* one run */
        unsigned lo = (unsigned)(m & 63), len = (unsigned)(m >> 6 & 63) + 1;
        m = (len + lo >= 64 ? ~0ull : (1ull << (len + lo)) - 1) & ~((1ull << lo) - 1);
      } break;
      default: break;
    }
    check(x, m, &bad);
  }
  TH_CHECK(bad == 0, "random masks: %d wrong", bad);
  printf("# bits path: %s\n", DAB_BITS_PATH);
  return TH_REPORT("test_bits");
}
