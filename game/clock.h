/*
** clock.h: one monotonic clock for timings, progress and time limits.
** See Copyright Notice in README.md
*/
#ifndef DAB_CLOCK_H
#define DAB_CLOCK_H

#include <time.h>

/* Seconds on CLOCK_MONOTONIC (an arbitrary origin: subtract two
** readings).  Never fails on Linux. */
static inline double dab_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
