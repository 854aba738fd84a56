/*
** q.c: tabular Q-learning by self-play (epsilon-greedy or lenient
** Boltzmann), measured against the oracle's exact move values.
** See Copyright Notice in README.md
*/
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "agents/q.h"

struct dab_q_learner {
  dab_q q;
  dab_q_opts o;
  dab_rng rng;
  long episode;
  uint8_t *cnt;     /* lenient: targets gathered per (p, m) since its last update */
  float *best;      /* ... and the largest of them */
};

void dab_q_opts_default(dab_q_opts *o) {
  o->policy = DAB_Q_EGREEDY;
  o->replay = DAB_Q_BACKWARD;
  o->alpha = 1.0;
  o->eps_end = 0.01;
  o->decay = 5.0;
  o->t_start = 80.0;
  o->t_end = 0.01;
  o->kappa = 2;
  o->episodes = 100000;
}

static dab_status table_new(const dab_geom *g, dab_q *q, dab_err *err) {
  if (!dab_geom_fast(g) || g->nlines > DAB_Q_MAX_LINES)
    return dab_fail(err, DAB_EBOARD, "q learns boards of at most %d lines (2x2: 12, 2x3: 17); "
                    "%dx%d has %d", DAB_Q_MAX_LINES, g->rows, g->cols, g->nlines);
  q->g = *g;
  q->nlines = g->nlines;
  q->npos = 1ull << g->nlines;
  q->q = calloc(q->npos * (uint64_t)q->nlines, sizeof *q->q);
  if (!q->q) return dab_fail(err, DAB_ENOMEM, "out of memory for a %dx%d Q table", g->rows, g->cols);
  return DAB_OK;
}

dab_status dab_q_learner_new(const dab_geom *g, const dab_q_opts *o, uint64_t seed,
                             dab_q_learner **out, dab_err *err) {
  *out = NULL;
  if (!(o->alpha > 0 && o->alpha <= 1) || !(o->eps_end >= 0 && o->eps_end <= 1) || !(o->decay >= 0) ||
      !(o->t_start > 0) || !(o->t_end > 0) || !(o->kappa >= 1 && o->kappa <= 255) || o->episodes < 1)
    return dab_fail(err, DAB_EINPUT, "q: option out of range");
  dab_q_learner *l = calloc(1, sizeof *l);
  if (!l) return dab_fail(err, DAB_ENOMEM, "out of memory for a Q learner");
  dab_status st = table_new(g, &l->q, err);
  if (st) {
    free(l);
    return st;
  }
  l->o = *o;
  dab_rng_seed(&l->rng, seed);
  if (o->policy == DAB_Q_LENIENT) {
    size_t n = (size_t)(l->q.npos * (uint64_t)l->q.nlines);
    l->cnt = calloc(n, 1);
    l->best = calloc(n, sizeof *l->best);
    if (!l->cnt || !l->best) {
      dab_q_learner_free(l);
      return dab_fail(err, DAB_ENOMEM, "out of memory for a lenient Q learner");
    }
  }
  *out = l;
  return DAB_OK;
}

void dab_q_learner_free(dab_q_learner *l) {
  if (!l) return;
  free(l->q.q);
  free(l->cnt);
  free(l->best);
  free(l);
}

const dab_q *dab_q_learner_table(const dab_q_learner *l) { return &l->q; }
long dab_q_learner_episode(const dab_q_learner *l) { return l->episode; }

/* Largest Q over the undrawn lines of p (p not full). */
static float max_q(const dab_q *q, uint64_t p) {
  const float *row = q->q + p * (uint64_t)q->nlines;
  uint64_t fr = q->g.all_lines & ~p;
  float best = row[__builtin_ctzll(fr)];
  for (fr &= fr - 1; fr; fr &= fr - 1) {
    float v = row[__builtin_ctzll(fr)];
    if (v > best) best = v;
  }
  return best;
}

