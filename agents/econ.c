/*
** econ.c: the artificial economy (seed paper 000): auctions, spawn and death, curriculum.
** See Copyright Notice in README.md
*/
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agents/econ.h"
#include "game/hashmix.h"

void dab_econ_opts_default(dab_econ_opts *o) {
  o->pop = 1000;
  o->reward = 1;
  o->w_init = 1;
  o->b_init = 0.1;
  o->w_spawn = 4;
  o->w_child = 1;
  o->outbid = 0.01;
  o->p_graph = 0.1;
  o->pay = DAB_ECON_PAY_WIN;
  o->oracle_pay = 0.1;
}

dab_status dab_econ_new(const dab_econ_opts *o, dab_econ **out, dab_err *err) {
  dab_econ *e = calloc(1, sizeof *e);
  if (e) e->a = calloc((size_t)o->pop, sizeof *e->a);
  if (e) e->in_game = calloc((size_t)o->pop, 1);
  if (e) e->key = calloc((size_t)o->pop, sizeof *e->key);
  if (e) e->rank = calloc((size_t)o->pop, sizeof *e->rank);
  if (e) e->stamp = calloc((size_t)o->pop, sizeof *e->stamp);
  if (e) e->memo = calloc((size_t)1 << DAB_ECON_MEMO_BITS, sizeof *e->memo);
  if (!e || !e->a || !e->in_game || !e->key || !e->rank || !e->stamp || !e->memo) {
    dab_econ_free(e);
    return dab_fail(err, DAB_ENOMEM, "econ: out of memory");
  }
  e->o = *o;
  e->owner = -1;
  e->clock = 1;
  *out = e;
  return DAB_OK;
}

void dab_econ_free(dab_econ *e) {
  if (!e) return;
  free(e->a);
  free(e->in_game);
  free(e->key);
  free(e->rank);
  free(e->stamp);
  free(e->memo);
  free(e);
}

double dab_econ_wealth(const dab_econ *e) {
  double s = 0;
  for (int i = 0; i < e->n; i++) s += e->a[i].wealth;
  return s;
}

void dab_econ_start_game(dab_econ *e) {
  e->owner = -1;
  e->nfire = 0;
  memset(e->in_game, 0, (size_t)e->n);
}

