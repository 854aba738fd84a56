/*
** az_speed.c: network evaluations per second of the C forward pass
** (single and batched, one and two threads) and PUCT simulations per second.
** See Copyright Notice in README.md
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include "agents/az.h"
#include "bench/benchutil.h"

typedef struct job {
  const dab_az_net *net;
  const dab_geom *g;
  int batch;
  double seconds;
  long evals;
} job;

static void *run(void *arg) {
  job *j = arg;
  dab_az_scratch *s = dab_az_scratch_new(j->net, j->batch);
  float *x = calloc((size_t)j->batch * 3 * (size_t)j->net->hw, sizeof(float));
  float *lg = malloc((size_t)j->batch * 64 * sizeof(float)), v[4096];
  dab_rng rng;
  dab_rng_seed(&rng, 1);
  for (int i = 0; i < j->batch; i++)
    dab_az_encode(j->net, j->g, dab_rng_next(&rng) & j->g->all_lines, 0, x + (size_t)i * 3 * (size_t)j->net->hw);
  double t0 = bench_now();
  long n = 0;
  while (bench_now() - t0 < j->seconds) {
    dab_az_forward(j->net, s, j->batch, x, lg, v);
    n += j->batch;
  }
  j->evals = n;
  j->seconds = bench_now() - t0;
  dab_az_scratch_free(s);
  free(x);
  free(lg);
  return NULL;
}

int main(int argc, char **argv) {
  int rows = argc > 1 ? atoi(argv[1]) : 3, cols = argc > 2 ? atoi(argv[2]) : 3;
  double secs = argc > 3 ? atof(argv[3]) : 2.0;
  dab_geom g;
  dab_err err;
  if (dab_geom_init(&g, rows, cols, &err)) return 1;
  int cfg[2][3] = {{2, 16, 32}, {6, 64, 64}};
  double t_start = bench_now();
  printf("board %dx%d, %.1f s per figure\n", rows, cols, secs);
  printf("%-16s %6s %8s %14s\n", "net", "batch", "threads", "evals/s");
  for (int c = 0; c < 2; c++) {
    size_t n = dab_az_net_size(rows, cols, cfg[c][0], cfg[c][1], cfg[c][2]);
    float *w = malloc(n * sizeof(float));
    dab_rng rng;
    dab_rng_seed(&rng, 2);
    for (size_t i = 0; i < n; i++) w[i] = (float)(dab_rng_unit(&rng) - 0.5) * 0.2f;
    dab_az_net *net;
    if (dab_az_net_new(rows, cols, cfg[c][0], cfg[c][1], cfg[c][2], w, n, &net, &err)) return 1;
    free(w);
    int batches[2] = {1, 64};
    for (int b = 0; b < 2; b++)
      for (int nt = 1; nt <= 2; nt++) {
        job j[2];
        pthread_t th[2];
        for (int i = 0; i < nt; i++) {
          j[i] = (job){net, &g, batches[b], secs, 0};
          pthread_create(&th[i], NULL, run, &j[i]);
        }
        double rate = 0;
        for (int i = 0; i < nt; i++) {
          pthread_join(th[i], NULL);
          rate += (double)j[i].evals / j[i].seconds;
        }
        char name[32];
        snprintf(name, sizeof name, "b%d f%d v%d", cfg[c][0], cfg[c][1], cfg[c][2]);
        printf("%-16s %6d %8d %14.0f\n", name, batches[b], nt, rate);
      }
    dab_az_net_free(net);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("wall %.1f s, peak RSS %ld KiB\n", bench_now() - t_start, ru.ru_maxrss);
  return 0;
}
