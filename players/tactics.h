/*
** tactics.h: move classes and tactics on any board, shared by the players
** (not a public header).
** See Copyright Notice in README.md
*/
#ifndef DAB_PL_TACTICS_H
#define DAB_PL_TACTICS_H

#include "game/board.h"
#include "game/rng.h"

/* ---- Tactics on any board (multi-word line sets) --------------------- */

/* True when drawing undrawn line m puts a third side on some box. */
static inline bool pl_gives_third(const dab_geom *g, const dab_lineset *s, int m) {
  for (int j = 0; j < 2; j++) {
    int b = g->line_box[m][j];
    if (b >= 0 && dab_box_sides(g, s, b) == 2) return true;
  }
  return false;
}

/* A "safe capture": line m completes a box and gives no third side to the
** other box beside it.  Always an optimal move (see field-notes.md). */
static inline bool pl_safe_capture(const dab_geom *g, const dab_lineset *s, int m) {
  return dab_completes(g, s, m) > 0 && !pl_gives_third(g, s, m);
}

/* Legal moves sorted into classes (any may be empty).  Lists hold lines. */
typedef struct pl_moves {
  int n, ncap, nsafecap, nsafe;
  int16_t all[DAB_MAX_LINES];
  int16_t cap[DAB_MAX_LINES];      /* complete a box */
  int16_t safecap[DAB_MAX_LINES];  /* complete a box, no third side elsewhere */
  int16_t safe[DAB_MAX_LINES];     /* complete nothing, give no third side */
} pl_moves;

void pl_classify(const dab_geom *g, const dab_lineset *s, pl_moves *mv);

/* Boxes the player to move can take by capturing greedily from s (every
** capturable box, chain after chain); *after gets the line set reached. */
int pl_greedy_captures(const dab_geom *g, const dab_lineset *s, dab_lineset *after);

/* The undrawn line of box b other than `from` (-1: the first), or -1. */
int pl_other_line(const dab_geom *g, const dab_lineset *s, int b, int from);

/*
** Box b is capturable (one undrawn line) and starts a run through
** degree-2 boxes.  When exactly 2 boxes are left of a run that ends on
** the ground (a chain), or 4 of a run whose far end is capturable too (an
** opened loop), returns the double-dealing line (all-but-two: the far
** ground string; all-but-four: the middle string) and sets *is_loop.
** RETURN: that line, or -1 when b is not at such a point.
*/
int pl_decline_line(const dab_geom *g, const dab_lineset *s, int b, bool *is_loop);

static inline int pl_pick(dab_rng *rng, const int16_t *list, int n) {
  return list[dab_rng_below(rng, n)];
}

#endif
