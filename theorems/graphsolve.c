/*
** graphsolve.c: memoised minimax over string masks of a small S&C graph.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "theorems/graphsolve.h"

_Static_assert(DAB_SG_MAX_STRINGS <= 31, "masks are uint32_t");
_Static_assert(DAB_SG_MAX_HEAP <= 16, "heap bits are uint16_t");

struct dab_sgs {
  dab_sg g;
  uint32_t coin_mask[DAB_SG_MAX_COINS];   /* strings touching each coin */
  int8_t *value;          /* scoring value per mask; INT8_MIN = unknown */
  uint8_t *win;           /* Nimstring: 0 unknown, 1 loss, 2 win */
  uint16_t *heap_known;   /* per mask: bit h = win_heap(mask, h) known */
  uint16_t *heap_win;     /*            bit h = its value */
};

int dab_sg_add(dab_sg *g, int a, int b) {
  if (g->nstrings >= DAB_SG_MAX_STRINGS || a == b || a < -1 || b < -1 || a >= DAB_SG_MAX_COINS ||
      b >= DAB_SG_MAX_COINS)
    return -1;
  int i = g->nstrings++;
  g->end[i][0] = (int8_t)a;
  g->end[i][1] = (int8_t)b;
  if (a >= g->ncoins) g->ncoins = a + 1;
  if (b >= g->ncoins) g->ncoins = b + 1;
  return i;
}

bool dab_sg_append(dab_sg *g, const dab_sg *h) {
  if (g->nstrings + h->nstrings > DAB_SG_MAX_STRINGS || g->ncoins + h->ncoins > DAB_SG_MAX_COINS)
    return false;
  int base = g->ncoins;
  for (int i = 0; i < h->nstrings; i++) {
    int j = g->nstrings++;
    for (int k = 0; k < 2; k++)
      g->end[j][k] = (int8_t)(h->end[i][k] < 0 ? -1 : h->end[i][k] + base);
  }
  g->ncoins = base + h->ncoins;
  return true;
}

int dab_sg_coins_left(const dab_sg *g, uint32_t mask) {
  uint64_t seen = 0;
  for (int i = 0; i < g->nstrings; i++)
    if (mask >> i & 1)
      for (int k = 0; k < 2; k++)
        if (g->end[i][k] >= 0) seen |= 1ull << g->end[i][k];
  return __builtin_popcountll(seen);
}

dab_status dab_sg_from_board(const dab_geom *geo, const dab_lineset *s, dab_sg *g,
                             int16_t *line_of, dab_err *err) {
  memset(g, 0, sizeof *g);
  int free_lines = geo->nlines - dab_ls_count(s);
  if (free_lines > DAB_SG_MAX_STRINGS)
    return dab_fail(err, DAB_EBOARD, "position has %d undrawn lines; the graph solver takes <= %d",
                    free_lines, DAB_SG_MAX_STRINGS);
  int coin_of[DAB_MAX_BOXES];
  int nc = 0;
  for (int b = 0; b < geo->nboxes; b++) coin_of[b] = dab_box_sides(geo, s, b) < 4 ? nc++ : -1;
  if (nc > DAB_SG_MAX_COINS)
    return dab_fail(err, DAB_EBOARD, "position has %d open boxes; the graph solver takes <= %d", nc,
                    DAB_SG_MAX_COINS);
  for (int m = 0; m < geo->nlines; m++) {
    if (dab_ls_has(s, m)) continue;
    int b0 = geo->line_box[m][0], b1 = geo->line_box[m][1];
    int i = dab_sg_add(g, b0 < 0 ? -1 : coin_of[b0], b1 < 0 ? -1 : coin_of[b1]);
    if (line_of) line_of[i] = (int16_t)m;
  }
  g->ncoins = nc;
  return DAB_OK;
}

