/*
** nn.c: the network of seed paper 002: genotype decoding, forward pass, moves.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "agents/nn.h"

static int pad8(int n) { return (n + 7) & ~7; }

dab_status dab_nn_init(dab_nn *nn, const dab_geom *g, dab_err *err) {
  return dab_nn_init_shape(nn, g->nlines, g->nboxes, g->nlines, err);
}

dab_status dab_nn_init_shape(dab_nn *nn, int nin, int nhid, int nout, dab_err *err) {
  return dab_nn_init_deep(nn, nin, nhid, 0, nout, err);
}

dab_status dab_nn_init_deep(dab_nn *nn, int nin, int nhid, int nhid2, int nout, dab_err *err) {
  memset(nn, 0, sizeof *nn);
  if (nhid < 1 || nhid > DAB_NN_MAX_HIDDEN || nhid2 < 0 || nhid2 > DAB_NN_MAX_HIDDEN)
    return dab_fail(err, DAB_EINPUT, "hidden layers of 1 to %d units, not %d and %d", DAB_NN_MAX_HIDDEN,
                    nhid, nhid2);
  nn->nin = nin;
  nn->nhid = nhid;
  nn->nhid2 = nhid2;
  nn->nout = nout;
  nn->hpad = pad8(nhid);
  nn->h2pad = pad8(nhid2);
  nn->opad = pad8(nout);
  int lastpad = nhid2 ? nn->h2pad : nn->hpad;
  nn->w_ih = calloc((size_t)nn->nin * (size_t)nn->hpad, sizeof(float));
  nn->th_h = calloc((size_t)nn->hpad, sizeof(float));
  nn->w_ho = calloc((size_t)lastpad * (size_t)nn->opad, sizeof(float));
  nn->th_o = calloc((size_t)nn->opad, sizeof(float));
  if (nhid2) {
    nn->w_hh = calloc((size_t)nn->hpad * (size_t)nn->h2pad, sizeof(float));
    nn->th_h2 = calloc((size_t)nn->h2pad, sizeof(float));
  }
  if (!nn->w_ih || !nn->th_h || !nn->w_ho || !nn->th_o || (nhid2 && (!nn->w_hh || !nn->th_h2))) {
    dab_nn_free(nn);
    return dab_fail(err, DAB_ENOMEM, "out of memory for a %d-%d-%d network", nin, nhid, nout);
  }
  return DAB_OK;
}

void dab_nn_free(dab_nn *nn) {
  free(nn->w_ih);
  free(nn->th_h);
  free(nn->w_ho);
  free(nn->th_o);
  free(nn->w_hh);
  free(nn->th_h2);
  nn->w_ih = nn->th_h = nn->w_ho = nn->th_o = nn->w_hh = nn->th_h2 = NULL;
}

void dab_nn_copy(dab_nn *dst, const dab_nn *src) {
  int lastpad = src->nhid2 ? src->h2pad : src->hpad;
  memcpy(dst->w_ih, src->w_ih, (size_t)src->nin * (size_t)src->hpad * sizeof(float));
  memcpy(dst->th_h, src->th_h, (size_t)src->hpad * sizeof(float));
  memcpy(dst->w_ho, src->w_ho, (size_t)lastpad * (size_t)src->opad * sizeof(float));
  memcpy(dst->th_o, src->th_o, (size_t)src->opad * sizeof(float));
  if (src->nhid2) {
    memcpy(dst->w_hh, src->w_hh, (size_t)src->hpad * (size_t)src->h2pad * sizeof(float));
    memcpy(dst->th_h2, src->th_h2, (size_t)src->h2pad * sizeof(float));
  }
  dst->linear = src->linear;
}

float *dab_nn_weight(dab_nn *nn, int k) {
  int per_hidden = nn->nin + 1;
  if (k < nn->nhid * per_hidden) {
    int j = k / per_hidden, i = k % per_hidden;
    return i == nn->nin ? &nn->th_h[j] : &nn->w_ih[(size_t)i * (size_t)nn->hpad + (size_t)j];
  }
  k -= nn->nhid * per_hidden;
  if (k < nn->nhid2 * (nn->nhid + 1)) {
    int u = k / (nn->nhid + 1), j = k % (nn->nhid + 1);
    return j == nn->nhid ? &nn->th_h2[u] : &nn->w_hh[(size_t)j * (size_t)nn->h2pad + (size_t)u];
  }
  k -= nn->nhid2 * (nn->nhid + 1);
  int last = nn->nhid2 ? nn->nhid2 : nn->nhid;
  int m = k / (last + 1), j = k % (last + 1);
  return j == last ? &nn->th_o[m] : &nn->w_ho[(size_t)j * (size_t)nn->opad + (size_t)m];
}

void dab_nn_decode(dab_nn *nn, const uint16_t *genes) {
  int n = dab_nn_nweights(nn);
  for (int k = 0; k < n; k++) *dab_nn_weight(nn, k) = (float)dab_nn_gene_value(genes[k] & 1023);
}

float dab_nn_sigmoid(float z) { return 1.0f / (1.0f + expf(-z)); }

/*
** From the first hidden layer's pre-activations in hid: its sigmoids (in
** place), the second layer's (hid + hpad) where there is one, and the
** output pre-activations z in out.
*/
static void nn_upper(const dab_nn *nn, float *hid, float *out) {
  int nh = nn->nhid, op = nn->opad;
  for (int j = 0; j < nh; j++) hid[j] = dab_nn_sigmoid(hid[j]);
  const float *last = hid;
  int nlast = nh;
  if (nn->nhid2) {
    float *h2 = hid + nn->hpad;
    int n2 = nn->nhid2, p2 = nn->h2pad;
    for (int k = 0; k < p2; k++) h2[k] = -nn->th_h2[k];
    for (int j = 0; j < nh; j++) {
      const float *w = nn->w_hh + (size_t)j * (size_t)p2;
      float h = hid[j];
      for (int k = 0; k < p2; k++) h2[k] += w[k] * h;
    }
    for (int k = 0; k < n2; k++) h2[k] = dab_nn_sigmoid(h2[k]);
    last = h2;
    nlast = n2;
  }
  for (int m = 0; m < op; m++) out[m] = -nn->th_o[m];
  for (int j = 0; j < nlast; j++) {
    const float *w = nn->w_ho + (size_t)j * (size_t)op;
    float h = last[j];
    for (int m = 0; m < op; m++) out[m] += w[m] * h;
  }
}

