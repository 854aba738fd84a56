/*
** nn_train.c: `dab train nn`: options, snapshots, and the evolutionary methods.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "agents/nn_int.h"

/* ---- Nets and snapshots --------------------------------------------------- */

dab_nn *nn_nets_new(const nn_run *r, int n) {
  dab_nn *nets = calloc((size_t)n, sizeof *nets);
  if (!nets) return NULL;
  int nh = r->o.hidden > 0 ? (int)r->o.hidden : r->g->nboxes;
  for (int i = 0; i < n; i++) {
    if (dab_nn_init_deep(&nets[i], r->g->nlines, nh, (int)r->o.hidden2, r->g->nlines, NULL)) {
      nn_nets_free(nets, i);
      return NULL;
    }
    nets[i].linear = r->o.loss == NN_LOSS_SOFTMAX;
  }
  return nets;
}

void nn_ckpt_params(const nn_run *r, long total, long snap, char *buf, size_t size) {
  snprintf(buf, size, "%s,run-steps=%ld,snapshot-steps=%ld,grade-games=%d", r->params, total, snap,
           r->t->grade_games);
}

void nn_nets_free(dab_nn *nets, int n) {
  if (!nets) return;
  for (int i = 0; i < n; i++) dab_nn_free(&nets[i]);
  free(nets);
}

static dab_status make_graded(void *ctx, const dab_geom *g, dab_player **out, dab_err *err) {
  return dab_nn_player(ctx, "nn", g, false, out, err);
}

dab_status nn_snapshot(nn_run *r, const dab_nn *nets, int n, double games, double step, int *best,
                       dab_err *err) {
  if (step == r->last_step) return DAB_OK; /* already logged (a round boundary) */
  r->last_step = step;
  double *w = malloc(sizeof(double) * 2 * (size_t)n);
  if (!w) return dab_fail(err, DAB_ENOMEM, "out of memory for a snapshot");
  int eg = (int)r->o.eval_games;
  uint64_t seed = r->t->seed ^ 0x5eed5eedull;
  dab_nn_eval(r->g, nets, n, 0, eg, r->t->threads, seed, w, NULL);
  dab_nn_eval(r->g, nets, n, 1, eg, r->t->threads, seed + 1, w + n, NULL);
  double v[8 + DAB_GRADE_NCOLUMNS] = {games, dab_train_elapsed(r->t), step, 0, 0, 0, 0};
  int b = 0;
  for (int i = 0; i < n; i++) {
    if (w[i] > v[3]) v[3] = w[i];
    if (w[n + i] > v[5]) v[5] = w[n + i];
    v[4] += w[i] / n;
    v[6] += w[n + i] / n;
    if (w[i] + w[n + i] > w[b] + w[n + b]) b = i;
  }
  free(w);
  *best = b;
  int nv = 7;
  snprintf(r->columns, sizeof r->columns,
           "games,seconds,step,win_best_level0,win_mean_level0,win_best_level1,win_mean_level1");
  if (r->oracle) {
    dab_grade_opts go = {.g = r->g, .agent = {NULL, make_graded, (void *)&nets[b]}, .env = r->t->env,
                         .oracle = r->oracle, .games = r->t->grade_games, .threads = r->t->threads,
                         .seed = r->t->seed + 2, .cancel = NULL};
    dab_grade gr;
    dab_status st = dab_agent_grade(&go, &gr, err);
    if (st) return st;
    dab_grade_values(&gr, v + nv);
    nv += DAB_GRADE_NCOLUMNS;
    strcat(r->columns, "," DAB_GRADE_COLUMNS);
  }
  return dab_train_log(r->t, r->columns, v, nv, err);
}

/* ---- Options ---------------------------------------------------------------- */

