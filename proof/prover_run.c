/*
** prover_run.c: one run of a divisible proof (prover.h): the next claim
** in the agreed order, its search within the run's limits, and its record
** or note, appended to the run's file before it counts.
** See Copyright Notice in README.md
*/
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "game/clock.h"
#include "proof/prover.h"
#include "oracle/solvestore.h"

/* Open leaves and direct nodes looked at per decision, and claims a run
** skips (direct nodes given up, leaves that cannot be split further). */
enum { MAX_OPEN = 1 << 16, MAX_DIRECT = 256, MAX_SKIPPED = 1024 };

struct dab_prover {
  dab_proof *pf;
  dab_prover_opts o;
  char rec_path[4400];
  char host[48];
  dab_proof_claim *open, *direct, *skipped;
  size_t nopen;
  int nskipped;
  dab_proof_summary sum;
  double deadline;                /* of the run's budget (monotonic s); 0: none */
  /* the running search, as the progress hook sees it */
  volatile sig_atomic_t cancel;   /* the solver's cancel flag */
  volatile sig_atomic_t why;      /* the dab_prover_outcome that stopped it */
  double search_deadline;         /* 0: none */
  dab_prover_status status;
};

static bool same_claim(const dab_proof_claim *a, const dab_proof_claim *b) {
  return a->pos == b->pos && a->dir == b->dir && a->bound == b->bound;
}

static bool listed(const dab_proof_claim *list, int n, const dab_proof_claim *c) {
  for (int i = 0; i < n; i++)
    if (same_claim(&list[i], c)) return true;
  return false;
}

static void skip_claim(dab_prover *p, const dab_proof_claim *c) {
  if (p->nskipped < MAX_SKIPPED) p->skipped[p->nskipped++] = *c;
}

static void tell(const dab_prover *p, dab_prover_event_kind kind, const dab_prover_task *t,
                 const dab_proof_rec *rec, double seconds, uint64_t nodes, dab_prover_outcome outcome) {
  if (!p->o.event) return;
  dab_prover_event e = {kind, t, rec, seconds, nodes, outcome};
  p->o.event(p->o.event_ctx, &e);
}

/* "rec-20261125T071500Z-host-1234.txt": one file per run, so that runs on
** many machines never write the same file. */
static void name_records(dab_prover *p, const char *dir) {
  if (gethostname(p->host, sizeof p->host) != 0) snprintf(p->host, sizeof p->host, "host");
  p->host[sizeof p->host - 1] = 0;
  for (char *s = p->host; *s; s++)
    if (*s == '/' || *s == ' ' || *s == '.') *s = '_';
  if (!dir) return;
  char stamp[32];
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  snprintf(p->rec_path, sizeof p->rec_path, "%s/rec-%s-%s-%ld.txt", dir, stamp, p->host, (long)getpid());
}

dab_status dab_prover_new(dab_proof *pf, const dab_prover_opts *o, const char *dir, const char *rec_path,
                          dab_prover **out, dab_err *err) {
  *out = NULL;
  dab_prover *p = calloc(1, sizeof *p);
  if (p) {
    p->open = malloc(MAX_OPEN * sizeof *p->open);
    p->direct = malloc(MAX_DIRECT * sizeof *p->direct);
    p->skipped = malloc(MAX_SKIPPED * sizeof *p->skipped);
  }
  if (!p || !p->open || !p->direct || !p->skipped) {
    dab_prover_free(p);
    return dab_fail(err, DAB_ENOMEM, "out of memory for the proof's scheduler");
  }
  p->pf = pf;
  if (o) p->o = *o;
  name_records(p, rec_path ? NULL : dir);
  if (rec_path) snprintf(p->rec_path, sizeof p->rec_path, "%s", rec_path);
  if (p->o.budget > 0) p->deadline = dab_now_s() + p->o.budget;
  *out = p;
  return DAB_OK;
}

void dab_prover_free(dab_prover *p) {
  if (!p) return;
  free(p->open);
  free(p->direct);
  free(p->skipped);
  free(p);
}

const char *dab_prover_rec_path(const dab_prover *p) { return p->rec_path; }

const dab_prover_opts *dab_prover_options(const dab_prover *p) { return &p->o; }

