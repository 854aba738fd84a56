/*
** ab_moves.h: the moves the search tries at a node past the capture rules:
** runs of two-sided coins, the one opening searched per run, the loony
** bound, and the ordered move list.  Shared by ab_search.c and ab_dfpn.c;
** not a public header.
** See Copyright Notice in README.md
*/
#ifndef DAB_AB_MOVES_H
#define DAB_AB_MOVES_H

#include "solver/ab_int.h"

static inline int other_box(const dab_geom *g, int line, int b) {
  return g->line_box[line][0] == b ? g->line_box[line][1] : g->line_box[line][0];
}

/*
** Runs of two-sided coins in a quiet position.  A run is a maximal path
** of coins with exactly two strings each; each of its two end strings
** goes to the ground or to a junction (a coin with three or more
** strings), unless the path closes on itself (an isolated loop).
**
**        ground or junction  c1    c2          ck  ground or junction
**              A  ----s0---- o --s1-- o -- ... -- o ----sk----  B
**
** chain_of walks the run through undrawn line m, whose coins must all be
** two-sided (m is s0..sk of some run, or a loop string).
** RETURN: 1 an isolated chain (A and B both the ground), 2 an isolated
** loop, 3 a chain with a junction at one end or both; *len its coins,
** *boxes their mask, *end an end string (a ground one when there is one).
*/
static inline int chain_of(const dab_geom *g, uint64_t p, int m, int *len, uint64_t *boxes, int *end) {
  int k = 0, ends[2] = {m, m};
  bool junction[2] = {false, false};
  uint64_t set = 0;
  for (int side = 0; side < 2; side++) {
    int x = g->line_box[m][side], from = m;
    while (x >= 0) {                /* x is two-sided */
      if (set >> x & 1) {           /* walked round: a loop */
        *len = k, *boxes = set, *end = m;
        return 2;
      }
      k++;
      set |= 1ull << x;
      int next = __builtin_ctzll(g->box_mask[x] & ~p & ~(1ull << from));
      int y = other_box(g, next, x);
      if (y < 0 || dab64_sides(g, p, y) != 2) {
        ends[side] = next, junction[side] = y >= 0;
        break;
      }
      from = next;
      x = y;
    }
  }
  *len = k, *boxes = set;
  *end = junction[0] ? ends[1] : ends[0];
  return junction[0] || junction[1] ? 3 : 1;
}

/*
** The one opening of a run that chain_moves searches, given chain_of's
** answer: any string of a loop (all are alike), an end string of a chain
** of >= 3 coins (isolated, or with junction_chains ending at a junction:
** the opponent's options after any other opening include take-all and
** all-but-two, which are all it needs after an end opening; see ab.h)
** and, with hard_handouts, the middle string of an isolated 2-chain.  A
** 2-chain opened at an end (half-hearted) lets the opponent choose
** between taking both coins (what the middle opening forces, as the
** capture is then safe) and declining them with the far end, so it is
** never better.
** RETURN: that line, or -1 when every opening of the run is searched.
*/
static inline int chain_opening(const dab_ab *ab, int kind, int len, uint64_t boxes, int end) {
  if (kind == 2) return end;
  if (kind == 3 && !ab->o.tune.junction_chains) return -1;
  if (len >= 3) return end;
  if (kind == 1 && len == 2 && ab->o.tune.hard_handouts) {
    const dab_geom *g = &ab->g;
    int b0 = __builtin_ctzll(boxes), b1 = __builtin_ctzll(boxes & (boxes - 1));
    return __builtin_ctzll(g->box_mask[b0] & g->box_mask[b1]);
  }
  return -1;
}

/*
** The loony bound.  Let m open a run of k >= 3 coins of a quiet position
** (a string of the run or one of its end strings; with junction_chains a
** chain may end at a junction) or an isolated loop of k coins.  After m
** the opponent can take every coin of it and move on (k + x, x = the
** value of the rest for the mover there), or take all but two (a loop:
** all but four) and hand over the rest (k - 4 - x; loop k - 8 - x).  The
** better of the two is at least k - 2 (loop: k - 4), so m is worth at
** most -(k-2) (loop -(k-4)).
** RETURN: that upper bound for chain_of's answer, or 1000 when there is
** none.
*/
static inline int loony_upper(const dab_ab *ab, int kind, int k) {
  if (kind == 1 && k >= 3) return -(k - 2);
  if (kind == 3 && k >= 3 && ab->o.tune.junction_chains) return -(k - 2);
  if (kind == 2 && k >= 4) return -(k - 4);
  return 1000;
}


/*
** The simple loony endgame: p is quiet (no three-sided box) and its every
** open box two-sided, so its value is known without search (theorems/sle.h).
** RETURN: true and *value (for the player to move), or false when p is no
** such position or the theorem does not settle it.
*/
static inline bool ab_sle_leaf(const dab_ab *ab, uint64_t p, dab64_sides4 sides, int *value) {
  const dab_geom *g = &ab->g;
  if ((dab64_two_sided_v(sides) | dab64_complete_v(sides)) != dab64_all_boxes(g)) return false;
  int16_t chains[DAB_MAX_BOXES], loops[DAB_MAX_BOXES];
  int nch = 0, nlp = 0;
  dab_lineset ls = dab_ls_from_word(p);
  int sv;
  if (!dab_sle_from_position(g, &ls, true, chains, &nch, loops, &nlp) ||
      (sv = dab_sle_value(chains, nch, loops, nlp)) == DAB_SLE_BAD)
    return false;
  *value = -sv;
  return true;
}