static dab_status parse_opts(dab_train_ctx *t, nn_run *r, dab_err *err) {
  nn_opts *o = &r->o;
  *o = (nn_opts){.method = NN_DIRECT, .opponent = 0, .init = -1, .population = 100, .matches = 10,
                 .eval_games = 300, .hidden = 0, .hidden2 = 0, .loss = NN_LOSS_SIGMOID,
                 .mutation = 0.005, .crossover = 0.6, .share = 0.10,
                 .antigens = 0.25, .antibodies = 0.33, .points = 33, .runs = 30, .sets = 10,
                 .set_games = 800, .positions = 200000, .rounds = 4, .rate = -1};
  dab_kopts *k = t->kopts;
  dab_status st = DAB_OK;
  int opp = 0;
  if (!st) st = dab_kopt_choice(k, "nn", "method", NN_METHODS, &o->method, err);
  if (!st) st = dab_kopt_choice(k, "nn", "opponent", "level0|level1|level2", &opp, err);
  if (!st) st = dab_kopt_choice(k, "nn", "init", "genotype|small", &o->init, err);
  if (!st) st = dab_kopt_long(k, "nn", "population", 2, 100000, &o->population, err);
  if (!st) st = dab_kopt_long(k, "nn", "matches", 1, 100000, &o->matches, err);
  if (!st) st = dab_kopt_long(k, "nn", "eval-games", 2, 10000000, &o->eval_games, err);
  if (!st) st = dab_kopt_long(k, "nn", "hidden", 0, DAB_NN_MAX_HIDDEN, &o->hidden, err);
  if (!st) st = dab_kopt_long(k, "nn", "hidden2", 0, DAB_NN_MAX_HIDDEN, &o->hidden2, err);
  if (!st) st = dab_kopt_choice(k, "nn", "loss", "sigmoid|softmax", &o->loss, err);
  if (!st) st = dab_kopt_double(k, "nn", "mutation", 0, 1, &o->mutation, err);
  if (!st) st = dab_kopt_double(k, "nn", "crossover", 0, 1, &o->crossover, err);
  if (!st) st = dab_kopt_double(k, "nn", "share", 0, 1, &o->share, err);
  if (!st) st = dab_kopt_double(k, "nn", "antigens", 0.01, 1, &o->antigens, err);
  if (!st) st = dab_kopt_double(k, "nn", "antibodies", 0.01, 1, &o->antibodies, err);
  if (!st) st = dab_kopt_double(k, "nn", "points", 0.001, 1e9, &o->points, err);
  if (!st) st = dab_kopt_long(k, "nn", "runs", 1, 10000, &o->runs, err);
  if (!st) st = dab_kopt_long(k, "nn", "sets", 1, 10000, &o->sets, err);
  if (!st) st = dab_kopt_long(k, "nn", "set-games", 1, 100000000, &o->set_games, err);
  if (!st) st = dab_kopt_long(k, "nn", "positions", 100, 100000000, &o->positions, err);
  if (!st) st = dab_kopt_long(k, "nn", "rounds", 1, 1000, &o->rounds, err);
  if (!st) st = dab_kopt_double(k, "nn", "rate", 1e-9, 100, &o->rate, err);
  if (!st) st = dab_kopts_check(k, "nn", err);
  if (st) return st;
  o->opponent = opp;
  if (o->eval_games % 2) return dab_fail(err, DAB_EINPUT, "train nn: --eval-games must be even");
  if (o->init < 0) o->init = o->method == NN_ORACLE ? 1 : 0;
  if (o->rate < 0) o->rate = o->method == NN_ORACLE ? 0.02 : 0.1;
  if (o->loss != NN_LOSS_SIGMOID && o->method != NN_ORACLE)
    return dab_fail(err, DAB_EINPUT, "train nn: --loss is for --method=oracle");
  if (o->hidden2 && o->method != NN_ORACLE && o->method != NN_BACKPROP)
    return dab_fail(err, DAB_EINPUT, "train nn: --hidden2 is for the gradient methods (backprop, oracle)");
  if (t->g->nlines > 64)
    return dab_fail(err, DAB_EBOARD, "train nn: boards of at most 64 lines (the fast game loop); "
                                     "an nn player itself plays any board");
  static const char *mname[] = {"direct", "roundrobin", "ifs", "backprop", "oracle", "oracle-fitness"};
  static const char *lname[] = {"level0", "level1", "level2"};
  int len = snprintf(r->params, sizeof r->params, "method=%s,seed=%llu,hidden=%ld", mname[o->method],
                     (unsigned long long)t->seed, o->hidden ? o->hidden : t->g->nboxes);
  if (o->method <= NN_IFS || o->method == NN_OFIT)
    snprintf(r->params + len, sizeof r->params - (size_t)len,
             ",population=%ld,mutation=%g,crossover=%g,opponent=%s,matches=%ld,share=%g,antigens=%g,"
             "antibodies=%g,points=%g",
             o->population, o->mutation, o->crossover, lname[o->opponent], o->matches, o->share,
             o->antigens, o->antibodies, o->points);
  else
    snprintf(r->params + len, sizeof r->params - (size_t)len,
             ",init=%s,rate=%g,runs=%ld,sets=%ld,set-games=%ld,positions=%ld,rounds=%ld",
             o->init ? "small" : "genotype", o->rate, o->runs, o->sets, o->set_games, o->positions,
             o->rounds);
  /* Beyond-paper options only when set, so older runs keep their params. */
  len = (int)strlen(r->params);
  if (o->hidden2) len += snprintf(r->params + len, sizeof r->params - (size_t)len, ",hidden2=%ld", o->hidden2);
  if (o->loss == NN_LOSS_SOFTMAX) snprintf(r->params + len, sizeof r->params - (size_t)len, ",loss=softmax");
  return DAB_OK;
}

