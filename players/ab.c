/*
** ab.c: the alpha-beta player: depth-limited negamax with a simple
** evaluation, for boards no table covers.
** See Copyright Notice in README.md
*/
#include <limits.h>
#include <stdlib.h>
#include "players/pint.h"

/*
** Values follow Wilson's convention (net boxes for the player to move,
** from here on).  Depth counts turns, not lines: a capture keeps the
** turn and costs no depth, so chains are always eaten to their end.
** Pruning that is always sound: a safe capture is played at once.  Pruning
** that is a heuristic: while a safe line exists, only safe lines and
** captures are tried (giving a box away early is almost never right).
** The evaluation at the horizon is the boxes the mover could take greedily.
** Iterative deepening under a node budget keeps big boards responsive.
*/
typedef struct ab {
  int depth;
  long budget, nodes;
  bool out_of_budget;
  dab_cancel_flag *cancel;  /* the player's, copied at each move */
} ab;

#define AB_INF 10000

static int ab_search(ab *t, const dab_geom *g, dab_lineset *s, int depth, int alpha, int beta) {
  if (++t->nodes > t->budget || (t->cancel && (t->nodes & 1023) == 0 && *t->cancel)) {
    t->out_of_budget = true;
    return 0;
  }
  pl_moves mv;
  pl_classify(g, s, &mv);
  if (mv.n == 0) return 0;
  if (mv.nsafecap) {
    int m = mv.safecap[0];
    int k = dab_completes(g, s, m);
    dab_ls_set(s, m);
    int v = k + ab_search(t, g, s, depth, alpha - k, beta - k);
    dab_ls_clear(s, m);
    return v;
  }
  if (depth == 0) return pl_greedy_captures(g, s, NULL);
  const int16_t *quiet = mv.nsafe ? mv.safe : mv.all;
  int nquiet = mv.nsafe ? mv.nsafe : mv.n;
  int best = -AB_INF;
  for (int pass = 0; pass < 2; pass++) {
    const int16_t *list = pass ? quiet : mv.cap;
    /* Captures commute: trying the first one is enough (the others stay
    ** available below it), which stops k capturable boxes from costing k!. */
    int n = pass ? nquiet : (mv.ncap ? 1 : 0);
    for (int i = 0; i < n; i++) {
      int m = list[i];
      int k = dab_completes(g, s, m);
      if (pass && k) continue;  /* already tried as a capture */
      dab_ls_set(s, m);
      int v = k ? k + ab_search(t, g, s, depth, alpha - k, beta - k)
                : -ab_search(t, g, s, depth - 1, -beta, -alpha);
      dab_ls_clear(s, m);
      if (t->out_of_budget) return 0;
      if (v > best) best = v;
      if (v > alpha) alpha = v;
      if (alpha >= beta) return best;
    }
  }
  return best;
}

static int ab_move(dab_player *p, const dab_game *game, dab_rng *rng) {
  ab *t = p->impl;
  const dab_geom *g = &p->geom;
  dab_lineset s = game->lines;
  pl_moves mv;
  pl_classify(g, &s, &mv);
  if (mv.nsafecap) return pl_pick(rng, mv.safecap, mv.nsafecap);
  /* Root moves: captures, then safe lines (or all), shuffled so that
  ** ties are broken at random. */
  int16_t root[DAB_MAX_LINES];
  int n = 0;
  if (mv.ncap) root[n++] = mv.cap[dab_rng_below(rng, mv.ncap)];
  const int16_t *quiet = mv.nsafe ? mv.safe : mv.all;
  int nquiet = mv.nsafe ? mv.nsafe : mv.n;
  for (int i = 0; i < nquiet; i++)
    if (!dab_completes(g, &s, quiet[i])) root[n++] = quiet[i];
  for (int i = n - 1; i > 0; i--) {
    int j = dab_rng_below(rng, i + 1);
    int16_t x = root[i];
    root[i] = root[j];
    root[j] = x;
  }
  int chosen = root[0];
  t->nodes = 0;
  t->out_of_budget = false;
  t->cancel = p->cancel;
  long budget = t->budget;
  for (int d = 1; d <= t->depth; d++) {
    /* Depth 1 always completes, whatever the budget: a move chosen from
    ** a finished search, never a random one. */
    t->budget = d == 1 ? LONG_MAX : budget;
    int best = -AB_INF, best_move = root[0];
    for (int i = 0; i < n; i++) {
      int m = root[i];
      int k = dab_completes(g, &s, m);
      dab_ls_set(&s, m);
      int v = k ? k + ab_search(t, g, &s, d, best - k, AB_INF)
                : -ab_search(t, g, &s, d - 1, -AB_INF, -best);
      dab_ls_clear(&s, m);
      if (t->out_of_budget) break;
      if (v > best) {
        best = v;
        best_move = m;
      }
    }
    if (t->out_of_budget) break;
    chosen = best_move;
    /* Put the best move first for the next, deeper iteration. */
    for (int i = 0; i < n; i++)
      if (root[i] == chosen) {
        root[i] = root[0];
        root[0] = (int16_t)chosen;
      }
  }
  t->budget = budget;
  return chosen;
}

static void ab_free(void *impl) { free(impl); }

static const pl_ops ops_ab = {ab_move, ab_free};

dab_status pl_new_ab(dab_player *p, pl_opts *o, dab_err *err) {
  long depth = 4, nodes = 200000;
  dab_status st;
  if ((st = pl_opt_long(o, "ab", "depth", 1, 64, &depth, err))) return st;
  if ((st = pl_opt_long(o, "ab", "nodes", 1000, 1000000000, &nodes, err))) return st;
  ab *t = calloc(1, sizeof *t);
  if (!t) return dab_fail(err, DAB_ENOMEM, "out of memory for player 'ab'");
  t->depth = (int)depth;
  t->budget = nodes;
  p->impl = t;
  p->ops = &ops_ab;
  snprintf(p->name, sizeof p->name, "ab:depth=%ld,nodes=%ld", depth, nodes);
  return DAB_OK;
}
