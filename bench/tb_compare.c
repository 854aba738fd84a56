/*
** tb_compare.c: a tablebase against the in-memory retrograde solver on N
** random positions (every position when N is 0) and their move values.
** Usage: tb_compare FILE [N]     exit 0 when all agree.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "solver/retro.h"
#include "tablebase/dabtb.h"

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: tb_compare FILE [N]\n");
    return 2;
  }
  uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
  dab_err err;
  dabtb *tb;
  if (dabtb_open(argv[1], NULL, &tb, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 2;
  }
  const dab_geom *g = dabtb_geom(tb);
  dab_retro *r;
  if (dab_retro_solve(g, 0, NULL, &r, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 2;
  }
  bool all = n == 0;
  if (all) n = 1ull << g->nlines;
  uint64_t s = 2024, bad = 0, errors = 0, badmoves = 0;
  static dab_analysis a, b;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t p = all ? i : rng_next(&s) & g->all_lines;
    int v;
    if (dabtb_value(tb, p, &v, &err)) errors++;
    else if (v != r->value[p]) bad++;
    if (i % 16 == 0) {
      if (dabtb_analyze(tb, p, &a, &err) || dab_retro_analyze(r, p, &b, &err) || a.value != b.value ||
          a.nmoves != b.nmoves || memcmp(a.move_value, b.move_value, sizeof a.move_value[0] * (size_t)a.nmoves))
        badmoves++;
    }
  }
  printf("%dx%d: %llu positions compared with the in-memory retrograde: %llu differ, %llu errors; "
         "%llu analyses compared: %llu differ\n",
         g->rows, g->cols, (unsigned long long)n, (unsigned long long)bad, (unsigned long long)errors,
         (unsigned long long)((n + 15) / 16), (unsigned long long)badmoves);
  dab_retro_free(r);
  dabtb_close(tb);
  return bad || errors || badmoves ? 1 : 0;
}