/* ---- Matches, recorded then played in parallel ------------------------------ */

typedef struct match_list {
  int n, cap, next;
  int *a, *b, *res;
  uint64_t *seed;
  bool replay, oom;
  const dab_geom *g;
  const dab_nn *nets;
  int level;
} match_list;

static int record_or_replay(void *ctx, int a, int b, uint64_t seed) {
  match_list *m = ctx;
  if (m->replay) return m->next < m->n ? m->res[m->next++] : 0;
  if (m->n == m->cap) {
    int cap = m->cap ? 2 * m->cap : 1024;
    int *na = realloc(m->a, sizeof(int) * (size_t)cap);
    if (na) m->a = na;
    int *nb = realloc(m->b, sizeof(int) * (size_t)cap);
    if (nb) m->b = nb;
    int *nr = realloc(m->res, sizeof(int) * (size_t)cap);
    if (nr) m->res = nr;
    uint64_t *ns = realloc(m->seed, sizeof(uint64_t) * (size_t)cap);
    if (ns) m->seed = ns;
    if (!na || !nb || !nr || !ns) {
      m->oom = true;
      return 0;
    }
    m->cap = cap;
  }
  m->a[m->n] = a;
  m->b[m->n] = b;
  m->seed[m->n++] = seed;
  return 0;
}

static void play_recorded(void *ctx, int i) {
  match_list *m = ctx;
  dab_nn_side a = {&m->nets[m->a[i]], 0};
  dab_nn_side b = m->b[i] >= 0 ? (dab_nn_side){&m->nets[m->b[i]], 0} : (dab_nn_side){NULL, m->level};
  m->res[i] = dab_nn_match(m->g, a, b, m->seed[i]);
}

/* ---- oracle-fitness: the share of a net's moves the oracle rates optimal ---- */

typedef struct ofit_ctx {
  const nn_run *r;
  const dab_nn *nets;
  uint64_t seed;
  double *fit;
} ofit_ctx;

static void ofit_one(void *arg, int i) {
  ofit_ctx *c = arg;
  const dab_geom *g = c->r->g;
  long moves = 0, optimal = 0;
  int games = 2 * (int)c->r->o.matches;
  for (int k = 0; k < games; k++) {
    dab_rng rng;
    dab_rng_seed2(&rng, c->seed ^ ((uint64_t)i << 32), (uint64_t)k);
    uint64_t p = 0;
    int turn = k & 1; /* 0: the net moves */
    while (p != g->all_lines) {
      uint64_t legal = g->all_lines & ~p;
      int m;
      if (turn == 0) {
        m = dab_nn_move64(&c->nets[i], p, legal, &rng);
        int16_t mv[64], val[64];
        int n = 0, best = -1000, mine = -1000;
        if (dab_oracle_move_values(c->r->oracle, p, mv, val, &n, NULL) == DAB_OK) {
          for (int j = 0; j < n; j++) {
            if (val[j] > best) best = val[j];
            if (mv[j] == m) mine = val[j];
          }
          moves++;
          optimal += mine == best;
        }
      } else {
        m = dab_nn_heuristic_move(g, p, legal, c->r->o.opponent, &rng);
      }
      int got = dab64_completes(g, p, m);
      p |= 1ull << m;
      if (!got) turn ^= 1;
    }
  }
  c->fit[i] = moves ? (double)optimal / (double)moves : 0;
}

/* ---- Checkpoints ----------------------------------------------------------- */

typedef struct ga_state {
  uint64_t gen;
  double games, seconds;
  dab_rng rng;
} ga_state;

