/*
** sym.c: building the symmetry tables of a board.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "symmetry/sym.h"

static const char *const names[DAB_SYM_MAX] = {"identity", "flip-rows",      "flip-cols", "rot180",
                                               "transpose", "anti-transpose", "rot90",     "rot270"};

const char *dab_sym_name(int t) { return t >= 0 && t < DAB_SYM_MAX ? names[t] : "?"; }

/* Where transform t sends dot (i,j) of an R x C board (R == C for t >= 4). */
static void map_dot(int t, int R, int C, int i, int j, int *oi, int *oj) {
  switch (t) {
    case 0: *oi = i; *oj = j; break;
    case 1: *oi = R - i; *oj = j; break;
    case 2: *oi = i; *oj = C - j; break;
    case 3: *oi = R - i; *oj = C - j; break;
    case 4: *oi = j; *oj = i; break;
    case 5: *oi = C - j; *oj = R - i; break;
    case 6: *oi = j; *oj = R - i; break;
    default: *oi = C - j; *oj = i; break;
  }
}

/* The line joining two adjacent dots. */
static int line_between(const dab_geom *g, int i1, int j1, int i2, int j2) {
  if (i1 == i2) return i1 * g->cols + (j1 < j2 ? j1 : j2);
  return g->nhoriz + (i1 < i2 ? i1 : i2) * (g->cols + 1) + j1;
}

dab_sym *dab_sym_new(const dab_geom *g, dab_err *err) {
  dab_sym *s = calloc(1, sizeof *s);
  if (!s) {
    dab_fail(err, DAB_ENOMEM, "out of memory for the symmetry tables");
    return NULL;
  }
  s->ntrans = g->rows == g->cols ? 8 : 4;
  s->nlines = g->nlines;
  for (int t = 0; t < s->ntrans; t++) {
    for (int m = 0; m < g->nlines; m++) {
      int i1, j1, i2, j2, a1, b1, a2, b2;
      if (m < g->nhoriz) {
        i1 = i2 = m / g->cols;
        j1 = m % g->cols;
        j2 = j1 + 1;
      } else {
        int v = m - g->nhoriz;
        i1 = v / (g->cols + 1);
        i2 = i1 + 1;
        j1 = j2 = v % (g->cols + 1);
      }
      map_dot(t, g->rows, g->cols, i1, j1, &a1, &b1);
      map_dot(t, g->rows, g->cols, i2, j2, &a2, &b2);
      int img = line_between(g, a1, b1, a2, b2);
      s->perm[t][m] = (int16_t)img;
      s->inv[t][img] = (int16_t)m;
    }
  }
  if (dab_geom_fast(g)) {
    s->nbytes = (g->nlines + 7) / 8;
    for (int t = 0; t < s->ntrans; t++)
      for (int k = 0; k < s->nbytes; k++)
        for (int v = 0; v < 256; v++) {
          uint64_t img = 0;
          for (int bit = 0; bit < 8; bit++) {
            int m = 8 * k + bit;
            if ((v >> bit & 1) && m < g->nlines) img |= 1ull << s->perm[t][m];
          }
          s->byte_image[t][k][v] = img;
        }
    for (int b = 0; b < g->nboxes; b++) {
      if (g->box_border[b] < 2) continue;
      uint64_t grp = 0;
      for (int k = 0; k < 4; k++) {
        int m = g->box_line[b][k];
        if (g->line_box[m][1] < 0) grp |= 1ull << m;
      }
      s->group[s->ngroups++] = grp;
    }
  }
  return s;
}

void dab_sym_free(dab_sym *s) { free(s); }

void dab_sym_apply(const dab_sym *s, int t, const dab_lineset *in, dab_lineset *out) {
  dab_lineset r;
  memset(&r, 0, sizeof r);
  for (int m = 0; m < s->nlines; m++)
    if (dab_ls_has(in, m)) dab_ls_set(&r, s->perm[t][m]);
  *out = r;
}