/* A greedy line of p, ties at random. */
static int greedy(const dab_q *q, uint64_t p, dab_rng *rng) {
  const float *row = q->q + p * (uint64_t)q->nlines;
  int best = -1, ties = 0;
  float bv = 0;
  for (uint64_t fr = q->g.all_lines & ~p; fr; fr &= fr - 1) {
    int m = __builtin_ctzll(fr);
    if (best < 0 || row[m] > bv) {
      best = m;
      bv = row[m];
      ties = 1;
    } else if (row[m] == bv && dab_rng_below(rng, ++ties) == 0) {
      best = m;
    }
  }
  return best;
}

static int nth_free(uint64_t fr, int k) {
  for (; k; k--) fr &= fr - 1;
  return __builtin_ctzll(fr);
}

static int choose(dab_q_learner *l, uint64_t p, double explore) {
  uint64_t fr = l->q.g.all_lines & ~p;
  int n = __builtin_popcountll(fr);
  if (l->o.policy == DAB_Q_EGREEDY) {
    if (dab_rng_unit(&l->rng) < explore) return nth_free(fr, dab_rng_below(&l->rng, n));
    return greedy(&l->q, p, &l->rng);
  }
  /* Boltzmann: p_i proportional to exp(Q_i / T). */
  const float *row = l->q.q + p * (uint64_t)l->q.nlines;
  double w[64], sum = 0, mx = max_q(&l->q, p);
  int i = 0;
  for (uint64_t f = fr; f; f &= f - 1, i++) sum += w[i] = exp((row[__builtin_ctzll(f)] - mx) / explore);
  double x = dab_rng_unit(&l->rng) * sum;
  i = 0;
  for (uint64_t f = fr; f; f &= f - 1, i++) {
    x -= w[i];
    if (x < 0 || i == n - 1) return __builtin_ctzll(f);
  }
  return __builtin_ctzll(fr);
}

static double explore_at(const dab_q_opts *o, long k) {
  double x = (double)k / (double)o->episodes;
  if (o->policy == DAB_Q_EGREEDY) return o->eps_end + (1 - o->eps_end) * exp(-o->decay * x);
  return o->t_start * pow(o->t_end / o->t_start, x > 1 ? 1 : x);
}

static void update(dab_q_learner *l, uint64_t p, int m, int r, uint64_t next) {
  const dab_q *q = &l->q;
  double target = r;
  if (next != q->g.all_lines) target += r > 0 ? max_q(q, next) : -max_q(q, next);
  uint64_t i = p * (uint64_t)q->nlines + (uint64_t)m;
  if (l->cnt) {  /* lenient: update with the best of kappa targets */
    if (l->cnt[i] == 0 || target > l->best[i]) l->best[i] = (float)target;
    if (++l->cnt[i] < (int)l->o.kappa) return;
    l->cnt[i] = 0;
    target = l->best[i];
  }
  q->q[i] += (float)(l->o.alpha * (target - q->q[i]));
}

static void episode(dab_q_learner *l) {
  double explore = explore_at(&l->o, l->episode);
  uint64_t pos[DAB_Q_MAX_LINES + 1];
  int mv[DAB_Q_MAX_LINES], rw[DAB_Q_MAX_LINES];
  uint64_t p = 0;
  int n = 0;
  const dab_geom *g = &l->q.g;
  while (p != g->all_lines) {
    int m = choose(l, p, explore);
    pos[n] = p;
    mv[n] = m;
    rw[n] = dab64_completes(g, p, m);
    p |= 1ull << m;
    n++;
  }
  pos[n] = p;
  if (l->o.replay == DAB_Q_BACKWARD)
    for (int i = n - 1; i >= 0; i--) update(l, pos[i], mv[i], rw[i], pos[i + 1]);
  else
    for (int i = 0; i < n; i++) update(l, pos[i], mv[i], rw[i], pos[i + 1]);
  l->episode++;
}

long dab_q_learner_run(dab_q_learner *l, long until, dab_cancel_flag *cancel) {
  while (l->episode < until && !(cancel && *cancel)) episode(l);
  return l->episode;
}