/* Removes agent i (its wealth buried); the last agent moves into its slot. */
static void remove_agent(dab_econ *e, int i) {
  e->buried += e->a[i].wealth;
  e->died++;
  e->ranked = false;
  int last = --e->n;
  if (i != last) {
    e->a[i] = e->a[last];
    e->key[i] = e->key[last];
    e->in_game[i] = e->in_game[last];
    e->stamp[i] = ++e->clock;
    if (e->owner == last) e->owner = i;
    for (int j = 0; j < e->nfire; j++)
      if (e->fire[j] == last) e->fire[j] = i;
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
  e->ranked = false;
  e->stamp[i] = ++e->clock;
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

static dab_econ_memo *memo_of(dab_econ *e, const dab_lineset *lines) {
  uint64_t h = 0;
  for (int i = 0; i < DAB_LINE_WORDS; i++) h = dab_mix64(h ^ lines->w[i]);
  return &e->memo[h >> (64 - DAB_ECON_MEMO_BITS)];
}

/* Tests agent i on sg (the prefilter first).  RETURN: whether it matched. */
static bool test_agent(dab_econ *e, int i, const dab_sgraph *sg, dab_rng *rng, int *line) {
  if (!dab_rule_key_fits(e->key[i], sg)) {
    e->stats.tests++;
    e->stats.prefiltered++;
    return false;
  }
  return dab_rule_match(&e->a[i].rule, sg, NULL, rng, &e->stats, NULL, line);
}

int dab_econ_choose(void *sys, const dab_sgraph *sg, const dab_game *game, dab_rng *rng, int *line) {
  dab_econ *e = sys;
  int best = -1, bl = -1;
  /* The highest bid wins (the lowest index among equals): in bid order
  ** the first match is the winner, and the bidders below it go untested. */
  if (!e->ranked) {
    dab_rt_rank(e->a, e->n, 0, e->rank);
    e->ranked = true;
  }
  uint64_t capped = e->stats.capped;
  dab_econ_memo *m = game && !e->memo_off ? memo_of(e, &game->lines) : NULL;
  bool held = m && m->clock && !memcmp(&m->lines, &game->lines, sizeof m->lines);
  for (int k = 0; k < e->n && best < 0; k++) {
    int i = e->rank[k], l;
    if (held) {
      double b = e->a[i].bid;
      bool unchanged = e->stamp[i] <= m->clock;
      if (b > m->bid || (b == m->bid && i < m->slot)) {
        /* Ranked above the last winner: failed then, unless new since. */
        if (!unchanged && test_agent(e, i, sg, rng, &l)) best = i, bl = l;
        continue;
      }
      held = false; /* from here on, as without the memo */
      if (i == m->slot && unchanged) {
        best = i, bl = m->line;
        break;
      }
    }
    if (test_agent(e, i, sg, rng, &l)) best = i, bl = l;
  }
  if (m && best >= 0 && e->stats.capped == capped) {
    m->lines = game->lines;
    m->clock = e->clock;
    m->bid = e->a[best].bid;
    m->slot = best;
    m->line = bl;
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
    if (e->nfire < DAB_RT_MAX_FIRE) e->fire[e->nfire++] = best;
  }
  *line = bl;
  return best;
}

void dab_econ_end_game(dab_econ *e, const dab_rt_game *gm, dab_rng *rng) {
  if (e->o.pay != DAB_ECON_PAY_ORACLE && gm->diff > 0 && e->owner >= 0) {
    e->a[e->owner].wealth += e->o.reward;
    e->rewards += e->o.reward;
  }
  /* e->fire and gm->fire list the same moves; e's indices are current. */
  int nf = e->nfire < gm->nfire ? e->nfire : gm->nfire;
  for (int j = 0; j < nf; j++) {
    dab_ragent *x = &e->a[e->fire[j]];
    x->fired++;
    if (e->o.pay != DAB_ECON_PAY_WIN && gm->graded) {
      double pay = gm->fire_optimal[j] ? e->o.oracle_pay : -e->o.oracle_pay * gm->fire_lost[j];
      x->wealth += pay;
      e->rewards += pay;
    }
  }
  e->nfire = 0;
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

static const char *const colour_names = "first|second|random";
static const char *const pay_names = "win|oracle|both";

/* A training run: its settings and the loop's state (what a checkpoint
** keeps besides the agents and the economy's counters). */
typedef struct econ_run {
  dab_econ_opts o;
  long N, full_games, every, window, snap_games, grade;
  double prefill0, step, opp_random;
  int colour;
  uint64_t seed;
  long done;               /* games played */
  long c_games, c_wins;    /* the curriculum's window */
  long w[8];               /* this snapshot's games, wins, moves, random moves, graded, optimal, kept, lost */
} econ_run;

/* The checkpoint's params: every setting and counter, doubles exact (%a). */
static dab_status econ_checkpoint(const dab_train_ctx *t, const econ_run *R, const dab_econ *e,
                                  const dab_rng *rng, dab_err *err) {
  char params[DAB_MODEL_PARAMS + 1], rs[96], ss[256], cn[16], pn[16];
  dab_rt_rng_fmt(rng, rs, sizeof rs);
  dab_rt_stats_fmt(&e->stats, ss, sizeof ss);
  const dab_econ_opts *o = &R->o;
  int k = snprintf(params, sizeof params,
      "checkpoint=1,pop=%d,reward=%a,w_init=%a,b_init=%a,w_spawn=%a,w_child=%a,outbid=%a,p_graph=%a,"
      "pay=%s,oracle_pay=%a,games=%ld,full_games=%ld,snapshot=%ld,window=%ld,snap_games=%ld,grade=%ld,"
      "prefill=%a,step=%a,colour=%s,seed=%" PRIu64 ",done=%ld,seconds=%.3f,rng=%s,opp_random=%a,"
      "c_games=%ld,c_wins=%ld,win=%ld:%ld:%ld:%ld:%ld:%ld:%ld:%ld,stats=%s,egames=%ld,born=%ld,died=%ld,"
      "created=%a,rewards=%a,paid_out=%a,buried=%a",
      o->pop, o->reward, o->w_init, o->b_init, o->w_spawn, o->w_child, o->outbid, o->p_graph,
      dab_rt_choice_name(pay_names, o->pay, pn, sizeof pn), o->oracle_pay, R->N, R->full_games, R->every, R->window,
      R->snap_games, R->grade, R->prefill0, R->step, dab_rt_choice_name(colour_names, R->colour, cn, sizeof cn), R->seed,
      R->done, dab_train_elapsed(t), rs, R->opp_random, R->c_games, R->c_wins, R->w[0], R->w[1], R->w[2],
      R->w[3], R->w[4], R->w[5], R->w[6], R->w[7], ss, e->games, e->born, e->died, e->created, e->rewards,
      e->paid_out, e->buried);
  if (k < 0 || k > DAB_MODEL_PARAMS) return dab_fail(err, DAB_EINTERNAL, "econ: checkpoint params too long");
  return dab_rt_ckpt_write(t->checkpoint ? t->checkpoint : t->out, t->g, "econ", params, e->a, e->n, err);
}

/* Rebuilds a run from t->resume: R, *out (the economy) and rng. */
static dab_status econ_resume(const dab_train_ctx *t, econ_run *R, dab_econ **out, dab_rng *rng, double *seconds,
                              dab_err *err) {
  const char *path = t->resume;
  dab_model_header h;
  /* The population size comes first: the agents are read into it. */
  dab_status st;
  {
    void *payload;
    size_t len;
    if ((st = dab_model_read(path, "econ", &h, &payload, &len, err))) return st;
    free(payload);
  }
  long pop = 0;
  const char *p = h.params;
  dab_econ_opts *o = &R->o;
  dab_econ_opts_default(o);
  bool ok = dab_rt_param_long(p, "pop", &pop) && pop >= 10 && pop <= 100000 &&
            dab_rt_param_f64(p, "reward", &o->reward) && dab_rt_param_f64(p, "w_init", &o->w_init) &&
            dab_rt_param_f64(p, "b_init", &o->b_init) && dab_rt_param_f64(p, "w_spawn", &o->w_spawn) &&
            dab_rt_param_f64(p, "w_child", &o->w_child) && dab_rt_param_f64(p, "outbid", &o->outbid) &&
            dab_rt_param_f64(p, "p_graph", &o->p_graph) && (o->pay = dab_rt_param_choice(p, "pay", pay_names)) >= 0 &&
            dab_rt_param_f64(p, "oracle_pay", &o->oracle_pay) && dab_rt_param_long(p, "games", &R->N) &&
            dab_rt_param_long(p, "full_games", &R->full_games) && dab_rt_param_long(p, "snapshot", &R->every) &&
            dab_rt_param_long(p, "window", &R->window) && dab_rt_param_long(p, "snap_games", &R->snap_games) &&
            dab_rt_param_long(p, "grade", &R->grade) && dab_rt_param_f64(p, "prefill", &R->prefill0) &&
            dab_rt_param_f64(p, "step", &R->step) &&
            (R->colour = dab_rt_param_choice(p, "colour", colour_names)) >= 0 &&
            dab_rt_param_u64(p, "seed", &R->seed) && dab_rt_param_long(p, "done", &R->done) &&
            dab_rt_param_f64(p, "seconds", seconds) && dab_rt_rng_parse(p, "rng", rng) &&
            dab_rt_param_f64(p, "opp_random", &R->opp_random) && dab_rt_param_long(p, "c_games", &R->c_games) &&
            dab_rt_param_long(p, "c_wins", &R->c_wins);
  char wv[256];
  int used = 0;
  ok = ok && dab_params_get(p, "win", wv, sizeof wv) &&
       sscanf(wv, "%ld:%ld:%ld:%ld:%ld:%ld:%ld:%ld%n", &R->w[0], &R->w[1], &R->w[2], &R->w[3], &R->w[4], &R->w[5],
              &R->w[6], &R->w[7], &used) == 8 && !wv[used];
  ok = ok && R->N > 0 && R->every > 0 && R->window > 0 && R->done >= 0 && R->done <= R->N + R->full_games;
  if (!ok) return dab_fail(err, DAB_EINPUT, "%s: not an econ checkpoint (a finished rule file?)", path);
  o->pop = (int)pop;
  dab_econ *e;
  if ((st = dab_econ_new(o, &e, err))) return st;
  ok = dab_rt_stats_parse(p, "stats", &e->stats) && dab_rt_param_long(p, "egames", &e->games) &&
       dab_rt_param_long(p, "born", &e->born) && dab_rt_param_long(p, "died", &e->died) &&
       dab_rt_param_f64(p, "created", &e->created) && dab_rt_param_f64(p, "rewards", &e->rewards) &&
       dab_rt_param_f64(p, "paid_out", &e->paid_out) && dab_rt_param_f64(p, "buried", &e->buried);
  if (!ok) st = dab_fail(err, DAB_EINPUT, "%s: not an econ checkpoint (a finished rule file?)", path);
  if (!st) st = dab_rt_ckpt_read(path, t->g, "econ", &h, e->a, o->pop, &e->n, err);
  if (st) {
    dab_econ_free(e);
    return st;
  }
  for (int i = 0; i < e->n; i++) e->key[i] = dab_rule_key_of(&e->a[i].rule);
  e->ranked = false;
  *out = e;
  return DAB_OK;
}

/* A new run from t and its kind options. */
static dab_status econ_parse(dab_train_ctx *t, econ_run *R, dab_err *err) {
  dab_econ_opts *o = &R->o;
  dab_econ_opts_default(o);
  long pop = o->pop;
  R->window = 100, R->full_games = 0, R->snap_games = 400, R->grade = 1;
  R->prefill0 = 0.9, R->step = 0.1, R->opp_random = 1, R->colour = 1;
  dab_kopts *k = t->kopts;
  dab_status st = DAB_OK;
  if (!st) st = dab_kopt_long(k, "econ", "pop", 10, 100000, &pop, err);
  if (!st) st = dab_kopt_double(k, "econ", "reward", 0, 1e6, &o->reward, err);
  if (!st) st = dab_kopt_double(k, "econ", "w-init", 0, 1e6, &o->w_init, err);
  if (!st) st = dab_kopt_double(k, "econ", "b-init", 0, 1e6, &o->b_init, err);
  if (!st) st = dab_kopt_double(k, "econ", "w-spawn", 0, 1e6, &o->w_spawn, err);
  if (!st) st = dab_kopt_double(k, "econ", "w-child", 0, 1e6, &o->w_child, err);
  if (!st) st = dab_kopt_double(k, "econ", "outbid", 0, 1e6, &o->outbid, err);
  if (!st) st = dab_kopt_double(k, "econ", "p-graph", 0, 1, &o->p_graph, err);
  if (!st) st = dab_kopt_choice(k, "econ", "pay", pay_names, &o->pay, err);
  if (!st) st = dab_kopt_double(k, "econ", "oracle-pay", 0, 1e6, &o->oracle_pay, err);
  if (!st) st = dab_kopt_long(k, "econ", "window", 1, 100000000, &R->window, err);
  if (!st) st = dab_kopt_double(k, "econ", "prefill", 0, 1, &R->prefill0, err);
  if (!st) st = dab_kopt_double(k, "econ", "step", 0, 1, &R->step, err);
  if (!st) st = dab_kopt_double(k, "econ", "random", 0, 1, &R->opp_random, err);
  if (!st) st = dab_kopt_long(k, "econ", "full-games", 0, 1000000000, &R->full_games, err);
  if (!st) st = dab_kopt_long(k, "econ", "snap-games", 0, 100000000, &R->snap_games, err);
  if (!st) st = dab_kopt_long(k, "econ", "grade", 0, 1, &R->grade, err);
  if (!st) st = dab_kopt_choice(k, "econ", "colour", colour_names, &R->colour, err);
  if (!st) st = dab_kopts_check(k, "econ", err);
  if (!st && o->pay != DAB_ECON_PAY_WIN && !R->grade)
    st = dab_fail(err, DAB_EINPUT, "train econ: --pay=oracle|both needs --grade=1");
  if (st) return st;
  o->pop = (int)pop;
  R->N = t->games > 0 ? t->games : 500000;
  long total = R->N + R->full_games;
  R->every = t->snapshot_every > 0 ? t->snapshot_every : (total / 50 > 0 ? total / 50 : 1);
  R->seed = t->seed;
  return DAB_OK;
}

dab_status dab_agent_train_econ(dab_train_ctx *t, dab_err *err) {
  econ_run R;
  memset(&R, 0, sizeof R);
  dab_econ *e = NULL;
  dab_rng rng;
  double before = 0;
  dab_status st;
  if (t->resume) {
    if (t->kopts && t->kopts->n)
      return dab_fail(err, DAB_EINPUT, "train econ: --%s: a resumed run keeps its checkpoint's settings",
                      t->kopts->key[0]);
    if ((st = econ_resume(t, &R, &e, &rng, &before, err))) return st;
    if ((t->games && t->games != R.N) || (t->snapshot_every && t->snapshot_every != R.every)) {
      dab_econ_free(e);
      return dab_fail(err, DAB_EINPUT, "train econ: the checkpoint's run has --games %ld --snapshot %ld", R.N,
                      R.every);
    }
  } else if ((st = econ_parse(t, &R, err))) {
    return st;
  }
  if (!dab_geom_fast(t->g)) {
    dab_econ_free(e);
    return dab_fail(err, DAB_EBOARD, "econ plays boards of at most 64 lines");
  }
  const double hi = 0.7, lo = 0.2;
  long N = R.N, total = N + R.full_games;
  const dab_oracle *oracle = NULL;
  dab_player *opp = NULL;
  if (R.grade && (st = dab_player_env_oracle(t->env, t->g->rows, t->g->cols, &oracle, err))) goto out;
  if ((st = dab_rt_opponent(t->g, &opp, err))) goto out;
  if (!t->resume) {
    if ((st = dab_econ_new(&R.o, &e, err))) goto out;
    dab_rng_seed(&rng, R.seed);
  }
  dab_train_start(t, before);
  const char *cols = "games,seconds,win_online,win_chain,draw_chain,optimal,kept,lost,activity,rules,opp_random,prefill,wealth";
  long *w = R.w;
  char params[DAB_MODEL_PARAMS];
  int eval_team = R.colour == 2 ? -1 : R.colour;
  for (long gi = R.done; gi < total; gi++) {
    bool training = gi < N;
    double prefill = training ? R.prefill0 * (1 - (double)gi / (double)N) : 0;
    int team = R.colour == 2 ? (int)(dab_rng_next(&rng) & 1) : R.colour;
    dab_rt_game gm = {.team = team, .opp_random = training ? R.opp_random : 0, .prefill = prefill, .oracle = oracle};
    dab_econ_start_game(e);
    if ((st = dab_rt_play(t->g, opp, dab_econ_choose, e, &rng, &gm, err))) goto out;
    dab_econ_end_game(e, &gm, &rng);
    R.done = gi + 1;
    w[0]++, w[1] += gm.diff > 0, w[2] += gm.moves, w[3] += gm.random_moves;
    w[4] += gm.graded, w[5] += gm.optimal, w[6] += gm.kept, w[7] += gm.lost;
    /* The curriculum: the opponent's randomness follows the win rate. */
    R.c_games++, R.c_wins += gm.diff > 0;
    if (R.c_games == R.window) {
      double wr = (double)R.c_wins / (double)R.c_games;
      if (training && wr > hi) R.opp_random = fmax(0, R.opp_random - R.step);
      if (training && wr < lo) R.opp_random = fmin(1, R.opp_random + R.step);
      R.c_games = R.c_wins = 0;
    }
    if ((gi + 1) % R.every == 0 || gi + 1 == total) {
      dab_rt_eval_out ev;
      if ((st = dab_rt_eval(t->g, e->a, e->n, 0, NULL, (int)R.snap_games, eval_team, R.seed ^ (uint64_t)gi,
                            t->threads, &ev, err)))
        goto out;
      double g4 = (double)w[4];
      double v[13] = {(double)(gi + 1), dab_train_elapsed(t), (double)w[1] / (double)w[0], ev.win, ev.draw,
                      w[4] ? (double)w[5] / g4 : 0, w[4] ? (double)w[6] / g4 : 0, w[4] ? (double)w[7] / g4 : 0,
                      w[2] ? 1 - (double)w[3] / (double)w[2] : 0, e->n, training ? R.opp_random : 0,
                      prefill, dab_econ_wealth(e)};
      if ((st = dab_train_log(t, cols, v, 13, err))) goto out;
      memset(R.w, 0, sizeof R.w);
    }
    if ((gi & 255) == 255) dab_train_progress(t, "econ", (uint64_t)gi + 1, (uint64_t)total);
    if (gi + 1 < total && (dab_train_canceled(t) || (t->stop_at > 0 && gi + 1 == t->stop_at))) {
      const char *path = t->checkpoint ? t->checkpoint : t->out;
      st = econ_checkpoint(t, &R, e, &rng, err);
      if (!st) st = dab_fail(err, DAB_ECANCELED, "stopped after %ld of %ld games; checkpoint %s", gi + 1, total, path);
      goto out;
    }
  }
  dab_rt_eval_out ev = {0};
  if ((st = dab_rt_eval(t->g, e->a, e->n, 0, oracle, 2000, eval_team, R.seed + 1, t->threads, &ev, err))) goto out;
  if (oracle && (st = dab_rt_grade_rules(t->g, e->a, e->n, 0, oracle, 2000, 0, R.seed + 2, t->threads, err)))
    goto out;
  const dab_econ_opts *o = &R.o;
  char cn[16], pn[16];
  /* No count of searches: the auction's memo, empty after a resume,
  ** decides how many are made, and a resumed run writes the same file. */
  snprintf(params, sizeof params,
           "pop=%d,reward=%g,w_init=%g,b_init=%g,w_spawn=%g,w_child=%g,outbid=%g,p_graph=%g,pay=%s,oracle_pay=%g,"
           "window=%ld,prefill=%g,step=%g,games=%ld,full_games=%ld,seed=%" PRIu64 ",colour=%s,eval_win=%.4f,"
           "eval_draw=%.4f,eval_optimal=%.4f,eval_lost=%.4f,capped=%" PRIu64 ",born=%ld,died=%ld",
           o->pop, o->reward, o->w_init, o->b_init, o->w_spawn, o->w_child, o->outbid, o->p_graph,
           dab_rt_choice_name(pay_names, o->pay, pn, sizeof pn), o->oracle_pay, R.window, R.prefill0, R.step, N,
           R.full_games, R.seed, dab_rt_choice_name(colour_names, R.colour, cn, sizeof cn), ev.win, ev.draw, ev.optimal,
           ev.lost, e->stats.capped, e->born, e->died);
  st = dab_rules_write(t->out, t->g->rows, t->g->cols, "econ", params, e->a, e->n, err);
out:
  dab_econ_free(e);
  dab_player_free(opp);
  return st;
}
