/*
** clock.h: one monotonic clock for timings, progress and time limits.
** See Copyright Notice in README.md
*/
#ifndef DAB_CLOCK_H
#define DAB_CLOCK_H

#include <sys/resource.h>
#include <time.h>

/* Seconds on CLOCK_MONOTONIC (an arbitrary origin: subtract two
** readings).  Never fails on Linux. */
static inline double dab_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU seconds (user + system) of this process and of its children that
** have been waited for: what a run that starts helper processes (the az
** trainer) has spent.  Returns 0 if getrusage fails (it cannot for these
** arguments). */
static inline double dab_process_cpu_s(void) {
  double s = 0;
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0)
    s += (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
         1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
    s += (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
         1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  return s;
}

#endif