static dab_status ga_save(const nn_run *r, const char *params, const ga_state *s, const uint16_t *pop,
                          int n, int ng, dab_err *err) {
  size_t len = 8 + sizeof *s + sizeof(uint16_t) * (size_t)n * (size_t)ng;
  unsigned char *buf = malloc(len);
  if (!buf) return dab_fail(err, DAB_ENOMEM, "out of memory writing a checkpoint");
  uint32_t hdr[2] = {(uint32_t)n, (uint32_t)ng};
  memcpy(buf, hdr, 8); /* a checkpoint is read back on this machine */
  memcpy(buf + 8, s, sizeof *s);
  memcpy(buf + 8 + sizeof *s, pop, len - 8 - sizeof *s);
  dab_model_header h;
  memset(&h, 0, sizeof h);
  h.rows = r->g->rows;
  h.cols = r->g->cols;
  snprintf(h.kind, sizeof h.kind, "nn-ga-ckpt");
  snprintf(h.params, sizeof h.params, "%s", params);
  dab_status st = dab_model_write(r->t->checkpoint, &h, buf, len, err);
  free(buf);
  return st;
}

static dab_status ga_load(const nn_run *r, const char *params, ga_state *s, uint16_t *pop, int n, int ng,
                          dab_err *err) {
  dab_model_header *h = malloc(sizeof *h);
  void *payload = NULL;
  size_t len = 0;
  if (!h) return dab_fail(err, DAB_ENOMEM, "out of memory reading a checkpoint");
  dab_status st = dab_model_read(r->t->resume, "nn-ga-ckpt", h, &payload, &len, err);
  if (!st) st = dab_model_check_board(r->t->resume, h, r->g, err);
  if (!st && strcmp(h->params, params) != 0)
    st = dab_fail(err, DAB_EINPUT, "%s was written with other options (%s)", r->t->resume, h->params);
  uint32_t hdr[2] = {0, 0};
  if (!st && len >= 8) memcpy(hdr, payload, 8);
  if (!st && (hdr[0] != (uint32_t)n || hdr[1] != (uint32_t)ng ||
              len != 8 + sizeof *s + sizeof(uint16_t) * (size_t)n * (size_t)ng))
    st = dab_fail(err, DAB_ECORRUPT, "%s: not a checkpoint of this population", r->t->resume);
  if (!st) {
    memcpy(s, (char *)payload + 8, sizeof *s);
    memcpy(pop, (char *)payload + 8 + sizeof *s, len - 8 - sizeof *s);
  }
  free(payload);
  free(h);
  return st;
}

/* ---- The GA ----------------------------------------------------------------- */

static double games_per_generation(const nn_run *r) {
  const nn_opts *o = &r->o;
  double n = (double)o->population;
  switch (o->method) {
    case NN_ROUNDROBIN: return n * (n - 1);
    case NN_IFS: return 2.0 * (double)lround(o->antigens * n) * (double)lround(o->antibodies * n);
    default: return 2.0 * n * (double)o->matches;
  }
}