dab_status dab_q_exact(const dab_geom *g, const dab_oracle *o, int8_t **out, dab_err *err) {
  *out = NULL;
  if (g->nlines > DAB_Q_MAX_LINES) return dab_fail(err, DAB_EBOARD, "q: board too big");
  uint64_t npos = 1ull << g->nlines, nl = (uint64_t)g->nlines;
  int8_t *ex = malloc(npos * nl);
  if (!ex) return dab_fail(err, DAB_ENOMEM, "out of memory for exact Q");
  memset(ex, INT8_MIN, npos * nl);
  int16_t move[64], value[64];
  for (uint64_t p = 0; p < npos; p++) {
    int n;
    dab_status st = dab_oracle_move_values(o, p, move, value, &n, err);
    if (st) {
      free(ex);
      return st;
    }
    for (int i = 0; i < n; i++) ex[p * nl + (uint64_t)move[i]] = (int8_t)value[i];
  }
  *out = ex;
  return DAB_OK;
}

void dab_q_measure(const dab_q *q, const int8_t *ex, double *rmse, double *opt_all) {
  double sq = 0;
  uint64_t pairs = 0, positions = 0, good = 0, nl = (uint64_t)q->nlines;
  for (uint64_t p = 0; p < q->npos; p++) {
    uint64_t fr = q->g.all_lines & ~p;
    if (!fr) continue;
    const float *row = q->q + p * nl;
    const int8_t *e = ex + p * nl;
    float qmax = max_q(q, p);
    int emax = INT8_MIN;
    for (uint64_t f = fr; f; f &= f - 1) {
      int m = __builtin_ctzll(f);
      double d = row[m] - e[m];
      sq += d * d;
      pairs++;
      if (e[m] > emax) emax = e[m];
    }
    bool ok = true;
    for (uint64_t f = fr; f; f &= f - 1) {
      int m = __builtin_ctzll(f);
      if (row[m] == qmax && e[m] != emax) ok = false;
    }
    positions++;
    good += ok;
  }
  *rmse = pairs ? sqrt(sq / (double)pairs) : 0;
  *opt_all = positions ? (double)good / (double)positions : 1;
}

int dab_q_move(const dab_q *q, const dab_game *game, dab_rng *rng) {
  uint64_t p = dab_ls_word(&game->lines);
  if (p == q->g.all_lines) return -1;
  return greedy(q, p, rng);
}

/* ---- Files --------------------------------------------------------------- */

static uint8_t *pack_floats(const float *x, size_t n, uint8_t *to) {
  for (size_t i = 0; i < n; i++) {
    uint32_t u;
    memcpy(&u, &x[i], 4);
    for (int b = 0; b < 4; b++) *to++ = (uint8_t)(u >> (8 * b));
  }
  return to;
}

static const uint8_t *unpack_floats(const uint8_t *from, size_t n, float *x) {
  for (size_t i = 0; i < n; i++) {
    uint32_t u = 0;
    for (int b = 0; b < 4; b++) u |= (uint32_t)*from++ << (8 * b);
    memcpy(&x[i], &u, 4);
  }
  return from;
}

/* Writes the table, plus (extra_n > 0) extra bytes after it. */
static dab_status save_with(const char *path, const dab_q *q, const char *params, const void *extra,
                            size_t extra_n, dab_err *err) {
  size_t n = (size_t)(q->npos * (uint64_t)q->nlines);
  uint8_t *buf = malloc(n * 4 + extra_n);
  if (!buf) return dab_fail(err, DAB_ENOMEM, "out of memory writing %s", path);
  uint8_t *end = pack_floats(q->q, n, buf);
  if (extra_n) memcpy(end, extra, extra_n);
  dab_model_header h;
  memset(&h, 0, sizeof h);
  h.rows = q->g.rows;
  h.cols = q->g.cols;
  snprintf(h.kind, sizeof h.kind, "q");
  snprintf(h.params, sizeof h.params, "%s", params ? params : "");
  dab_status st = dab_model_write(path, &h, buf, n * 4 + extra_n, err);
  free(buf);
  return st;
}

dab_status dab_q_save(const char *path, const dab_q *q, const char *params, dab_err *err) {
  return save_with(path, q, params, NULL, 0, err);
}

