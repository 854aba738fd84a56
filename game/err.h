/*
** err.h: error codes and the message buffer every library call can fill.
** See Copyright Notice in README.md
*/
#ifndef DAB_ERR_H
#define DAB_ERR_H

#include <stdarg.h>
#include "game/dabconf.h"
#include "game/dabapi.h"

/* Library calls return one of these; they never exit().  The CLI maps
** DAB_EINPUT (and DAB_EBOARD) to exit code 2 and everything else to 1. */
typedef enum dab_status {
  DAB_OK = 0,
  DAB_EINPUT = 1,     /* malformed text or argument from the user */
  DAB_EBOARD = 2,     /* the board is outside what this operation handles */
  DAB_ENOMEM = 3,     /* allocation failed, or the plan would not fit */
  DAB_EIO = 4,        /* a file could not be read or written */
  DAB_ECORRUPT = 5,   /* a file failed an integrity check */
  DAB_ECANCELED = 6,  /* the caller's cancel flag was raised */
  DAB_EINTERNAL = 7   /* a broken invariant: a bug in dab */
} dab_status;

/* A caller-owned message buffer.  Functions that fail write one line
** (no trailing newline) here; a NULL dab_err pointer is allowed. */
typedef struct dab_err {
  char msg[DAB_ERR_LEN];
} dab_err;

/* Formats a message into err (if non-NULL) and returns code, so that a
** failure path reads as `return dab_fail(err, DAB_EINPUT, "...", ...);`.
** The message is always one line: control characters (a newline in an
** echoed input, say) become '?'.  An argument may be err->msg itself, to
** add context to an earlier message. */
DAB_API dab_status dab_fail(dab_err *err, dab_status code, const char *fmt, ...)
            __attribute__((format(printf, 3, 4)));

/* A short constant name for a status ("bad input", "out of memory"...). */
DAB_API const char *dab_status_name(dab_status code);

#endif
