/*
** vec.c: many games at once: stepping, legal masks, observation tensors
** and oracle labels over arrays of states (vec.h).
** See Copyright Notice in README.md
*/
#include "capi/vec.h"

#include <stdlib.h>
#include <string.h>
#include "game/rng.h"

struct dab_vec {
  dab_geom g;
};

dab_status dab_vec_new(int rows, int cols, dab_vec **out, dab_err *err) {
  *out = NULL;
  dab_vec *v = malloc(sizeof *v);
  if (!v) return dab_fail(err, DAB_ENOMEM, "out of memory");
  dab_status st = dab_geom_init(&v->g, rows, cols, err);
  if (!st && !dab_geom_fast(&v->g))
    st = dab_fail(err, DAB_EBOARD, "%dx%d has %d lines; batches take boards of at most %d", rows, cols,
                  v->g.nlines, DAB_FAST_MAX_LINES);
  if (st) {
    free(v);
    return st;
  }
  *out = v;
  return DAB_OK;
}

void dab_vec_free(dab_vec *v) { free(v); }

const dab_geom *dab_vec_geom(const dab_vec *v) { return &v->g; }

/* The boxes (as a box mask) that drawing undrawn line m in p completes. */
static uint64_t completed_by(const dab_geom *g, uint64_t p, int m) {
  uint64_t q = p | 1ull << m, boxes = 0;
  for (int j = 0; j < 2; j++) {
    int b = g->line_box[m][j];
    if (b >= 0 && (q & g->box_mask[b]) == g->box_mask[b]) boxes |= 1ull << b;
  }
  return boxes;
}

dab_status dab_vec_step(const dab_vec *v, size_t n, uint64_t *lines, uint64_t *by1,
                        uint64_t *box1, int16_t *score, int8_t *to_move, const int64_t *action,
                        int8_t *reward, dab_err *err) {
  const dab_geom *g = &v->g;
  for (size_t i = 0; i < n; i++) {
    int64_t m = action[i];
    if (m < 0) continue;
    if (m >= g->nlines)
      return dab_fail(err, DAB_EINPUT, "state %zu: action %lld is beyond the %d lines of %dx%d", i,
                      (long long)m, g->nlines, g->rows, g->cols);
    if (lines[i] >> m & 1)
      return dab_fail(err, DAB_EINPUT, "state %zu: line %lld is already drawn", i, (long long)m);
  }
  for (size_t i = 0; i < n; i++) {
    int64_t m = action[i];
    if (m < 0) {
      if (reward) reward[i] = 0;
      continue;
    }
    int p = to_move[i] ? 1 : 0;
    uint64_t boxes = completed_by(g, lines[i], (int)m);
    int k = dab64_completes(g, lines[i], (int)m); /* the engine's count; equals popcount(boxes) */
    lines[i] |= 1ull << m;
    if (p) {
      by1[i] |= 1ull << m;
      box1[i] |= boxes;
    }
    score[2 * i + (size_t)p] = (int16_t)(score[2 * i + (size_t)p] + k);
    if (!k && lines[i] != g->all_lines) to_move[i] = (int8_t)(1 - p);
    if (reward) reward[i] = (int8_t)k;
  }
  return DAB_OK;
}

void dab_vec_legal(const dab_vec *v, size_t n, const uint64_t *lines, uint8_t *legal) {
  int L = v->g.nlines;
  for (size_t i = 0; i < n; i++) {
    uint64_t p = lines[i];
    uint8_t *row = legal + i * (size_t)L;
    for (int m = 0; m < L; m++) row[m] = (uint8_t)(~p >> m & 1);
  }
}

void dab_vec_random_moves(const dab_vec *v, size_t n, const uint64_t *lines, uint64_t seed,
                          int64_t *action) {
  const dab_geom *g = &v->g;
  for (size_t i = 0; i < n; i++) {
    uint64_t free_lines = g->all_lines & ~lines[i];
    int k = __builtin_popcountll(free_lines);
    if (!k) {
      action[i] = -1;
      continue;
    }
    /* splitmix64 of (seed, i), then Lemire's multiply-shift into 0..k-1 */
    uint64_t z = seed ^ ((uint64_t)i * 0xd1342543de82ef95ull + 0x2545f4914f6cdd1dull);
    z = dab_splitmix64(&z);
    int pick = (int)(((z >> 32) * (uint64_t)k) >> 32);
    action[i] = __builtin_ctzll(dab_pdep64(1ull << pick, free_lines));
  }
}

long dab_vec_observe_size(const dab_vec *v, int layout) {
  long cells = (long)(v->g.rows + 1) * (v->g.cols + 1);
  if (layout == DAB_VEC_OPENSPIEL) return 9 * cells;
  if (layout == DAB_VEC_PLANES) return 4 * cells;
  return -1;
}

/* Who holds line m in state (0 empty, 1 player 0, 2 player 1). */
static inline int line_state(uint64_t lines, uint64_t by1, int m) {
  if (!(lines >> m & 1)) return 0;
  return (by1 >> m & 1) ? 2 : 1;
}

