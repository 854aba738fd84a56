/*
** progress.h: how long library operations report progress and are canceled.
** See Copyright Notice in README.md
*/
#ifndef DAB_PROGRESS_H
#define DAB_PROGRESS_H

#include <signal.h>
#include <stdint.h>

/* A snapshot of a long operation, passed to the caller's callback. */
typedef struct dab_progress {
  const char *what;     /* e.g. "retrograde 3x4" */
  uint64_t done, total; /* units of work (positions, nodes...); total 0 = unknown */
  double elapsed;       /* seconds since the operation started */
} dab_progress;

/* Called from any worker thread, at most every DAB_PROGRESS_INTERVAL
** seconds, never concurrently with itself. */
typedef void (*dab_progress_fn)(void *ctx, const dab_progress *p);

#define DAB_PROGRESS_INTERVAL 0.25

/* Long operations take an optional cancel flag (e.g. set by a SIGINT
** handler); when it becomes non-zero they stop at the next safe point and
** return DAB_ECANCELED without leaving partial results behind. */
typedef const volatile sig_atomic_t dab_cancel_flag;

#endif
