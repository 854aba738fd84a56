/*
** benchutil.h: what the benchmark programs share: a monotonic clock and
** the comparison for sorting timings into medians.
** See Copyright Notice in README.md
*/
#ifndef DAB_BENCHUTIL_H
#define DAB_BENCHUTIL_H

#include <time.h>
#include "game/clock.h"

/* Seconds on the monotonic clock. */
static inline double bench_now(void) {
  return dab_now_s();
}

/* qsort comparison of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#endif
