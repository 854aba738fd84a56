/*
** tb_index.c: building the rank tables of the tablebase index.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "tablebase/tb_index.h"

/* Boxes of slice j, and the per-box test: quiet and border-normal. */
typedef struct slice_boxes {
  int n;
  uint64_t mask[DAB_TBIDX_MAX_W];  /* the four lines of each box */
  uint64_t edge[DAB_TBIDX_MAX_W];  /* its edge lines when it has >= 2, else 0 */
} slice_boxes;

static bool box_ok(uint64_t p, uint64_t mask, uint64_t edge) {
  if (dab_popcount64(p & mask) == 3) return false;
  if (edge) {
    int n = dab_popcount64(p & edge);
    if ((p & edge) != dab_pdep64((1ull << n) - 1, edge)) return false;
  }
  return true;
}

bool dab_tbidx_indexed(const dab_tbidx *ix, uint64_t p) {
  for (int i = 0; i < ix->nboxes; i++)
    if (!box_ok(p, ix->box_mask[i], ix->box_edge[i])) return false;
  return true;
}

static size_t tix(const dab_tbidx *ix, int j, unsigned b, int k, unsigned x) {
  return (((size_t)j * (size_t)ix->nb + b) * (size_t)ix->nk + (size_t)k) * (size_t)ix->nx + x;
}

/* The slices of board g (see tb_index.h): boundary masks B_j, the
** masks I_j | B_{j+1}, and the boxes of each slice with their edge lines
** (only when border_normal; else no box has the border condition). */
typedef struct slicing {
  bool columns;
  int W, S;
  uint64_t bmask[DAB_TBIDX_MAX_S + 1], xmask[DAB_TBIDX_MAX_S];
  slice_boxes sb[DAB_TBIDX_MAX_S];
} slicing;

static void slice_board(const dab_geom *g, bool border_normal, slicing *s) {
  memset(s, 0, sizeof *s);
  int R = g->rows, C = g->cols;
  s->columns = C > R;
  s->W = s->columns ? R : C;
  s->S = s->columns ? C : R;
  int W = s->W, S = s->S;
  for (int j = 0; j <= S; j++)
    for (int i = 0; i < W; i++) {
      /* rows: B_j[i] = h(j,i); columns: B_j[i] = v(i,j) */
      int m = s->columns ? g->nhoriz + i * (C + 1) + j : j * C + i;
      s->bmask[j] |= 1ull << m;
    }
  for (int j = 0; j < S; j++) {
    uint64_t inner = 0;
    for (int i = 0; i <= W; i++) {
      /* rows: I_j[i] = v(j,i); columns: I_j[i] = h(i,j) */
      int m = s->columns ? i * C + j : g->nhoriz + j * (C + 1) + i;
      inner |= 1ull << m;
    }
    s->xmask[j] = inner | s->bmask[j + 1];
    s->sb[j].n = W;
    for (int i = 0; i < W; i++) {
      int box = s->columns ? i * C + j : j * C + i;
      s->sb[j].mask[i] = g->box_mask[box];
      if (border_normal && g->box_border[box] >= 2)
        for (int k = 0; k < 4; k++) {
          int m = g->box_line[box][k];
          if (g->line_box[m][1] < 0) s->sb[j].edge[i] |= 1ull << m;
        }
    }
  }
}

dab_status dab_tbidx_count(const dab_geom *g, bool border_normal, uint64_t *counts, dab_err *err) {
  if (!dab_geom_fast(g) || (g->rows < g->cols ? g->rows : g->cols) > DAB_TBIDX_MAX_W)
    return dab_fail(err, DAB_EBOARD, "board %dx%d: beyond the tablebase index", g->rows, g->cols);
  slicing s;
  slice_board(g, border_normal, &s);
  size_t nb = (size_t)1 << s.W, nx = (size_t)1 << (2 * s.W + 1), nk = (size_t)g->nlines + 1;
  uint64_t *f = calloc(nb * nk * 2, sizeof *f);
  if (!f) return dab_fail(err, DAB_ENOMEM, "out of memory counting the index");
  uint64_t *below = f, *here = f + nb * nk;
  for (size_t b = 0; b < nb; b++) below[b * nk] = 1;
  for (int j = s.S - 1; j >= 0; j--) {
    memset(here, 0, nb * nk * sizeof *here);
    for (unsigned b = 0; b < nb; b++) {
      uint64_t pb = dab_pdep64(b, s.bmask[j]);
      for (unsigned x = 0; x < nx; x++) {
        uint64_t p = pb | dab_pdep64(x, s.xmask[j]);
        bool ok = true;
        for (int i = 0; i < s.sb[j].n && ok; i++) ok = box_ok(p, s.sb[j].mask[i], s.sb[j].edge[i]);
        if (!ok) continue;
        size_t nbx = dab_pext64(p, s.bmask[j + 1]);
        int px = __builtin_popcount(x);
        for (size_t k = (size_t)px; k < nk; k++) here[b * nk + k] += below[nbx * nk + k - (size_t)px];
      }
    }
    uint64_t *t = below;
    below = here;
    here = t;
  }
  for (size_t k = 0; k < nk; k++) {
    counts[k] = 0;
    for (size_t b = 0; b < nb; b++) {
      size_t pb = (size_t)__builtin_popcount((unsigned)b);
      if (k >= pb) counts[k] += below[b * nk + k - pb];
    }
  }
  free(f);
  return DAB_OK;
}

