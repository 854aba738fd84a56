/*
** econ.c: the artificial economy (seed paper 000): auctions, spawn and death, curriculum.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agents/econ.h"

void dab_econ_opts_default(dab_econ_opts *o) {
  o->pop = 1000;
  o->reward = 1;
  o->w_init = 1;
  o->b_init = 0.1;
  o->w_spawn = 4;
  o->w_child = 1;
  o->outbid = 0.01;
  o->p_graph = 0.1;
}

dab_status dab_econ_new(const dab_econ_opts *o, dab_econ **out, dab_err *err) {
  dab_econ *e = calloc(1, sizeof *e);
  if (e) e->a = calloc((size_t)o->pop, sizeof *e->a);
  if (e) e->in_game = calloc((size_t)o->pop, 1);
  if (e) e->key = calloc((size_t)o->pop, sizeof *e->key);
  if (!e || !e->a || !e->in_game || !e->key) {
    dab_econ_free(e);
    return dab_fail(err, DAB_ENOMEM, "econ: out of memory");
  }
  e->o = *o;
  e->owner = -1;
  *out = e;
  return DAB_OK;
}

void dab_econ_free(dab_econ *e) {
  if (!e) return;
  free(e->a);
  free(e->in_game);
  free(e->key);
  free(e);
}

double dab_econ_wealth(const dab_econ *e) {
  double s = 0;
  for (int i = 0; i < e->n; i++) s += e->a[i].wealth;
  return s;
}

void dab_econ_start_game(dab_econ *e) {
  e->owner = -1;
  memset(e->in_game, 0, (size_t)e->n);
}

/* Removes agent i (its wealth buried); the last agent moves into its slot. */
static void remove_agent(dab_econ *e, int i) {
  e->buried += e->a[i].wealth;
  e->died++;
  int last = --e->n;
  if (i != last) {
    e->a[i] = e->a[last];
    e->key[i] = e->key[last];
    e->in_game[i] = e->in_game[last];
    if (e->owner == last) e->owner = i;
  }
}

/* Adds an agent (rule r, bid, wealth given by `from`: -1 = created). */
static int add_agent(dab_econ *e, const dab_rule *r, double bid, int from) {
  if (e->n >= e->o.pop) {
    int w = -1;
    for (int i = 0; i < e->n; i++)
      if (!e->in_game[i] && i != from && (w < 0 || e->a[i].wealth < e->a[w].wealth)) w = i;
    if (w < 0) return -1;
    remove_agent(e, w);
    if (from == e->n) from = w; /* the parent moved into the freed slot */
  }
  int i = e->n++;
  dab_ragent *x = &e->a[i];
  memset(x, 0, sizeof *x);
  x->rule = *r;
  e->key[i] = dab_rule_key_of(r);
  x->bid = bid;
  x->born = e->games;
  e->in_game[i] = 0;
  if (from < 0) {
    x->wealth = e->o.w_init;
    e->created += e->o.w_init;
  } else {
    x->wealth = e->o.w_child;
    e->a[from].wealth -= e->o.w_child;
  }
  e->born++;
  return i;
}

int dab_econ_choose(void *sys, const dab_sgraph *sg, const dab_game *game, dab_rng *rng, int *line) {
  (void)game;
  dab_econ *e = sys;
  int best = -1, bl = -1;
  for (int i = 0; i < e->n; i++) {
    if (best >= 0 && e->a[i].bid <= e->a[best].bid) continue;
    if (!dab_rule_key_fits(e->key[i], sg)) {
      e->stats.tests++;
      e->stats.prefiltered++;
      continue;
    }
    int l;
    if (dab_rule_match(&e->a[i].rule, sg, NULL, rng, &e->stats, NULL, &l)) best = i, bl = l;
  }
  if (best < 0) {
    *line = -1;
    if (e->greedy) return -1;
    dab_rule r;
    if (dab_rng_unit(rng) < e->o.p_graph) dab_rule_random(&r, rng);
    else if (dab_rule_from_state(sg, -1, rng, &r, NULL)) return -1;
    int i = add_agent(e, &r, e->o.b_init, -1);
    if (i < 0 || !dab_rule_match(&e->a[i].rule, sg, NULL, rng, &e->stats, NULL, &bl)) return -1;
    best = i;
  }
  if (!e->greedy) {
    /* The auction: pay the owner, take the world. */
    dab_ragent *w = &e->a[best];
    w->wealth -= w->bid;
    if (e->owner >= 0) e->a[e->owner].wealth += w->bid;
    else e->paid_out += w->bid;
    e->owner = best;
    e->in_game[best] = 1;
  }
  *line = bl;
  return best;
}

