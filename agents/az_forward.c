/*
** az_forward.c: the BoxesZero net's forward pass and its scratch memory.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "agents/az.h"
#include "game/isa.h"

/*
** Built twice (game/isa.h, the Makefile's ISA_SRC): the forward pass is
** 99% of az self-play and of an az player's move, nearly all of it in the
** 3x3 convolutions' multiply-adds.  The base object keeps 4-float SSE
** vectors (x86-64's baseline); the x86-64-v3 one uses 8-float AVX2
** vectors, 2.1-2.7x the evaluations a second (bench/az_forward.c).  Both
** give the same bits: every output's sum runs in the same order (the
** bias, then k = 0, 1, ...), each product and sum rounded on its own (no
** FMA: -std=c11 contracts nothing, and the Makefile adds
** -ffp-contract=off for this file), and a vector lane is one such sum.
** dab_az_forward (in the base object) calls the variant the CPU has.
*/

/*
** Activations are kept channel-major over the whole batch: act[c][n*hw+p].
** A 3x3 convolution is then a matrix product of the weights and the
** im2col matrix (9*in rows of nb*hw), which is made and used a tile of TW
** columns at a time: col[k][0..TW) holds row k's columns j .. j+TW-1, so
** that a tile's inner loop reads TW contiguous floats a k, and its K*TW
** floats stay in L1 while every output reads them (a whole im2col matrix
** went out to L3 and back, and grew with the batch).  Tap (dy, dx) of
** column j is the activation at j + dy*w + dx, or 0 where that falls off
** the board: mask[tap][j] says which (it depends on j's cell only, and is
** 0 past batch*hw).  The activations have pad floats either side, which
** a tile reads (masked) where a tap or the last tile reaches past them;
** they are never written.
*/
struct dab_az_scratch {
  int batch;
  size_t pad;                   /* floats either side of a, b and t */
  float *a, *b, *t;             /* [filters][batch*hw] each, in mem[0..2] */
  float *col;                   /* a tile: [9*filters][AZ_TW_MAX], 64-byte aligned, in mem[3] */
  int32_t *mask;                /* [9][batch*hw + AZ_TW_MAX]: 0 or -1 */
  float *ph, *vh;               /* policy [2][batch*hw], value [vfilters][batch*hw] */
  void *mem[4];
};

/*
** A tile: GO outputs by GT vectors of VW columns, its GO*GT sums held in
** registers.  Each column vector loaded feeds GO products and each weight
** GT.  GO is 4 in both builds, as it was before them: a group skips the
** same k (its GO weights all zero) in each, so that even a sum that
** overflows (0 * inf is NaN, not 0) keeps its bits.  GT = 3 measured
** fastest on Zen 3 (GT = 2 was slower in most runs, 8 x 1 and 2 x 4
** slower still): 12 columns a tile in the base, 24 in the v3 object, the
** 16 registers holding 12 sums, 3 column vectors and a weight.
*/
#ifdef DAB_ISA_V3
#define VW 8
#else
#define VW 4
#endif
#define GO 4
#define GT 3
#define TW (GT * VW)   /* a tile's columns */
/* The widest tile of either build: the base object's scratch serves both. */
#define AZ_TW_MAX 24
_Static_assert(TW <= AZ_TW_MAX, "the scratch's tile and pads hold AZ_TW_MAX columns");

typedef float vf __attribute__((vector_size(VW * sizeof(float))));
typedef int32_t vi __attribute__((vector_size(VW * sizeof(float))));

/* x in every lane (the bias: exactly it, where 0 + x would make -0 +0). */
static inline vf splat(float x) {
  vf v;
  for (int i = 0; i < VW; i++) v[i] = x;
  return v;
}