/* A node's move list (ab_move_list). */
typedef struct ab_moves {
  int16_t mv[64];             /* the moves in search order */
  int n;                      /* how many */
  int nsac1, nsac2;           /* the last nsac1 + nsac2 of them: sacrifices of one box, then of two */
  uint64_t loony_lines;       /* moves with a loony bound ... */
  int8_t loony[64];           /* ... the bound (loony_upper), by line */
} ab_moves;

/*
** The moves search tries at p, a position past the capture rules (three:
** its three-sided boxes, two: its two-sided ones), in order: ttmove (a
** line, or -1; replaced by its run's one opening), then non-sacrifices
** centre-out, then sacrifices (one box given before two).  Of the undrawn
** edge lines of one corner box only the first is tried (border
** equivalence), and of each run of two-sided coins only the opening
** chain_opening names.  RETURN: ttmove as it went into the list.
*/
static inline int ab_move_list(const dab_ab *ab, uint64_t p, uint64_t three, uint64_t two, int ttmove,
                               ab_moves *ml) {
  const dab_geom *g = &ab->g;
  int16_t *mv = ml->mv;
  int8_t *loony = ml->loony;
  int n = 0, nsac1 = 0, nsac2 = 0;
  int16_t sac1[64], sac2[64];
  uint64_t seen_groups = 0;
  uint64_t freel = g->all_lines & ~p;
  const bool chain_moves = ab->o.tune.chain_moves && !three;
  /* Lines that give one box or two; lines whose every box is two-sided
  ** (the strings of runs and loops: chain_of). */
  const uint64_t gives_some = freel & dab64_lines_of_boxes(g, two);
  const uint64_t gives_two = freel & dab64_lines_between(g, two);
  const uint64_t chain_lines =
      !three && (chain_moves || ab->o.tune.loony_bound) ? freel & ~dab64_lines_of_boxes(g, dab64_all_boxes(g) & ~two) : 0;
  /* Each run walked once.  run_lines: every opening of a run that
  ** chain_moves reduces to one, opening_of[] that one (handouts: a
  ** hard-hearted handout, which gives two boxes); loony_lines: every
  ** opening with a loony bound, loony[] the bound. */
  uint64_t run_lines = 0, handouts = 0, loony_lines = 0, opened = 0;
  int8_t opening_of[64];
  for (uint64_t todo = chain_lines; todo;) {
    int len, end;
    uint64_t boxes;
    int kind = chain_of(g, p, __builtin_ctzll(todo), &len, &boxes, &end);
    const uint64_t lines = freel & dab64_lines_of_boxes(g, boxes);
    todo &= ~lines;
    const int u = ab->o.tune.loony_bound ? loony_upper(ab, kind, len) : 1000;
    const int one = chain_moves ? chain_opening(ab, kind, len, boxes, end) : -1;
    if (u < 1000) loony_lines |= lines;
    if (one >= 0) {
      run_lines |= lines;
      if (kind == 1 && len == 2) handouts |= 1ull << one;
    }
    for (uint64_t t = lines; t && (u < 1000 || one >= 0); t &= t - 1) {
      loony[__builtin_ctzll(t)] = (int8_t)(u < 1000 ? u : 0);
      opening_of[__builtin_ctzll(t)] = (int8_t)one;
    }
  }
  if (ttmove >= 0 && (run_lines >> ttmove & 1)) ttmove = opening_of[ttmove];
  if (ttmove >= 0) mv[n++] = (int16_t)ttmove;
  for (int i = 0; i < g->nlines; i++) {
    int m = ab->order[i];
    if (!(freel >> m & 1)) continue;
    if (run_lines >> m & 1) {
      /* One opening per run, where the run is first met in the order:
      ** an end string gives one box, a hard-hearted handout two. */
      int one = opening_of[m];
      if ((opened >> one & 1) || one == ttmove) continue;
      opened |= 1ull << one;
      if (!ab->o.tune.order_sacrifices_last) mv[n++] = (int16_t)one;
      else if (handouts >> one & 1) sac2[nsac2++] = (int16_t)one;
      else sac1[nsac1++] = (int16_t)one;
      continue;
    }
    if (ab->o.tune.border_equiv && ab->group_of[m]) {
      if (seen_groups & ab->group_of[m]) continue;
      seen_groups |= ab->group_of[m];
      if (ttmove >= 0 && (ab->group_of[m] >> ttmove & 1)) continue;
    }
    if (m == ttmove) continue;
    if (ab->o.tune.order_sacrifices_last && (gives_some >> m & 1)) {
      if (gives_two >> m & 1) sac2[nsac2++] = (int16_t)m;
      else sac1[nsac1++] = (int16_t)m;
      continue;
    }
    mv[n++] = (int16_t)m;
  }
  for (int i = 0; i < nsac1; i++) mv[n++] = sac1[i];
  for (int i = 0; i < nsac2; i++) mv[n++] = sac2[i];
  ml->n = n, ml->nsac1 = nsac1, ml->nsac2 = nsac2, ml->loony_lines = loony_lines;
  return ttmove;
}

#endif