void dab_econ_end_game(dab_econ *e, const dab_rt_game *gm, dab_rng *rng) {
  if (gm->diff > 0 && e->owner >= 0) {
    e->a[e->owner].wealth += e->o.reward;
    e->rewards += e->o.reward;
  }
  for (int j = 0; j < gm->nfire; j++) e->a[gm->fire[j]].fired++;
  e->games++;
  e->owner = -1;
  memset(e->in_game, 0, (size_t)e->n);
  int n0 = e->n;
  for (int i = 0; i < n0 && i < e->n; i++) {
    if (e->a[i].wealth <= e->o.w_spawn) continue;
    dab_rule child = e->a[i].rule;
    if (dab_rule_mutate(&child, 0.5, rng) > 0) add_agent(e, &child, e->a[i].bid + e->o.outbid, i);
  }
  for (int i = e->n - 1; i >= 0; i--)
    if (e->a[i].wealth <= 0) remove_agent(e, i);
}

/* ---- dab train econ ------------------------------------------------------------- */

dab_status dab_agent_player_econ(void *ctx, const char *args, const dab_geom *g, dab_player_env *env,
                                 dab_player **out, dab_err *err) {
  (void)ctx;
  (void)env;
  return dab_rt_player_new("econ", args, g, out, err);
}

