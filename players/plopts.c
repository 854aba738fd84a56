/*
** plopts.c: a player spec's options (plopts.h).
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "players/plopts.h"

dab_status pl_opts_parse(const char *spec, const char *text, pl_opts *o, dab_err *err) {
  memset(o, 0, sizeof *o);
  while (text && *text) {
    const char *end = strchr(text, ',');
    size_t len = end ? (size_t)(end - text) : strlen(text);
    if (len == 0) return dab_fail(err, DAB_EINPUT, "player '%s': empty option", spec);
    if (o->n == PL_MAX_OPTS) return dab_fail(err, DAB_EINPUT, "player '%s': too many options", spec);
    const char *eq = memchr(text, '=', len);
    size_t klen = eq ? (size_t)(eq - text) : len;
    size_t vlen = eq ? len - klen - 1 : 0;
    if (klen == 0 || klen >= sizeof o->key[0] || vlen >= sizeof o->val[0])
      return dab_fail(err, DAB_EINPUT, "player '%s': bad option '%.*s'", spec, (int)len, text);
    memcpy(o->key[o->n], text, klen);
    if (eq) memcpy(o->val[o->n], eq + 1, vlen);
    o->n++;
    text = end ? end + 1 : NULL;
  }
  return DAB_OK;
}

const char *pl_opt_str(pl_opts *o, const char *key) {
  for (int i = 0; i < o->n; i++)
    if (!strcmp(o->key[i], key)) {
      o->used[i] = true;
      return o->val[i];
    }
  return NULL;
}

dab_status pl_opt_long(pl_opts *o, const char *who, const char *key, long lo, long hi, long *out,
                       dab_err *err) {
  const char *v = pl_opt_str(o, key);
  if (!v) return DAB_OK;
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (!*v || *end || errno || x < lo || x > hi)
    return dab_fail(err, DAB_EINPUT, "player '%s': %s needs a whole number from %ld to %ld, got '%s'",
                    who, key, lo, hi, v);
  *out = x;
  return DAB_OK;
}

dab_status pl_opt_double(pl_opts *o, const char *who, const char *key, double lo, double hi,
                         double *out, dab_err *err) {
  const char *v = pl_opt_str(o, key);
  if (!v) return DAB_OK;
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (!*v || *end || errno || !(x >= lo && x <= hi))
    return dab_fail(err, DAB_EINPUT, "player '%s': %s needs a number from %g to %g, got '%s'", who,
                    key, lo, hi, v);
  *out = x;
  return DAB_OK;
}

