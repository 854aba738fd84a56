/*
** board.h: board geometry, line sets, and the rules of Dots-and-Boxes.
** See Copyright Notice in README.md
*/
#ifndef DAB_BOARD_H
#define DAB_BOARD_H

#include <stdbool.h>
#include <stdint.h>
#include "game/bits.h"
#include "game/dabconf.h"
#include "game/err.h"
#include "game/dabapi.h"

/*
** Line numbering (OpenSpiel dots_and_boxes action ids), R x C boxes:
**
**        c=0   c=1              horizontal (r,c) = r*C + c
**      +-----+-----+            vertical   (r,c) = (R+1)*C + r*(C+1) + c
**      |  0  |  1  |  r=0
**      6 b0  7 b1  8            box (r,c) = r*C + c has lines
**      |     |     |              top    = h(r,c)     bottom = h(r+1,c)
**      +--2--+--3--+              left   = v(r,c)     right  = v(r,c+1)
**      9 b2 10 b3 11  r=1
**      +--4--+--5--+            (this drawing: 2x2, 12 lines)
**
** Line i is bit i of a line set; bit set = line drawn.  A box is complete
** when its four lines are drawn.  Boxes are numbered r*C + c.
*/

_Static_assert(2 * 5 * 6 <= DAB_FAST_MAX_LINES, "5x5 must fit the fast path");
_Static_assert(DAB_LINE_WORDS * 64 >= DAB_MAX_LINES, "line set too small");

enum { DAB_SIDE_TOP = 0, DAB_SIDE_BOTTOM = 1, DAB_SIDE_LEFT = 2, DAB_SIDE_RIGHT = 3 };

/* The geometry of one board: built once by dab_geom_init, then read-only
** and safe to share between threads. */
typedef struct dab_geom {
  int rows, cols;
  int nlines, nboxes;
  int nhoriz;                                 /* (R+1)*C; verticals follow */
  int16_t box_line[DAB_MAX_BOXES][4];         /* lines of each box, DAB_SIDE_* */
  int16_t line_box[DAB_MAX_LINES][2];         /* boxes beside a line; -1 = edge */
  uint8_t box_border[DAB_MAX_BOXES];          /* how many of its lines are on the edge */
  /* Fast path (valid when nlines <= 64): */
  uint64_t box_mask[DAB_MAX_BOXES];           /* the 4 lines of each box */
  uint64_t all_lines;                         /* mask of every line */
  uint64_t side_mask[4];                      /* lines that are side s of some box */
  uint64_t edge_boxes[4];                     /* boxes whose side s is on the edge (box bits) */
} dab_geom;

/*
** Builds the geometry of a rows x cols board into g.
** RETURN: DAB_OK, or DAB_EBOARD (message in err) when a side is outside
** 1..DAB_MAX_SIDE.  On error g is left unspecified.
*/
DAB_API dab_status dab_geom_init(dab_geom *g, int rows, int cols, dab_err *err);

/* True when the board's positions fit one uint64_t (the solvers' path). */
static inline bool dab_geom_fast(const dab_geom *g) { return g->nlines <= DAB_FAST_MAX_LINES; }

/* ---- Multi-word line sets (any board) --------------------------------- */

typedef struct dab_lineset {
  uint64_t w[DAB_LINE_WORDS];
} dab_lineset;

static inline bool dab_ls_has(const dab_lineset *s, int line) {
  return (s->w[line >> 6] >> (line & 63)) & 1u;
}
static inline void dab_ls_set(dab_lineset *s, int line) { s->w[line >> 6] |= 1ull << (line & 63); }
static inline void dab_ls_clear(dab_lineset *s, int line) { s->w[line >> 6] &= ~(1ull << (line & 63)); }
static inline int dab_ls_count(const dab_lineset *s) {
  int n = 0;
  for (int i = 0; i < DAB_LINE_WORDS; i++) n += dab_popcount64(s->w[i]);
  return n;
}
/* The low 64 lines as one word: the whole position on fast-path boards. */
static inline uint64_t dab_ls_word(const dab_lineset *s) { return s->w[0]; }
static inline dab_lineset dab_ls_from_word(uint64_t p) {
  dab_lineset s = {{0}};
  s.w[0] = p;
  return s;
}

/* Lines drawn around box b (0..4). */
static inline int dab_box_sides(const dab_geom *g, const dab_lineset *s, int b) {
  int n = 0;
  for (int k = 0; k < 4; k++) n += dab_ls_has(s, g->box_line[b][k]);
  return n;
}

/* Boxes that drawing the undrawn line m would complete (0, 1 or 2). */
static inline int dab_completes(const dab_geom *g, const dab_lineset *s, int m) {
  int k = 0;
  for (int j = 0; j < 2; j++) {
    int b = g->line_box[m][j];
    if (b >= 0 && dab_box_sides(g, s, b) == 3) k++;
  }
  return k;
}

/* ---- Fast path: a position is one uint64_t ---------------------------- */

/* pext / pdep / popcount: game/bits.h. */

static inline int dab64_sides(const dab_geom *g, uint64_t p, int b) {
  return dab_popcount64(p & g->box_mask[b]);
}

/* Boxes completed by drawing the undrawn line m in p. */
static inline int dab64_completes(const dab_geom *g, uint64_t p, int m) {
  int k = 0;
  int b0 = g->line_box[m][0], b1 = g->line_box[m][1];
  if (b0 >= 0 && dab64_sides(g, p, b0) == 3) k++;
  if (b1 >= 0 && dab64_sides(g, p, b1) == 3) k++;
  return k;
}

