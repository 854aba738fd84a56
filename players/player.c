/*
** player.c: player specs: each kind by name, custom players, dispatch.
** See Copyright Notice in README.md
*/
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "players/pint.h"

const char dab_player_help[] =
    "  random                      a random legal line (level 0)\n"
    "  level1                      takes a box when it can, else random\n"
    "  level2                      level1, and no third side while a safe line exists\n"
    "  chain                       good amateur: safe captures, long chain rule,\n"
    "                              all-but-two/four declines, opens the cheapest part\n"
    "  mcts[:sims=N,time=MS,c=X]   UCT, random rollouts (default sims=1000, c=1.41)\n"
    "  mcts-bz[:sims=N,time=MS,c=X,sle=0|1|2]\n"
    "                              UCT with chain-loop macro moves and exact SLE\n"
    "                              scores (1: tree leaves, 2: also in rollouts)\n"
    "  mcts-os[:sims=N,c=X]        MCTS as OpenSpiel's MCTSBot: +-1 returns, c=2, one\n"
    "                              random rollout, solver backups (default sims=1000)\n"
    "  sw[:KxL,agg=max|sum|mean|min,border=cut|aware,safe=0|1,value=net|wdl]\n"
    "                              sliding window (plain version by default; value=wdl:\n"
    "                              the published win/draw/loss window valuation)\n"
    "  sw+[:KxL]                   improved sliding window (agg=sum,border=aware,safe=1)\n"
    "  ab[:depth=N,nodes=N]        depth-limited alpha-beta (default depth=4,\n"
    "                              nodes=200000 per move)\n"
    "  perfect[:tie=random|boxes|long,solve=F,search=N,hash=MIB]\n"
    "                              optimal moves from the oracle; without one,\n"
    "                              solve=F: from F undrawn lines on, by retrograde;\n"
    "                              search=N: wherever N nodes of exact search prove\n"
    "                              every move (table hash=MIB, default 256);\n"
    "                              chain's move elsewhere\n"
    "  KIND:FILE                   a trained agent's model (dab train KIND; e.g. q:FILE)\n";

/* ---- Specs ------------------------------------------------------------- */

static const struct {
  const char *name;
  int kind;
} kinds[] = {{"random", PL_RANDOM}, {"level0", PL_RANDOM}, {"level1", PL_LEVEL1},
             {"level2", PL_LEVEL2}, {"chain", PL_CHAIN},   {"mcts", PL_MCTS},
             {"mcts-bz", PL_MCTS_BZ}, {"sw", PL_SW},        {"sw+", PL_SW},
             {"ab", PL_AB},         {"perfect", PL_PERFECT}, {"mcts-os", PL_MCTS_OS}};

static int builtin_kind(const char *name) {
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (!strcmp(kinds[i].name, name)) return kinds[i].kind;
  return -1;
}

dab_status dab_player_env_add_kind(dab_player_env *env, const char *name, dab_player_kind_fn make,
                                   void *ctx, dab_err *err) {
  if (!*name || strlen(name) >= sizeof env->kind[0].name || strchr(name, ':') ||
      builtin_kind(name) >= 0)
    return dab_fail(err, DAB_EINPUT, "bad player kind name '%s'", name);
  dab_status st = DAB_OK;
  pthread_mutex_lock(&env->lock);
  for (int i = 0; i < env->nkind; i++)
    if (!strcmp(env->kind[i].name, name)) st = dab_fail(err, DAB_EINPUT, "player kind '%s' added twice", name);
  if (!st && env->nkind == ENV_MAX) st = dab_fail(err, DAB_ENOMEM, "too many player kinds in one environment");
  if (!st) {
    env_kind *k = &env->kind[env->nkind++];
    snprintf(k->name, sizeof k->name, "%s", name);
    k->make = make;
    k->ctx = ctx;
  }
  pthread_mutex_unlock(&env->lock);
  return st;
}

/* The env's kind called name, or NULL (kinds are added before sharing). */
static const env_kind *env_find_kind(dab_player_env *env, const char *name) {
  if (!env) return NULL;
  for (int i = 0; i < env->nkind; i++)
    if (!strcmp(env->kind[i].name, name)) return &env->kind[i];
  return NULL;
}

/* The name part of spec (before any ':') into name[32].
** RETURN: DAB_OK, or DAB_EINPUT for an empty or overlong name. */
static dab_status spec_name(const char *spec, char name[32], dab_err *err) {
  const char *colon = strchr(spec, ':');
  size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
  if (nlen == 0 || nlen >= 32)
    return dab_fail(err, DAB_EINPUT, "bad player spec '%s' (players: random, level1, level2, chain, "
                    "mcts, mcts-bz, mcts-os, sw, sw+, ab, perfect)", spec);
  memcpy(name, spec, nlen);
  name[nlen] = 0;
  return DAB_OK;
}

dab_status dab_player_check_name(const dab_player_env *env, const char *spec, dab_err *err) {
  char name[32];
  dab_status st = spec_name(spec, name, err);
  if (st) return st;
  if (builtin_kind(name) >= 0 || env_find_kind((dab_player_env *)env, name)) return DAB_OK;
  return dab_fail(err, DAB_EINPUT, "unknown player '%s' (players: random, level1, level2, chain, "
                  "mcts, mcts-bz, mcts-os, sw, sw+, ab, perfect)", name);
}

