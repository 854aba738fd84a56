/*
** nn_speed.c: games per second of networks against heuristics on 3x3.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include "agents/nn.h"
#include "bench/benchutil.h"

typedef struct job {
  const dab_geom *g;
  dab_nn_side a, b;
  int games_per_task;
  long boxes;
} job;

static void run_task(void *arg, int i) {
  job *j = arg;
  long d = 0;
  for (int k = 0; k < j->games_per_task; k++) {
    dab_rng rng;
    dab_rng_seed2(&rng, (uint64_t)i, (uint64_t)k);
    d += dab_nn_play(j->g, j->a, j->b, &rng);
  }
  __atomic_add_fetch(&j->boxes, d, __ATOMIC_RELAXED);
}

/* Games per second of a against b on `threads` threads. */
static double rate(const dab_geom *g, dab_nn_side a, dab_nn_side b, int threads, long games) {
  job j = {g, a, b, 1000, 0};
  int tasks = (int)(games / j.games_per_task);
  double t0 = bench_now();
  dab_nn_parallel(threads, tasks, run_task, &j);
  return (double)tasks * j.games_per_task / (bench_now() - t0);
}

int main(int argc, char **argv) {
  long games = argc > 1 ? atol(argv[1]) : 400000;
  double t0 = bench_now();
  dab_geom g;
  dab_geom_init(&g, 3, 3, NULL);
  dab_nn nn;
  if (dab_nn_init(&nn, &g, NULL) != DAB_OK) return 1;
  uint16_t genes[465];
  dab_rng rng;
  dab_rng_seed(&rng, 1);
  dab_ga_random(genes, 465, &rng);
  dab_nn_decode(&nn, genes);
  dab_nn_side net = {&nn, 0}, rnd = {NULL, 0}, l1 = {NULL, 1}, l2 = {NULL, 2};
  printf("3x3, %ld games per line (random genotype net)\n", games);
  double base = rate(&g, rnd, rnd, 1, games);
  printf("baseline random-vs-random, 1 thread: %10.0f games/s\n", base);
  printf("level1-vs-random, 1 thread:          %10.0f games/s\n", rate(&g, l1, rnd, 1, games));
  double n1 = rate(&g, net, l1, 1, games);
  printf("net-vs-level1, 1 thread:             %10.0f games/s\n", n1);
  double n2 = rate(&g, net, l1, 2, games);
  printf("net-vs-level1, 2 threads:            %10.0f games/s (%.2fx)\n", n2, n2 / n1);
  printf("net-vs-random, 1 thread:             %10.0f games/s\n", rate(&g, net, rnd, 1, games));
  printf("net-vs-level2, 1 thread:             %10.0f games/s\n", rate(&g, net, l2, 1, games));
  printf("net-vs-net, 1 thread:                %10.0f games/s\n", rate(&g, net, net, 1, games));
  /* The paper's heuristic baselines, 200,000 games per colour. */
  static const struct { int a, b; double paper; const char *name; } base_pairs[] = {
      {1, 0, 0.9963, "level1 vs random"}, {2, 0, 0.9969, "level2 vs random"}, {2, 1, 0.8383, "level2 vs level1"}};
  const double per = 200000;
  for (int k = 0; k < 3; k++) {
    dab_nn_side a = {NULL, base_pairs[k].a}, b = {NULL, base_pairs[k].b};
    long w[2] = {0, 0};
    for (long i = 0; i < 400000; i++) {
      dab_rng r;
      dab_rng_seed2(&r, 77 + (uint64_t)k, (uint64_t)i);
      int d = (i & 1) ? -dab_nn_play(&g, b, a, &r) : dab_nn_play(&g, a, b, &r);
      w[i & 1] += d > 0;
    }
    double p1 = (double)w[0] / per, p2 = (double)w[1] / per, all = (double)(w[0] + w[1]) / (2.0 * per);
    printf("%s: %.4f (first %.4f, second %.4f; +-%.4f at 95%%), paper %.4f\n", base_pairs[k].name, all, p1, p2,
           1.96 * sqrt(all * (1 - all) / (2.0 * per)), base_pairs[k].paper);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("wall %.2f s, peak RSS %ld KiB\n", bench_now() - t0, ru.ru_maxrss);
  dab_nn_free(&nn);
  return 0;
}
