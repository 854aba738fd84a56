/*
** perfect.c: the perfect player: an optimal move from the oracle.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "players/pint.h"

/*
** Tie policies among the optimal moves (all give the same margin):
**   random  uniformly at random;
**   boxes   the move that completes the most boxes now (bank boxes early);
**   long    a move that completes none when one exists, so the game keeps
**           going as long as possible before boxes are banked.
** Within a policy's choice, ties are again broken at random.
*/
enum { TIE_RANDOM, TIE_BOXES, TIE_LONG };

typedef struct perfect {
  const dab_oracle *o;
  int tie;
} perfect;

static int perfect_move(dab_player *p, const dab_game *game, dab_rng *rng) {
  perfect *t = p->impl;
  const dab_geom *g = &p->geom;
  dab_analysis *a = malloc(sizeof *a);
  int m = -1;
  if (a && dab_oracle_analyze(t->o, &game->lines, a, NULL) == DAB_OK && a->nbest > 0) {
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
  if (m < 0) {  /* the oracle failed: cannot happen on a covered board */
    int16_t moves[DAB_MAX_LINES];
    int n = dab_legal_moves(g, &game->lines, moves);
    m = moves[dab_rng_below(rng, n)];
  }
  return m;
}

static void perfect_free(void *impl) { free(impl); }

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
  if (!p->env) return dab_fail(err, DAB_EBOARD, "player 'perfect' needs an oracle environment");
  const dab_oracle *orc;
  dab_err e2;
  dab_status st = dab_player_env_oracle(p->env, p->geom.rows, p->geom.cols, &orc, &e2);
  if (st)
    return dab_fail(err, st, "player 'perfect' cannot play %dx%d: %s", p->geom.rows, p->geom.cols,
                    e2.msg);
  perfect *t = calloc(1, sizeof *t);
  if (!t) return dab_fail(err, DAB_ENOMEM, "out of memory for player 'perfect'");
  t->o = orc;
  t->tie = tie;
  p->impl = t;
  p->ops = &ops_perfect;
  snprintf(p->name, sizeof p->name, "perfect:tie=%s", names[tie]);
  return DAB_OK;
}
