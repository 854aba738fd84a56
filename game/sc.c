/*
** sc.c: components and chains of the Strings-and-Coins graph.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "game/sc.h"

/* The undrawn line of coin b other than `from` (b has degree 2). */
static int other_string(const dab_geom *g, const dab_lineset *s, int b, int from) {
  for (int k = 0; k < 4; k++) {
    int m = g->box_line[b][k];
    if (m != from && !dab_ls_has(s, m)) return m;
  }
  return -1;
}

static void find_components(const dab_geom *g, const dab_lineset *s, dab_sc_view *v) {
  int16_t queue[DAB_MAX_BOXES];
  for (int b0 = 0; b0 < g->nboxes; b0++) {
    if (v->degree[b0] == 0 || v->comp_of[b0] >= 0) continue;
    dab_sc_component *c = &v->comp[v->ncomp];
    memset(c, 0, sizeof *c);
    c->first_box = (int16_t)b0;
    int head = 0, tail = 0, half_strings = 0;
    queue[tail++] = (int16_t)b0;
    v->comp_of[b0] = (int16_t)v->ncomp;
    while (head < tail) {
      int b = queue[head++];
      c->coins++;
      if (v->degree[b] == 1) c->capturable++;
      if (v->degree[b] >= 3) c->junctions++;
      for (int k = 0; k < 4; k++) {
        int m = g->box_line[b][k];
        if (dab_ls_has(s, m)) continue;
        int n = dab_sc_across(g, b, m);
        if (n < 0) { c->ground++; continue; }
        half_strings++;
        if (v->comp_of[n] < 0) {
          v->comp_of[n] = (int16_t)v->ncomp;
          queue[tail++] = (int16_t)n;
        }
      }
    }
    c->strings = (int16_t)(half_strings / 2 + c->ground);
    bool all_two = c->capturable == 0 && c->junctions == 0;
    c->kind = !all_two ? DAB_SC_OTHER : c->ground ? DAB_SC_CHAIN : DAB_SC_LOOP;
    v->ncomp++;
  }
}

/* Walks from coin start through line m while coins have degree 2.
** Records the far end of the run; returns false if it came back to start. */
static bool walk(const dab_geom *g, const dab_lineset *s, dab_sc_view *v, uint8_t *seen,
                 int start, int m, dab_sc_segment *sg, int dir) {
  int last = start;
  for (;;) {
    int n = dab_sc_across(g, last, m);
    if (n == start) return false;
    if (n < 0 || v->degree[n] != 2) {
      sg->box[dir] = (int16_t)last;
      sg->end_line[dir] = (int16_t)m;
      sg->end_box[dir] = (int16_t)n;
      sg->end[dir] = n < 0 ? DAB_END_GROUND : v->degree[n] == 1 ? DAB_END_CAPTURABLE : DAB_END_JUNCTION;
      return true;
    }
    seen[n] = 1;
    sg->length++;
    m = other_string(g, s, n, m);
    last = n;
  }
}

void dab_sc_analyze(const dab_geom *g, const dab_lineset *s, dab_sc_view *v) {
  v->ncomp = v->nseg = v->ncapturable = 0;
  for (int b = 0; b < g->nboxes; b++) {
    v->degree[b] = (int8_t)(4 - dab_box_sides(g, s, b));
    v->comp_of[b] = -1;
    if (v->degree[b] == 1) v->capturable[v->ncapturable++] = (int16_t)b;
  }
  find_components(g, s, v);

  uint8_t seen[DAB_MAX_BOXES] = {0};
  for (int b = 0; b < g->nboxes; b++) {
    if (v->degree[b] != 2 || seen[b]) continue;
    seen[b] = 1;
    dab_sc_segment *sg = &v->seg[v->nseg++];
    memset(sg, 0, sizeof *sg);
    sg->length = 1;
    sg->component = v->comp_of[b];
    int m0 = other_string(g, s, b, -1);
    int m1 = other_string(g, s, b, m0);
    if (!walk(g, s, v, seen, b, m0, sg, 0)) {
      /* A cycle: the whole run was walked from b back to b. */
      sg->box[0] = sg->box[1] = (int16_t)b;
      sg->end[0] = sg->end[1] = DAB_END_NONE;
      sg->end_box[0] = sg->end_box[1] = -1;
      sg->end_line[0] = (int16_t)m0;
      sg->end_line[1] = (int16_t)m1;
      continue;
    }
    walk(g, s, v, seen, b, m1, sg, 1);
  }
}

bool dab_sc_is_sle(const dab_sc_view *v, bool extended) {
  if (v->ncapturable) return false;
  for (int i = 0; i < v->ncomp; i++) {
    const dab_sc_component *c = &v->comp[i];
    if (c->kind == DAB_SC_OTHER) return false;
    if (c->kind == DAB_SC_CHAIN && c->coins < 3 && !extended) return false;
  }
  return true;
}

static int cmp16(const void *a, const void *b) {
  return *(const int16_t *)a - *(const int16_t *)b;
}

int dab_sc_multiset(const dab_sc_view *v, int16_t *chains, int *nchains, int16_t *loops,
                    int *nloops) {
  int other = 0;
  *nchains = *nloops = 0;
  for (int i = 0; i < v->ncomp; i++) {
    const dab_sc_component *c = &v->comp[i];
    if (c->kind == DAB_SC_CHAIN) chains[(*nchains)++] = c->coins;
    else if (c->kind == DAB_SC_LOOP) loops[(*nloops)++] = c->coins;
    else other++;
  }
  qsort(chains, (size_t)*nchains, sizeof *chains, cmp16);
  qsort(loops, (size_t)*nloops, sizeof *loops, cmp16);
  return other;
}
