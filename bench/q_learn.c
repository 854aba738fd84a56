/*
** q_learn.c: tabular Q-learning to its goals (issue 19): episodes and
** seconds until the greedy move is optimal on every 2x2 position and on
** >= 99% of the 2x3 positions, per variant; the baseline, measured in the
** same run, is the classic forward update order.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "game/clock.h"
#include "agents/q.h"
#include "bench/benchutil.h"

/* Learns in 1% steps of the run; the measurement between steps is not
** timed.  Prints when the goal is first met, and the state at the end. */
static void run(const dab_geom *g, const int8_t *ex, long n, double goal, const char *name,
                int policy, int replay, double decay, double kappa) {
  dab_q_opts o;
  dab_q_opts_default(&o);
  o.episodes = n;
  o.policy = policy;
  o.replay = replay;
  o.decay = decay;
  o.kappa = kappa;
  dab_q_learner *l;
  dab_err err;
  if (dab_q_learner_new(g, &o, 1, &l, &err)) {
    fprintf(stderr, "q_learn: %s\n", err.msg);
    exit(1);
  }
  double wall = 0, cpu = 0, rmse = 0, opt = 0, reach_cpu = -1, reach_wall = -1;
  long reach = -1;
  for (long k = 1; k <= 100; k++) {
    double w0 = bench_now(), c0 = dab_thread_cpu_s();
    dab_q_learner_run(l, n / 100 * k, NULL);
    wall += bench_now() - w0;
    cpu += dab_thread_cpu_s() - c0;
    dab_q_measure(dab_q_learner_table(l), ex, &rmse, &opt);
    if (reach < 0 && opt >= goal) {
      reach = dab_q_learner_episode(l);
      reach_cpu = cpu;
      reach_wall = wall;
    }
  }
  char at[32] = "never", secs[48] = "-";
  if (reach >= 0) {
    snprintf(at, sizeof at, "%ld", reach);
    snprintf(secs, sizeof secs, "%.2f / %.2f", reach_cpu, reach_wall);
  }
  printf("%dx%d  %-30s %9ld %10s %13s %9.5f %7.3f %8.2f %8.2f %10.2f\n", g->rows, g->cols, name, n,
         at, secs, opt, rmse, cpu, wall, (double)n / cpu / 1e6);
  dab_q_learner_free(l);
}

int main(int argc, char **argv) {
  long n22 = argc > 1 ? atol(argv[1]) : 1000000, n23 = argc > 2 ? atol(argv[2]) : 5000000;
  double t0 = bench_now();
  printf("board variant                        episodes   reached  cpu/wall s   opt_end    rmse    cpu_s   wall_s  Mepisodes/s\n");
  for (int b = 0; b < 2; b++) {
    dab_geom g;
    dab_geom_init(&g, 2, 2 + b, NULL);
    dab_oracle *o;
    dab_err err;
    dab_oracle_opts oo = {.threads = 1};
    int8_t *ex;
    if (dab_oracle_open(2, 2 + b, &oo, &o, &err) || dab_q_exact(&g, o, &ex, &err)) {
      fprintf(stderr, "q_learn: %s\n", err.msg);
      return 1;
    }
    long n = b ? n23 : n22;
    double goal = b ? 0.99 : 1.0;
    run(&g, ex, n, goal, "baseline: egreedy, forward", DAB_Q_EGREEDY, DAB_Q_FORWARD, 5, 2);
    run(&g, ex, n, goal, "egreedy, backward (default)", DAB_Q_EGREEDY, DAB_Q_BACKWARD, 5, 2);
    run(&g, ex, n, goal, "egreedy, backward, decay=2", DAB_Q_EGREEDY, DAB_Q_BACKWARD, 2, 2);
    run(&g, ex, n, goal, "lenient Boltzmann, kappa=2", DAB_Q_LENIENT, DAB_Q_BACKWARD, 5, 2);
    run(&g, ex, n, goal, "lenient Boltzmann, kappa=1", DAB_Q_LENIENT, DAB_Q_BACKWARD, 5, 1);
    free(ex);
    dab_oracle_close(o);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("total wall %.1f s, peak RSS %.1f MiB\n", bench_now() - t0, (double)ru.ru_maxrss / 1024);
  return 0;
}