const dab_proof_summary *dab_prover_summary(const dab_prover *p) { return &p->sum; }

/* The solver's progress: stops the search at the first limit passed, then
** tells the run's own progress callback. */
static void on_search_progress(void *ctx, const dab_progress *pr) {
  dab_prover *p = ctx;
  if (!p->cancel) {
    double t = dab_now_s();
    int why = p->o.cancel && *p->o.cancel        ? DAB_PROVER_CANCELED
              : p->deadline && t >= p->deadline ? DAB_PROVER_OUT_OF_TIME
              : p->search_deadline && t >= p->search_deadline ? DAB_PROVER_GAVE_UP
                                                               : 0;
    if (why) p->why = why, p->cancel = 1;
  }
  if (!p->o.progress) return;
  dab_prover_status st = p->status;
  st.elapsed = pr->elapsed;
  st.nodes = pr->done;
  p->o.progress(p->o.progress_ctx, &st);
}

void dab_prover_hook(dab_prover *p, dab_ab_opts *o) {
  o->cancel = &p->cancel;
  o->progress = on_search_progress;
  o->progress_ctx = p;
}

/* The first direct node of this part to try: none when the first free
** one was given up on (its leaves come next), as in one process. */
static const dab_proof_claim *next_direct(dab_prover *p, const dab_proof_claim *busy, int nbusy, dab_err *err,
                                          dab_status *st) {
  int depth = dab_proof_get_spec(p->pf)->depth;
  *st = DAB_OK;
  if (p->o.direct <= 0 || depth < 2) return NULL;
  size_t nd;
  if ((*st = dab_proof_open_at(p->pf, depth - 2, p->direct, MAX_DIRECT, &nd, err))) return NULL;
  for (size_t i = 0; i < nd; i++) {
    const dab_proof_claim *d = &p->direct[i];
    if (!dab_prover_in_part(d, p->o.part_i, p->o.part_n) || listed(busy, nbusy, d)) continue;
    if (listed(p->skipped, p->nskipped, d)) return NULL;
    /* an earlier run already spent this long on it: split it now */
    double before = dab_proof_gave_up(p->pf, d);
    if (before > 0 && before >= 0.99 * p->o.direct) {
      skip_claim(p, d);
      dab_prover_task t = {.claim = *d, .direct = true};
      dab_proof_claim_label(p->pf, d, t.label, sizeof t.label);
      tell(p, DAB_PROVER_EV_SKIP, &t, NULL, before, 0, 0);
      return NULL;
    }
    return d;
  }
  return NULL;
}

/* True when c lies under a direct node another process is searching. */
static bool under_busy(const dab_prover *p, const dab_proof_claim *c, const dab_proof_claim *busy, int nbusy) {
  int direct_depth = dab_proof_get_spec(p->pf)->depth - 2;
  for (int i = 0; i < nbusy; i++)
    if (p->o.direct > 0 && busy[i].depth == direct_depth && c->group == busy[i].pos) return true;
  return false;
}

static const dab_proof_claim *next_leaf(dab_prover *p, const dab_proof_claim *busy, int nbusy, uint64_t prefer) {
  for (int pass = prefer ? 0 : 1; pass < 2; pass++)
    for (size_t i = 0; i < p->nopen; i++) {
      const dab_proof_claim *c = &p->open[i];
      if (!pass && c->group != prefer) continue;
      if (!dab_prover_in_part(c, p->o.part_i, p->o.part_n) || listed(p->skipped, p->nskipped, c) ||
          listed(busy, nbusy, c) || under_busy(p, c, busy, nbusy))
        continue;
      return c;
    }
  return NULL;
}

dab_status dab_prover_next(dab_prover *p, const dab_proof_claim *busy, int nbusy, uint64_t prefer_group,
                           dab_prover_task *t, bool *have, dab_err *err) {
  *have = false;
  dab_status st = dab_proof_eval(p->pf, &p->sum, p->open, MAX_OPEN, &p->nopen, err);
  if (st || p->sum.state != DAB_PROOF_OPEN) return st;
  const dab_proof_claim *next = next_direct(p, busy, nbusy, err, &st);
  if (st) return st;
  bool direct = next != NULL;
  if (!next) next = next_leaf(p, busy, nbusy, prefer_group);
  if (!next) return DAB_OK;
  memset(t, 0, sizeof *t);
  t->claim = *next;
  t->direct = direct;
  t->limit = direct ? p->o.direct : p->o.leaf_limit;
  dab_proof_claim_label(p->pf, next, t->label, sizeof t->label);
  *have = true;
  return DAB_OK;
}

