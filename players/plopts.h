/*
** plopts.h: a player spec's options, "key=value,..." (not a public header).
** See Copyright Notice in README.md
*/
#ifndef DAB_PL_OPTS_H
#define DAB_PL_OPTS_H

#include <stdbool.h>
#include "game/err.h"

/* Parsed options of a spec: "key=value" pairs, or bare words (value ""). */
#define PL_MAX_OPTS 12
typedef struct pl_opts {
  int n;
  char key[PL_MAX_OPTS][32];
  char val[PL_MAX_OPTS][64];
  bool used[PL_MAX_OPTS];
} pl_opts;

/* Parses text (NULL or "": no options) into *o; spec names the player in
** messages.  RETURN: DAB_OK; DAB_EINPUT for an empty, malformed or
** too-long option, or more than PL_MAX_OPTS. */
dab_status pl_opts_parse(const char *spec, const char *text, pl_opts *o, dab_err *err);

/* Option helpers: each returns DAB_OK or DAB_EINPUT with a message naming
** the player and the option.  A missing key leaves *out unchanged. */
dab_status pl_opt_long(pl_opts *o, const char *who, const char *key, long lo, long hi, long *out,
                       dab_err *err);
dab_status pl_opt_double(pl_opts *o, const char *who, const char *key, double lo, double hi,
                         double *out, dab_err *err);
/* Returns the value of key (marking it used), or NULL. */
const char *pl_opt_str(pl_opts *o, const char *key);

#endif
