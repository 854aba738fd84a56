/*
** retro_exact.c: exhaustive proofs on a whole board too big for the test
** suite (default 3x4, 2^31 positions): the capture rule equals trying every
** move, and every symmetric image and border-equivalent position has the
** same value.  Usage: retro_exact [RxC]
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bench/benchutil.h"
#include "game/postext.h"
#include "solver/retro.h"
#include "symmetry/sym.h"

int main(int argc, char **argv) {
  int rows, cols;
  size_t used;
  dab_err err;
  if (dab_parse_board(argc > 1 ? argv[1] : "3x4", &rows, &cols, &used, &err)) {
    fprintf(stderr, "retro_exact: %s\n", err.msg);
    return 2;
  }
  dab_geom g;
  if (dab_geom_init(&g, rows, cols, &err)) {
    fprintf(stderr, "retro_exact: %s\n", err.msg);
    return 2;
  }
  dab_retro *fast, *plain;
  dab_retro_opts po = {.plain = true};
  double t0 = bench_now();
  if (dab_retro_solve(&g, 0, NULL, &fast, &err)) goto fail;
  double t1 = bench_now();
  if (dab_retro_solve(&g, 0, &po, &plain, &err)) goto fail;
  double t2 = bench_now();
  uint64_t diff = 0;
  for (uint64_t p = 0; p < fast->count; p++) diff += fast->value[p] != plain->value[p];
  printf("%dx%d: %llu positions; capture rule %.2f s, plain %.2f s (2 threads each); "
         "values that differ: %llu\n",
         rows, cols, (unsigned long long)fast->count, t1 - t0, t2 - t1, (unsigned long long)diff);
  dab_retro_free(plain);
  dab_sym *s = dab_sym_new(&g, &err);
  if (!s) goto fail;
  uint64_t bad_sym = 0, bad_border = 0;
  for (uint64_t p = 0; p < fast->count; p++) {
    int v = fast->value[p];
    for (int t = 1; t < s->ntrans; t++) bad_sym += fast->value[dab_sym_apply64(s, t, p)] != v;
    bad_border += fast->value[dab_sym_border_normal64(s, p)] != v;
  }
  printf("symmetric images with another value: %llu; border-equivalent positions with another "
         "value: %llu (%.1f s)\n",
         (unsigned long long)bad_sym, (unsigned long long)bad_border, bench_now() - t2);
  dab_sym_free(s);
  dab_retro_free(fast);
  return diff || bad_sym || bad_border;
fail:
  fprintf(stderr, "retro_exact: %s\n", err.msg);
  return 1;
}
