/*
** prover.c: the scheduling of a divisible proof: parts, what comes next,
** estimates of what is left, and storing a finished proof.
** See Copyright Notice in README.md
*/
#include "proof/prover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "game/postext.h"
#include "oracle/solvestore.h"

/* ---- Opening a proof directory --------------------------------------- */

/* want's root and claim against the directory's spec: DAB_OK or why not. */
static dab_status spec_matches(const char *dir, const dab_proof_spec *have, const dab_proof_spec *want,
                               bool want_claim, int depth, dab_err *err) {
  if (have->rows != want->rows || have->cols != want->cols || have->root != want->root) {
    char a[DAB_MAX_LINES + 32] = "?", b[DAB_MAX_LINES + 32] = "?";
    dab_geom g;
    dab_lineset l1 = dab_ls_from_word(have->root), l2 = dab_ls_from_word(want->root);
    if (!dab_geom_init(&g, have->rows, have->cols, NULL)) dab_format_dbn(&g, &l1, a, sizeof a);
    if (!dab_geom_init(&g, want->rows, want->cols, NULL)) dab_format_dbn(&g, &l2, b, sizeof b);
    return dab_fail(err, DAB_EINPUT, "%s proves %s, not %s", dir, a, b);
  }
  if (want_claim && (have->has_ge != want->has_ge || have->has_le != want->has_le ||
                     (want->has_ge && have->ge_bound != want->ge_bound) ||
                     (want->has_le && have->le_bound != want->le_bound))) {
    char c1[24], c2[24];
    return dab_fail(err, DAB_EINPUT, "%s proves the claim %s, not %s", dir, dab_proof_spec_claim_text(have, c1),
                    dab_proof_spec_claim_text(want, c2));
  }
  if (depth >= 0 && depth != have->depth)
    return dab_fail(err, DAB_EINPUT, "%s was split at depth %d; depth %d would mix depths", dir, have->depth,
                    depth);
  return DAB_OK;
}

dab_status dab_prover_open(const char *dir, const dab_proof_spec *want, bool want_claim, int depth, bool create,
                           dab_proof **out, dab_proof_load_info *li, dab_err *err) {
  *out = NULL;
  dab_proof_spec spec;
  bool exists;
  dab_status st = dab_proof_read_spec(dir, &spec, &exists, err);
  if (st) return st;
  if (exists) {
    st = spec_matches(dir, &spec, want, want_claim, depth, err);
    if (st) return st;
  } else {
    if (!create) return dab_fail(err, DAB_EIO, "%s holds no proof (no proof.txt)", dir);
    if (!want_claim)
      return dab_fail(err, DAB_EINPUT, "%s is a new proof: say what to prove with a claim (e.g. =0)", dir);
    spec = *want;
    spec.depth = depth >= 0 ? depth : 2;
  }
  dab_proof *pf = dab_proof_new(&spec, &st, err);
  if (!pf) return st;
  if (!exists) st = dab_proof_write_spec(dir, &spec, err);
  if (!st) st = dab_proof_load_dir(pf, dir, li, err);
  if (st) {
    dab_proof_free(pf);
    return st;
  }
  *out = pf;
  return DAB_OK;
}

/* ---- Parts and order --------------------------------------------------- */

bool dab_prover_in_part(const dab_proof_claim *c, int part_i, int part_n) {
  if (part_n <= 1) return true;
  /* by subtree, not by claim: a subtree's leaves share one warm table.
  ** This mixer is not dab_mix64 on purpose: changing it would move the
  ** claims of proofs in progress from part to part. */
  uint64_t h = c->group * 0x9e3779b97f4a7c15ull;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return (int)(h % (uint64_t)part_n) == part_i;
}

const dab_proof_claim *dab_prover_pick_next(const dab_proof_claim *list, size_t n,
                                            const dab_proof_claim *skipped, int nskipped,
                                            int part_i, int part_n) {
  for (size_t i = 0; i < n; i++) {
    if (!dab_prover_in_part(&list[i], part_i, part_n)) continue;
    bool skip = false;
    for (int j = 0; j < nskipped && !skip; j++)
      skip = skipped[j].pos == list[i].pos && skipped[j].dir == list[i].dir && skipped[j].bound == list[i].bound;
    if (!skip) return &list[i];
  }
  return NULL;
}

