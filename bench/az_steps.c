/*
** az_steps.c: accuracy per step (lines drawn) of az models against the
** oracle: policy argmax, search move, value error; positions from random play
** and from the model's own games (moves sampled from its policy head).
** Usage: az_steps POSITIONS_PER_STEP SIMS MODEL...  (a MODEL may be a checkpoint)
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include "agents/az_int.h"
#include "bench/benchutil.h"

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: az_steps POSITIONS_PER_STEP SIMS MODEL...\n");
    return 2;
  }
  int per = atoi(argv[1]);
  long sims = atol(argv[2]);
  double t0 = bench_now();
  dab_err err;
  for (int a = 3; a < argc; a++) {
    dab_az_model *m;
    /* a model, or a checkpoint (a run stopped by Ctrl-C): its net */
    if (dab_az_model_load(argv[a], NULL, &m, &err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    dab_geom g;
    dab_geom_init(&g, m->net->rows, m->net->cols, &err);
    dab_oracle *o;
    dab_oracle_opts oo = {0};
    if (dab_oracle_open(g.rows, g.cols, &oo, &o, &err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    az_testpos *tp = malloc((size_t)per * (size_t)g.nlines * sizeof *tp);
    for (int src = 0; src < 2; src++) {
      int n = src == 0 ? az_random_positions(&g, per, 2026, tp, per * g.nlines)
                       : az_own_positions(&g, m, per, 2026, tp, per * g.nlines);
      az_measure_out mo;
      az_measure(&g, o, m, sims, tp, n, &mo);
      printf("%s (%s), positions from %s, %d per step, search %ld sims\n", argv[a], m->params,
             src == 0 ? "random play" : "own games", per, sims);
      printf("step  n  policy  mcts  kept_policy  kept_mcts  value_abs_err\n");
      long tot = 0;
      for (int s = 0; s < g.nlines - 1; s++)
        if (mo.n[s]) {
          tot += mo.n[s];
          printf("%4d  %ld  %.3f  %.3f  %.3f  %.3f  %.3f\n", s, mo.n[s], mo.opt_policy[s] / (double)mo.n[s],
                 mo.opt_mcts[s] / (double)mo.n[s], mo.kept_policy[s] / (double)mo.n[s],
                 mo.kept_mcts[s] / (double)mo.n[s], mo.verr[s] / (double)mo.n[s]);
        }
      printf("all  %ld  %.3f  %.3f  %.3f  %.3f  rmse %.3f\n", tot, mo.all_opt_policy, mo.all_opt_mcts,
             mo.all_kept_policy, mo.all_kept_mcts, mo.rmse);
    }
    free(tp);
    dab_oracle_close(o);
    dab_az_model_free(m);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("wall %.1f s, peak RSS %ld KiB\n", bench_now() - t0, ru.ru_maxrss);
  return 0;
}