/* The first hidden layer's pre-activations for the drawn lines of p. */
static inline void nn_input64(const dab_nn *nn, uint64_t p, float *hid) {
  int hp = nn->hpad;
  for (int j = 0; j < hp; j++) hid[j] = -nn->th_h[j];
  for (; p; p &= p - 1) {
    const float *w = nn->w_ih + (size_t)__builtin_ctzll(p) * (size_t)hp;
    for (int j = 0; j < hp; j++) hid[j] += w[j];
  }
}

/* An output's score: its sigmoid, or z itself for a linear net. */
static inline float nn_score(const dab_nn *nn, float z) { return nn->linear ? z : dab_nn_sigmoid(z); }

void dab_nn_forward64(const dab_nn *nn, uint64_t p, float *hid, float *out) {
  nn_input64(nn, p, hid);
  nn_upper(nn, hid, out);
  for (int m = 0; m < nn->nout; m++) out[m] = nn_score(nn, out[m]);
}

void dab_nn_forward(const dab_nn *nn, const dab_lineset *s, float *hid, float *out) {
  int hp = nn->hpad;
  for (int j = 0; j < hp; j++) hid[j] = -nn->th_h[j];
  for (int wd = 0; wd * 64 < nn->nin; wd++)
    for (uint64_t p = s->w[wd]; p; p &= p - 1) {
      const float *w = nn->w_ih + (size_t)(wd * 64 + __builtin_ctzll(p)) * (size_t)hp;
      for (int j = 0; j < hp; j++) hid[j] += w[j];
    }
  nn_upper(nn, hid, out);
  for (int m = 0; m < nn->nout; m++) out[m] = nn_score(nn, out[m]);
}

uint64_t dab_nn_best64(const dab_nn *nn, uint64_t p, uint64_t legal) {
  float hid[2 * DAB_NN_MAX_HIDDEN + 16], pre[72];
  nn_input64(nn, p, hid);
  nn_upper(nn, hid, pre);
  float best = -INFINITY;
  uint64_t set = 0;
  for (uint64_t q = legal; q; q &= q - 1) {
    int m = __builtin_ctzll(q);
    float y = nn_score(nn, pre[m]);
    if (y > best) {
      best = y;
      set = 0;
    }
    if (y == best) set |= q & -q;
  }
  return set ? set : legal; /* NaN outputs: every legal line ties */
}

int dab_nn_move64(const dab_nn *nn, uint64_t p, uint64_t legal, dab_rng *rng) {
  uint64_t set = dab_nn_best64(nn, p, legal);
  int k = dab_rng_below(rng, __builtin_popcountll(set));
  return __builtin_ctzll(dab_pdep64(1ull << k, set));
}

int dab_nn_move(const dab_nn *nn, const dab_geom *g, const dab_lineset *s, dab_rng *rng) {
  if (g->nlines <= 64 && nn->nout <= 64) {
    uint64_t p = dab_ls_word(s);
    uint64_t legal = g->all_lines & ~p;
    return legal ? dab_nn_move64(nn, p, legal, rng) : -1;
  }
  float *hid = malloc(sizeof(float) * (size_t)(nn->hpad + nn->h2pad + nn->opad));
  if (!hid) return -1;
  float *out = hid + nn->hpad + nn->h2pad;
  dab_nn_forward(nn, s, hid, out);
  float best = -INFINITY;
  int nbest = 0;
  int16_t tied[DAB_MAX_LINES];
  for (int m = 0; m < g->nlines; m++) {
    if (dab_ls_has(s, m)) continue;
    if (out[m] > best) {
      best = out[m];
      nbest = 0;
    }
    if (out[m] == best) tied[nbest++] = (int16_t)m;
  }
  if (!nbest)
    for (int m = 0; m < g->nlines; m++)
      if (!dab_ls_has(s, m)) tied[nbest++] = (int16_t)m;
  free(hid);
  return nbest ? tied[dab_rng_below(rng, nbest)] : -1;
}

void dab_nn_level1_genes(const dab_geom *g, uint16_t *genes) {
  int nin = g->nlines, nh = g->nboxes, k = 0;
  for (int j = 0; j < nh; j++) {
    for (int i = 0; i < nin; i++) {
      bool own = false;
      for (int s = 0; s < 4; s++) own |= g->box_line[j][s] == i;
      genes[k++] = own ? 696 : 511;
    }
    genes[k++] = 1023;
  }
  for (int m = 0; m < nin; m++) {
    for (int j = 0; j < nh; j++) genes[k++] = (g->line_box[m][0] == j || g->line_box[m][1] == j) ? 1023 : 512;
    genes[k++] = 831;
  }
}