static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Sorts t[0..k) (k > 0).  RETURN: the median; *mean gets the mean. */
static double median_and_mean(double *t, size_t k, double *mean) {
  qsort(t, k, sizeof *t, cmp_dbl);
  *mean = 0;
  for (size_t i = 0; i < k; i++) *mean += t[i] / (double)k;
  return t[k / 2];
}

void dab_prover_subtrees_estimate(dab_proof *pf, size_t *n, dab_prover_subtrees *st) {
  const dab_proof_spec *sp = dab_proof_get_spec(pf);
  *n = 0;
  memset(st, 0, sizeof *st);
  if (sp->depth < 2) return;
  int want = __builtin_popcountll(sp->root) + sp->depth - 2;
  size_t nr;
  const dab_proof_rec *r = dab_proof_records(pf, &nr);
  double *t = malloc((nr ? nr : 1) * sizeof *t), *cpu = malloc((nr ? nr : 1) * sizeof *cpu);
  dab_proof_claim *nodes = malloc((1 << 16) * sizeof *nodes);
  double sum[2] = {0, 0};
  size_t k = 0;
  if (t && cpu && nodes) {
    for (size_t i = 0; i < nr; i++)
      if (__builtin_popcountll(r[i].pos) == want) {
        int kind = r[i].dir == DAB_PROOF_LE;
        cpu[k] = dab_proof_rec_cpu(&r[i]);
        sum[kind] += cpu[k];
        st->attempts[kind]++;
        t[k++] = r[i].seconds;
      }
    dab_proof_claim c;
    double secs;
    int threads;
    for (size_t i = 0; dab_proof_direct_note(pf, i, &c, &secs, &threads); i++)
      if (__builtin_popcountll(c.pos) == want) {
        int kind = c.dir == DAB_PROOF_LE;
        sum[kind] += secs * threads;
        st->attempts[kind]++;
        st->given_up[kind]++;
      }
    if (k && !dab_proof_open_at(pf, sp->depth - 2, nodes, 1 << 16, n, NULL)) {
      st->median = median_and_mean(t, k, &st->mean);
      st->cpu_median = median_and_mean(cpu, k, &st->cpu_mean);
      size_t all = st->attempts[0] + st->attempts[1];
      for (size_t i = 0; i < *n; i++) st->open[nodes[i].dir == DAB_PROOF_LE]++;
      for (int kind = 0; kind < 2; kind++) {
        /* a kind never attempted: the mean of every attempt */
        st->attempt_cpu_mean[kind] = st->attempts[kind] ? sum[kind] / (double)st->attempts[kind]
                                                        : (sum[0] + sum[1]) / (double)all;
        st->eta_cpu += (double)st->open[kind] * st->attempt_cpu_mean[kind];
      }
    } else *n = 0;
  }
  free(t);
  free(cpu);
  free(nodes);
}

static int cmp_date_desc(const void *a, const void *b) {
  return strcmp((*(const dab_proof_rec *const *)b)->date, (*(const dab_proof_rec *const *)a)->date);
}

bool dab_prover_rate_estimate(dab_proof *pf, const char *dir, double window,
                              const dab_proof_summary *now, dab_prover_rate *out) {
  size_t nr;
  const dab_proof_rec *r = dab_proof_records(pf, &nr);
  const dab_proof_rec **by_date = malloc((nr ? nr : 1) * sizeof *by_date);
  if (!by_date) return false;
  size_t nd = 0;
  for (size_t i = 0; i < nr; i++)
    if (r[i].date[0] && strcmp(r[i].date, "-")) by_date[nd++] = &r[i];
  qsort(by_date, nd, sizeof *by_date, cmp_date_desc);
  double cpu = 0;
  size_t i = 0;
  for (; i < nd && cpu < window; i++) cpu += dab_proof_rec_cpu(by_date[i]);
  snprintf(out->since, sizeof out->since, "%s", i < nd ? by_date[i]->date : "0");
  free(by_date);
  if (!nd) return false;
  dab_err err;
  dab_proof *then = dab_proof_new(dab_proof_get_spec(pf), NULL, &err);
  if (!then) return false;
  dab_proof_set_until(then, out->since);
  dab_proof_load_info li;
  dab_proof_summary s;
  bool ok = !dab_proof_load_dir(then, dir, &li, &err) && !dab_proof_eval(then, &s, NULL, 0, NULL, &err);
  dab_proof_free(then);
  if (!ok) return false;
  out->window_cpu = now->cpu_seconds + now->given_up_cpu_seconds - s.cpu_seconds - s.given_up_cpu_seconds;
  out->closed = (long long)s.leaves_open - (long long)now->leaves_open;
  out->eta_cpu = out->closed > 0 ? (double)now->leaves_open * out->window_cpu / (double)out->closed : 0;
  return out->window_cpu > 0;
}

