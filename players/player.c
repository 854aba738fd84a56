/*
** player.c: player specs, the shared environment, and common tactics.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "game/sc.h"
#include "players/pint.h"
#include "solver/retro.h"

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

/* ---- Environment ------------------------------------------------------ */

#define ENV_MAX 32

typedef struct env_oracle {
  int rows, cols;
  dab_oracle *o;
  dab_status st;           /* the open's result, remembered */
  char msg[DAB_ERR_LEN];
} env_oracle;

typedef struct env_table {
  int rows, cols;
  dab_retro *table;
} env_table;

typedef struct env_kind {
  char name[32];
  dab_player_kind_fn make;
  void *ctx;
} env_kind;

struct dab_player_env {
  pthread_mutex_t lock;
  char *tb_dir;
  int build_lines;
  int noracle, ntable, nkind;
  env_oracle oracle[ENV_MAX];
  env_table table[ENV_MAX];
  env_kind kind[ENV_MAX];
};

dab_status dab_player_env_new(const char *tb_dir, dab_player_env **out, dab_err *err) {
  *out = NULL;
  dab_player_env *e = calloc(1, sizeof *e);
  if (!e) return dab_fail(err, DAB_ENOMEM, "out of memory for the player environment");
  if (tb_dir && !(e->tb_dir = strdup(tb_dir))) {
    free(e);
    return dab_fail(err, DAB_ENOMEM, "out of memory for the player environment");
  }
  pthread_mutex_init(&e->lock, NULL);
  *out = e;
  return DAB_OK;
}

void dab_player_env_free(dab_player_env *env) {
  if (!env) return;
  for (int i = 0; i < env->noracle; i++)
    if (env->oracle[i].o) dab_oracle_close(env->oracle[i].o);
  for (int i = 0; i < env->ntable; i++) dab_retro_free(env->table[i].table);
  pthread_mutex_destroy(&env->lock);
  free(env->tb_dir);
  free(env);
}

void dab_player_env_set_build_lines(dab_player_env *env, int max_lines) {
  pthread_mutex_lock(&env->lock);
  env->build_lines = max_lines;
  pthread_mutex_unlock(&env->lock);
}

/* Caller holds env->lock. */
static dab_status env_oracle_locked(dab_player_env *env, int rows, int cols, const dab_oracle **out,
                                    dab_err *err) {
  for (int i = 0; i < env->noracle; i++) {
    env_oracle *eo = &env->oracle[i];
    if (eo->rows == rows && eo->cols == cols) {
      if (eo->st) return dab_fail(err, eo->st, "%s", eo->msg);
      *out = eo->o;
      return DAB_OK;
    }
  }
  if (env->noracle == ENV_MAX) return dab_fail(err, DAB_ENOMEM, "too many oracles in one environment");
  env_oracle *eo = &env->oracle[env->noracle++];
  eo->rows = rows;
  eo->cols = cols;
  dab_oracle_opts opts = {.tb_dir = env->tb_dir, .max_build_free = env->build_lines, .threads = 0};
  dab_err e2;
  eo->st = dab_oracle_open(rows, cols, &opts, &eo->o, &e2);
  if (eo->st) {
    eo->o = NULL;
    snprintf(eo->msg, sizeof eo->msg, "%s", e2.msg);
    return dab_fail(err, eo->st, "%s", eo->msg);
  }
  *out = eo->o;
  return DAB_OK;
}

dab_status dab_player_env_oracle(dab_player_env *env, int rows, int cols, const dab_oracle **out,
                                 dab_err *err) {
  pthread_mutex_lock(&env->lock);
  dab_status st = env_oracle_locked(env, rows, cols, out, err);
  pthread_mutex_unlock(&env->lock);
  return st;
}


dab_status pl_env_window_table(dab_player_env *env, int rows, int cols, const int8_t **out,
                               dab_err *err) {
  dab_status st = DAB_OK;
  pthread_mutex_lock(&env->lock);
  for (int i = 0; i < env->ntable; i++)
    if (env->table[i].rows == rows && env->table[i].cols == cols) {
      *out = env->table[i].table->value;
      goto done;
    }
  dab_geom wg;
  if ((st = dab_geom_init(&wg, rows, cols, err))) goto done;
  if (wg.nlines > PL_MAX_WINDOW_LINES) {
    st = dab_fail(err, DAB_EBOARD, "window %dx%d has %d lines; window tables hold at most %d", rows,
                  cols, wg.nlines, PL_MAX_WINDOW_LINES);
    goto done;
  }
  if (env->ntable == ENV_MAX) {
    st = dab_fail(err, DAB_ENOMEM, "too many window tables in one environment");
    goto done;
  }
  /* The exact values of every window position, indexed by its line bits:
  ** the retrograde table of the whole window board is exactly that (for
  ** the empty root its index is the position), and solving it (0.1 s for
  ** 3x3) is faster than reading 2^24 values out of a tablebase. */
  dab_retro *r;
  dab_retro_opts ro = {.threads = 0};
  if ((st = dab_retro_solve(&wg, 0, &ro, &r, err))) goto done;
  env->table[env->ntable].rows = rows;
  env->table[env->ntable].cols = cols;
  env->table[env->ntable++].table = r;
  *out = r->value;
done:
  pthread_mutex_unlock(&env->lock);
  return st;
}

