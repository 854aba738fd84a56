/*
** az_net.c: the BoxesZero policy-value network's weights and input planes (az_forward.c runs it).
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "agents/az.h"

size_t dab_az_net_size(int rows, int cols, int blocks, int filters, int vhidden, int vfilters) {
  size_t hw = (size_t)(2 * rows + 1) * (size_t)(2 * cols + 1);
  size_t F = (size_t)filters, L = (size_t)(rows * (cols + 1) + cols * (rows + 1));
  size_t n = F * 3 * 9 + F;
  n += (size_t)blocks * 2 * (F * F * 9 + F);
  n += 2 * F + 2 + L * 2 * hw + L;
  size_t VF = (size_t)vfilters;
  n += VF * F + VF + (size_t)vhidden * VF * hw + (size_t)vhidden + (size_t)vhidden + 1;
  return n;
}

dab_status dab_az_net_new(int rows, int cols, int blocks, int filters, int vhidden, int vfilters,
                          const float *weights, size_t n, dab_az_net **out, dab_err *err) {
  *out = NULL;
  if (rows < 1 || cols < 1 || rows > DAB_MAX_SIDE || cols > DAB_MAX_SIDE ||
      rows * (cols + 1) + cols * (rows + 1) > 64)
    return dab_fail(err, DAB_EINPUT, "az: board %dx%d: at most 64 lines", rows, cols);
  if (blocks < 0 || blocks > DAB_AZ_MAX_BLOCKS || filters < 1 || filters > 256 || vhidden < 1 ||
      vhidden > 1024 || vfilters < 1 || vfilters > 64)
    return dab_fail(err, DAB_EINPUT, "az: net blocks=%d filters=%d vhidden=%d vfilters=%d out of range",
                    blocks, filters, vhidden, vfilters);
  size_t want = dab_az_net_size(rows, cols, blocks, filters, vhidden, vfilters);
  if (n != want)
    return dab_fail(err, DAB_EINPUT, "az: %zu weights, a %dx%d net b=%d f=%d v=%d vf=%d has %zu", n, rows,
                    cols, blocks, filters, vhidden, vfilters, want);
  for (size_t i = 0; i < n; i++)
    if (!isfinite(weights[i])) return dab_fail(err, DAB_ECORRUPT, "az: weight %zu is not finite", i);
  dab_az_net *net = calloc(1, sizeof *net);
  if (!net || !(net->weights = malloc(n * sizeof *net->weights))) {
    free(net);
    return dab_fail(err, DAB_ENOMEM, "az: out of memory for the net");
  }
  memcpy(net->weights, weights, n * sizeof *weights);
  net->rows = rows;
  net->cols = cols;
  net->h = 2 * rows + 1;
  net->w = 2 * cols + 1;
  net->hw = net->h * net->w;
  net->nlines = rows * (cols + 1) + cols * (rows + 1);
  net->nboxes = rows * cols;
  net->blocks = blocks;
  net->filters = filters;
  net->vhidden = vhidden;
  net->vfilters = vfilters;
  net->nweights = n;
  size_t F = (size_t)filters, hw = (size_t)net->hw, L = (size_t)net->nlines;
  const float *p = net->weights;
#define TAKE(dst, k) (dst = p, p += (k))
  TAKE(net->stem_w, F * 27);
  TAKE(net->stem_b, F);
  for (int b = 0; b < 2 * blocks; b++) {
    TAKE(net->blk_w[b], F * F * 9);
    TAKE(net->blk_b[b], F);
  }
  TAKE(net->pconv_w, 2 * F);
  TAKE(net->pconv_b, 2);
  TAKE(net->pfc_w, L * 2 * hw);
  TAKE(net->pfc_b, L);
  TAKE(net->vconv_w, (size_t)vfilters * F);
  TAKE(net->vconv_b, (size_t)vfilters);
  TAKE(net->vfc1_w, (size_t)vhidden * (size_t)vfilters * hw);
  TAKE(net->vfc1_b, (size_t)vhidden);
  TAKE(net->vfc2_w, (size_t)vhidden);
  TAKE(net->vfc2_b, 1);
#undef TAKE
  int C = cols, R = rows;
  for (int r = 0; r <= R; r++)
    for (int c = 0; c < C; c++) net->line_cell[r * C + c] = (int16_t)(2 * r * net->w + 2 * c + 1);
  for (int r = 0; r < R; r++)
    for (int c = 0; c <= C; c++)
      net->line_cell[(R + 1) * C + r * (C + 1) + c] = (int16_t)((2 * r + 1) * net->w + 2 * c);
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) net->box_cell[r * C + c] = (int16_t)((2 * r + 1) * net->w + 2 * c + 1);
  *out = net;
  return DAB_OK;
}

void dab_az_net_free(dab_az_net *net) {
  if (!net) return;
  free(net->weights);
  free(net);
}

void dab_az_encode(const dab_az_net *net, const dab_geom *g, uint64_t p, int score_rel,
                   float *planes) {
  int hw = net->hw;
  memset(planes, 0, 2 * (size_t)hw * sizeof *planes);
  for (uint64_t f = p; f; f &= f - 1) planes[net->line_cell[__builtin_ctzll(f)]] = 1.0f;
  for (int b = 0; b < g->nboxes; b++)
    if ((p & g->box_mask[b]) == g->box_mask[b]) planes[hw + net->box_cell[b]] = 1.0f;
  float sc = (float)score_rel / (float)g->nboxes;
  for (int i = 0; i < hw; i++) planes[2 * hw + i] = sc;
}