void dab_q_free(dab_q *q) {
  if (!q) return;
  free(q->q);
  free(q);
}

/* Reads a q model: the table into *out, the header into *h, and any bytes
** after the table (checkpoints) into *extra / *extra_n (malloc'd). */
static dab_status load_with(const char *path, const dab_geom *g, dab_q **out, dab_model_header *h,
                            uint8_t **extra, size_t *extra_n, dab_err *err) {
  *out = NULL;
  void *pl;
  size_t n;
  dab_status st = dab_model_read(path, "q", h, &pl, &n, err);
  if (st) return st;
  dab_geom mg;
  if (g) st = dab_model_check_board(path, h, g, err);
  if (!st && dab_geom_init(&mg, h->rows, h->cols, NULL) != DAB_OK)
    st = dab_fail(err, DAB_ECORRUPT, "%s: bad board %dx%d", path, h->rows, h->cols);
  dab_q *q = NULL;
  if (!st && !(q = calloc(1, sizeof *q))) st = dab_fail(err, DAB_ENOMEM, "out of memory reading %s", path);
  if (!st) st = table_new(&mg, q, err);
  size_t tn = q && q->q ? (size_t)(q->npos * (uint64_t)q->nlines) : 0;
  /* A checkpoint holds more state after the table; a player reads the table. */
  char ck[8];
  bool checkpoint = dab_params_get(h->params, "checkpoint", ck, sizeof ck);
  if (!st && (n < tn * 4 || (!extra && !checkpoint && n != tn * 4)))
    st = dab_fail(err, DAB_ECORRUPT, "%s: Q payload of %zu bytes, the %dx%d table has %zu", path, n,
                  mg.rows, mg.cols, tn * 4);
  if (!st) {
    unpack_floats(pl, tn, q->q);
    if (extra) {
      *extra_n = n - tn * 4;
      *extra = malloc(*extra_n ? *extra_n : 1);
      if (!*extra) st = dab_fail(err, DAB_ENOMEM, "out of memory reading %s", path);
      else memcpy(*extra, (uint8_t *)pl + tn * 4, *extra_n);
    }
  }
  free(pl);
  if (st) {
    dab_q_free(q);
    return st;
  }
  *out = q;
  return DAB_OK;
}

dab_status dab_q_load(const char *path, const dab_geom *g, dab_q **out, dab_err *err) {
  dab_model_header h;
  return load_with(path, g, out, &h, NULL, NULL, err);
}

/* ---- The player: q:FILE ------------------------------------------------- */

static int q_player_move(void *ctx, const dab_geom *g, const dab_game *game, dab_rng *rng) {
  (void)g;
  return dab_q_move(ctx, game, rng);
}

static void q_player_free(void *ctx) { dab_q_free(ctx); }

dab_status dab_agent_player_q(void *ctx, const char *args, const dab_geom *g, dab_player_env *env,
                              dab_player **out, dab_err *err) {
  (void)ctx;
  (void)env;
  *out = NULL;
  char path[1024], name[1100];
  const char *rest;
  dab_status st = dab_agent_args("q", args, path, sizeof path, &rest, err);
  if (st) return st;
  if (*rest) return dab_fail(err, DAB_EINPUT, "player 'q': unknown option '%s' (q:FILE)", rest);
  dab_q *q;
  if ((st = dab_q_load(path, g, &q, err))) return st;
  snprintf(name, sizeof name, "q:%s", path);
  return dab_agent_player(name, g, q_player_move, q, q_player_free, out, err);
}

/* ---- Training: dab train q --------------------------------------------- */

static const char *policy_names[] = {"egreedy", "lenient"};
static const char *replay_names[] = {"backward", "forward"};

/* Every setting of a run, as model params (the checkpoint adds its state). */
static void run_params(const dab_q_learner *l, uint64_t seed, char *buf, size_t cap) {
  const dab_q_opts *o = &l->o;
  snprintf(buf, cap,
           "policy=%s,replay=%s,alpha=%.17g,eps_end=%.17g,decay=%.17g,t_start=%.17g,t_end=%.17g,"
           "kappa=%.17g,episodes=%ld,seed=%" PRIu64,
           policy_names[o->policy], replay_names[o->replay], o->alpha, o->eps_end, o->decay,
           o->t_start, o->t_end, o->kappa, o->episodes, seed);
}

