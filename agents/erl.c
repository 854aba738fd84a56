/*
** erl.c: concept-accessibility evolutionary RL (seed paper 003): Q and f, top-10 Boltzmann.
** See Copyright Notice in README.md
*/
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agents/erl.h"

void dab_erl_opts_default(dab_erl_opts *o) {
  memset(o, 0, sizeof *o);
  o->schedule = DAB_ERL_CONST10;
  o->alpha = 0.1;
  o->pop = 1000;
  o->few = 2;
  o->p_few = 0.2;
  o->reward_rate = 0.001;
}

double dab_erl_beta(const dab_erl_opts *o, long games) {
  double steps = (double)(games / 10000);
  switch (o->schedule) {
  case DAB_ERL_TO20: return fmin(20, 0.1 + 0.2 * steps);
  case DAB_ERL_TO10: return fmin(10, 0.1 + 0.1 * steps);
  case DAB_ERL_CONST20: return 20;
  default: return 10;
  }
}

dab_status dab_erl_new(const dab_erl_opts *o, dab_erl **out, dab_err *err) {
  dab_erl *e = calloc(1, sizeof *e);
  if (e) e->a = calloc((size_t)o->pop, sizeof *e->a);
  if (e) e->fired_now = calloc((size_t)o->pop, 1);
  if (e) e->key = calloc((size_t)o->pop, sizeof *e->key);
  if (!e || !e->a || !e->fired_now || !e->key) {
    dab_erl_free(e);
    return dab_fail(err, DAB_ENOMEM, "erl: out of memory");
  }
  e->o = *o;
  e->beta = dab_erl_beta(o, 0);
  *out = e;
  return DAB_OK;
}

void dab_erl_free(dab_erl *e) {
  if (!e) return;
  free(e->a);
  free(e->fired_now);
  free(e->key);
  free(e);
}

/* The value the population is trimmed by: f, or Q in the controls. */
static double keep_value(const dab_erl *e, const dab_ragent *x) {
  return e->o.control == DAB_ERL_CTRL_NONE ? x->f : x->q;
}

/* A slot for a new agent: a free one, else the least kept one that has not
** acted in the game being played.  -1 when none. */
static int slot(dab_erl *e) {
  if (e->n < e->o.pop) return e->n++;
  int w = -1;
  for (int i = 0; i < e->n; i++)
    if (!e->fired_now[i] && (w < 0 || keep_value(e, &e->a[i]) < keep_value(e, &e->a[w]))) w = i;
  return w;
}

static int add_agent(dab_erl *e, const dab_rule *r) {
  int i = slot(e);
  if (i < 0) return -1;
  dab_ragent *x = &e->a[i];
  memset(x, 0, sizeof *x);
  x->rule = *r;
  e->key[i] = dab_rule_key_of(r);
  x->q = e->avg_reward;
  x->f = 1;
  x->born = e->games;
  e->fired_now[i] = 0;
  e->added++;
  return i;
}

/* Boltzmann over the candidates' Q at e->beta. */
static int boltzmann(const dab_erl *e, const int *idx, int n, dab_rng *rng) {
  double qmax = -1e300, w[16], sum = 0;
  for (int k = 0; k < n; k++) qmax = fmax(qmax, e->a[idx[k]].q);
  for (int k = 0; k < n; k++) sum += w[k] = exp(e->beta * (e->a[idx[k]].q - qmax));
  double u = dab_rng_unit(rng) * sum;
  for (int k = 0; k < n; k++)
    if ((u -= w[k]) < 0) return k;
  return n - 1;
}

/* Inserts agent i (its line l) into the list of the ten best Q, sorted
** down; tline may be NULL. */
static void top_insert(const dab_erl *e, int *top, int *tline, int *nt, int i, int l) {
  int k = *nt;
  if (k == DAB_ERL_TOP) {
    if (e->a[i].q <= e->a[top[k - 1]].q) return;
    k--;
  } else {
    (*nt)++;
  }
  while (k > 0 && e->a[top[k - 1]].q < e->a[i].q) {
    top[k] = top[k - 1];
    if (tline) tline[k] = tline[k - 1];
    k--;
  }
  top[k] = i;
  if (tline) tline[k] = l;
}

