/*
** sckey_speed.c: how fast dab_sckey64 keys the positions a search keys:
** random game prefixes with no capturable box and >= 8 free lines, on
** 3x5, 2x7 and 4x4; nanoseconds per key (median of 5 runs).
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bench/benchutil.h"
#include "game/board.h"
#include "symmetry/sckey.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ull;
}

enum { N = 4096, RUNS = 5, REPS = 50 };

/* A random line set of n lines that leaves no box with three sides (a
** search keys only those): lines that would make one are skipped. */
static uint64_t sample(const dab_geom *g, int n) {
  uint64_t p = 0;
  for (int tries = 0; tries < 1000 && __builtin_popcountll(p) < n; tries++) {
    uint64_t freel = g->all_lines & ~p;
    int k = (int)(rnd() % (uint64_t)__builtin_popcountll(freel));
    while (k--) freel &= freel - 1;
    uint64_t q = p | (freel & -freel);
    if (!dab64_three_sided(g, q)) p = q;
  }
  return p;
}

int main(void) {
  static const int boards[][2] = {{3, 5}, {2, 7}, {4, 4}};
  static uint64_t pos[N];
  printf("%-6s %8s %10s %12s\n", "board", "coins", "ns/key", "keys/s");
  for (size_t b = 0; b < sizeof boards / sizeof boards[0]; b++) {
    dab_geom g;
    dab_geom_init(&g, boards[b][0], boards[b][1], NULL);
    double coins = 0;
    for (int i = 0; i < N; i++) {
      pos[i] = sample(&g, (int)(rnd() % (uint64_t)(g.nlines - 8 + 1)));
      dab_sckey k;
      dab_sckey64(&g, pos[i], &k);
      coins += k.ncoins;
    }
    double t[RUNS];
    uint64_t sink = 0;
    for (int r = 0; r < RUNS; r++) {
      double t0 = bench_now();
      for (int rep = 0; rep < REPS; rep++)
        for (int i = 0; i < N; i++) {
          dab_sckey k;
          dab_sckey64(&g, pos[i], &k);
          sink += k.key;
        }
      t[r] = (bench_now() - t0) / ((double)N * REPS);
    }
    qsort(t, RUNS, sizeof t[0], bench_cmp_double);
    printf("%dx%-4d %8.1f %10.1f %12.0f%s\n", g.rows, g.cols, coins / N, t[RUNS / 2] * 1e9,
           1.0 / t[RUNS / 2], sink == 42 ? " " : "");
  }
  return 0;
}