dab_status dab_tbidx_init(dab_tbidx *ix, const dab_geom *g, dab_err *err) {
  memset(ix, 0, sizeof *ix);
  int R = g->rows, C = g->cols;
  if (g->nlines > DAB_TBIDX_MAX_LINES)
    return dab_fail(err, DAB_EBOARD, "board %dx%d: tablebases cover boards of at most %d lines",
                    R, C, DAB_TBIDX_MAX_LINES);
  if ((R < C ? R : C) > DAB_TBIDX_MAX_W)
    return dab_fail(err, DAB_EBOARD, "board %dx%d: the tablebase index needs a side of at most %d",
                    R, C, DAB_TBIDX_MAX_W);
  slicing sl;
  slice_board(g, true, &sl);
  ix->columns = sl.columns;
  ix->W = sl.W;
  ix->S = sl.S;
  ix->nlines = g->nlines;
  ix->nb = 1 << ix->W;
  ix->nx = 1 << (2 * ix->W + 1);
  ix->nk = g->nlines + 1;
  int W = ix->W, S = ix->S;
  const uint64_t *bmask = sl.bmask;
  const slice_boxes *sb = sl.sb;
  for (int j = 0; j < S; j++) {
    ix->xmask[j] = sl.xmask[j];
    for (int i = 0; i < W; i++) {
      ix->box_mask[ix->nboxes] = sb[j].mask[i];
      ix->box_edge[ix->nboxes++] = sb[j].edge[i];
    }
  }
  ix->bmask0 = bmask[0];

  size_t nb = (size_t)ix->nb, nx = (size_t)ix->nx, nk = (size_t)ix->nk;
  size_t ncell = (size_t)S * nb * nk * nx;
  size_t bytes = nk * (nb + 1) * 4 + ncell * 4 * 2 + (size_t)S * nb * nk * (nx + 1) * 2 +
                 (size_t)S * nx + nx;
  char *mem = calloc(1, bytes);
  if (!mem) return dab_fail(err, DAB_ENOMEM, "out of memory for the tablebase index (%zu bytes)", bytes);
  ix->P0 = (uint32_t *)mem;
  ix->T = ix->P0 + nk * (nb + 1);
  ix->cnt = ix->T + ncell;
  ix->first = (uint16_t *)(ix->cnt + ncell);
  ix->xnext = (uint8_t *)(ix->first + (size_t)S * nb * nk * (nx + 1));
  ix->xpop = ix->xnext + (size_t)S * nx;

  for (unsigned x = 0; x < nx; x++) ix->xpop[x] = (uint8_t)__builtin_popcount(x);
  for (int j = 0; j < S; j++)
    for (unsigned x = 0; x < nx; x++) {
      uint64_t p = dab_pdep64(x, ix->xmask[j]);
      ix->xnext[(size_t)j * nx + x] = (uint8_t)dab_pext64(p, bmask[j + 1]);
    }

  /* f[b][k] for the slice below, from the last slice up (f of S is k == 0). */
  uint64_t *f = calloc(nb * nk * 2, sizeof *f);
  if (!f) {
    free(mem);
    memset(ix, 0, sizeof *ix); /* the caller's dab_tbidx_free must not free mem again */
    return dab_fail(err, DAB_ENOMEM, "out of memory for the tablebase index");
  }
  uint64_t *fbelow = f, *fhere = f + nb * nk;
  for (size_t b = 0; b < nb; b++) fbelow[b * nk + 0] = 1;
  dab_status st = DAB_OK;
  for (int j = S - 1; j >= 0; j--) {
    memset(fhere, 0, nb * nk * sizeof *fhere);
    for (unsigned b = 0; b < nb; b++) {
      uint64_t pb = dab_pdep64(b, bmask[j]);
      for (unsigned x = 0; x < nx; x++) {
        uint64_t p = pb | dab_pdep64(x, ix->xmask[j]);
        bool ok = true;
        for (int i = 0; i < sb[j].n && ok; i++) ok = box_ok(p, sb[j].mask[i], sb[j].edge[i]);
        if (!ok) continue;
        unsigned nbx = ix->xnext[(size_t)j * nx + x];
        int px = ix->xpop[x];
        for (int k = px; k < (int)nk; k++) {
          uint64_t c = fbelow[nbx * nk + (size_t)(k - px)];
          if (c > UINT32_MAX) st = DAB_EBOARD;
          ix->cnt[tix(ix, j, b, k, x)] = (uint32_t)c;
          fhere[b * nk + (size_t)k] += c;
        }
      }
      for (int k = 0; k < (int)nk; k++) {
        uint64_t run = 0;
        for (unsigned x = 0; x < nx; x++) {
          if (run > UINT32_MAX) st = DAB_EBOARD;
          ix->T[tix(ix, j, b, k, x)] = (uint32_t)run;
          run += ix->cnt[tix(ix, j, b, k, x)];
        }
        uint16_t *fi = ix->first + ((((size_t)j * nb + b) * nk + (size_t)k) * (nx + 1));
        fi[nx] = (uint16_t)nx;
        for (size_t x = nx; x-- > 0;) fi[x] = ix->cnt[tix(ix, j, b, k, (unsigned)x)] ? (uint16_t)x : fi[x + 1];
      }
    }
    uint64_t *t = fbelow;
    fbelow = fhere;
    fhere = t;
  }
  /* fbelow is now f of slice 0. */
  for (int k = 0; k < (int)nk; k++) {
    uint64_t run = 0;
    for (unsigned b = 0; b < nb; b++) {
      ix->P0[(size_t)k * (nb + 1) + b] = (uint32_t)run;
      int pb = __builtin_popcount(b);
      if (k >= pb) run += fbelow[b * nk + (size_t)(k - pb)];
    }
    if (run > UINT32_MAX) st = DAB_EBOARD;
    ix->P0[(size_t)k * (nb + 1) + nb] = (uint32_t)run;
    ix->layer_count[k] = run;
    ix->total += run;
  }
  free(f);
  if (st) {
    free(mem);
    memset(ix, 0, sizeof *ix);
    return dab_fail(err, st, "board %dx%d: a layer has 2^32 or more positions: beyond the 32-bit rank tables", R, C);
  }
  return DAB_OK;
}