/* The "# open" note of a search given up: what it cost and what its
** table knows of the children's order (dab_proof_note). */
static void format_note(const dab_prover *p, const dab_ab *ab, const dab_prover_task *t, double seconds,
                        uint64_t nodes, char *line, size_t len) {
  char date[24], hint[400] = "";
  dab_proof_utc_now(date, sizeof date);
  dab_proof_order_hint(p->pf, ab, &t->claim, hint, sizeof hint);
  int threads = dab_ab_options(ab)->threads;
  snprintf(line, len, "# open %s%s abandoned after seconds=%.1f nodes=%llu threads=%d date=%s host=%s%s",
           t->direct ? "direct " : "", t->label, seconds, (unsigned long long)nodes, threads > 0 ? threads : 1,
           date, p->host, hint);
}

dab_status dab_prover_search(dab_prover *p, dab_ab *ab, const dab_prover_task *t, dab_prover_outcome *outcome,
                             char *line, size_t len, dab_proof_rec *rec, dab_err *err) {
  double t0 = dab_now_s();
  line[0] = 0;
  p->cancel = 0;
  p->why = 0;
  p->search_deadline = t->limit > 0 ? t0 + t->limit : 0;
  p->status = (dab_prover_status){t->label, t->direct, p->sum.used_proved,
                                  p->sum.used_proved + p->sum.leaves_open, p->sum.median_seconds, 0, 0};
  if (p->o.cancel && *p->o.cancel) {
    *outcome = DAB_PROVER_CANCELED;
    return DAB_OK;
  }
  if (p->deadline && t0 >= p->deadline) {
    *outcome = DAB_PROVER_OUT_OF_TIME;
    return DAB_OK;
  }
  dab_proof_rec r;
  dab_status st = dab_proof_solve_claim(p->pf, ab, &t->claim, &r, err);
  if (st == DAB_ECANCELED) {
    *outcome = p->why ? (dab_prover_outcome)p->why : DAB_PROVER_CANCELED;
    if (*outcome == DAB_PROVER_GAVE_UP) {
      dab_ab_stats as;
      dab_ab_get_stats(ab, &as);
      format_note(p, ab, t, dab_now_s() - t0, as.nodes, line, len);
    }
    return DAB_OK;
  }
  if (st) return st;
  if (!dab_proof_format_rec(p->pf, &r, line, len))
    return dab_fail(err, DAB_EINTERNAL, "a record longer than its line buffer");
  if (rec) *rec = r;
  *outcome = DAB_PROVER_RECORDED;
  return DAB_OK;
}

dab_status dab_prover_commit(dab_prover *p, const dab_prover_task *t, const char *line, dab_proof_rec *rec,
                             dab_err *err) {
  dab_proof_rec r;
  bool note = line[0] == '#';
  dab_status st = note ? DAB_OK : dab_proof_parse_rec(p->pf, line, &r, err);
  if (!st) st = dab_proof_append_line(p->rec_path, dab_proof_rec_header(), line, err);
  if (st) return st;
  if (!note) {
    if (rec) *rec = r;
    return dab_proof_add(p->pf, &r, err);
  }
  /* A direct node given up: its leaves next.  A leaf: split by its note
  ** from now on, or skipped when the note cannot split it. */
  bool noted = dab_proof_note(p->pf, line);
  if (t->direct || !noted) skip_claim(p, &t->claim);
  return DAB_OK;
}

/* The warm table's store (dab_prover_opts.warm): open and seed ab from it.
** RETURN: the handle, or NULL when off or it cannot be opened (the run
** then goes on cold; the store's warnings say why). */
static dab_solvestore *warm_open(dab_prover *p, dab_ab *ab) {
  if (!p->o.warm) return NULL;
  dab_solvestore_opts so = {.tb_dir = p->o.warm_tb_dir, .checkpoint_records = p->o.warm_entries};
  dab_solvestore *store = NULL;
  if (dab_solvestore_open(dab_proof_geom(p->pf), &so, &store, NULL)) return NULL;
  dab_solvestore_seed(store, ab);
  return store;
}