static bool param_double(const char *params, const char *key, double *out) {
  char v[64], *end;
  if (!dab_params_get(params, key, v, sizeof v)) return false;
  *out = strtod(v, &end);
  return *v && !*end;
}

static bool param_u64(const char *params, const char *key, int base, uint64_t *out) {
  char v[64], *end;
  if (!dab_params_get(params, key, v, sizeof v)) return false;
  *out = strtoull(v, &end, base);
  return *v && !*end;
}

static int param_choice(const char *params, const char *key, const char **names) {
  char v[64];
  if (!dab_params_get(params, key, v, sizeof v)) return -1;
  for (int i = 0; i < 2; i++)
    if (!strcmp(v, names[i])) return i;
  return -1;
}

static dab_status write_checkpoint(const dab_train_ctx *t, const dab_q_learner *l, uint64_t seed,
                                   dab_err *err) {
  char params[DAB_MODEL_PARAMS];
  run_params(l, seed, params, sizeof params);
  size_t len = strlen(params);
  snprintf(params + len, sizeof params - len,
           ",checkpoint=1,episode=%ld,seconds=%.3f,rng=%016" PRIx64 ":%016" PRIx64 ":%016" PRIx64
           ":%016" PRIx64,
           l->episode, dab_train_elapsed(t), l->rng.s[0], l->rng.s[1], l->rng.s[2], l->rng.s[3]);
  size_t n = (size_t)(l->q.npos * (uint64_t)l->q.nlines), extra_n = 0;
  uint8_t *extra = NULL;
  if (l->cnt) {  /* lenient state: the counts, then the best targets */
    extra_n = n * 5;
    if (!(extra = malloc(extra_n))) return dab_fail(err, DAB_ENOMEM, "out of memory for a checkpoint");
    memcpy(extra, l->cnt, n);
    pack_floats(l->best, n, extra + n);
  }
  dab_status st = save_with(t->checkpoint, &l->q, params, extra, extra_n, err);
  free(extra);
  return st;
}

/* Rebuilds a learner from a checkpoint; *seed and *seconds from it. */
static dab_status read_checkpoint(const dab_train_ctx *t, dab_q_learner **out, uint64_t *seed,
                                  double *seconds, dab_err *err) {
  *out = NULL;
  dab_model_header h;
  dab_q *q;
  uint8_t *extra;
  size_t extra_n;
  const char *path = t->resume;
  dab_status st = load_with(path, t->g, &q, &h, &extra, &extra_n, err);
  if (st) return st;
  dab_q_opts o;
  dab_q_opts_default(&o);
  char rng[80];
  uint64_t ep = 0;
  int pol = param_choice(h.params, "policy", policy_names);
  int rep = param_choice(h.params, "replay", replay_names);
  bool ok = dab_params_get(h.params, "checkpoint", rng, sizeof rng) && pol >= 0 && rep >= 0 &&
            param_double(h.params, "alpha", &o.alpha) && param_double(h.params, "eps_end", &o.eps_end) &&
            param_double(h.params, "decay", &o.decay) && param_double(h.params, "t_start", &o.t_start) &&
            param_double(h.params, "t_end", &o.t_end) && param_double(h.params, "kappa", &o.kappa) &&
            param_u64(h.params, "seed", 10, seed) && param_u64(h.params, "episode", 10, &ep) &&
            param_double(h.params, "seconds", seconds) &&
            dab_params_get(h.params, "rng", rng, sizeof rng);
  uint64_t eps = 0;
  ok = ok && param_u64(h.params, "episodes", 10, &eps);
  o.policy = pol;
  o.replay = rep;
  o.episodes = (long)eps;
  dab_q_learner *l = NULL;
  if (!ok) st = dab_fail(err, DAB_EINPUT, "%s: not a q checkpoint (a finished model?)", path);
  if (!st) st = dab_q_learner_new(&q->g, &o, 0, &l, err);
  if (!st && sscanf(rng, "%" SCNx64 ":%" SCNx64 ":%" SCNx64 ":%" SCNx64, &l->rng.s[0], &l->rng.s[1],
                    &l->rng.s[2], &l->rng.s[3]) != 4)
    st = dab_fail(err, DAB_ECORRUPT, "%s: bad rng state", path);
  size_t n = (size_t)(q->npos * (uint64_t)q->nlines);
  if (!st && extra_n != (l->cnt ? n * 5 : 0))
    st = dab_fail(err, DAB_ECORRUPT, "%s: checkpoint state of %zu bytes, expected %zu", path, extra_n,
                  l->cnt ? n * 5 : 0);
  if (!st) {
    memcpy(l->q.q, q->q, n * sizeof *q->q);
    if (l->cnt) {
      memcpy(l->cnt, extra, n);
      unpack_floats(extra + n, n, l->best);
    }
    l->episode = (long)ep;
  }
  free(extra);
  dab_q_free(q);
  if (st) {
    dab_q_learner_free(l);
    return st;
  }
  *out = l;
  return DAB_OK;
}