void dab_tbidx_free(dab_tbidx *ix) {
  if (ix && ix->P0) free(ix->P0);
  if (ix) memset(ix, 0, sizeof *ix);
}

/* Fills slices j.. of it with their least valid x, given b[j] and rem[j]. */
static void fill_from(const dab_tbidx *ix, dab_tbidx_iter *it, int j) {
  size_t nx = (size_t)ix->nx;
  for (; j < ix->S; j++) {
    const uint16_t *fi =
        ix->first + ((((size_t)j * (size_t)ix->nb + it->b[j]) * (size_t)ix->nk + (size_t)it->rem[j]) * (nx + 1));
    unsigned x = fi[0];
    it->x[j] = x;
    it->rem[j + 1] = it->rem[j] - ix->xpop[x];
    it->b[j + 1] = ix->xnext[(size_t)j * nx + x];
  }
}

static void compose(const dab_tbidx *ix, dab_tbidx_iter *it) {
  uint64_t p = dab_pdep64(it->b0, ix->bmask0);
  for (int j = 0; j < ix->S; j++) p |= dab_pdep64(it->x[j], ix->xmask[j]);
  it->pos = p;
}

void dab_tbidx_seek(const dab_tbidx *ix, dab_tbidx_iter *it, int k, uint64_t r) {
  size_t nb = (size_t)ix->nb, nx = (size_t)ix->nx;
  const uint32_t *p0 = ix->P0 + (size_t)k * (nb + 1);
  unsigned b = 0;
  while (b + 1 < nb && p0[b + 1] <= r) b++;
  r -= p0[b];
  it->k = k;
  it->b0 = b;
  it->b[0] = b;
  it->rem[0] = k - __builtin_popcount(b);
  for (int j = 0; j < ix->S; j++) {
    size_t base = tix(ix, j, it->b[j], it->rem[j], 0);
    unsigned x = 0;
    /* The last x with T <= r is the one whose completions hold rank r. */
    while (x + 1 < nx && ix->T[base + x + 1] <= r) x++;
    r -= ix->T[base + x];
    it->x[j] = x;
    it->rem[j + 1] = it->rem[j] - ix->xpop[x];
    it->b[j + 1] = ix->xnext[(size_t)j * nx + x];
  }
  compose(ix, it);
}

void dab_tbidx_step(const dab_tbidx *ix, dab_tbidx_iter *it) {
  size_t nx = (size_t)ix->nx, nb = (size_t)ix->nb, nk = (size_t)ix->nk;
  for (int j = ix->S - 1; j >= 0; j--) {
    const uint16_t *fi = ix->first + ((((size_t)j * nb + it->b[j]) * nk + (size_t)it->rem[j]) * (nx + 1));
    unsigned x = fi[it->x[j] + 1];
    if (x < nx) {
      it->x[j] = x;
      it->rem[j + 1] = it->rem[j] - ix->xpop[x];
      it->b[j + 1] = ix->xnext[(size_t)j * nx + x];
      fill_from(ix, it, j + 1);
      compose(ix, it);
      return;
    }
  }
  /* Next b_0 with completions. */
  const uint32_t *p0 = ix->P0 + (size_t)it->k * (nb + 1);
  unsigned b = it->b0 + 1;
  while (b < nb && p0[b + 1] == p0[b]) b++;
  if (b >= nb) return; /* past the end: caller's error */
  it->b0 = b;
  it->b[0] = b;
  it->rem[0] = it->k - __builtin_popcount(b);
  fill_from(ix, it, 0);
  compose(ix, it);
}