long dab_vec_observe(const dab_vec *v, int layout, size_t n, const uint64_t *lines,
                     const uint64_t *by1, const uint64_t *box1, const int8_t *pov, float *out) {
  const dab_geom *g = &v->g;
  long size = dab_vec_observe_size(v, layout);
  if (size < 0) return -1;
  memset(out, 0, n * (size_t)size * sizeof *out);
  int R = g->rows, C = g->cols, W = C + 1;
  long cells = (long)(R + 1) * W;
  for (size_t i = 0; i < n; i++) {
    float *o = out + i * (size_t)size;
    uint64_t p = lines[i], own1 = by1[i], b1 = box1[i];
    if (layout == DAB_VEC_OPENSPIEL) {
      /* o[state][cell][part] = o[(state * cells + cell) * 3 + part] */
      for (int r = 0; r <= R; r++)
        for (int c = 0; c <= C; c++) {
          long cell = r * W + c;
          int h = c < C ? line_state(p, own1, r * C + c) : 0;
          int vv = r < R ? line_state(p, own1, g->nhoriz + r * W + c) : 0;
          int bx = 0;
          if (r < R && c < C) {
            int b = r * C + c;
            if ((p & g->box_mask[b]) == g->box_mask[b]) bx = (b1 >> b & 1) ? 2 : 1;
          }
          o[(h * cells + cell) * 3 + 0] = 1.0f;
          o[(vv * cells + cell) * 3 + 1] = 1.0f;
          o[(bx * cells + cell) * 3 + 2] = 1.0f;
        }
    } else {
      int me = pov ? pov[i] : 0;
      for (int r = 0; r <= R; r++)
        for (int c = 0; c < C; c++)
          if (p >> (r * C + c) & 1) o[0 * cells + r * W + c] = 1.0f;
      for (int r = 0; r < R; r++)
        for (int c = 0; c <= C; c++)
          if (p >> (g->nhoriz + r * W + c) & 1) o[1 * cells + r * W + c] = 1.0f;
      for (int b = 0; b < g->nboxes; b++) {
        if ((p & g->box_mask[b]) != g->box_mask[b]) continue;
        int owner = (b1 >> b & 1) ? 1 : 0;
        o[(owner == me ? 2 : 3) * cells + (b / C) * W + b % C] = 1.0f;
      }
    }
  }
  return size;
}

/* ---- Labels -------------------------------------------------------------- */

static dab_status same_board(const dab_oracle *o, const dab_vec *v, dab_err *err) {
  const dab_geom *og = dab_oracle_geom(o);
  if (og->rows != v->g.rows || og->cols != v->g.cols)
    return dab_fail(err, DAB_EBOARD, "the oracle is for %dx%d, the batch for %dx%d", og->rows, og->cols,
                    v->g.rows, v->g.cols);
  return DAB_OK;
}

dab_status dab_vec_values(const dab_oracle *o, const dab_vec *v, size_t n, const uint64_t *lines,
                          int8_t *lo, int8_t *hi, dab_err *err) {
  dab_status st = same_board(o, v, err);
  for (size_t i = 0; !st && i < n; i++) {
    int l, h;
    st = dab_oracle_bounds64(o, lines[i], &l, &h, err);
    if (!st) lo[i] = (int8_t)l, hi[i] = (int8_t)h;
  }
  return st;
}

dab_status dab_vec_move_values(const dab_oracle *o, const dab_vec *v, size_t n,
                               const uint64_t *lines, int8_t *out, uint8_t *exact, dab_err *err) {
  dab_status st = same_board(o, v, err);
  if (st) return st;
  int L = v->g.nlines;
  int16_t move[64], value[64];
  for (size_t i = 0; i < n; i++) {
    int8_t *row = out + i * (size_t)L;
    memset(row, (unsigned char)(int8_t)DAB_VEC_NONE, (size_t)L);
    int k;
    st = dab_oracle_move_values(o, lines[i], move, value, &k, err);
    exact[i] = st == DAB_OK;
    if (st == DAB_ECANCELED) continue;
    if (st) return st;
    for (int j = 0; j < k; j++) row[move[j]] = (int8_t)value[j];
  }
  return DAB_OK;
}

dab_status dab_vec_wdl(const dab_oracle *o, const dab_vec *v, size_t n, const uint64_t *lines,
                       const int16_t *diff, int8_t *result, uint8_t *keep, dab_err *err) {
  dab_status st = same_board(o, v, err);
  if (st) return st;
  int L = v->g.nlines;
  int16_t kept[64];
  for (size_t i = 0; i < n; i++) {
    uint8_t *row = keep + i * (size_t)L;
    memset(row, 0, (size_t)L);
    int r, k;
    st = dab_oracle_result(o, lines[i], diff[i], &r, kept, &k, err);
    if (st == DAB_ECANCELED) {
      result[i] = DAB_VEC_NONE;
      continue;
    }
    if (st) return st;
    result[i] = (int8_t)r;
    for (int j = 0; j < k; j++) row[kept[j]] = 1;
  }
  return DAB_OK;
}
