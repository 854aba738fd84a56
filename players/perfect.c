/*
** perfect.c: the perfect player: an optimal move from the oracle.
** See Copyright Notice in README.md
*/
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "players/pint.h"
#include "solver/ab.h"
#include "solver/retro.h"

/*
** Tie policies among the optimal moves (all give the same margin):
**   random  uniformly at random;
**   boxes   the move that completes the most boxes now (bank boxes early);
**   long    a move that completes none when one exists, so the game keeps
**           going as long as possible before boxes are banked.
** Within a policy's choice, ties are again broken at random.
*/
enum { TIE_RANDOM, TIE_BOXES, TIE_LONG };

/*
** Without an oracle for the board (and with solve=F on a board of at most
** 64 lines) the player solves the game below the current position by
** retrograde analysis once it has at most F undrawn lines (2^F bytes), and
** keeps that table for the rest of the game: every later position lies
** below it.  Before that point it plays as the chain player, so
** `perfect:solve=F` is perfect from F undrawn lines on.
**
** With search=N it also tries the exact alpha-beta solver (solver/ab.h)
** on every position above F, with N nodes a move: a proved analysis gives
** an optimal move, a search past N leaves the move to the chain player.
** Its table (hash=MiB, default 256) stays warm for the whole match, so
** the positions of later games are cheaper.  On 4x4 this is perfect from
** about ten moves in with a few million nodes.
*/
typedef struct perfect {
  const dab_oracle *o;
  int tie;
  int solve;              /* F, 0 = oracle only */
  dab_retro *table;       /* the current endgame table, or NULL */
  dab_ab *ab;             /* search=N: the solver, or NULL */
  dab_player *before;     /* the chain player, for positions not proved */
} perfect;

/* The analysis of pos without an oracle: from the endgame table (built
** once pos has at most F undrawn lines), else by search within its node
** budget.  RETURN: DAB_OK and *a, or an error (DAB_ECANCELED: the search
** ran out of nodes; DAB_EBOARD: neither applies). */
static dab_status analyze_without_oracle(perfect *t, const dab_geom *g, uint64_t pos, dab_analysis *a) {
  if (!t->table || !dab_retro_covers(t->table, pos)) {
    if (t->solve && g->nlines - __builtin_popcountll(pos) <= t->solve) {
      dab_retro_free(t->table);
      t->table = NULL;
      dab_retro_opts ro = {.threads = 1};
      if (dab_retro_solve(g, pos, &ro, &t->table, NULL)) t->table = NULL;
    }
  }
  if (t->table && dab_retro_covers(t->table, pos)) return dab_retro_analyze(t->table, pos, a, NULL);
  if (!t->ab) return DAB_EBOARD;
  dab_ab_reset_stats(t->ab); /* the node budget is per move */
  return dab_ab_analyze(t->ab, pos, a, NULL);
}

static int perfect_move(dab_player *p, const dab_game *game, dab_rng *rng) {
  perfect *t = p->impl;
  const dab_geom *g = &p->geom;
  dab_analysis *a = malloc(sizeof *a);
  int m = -1;
  dab_status st = DAB_EINTERNAL;
  if (a) {
    if (t->o) st = dab_oracle_analyze(t->o, &game->lines, a, NULL);
    else st = analyze_without_oracle(t, g, dab_ls_word(&game->lines), a);
  }
  if (st && !t->o && a) { /* not proved here: the chain player's move */
    free(a);
    return dab_player_move(t->before, game, rng);
  }
  if (st == DAB_OK && a->nbest > 0) {
    int16_t pick[DAB_MAX_LINES];
    int n = 0, best_key = -1;
    for (int i = 0; i < a->nbest; i++) {
      int k = dab_completes(g, &game->lines, a->best[i]);
      int key = t->tie == TIE_BOXES ? k : t->tie == TIE_LONG ? (k == 0) : 0;
      if (key > best_key) {
        best_key = key;
        n = 0;
      }
      if (key == best_key) pick[n++] = a->best[i];
    }
    m = pick[dab_rng_below(rng, n)];
  }
  free(a);
  if (m < 0) {  /* the oracle or solver failed (out of memory): any line */
    int16_t moves[DAB_MAX_LINES];
    int n = dab_legal_moves(g, &game->lines, moves);
    m = moves[dab_rng_below(rng, n)];
  }
  return m;
}

static void perfect_free(void *impl) {
  perfect *t = impl;
  if (t) {
    dab_retro_free(t->table);
    dab_ab_free(t->ab);
    dab_player_free(t->before);
  }
  free(t);
}

static const pl_ops ops_perfect = {perfect_move, perfect_free};

dab_status pl_new_perfect(dab_player *p, pl_opts *o, dab_err *err) {
  static const char *names[] = {"random", "boxes", "long"};
  int tie = TIE_RANDOM;
  const char *v = pl_opt_str(o, "tie");
  if (v) {
    tie = -1;
    for (int i = 0; i < 3; i++)
      if (!strcmp(v, names[i])) tie = i;
    if (tie < 0)
      return dab_fail(err, DAB_EINPUT, "player 'perfect': tie must be random, boxes or long, got '%s'", v);
  }
  long solve = 0, search = 0, hash_mib = 256;
  dab_status st = pl_opt_long(o, "perfect", "solve", 1, DAB_RETRO_MAX_FREE, &solve, err);
  if (!st) st = pl_opt_long(o, "perfect", "search", 1, LONG_MAX, &search, err);
  if (!st) st = pl_opt_long(o, "perfect", "hash", 1, 1 << 20, &hash_mib, err);
  if (st) return st;
  const dab_oracle *orc = NULL;
  dab_err e2;
  st = p->env ? dab_player_env_oracle(p->env, p->geom.rows, p->geom.cols, &orc, &e2)
              : dab_fail(&e2, DAB_EBOARD, "no oracle environment");
  if (st && (!(solve || search) || !dab_geom_fast(&p->geom)))
    return dab_fail(err, st == DAB_ENOMEM ? st : DAB_EBOARD,
                    "player 'perfect' cannot play %dx%d: %s%s", p->geom.rows, p->geom.cols, e2.msg,
                    dab_geom_fast(&p->geom) ? " (perfect:solve=F plays perfectly from F undrawn lines, "
                                              "perfect:search=N wherever N nodes prove a move)"
                                            : "");
  perfect *t = calloc(1, sizeof *t);
  if (!t) return dab_fail(err, DAB_ENOMEM, "out of memory for player 'perfect'");
  p->impl = t;
  p->ops = &ops_perfect;
  t->o = st ? NULL : orc;
  t->tie = tie;
  t->solve = (int)solve;
  if (!t->o && (st = dab_player_new("chain", &p->geom, NULL, &t->before, err))) return st;
  if (!t->o && search) {
    dab_ab_opts ao;
    dab_ab_default_opts(&ao);
    ao.hash_bytes = (uint64_t)hash_mib << 20;
    ao.node_limit = (uint64_t)search;
    st = DAB_ENOMEM;
    t->ab = dab_ab_new(&p->geom, &ao, &st, &e2);
    if (!t->ab) return dab_fail(err, st, "player 'perfect': %s", e2.msg);
  }
  int len = snprintf(p->name, sizeof p->name, "perfect:tie=%s", names[tie]);
  if (solve && len < (int)sizeof p->name)
    len += snprintf(p->name + len, sizeof p->name - (size_t)len, ",solve=%ld", solve);
  if (t->ab && len < (int)sizeof p->name)
    snprintf(p->name + len, sizeof p->name - (size_t)len, ",search=%ld,hash=%ld", search, hash_mib);
  return DAB_OK;
}
