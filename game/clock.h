/*
** clock.h: one monotonic clock for timings, progress and time limits,
** and the CPU clocks of the process and of the calling thread.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_CLOCK_H
#define DAB_CLOCK_H

/* Seconds on CLOCK_MONOTONIC (an arbitrary origin: subtract two
** readings).  Never fails on Linux. */
double dab_now_s(void);

/* CPU seconds (user + system) of this process and of its children that
** have been waited for: what a run that starts helper processes (the az
** trainer) has spent.  Returns 0 if getrusage fails (it cannot for these
** arguments). */
double dab_process_cpu_s(void);

/* CPU seconds of the calling thread (CLOCK_THREAD_CPUTIME_ID; an
** arbitrary origin: subtract two readings).  Never fails on Linux. */
double dab_thread_cpu_s(void);

#endif