/* ---- Specs ------------------------------------------------------------- */

static dab_status parse_opts(const char *spec, const char *text, pl_opts *o, dab_err *err) {
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

dab_status dab_player_new(const char *spec, const dab_geom *g, dab_player_env *env,
                          dab_player **out, dab_err *err) {
  *out = NULL;
  char name[32];
  const char *colon = strchr(spec, ':');
  size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
  if (nlen == 0 || nlen >= sizeof name)
    return dab_fail(err, DAB_EINPUT, "bad player spec '%s' (players: random, level1, level2, chain, "
                    "mcts, mcts-bz, mcts-os, sw, sw+, ab, perfect)", spec);
  memcpy(name, spec, nlen);
  name[nlen] = 0;
  int kind = builtin_kind(name);
  const env_kind *ek = kind < 0 ? env_find_kind(env, name) : NULL;
  if (ek) return ek->make(ek->ctx, colon ? colon + 1 : "", g, env, out, err);
  if (kind < 0)
    return dab_fail(err, DAB_EINPUT, "unknown player '%s' (players: random, level1, level2, chain, "
                    "mcts, mcts-bz, mcts-os, sw, sw+, ab, perfect)", name);
  pl_opts o;
  dab_status st = parse_opts(name, colon ? colon + 1 : NULL, &o, err);
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

/* ---- Tactics ----------------------------------------------------------- */

void pl_classify(const dab_geom *g, const dab_lineset *s, pl_moves *mv) {
  mv->n = mv->ncap = mv->nsafecap = mv->nsafe = 0;
  for (int w = 0; w < DAB_LINE_WORDS && w * 64 < g->nlines; w++) {
    uint64_t free_bits = ~s->w[w];
    if ((w + 1) * 64 > g->nlines) free_bits &= (1ull << (g->nlines - w * 64)) - 1;
    for (; free_bits; free_bits &= free_bits - 1) {
      int m = w * 64 + __builtin_ctzll(free_bits);
      mv->all[mv->n++] = (int16_t)m;
      int two = 0, three = 0;
      for (int j = 0; j < 2; j++) {
        int b = g->line_box[m][j];
        if (b < 0) continue;
        int sides = dab_box_sides(g, s, b);
        two += sides == 2;
        three += sides == 3;
      }
      if (three) {
        mv->cap[mv->ncap++] = (int16_t)m;
        if (!two) mv->safecap[mv->nsafecap++] = (int16_t)m;
      } else if (!two) {
        mv->safe[mv->nsafe++] = (int16_t)m;
      }
    }
  }
}

int pl_greedy_captures(const dab_geom *g, const dab_lineset *s, dab_lineset *after) {
  dab_lineset t = *s;
  int taken = 0;
  int16_t stack[DAB_MAX_BOXES * 2];
  int top = 0;
  for (int b = 0; b < g->nboxes; b++)
    if (dab_box_sides(g, &t, b) == 3) stack[top++] = (int16_t)b;
  while (top) {
    int b = stack[--top];
    if (dab_box_sides(g, &t, b) != 3) continue;
    int m = -1;
    for (int k = 0; k < 4; k++)
      if (!dab_ls_has(&t, g->box_line[b][k])) m = g->box_line[b][k];
    dab_ls_set(&t, m);
    for (int j = 0; j < 2; j++) {
      int n = g->line_box[m][j];
      if (n < 0) continue;
      int sides = dab_box_sides(g, &t, n);
      if (sides == 4) taken++;
      else if (sides == 3) stack[top++] = (int16_t)n;
    }
  }
  if (after) *after = t;
  return taken;
}

int pl_other_line(const dab_geom *g, const dab_lineset *s, int b, int from) {
  for (int k = 0; k < 4; k++) {
    int m = g->box_line[b][k];
    if (m != from && !dab_ls_has(s, m)) return m;
  }
  return -1;
}

int pl_decline_line(const dab_geom *g, const dab_lineset *s, int b, bool *is_loop) {
  int m = pl_other_line(g, s, b, -1);
  int len = 1, last = b;
  int lines[5];
  *is_loop = false;
  for (;;) {
    int n = dab_sc_across(g, last, m);
    if (n < 0) return len == 2 ? m : -1;  /* the ground: a chain */
    int deg = 4 - dab_box_sides(g, s, n);
    if (deg == 1) {                        /* another capturable end: a loop */
      *is_loop = true;
      return len == 3 ? lines[2] : -1;
    }
    if (deg != 2 || len == 4) return -1;
    lines[len++] = m;
    m = pl_other_line(g, s, n, m);
    last = n;
  }
}
