/*
** tactics.c: move classes and tactics on any board (tactics.h).
** See Copyright Notice in README.md
*/
#include "game/sc.h"
#include "players/tactics.h"

/* ---- Tactics ----------------------------------------------------------- */

void pl_classify(const dab_geom *g, const dab_lineset *s, pl_moves *mv) {
  mv->n = mv->ncap = mv->nsafecap = mv->nsafe = 0;
  for (int w = 0; w < DAB_LINE_WORDS && w * 64 < g->nlines; w++) {
    uint64_t free_bits = ~s->w[w];
    if ((w + 1) * 64 > g->nlines) free_bits &= (1ull << (g->nlines - w * 64)) - 1;
    for (; free_bits; free_bits &= free_bits - 1) {
      int m = w * 64 + __builtin_ctzll(free_bits);
      mv->all[mv->n++] = (int16_t)m;
      int two = 0, three = 0;
      for (int j = 0; j < 2; j++) {
        int b = g->line_box[m][j];
        if (b < 0) continue;
        int sides = dab_box_sides(g, s, b);
        two += sides == 2;
        three += sides == 3;
      }
      if (three) {
        mv->cap[mv->ncap++] = (int16_t)m;
        if (!two) mv->safecap[mv->nsafecap++] = (int16_t)m;
      } else if (!two) {
        mv->safe[mv->nsafe++] = (int16_t)m;
      }
    }
  }
}

int pl_greedy_captures(const dab_geom *g, const dab_lineset *s, dab_lineset *after) {
  dab_lineset t = *s;
  int taken = 0;
  int16_t stack[DAB_MAX_BOXES * 2];
  int top = 0;
  for (int b = 0; b < g->nboxes; b++)
    if (dab_box_sides(g, &t, b) == 3) stack[top++] = (int16_t)b;
  while (top) {
    int b = stack[--top];
    if (dab_box_sides(g, &t, b) != 3) continue;
    int m = -1;
    for (int k = 0; k < 4; k++)
      if (!dab_ls_has(&t, g->box_line[b][k])) m = g->box_line[b][k];
    dab_ls_set(&t, m);
    for (int j = 0; j < 2; j++) {
      int n = g->line_box[m][j];
      if (n < 0) continue;
      int sides = dab_box_sides(g, &t, n);
      if (sides == 4) taken++;
      else if (sides == 3) stack[top++] = (int16_t)n;
    }
  }
  if (after) *after = t;
  return taken;
}

int pl_other_line(const dab_geom *g, const dab_lineset *s, int b, int from) {
  for (int k = 0; k < 4; k++) {
    int m = g->box_line[b][k];
    if (m != from && !dab_ls_has(s, m)) return m;
  }
  return -1;
}

int pl_decline_line(const dab_geom *g, const dab_lineset *s, int b, bool *is_loop) {
  int m = pl_other_line(g, s, b, -1);
  int len = 1, last = b;
  int lines[5];
  *is_loop = false;
  for (;;) {
    int n = dab_sc_across(g, last, m);
    if (n < 0) return len == 2 ? m : -1;  /* the ground: a chain */
    int deg = 4 - dab_box_sides(g, s, n);
    if (deg == 1) {                        /* another capturable end: a loop */
      *is_loop = true;
      return len == 3 ? lines[2] : -1;
    }
    if (deg != 2 || len == 4) return -1;
    lines[len++] = m;
    m = pl_other_line(g, s, n, m);
    last = n;
  }
}