/* Each side of every box as a bit vector over box numbers: bit b of .top
** is set when box b's top line is drawn.  pext of a side mask lists that
** side of every box in box order.  Needs nboxes <= 64 (every fast-path
** board). */
typedef struct dab64_sides4 {
  uint64_t top, bottom, left, right;
} dab64_sides4;

static inline dab64_sides4 dab64_side_vectors(const dab_geom *g, uint64_t p) {
  dab64_sides4 v = {dab_pext64(p, g->side_mask[DAB_SIDE_TOP]), dab_pext64(p, g->side_mask[DAB_SIDE_BOTTOM]),
                    dab_pext64(p, g->side_mask[DAB_SIDE_LEFT]), dab_pext64(p, g->side_mask[DAB_SIDE_RIGHT])};
  return v;
}

/* Boxes with exactly three sides drawn (capturable coins), as a mask over
** box numbers: an odd number of sides, and at least one pair drawn. */
static inline uint64_t dab64_three_sided(const dab_geom *g, uint64_t p) {
  dab64_sides4 v = dab64_side_vectors(g, p);
  return (v.top ^ v.bottom ^ v.left ^ v.right) & ((v.top & v.bottom) | (v.left & v.right));
}

/* Mask of every box number. */
static inline uint64_t dab64_all_boxes(const dab_geom *g) {
  return g->nboxes >= 64 ? ~0ull : (1ull << g->nboxes) - 1;
}

/* Boxes with exactly two sides drawn: one pair of opposite sides both
** drawn and the other pair empty, or one side of each pair. */
static inline uint64_t dab64_two_sided_v(dab64_sides4 v) {
  uint64_t tb = v.top & v.bottom, lr = v.left & v.right, t1 = v.top ^ v.bottom, l1 = v.left ^ v.right;
  return (tb & ~lr & ~l1) | (lr & ~tb & ~t1) | (t1 & l1);
}

/* Boxes with all four sides drawn. */
static inline uint64_t dab64_complete_v(dab64_sides4 v) { return v.top & v.bottom & v.left & v.right; }

/* Every line that is a side of some box of `boxes` (a box mask): pdep
** puts box b's bit on the b-th line of each side mask, its side s. */
static inline uint64_t dab64_lines_of_boxes(const dab_geom *g, uint64_t boxes) {
  return dab_pdep64(boxes, g->side_mask[DAB_SIDE_TOP]) | dab_pdep64(boxes, g->side_mask[DAB_SIDE_BOTTOM]) |
         dab_pdep64(boxes, g->side_mask[DAB_SIDE_LEFT]) | dab_pdep64(boxes, g->side_mask[DAB_SIDE_RIGHT]);
}

/* Lines lying between two boxes of `boxes` (both neighbours in the mask). */
static inline uint64_t dab64_lines_between(const dab_geom *g, uint64_t boxes) {
  return (dab_pdep64(boxes, g->side_mask[DAB_SIDE_TOP]) & dab_pdep64(boxes, g->side_mask[DAB_SIDE_BOTTOM])) |
         (dab_pdep64(boxes, g->side_mask[DAB_SIDE_LEFT]) & dab_pdep64(boxes, g->side_mask[DAB_SIDE_RIGHT]));
}

/*
** Components in box space.  joined[s] (s in DAB_SIDE order: top, bottom,
** left, right) holds the open boxes whose side s is an undrawn line to
** another box (never an edge line, so the shifts of dab64_flood cannot
** wrap); dab64_flood grows box mask x through them to its whole component:
** a few word operations per step of the component's diameter.
*/
static inline void dab64_joined(const dab_geom *g, dab64_sides4 v, uint64_t open, uint64_t joined[4]) {
  joined[0] = ~v.top & open & ~g->edge_boxes[0];
  joined[1] = ~v.bottom & open & ~g->edge_boxes[1];
  joined[2] = ~v.left & open & ~g->edge_boxes[2];
  joined[3] = ~v.right & open & ~g->edge_boxes[3];
}

static inline uint64_t dab64_flood(const dab_geom *g, uint64_t x, const uint64_t joined[4]) {
  const unsigned cols = (unsigned)g->cols;
  uint64_t before;
  do {
    before = x;
    x |= (x & joined[0]) >> cols | (x & joined[1]) << cols | (x & joined[2]) >> 1 | (x & joined[3]) << 1;
  } while (x != before);
  return x;
}

/* ---- A game in progress (for play; solvers use bare line sets) -------- */

typedef struct dab_game {
  dab_lineset lines;
  int16_t score[2];                   /* boxes taken by player 0 and 1 */
  int8_t owner[DAB_MAX_BOXES];        /* -1 open, else 0/1; -2 unknown (parsed DBN) */
  uint8_t to_move;                    /* 0 = first player */
  int16_t nmoves;
} dab_game;

/* Starts an empty game on g. */
DAB_API void dab_game_init(const dab_geom *g, dab_game *game);

/*
** Plays line m for the player to move.  The turn passes unless the move
** completes a box.
** RETURN: boxes completed (0, 1, 2), or -1 if m is out of range or drawn
** (then nothing changes).
*/
DAB_API int dab_game_play(const dab_geom *g, dab_game *game, int m);

/* True when every line is drawn. */
static inline bool dab_game_over(const dab_geom *g, const dab_game *game) {
  return dab_ls_count(&game->lines) == g->nlines;
}

/* Fills moves[] with the undrawn lines in increasing order; returns count. */
DAB_API int dab_legal_moves(const dab_geom *g, const dab_lineset *s, int16_t *moves);

#endif