dab_status dab_agent_train_econ(dab_train_ctx *t, dab_err *err) {
  dab_econ_opts o;
  dab_econ_opts_default(&o);
  long pop = o.pop, window = 100, full_games = 0, snap_games = 400, grade = 1;
  double prefill0 = 0.9, step = 0.1, hi = 0.7, lo = 0.2, opp_random = 1;
  int colour = 1;
  dab_kopts *k = t->kopts;
  dab_status st = DAB_OK;
  if (!st) st = dab_kopt_long(k, "econ", "pop", 10, 100000, &pop, err);
  if (!st) st = dab_kopt_double(k, "econ", "reward", 0, 1e6, &o.reward, err);
  if (!st) st = dab_kopt_double(k, "econ", "w-init", 0, 1e6, &o.w_init, err);
  if (!st) st = dab_kopt_double(k, "econ", "b-init", 0, 1e6, &o.b_init, err);
  if (!st) st = dab_kopt_double(k, "econ", "w-spawn", 0, 1e6, &o.w_spawn, err);
  if (!st) st = dab_kopt_double(k, "econ", "w-child", 0, 1e6, &o.w_child, err);
  if (!st) st = dab_kopt_double(k, "econ", "outbid", 0, 1e6, &o.outbid, err);
  if (!st) st = dab_kopt_double(k, "econ", "p-graph", 0, 1, &o.p_graph, err);
  if (!st) st = dab_kopt_long(k, "econ", "window", 1, 100000000, &window, err);
  if (!st) st = dab_kopt_double(k, "econ", "prefill", 0, 1, &prefill0, err);
  if (!st) st = dab_kopt_double(k, "econ", "step", 0, 1, &step, err);
  if (!st) st = dab_kopt_double(k, "econ", "random", 0, 1, &opp_random, err);
  if (!st) st = dab_kopt_long(k, "econ", "full-games", 0, 1000000000, &full_games, err);
  if (!st) st = dab_kopt_long(k, "econ", "snap-games", 0, 100000000, &snap_games, err);
  if (!st) st = dab_kopt_long(k, "econ", "grade", 0, 1, &grade, err);
  if (!st) st = dab_kopt_choice(k, "econ", "colour", "first|second|random", &colour, err);
  if (!st) st = dab_kopts_check(k, "econ", err);
  if (st) return st;
  if (t->resume) return dab_fail(err, DAB_EINPUT, "train econ: --resume is not supported (rerun with the seed)");
  if (!dab_geom_fast(t->g)) return dab_fail(err, DAB_EBOARD, "econ plays boards of at most 64 lines");
  o.pop = (int)pop;
  long N = t->games > 0 ? t->games : 500000, total = N + full_games;
  long every = t->snapshot_every > 0 ? t->snapshot_every : (total / 50 > 0 ? total / 50 : 1);
  const dab_oracle *oracle = NULL;
  if (grade && (st = dab_player_env_oracle(t->env, t->g->rows, t->g->cols, &oracle, err))) return st;
  dab_player *opp = NULL;
  dab_econ *e = NULL;
  if ((st = dab_rt_opponent(t->g, &opp, err)) || (st = dab_econ_new(&o, &e, err))) goto out;
  dab_rng rng;
  dab_rng_seed(&rng, t->seed);
  dab_train_start(t, 0);
  const char *cols = "games,seconds,win_online,win_chain,draw_chain,optimal,kept,lost,activity,rules,opp_random,prefill,wealth";
  long w_games = 0, w_wins = 0, w_moves = 0, w_random = 0, w_graded = 0, w_opt = 0, w_kept = 0, w_lost = 0;
  long c_games = 0, c_wins = 0;
  char params[DAB_MODEL_PARAMS];
  for (long gi = 0; gi < total; gi++) {
    bool training = gi < N;
    double prefill = training ? prefill0 * (1 - (double)gi / (double)N) : 0;
    int team = colour == 2 ? (int)(dab_rng_next(&rng) & 1) : colour;
    dab_rt_game gm = {.team = team, .opp_random = training ? opp_random : 0, .prefill = prefill, .oracle = oracle};
    dab_econ_start_game(e);
    if ((st = dab_rt_play(t->g, opp, dab_econ_choose, e, &rng, &gm, err))) goto out;
    dab_econ_end_game(e, &gm, &rng);
    w_games++, w_wins += gm.diff > 0, w_moves += gm.moves, w_random += gm.random_moves;
    w_graded += gm.graded, w_opt += gm.optimal, w_kept += gm.kept, w_lost += gm.lost;
    /* The curriculum: the opponent's randomness follows the win rate. */
    c_games++, c_wins += gm.diff > 0;
    if (c_games == window) {
      double wr = (double)c_wins / (double)c_games;
      if (training && wr > hi) opp_random = fmax(0, opp_random - step);
      if (training && wr < lo) opp_random = fmin(1, opp_random + step);
      c_games = c_wins = 0;
    }
    if ((gi + 1) % every == 0 || gi + 1 == total) {
      dab_rt_eval_out ev;
      e->greedy = true;
      st = dab_rt_eval(t->g, e->a, e->n, 0, opp, NULL, (int)snap_games, colour == 2 ? -1 : colour,
                       t->seed ^ (uint64_t)gi, &ev, err);
      e->greedy = false;
      if (st) goto out;
      double v[13] = {(double)(gi + 1), dab_train_elapsed(t), (double)w_wins / (double)w_games, ev.win, ev.draw,
                      w_graded ? (double)w_opt / (double)w_graded : 0,
                      w_graded ? (double)w_kept / (double)w_graded : 0, w_graded ? (double)w_lost / (double)w_graded : 0,
                      w_moves ? 1 - (double)w_random / (double)w_moves : 0, e->n, training ? opp_random : 0,
                      prefill, dab_econ_wealth(e)};
      if ((st = dab_train_log(t, cols, v, 13, err))) goto out;
      w_games = w_wins = w_moves = w_random = w_graded = w_opt = w_kept = w_lost = 0;
    }
    if ((gi & 255) == 255) dab_train_progress(t, "econ", (uint64_t)gi + 1, (uint64_t)total);
    if (dab_train_canceled(t) || (t->stop_at > 0 && gi + 1 == t->stop_at)) {
      snprintf(params, sizeof params, "stopped=%ld", gi + 1);
      const char *path = t->checkpoint ? t->checkpoint : t->out;
      st = dab_rules_write(path, t->g->rows, t->g->cols, "econ", params, e->a, e->n, err);
      if (!st) st = dab_fail(err, DAB_ECANCELED, "stopped after %ld of %ld games; rules in %s", gi + 1, total, path);
      goto out;
    }
  }
  dab_rt_eval_out ev = {0};
  if ((st = dab_rt_eval(t->g, e->a, e->n, 0, opp, oracle, 2000, colour == 2 ? -1 : colour, t->seed + 1, &ev, err)))
    goto out;
  if (oracle && (st = dab_rt_grade_rules(t->g, e->a, e->n, 0, opp, oracle, 2000, 0, t->seed + 2, err))) goto out;
  snprintf(params, sizeof params,
           "pop=%d,reward=%g,w_init=%g,b_init=%g,w_spawn=%g,w_child=%g,outbid=%g,p_graph=%g,window=%ld,"
           "prefill=%g,step=%g,games=%ld,full_games=%ld,seed=%llu,colour=%s,eval_win=%.4f,eval_draw=%.4f,"
           "eval_optimal=%.4f,eval_lost=%.4f,capped=%llu,searches=%llu,born=%ld,died=%ld",
           o.pop, o.reward, o.w_init, o.b_init, o.w_spawn, o.w_child, o.outbid, o.p_graph, window, prefill0, step, N,
           full_games, (unsigned long long)t->seed, colour == 0 ? "first" : colour == 1 ? "second" : "random",
           ev.win, ev.draw, ev.optimal, ev.lost, (unsigned long long)e->stats.capped,
           (unsigned long long)e->stats.searches, e->born, e->died);
  st = dab_rules_write(t->out, t->g->rows, t->g->cols, "econ", params, e->a, e->n, err);
out:
  dab_econ_free(e);
  dab_player_free(opp);
  return st;
}
