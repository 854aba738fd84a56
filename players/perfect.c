/*
** perfect.c: the perfect player: an optimal move from the oracle.
** See Copyright Notice in README.md
*/
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "players/pint.h"
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
** Without an oracle for the board (and with solve=F or search=N on a board
** of at most 64 lines) the player opens its own oracle (oracle.h) with the
** below-root retrograde source (retro_free = F: once a position has at
** most F undrawn lines, 2^F bytes, a table below it answers the rest of
** the game) and, with search=N, exact search of N nodes a move (its table,
** hash=MiB, default 256, stays warm for the whole match, so the positions
** of later games are cheaper; on 4x4 this is perfect from about ten moves
** in with a few million nodes).  A position neither proves is played as
** the chain player plays it, so `perfect:solve=F` is perfect from F
** undrawn lines on.  The private oracle is the player's own: a player is
** used by one thread at a time.
*/
typedef struct perfect {
  const dab_oracle *o;    /* the environment's oracle, or NULL */
  dab_oracle *own;        /* else this player's own (solve=F / search=N) */
  int tie;
  dab_player *before;     /* the chain player, for positions not proved */
} perfect;

static int perfect_move(dab_player *p, const dab_game *game, dab_rng *rng) {
  perfect *t = p->impl;
  const dab_geom *g = &p->geom;
  dab_analysis *a = malloc(sizeof *a);
  int m = -1;
  dab_status st = DAB_EINTERNAL;
  if (a) {
    st = dab_oracle_analyze(t->o ? t->o : t->own, &game->lines, a, NULL);
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
    dab_oracle_close(t->own);
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
  if (!t->o && (st = dab_player_new("chain", &p->geom, NULL, &t->before, err))) return st;
  if (!t->o) {
    dab_oracle_opts oo = {.threads = 1,
                          .retro_free = (int)solve,
                          .search = search > 0,
                          .search_hash = (uint64_t)hash_mib << 20,
                          .search_node_limit = (uint64_t)search,
                          .store = DAB_ORACLE_STORE_NONE};
    if ((st = dab_oracle_open(p->geom.rows, p->geom.cols, &oo, &t->own, &e2)))
      return dab_fail(err, st, "player 'perfect': %s", e2.msg);
  }
  int len = snprintf(p->name, sizeof p->name, "perfect:tie=%s", names[tie]);
  if (solve && len < (int)sizeof p->name)
    len += snprintf(p->name + len, sizeof p->name - (size_t)len, ",solve=%ld", solve);
  if (!t->o && search && len < (int)sizeof p->name)
    snprintf(p->name + len, sizeof p->name - (size_t)len, ",search=%ld,hash=%ld", search, hash_mib);
  return DAB_OK;
}
