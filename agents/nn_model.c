/*
** nn_model.c: network model files and the nn:FILE player.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "agents/agent.h"
#include "agents/nn.h"

/*
** Payload: "NNW1", then uint32 nin, nhid, nout (the paper's shape, sigmoid
** outputs), or "NNW2", then uint32 nin, nhid, nhid2, nout, flags (bit 0:
** linear outputs) for a net beyond the paper; then every weight in
** genotype order as the little-endian bits of an IEEE float.
*/
#define NN_MAGIC1 "NNW1"
#define NN_MAGIC2 "NNW2"

static void put32(unsigned char *b, uint32_t x) {
  for (int i = 0; i < 4; i++) b[i] = (unsigned char)(x >> (8 * i));
}
static uint32_t get32(const unsigned char *b) {
  uint32_t x = 0;
  for (int i = 0; i < 4; i++) x |= (uint32_t)b[i] << (8 * i);
  return x;
}

dab_status dab_nn_save(const char *path, dab_nn *nn, const dab_geom *g, const char *params,
                       dab_err *err) {
  int nw = dab_nn_nweights(nn);
  bool v2 = nn->nhid2 || nn->linear;
  size_t hdr = v2 ? 24 : 16, n = hdr + 4 * (size_t)nw;
  unsigned char *buf = malloc(n);
  if (!buf) return dab_fail(err, DAB_ENOMEM, "out of memory writing %s", path);
  memcpy(buf, v2 ? NN_MAGIC2 : NN_MAGIC1, 4);
  put32(buf + 4, (uint32_t)nn->nin);
  put32(buf + 8, (uint32_t)nn->nhid);
  if (v2) {
    put32(buf + 12, (uint32_t)nn->nhid2);
    put32(buf + 16, (uint32_t)nn->nout);
    put32(buf + 20, nn->linear ? 1u : 0u);
  } else {
    put32(buf + 12, (uint32_t)nn->nout);
  }
  for (int k = 0; k < nw; k++) {
    uint32_t bits;
    memcpy(&bits, dab_nn_weight(nn, k), 4);
    put32(buf + hdr + 4 * (size_t)k, bits);
  }
  dab_model_header h;
  memset(&h, 0, sizeof h);
  h.rows = g->rows;
  h.cols = g->cols;
  snprintf(h.kind, sizeof h.kind, "nn");
  if (strlen(params) > DAB_MODEL_PARAMS) {
    free(buf);
    return dab_fail(err, DAB_EINPUT, "%s: training parameters too long", path);
  }
  snprintf(h.params, sizeof h.params, "%s", params);
  dab_status st = dab_model_write(path, &h, buf, n, err);
  free(buf);
  return st;
}

dab_status dab_nn_load(const char *path, const dab_geom *g, dab_nn *nn, dab_model_header *h,
                       dab_err *err) {
  void *payload = NULL;
  size_t n = 0, hdr = 16;
  memset(nn, 0, sizeof *nn);
  dab_status st = dab_model_read(path, "nn", h, &payload, &n, err);
  if (st) return st;
  st = dab_model_check_board(path, h, g, err);
  const unsigned char *b = payload;
  bool v2 = n >= 24 && memcmp(b, NN_MAGIC2, 4) == 0;
  if (!st && !v2 && (n < 16 || memcmp(b, NN_MAGIC1, 4) != 0))
    st = dab_fail(err, DAB_ECORRUPT, "%s: not a network payload", path);
  if (!st) {
    uint32_t nin = get32(b + 4), nhid = get32(b + 8), nhid2 = 0, nout = get32(b + 12), flags = 0;
    if (v2) {
      hdr = 24;
      nhid2 = nout;
      nout = get32(b + 16);
      flags = get32(b + 20);
    }
    if (nin != (uint32_t)g->nlines || nout != (uint32_t)g->nlines || nhid < 1 ||
        nhid > DAB_NN_MAX_HIDDEN || nhid2 > DAB_NN_MAX_HIDDEN || flags > 1)
      st = dab_fail(err, DAB_ECORRUPT, "%s: a %u-%u-%u-%u network (flags %u) does not fit %dx%d", path,
                    nin, nhid, nhid2, nout, flags, g->rows, g->cols);
    else
      st = dab_nn_init_deep(nn, (int)nin, (int)nhid, (int)nhid2, (int)nout, err);
    if (!st) nn->linear = flags & 1;
  }
  if (!st && n != hdr + 4 * (size_t)dab_nn_nweights(nn))
    st = dab_fail(err, DAB_ECORRUPT, "%s: payload of %zu bytes, the network needs %zu", path, n,
                  hdr + 4 * (size_t)dab_nn_nweights(nn));
  for (int k = 0; !st && k < dab_nn_nweights(nn); k++) {
    uint32_t bits = get32(b + hdr + 4 * (size_t)k);
    float w;
    memcpy(&w, &bits, 4);
    if (!isfinite(w)) st = dab_fail(err, DAB_ECORRUPT, "%s: weight %d is not finite", path, k);
    else *dab_nn_weight(nn, k) = w;
  }
  free(payload);
  if (st) dab_nn_free(nn);
  return st;
}

/* ---- The player ----------------------------------------------------------- */

static int nn_player_move(void *ctx, const dab_geom *g, const dab_game *game, dab_rng *rng) {
  return dab_nn_move(ctx, g, &game->lines, rng);
}

static void nn_player_free(void *ctx) {
  dab_nn_free(ctx);
  free(ctx);
}

dab_status dab_nn_player(const dab_nn *nn, const char *name, const dab_geom *g, bool owned,
                         dab_player **out, dab_err *err) {
  if (owned) return dab_agent_player(name, g, nn_player_move, (void *)nn, nn_player_free, out, err);
  return dab_player_custom(name, g, nn_player_move, (void *)nn, out, err);
}

dab_status dab_agent_player_nn(void *ctx, const char *args, const dab_geom *g, dab_player_env *env,
                               dab_player **out, dab_err *err) {
  (void)ctx;
  (void)env;
  *out = NULL;
  char path[4096];
  const char *rest;
  dab_status st = dab_agent_args("nn", args, path, sizeof path, &rest, err);
  if (st) return st;
  if (*rest) return dab_fail(err, DAB_EINPUT, "player 'nn' takes no options, got '%s'", rest);
  dab_nn *nn = malloc(sizeof *nn);
  dab_model_header *h = malloc(sizeof *h);
  if (!nn || !h) {
    free(nn);
    free(h);
    return dab_fail(err, DAB_ENOMEM, "out of memory loading %s", path);
  }
  st = dab_nn_load(path, g, nn, h, err);
  free(h);
  if (st) {
    free(nn);
    return st;
  }
  char name[4200];
  snprintf(name, sizeof name, "nn:%s", path);
  return dab_nn_player(nn, name, g, true, out, err);
}