int dab_erl_choose(void *sys, const dab_sgraph *sg, const dab_game *game, dab_rng *rng, int *line) {
  (void)game;
  dab_erl *e = sys;
  int top[DAB_ERL_TOP], tline[DAB_ERL_TOP], nt = 0, nmatch = 0;
  for (int i = 0; i < e->n; i++) {
    int l;
    if (!dab_rule_key_fits(e->key[i], sg)) {
      e->stats.tests++;
      e->stats.prefiltered++;
      continue;
    }
    if (!dab_rule_match(&e->a[i].rule, sg, NULL, rng, &e->stats, NULL, &l)) continue;
    nmatch++;
    top_insert(e, top, tline, &nt, i, l);
  }
  if (e->greedy) {
    *line = nt ? tline[0] : -1;
    return nt ? top[0] : -1;
  }
  /* Few or no rules match: a new rule, the state with a random action. */
  if (nmatch <= e->o.few && (nmatch == 0 || dab_rng_unit(rng) < e->o.p_few)) {
    dab_rule r;
    if (dab_rule_from_state(sg, -1, rng, &r, NULL) == DAB_OK) {
      int i = add_agent(e, &r);
      if (i >= 0 && nmatch == 0) {
        int l;
        if (dab_rule_match(&e->a[i].rule, sg, NULL, rng, &e->stats, NULL, &l)) {
          e->fired_now[i] = 1;
          *line = l;
          return i;
        }
      }
    }
  }
  if (!nt) {
    *line = -1;
    return -1;
  }
  int k = boltzmann(e, top, nt, rng);
  e->fired_now[top[k]] = 1;
  *line = tline[k];
  return top[k];
}

void dab_erl_end_game(dab_erl *e, const dab_rt_game *gm, dab_rng *rng) {
  double r = gm->diff, a = e->o.alpha, rsum = 0;
  int rcount = 0;
  for (int i = 0; i < e->n; i++) {
    dab_ragent *x = &e->a[i];
    int d = e->fired_now[i];
    double ri = r;
    if (d && e->o.reward != DAB_ERL_REWARD_SCORE) {
      /* The oracle's grade of this rule's moves in the game. */
      double lost = 0;
      int k = 0;
      for (int j = 0; j < gm->nfire; j++)
        if (gm->fire[j] == i) lost += gm->fire_lost[j], k++;
      ri = (e->o.reward == DAB_ERL_REWARD_BOTH ? r : 0) - (k ? lost / k : 0);
      rsum += ri;
      rcount++;
    }
    if (e->o.control == DAB_ERL_CTRL_COMBINED) x->q = d * a * ri + (1 - a) * x->q;
    else if (d) x->q = a * ri + (1 - a) * x->q;
    x->f = d + (1 - a) * x->f;
    e->fired_now[i] = 0;
  }
  for (int j = 0; j < gm->nfire; j++) e->a[gm->fire[j]].fired++;
  if (e->o.reward != DAB_ERL_REWARD_SCORE) r = rcount ? rsum / rcount : e->avg_reward;
  e->avg_reward += e->o.reward_rate * (r - e->avg_reward);
  e->games++;
  e->beta = dab_erl_beta(&e->o, e->games);
  /* Every 10 games, 4 parents by the selection distribution, mutated. */
  if (e->games % 10 == 0 && e->n > 0) {
    int idx[DAB_ERL_TOP], n = 0;
    for (int p = 0; p < 4; p++) {
      /* The selection distribution: the ten best Q of the population. */
      n = 0;
      for (int i = 0; i < e->n; i++) top_insert(e, idx, NULL, &n, i, -1);
      int parent = idx[boltzmann(e, idx, n, rng)];
      dab_rule child = e->a[parent].rule;
      if (dab_rule_mutate(&child, 0.5, rng) > 0) add_agent(e, &child);
    }
  }
}

/* ---- dab train erl ---------------------------------------------------------- */

static const char *const sched_names = "const10|to20|to10|const20";
static const char *const ctrl_names = "none|q-only|combined";

dab_status dab_agent_player_erl(void *ctx, const char *args, const dab_geom *g, dab_player_env *env,
                                dab_player **out, dab_err *err) {
  (void)ctx;
  (void)env;
  return dab_rt_player_new("erl", args, g, out, err);
}

static const char *const colour_names = "first|second|random";
static const char *const reward_names = "score|oracle|both";

/* A training run: its settings and the loop's state (what a checkpoint
** keeps besides the rules and the system's counters). */
typedef struct erl_run {
  dab_erl_opts o;
  long N, every, eval_games, snap_games, grade;
  int colour;
  uint64_t seed;
  long done;               /* games played */
  long w[8];               /* this snapshot's games, wins, moves, random moves, graded, optimal, kept, lost */
} erl_run;

