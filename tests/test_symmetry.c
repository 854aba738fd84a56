/*
** test_symmetry.c: the symmetry group, canonical keys, and the proof by
** exhaustive tables that symmetric images and the border-line
** equivalence preserve the value.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "solver/retro.h"
#include "symmetry/sym.h"
#include "tests/testhelp.h"

static uint64_t rnd(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void test_group(void) {
  int bad_perm = 0, bad_box = 0, bad_closure = 0, bad_fast = 0;
  uint64_t seed = 99;
  for (int R = 1; R <= 9; R++)
    for (int C = 1; C <= 9; C++) {
      dab_geom g;
      dab_geom_init(&g, R, C, NULL);
      dab_sym *s = dab_sym_new(&g, NULL);
      if (s->ntrans != (R == C ? 8 : 4)) bad_perm++;
      for (int t = 0; t < s->ntrans; t++) {
        uint8_t hit[DAB_MAX_LINES] = {0};
        for (int m = 0; m < g.nlines; m++) {
          hit[s->perm[t][m]]++;
          if (s->inv[t][s->perm[t][m]] != m) bad_perm++;
        }
        for (int m = 0; m < g.nlines; m++) bad_perm += hit[m] != 1;
        /* The four lines of a box go to the four lines of one box. */
        for (int b = 0; b < g.nboxes; b++) {
          int found = 0;
          for (int b2 = 0; b2 < g.nboxes && !found; b2++) {
            int same = 0;
            for (int k = 0; k < 4; k++)
              for (int k2 = 0; k2 < 4; k2++) same += s->perm[t][g.box_line[b][k]] == g.box_line[b2][k2];
            found = same == 4;
          }
          bad_box += !found;
        }
        /* Closure: t followed by u is some element of the group. */
        for (int u = 0; u < s->ntrans; u++) {
          int match = 0;
          for (int w = 0; w < s->ntrans && !match; w++) {
            int ok = 1;
            for (int m = 0; m < g.nlines && ok; m++) ok = s->perm[u][s->perm[t][m]] == s->perm[w][m];
            match = ok;
          }
          bad_closure += !match;
        }
        if (dab_geom_fast(&g))
          for (int k = 0; k < 50; k++) {
            uint64_t p = rnd(&seed) & g.all_lines;
            dab_lineset in = dab_ls_from_word(p), out;
            dab_sym_apply(s, t, &in, &out);
            bad_fast += out.w[0] != dab_sym_apply64(s, t, p);
          }
      }
      dab_sym_free(s);
    }
  TH_CHECK(bad_perm == 0, "transforms are not permutations (%d)", bad_perm);
  TH_CHECK(bad_box == 0, "transforms do not map boxes to boxes (%d)", bad_box);
  TH_CHECK(bad_closure == 0, "group not closed (%d)", bad_closure);
  TH_CHECK(bad_fast == 0, "byte tables disagree with the permutation (%d)", bad_fast);
}

static void test_canonical(void) {
  int bad = 0;
  uint64_t seed = 5;
  int boards[][2] = {{3, 3}, {3, 4}, {4, 4}, {4, 5}, {5, 5}, {2, 7}};
  for (size_t i = 0; i < sizeof boards / sizeof *boards; i++) {
    dab_geom g;
    dab_geom_init(&g, boards[i][0], boards[i][1], NULL);
    dab_sym *s = dab_sym_new(&g, NULL);
    for (int k = 0; k < 2000; k++) {
      uint64_t p = rnd(&seed) & rnd(&seed) & g.all_lines;
      for (int be = 0; be < 2; be++) {
        int t0;
        uint64_t key = dab_sym_canon64(s, p, be, &t0);
        if (!be && key != dab_sym_apply64(s, t0, p)) bad++;
        if (__builtin_popcountll(key) != __builtin_popcountll(p)) bad++;
        for (int t = 0; t < s->ntrans; t++)
          if (dab_sym_canon64(s, dab_sym_apply64(s, t, p), be, NULL) != key) bad++;
      }
    }
    dab_sym_free(s);
  }
  TH_CHECK(bad == 0, "canonical key differs between images (%d)", bad);
}

/* Every image of every position has the same value; moves map across. */
static void test_value_invariance(void) {
  int boards[][2] = {{1, 3}, {2, 2}, {2, 3}, {1, 5}, {3, 3}, {2, 4}};
  int nb = getenv("DAB_TEST_SAN") ? 5 : 6;
  for (int i = 0; i < nb; i++) {
    dab_geom g;
    dab_geom_init(&g, boards[i][0], boards[i][1], NULL);
    dab_retro *r;
    dab_retro_solve(&g, 0, NULL, &r, NULL);
    dab_sym *s = dab_sym_new(&g, NULL);
    uint64_t bad = 0, bad_border = 0;
    for (uint64_t p = 0; p < r->count; p++) {
      int v = r->value[p];
      for (int t = 1; t < s->ntrans; t++) bad += r->value[dab_sym_apply64(s, t, p)] != v;
      bad_border += r->value[dab_sym_border_normal64(s, p)] != v;
    }
    TH_CHECK(bad == 0, "%dx%d: %llu images with another value", g.rows, g.cols, (unsigned long long)bad);
    TH_CHECK(bad_border == 0, "%dx%d: border-line equivalence changed %llu values", g.rows, g.cols,
             (unsigned long long)bad_border);
    /* Move mapping: move m in p is worth what perm[t][m] is worth in the
    ** canonical image. */
    uint64_t seed = 11, bad_moves = 0;
    static dab_analysis a, ac;
    for (int k = 0; k < 2000; k++) {
      uint64_t p = rnd(&seed) & rnd(&seed) & g.all_lines;
      int t;
      uint64_t c = dab_sym_canon64(s, p, false, &t);
      dab_retro_analyze(r, p, &a, NULL);
      dab_retro_analyze(r, c, &ac, NULL);
      for (int j = 0; j < a.nmoves; j++) {
        int mc = s->perm[t][a.move[j]];
        for (int jc = 0; jc < ac.nmoves; jc++)
          if (ac.move[jc] == mc) bad_moves += ac.move_value[jc] != a.move_value[j];
        if (s->inv[t][mc] != a.move[j]) bad_moves++;
      }
    }
    TH_CHECK(bad_moves == 0, "%dx%d: %llu moves map to moves of another value", g.rows, g.cols,
             (unsigned long long)bad_moves);
    dab_sym_free(s);
    dab_retro_free(r);
  }
}

int main(void) {
  test_group();
  test_canonical();
  test_value_invariance();
  return TH_REPORT("test_symmetry");
}
