/*
** az_net.c: the BoxesZero policy-value network's forward pass in C.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "agents/az.h"

/*
** Activations are kept channel-major over the whole batch: act[c][n*hw+p].
** A 3x3 convolution is then one im2col matrix (9*in rows of nb*hw) and a
** plain matrix product whose inner loop runs over nb*hw contiguous floats.
*/
struct dab_az_scratch {
  int batch;
  float *a, *b, *t, *col;       /* [filters][batch*hw] x3, [9*filters][batch*hw] */
  float *ph, *vh;               /* policy [2][batch*hw], value [vfilters][batch*hw] */
};

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

dab_az_scratch *dab_az_scratch_new(const dab_az_net *net, int batch) {
  dab_az_scratch *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  size_t m = (size_t)batch * (size_t)net->hw, F = (size_t)(net->filters > 3 ? net->filters : 3);
  s->batch = batch;
  s->a = malloc(F * m * sizeof(float));
  s->b = malloc(F * m * sizeof(float));
  s->t = malloc(F * m * sizeof(float));
  s->col = malloc(9 * F * m * sizeof(float));
  s->ph = malloc(2 * m * sizeof(float));
  s->vh = malloc((size_t)net->vfilters * m * sizeof(float));
  if (!s->a || !s->b || !s->t || !s->col || !s->ph || !s->vh) {
    dab_az_scratch_free(s);
    return NULL;
  }
  return s;
}

