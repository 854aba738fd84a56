/*
** clock.c: the clocks of clock.h (POSIX calls, kept out of the header so
** a strict C11 consumer can include it).
** See Copyright Notice in README.md
*/
#include "game/clock.h"

#include <sys/resource.h>
#include <time.h>

static double ts_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double dab_now_s(void) { return ts_s(CLOCK_MONOTONIC); }

double dab_thread_cpu_s(void) { return ts_s(CLOCK_THREAD_CPUTIME_ID); }

static double ru_s(const struct rusage *ru) {
  return (double)ru->ru_utime.tv_sec + (double)ru->ru_stime.tv_sec +
         1e-6 * (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec);
}

double dab_process_cpu_s(void) {
  double s = 0;
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) == 0) s += ru_s(&ru);
  if (getrusage(RUSAGE_CHILDREN, &ru) == 0) s += ru_s(&ru);
  return s;
}
