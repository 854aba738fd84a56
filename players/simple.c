/*
** simple.c: the rule-based players: random, level1, level2 and chain.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "game/sc.h"
#include "players/pint.h"

static int random_move(dab_player *p, const dab_game *game, dab_rng *rng) {
  int16_t moves[DAB_MAX_LINES];
  int n = dab_legal_moves(&p->geom, &game->lines, moves);
  return moves[dab_rng_below(rng, n)];
}

/* Level 1: any box that can be taken is taken (which one at random). */
static int level1_move(dab_player *p, const dab_game *game, dab_rng *rng) {
  pl_moves mv;
  pl_classify(&p->geom, &game->lines, &mv);
  if (mv.ncap) return pl_pick(rng, mv.cap, mv.ncap);
  return pl_pick(rng, mv.all, mv.n);
}

/* Level 2: as level 1, then a random safe line, then anything. */
static int level2_move(dab_player *p, const dab_game *game, dab_rng *rng) {
  pl_moves mv;
  pl_classify(&p->geom, &game->lines, &mv);
  if (mv.ncap) return pl_pick(rng, mv.cap, mv.ncap);
  if (mv.nsafe) return pl_pick(rng, mv.safe, mv.nsafe);
  return pl_pick(rng, mv.all, mv.n);
}

/* ---- The chain-rule player ------------------------------------------- */

/*
** Estimated value for the controller of a loony endgame made of the
** components of s, the opener to move (a good amateur's arithmetic, not
** the exact theory): the controller keeps control through every long
** component but the last, paying 4 per long chain and 8 per loop, and
** gets the last one whole; 1- and 2-chains swap roles as in BoxesZero's
** rule (BZ5).  Components with junctions are counted as long chains.
*/
static int estimate_controlled_value(const dab_geom *g, const dab_lineset *s) {
  dab_sc_view *v = malloc(sizeof *v);
  if (!v) return 0;
  dab_sc_analyze(g, s, v);
  int total = 0, nlong = 0, nloop = 0, ones = 0, twos = 0;
  for (int i = 0; i < v->ncomp; i++) {
    const dab_sc_component *c = &v->comp[i];
    if (c->kind == DAB_SC_LOOP) {
      nloop++;
      total += c->coins;
    } else if (c->kind == DAB_SC_CHAIN && c->coins == 1) ones++;
    else if (c->kind == DAB_SC_CHAIN && c->coins == 2) twos++;
    else {
      nlong++;
      total += c->coins;
    }
  }
  free(v);
  int cv = 0;
  if (nlong + nloop) cv = total - 4 * nlong - 8 * nloop + (nlong ? 4 : 8);
  bool k_odd = ones & 1, n_odd = twos & 1;
  if (k_odd && n_odd) return cv - 1;
  if (k_odd) return 1 - cv;
  if (n_odd) return 2 - cv;
  return cv;
}

/* Long chains of s by the amateur's count: runs of >= 3 degree-2 coins
** that are not loops. */
static int count_long_chains(const dab_geom *g, const dab_lineset *s, dab_sc_view *v) {
  dab_sc_analyze(g, s, v);
  int n = 0;
  for (int i = 0; i < v->nseg; i++)
    if (v->seg[i].length >= 3 && v->seg[i].end[0] != DAB_END_NONE) n++;
  return n;
}