dab_status dab_player_new(const char *spec, const dab_geom *g, dab_player_env *env,
                          dab_player **out, dab_err *err) {
  *out = NULL;
  char name[32];
  dab_status st0 = spec_name(spec, name, err);
  if (st0) return st0;
  const char *colon = strchr(spec, ':');
  int kind = builtin_kind(name);
  const env_kind *ek = kind < 0 ? env_find_kind(env, name) : NULL;
  if (ek) return ek->make(ek->ctx, colon ? colon + 1 : "", g, env, out, err);
  if (kind < 0)
    return dab_fail(err, DAB_EINPUT, "unknown player '%s' (players: random, level1, level2, chain, "
                    "mcts, mcts-bz, mcts-os, sw, sw+, ab, perfect)", name);
  pl_opts o;
  dab_status st = pl_opts_parse(name, colon ? colon + 1 : NULL, &o, err);
  if (st) return st;
  dab_player *p = calloc(1, sizeof *p);
  if (!p) return dab_fail(err, DAB_ENOMEM, "out of memory for player '%s'", spec);
  p->geom = *g;
  p->env = env;
  p->kind = kind;
  switch (kind) {
    case PL_MCTS:
    case PL_MCTS_BZ: st = pl_new_mcts(p, &o, err); break;
    case PL_MCTS_OS: st = pl_new_mcts_os(p, &o, err); break;
    case PL_SW: {
      /* A bare KxL word is the window size; "sw+" turns the improvements on. */
      const char *size = NULL;
      for (int i = 0; i < o.n; i++)
        if (!o.val[i][0] && strchr(o.key[i], 'x')) {
          size = o.key[i];
          o.used[i] = true;
        }
      if (!strcmp(name, "sw+")) {
        static const char *plus[][2] = {{"agg", "sum"}, {"border", "aware"}, {"safe", "1"}};
        for (int k = 0; k < 3; k++) {
          bool given = false;
          for (int i = 0; i < o.n; i++) given |= !strcmp(o.key[i], plus[k][0]);
          if (!given && o.n < PL_MAX_OPTS) {
            snprintf(o.key[o.n], sizeof o.key[0], "%s", plus[k][0]);
            snprintf(o.val[o.n], sizeof o.val[0], "%s", plus[k][1]);
            o.n++;
          }
        }
      }
      st = pl_new_sw(p, &o, size, err);
      break;
    }
    case PL_AB: st = pl_new_ab(p, &o, err); break;
    case PL_PERFECT: st = pl_new_perfect(p, &o, err); break;
    default: st = pl_new_simple(p, &o, err); break;
  }
  if (!st)
    for (int i = 0; i < o.n; i++)
      if (!o.used[i]) {
        st = dab_fail(err, DAB_EINPUT, "player '%s': unknown option '%s%s%s'", name, o.key[i],
                      o.val[i][0] ? "=" : "", o.val[i]);
        break;
      }
  if (st) {
    dab_player_free(p);
    return st;
  }
  *out = p;
  return DAB_OK;
}

typedef struct custom {
  dab_move_fn fn;
  void *ctx;
  void (*free_ctx)(void *);
} custom;

static int custom_move(dab_player *p, const dab_game *game, dab_rng *rng) {
  custom *c = p->impl;
  return c->fn(c->ctx, &p->geom, game, rng);
}

static void custom_free(void *impl) {
  custom *c = impl;
  if (c->free_ctx) c->free_ctx(c->ctx);
  free(c);
}

static const pl_ops ops_custom = {custom_move, custom_free};

dab_status dab_player_custom(const char *name, const dab_geom *g, dab_move_fn fn, void *ctx,
                             dab_player **out, dab_err *err) {
  return dab_player_custom_owned(name, g, fn, ctx, NULL, out, err);
}

dab_status dab_player_custom_owned(const char *name, const dab_geom *g, dab_move_fn fn, void *ctx,
                                   void (*free_ctx)(void *), dab_player **out, dab_err *err) {
  *out = NULL;
  dab_player *p = calloc(1, sizeof *p);
  custom *c = calloc(1, sizeof *c);
  if (!p || !c) {
    free(p);
    free(c);
    if (free_ctx) free_ctx(ctx);
    return dab_fail(err, DAB_ENOMEM, "out of memory for player '%s'", name);
  }
  c->fn = fn;
  c->ctx = ctx;
  c->free_ctx = free_ctx;
  p->geom = *g;
  p->kind = PL_CUSTOM;
  p->ops = &ops_custom;
  p->impl = c;
  snprintf(p->name, sizeof p->name, "%s", name);
  *out = p;
  return DAB_OK;
}

void dab_player_free(dab_player *p) {
  if (!p) return;
  if (p->ops && p->ops->free_impl) p->ops->free_impl(p->impl);
  free(p);
}

int dab_player_move(dab_player *p, const dab_game *game, dab_rng *rng) {
  if (dab_game_over(&p->geom, game)) return -1;
  return p->ops->move(p, game, rng);
}

const char *dab_player_name(const dab_player *p) { return p->name; }