static dab_status run_claims(dab_prover *p, dab_ab *ab, dab_solvestore *store, dab_prover_result *r,
                             dab_err *err);

dab_status dab_prover_run(dab_prover *p, dab_ab *ab, dab_prover_result *r, dab_err *err) {
  memset(r, 0, sizeof *r);
  dab_solvestore *store = warm_open(p, ab);
  double t0 = dab_now_s();
  dab_status st = run_claims(p, ab, store, r, err);
  if (store) {
    /* the run's end: what the table knows is kept for the next run */
    dab_solvestore_checkpoint(store, ab, dab_now_s() - t0);
    dab_solvestore_close(store);
  }
  return st;
}

/* dab_prover_run's loop; store (may be NULL) gets a checkpoint every
** warm_every seconds between claims. */
static dab_status run_claims(dab_prover *p, dab_ab *ab, dab_solvestore *store, dab_prover_result *r,
                             dab_err *err) {
  char line[DAB_MAX_LINES + 1024];
  const double every = p->o.warm_every > 0 ? p->o.warm_every : 600;
  const double t_run = dab_now_s();
  double last_save = t_run;
  for (;;) {
    if (store && dab_now_s() - last_save >= every) {
      dab_solvestore_checkpoint(store, ab, dab_now_s() - t_run);
      last_save = dab_now_s();
    }
    if (p->o.max_records && r->solved >= p->o.max_records) {
      r->stopped = DAB_PROVER_OUT_OF_TIME; /* the run's budget of records is spent */
      return DAB_OK;
    }
    dab_prover_task t;
    bool have;
    dab_status st = dab_prover_next(p, NULL, 0, 0, &t, &have, err);
    if (st || !have) return st;
    if (p->o.cancel && *p->o.cancel) {
      r->stopped = DAB_PROVER_CANCELED;
      return DAB_OK;
    }
    if (p->deadline && dab_now_s() >= p->deadline) {
      r->stopped = DAB_PROVER_OUT_OF_TIME;
      return DAB_OK;
    }
    double t0 = dab_now_s();
    dab_prover_outcome out;
    dab_proof_rec rec;
    if ((st = dab_prover_search(p, ab, &t, &out, line, sizeof line, &rec, err))) return st;
    double secs = dab_now_s() - t0;
    if (out == DAB_PROVER_CANCELED || out == DAB_PROVER_OUT_OF_TIME) {
      r->stopped = out;
      tell(p, DAB_PROVER_EV_STOPPED, &t, NULL, secs, 0, out);
      return DAB_OK;
    }
    if ((st = dab_prover_commit(p, &t, line, NULL, err))) return st;
    if (out == DAB_PROVER_RECORDED) {
      r->solved++;
      tell(p, DAB_PROVER_EV_RECORD, &t, &rec, rec.seconds, rec.nodes, out);
    } else {
      dab_ab_stats as;
      dab_ab_get_stats(ab, &as);
      r->gave_up++;
      tell(p, DAB_PROVER_EV_GAVE_UP, &t, NULL, secs, as.nodes, out);
    }
  }
}

dab_status dab_prover_run_here(dab_prover *p, const dab_ab_opts *abo, void (*announce)(void *ctx, uint64_t bytes),
                               void *ctx, dab_prover_result *r, dab_err *err) {
  memset(r, 0, sizeof *r);
  dab_ab_opts o = *abo;
  dab_prover_hook(p, &o);
  dab_prover_task first;
  bool have = false;
  dab_status st = dab_prover_next(p, NULL, 0, 0, &first, &have, err);
  if (st || !have) return st;
  if (announce) announce(ctx, dab_ab_memory(&o));
  dab_ab *ab = dab_ab_new(dab_proof_geom(p->pf), &o, &st, err);
  if (!ab) return st;
  st = dab_prover_run(p, ab, r, err);
  dab_ab_free(ab);
  return st;
}
