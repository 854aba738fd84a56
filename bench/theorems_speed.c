/*
** theorems_speed.c: how fast dab_sle_value is at solver leaves: random
** (extended) SLEs up to a box budget, nanoseconds per call (median of 5
** runs), the fast path against the plain recursion on the same inputs.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bench/benchutil.h"
#include "game/board.h"
#include "theorems/sle.h"

static uint64_t rng = 88172645463325252ull;
static int rnd(int n) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return (int)((rng * 2685821657736338717ull >> 33) % (uint64_t)n);
}

enum { N = 1024, RUNS = 5 };
static int16_t ch[N][64], lp[N][64];
static int nc[N], nl[N];

/* Random multisets of total size <= boxes: lengths minc..maxc, a third
** of them loops (even, or odd when odd_loops). */
static void make(int boxes, int minc, int maxc, bool odd_loops, double *avg_comp) {
  long comps = 0;
  for (int i = 0; i < N; i++) {
    nc[i] = nl[i] = 0;
    int left = boxes;
    for (int tries = 0; tries < 100 && left > 0; tries++) {
      int len = minc + rnd(maxc - minc + 1);
      bool loop = rnd(3) == 0;
      if (loop) {
        if (len < 4) len = 4;
        if (!odd_loops) len += len % 2;
        else if (len % 2 == 0) len++;
      }
      if (len > left) continue;
      left -= len;
      if (loop) lp[i][nl[i]++] = (int16_t)len;
      else ch[i][nc[i]++] = (int16_t)len;
    }
    comps += nc[i] + nl[i];
  }
  *avg_comp = (double)comps / N;
}

static double time_calls(int (*fn)(const int16_t *, int, const int16_t *, int), int calls,
                         long *sum) {
  double t[RUNS];
  for (int run = 0; run < RUNS; run++) {
    double t0 = bench_now();
    for (int c = 0; c < calls; c++) {
      int i = c % N;
      *sum += fn(ch[i], nc[i], lp[i], nl[i]);
    }
    t[run] = (bench_now() - t0) / calls * 1e9;
  }
  qsort(t, RUNS, sizeof *t, bench_cmp_double);
  return t[RUNS / 2];
}

int main(int argc, char **argv) {
  int calls = argc > 1 ? atoi(argv[1]) : 100000;
  static const struct {
    const char *name;
    int boxes, minc, maxc;
    bool odd;
  } kinds[] = {
      {"<=16 boxes, lengths 3..8", 16, 3, 8, false},
      {"<=25 boxes (5x5), lengths 3..8", 25, 3, 8, false},
      {"<=25 boxes, lengths 1..6 (extended)", 25, 1, 6, false},
      {"<=46 boxes, lengths 1..8 (extended)", 46, 1, 8, false},
      {"<=25 boxes, odd loops (recursion)", 25, 3, 8, true},
  };
  printf("%-38s %6s %12s %14s\n", "multisets", "comps", "fast ns/call", "recursion ns");
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    double avg;
    make(kinds[k].boxes, kinds[k].minc, kinds[k].maxc, kinds[k].odd, &avg);
    long s1 = 0, s2 = 0;
    double fast = time_calls(dab_sle_value, calls, &s1);
    double rec = time_calls(dab_sle_value_rec, calls / 10 + 1, &s2);
    printf("%-38s %6.1f %12.0f %14.0f\n", kinds[k].name, avg, fast, rec);
  }
  /* The board bridge on 5x5: random positions (almost all rejected at
  ** once) and an SLE (every horizontal line drawn: five 5-chains). */
  dab_geom g;
  dab_geom_init(&g, 5, 5, NULL);
  static dab_lineset pos[N];
  for (int i = 0; i < N; i++) {
    pos[i] = dab_ls_from_word(0);
    for (int m = 0; m < g.nlines; m++)
      if (rnd(2)) dab_ls_set(&pos[i], m);
  }
  dab_lineset sle = dab_ls_from_word(0);
  for (int m = 0; m < g.nhoriz; m++) dab_ls_set(&sle, m);
  int16_t c[DAB_MAX_BOXES], l[DAB_MAX_BOXES];
  int ncs, nls;
  long hits = 0;
  double t0 = bench_now();
  for (int k = 0; k < calls; k++) hits += dab_sle_from_position(&g, &pos[k % N], true, c, &ncs, l, &nls);
  double t_rand = (bench_now() - t0) / calls * 1e9;
  t0 = bench_now();
  for (int k = 0; k < calls; k++) hits += dab_sle_from_position(&g, &sle, true, c, &ncs, l, &nls);
  double t_sle = (bench_now() - t0) / calls * 1e9;
  printf("\nbridge dab_sle_from_position on 5x5: random position %.0f ns, SLE (5 chains) %.0f ns  (%ld)\n",
         t_rand, t_sle, hits);
  return 0;
}