static int grade_player_move(void *ctx, const dab_geom *g, const dab_game *game, dab_rng *rng) {
  (void)g;
  return dab_q_move(ctx, game, rng);
}

static dab_status grade_player(void *ctx, const dab_geom *g, dab_player **out, dab_err *err) {
  return dab_player_custom("q", g, grade_player_move, ctx, out, err);
}

#define Q_COLUMNS "games,seconds,explore,rmse,opt_all," DAB_GRADE_COLUMNS

/* One snapshot row: exact-Q measures and a graded match set. */
static dab_status snapshot(dab_train_ctx *t, dab_q_learner *l, const dab_oracle *oracle,
                           const int8_t *ex, double *opt_all, dab_err *err) {
  double v[5 + DAB_GRADE_NCOLUMNS];
  v[0] = (double)l->episode;
  v[2] = explore_at(&l->o, l->episode);
  dab_q_measure(&l->q, ex, &v[3], &v[4]);
  *opt_all = v[4];
  dab_grade gr;
  dab_grade_opts go = {.g = t->g, .agent = {.make = grade_player, .ctx = &l->q}, .env = t->env,
                       .oracle = oracle, .games = t->grade_games, .threads = t->threads,
                       .seed = t->seed ^ (uint64_t)l->episode};
  /* No cancel flag: a snapshot is short, and Ctrl-C during it should still
  ** end in a checkpoint, which the loop writes right after. */
  dab_status st = dab_agent_grade(&go, &gr, err);
  if (st) return st;
  dab_grade_values(&gr, v + 5);
  v[1] = dab_train_elapsed(t);
  return dab_train_log(t, Q_COLUMNS, v, 5 + DAB_GRADE_NCOLUMNS, err);
}

static dab_status parse_opts(dab_train_ctx *t, dab_q_opts *o, dab_err *err) {
  dab_q_opts_default(o);
  if (t->games) o->episodes = t->games;
  long kappa = (long)o->kappa;
  dab_status st;
  if ((st = dab_kopt_choice(t->kopts, "q", "policy", "egreedy|lenient", &o->policy, err)) ||
      (st = dab_kopt_choice(t->kopts, "q", "replay", "backward|forward", &o->replay, err)) ||
      (st = dab_kopt_double(t->kopts, "q", "alpha", 1e-6, 1, &o->alpha, err)) ||
      (st = dab_kopt_double(t->kopts, "q", "eps-end", 0, 1, &o->eps_end, err)) ||
      (st = dab_kopt_double(t->kopts, "q", "decay", 0, 1e6, &o->decay, err)) ||
      (st = dab_kopt_double(t->kopts, "q", "t-start", 1e-6, 1e6, &o->t_start, err)) ||
      (st = dab_kopt_double(t->kopts, "q", "t-end", 1e-6, 1e6, &o->t_end, err)) ||
      (st = dab_kopt_long(t->kopts, "q", "kappa", 1, 255, &kappa, err)))
    return st;
  o->kappa = (double)kappa;
  return DAB_OK;
}