/* The checkpoint: every setting and counter in params, doubles exact (%a). */
static dab_status erl_checkpoint(const dab_train_ctx *t, const erl_run *R, const dab_erl *e, const dab_rng *rng,
                                 dab_err *err) {
  char params[DAB_MODEL_PARAMS + 1], rs[96], ss[256], b1[16], b2[16], b3[16], b4[16];
  dab_rt_rng_fmt(rng, rs, sizeof rs);
  dab_rt_stats_fmt(&e->stats, ss, sizeof ss);
  const dab_erl_opts *o = &R->o;
  int k = snprintf(params, sizeof params,
      "checkpoint=1,reward=%s,beta=%s,control=%s,alpha=%a,pop=%d,few=%d,p_few=%a,reward_rate=%a,games=%ld,"
      "snapshot=%ld,eval_games=%ld,snap_games=%ld,grade=%ld,colour=%s,seed=%" PRIu64 ",done=%ld,seconds=%.3f,"
      "rng=%s,win=%ld:%ld:%ld:%ld:%ld:%ld:%ld:%ld,stats=%s,egames=%ld,added=%ld,avg_reward=%a",
      dab_rt_choice_name(reward_names, o->reward, b1, sizeof b1), dab_rt_choice_name(sched_names, o->schedule, b2, sizeof b2),
      dab_rt_choice_name(ctrl_names, o->control, b3, sizeof b3), o->alpha, o->pop, o->few, o->p_few, o->reward_rate, R->N,
      R->every, R->eval_games, R->snap_games, R->grade, dab_rt_choice_name(colour_names, R->colour, b4, sizeof b4),
      R->seed, R->done, dab_train_elapsed(t), rs, R->w[0], R->w[1], R->w[2], R->w[3], R->w[4], R->w[5], R->w[6],
      R->w[7], ss, e->games, e->added, e->avg_reward);
  if (k < 0 || k > DAB_MODEL_PARAMS) return dab_fail(err, DAB_EINTERNAL, "erl: checkpoint params too long");
  return dab_rt_ckpt_write(t->checkpoint ? t->checkpoint : t->out, t->g, "erl", params, e->a, e->n, err);
}

/* Rebuilds a run from t->resume: R, *out (the system) and rng. */
static dab_status erl_resume(const dab_train_ctx *t, erl_run *R, dab_erl **out, dab_rng *rng, double *seconds,
                             dab_err *err) {
  const char *path = t->resume;
  dab_model_header h;
  dab_status st;
  {
    /* The population size comes first: the rules are read into it. */
    void *payload;
    size_t len;
    if ((st = dab_model_read(path, "erl", &h, &payload, &len, err))) return st;
    free(payload);
  }
  const char *p = h.params;
  dab_erl_opts *o = &R->o;
  dab_erl_opts_default(o);
  long pop = 0, few = 0;
  char wv[256];
  int used = 0;
  bool ok = (o->reward = dab_rt_param_choice(p, "reward", reward_names)) >= 0 &&
            (o->schedule = dab_rt_param_choice(p, "beta", sched_names)) >= 0 &&
            (o->control = dab_rt_param_choice(p, "control", ctrl_names)) >= 0 &&
            dab_rt_param_f64(p, "alpha", &o->alpha) && dab_rt_param_long(p, "pop", &pop) && pop >= 10 &&
            pop <= 100000 && dab_rt_param_long(p, "few", &few) && few >= 0 && few <= 100 &&
            dab_rt_param_f64(p, "p_few", &o->p_few) && dab_rt_param_f64(p, "reward_rate", &o->reward_rate) &&
            dab_rt_param_long(p, "games", &R->N) && dab_rt_param_long(p, "snapshot", &R->every) &&
            dab_rt_param_long(p, "eval_games", &R->eval_games) && dab_rt_param_long(p, "snap_games", &R->snap_games) &&
            dab_rt_param_long(p, "grade", &R->grade) &&
            (R->colour = dab_rt_param_choice(p, "colour", colour_names)) >= 0 &&
            dab_rt_param_u64(p, "seed", &R->seed) && dab_rt_param_long(p, "done", &R->done) &&
            dab_rt_param_f64(p, "seconds", seconds) && dab_rt_rng_parse(p, "rng", rng) &&
            dab_params_get(p, "win", wv, sizeof wv) &&
            sscanf(wv, "%ld:%ld:%ld:%ld:%ld:%ld:%ld:%ld%n", &R->w[0], &R->w[1], &R->w[2], &R->w[3], &R->w[4],
                   &R->w[5], &R->w[6], &R->w[7], &used) == 8 && !wv[used] &&
            R->N > 0 && R->every > 0 && R->done >= 0 && R->done <= R->N;
  if (!ok) return dab_fail(err, DAB_EINPUT, "%s: not an erl checkpoint (a finished rule file?)", path);
  o->pop = (int)pop;
  o->few = (int)few;
  dab_erl *e;
  if ((st = dab_erl_new(o, &e, err))) return st;
  ok = dab_rt_stats_parse(p, "stats", &e->stats) && dab_rt_param_long(p, "egames", &e->games) &&
       dab_rt_param_long(p, "added", &e->added) && dab_rt_param_f64(p, "avg_reward", &e->avg_reward);
  if (!ok) st = dab_fail(err, DAB_EINPUT, "%s: not an erl checkpoint (a finished rule file?)", path);
  if (!st) st = dab_rt_ckpt_read(path, t->g, "erl", &h, e->a, o->pop, &e->n, err);
  if (st) {
    dab_erl_free(e);
    return st;
  }
  for (int i = 0; i < e->n; i++) e->key[i] = dab_rule_key_of(&e->a[i].rule);
  e->beta = dab_erl_beta(o, e->games);
  *out = e;
  return DAB_OK;
}