static inline vf loadv(const float *p) {
  vf v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* The first n lanes of v at p (all VW when n >= VW: the last tile of a
** row may be short). */
static inline void store(float *p, vf v, int n) {
  if (n >= VW) {
    memcpy(p, &v, sizeof v);
    return;
  }
  float f[VW];
  memcpy(f, &v, sizeof v);
  for (int i = 0; i < n; i++) p[i] = f[i];
}

/* max(v, 0) lane by lane as the scalar code writes it: v > 0 ? v : 0
** (-0 and NaN give +0). */
static inline vf reluv(vf v) {
  return (vf)((vi)v & (vi)(v > (vf){0}));
}

static inline float relu1(float v) {
  return v > 0 ? v : 0;
}

/*
** Tile x of the GO outputs whose weight rows are wr: y[g][0 .. n) for n
** <= nv*VW columns, x holding nv vectors a k.  skip: test each k for GO
** zero weights.  Inlined with each constant nv and skip, so that a group
** without such a k tests none.
*/
static inline __attribute__((always_inline)) void tile(const float *const *wr, const float *bias,
                                                       const float *x, int K, float *const *y, int n,
                                                       bool relu, bool skip, const int nv) {
  vf acc[GO][GT];
  for (int g = 0; g < GO; g++)
    for (int t = 0; t < nv; t++) acc[g][t] = splat(bias[g]);
  for (int k = 0; k < K; k++, x += nv * VW) {
    float c[GO];
    for (int g = 0; g < GO; g++) c[g] = wr[g][k];
    bool zero = true;
    for (int g = 0; g < GO; g++) zero &= c[g] == 0.0f;
    if (skip && zero) continue;
    vf xv[GT];
    for (int t = 0; t < nv; t++) xv[t] = loadv(x + t * VW);
    for (int g = 0; g < GO; g++)
      for (int t = 0; t < nv; t++) acc[g][t] += c[g] * xv[t];
  }
  for (int g = 0; g < GO; g++)
    for (int t = 0; t < nv; t++) store(y[g] + t * VW, relu ? reluv(acc[g][t]) : acc[g][t], n - t * VW);
}

/* One output of tile x (nv vectors a k): y[0 .. n), its zero weights
** skipped. */
static void tile1(const float *w, float bias, const float *x, int K, float *y, int n, bool relu, int nv) {
  vf acc[GT];
  for (int t = 0; t < nv; t++) acc[t] = splat(bias);
  for (int k = 0; k < K; k++, x += nv * VW) {
    float c = w[k];
    if (c == 0.0f) continue;
    for (int t = 0; t < nv; t++) acc[t] += c * loadv(x + t * VW);
  }
  for (int t = 0; t < nv; t++) store(y + t * VW, relu ? reluv(acc[t]) : acc[t], n - t * VW);
}

/* The GO outputs of a tile of nv vectors (1 .. GT): tile with constant nv. */
static inline __attribute__((always_inline)) void tile_nv(const float *const *wr, const float *bias,
                                                          const float *x, int K, float *const *y, int n,
                                                          bool relu, bool skip, int nv) {
  switch (nv) {
  case GT: tile(wr, bias, x, K, y, n, relu, skip, GT); break;
#if GT > 2
  case 2: tile(wr, bias, x, K, y, n, relu, skip, 2); break;
#endif
#if GT > 1
  case 1: tile(wr, bias, x, K, y, n, relu, skip, 1); break;
#endif
  default: break;
  }
}

static inline vi loadvi(const int32_t *p) {
  vi v;
  memcpy(&v, p, sizeof v);
  return v;
}

/* The im2col tile of columns j .. j+nv*VW-1 of in[ci][m]: col[k][0 ..
** nv*VW), each float the activation a tap reads where the mask keeps it
** and +0 where it falls off the board. */
static void im2col(const float *in, int ci, size_t m, int W, size_t j, int nv, const int32_t *mask,
                   size_t mstride, float *col) {
  for (int c = 0; c < ci; c++) {
    const float *sp = in + (size_t)c * m + j;
    for (int tap = 0; tap < 9; tap++) {
      ptrdiff_t sh = (tap / 3 - 1) * W + tap % 3 - 1;
      const int32_t *mk = mask + (size_t)tap * mstride + j;
      for (int t = 0; t < nv; t++, col += VW) {
        vf v = (vf)((vi)loadv(sp + sh + t * VW) & loadvi(mk + t * VW));
        memcpy(col, &v, sizeof v);
      }
    }
  }
}

/*
** A 3x3 convolution, zero padded: out[co][m] = bias[co] + sum_k w[co][k]
** * im2col(in)[k][m] for k < K = 9*ci; relu.  Tile by tile: GO outputs at
** a time, then the last co % GO one at a time.  The last tile has the
** fewest vectors that hold its columns.  Every sum runs in k order; a k
** whose GO weights are all zero is skipped (a block's second convolution
** starts at zero), and a single zero weight adds 0 * x, which leaves the
** sum's value as it is (its sign aside, which the ReLU every output meets
** makes +0).
*/
static void conv3x3(const dab_az_net *net, const dab_az_scratch *s, const float *w, const float *bias,
                    const float *in, int ci, float *out, int co, int m, bool relu) {
  size_t M = (size_t)m, ms = (size_t)s->batch * (size_t)net->hw + AZ_TW_MAX;
  int K = 9 * ci;
  /* Groups with a k to skip: found once a call, not once a tile. */
  bool skip[256 / GO];
  int ng = co / GO;
  for (int q = 0; q < ng; q++) {
    const float *w0 = w + (size_t)q * GO * (size_t)K;
    int z = 0;
    for (int k = 0; k < K; k++) {
      int zk = 1;
      for (int g = 0; g < GO; g++) zk &= w0[(size_t)g * (size_t)K + (size_t)k] == 0.0f;
      z |= zk;
    }
    skip[q] = z;
  }
  for (size_t j = 0; j < M; j += TW) {
    int n = M - j < TW ? (int)(M - j) : TW, nv = (n + VW - 1) / VW;
    im2col(in, ci, M, net->w, j, nv, s->mask, ms, s->col);
    for (int q = 0; q < ng; q++) {
      const float *wr[GO];
      float *y[GO];
      for (int g = 0; g < GO; g++) {
        wr[g] = w + (size_t)(q * GO + g) * (size_t)K;
        y[g] = out + (size_t)(q * GO + g) * M + j;
      }
      if (skip[q])
        tile_nv(wr, bias + q * GO, s->col, K, y, n, relu, true, nv);
      else
        tile_nv(wr, bias + q * GO, s->col, K, y, n, relu, false, nv);
    }
    for (int o = ng * GO; o < co; o++)
      tile1(w + (size_t)o * (size_t)K, bias[o], s->col, K, out + (size_t)o * M + j, n, relu, nv);
  }
}

/* A 1x1 convolution (the heads'): out[co][m] = bias + sum_k w[co][k] *
** in[k][m]; relu.  One output at a time, GCC vectorising its loops over
** m; a k is skipped as conv3x3 skips it: where the weights of the
** output's group of GO are all zero (a single zero adds 0 * x), or, past
** the last whole group, where its own weight is. */
static void conv1x1(const float *w, const float *bias, const float *in, float *out, int co, int K,
                    int m, bool relu) {
  size_t M = (size_t)m;
  for (int o = 0; o < co; o++) {
    float *y = out + (size_t)o * M;
    for (size_t j = 0; j < M; j++) y[j] = bias[o];
    const float *wo = w + (size_t)o * (size_t)K;
    int g0 = o - o % GO, gn = g0 + GO <= co ? GO : 1;
    if (gn == 1) g0 = o;
    for (int k = 0; k < K; k++) {
      bool zero = true;
      for (int g = 0; g < gn; g++) zero &= w[(size_t)(g0 + g) * (size_t)K + (size_t)k] == 0.0f;
      if (zero) continue;
      float wk = wo[k];
      const float *x = in + (size_t)k * M;
      for (size_t j = 0; j < M; j++) y[j] += wk * x[j];
    }
    if (relu)
      for (size_t j = 0; j < M; j++) y[j] = relu1(y[j]);
  }
}

/*
** A linear layer (the heads'): out[i] = bias[i] + sum_j w[i][j] * x[j]
** for i < rows, x the concatenation of nseg segments xs[] of len floats
** each.  Each sum runs in j order; DOTS rows at a time, their sums
** interleaved, where one row's sum alone waits on each add before the
** next (3-4 cycles a float).
*/
#define DOTS 8
static void dots(const float *w, const float *bias, int rows, const float *const *xs, int nseg, int len,
                 float *out) {
  size_t n = (size_t)nseg * (size_t)len;
  int i = 0;
  for (; i + DOTS <= rows; i += DOTS) {
    const float *wi = w + (size_t)i * n;
    float acc[DOTS];
    for (int r = 0; r < DOTS; r++) acc[r] = bias[i + r];
    for (int sg = 0; sg < nseg; sg++, wi += len) {
      const float *x = xs[sg];
      for (int p = 0; p < len; p++)
        for (int r = 0; r < DOTS; r++) acc[r] += wi[(size_t)r * n + (size_t)p] * x[p];
    }
    for (int r = 0; r < DOTS; r++) out[i + r] = acc[r];
  }
  for (; i < rows; i++) {
    const float *wi = w + (size_t)i * n;
    float acc = bias[i];
    for (int sg = 0; sg < nseg; sg++, wi += len)
      for (int p = 0; p < len; p++) acc += wi[p] * xs[sg][p];
    out[i] = acc;
  }
}

void DAB_ISA_FN(dab_az_forward)(const dab_az_net *net, dab_az_scratch *s, int nb, const float *planes,
                                float *logits, float *value) {
  int F = net->filters, hw = net->hw, L = net->nlines;
  int m = nb * hw;
  /* Input planes arrive [n][plane][hw]: reorder to [plane][n*hw]. */
  for (int n = 0; n < nb; n++)
    for (int c = 0; c < DAB_AZ_PLANES; c++)
      memcpy(s->t + (size_t)c * (size_t)m + (size_t)n * (size_t)hw,
             planes + ((size_t)n * DAB_AZ_PLANES + (size_t)c) * (size_t)hw, (size_t)hw * sizeof(float));
  conv3x3(net, s, net->stem_w, net->stem_b, s->t, DAB_AZ_PLANES, s->a, F, m, true);
  size_t fm = (size_t)F * (size_t)m;
  for (int b = 0; b < net->blocks; b++) {
    conv3x3(net, s, net->blk_w[2 * b], net->blk_b[2 * b], s->a, F, s->b, F, m, true);
    conv3x3(net, s, net->blk_w[2 * b + 1], net->blk_b[2 * b + 1], s->b, F, s->t, F, m, false);
    for (size_t i = 0; i < fm; i++) s->a[i] = relu1(s->t[i] + s->a[i]);
  }
  conv1x1(net->pconv_w, net->pconv_b, s->a, s->ph, 2, F, m, true);
  conv1x1(net->vconv_w, net->vconv_b, s->a, s->vh, net->vfilters, F, m, true);
  float hid[1024];
  for (int n = 0; n < nb; n++) {
    const float *px[2], *vx[64];   /* position n's planes: policy, value (vfilters <= 64) */
    for (int j = 0; j < 2; j++) px[j] = s->ph + (size_t)j * (size_t)m + (size_t)n * (size_t)hw;
    for (int c = 0; c < net->vfilters; c++) vx[c] = s->vh + (size_t)c * (size_t)m + (size_t)n * (size_t)hw;
    dots(net->pfc_w, net->pfc_b, L, px, 2, hw, logits + (size_t)n * (size_t)L);
    /* the value planes flattened channel by channel, as torch's flatten(1) */
    dots(net->vfc1_w, net->vfc1_b, net->vhidden, vx, net->vfilters, hw, hid);
    for (int v = 0; v < net->vhidden; v++) hid[v] = relu1(hid[v]);
    float acc = net->vfc2_b[0];
    for (int v = 0; v < net->vhidden; v++) acc += net->vfc2_w[v] * hid[v];
    value[n] = tanhf(acc);
  }
}

#ifndef DAB_ISA_V3 /* the rest once, in the base object */
/* Not DAB_ISA_CALL: dab_isa_v3() passes over Zen 1 and 2 for their slow
** pext, which this file does not use; their AVX2 runs it fine. */
void dab_az_forward(const dab_az_net *net, dab_az_scratch *s, int nb, const float *planes,
                    float *logits, float *value) {
#if DAB_ISA_HAVE_V3
  if (dab_isa_v3_float()) {
    dab_az_forward_v3(net, s, nb, planes, logits, value);
    return;
  }
#endif
  dab_az_forward_base(net, s, nb, planes, logits, value);
}

dab_az_scratch *dab_az_scratch_new(const dab_az_net *net, int batch) {
  dab_az_scratch *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  size_t hw = (size_t)net->hw, m = (size_t)batch * hw, F = (size_t)(net->filters > 3 ? net->filters : 3);
  size_t ms = m + AZ_TW_MAX;
  s->batch = batch;
  s->pad = (size_t)net->w + 1 + AZ_TW_MAX;
  /* calloc: the pads are read, masked, and never written */
  for (int i = 0; i < 3; i++) s->mem[i] = calloc(F * m + 2 * s->pad, sizeof(float));
  /* tiles on cache lines (TW floats, 32 or 64 bytes); malloc, not
  ** aligned_alloc, which tests/failalloc.c does not fail */
  s->mem[3] = malloc(9 * F * AZ_TW_MAX * sizeof(float) + 63);
  s->mask = malloc(9 * ms * sizeof(int32_t));
  s->ph = malloc(2 * m * sizeof(float));
  s->vh = malloc((size_t)net->vfilters * m * sizeof(float));
  if (!s->mem[0] || !s->mem[1] || !s->mem[2] || !s->mem[3] || !s->mask || !s->ph || !s->vh) {
    dab_az_scratch_free(s);
    return NULL;
  }
  s->a = (float *)s->mem[0] + s->pad;
  s->b = (float *)s->mem[1] + s->pad;
  s->t = (float *)s->mem[2] + s->pad;
  s->col = (float *)(((uintptr_t)s->mem[3] + 63) & ~(uintptr_t)63);
  int H = net->h, W = net->w;
  for (int tap = 0; tap < 9; tap++) {
    int dy = tap / 3 - 1, dx = tap % 3 - 1;
    for (size_t j = 0; j < ms; j++) {
      int y = (int)(j % hw) / W + dy, x = (int)(j % hw) % W + dx;
      s->mask[(size_t)tap * ms + j] = j < m && y >= 0 && y < H && x >= 0 && x < W ? -1 : 0;
    }
  }
  return s;
}

void dab_az_scratch_free(dab_az_scratch *s) {
  if (!s) return;
  for (int i = 0; i < 4; i++) free(s->mem[i]);
  free(s->mask);
  free(s->ph);
  free(s->vh);
  free(s);
}
#endif
