/*
** tb_index.h: the tablebase index: a dense rank, per layer, of the quiet,
** border-normal positions of a board.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_TB_INDEX_H
#define DAB_TB_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include "game/board.h"

/*
** Which positions get an entry.  Of the 2^L line sets of a board only the
** *indexed* ones are stored:
**   - quiet: no box has exactly three sides (others are resolved at probe
**     time by the capture rule, see tb_probe.h);
**   - border-normal: in every box with >= 2 edge lines, the drawn edge
**     lines are the lowest-numbered ones (sym.h: only their count matters).
** Both conditions are per box, so a transfer-matrix count over "slices"
** of the board ranks them densely, layer by layer (layer = lines drawn).
**
** The board is cut into S slices of W boxes along its longer side (W =
** min(R,C)).  Slice j is bounded by W "boundary" lines B_j on one side and
** B_{j+1} on the other, and has W+1 "inner" lines I_j across it:
**
**     rows orientation (W = C):            B_j = horizontal row j
**        +--B--+--B--+--B--+   B_j         I_j = vertical row j
**        I     I     I     I   I_j     (columns orientation is the
**        +--B--+--B--+--B--+   B_j+1    transpose: B_j = vertical column j,
**                                        I_j = horizontal column j)
**
** Box i of slice j has lines B_j[i], B_{j+1}[i], I_j[i], I_j[i+1].  A
** position reads as b_0 = pext(p, B_0) followed by x_j = pext(p, I_j |
** B_{j+1}) for j = 0..S-1, and the index orders the indexed positions of
** one layer lexicographically by (b_0, x_0, ..., x_{S-1}).  Its rank is
**
**     rank(p) = P0[K][b_0] + sum_j T[j][b_j][k_j][x_j]
**
** where K = lines drawn, k_j = lines still to place in slices j.. after
** b_j, and T[j][b][k][x] counts the completions of all smaller valid x'.
** Each term is one pext and one table load: about 10 ns for 3x4.
*/

#define DAB_TBIDX_MAX_LINES 64 /* positions are uint64_t; a layer must also hold
                                  fewer than 2^32 entries (3x5 and 4x4 do) */
#define DAB_TBIDX_MAX_W 4      /* 2^(2W+1) x-values per slice */
#define DAB_TBIDX_MAX_S DAB_MAX_SIDE

typedef struct dab_tbidx {
  int nlines, W, S, nb, nx, nk; /* nb = 2^W, nx = 2^(2W+1), nk = nlines + 1 */
  bool columns;                 /* slices are columns (transposed orientation) */
  uint64_t bmask0;              /* B_0 */
  uint64_t xmask[DAB_TBIDX_MAX_S]; /* I_j | B_{j+1} */
  uint64_t layer_count[DAB_TBIDX_MAX_LINES + 1]; /* indexed positions per layer */
  uint64_t total;
  int nboxes;
  uint64_t box_mask[DAB_TBIDX_MAX_LINES], box_edge[DAB_TBIDX_MAX_LINES]; /* for _indexed */
  /* Tables (one allocation): */
  uint32_t *P0;     /* [k][b], nb + 1 columns: prefix counts over b_0 */
  uint32_t *T;      /* [j][b][k][x]: prefix counts over x_j */
  uint32_t *cnt;    /* [j][b][k][x]: completions below slice j with x_j = x (0 if invalid) */
  uint16_t *first;  /* [j][b][k][x]: least x' >= x with cnt > 0, nx if none; nx+1 columns */
  uint8_t *xnext;   /* [j][x]: b_{j+1} of x */
  uint8_t *xpop;    /* [x]: popcount */
} dab_tbidx;

/*
** Builds the index of board g.
** RETURN: DAB_OK; DAB_EBOARD when g has more than DAB_TBIDX_MAX_LINES lines,
** its shorter side exceeds DAB_TBIDX_MAX_W or a layer holds 2^32 entries
** or more (the rank tables are 32-bit: one table load per slice);
** DAB_ENOMEM.  On error
** nothing is allocated.
** NOTES: read-only afterwards, safe to share between threads.
*/
dab_status dab_tbidx_init(dab_tbidx *ix, const dab_geom *g, dab_err *err);
void dab_tbidx_free(dab_tbidx *ix);

/*
** Exact entries per layer of board g, without building the rank tables
** (so also for boards whose layers pass 2^32, e.g. 4x5): counts[k] for k
** = 0..nlines (room for nlines + 1).  border_normal false counts the
** quiet positions (no box with three sides), true the indexed ones.
** RETURN: DAB_OK; DAB_EBOARD (over 64 lines or a shorter side over
** DAB_TBIDX_MAX_W); DAB_ENOMEM.
*/
dab_status dab_tbidx_count(const dab_geom *g, bool border_normal, uint64_t *counts, dab_err *err);

/* True when p is indexed (quiet and border-normal). */
bool dab_tbidx_indexed(const dab_tbidx *ix, uint64_t p);

/* Rank of an indexed position p within its layer (popcount(p)).  For a
** position that is not indexed the result is meaningless. */
static inline uint64_t dab_tbidx_rank(const dab_tbidx *ix, uint64_t p) {
  int k = dab_popcount64(p);
  unsigned b = (unsigned)dab_pext64(p, ix->bmask0);
  uint64_t r = ix->P0[(size_t)k * (size_t)(ix->nb + 1) + b];
  k -= dab_popcount64(b);
  size_t nx = (size_t)ix->nx, nk = (size_t)ix->nk, nbk = (size_t)ix->nb * nk;
  for (int j = 0; j < ix->S; j++) {
    unsigned x = (unsigned)dab_pext64(p, ix->xmask[j]);
    r += ix->T[(((size_t)j * nbk) + (size_t)b * nk + (size_t)k) * nx + x];
    k -= ix->xpop[x];
    b = ix->xnext[(size_t)j * nx + x];
  }
  return r;
}

/*
** An odometer over the indexed positions of one layer in rank order.
** dab_tbidx_seek puts it at rank r of layer k (r < layer_count[k]);
** dab_tbidx_step advances it (do not step past the layer's last entry).
*/
typedef struct dab_tbidx_iter {
  uint64_t pos;
  int k;
  unsigned b0;
  unsigned x[DAB_TBIDX_MAX_S];
  int rem[DAB_TBIDX_MAX_S + 1]; /* lines left for slices j.. after b_j */
  unsigned b[DAB_TBIDX_MAX_S + 1];
} dab_tbidx_iter;

void dab_tbidx_seek(const dab_tbidx *ix, dab_tbidx_iter *it, int k, uint64_t r);
void dab_tbidx_step(const dab_tbidx *ix, dab_tbidx_iter *it);

#endif
