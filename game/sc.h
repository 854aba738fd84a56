/*
** sc.h: the Strings-and-Coins view of a Dots-and-Boxes position.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_SC_H
#define DAB_SC_H

#include "game/board.h"

/*
** Dots-and-Boxes is Strings-and-Coins on the dual graph: every box is a
** coin, every undrawn line a string; an undrawn edge line is a string to
** the ground.  A coin's degree is its number of undrawn lines (0 = the
** box is complete and the coin is gone; 1 = capturable).
**
**      +---+---+---+        coins:  (a)-(b)-(c)        ground = G
**      | a   b   c |   =>           |           |
**      +---+---+---+                G           G     one 3-chain
**
** Components are the connected parts of the coin graph with the ground
** removed.  Segments are the maximal runs of degree-2 coins, the "chains"
** of the players' vocabulary, including those that end at a junction.
*/

enum dab_sc_kind {
  DAB_SC_CHAIN = 0,   /* every coin degree 2, both ends on the ground */
  DAB_SC_LOOP = 1,    /* every coin degree 2, no ground: a cycle */
  DAB_SC_OTHER = 2    /* has a junction (degree >= 3) or a capturable coin */
};

enum dab_sc_end {
  DAB_END_GROUND = 0,      /* the run's last string goes to the ground */
  DAB_END_JUNCTION = 1,    /* ...to a coin of degree >= 3 */
  DAB_END_CAPTURABLE = 2,  /* ...to a coin of degree 1 */
  DAB_END_NONE = 3         /* the run is a cycle */
};

typedef struct dab_sc_component {
  uint8_t kind;          /* enum dab_sc_kind */
  int16_t coins;         /* coins in the component */
  int16_t strings;       /* strings between its coins, plus its ground strings */
  int16_t ground;        /* strings to the ground */
  int16_t capturable;    /* coins of degree 1 */
  int16_t junctions;     /* coins of degree >= 3 */
  int16_t first_box;     /* lowest-numbered box in it */
} dab_sc_component;

typedef struct dab_sc_segment {
  int16_t length;        /* degree-2 coins in the run */
  int16_t box[2];        /* the run's two end coins (equal when length 1) */
  uint8_t end[2];        /* what lies beyond each end: enum dab_sc_end */
  int16_t end_box[2];    /* the coin beyond each end, -1 for ground/none */
  int16_t end_line[2];   /* the string leaving each end of the run */
  int16_t component;     /* index into dab_sc_view.comp */
} dab_sc_segment;

typedef struct dab_sc_view {
  int8_t degree[DAB_MAX_BOXES];      /* undrawn sides of each box */
  int16_t comp_of[DAB_MAX_BOXES];    /* component of each coin, -1 if taken */
  int ncomp, nseg, ncapturable;
  int16_t capturable[DAB_MAX_BOXES]; /* boxes with exactly one undrawn line */
  dab_sc_component comp[DAB_MAX_BOXES];
  dab_sc_segment seg[DAB_MAX_BOXES];
} dab_sc_view;

/* "chain", "loop" or "other", for printing a component's kind. */
static inline const char *dab_sc_kind_name(int kind) {
  return kind == DAB_SC_CHAIN ? "chain" : kind == DAB_SC_LOOP ? "loop" : "other";
}

/* Fills v with the view of line set s on board g.  Never fails. */
void dab_sc_analyze(const dab_geom *g, const dab_lineset *s, dab_sc_view *v);

/*
** True when the position is a simple loony endgame: no capturable coin,
** and every component an isolated chain of length >= 3 or a loop.  With
** extended, 1- and 2-chains are allowed too.  A finished board (no coins)
** is an SLE with G empty.
*/
bool dab_sc_is_sle(const dab_sc_view *v, bool extended);

/*
** Writes the chain lengths and loop lengths of the CHAIN and LOOP
** components, each sorted ascending, into chains[] and loops[] (each with
** room for DAB_MAX_BOXES).  RETURN: number of OTHER components (0 means
** the multiset describes the whole position).
*/
int dab_sc_multiset(const dab_sc_view *v, int16_t *chains, int *nchains, int16_t *loops,
                    int *nloops);

/* The undrawn line between coin b and its neighbour beyond line m:
** returns the neighbour box, or -1 for the ground. */
static inline int dab_sc_across(const dab_geom *g, int b, int m) {
  return g->line_box[m][0] == b ? g->line_box[m][1] : g->line_box[m][0];
}

#endif
