/*
** az_speed.c: network evaluations per CPU-second of the C forward pass
** (batches of 1 to 64, one thread, median of 3), then self-play games per
** CPU-second (`dab train az`'s own self-play, az_play_games: 48
** simulations a move, chainloop, theorems, root noise; forward from the
** empty board, backward from k = nlines/2 lines left after a prefix drawn
** from the net's prior) at 1, 8, 32 and 64 games in flight, their leaves
** evaluated in one batch; median of 3 runs.
** Usage: az_speed [ROWS COLS [SECONDS]]   (seconds per figure, default 2)
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <string.h>
#include "agents/az_int.h"
#include "bench/benchutil.h"

static const char *name_of(const int *cfg) {
  static char name[32];
  snprintf(name, sizeof name, "b%d f%d v%d", cfg[0], cfg[1], cfg[2]);
  return name;
}

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
  double t0 = dab_thread_cpu_s();   /* CPU time: the machine is shared */
  long n = 0;
  while (dab_thread_cpu_s() - t0 < j->seconds) {
    dab_az_forward(j->net, s, j->batch, x, lg, v);
    n += j->batch;
  }
  j->evals = n;
  j->seconds = dab_thread_cpu_s() - t0;
  dab_az_scratch_free(s);
  free(x);
  free(lg);
  return NULL;
}

/*
** Self-play through az_play_games (`dab train az`'s own code), one thread,
** eval_batch games in flight: games per CPU-s over iterations of 32
** games.  *iters = 0: as many iterations as fit in secs CPU-seconds, the
** count written back; otherwise exactly *iters (the same games again).
*/
static double selfplay(const dab_az_net *net, const dab_geom *g, bool backward, long eval_batch,
                       double secs, long *iters) {
  int L = g->nlines;
  az_opts o;
  az_opts_default(&o);
  o.backward = backward;
  o.eval_batch = eval_batch;
  az_game_out outs[32];
  dab_err err;
  double c0 = dab_process_cpu_s();
  long it = 0, games = 0;
  for (; *iters ? it < *iters : dab_process_cpu_s() - c0 < secs; it++) {
    az_play play = {g, &o, net, 7, it, backward ? L / 2 : L};
    memset(outs, 0, sizeof outs);
    if (az_play_games(&play, 32, 1, NULL, outs, &err)) {
      fprintf(stderr, "%s\n", err.msg);
      exit(1);
    }
    for (int i = 0; i < 32; i++) free(outs[i].s);
    games += 32;
  }
  *iters = it;
  return (double)games / (dab_process_cpu_s() - c0);
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
  printf("%-16s %6s %14s\n", "net", "batch", "evals/CPU-s");
  for (int c = 0; c < 2; c++) {
    size_t n = dab_az_net_size(rows, cols, cfg[c][0], cfg[c][1], cfg[c][2], 1);
    float *w = malloc(n * sizeof(float));
    dab_rng rng;
    dab_rng_seed(&rng, 2);
    for (size_t i = 0; i < n; i++) w[i] = (float)(dab_rng_unit(&rng) - 0.5) * 0.2f;
    dab_az_net *net;
    if (dab_az_net_new(rows, cols, cfg[c][0], cfg[c][1], cfg[c][2], 1, w, n, &net, &err)) return 1;
    free(w);
    int batches[4] = {1, 8, 32, 64};
    for (int b = 0; b < 4; b++) {
      double r[3];
      for (int i = 0; i < 3; i++) {
        job j = {net, &g, batches[b], secs / 3, 0};
        run(&j);
        r[i] = (double)j.evals / j.seconds;
      }
      qsort(r, 3, sizeof(double), bench_cmp_double);
      printf("%-16s %6d %14.0f\n", name_of(cfg[c]), batches[b], r[1]);
    }
    if (c == 0) {
      printf("self-play, %s (48 sims a move), games/CPU-s at each eval batch (games in flight), "
             "the same games for each, median of 3 runs\n", name_of(cfg[c]));
      long eb[4] = {1, 8, 32, 64};
      printf("%-22s", "method");
      for (int e = 0; e < 4; e++) printf(" %9s%-3ld", "batch ", eb[e]);
      printf("\n");
      for (int bw = 0; bw < 2; bw++) {
        char m[32];
        snprintf(m, sizeof m, bw ? "backward, k = %d" : "forward", g.nlines / 2);
        printf("%-22s", m);
        long iters = 0;
        for (int e = 0; e < 4; e++) {
          double gps[3];
          for (int i = 0; i < 3; i++) gps[i] = selfplay(net, &g, bw, eb[e], secs, &iters);
          qsort(gps, 3, sizeof(double), bench_cmp_double);
          printf(" %12.3f", gps[1]);
          fflush(stdout);
        }
        printf("\n");
      }
    }
    dab_az_net_free(net);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("wall %.1f s, peak RSS %ld KiB\n", bench_now() - t_start, ru.ru_maxrss);
  return 0;
}
