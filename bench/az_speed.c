/*
** az_speed.c: network evaluations per second of the C forward pass
** (single and batched, one and two threads), then self-play games per
** CPU-second (`dab train az`'s game: 48 simulations a move, chainloop,
** theorems, root noise; forward from the empty board, backward from k =
** nlines/2 lines left after a prefix drawn from the net's prior) with the
** share of the time spent in the net's evaluator (encoding, the C forward
** pass, softmax) against the tree; median of 3 runs.
** Usage: az_speed [ROWS COLS [SECONDS]]   (seconds per figure, default 2)
** See Copyright Notice in README.md
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include "agents/az.h"
#include "players/mcts_bz.h"
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

/* The net's evaluator, timed. */
typedef struct timed_ev {
  dab_az_evaluator ev;
  double in_net;
} timed_ev;

static void timed_eval(void *ctx, const dab_geom *g, const pl_mstate *st, dab_rng *rng, float *prior,
                       float *value) {
  timed_ev *t = ctx;
  double t0 = bench_now();
  dab_az_net_eval(&t->ev, g, st, rng, prior, value);
  t->in_net += bench_now() - t0;
}

/* Self-play games for about secs CPU-seconds (at least one): games per
** CPU-s, evaluations a game and the evaluator's share of the wall time. */
static void selfplay(const dab_az_net *net, const dab_geom *g, bool backward, double secs, double *gps,
                     double *epg, double *share) {
  int L = g->nlines, k = backward ? L / 2 : L, start = L - k;
  double noise = 0.25, mqth;
  if (backward) dab_az_table_row(L, k, &noise, &mqth);
  timed_ev te = {{net, dab_az_scratch_new(net, 1), 0}, 0};
  dab_az_search_opts so = {.sims = 48, .c_puct = 2, .chainloop = true, .theorems = true, .margin = true,
                           .noise_eps = noise,
                           .noise_alpha = 10.0 / L, .filter = backward ? 0.25 : 0};
  dab_az_search *S = dab_az_search_new(g, &so, timed_eval, &te);
  dab_rng rng;
  dab_rng_seed(&rng, 7);
  double c0 = dab_process_cpu_s(), w0 = bench_now();
  long games = 0;
  do {
    dab_game game;
    dab_game_init(g, &game);
    pl_mstate st;
    pl_mstate_from_game(g, &game, &st);
    for (int i = 0; i < start && st.left > 1; i++) {
      int16_t mv[DAB_MAX_LINES];
      int n = dab_legal_moves(g, &st.s, mv), m = mv[0];
      float prior[DAB_MAX_LINES], v;
      timed_eval(&te, g, &st, &rng, prior, &v);
      pl_mcts_apply(g, &st, dab_az_prior_pick(prior, mv, n, m, &rng));
    }
    dab_az_result r;
    dab_err err;
    while (st.left > 0) {
      if (dab_az_search_run(S, &st, &rng, &r, &err)) break;
      int pick = dab_az_pick(&r, L - st.left < 0.34 * L, &rng);
      pl_mcts_apply(g, &st, r.move[pick]);
    }
    games++;
  } while (dab_process_cpu_s() - c0 < secs);
  double cpu = dab_process_cpu_s() - c0, wall = bench_now() - w0;
  *gps = (double)games / cpu;
  *epg = (double)te.ev.evals / (double)games;
  *share = te.in_net / wall;
  dab_az_search_free(S);
  dab_az_scratch_free(te.ev.scratch);
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
    if (c == 0) {
      printf("self-play, %s (48 sims a move), median of 3 runs\n", name_of(cfg[c]));
      printf("%-22s %14s %12s %10s %10s\n", "method", "games/CPU-s", "evals/game", "net", "tree");
      for (int bw = 0; bw < 2; bw++) {
        double gps[3], epg[3], sh[3];
        for (int i = 0; i < 3; i++) selfplay(net, &g, bw, secs, &gps[i], &epg[i], &sh[i]);
        qsort(gps, 3, sizeof(double), bench_cmp_double);
        qsort(epg, 3, sizeof(double), bench_cmp_double);
        qsort(sh, 3, sizeof(double), bench_cmp_double);
        char m[32];
        snprintf(m, sizeof m, bw ? "backward, k = %d" : "forward", g.nlines / 2);
        printf("%-22s %14.3f %12.0f %9.1f%% %9.1f%%\n", m, gps[1], epg[1], 100 * sh[1], 100 * (1 - sh[1]));
      }
    }
    dab_az_net_free(net);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("wall %.1f s, peak RSS %ld KiB\n", bench_now() - t_start, ru.ru_maxrss);
  return 0;
}