static dab_status train_ga(nn_run *r, dab_err *err) {
  dab_train_ctx *t = r->t;
  const nn_opts *o = &r->o;
  int n = (int)o->population;
  dab_nn *nets = nn_nets_new(r, n);
  int ng = nets ? dab_nn_nweights(&nets[0]) : 0;
  uint16_t *pop = malloc(sizeof(uint16_t) * (size_t)n * (size_t)ng * 2);
  double *fit = malloc(sizeof(double) * (size_t)n);
  match_list ml = {0};
  dab_status st = DAB_OK;
  if (!nets || !pop || !fit) {
    st = dab_fail(err, DAB_ENOMEM, "out of memory for a population of %d", n);
    goto done;
  }
  uint16_t *next = pop + (size_t)n * (size_t)ng;
  double gpg = games_per_generation(r);
  long total = t->generations ? t->generations : (long)ceil((t->games ? (double)t->games : 1e6) / gpg);
  long snap = t->snapshot_every ? (t->generations ? t->snapshot_every : (long)ceil((double)t->snapshot_every / gpg))
                                : (total >= 20 ? total / 20 : 1);
  if (snap < 1) snap = 1;
  char ckparams[1400];
  nn_ckpt_params(r, total, snap, ckparams, sizeof ckparams);
  ga_state s;
  memset(&s, 0, sizeof s);
  if (t->resume) {
    st = ga_load(r, ckparams, &s, pop, n, ng, err);
    if (st) goto done;
  } else {
    dab_rng_seed(&s.rng, t->seed);
    dab_ga_random(pop, n * ng, &s.rng);
  }
  dab_train_start(t, s.seconds);
  uint64_t first = s.gen;
  dab_ga_params par = {o->crossover, o->mutation};
  int best = 0;
  for (;;) {
    for (int i = 0; i < n; i++) dab_nn_decode(&nets[i], pop + (size_t)i * (size_t)ng);
    if (s.gen > first && (dab_train_canceled(t) || (t->stop_at && (long)s.gen >= t->stop_at))) {
      s.seconds = dab_train_elapsed(t);
      st = ga_save(r, ckparams, &s, pop, n, ng, err);
      if (!st) st = dab_fail(err, DAB_ECANCELED, "stopped after generation %llu", (unsigned long long)s.gen);
      goto done;
    }
    if ((long)s.gen % snap == 0 || (long)s.gen == total) {
      st = nn_snapshot(r, nets, n, s.games, (double)s.gen, &best, err);
      if (st) goto done;
    }
    if ((long)s.gen >= total) break;
    uint64_t gseed = t->seed * 0x9e3779b97f4a7c15ull + s.gen;
    if (o->method == NN_OFIT) {
      ofit_ctx c = {r, nets, gseed, fit};
      dab_nn_parallel(t->threads, n, ofit_one, &c);
      for (int i = 0; i < n; i++) fit[i] += 1e-6;
      if (o->share * n > 1) dab_ga_scale(fit, fit, n, o->share * n);
    } else {
      /* Record the scheme's matches, play them in parallel, replay. */
      ml.n = ml.next = 0;
      ml.replay = false;
      ml.g = r->g;
      ml.nets = nets;
      ml.level = o->opponent;
      dab_rng keep = s.rng;
      for (int pass = 0; pass < 2; pass++) {
        if (o->method == NN_DIRECT)
          dab_ga_fitness_direct(n, (int)o->matches, record_or_replay, &ml, gseed, 1e-6, o->share * n, fit);
        else if (o->method == NN_ROUNDROBIN)
          dab_ga_fitness_roundrobin(n, record_or_replay, &ml, gseed, 1e-6, fit);
        else
          dab_ga_fitness_ifs(n, o->antigens, o->antibodies, o->points, record_or_replay, &ml, &s.rng,
                             gseed, 1e-6, fit);
        if (ml.oom) {
          st = dab_fail(err, DAB_ENOMEM, "out of memory for the matches of a generation");
          goto done;
        }
        if (pass == 0) {
          dab_nn_parallel(t->threads, ml.n, play_recorded, &ml);
          ml.replay = true;
          s.rng = keep;
        }
      }
    }
    dab_ga_generation(pop, fit, n, ng, next, &par, &s.rng);
    memcpy(pop, next, sizeof(uint16_t) * (size_t)n * (size_t)ng);
    s.gen++;
    s.games += gpg;
    dab_train_progress(t, "nn generations", s.gen, (uint64_t)total);
  }
  char params[1200];
  snprintf(params, sizeof params, "%s,generations=%llu,games=%.0f", r->params, (unsigned long long)s.gen,
           s.games);
  st = dab_nn_save(t->out, &nets[best], r->g, params, err);
done:
  free(ml.a);
  free(ml.b);
  free(ml.res);
  free(ml.seed);
  nn_nets_free(nets, n);
  free(pop);
  free(fit);
  return st;
}

dab_status dab_agent_train_nn(dab_train_ctx *t, dab_err *err) {
  nn_run r;
  memset(&r, 0, sizeof r);
  r.t = t;
  r.g = t->g;
  r.last_step = -1;
  dab_status st = parse_opts(t, &r, err);
  if (st) return st;
  if (!t->grade_games) t->grade_games = DAB_GRADE_GAMES;
  dab_err oerr;
  if (dab_player_env_oracle(t->env, t->g->rows, t->g->cols, &r.oracle, &oerr) != DAB_OK) r.oracle = NULL;
  if ((r.o.method == NN_ORACLE || r.o.method == NN_OFIT) && !r.oracle)
    return dab_fail(err, DAB_EBOARD, "train nn: --method=%s needs an oracle for %dx%d: %s",
                    r.o.method == NN_ORACLE ? "oracle" : "oracle-fitness", t->g->rows, t->g->cols, oerr.msg);
  switch (r.o.method) {
    case NN_BACKPROP: return nn_train_bp(&r, err);
    case NN_ORACLE: return nn_train_oracle(&r, err);
    default: return train_ga(&r, err);
  }
}