long dab_prover_store(const dab_proof *pf, const dab_proof_summary *s, const char *tb_dir,
                      void (*warn)(void *ctx, const char *msg), void *warn_ctx, char *path,
                      size_t path_len) {
  if (path_len) path[0] = 0;
  if (s->state != DAB_PROOF_PROVED) return -1;
  const dab_geom *g = dab_proof_geom(pf);
  if (dab_solvestore_board_covered(g, tb_dir)) return -1;
  dab_solvestore_opts so = {.tb_dir = tb_dir, .warn = warn, .warn_ctx = warn_ctx};
  dab_solvestore *store;
  if (dab_solvestore_open(g, &so, &store, NULL)) return -1;
  size_t nrec;
  const dab_proof_rec *recs = dab_proof_records(pf, &nrec);
  uint64_t *pos = malloc((nrec + 1) * sizeof *pos);
  int *lo = malloc((nrec + 1) * sizeof *lo), *hi = malloc((nrec + 1) * sizeof *hi);
  long written = -1;
  if (pos && lo && hi) {
    const dab_proof_spec *sp = dab_proof_get_spec(pf);
    int n = dab_ab_open_boxes(g, sp->root);
    pos[0] = sp->root;
    lo[0] = sp->has_ge ? sp->ge_bound : -n;
    hi[0] = sp->has_le ? sp->le_bound : n;
    /* several records of one position give it the same bounds: the store
    ** merges them */
    for (size_t i = 0; i < nrec; i++) {
      pos[i + 1] = recs[i].pos;
      dab_proof_bounds(pf, recs[i].pos, &lo[i + 1], &hi[i + 1]);
    }
    size_t w = dab_solvestore_put_bounds(store, nrec + 1, pos, lo, hi);
    written = (long)w - 1;
    if (w && path_len) snprintf(path, path_len, "%s", dab_solvestore_path(store));
  }
  free(pos);
  free(lo);
  free(hi);
  dab_solvestore_close(store);
  return written;
}

dab_status dab_prover_recheck(dab_proof *pf, dab_ab *ab, size_t k, uint64_t seed, dab_cancel_flag *cancel,
                              void (*each)(void *ctx, size_t i, size_t k, const char *label),
                              void (*bad)(void *ctx, const dab_proof_rec *r, const char *label), void *ctx,
                              dab_prover_recheck_result *res, dab_err *err) {
  memset(res, 0, sizeof *res);
  size_t n;
  const dab_proof_rec *recs = dab_proof_records(pf, &n);
  if (k > n) k = n;
  size_t *idx = malloc((n ? n : 1) * sizeof *idx);
  if (!idx) return dab_fail(err, DAB_ENOMEM, "out of memory for %zu records", n);
  for (size_t i = 0; i < n; i++) idx[i] = i;
  uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 1;
  for (size_t i = 0; i < k; i++) { /* partial Fisher-Yates */
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    size_t j = i + (size_t)(rng % (n - i));
    size_t t = idx[i];
    idx[i] = idx[j], idx[j] = t;
  }
  dab_status st = DAB_OK;
  for (size_t i = 0; i < k; i++) {
    const dab_proof_rec *r = &recs[idx[i]];
    dab_proof_claim c = {r->pos, r->dir, r->bound, 0, r->pos};
    char label[DAB_MAX_LINES + 64];
    dab_proof_claim_label(pf, &c, label, sizeof label);
    if (each) each(ctx, i, k, label);
    dab_proof_rec again;
    st = dab_proof_solve_claim(pf, ab, &c, &again, err);
    if (st == DAB_ECANCELED && !(cancel && *cancel)) {
      res->skipped++;
      st = DAB_OK;
      continue;
    }
    if (st == DAB_ECANCELED) {
      res->interrupted = true;
      st = DAB_OK;
      break;
    }
    if (st) break;
    res->checked++;
    if (again.proved != r->proved) {
      res->wrong++;
      if (bad) bad(ctx, r, label);
    }
  }
  free(idx);
  return st;
}