/* A new run from t and its kind options. */
static dab_status erl_parse(dab_train_ctx *t, erl_run *R, dab_err *err) {
  dab_erl_opts *o = &R->o;
  dab_erl_opts_default(o);
  long pop = o->pop, few = o->few;
  R->eval_games = 10000, R->snap_games = 400, R->grade = 1, R->colour = 2;
  dab_kopts *k = t->kopts;
  dab_status st = DAB_OK;
  if (!st) st = dab_kopt_choice(k, "erl", "beta", sched_names, &o->schedule, err);
  if (!st) st = dab_kopt_choice(k, "erl", "control", ctrl_names, &o->control, err);
  if (!st) st = dab_kopt_double(k, "erl", "alpha", 1e-6, 1, &o->alpha, err);
  if (!st) st = dab_kopt_long(k, "erl", "pop", 10, 100000, &pop, err);
  if (!st) st = dab_kopt_long(k, "erl", "few", 0, 100, &few, err);
  if (!st) st = dab_kopt_double(k, "erl", "p-few", 0, 1, &o->p_few, err);
  if (!st) st = dab_kopt_long(k, "erl", "eval-games", 0, 100000000, &R->eval_games, err);
  if (!st) st = dab_kopt_long(k, "erl", "snap-games", 0, 100000000, &R->snap_games, err);
  if (!st) st = dab_kopt_long(k, "erl", "grade", 0, 1, &R->grade, err);
  if (!st) st = dab_kopt_choice(k, "erl", "reward", reward_names, &o->reward, err);
  if (!st && o->reward && !R->grade) st = dab_fail(err, DAB_EINPUT, "train erl: --reward=oracle|both needs --grade=1");
  if (!st) st = dab_kopt_choice(k, "erl", "colour", colour_names, &R->colour, err);
  if (!st) st = dab_kopts_check(k, "erl", err);
  if (st) return st;
  o->pop = (int)pop;
  o->few = (int)few;
  R->N = t->games > 0 ? t->games : 1000000;
  R->every = t->snapshot_every > 0 ? t->snapshot_every : (R->N / 50 > 0 ? R->N / 50 : 1);
  R->seed = t->seed;
  return DAB_OK;
}

