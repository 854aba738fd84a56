/*
** tb_probe.c: tablebase probe speed: random positions on one and several
** threads, move_values, open + first probe.
** See Copyright Notice in README.md
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "game/clock.h"
#include "tablebase/dabtb.h"

static uint64_t rng_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

typedef struct targ {
  const dabtb *tb;
  uint64_t seed, n, mask, sum;
  int failed;
  double cpu;      /* this thread's CPU seconds */
} targ;

static void *probe_thread(void *arg) {
  targ *a = arg;
  uint64_t s = a->seed, sum = 0;
  int failed = 0;
  double c0 = dab_thread_cpu_s();
  for (uint64_t i = 0; i < a->n; i++) {
    int v = 0;
    if (dabtb_value(a->tb, rng_next(&s) & a->mask, &v, NULL)) failed = 1;
    sum += (uint64_t)(v + 64);
  }
  a->cpu = dab_thread_cpu_s() - c0;
  a->sum = sum; /* written once: no false sharing between threads */
  a->failed = failed;
  return NULL;
}

static double run_threads(const dabtb *tb, int nt, uint64_t per, uint64_t mask, uint64_t seed,
                          double *per_cpu) {
  pthread_t th[16];
  targ a[16];
  double t0 = dab_now_s();
  for (int i = 0; i < nt; i++) {
    a[i] = (targ){tb, seed + (uint64_t)i * 7919, per, mask, 0, 0, 0};
    pthread_create(&th[i], NULL, probe_thread, &a[i]);
  }
  for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
  double dt = dab_now_s() - t0;
  double cpu = 0;
  for (int i = 0; i < nt; i++) {
    if (a[i].failed) fprintf(stderr, "probe error\n");
    cpu += a[i].cpu;
  }
  *per_cpu = (double)per * nt / cpu;
  return (double)per * nt / dt;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: tb_probe FILE [N]\n");
    return 2;
  }
  uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 2000000;
  dab_err err;
  dabtb *tb;
  double t0 = dab_now_s();
  if (dabtb_open(argv[1], NULL, &tb, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  int v;
  dabtb_value(tb, 0, &v, &err);
  double t_first = dab_now_s() - t0;
  const dab_geom *g = dabtb_geom(tb);
  uint64_t mask = g->all_lines;
  printf("open + first probe: %.2f ms (value of the empty board %d)\n", 1e3 * t_first, v);
  double pc;
  double cold = run_threads(tb, 1, n, mask, 1, &pc);
  printf("random probes, 1 thread, cold cache (includes block decompression): %.0f/s\n", cold);
  for (int nt = 1; nt <= 2; nt++) {
    double r = run_threads(tb, nt, n, mask, 1000 + (uint64_t)nt, &pc);
    printf("random probes, %d thread%s, warm: %.0f/s wall (%.0f per CPU second of each thread)\n",
           nt, nt > 1 ? "s" : "", r, pc);
  }
  uint64_t s = 99;
  int16_t mv[64], vals[64];
  int nm;
  uint64_t nmv = n / 10, total_moves = 0;
  double t1 = dab_now_s();
  for (uint64_t i = 0; i < nmv; i++) {
    dabtb_move_values(tb, rng_next(&s) & mask, mv, vals, &nm, NULL);
    total_moves += (uint64_t)nm;
  }
  double dt = dab_now_s() - t1;
  printf("move_values, 1 thread, warm: %.0f/s (%.1f moves each)\n", (double)nmv / dt,
         (double)total_moves / (double)nmv);
  dabtb_close(tb);
  return 0;
}
