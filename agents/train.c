/*
** train.c: training-run plumbing shared by every kind: kind options, the
** clock, progress reports and the CSV snapshot log.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "agents/agent.h"
#include "game/clock.h"

/* ---- Kind options ------------------------------------------------------ */

static const char *kopt_find(dab_kopts *k, const char *key) {
  for (int i = 0; i < k->n; i++)
    if (!strcmp(k->key[i], key)) {
      k->used[i] = true;
      return k->val[i];
    }
  return NULL;
}

dab_status dab_kopt_long(dab_kopts *k, const char *kind, const char *key, long lo, long hi,
                         long *out, dab_err *err) {
  const char *v = k ? kopt_find(k, key) : NULL;
  if (!v) return DAB_OK;
  char *end;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (!*v || *end || errno || x < lo || x > hi)
    return dab_fail(err, DAB_EINPUT, "train %s: --%s needs a whole number from %ld to %ld, got '%s'",
                    kind, key, lo, hi, v);
  *out = x;
  return DAB_OK;
}

dab_status dab_kopt_double(dab_kopts *k, const char *kind, const char *key, double lo, double hi,
                           double *out, dab_err *err) {
  const char *v = k ? kopt_find(k, key) : NULL;
  if (!v) return DAB_OK;
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (!*v || *end || errno || !(x >= lo && x <= hi))
    return dab_fail(err, DAB_EINPUT, "train %s: --%s needs a number from %g to %g, got '%s'", kind,
                    key, lo, hi, v);
  *out = x;
  return DAB_OK;
}

dab_status dab_kopt_choice(dab_kopts *k, const char *kind, const char *key, const char *choices,
                           int *out, dab_err *err) {
  const char *v = k ? kopt_find(k, key) : NULL;
  if (!v) return DAB_OK;
  size_t vlen = strlen(v);
  int idx = 0;
  for (const char *c = choices; c; idx++) {
    const char *bar = strchr(c, '|');
    size_t len = bar ? (size_t)(bar - c) : strlen(c);
    if (len == vlen && vlen && !strncmp(c, v, len)) {
      *out = idx;
      return DAB_OK;
    }
    c = bar ? bar + 1 : NULL;
  }
  return dab_fail(err, DAB_EINPUT, "train %s: --%s must be one of %s, got '%s'", kind, key, choices,
                  v);
}

dab_status dab_kopts_check(const dab_kopts *k, const char *kind, dab_err *err) {
  if (!k) return DAB_OK;
  for (int i = 0; i < k->n; i++)
    if (!k->used[i])
      return dab_fail(err, DAB_EINPUT, "train %s: unknown option --%s", kind, k->key[i]);
  return DAB_OK;
}

/* ---- Clock, progress, log ---------------------------------------------- */

void dab_train_start(dab_train_ctx *t, double seconds_before) {
  t->t0 = dab_now_s();
  t->t_before = seconds_before;
  t->last_progress = -1;
}

double dab_train_elapsed(const dab_train_ctx *t) { return t->t_before + (dab_now_s() - t->t0); }

void dab_train_progress(dab_train_ctx *t, const char *what, uint64_t done, uint64_t total) {
  if (!t->progress) return;
  double el = dab_now_s() - t->t0;
  if (done != total && t->last_progress >= 0 && el - t->last_progress < DAB_PROGRESS_INTERVAL)
    return;
  t->last_progress = el;
  dab_progress p = {what, done, total, el};
  t->progress(t->progress_ctx, &p);
}

static int count_columns(const char *s) {
  int n = 1;
  for (; *s; s++) n += *s == ',';
  return n;
}

dab_status dab_train_log(dab_train_ctx *t, const char *columns, const double *values, int n,
                         dab_err *err) {
  if (!t->log) return DAB_OK;
  if (count_columns(columns) != n)
    return dab_fail(err, DAB_EINPUT, "log: %d values for the %d columns '%s'", n,
                    count_columns(columns), columns);
  if (!t->header_written) {
    if (strlen(columns) >= sizeof t->columns)
      return dab_fail(err, DAB_EINPUT, "log: too many columns");
    snprintf(t->columns, sizeof t->columns, "%s", columns);
    /* A resumed run appends to a log that already has its header. */
    long pos = ftell(t->log);
    if (pos <= 0 && fprintf(t->log, "%s\n", columns) < 0)
      return dab_fail(err, DAB_EIO, "log: write failed: %s", strerror(errno));
    t->header_written = true;
  } else if (strcmp(columns, t->columns) != 0) {
    return dab_fail(err, DAB_EINPUT, "log: columns changed within a run");
  }
  for (int i = 0; i < n; i++) {
    double v = values[i];
    int r;
    if (isnan(v)) r = fprintf(t->log, "%s", i ? "," : "");  /* not measured: an empty field */
    else if (v == floor(v) && fabs(v) < 1e15) r = fprintf(t->log, "%s%.0f", i ? "," : "", v);
    else r = fprintf(t->log, "%s%.6g", i ? "," : "", v);
    if (r < 0) return dab_fail(err, DAB_EIO, "log: write failed: %s", strerror(errno));
  }
  if (fputc('\n', t->log) == EOF || fflush(t->log) != 0)
    return dab_fail(err, DAB_EIO, "log: write failed: %s", strerror(errno));
  return DAB_OK;
}
