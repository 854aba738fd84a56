/*
** testhelp.h: a tiny pass/fail counter shared by every test program.
** See Copyright Notice in README.md
*/
#ifndef DAB_TESTHELP_H
#define DAB_TESTHELP_H

#include <stdint.h>
#include <stdio.h>

/* Test programs are single files, so these counters may be file statics. */
static int th_passed, th_failed;

/* Counts one check; on failure prints where and why on stderr. */
#define TH_CHECK(cond, ...)                                              \
  do {                                                                   \
    if (cond) {                                                          \
      th_passed++;                                                       \
    } else {                                                             \
      th_failed++;                                                       \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);               \
      fprintf(stderr, __VA_ARGS__);                                      \
      fputc('\n', stderr);                                               \
    }                                                                    \
  } while (0)

/* SplitMix64: reproducible random numbers from a test's own state. */
static inline uint64_t th_splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Prints "name: N passed, N failed" (the runner sums these lines) and
** returns the exit status for main. */
#define TH_REPORT(name)                                                  \
  (printf("%s: %d passed, %d failed\n", (name), th_passed, th_failed),   \
   th_failed ? 1 : 0)

#endif