dab_status dab_agent_train_q(dab_train_ctx *t, dab_err *err) {
  dab_q_opts o;
  double target = 2;  /* > 1: never */
  dab_status st = parse_opts(t, &o, err);
  if (!st) st = dab_kopt_double(t->kopts, "q", "target", 0, 1, &target, err);
  if (st) return st;
  if (t->resume) {
    for (int i = 0; t->kopts && i < t->kopts->n; i++)
      if (strcmp(t->kopts->key[i], "target") != 0)
        return dab_fail(err, DAB_EINPUT, "train q: --%s: a resumed run keeps its checkpoint's "
                        "settings", t->kopts->key[i]);
  } else if ((st = dab_kopts_check(t->kopts, "q", err))) {
    return st;
  }
  if (!dab_geom_fast(t->g) || t->g->nlines > DAB_Q_MAX_LINES)
    return dab_fail(err, DAB_EBOARD, "q learns boards of at most %d lines (2x2: 12, 2x3: 17); "
                    "%dx%d has %d", DAB_Q_MAX_LINES, t->g->rows, t->g->cols, t->g->nlines);
  const dab_oracle *oracle;
  if ((st = dab_player_env_oracle(t->env, t->g->rows, t->g->cols, &oracle, err))) return st;
  dab_q_learner *l = NULL;
  uint64_t seed = t->seed;
  double before = 0;
  if (t->resume) st = read_checkpoint(t, &l, &seed, &before, err);
  else st = dab_q_learner_new(t->g, &o, seed, &l, err);
  if (st) return st;
  if (t->resume && t->games && t->games != l->o.episodes) {
    long episodes = l->o.episodes;
    dab_q_learner_free(l);
    return dab_fail(err, DAB_EINPUT, "train q: --games %ld, the checkpoint's run has %ld", t->games,
                    episodes);
  }
  dab_train_ctx tt = *t;
  tt.seed = seed;
  t = &tt;
  int8_t *ex = NULL;
  if ((st = dab_q_exact(t->g, oracle, &ex, err))) {
    dab_q_learner_free(l);
    return st;
  }
  dab_train_start(t, before);
  long N = l->o.episodes;
  long every = t->snapshot_every > 0 ? t->snapshot_every : (N / 50 > 0 ? N / 50 : 1);
  char what[32];
  snprintf(what, sizeof what, "q %dx%d", t->g->rows, t->g->cols);
  double opt_all = 0;
  if (!t->resume && (st = snapshot(t, l, oracle, ex, &opt_all, err))) goto out;
  while (l->episode < N) {
    long next = (l->episode / every + 1) * every;
    if (next > N) next = N;
    if (t->stop_at > l->episode && t->stop_at < next) next = t->stop_at;
    long chunk = l->episode + 4096 < next ? l->episode + 4096 : next;
    dab_q_learner_run(l, chunk, t->cancel);
    dab_train_progress(t, what, (uint64_t)l->episode, (uint64_t)N);
    if (dab_train_canceled(t) || (t->stop_at > 0 && l->episode == t->stop_at && l->episode < N)) {
      st = write_checkpoint(t, l, seed, err);
      if (!st)
        st = dab_fail(err, DAB_ECANCELED, "stopped after %ld of %ld episodes; checkpoint %s",
                      l->episode, N, t->checkpoint);
      goto out;
    }
    if (l->episode % every == 0 || l->episode == N) {
      if ((st = snapshot(t, l, oracle, ex, &opt_all, err))) goto out;
      if (opt_all >= target) break;
    }
  }
  {
    char params[DAB_MODEL_PARAMS];
    long played = l->o.episodes;
    l->o.episodes = l->episode;  /* a run stopped at --target records what it played */
    run_params(l, seed, params, sizeof params);
    l->o.episodes = played;
    st = dab_q_save(t->out, &l->q, params, err);
  }
out:
  free(ex);
  dab_q_learner_free(l);
  return st;
}