dab_status dab_agent_train_erl(dab_train_ctx *t, dab_err *err) {
  erl_run R;
  memset(&R, 0, sizeof R);
  dab_erl *e = NULL;
  dab_rng rng;
  double before = 0;
  dab_status st;
  if (t->resume) {
    if (t->kopts && t->kopts->n)
      return dab_fail(err, DAB_EINPUT, "train erl: --%s: a resumed run keeps its checkpoint's settings",
                      t->kopts->key[0]);
    if ((st = erl_resume(t, &R, &e, &rng, &before, err))) return st;
    if ((t->games && t->games != R.N) || (t->snapshot_every && t->snapshot_every != R.every)) {
      dab_erl_free(e);
      return dab_fail(err, DAB_EINPUT, "train erl: the checkpoint's run has --games %ld --snapshot %ld", R.N,
                      R.every);
    }
  } else if ((st = erl_parse(t, &R, err))) {
    return st;
  }
  if (!dab_geom_fast(t->g)) {
    dab_erl_free(e);
    return dab_fail(err, DAB_EBOARD, "erl plays boards of at most 64 lines");
  }
  long N = R.N;
  const dab_oracle *oracle = NULL;
  dab_player *opp = NULL;
  if (R.grade && (st = dab_player_env_oracle(t->env, t->g->rows, t->g->cols, &oracle, err))) goto out;
  if ((st = dab_rt_opponent(t->g, &opp, err))) goto out;
  if (!t->resume) {
    if ((st = dab_erl_new(&R.o, &e, err))) goto out;
    dab_rng_seed(&rng, R.seed);
  }
  dab_train_start(t, before);
  const char *cols = "games,seconds,win_online,win_chain,draw_chain,diff_chain,optimal,kept,lost,activity,rules,beta,avg_reward";
  long *w = R.w;
  char params[DAB_MODEL_PARAMS];
  int colour = R.colour;
  for (long gi = R.done; gi < N; gi++) {
    dab_rt_game gm = {.team = colour == 2 ? (int)(dab_rng_next(&rng) & 1) : colour, .oracle = oracle};
    if ((st = dab_rt_play(t->g, opp, dab_erl_choose, e, &rng, &gm, err))) goto out;
    dab_erl_end_game(e, &gm, &rng);
    R.done = gi + 1;
    w[0]++, w[1] += gm.diff > 0, w[2] += gm.moves, w[3] += gm.random_moves;
    w[4] += gm.graded, w[5] += gm.optimal, w[6] += gm.kept, w[7] += gm.lost;
    if ((gi + 1) % R.every == 0 || gi + 1 == N) {
      dab_rt_eval_out ev;
      if ((st = dab_rt_eval(t->g, e->a, e->n, 1, NULL, (int)R.snap_games, -1, R.seed ^ (uint64_t)gi, t->threads,
                            &ev, err)))
        goto out;
      double g4 = (double)w[4];
      double v[13] = {(double)(gi + 1), dab_train_elapsed(t), (double)w[1] / (double)w[0], ev.win, ev.draw,
                      ev.diff, w[4] ? (double)w[5] / g4 : 0, w[4] ? (double)w[6] / g4 : 0, w[4] ? (double)w[7] / g4 : 0,
                      w[2] ? 1 - (double)w[3] / (double)w[2] : 0, e->n, e->beta, e->avg_reward};
      if ((st = dab_train_log(t, cols, v, 13, err))) goto out;
      memset(R.w, 0, sizeof R.w);
    }
    if ((gi & 255) == 255) dab_train_progress(t, "erl", (uint64_t)gi + 1, (uint64_t)N);
    if (gi + 1 < N && (dab_train_canceled(t) || (t->stop_at > 0 && gi + 1 == t->stop_at))) {
      st = erl_checkpoint(t, &R, e, &rng, err);
      if (!st) st = dab_fail(err, DAB_ECANCELED, "stopped after %ld of %ld games; checkpoint %s", gi + 1, N,
                             t->checkpoint ? t->checkpoint : t->out);
      goto out;
    }
  }
  /* Greedy evaluation (paper: 1e4 games), each rule graded by the oracle. */
  dab_rt_eval_out ev = {0};
  if (R.eval_games && (st = dab_rt_eval(t->g, e->a, e->n, 1, oracle, (int)R.eval_games, colour == 2 ? -1 : colour,
                                        R.seed + 1, t->threads, &ev, err)))
    goto out;
  if (oracle && (st = dab_rt_grade_rules(t->g, e->a, e->n, 1, oracle, 2000, 0, R.seed + 2, t->threads, err)))
    goto out;
  const dab_erl_opts *o = &R.o;
  char b1[16], b2[16], b3[16], b4[16];
  snprintf(params, sizeof params,
           "reward=%s,beta=%s,control=%s,alpha=%g,pop=%d,few=%d,p_few=%g,games=%ld,seed=%" PRIu64 ",colour=%s,"
           "eval_games=%ld,eval_win=%.4f,eval_draw=%.4f,eval_diff=%.4f,eval_optimal=%.4f,eval_lost=%.4f,"
           "capped=%" PRIu64 ",searches=%" PRIu64,
           dab_rt_choice_name(reward_names, o->reward, b1, sizeof b1), dab_rt_choice_name(sched_names, o->schedule, b2, sizeof b2),
           dab_rt_choice_name(ctrl_names, o->control, b3, sizeof b3), o->alpha, o->pop, o->few, o->p_few, N, R.seed,
           dab_rt_choice_name(colour_names, colour, b4, sizeof b4), R.eval_games, ev.win, ev.draw, ev.diff, ev.optimal,
           ev.lost, e->stats.capped, e->stats.searches);
  st = dab_rules_write(t->out, t->g->rows, t->g->cols, "erl", params, e->a, e->n, err);
out:
  dab_erl_free(e);
  dab_player_free(opp);
  return st;
}