dab_status dab_sgs_new(const dab_sg *g, dab_sgs **out, dab_err *err) {
  *out = NULL;
  if (g->nstrings > DAB_SG_MAX_STRINGS || g->ncoins > DAB_SG_MAX_COINS)
    return dab_fail(err, DAB_EBOARD, "graph too large (%d strings, %d coins)", g->nstrings,
                    g->ncoins);
  dab_sgs *s = calloc(1, sizeof *s);
  if (!s) return dab_fail(err, DAB_ENOMEM, "out of memory");
  s->g = *g;
  for (int i = 0; i < g->nstrings; i++)
    for (int k = 0; k < 2; k++)
      if (g->end[i][k] >= 0) s->coin_mask[g->end[i][k]] |= 1u << i;
  size_t n = (size_t)1 << g->nstrings;
  s->value = malloc(n);
  s->win = calloc(n, 1);
  s->heap_known = calloc(n, sizeof *s->heap_known);
  s->heap_win = calloc(n, sizeof *s->heap_win);
  if (!s->value || !s->win || !s->heap_known || !s->heap_win) {
    dab_sgs_free(s);
    return dab_fail(err, DAB_ENOMEM, "out of memory for 2^%d positions", g->nstrings);
  }
  memset(s->value, INT8_MIN, n);
  *out = s;
  return DAB_OK;
}

void dab_sgs_free(dab_sgs *s) {
  if (!s) return;
  free(s->value);
  free(s->win);
  free(s->heap_known);
  free(s->heap_win);
  free(s);
}

int dab_sgs_captures(const dab_sgs *s, uint32_t mask, int i) {
  int k = 0;
  for (int e = 0; e < 2; e++) {
    int c = s->g.end[i][e];
    if (c >= 0 && (mask & s->coin_mask[c]) == (1u << i)) k++;
  }
  return k;
}

int dab_sgs_value(dab_sgs *s, uint32_t mask) {
  if (!mask) return 0;
  if (s->value[mask] != INT8_MIN) return s->value[mask];
  int best = -1000;
  for (uint32_t m = mask; m; m &= m - 1) {
    int i = __builtin_ctz(m);
    int k = dab_sgs_captures(s, mask, i);
    int child = dab_sgs_value(s, mask & ~(1u << i));
    int v = k ? k + child : -child;
    if (v > best) best = v;
  }
  s->value[mask] = (int8_t)best;
  return best;
}

bool dab_sgs_win(dab_sgs *s, uint32_t mask) {
  if (!mask) return false;
  if (s->win[mask]) return s->win[mask] == 2;
  bool w = false;
  for (uint32_t m = mask; m && !w; m &= m - 1) {
    int i = __builtin_ctz(m);
    bool child = dab_sgs_win(s, mask & ~(1u << i));
    w = dab_sgs_captures(s, mask, i) ? child : !child;
  }
  s->win[mask] = w ? 2 : 1;
  return w;
}

bool dab_sgs_win_heap(dab_sgs *s, uint32_t mask, int h) {
  if (s->heap_known[mask] >> h & 1) return s->heap_win[mask] >> h & 1;
  bool w = false;
  for (int h2 = 0; h2 < h && !w; h2++) w = !dab_sgs_win_heap(s, mask, h2);
  for (uint32_t m = mask; m && !w; m &= m - 1) {
    int i = __builtin_ctz(m);
    bool child = dab_sgs_win_heap(s, mask & ~(1u << i), h);
    w = dab_sgs_captures(s, mask, i) ? child : !child;
  }
  s->heap_known[mask] |= (uint16_t)(1u << h);
  if (w) s->heap_win[mask] |= (uint16_t)(1u << h);
  return w;
}

int dab_sgs_nimber(dab_sgs *s, uint32_t mask) {
  int found = -1;
  for (int h = 0; h < DAB_SG_MAX_HEAP; h++)
    if (!dab_sgs_win_heap(s, mask, h)) {
      if (found >= 0) return -2;
      found = h;
    }
  return found;
}