void dab_az_scratch_free(dab_az_scratch *s) {
  if (!s) return;
  free(s->a);
  free(s->b);
  free(s->t);
  free(s->col);
  free(s->ph);
  free(s->vh);
  free(s);
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

/* Four floats in one SSE register (GCC's vector extension; x86-64's
** baseline has SSE2).  No FMA: a product and a sum, each rounded, as the
** scalar code rounds them. */
typedef float v4f __attribute__((vector_size(16)));
typedef int32_t v4i __attribute__((vector_size(16)));

static inline v4f load4(const float *p) {
  v4f v;
  memcpy(&v, p, sizeof v);
  return v;
}

static inline void store4(float *p, v4f v, bool relu) {
  if (relu) v = (v4f)((v4i)v & (v4i)(v > (v4f){0, 0, 0, 0}));
  memcpy(p, &v, sizeof v);
}

/*
** out[co][m] = bias[co] + sum_k w[co][k] * col[k][m] for k < K; relu.
** Four outputs at a time over tiles of 8 columns, the 32 sums held in
** registers: each column value loaded feeds four products, where one
** output at a time loaded and stored its sums for every k.  Every sum
** runs in k order, as before; a k whose four weights are all zero is
** skipped (a block's second convolution starts at zero), and a single
** zero weight adds 0 * x, which leaves the sum's value as it is.
*/
static void matmul(const float *w, const float *bias, const float *col, float *out, int co, int K,
                   int m, bool relu) {
  int o = 0;
  for (; o + 4 <= co; o += 4) {
    const float *w0 = w + (size_t)o * (size_t)K, *w1 = w0 + K, *w2 = w1 + K, *w3 = w2 + K;
    float *y0 = out + (size_t)o * (size_t)m, *y1 = y0 + m, *y2 = y1 + m, *y3 = y2 + m;
    v4f b0 = {bias[o], bias[o], bias[o], bias[o]}, b1 = {bias[o + 1], bias[o + 1], bias[o + 1], bias[o + 1]};
    v4f b2 = {bias[o + 2], bias[o + 2], bias[o + 2], bias[o + 2]};
    v4f b3 = {bias[o + 3], bias[o + 3], bias[o + 3], bias[o + 3]};
    int j = 0;
    for (; j + 8 <= m; j += 8) {
      v4f a0 = b0, a1 = b1, a2 = b2, a3 = b3, e0 = b0, e1 = b1, e2 = b2, e3 = b3;
      for (int k = 0; k < K; k++) {
        float c0 = w0[k], c1 = w1[k], c2 = w2[k], c3 = w3[k];
        if (c0 == 0.0f && c1 == 0.0f && c2 == 0.0f && c3 == 0.0f) continue;
        const float *x = col + (size_t)k * (size_t)m + j;
        v4f xl = load4(x), xh = load4(x + 4);
        a0 += c0 * xl, e0 += c0 * xh;
        a1 += c1 * xl, e1 += c1 * xh;
        a2 += c2 * xl, e2 += c2 * xh;
        a3 += c3 * xl, e3 += c3 * xh;
      }
      store4(y0 + j, a0, relu), store4(y0 + j + 4, e0, relu);
      store4(y1 + j, a1, relu), store4(y1 + j + 4, e1, relu);
      store4(y2 + j, a2, relu), store4(y2 + j + 4, e2, relu);
      store4(y3 + j, a3, relu), store4(y3 + j + 4, e3, relu);
    }
    for (; j < m; j++) {   /* the last m % 8 columns */
      float s0 = bias[o], s1 = bias[o + 1], s2 = bias[o + 2], s3 = bias[o + 3];
      for (int k = 0; k < K; k++) {
        float c0 = w0[k], c1 = w1[k], c2 = w2[k], c3 = w3[k];
        if (c0 == 0.0f && c1 == 0.0f && c2 == 0.0f && c3 == 0.0f) continue;
        float x = col[(size_t)k * (size_t)m + j];
        s0 += c0 * x, s1 += c1 * x, s2 += c2 * x, s3 += c3 * x;
      }
      y0[j] = relu && !(s0 > 0) ? 0 : s0;
      y1[j] = relu && !(s1 > 0) ? 0 : s1;
      y2[j] = relu && !(s2 > 0) ? 0 : s2;
      y3[j] = relu && !(s3 > 0) ? 0 : s3;
    }
  }
  for (; o < co; o++) {   /* the last co % 4 outputs, one at a time */
    float *y = out + (size_t)o * (size_t)m;
    for (int j = 0; j < m; j++) y[j] = bias[o];
    const float *wo = w + (size_t)o * (size_t)K;
    for (int k = 0; k < K; k++) {
      float wk = wo[k];
      if (wk == 0.0f) continue;
      const float *x = col + (size_t)k * (size_t)m;
      for (int j = 0; j < m; j++) y[j] += wk * x[j];
    }
    if (relu)
      for (int j = 0; j < m; j++) y[j] = y[j] > 0 ? y[j] : 0;
  }
}

/* im2col of in[ci][nb*hw] (zero padding) into col[ci*9][nb*hw]. */
static void im2col(const dab_az_net *net, const float *in, int ci, int nb, float *col) {
  int H = net->h, W = net->w, hw = net->hw;
  size_t m = (size_t)nb * (size_t)hw;
  for (int c = 0; c < ci; c++)
    for (int ky = 0; ky < 3; ky++)
      for (int kx = 0; kx < 3; kx++) {
        float *dst = col + ((size_t)c * 9 + (size_t)(ky * 3 + kx)) * m;
        const float *src = in + (size_t)c * m;
        int dy = ky - 1, dx = kx - 1;
        for (int n = 0; n < nb; n++) {
          const float *s = src + (size_t)n * (size_t)hw;
          float *d = dst + (size_t)n * (size_t)hw;
          for (int y = 0; y < H; y++) {
            int yy = y + dy;
            for (int x = 0; x < W; x++) {
              int xx = x + dx;
              d[y * W + x] = (yy >= 0 && yy < H && xx >= 0 && xx < W) ? s[yy * W + xx] : 0.0f;
            }
          }
        }
      }
}

void dab_az_forward(const dab_az_net *net, dab_az_scratch *s, int nb, const float *planes,
                    float *logits, float *value) {
  int F = net->filters, hw = net->hw, L = net->nlines;
  int m = nb * hw;
  /* Input planes arrive [n][plane][hw]: reorder to [plane][n*hw]. */
  for (int n = 0; n < nb; n++)
    for (int c = 0; c < DAB_AZ_PLANES; c++)
      memcpy(s->t + (size_t)c * (size_t)m + (size_t)n * (size_t)hw,
             planes + ((size_t)n * DAB_AZ_PLANES + (size_t)c) * (size_t)hw, (size_t)hw * sizeof(float));
  im2col(net, s->t, DAB_AZ_PLANES, nb, s->col);
  matmul(net->stem_w, net->stem_b, s->col, s->a, F, DAB_AZ_PLANES * 9, m, true);
  size_t fm = (size_t)F * (size_t)m;
  for (int b = 0; b < net->blocks; b++) {
    im2col(net, s->a, F, nb, s->col);
    matmul(net->blk_w[2 * b], net->blk_b[2 * b], s->col, s->b, F, F * 9, m, true);
    im2col(net, s->b, F, nb, s->col);
    matmul(net->blk_w[2 * b + 1], net->blk_b[2 * b + 1], s->col, s->t, F, F * 9, m, false);
    for (size_t i = 0; i < fm; i++) {
      float y = s->t[i] + s->a[i];
      s->a[i] = y > 0 ? y : 0;
    }
  }
  matmul(net->pconv_w, net->pconv_b, s->a, s->ph, 2, F, m, true);
  matmul(net->vconv_w, net->vconv_b, s->a, s->vh, net->vfilters, F, m, true);
  float hid[1024];
  for (int n = 0; n < nb; n++) {
    for (int l = 0; l < L; l++) {
      const float *wl = net->pfc_w + (size_t)l * 2 * (size_t)hw;
      float acc = net->pfc_b[l];
      for (int j = 0; j < 2; j++) {
        const float *x = s->ph + (size_t)j * (size_t)m + (size_t)n * (size_t)hw;
        const float *wj = wl + (size_t)j * (size_t)hw;
        for (int p = 0; p < hw; p++) acc += wj[p] * x[p];
      }
      logits[(size_t)n * (size_t)L + (size_t)l] = acc;
    }
    /* the value planes flattened channel by channel, as torch's flatten(1) */
    size_t vin = (size_t)net->vfilters * (size_t)hw;
    for (int v = 0; v < net->vhidden; v++) {
      const float *wv = net->vfc1_w + (size_t)v * vin;
      float acc = net->vfc1_b[v];
      for (int c = 0; c < net->vfilters; c++) {
        const float *x = s->vh + (size_t)c * (size_t)m + (size_t)n * (size_t)hw, *wc = wv + (size_t)c * (size_t)hw;
        for (int p = 0; p < hw; p++) acc += wc[p] * x[p];
      }
      hid[v] = acc > 0 ? acc : 0;
    }
    float acc = net->vfc2_b[0];
    for (int v = 0; v < net->vhidden; v++) acc += net->vfc2_w[v] * hid[v];
    value[n] = tanhf(acc);
  }
}
