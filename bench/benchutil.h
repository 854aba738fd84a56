/*
** benchutil.h: what the benchmark programs share: a monotonic clock and
** the comparison for sorting timings into medians.
** See Copyright Notice in README.md
*/
#ifndef DAB_BENCHUTIL_H
#define DAB_BENCHUTIL_H

#include <time.h>

/* Seconds on the monotonic clock. */
static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort comparison of doubles, ascending. */
static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#endif
