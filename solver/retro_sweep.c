/*
** retro_sweep.c: the retrograde solver's inner loop, built twice (ISA_SRC).
** See Copyright Notice in README.md
*/
#include "solver/retro_sweep.h"
#include "game/dabassert.h"

/* Value of drawing real line m (undrawn in p, index bit mbit) from p. */
static inline int move_value(const dab_retro_sweep *j, uint64_t p, uint64_t q, int m, uint64_t mbit) {
  int k = dab64_completes(j->g, p, m);
  int child = j->value[q | mbit];
  return k ? k + child : -child;
}

/* Value of the position with index q, all of whose children are solved
** (the capture rule: solver/retro.c). */
static inline int8_t solve_one(const dab_retro_sweep *j, uint64_t q) {
  const dab_geom *g = j->g;
  const int8_t *V = j->value;
  uint64_t p = j->root | dab_pdep64(q, j->free_mask);
  uint64_t avail = ~q & j->index_mask;
  if (!avail) return 0;
  uint64_t three = dab64_three_sided(g, p);

  if (three && !j->plain) {
    int decline_box = -1, decline_from = -1, best = -128;
    for (uint64_t t = three; t; t &= t - 1) {
      int b = __builtin_ctzll(t);
      int s = __builtin_ctzll(g->box_mask[b] & ~p);
      int n = g->line_box[s][0] == b ? g->line_box[s][1] : g->line_box[s][0];
      uint64_t sbit = dab_pext64(1ull << s, j->free_mask);
      int nsides = n < 0 ? 0 : dab64_sides(g, p, n);
      if (nsides == 3) return (int8_t)(2 + V[q | sbit]);
      if (nsides != 2) return (int8_t)(1 + V[q | sbit]);
      int take = 1 + V[q | sbit];
      if (take > best) best = take;
      if (decline_box < 0) { decline_box = n; decline_from = s; }
    }
    /* No safe capture: every capture, plus the decline of the first box. */
    int t = __builtin_ctzll(g->box_mask[decline_box] & ~p & ~(1ull << decline_from));
    int decline = move_value(j, p, q, t, dab_pext64(1ull << t, j->free_mask));
    return (int8_t)(best > decline ? best : decline);
  }

  if (!three) {
    /* Quiet: no move captures, so value = max(-child) = -min(child). */
    int lo = 127;
    for (; avail; avail &= avail - 1) {
      int v = V[q | (avail & -avail)];
      if (v < lo) lo = v;
    }
    return (int8_t)-lo;
  }

  int best = -128;
  for (; avail; avail &= avail - 1) {
    uint64_t bit = avail & -avail;
    int m = __builtin_ctzll(dab_pdep64(bit, j->free_mask));
    int v = move_value(j, p, q, m, bit);
    if (v > best) best = v;
  }
  return (int8_t)best;
}

void DAB_ISA_FN(dab_retro_sweep)(const dab_retro_sweep *s, uint64_t base, uint64_t count) {
  /* base | i must be base + i, or a block would solve another's indices. */
  DAB_ASSERT(count && (count & (count - 1)) == 0 && (base & (count - 1)) == 0);
  DAB_ASSERT(((base | (count - 1)) & ~s->index_mask) == 0);
  for (uint64_t i = count; i-- > 0;) {
    int8_t v = solve_one(s, base | i);
    DAB_ASSERT(v >= -s->g->nboxes && v <= s->g->nboxes);
    s->value[base | i] = v;
  }
}
