/*
** sym.h: the symmetry group of a board acting on lines and positions, and
** canonical keys (optionally with the border-line equivalence).
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_SYM_H
#define DAB_SYM_H

#include "game/board.h"

/*
** A board of R x C boxes has 4 symmetries (identity, two mirrors, the
** half turn), and 8 when square (also the two diagonal mirrors and the
** quarter turns).  Each is a permutation of the lines, found by moving the
** two dots of every line:
**
**   t  name            dot (i,j) of the (R+1)x(C+1) grid goes to
**   0  identity        (i, j)
**   1  flip-rows       (R-i, j)          top <-> bottom
**   2  flip-cols       (i, C-j)          left <-> right
**   3  rot180          (R-i, C-j)
**   4  transpose       (j, i)            squares only
**   5  anti-transpose  (C-j, R-i)
**   6  rot90           (j, R-i)
**   7  rot270          (C-j, i)
**
** Border-line equivalence (Barker & Korf's corner rule, generalised): the
** undrawn edge lines of one box are strings from the same coin to the
** ground, so which of them are drawn does not matter, only how many.  The
** key keeps the drawn ones at the lowest ids.  Boxes with >= 2 edge lines
** are the corners (and every box of a 1xN board).
*/

#define DAB_SYM_MAX 8

typedef struct dab_sym {
  int ntrans;                               /* 4, or 8 for squares */
  int nlines;
  int16_t perm[DAB_SYM_MAX][DAB_MAX_LINES]; /* line l goes to perm[t][l] */
  int16_t inv[DAB_SYM_MAX][DAB_MAX_LINES];  /* inverse permutation */
  /* Fast path (nlines <= 64): image of byte k of a position. */
  int nbytes;
  uint64_t byte_image[DAB_SYM_MAX][8][256];
  int ngroups;                              /* boxes with >= 2 edge lines */
  uint64_t group[DAB_MAX_BOXES];            /* their edge lines */
} dab_sym;

/* Names of the transforms, for messages ("identity", "rot90", ...). */
const char *dab_sym_name(int t);

/*
** Builds the group of board g.  RETURN: a new table (free with
** dab_sym_free), or NULL with a message in err when out of memory.
** The table is read-only afterwards and safe to share between threads.
*/
dab_sym *dab_sym_new(const dab_geom *g, dab_err *err);
void dab_sym_free(dab_sym *s);

/* Image of position p under transform t (fast path). */
static inline uint64_t dab_sym_apply64(const dab_sym *s, int t, uint64_t p) {
  uint64_t r = 0;
  for (int k = 0; k < s->nbytes; k++) r |= s->byte_image[t][k][(p >> (8 * k)) & 0xff];
  return r;
}

/* Moves drawn border lines of each multi-edge box to its lowest ids. */
static inline uint64_t dab_sym_border_normal64(const dab_sym *s, uint64_t p) {
  for (int i = 0; i < s->ngroups; i++) {
    uint64_t grp = s->group[i];
    int n = dab_popcount64(p & grp);
    uint64_t low = dab_pdep64((1ull << n) - 1, grp);
    p = (p & ~grp) | low;
  }
  return p;
}

/*
** Canonical form of p: the least image over the group (with border
** equivalence applied to every image when border_equiv).  *t_out (may be
** NULL) gets the transform that produced it: a move m' in the canonical
** frame is move s->inv[t][m'] in p's frame.  Note with border_equiv the
** key names a class of positions, not one position.
*/
static inline uint64_t dab_sym_canon64(const dab_sym *s, uint64_t p, bool border_equiv,
                                       int *t_out) {
  uint64_t best = ~0ull;
  int bt = 0;
  for (int t = 0; t < s->ntrans; t++) {
    uint64_t q = dab_sym_apply64(s, t, p);
    if (border_equiv) q = dab_sym_border_normal64(s, q);
    if (q < best) { best = q; bt = t; }
  }
  if (t_out) *t_out = bt;
  return best;
}

/* Image of a line set of any size under t. */
void dab_sym_apply(const dab_sym *s, int t, const dab_lineset *in, dab_lineset *out);

#endif