static int chain_move(dab_player *p, const dab_game *game, dab_rng *rng) {
  const dab_geom *g = &p->geom;
  const dab_lineset *s = &game->lines;
  pl_moves mv;
  pl_classify(g, s, &mv);
  if (mv.nsafecap) return pl_pick(rng, mv.safecap, mv.nsafecap);
  if (mv.ncap) {
    /* Every capture leads on into a chain.  Where a run is down to its
    ** last 2 (chain) or 4 (loop) boxes and nothing else can be taken,
    ** decide between taking all and declining to keep control. */
    int16_t eat[DAB_MAX_LINES];
    int neat = 0, dd = -1;
    bool dd_loop = false;
    int ncapturable = 0;
    for (int b = 0; b < g->nboxes; b++) {
      if (dab_box_sides(g, s, b) != 3) continue;
      ncapturable++;
      bool loop;
      int d = pl_decline_line(g, s, b, &loop);
      if (d >= 0 && dd < 0) {
        dd = d;
        dd_loop = loop;
      } else if (d < 0) {
        eat[neat++] = (int16_t)pl_other_line(g, s, b, -1);
      }
    }
    /* An opened loop down to 4 has two capturable ends: one decision. */
    bool only_run = neat == 0 && (ncapturable == 1 || (dd_loop && ncapturable == 2));
    if (dd >= 0 && only_run) {
      dab_lineset rest;
      pl_greedy_captures(g, s, &rest);
      pl_moves after;
      pl_classify(g, &rest, &after);
      int v = estimate_controlled_value(g, &rest);
      if (after.n > 0 && after.nsafe == 0 && v > (dd_loop ? 4 : 2)) return dd;
    }
    if (neat) return pl_pick(rng, eat, neat);
    return pl_pick(rng, mv.cap, mv.ncap);
  }
  if (mv.nsafe) {
    /* Long chain rule, in a form that needs no history: from a position
    ** with L undrawn lines and B open boxes, the player to move gets the
    ** last turn (control) iff L - B + (long chains at the end) is odd
    ** (turns left = non-capturing moves left + 1, captures = B minus
    ** double-crosses, one double-cross per declined chain).  From the
    ** empty board this is Berlekamp's "dots + long chains even" for the
    ** first player.  After our safe line the opponent moves, so we want
    ** the count even. */
    int open_boxes = 0;
    for (int b = 0; b < g->nboxes; b++) open_boxes += dab_box_sides(g, s, b) < 4;
    int undrawn_after = mv.n - 1;
    dab_sc_view *v = malloc(sizeof *v);
    if (!v) return pl_pick(rng, mv.safe, mv.nsafe);
    int16_t good[DAB_MAX_LINES];
    int ngood = 0;
    for (int i = 0; i < mv.nsafe; i++) {
      dab_lineset t = *s;
      dab_ls_set(&t, mv.safe[i]);
      if (((undrawn_after - open_boxes + count_long_chains(g, &t, v)) & 1) == 0)
        good[ngood++] = mv.safe[i];
    }
    free(v);
    if (ngood) return pl_pick(rng, good, ngood);
    return pl_pick(rng, mv.safe, mv.nsafe);
  }
  /* Forced to open: give the fewest boxes, and among those prefer a move
  ** the opponent cannot decline (e.g. the middle line of a 2-chain). */
  int best_cost = 1 << 30;
  int16_t best[DAB_MAX_LINES];
  int nbest = 0;
  for (int i = 0; i < mv.n; i++) {
    dab_lineset t = *s;
    dab_ls_set(&t, mv.all[i]);
    int cost = 2 * pl_greedy_captures(g, &t, NULL);
    pl_moves after;
    pl_classify(g, &t, &after);
    if (after.ncap != after.nsafecap) cost++;  /* can be declined */
    if (cost < best_cost) {
      best_cost = cost;
      nbest = 0;
    }
    if (cost == best_cost) best[nbest++] = mv.all[i];
  }
  return pl_pick(rng, best, nbest);
}

static const pl_ops ops_random = {random_move, NULL};
static const pl_ops ops_level1 = {level1_move, NULL};
static const pl_ops ops_level2 = {level2_move, NULL};
static const pl_ops ops_chain = {chain_move, NULL};

dab_status pl_new_simple(dab_player *p, pl_opts *o, dab_err *err) {
  (void)o;
  (void)err;
  switch (p->kind) {
    case PL_RANDOM: p->ops = &ops_random; snprintf(p->name, sizeof p->name, "random"); break;
    case PL_LEVEL1: p->ops = &ops_level1; snprintf(p->name, sizeof p->name, "level1"); break;
    case PL_LEVEL2: p->ops = &ops_level2; snprintf(p->name, sizeof p->name, "level2"); break;
    default: p->ops = &ops_chain; snprintf(p->name, sizeof p->name, "chain"); break;
  }
  return DAB_OK;
}
