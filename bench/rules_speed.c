/*
** rules_speed.c: rule-team speed on 3x3: training games a second with 1,000 rules, matcher vs population.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include "game/clock.h"
#include "agents/erl.h"
#include "bench/benchutil.h"

/* A population of n rules as training makes them: state copies of random
** positions with a random action, mutated 0 to 3 times. */
static void make_rules(const dab_geom *g, dab_ragent *a, int n, dab_rng *rng) {
  for (int i = 0; i < n;) {
    dab_lineset s = {{0}};
    for (int m = 0; m < g->nlines; m++)
      if (dab_rng_unit(rng) < 0.3 + 0.6 * dab_rng_unit(rng)) dab_ls_set(&s, m);
    if (dab_ls_count(&s) == g->nlines) continue;
    dab_sgraph sg;
    dab_sgraph_build(g, &s, &sg);
    if (dab_rule_from_state(&sg, -1, rng, &a[i].rule, NULL)) continue;
    for (int k = dab_rng_below(rng, 4); k > 0; k--) dab_rule_mutate(&a[i].rule, 0.5, rng);
    a[i].q = dab_rng_unit(rng);
    i++;
  }
}

/* CPU seconds of this thread: the figure that a loaded machine does not
** distort (wall clock is printed beside it). */
int main(int argc, char **argv) {
  long games = argc > 1 ? atol(argv[1]) : 20000;
  double t0 = bench_now();
  dab_geom g;
  dab_geom_init(&g, 3, 3, NULL);
  dab_err err;
  dab_player *opp;
  if (dab_rt_opponent(&g, &opp, &err)) return 1;
  dab_rng rng;
  dab_rng_seed(&rng, 1);

  /* Baseline: the same games with no rules (every team move random). */
  dab_erl_opts o;
  dab_erl_opts_default(&o);
  dab_erl *e;
  dab_erl_new(&o, &e, &err);
  e->greedy = true;
  double t = bench_now(), c = dab_thread_cpu_s();
  for (long k = 0; k < games; k++) {
    dab_rt_game gm = {.team = (int)(k & 1)};
    dab_rt_play(&g, opp, dab_erl_choose, e, &rng, &gm, &err);
  }
  double base = (double)games / (bench_now() - t), base_cpu = (double)games / (dab_thread_cpu_s() - c);

  /* Training with a full population of 1,000 rules: matching, Boltzmann
  ** choice, new rules, Q/f updates, reproduction every 10 games. */
  make_rules(&g, e->a, 1000, &rng);
  e->n = 1000;
  for (int i = 0; i < 1000; i++) e->key[i] = dab_rule_key_of(&e->a[i].rule);
  e->greedy = false;
  long matched = 0, moves = 0, randoms = 0;
  t = bench_now();
  c = dab_thread_cpu_s();
  for (long k = 0; k < games; k++) {
    dab_rt_game gm = {.team = (int)(dab_rng_next(&rng) & 1)};
    dab_rt_play(&g, opp, dab_erl_choose, e, &rng, &gm, &err);
    dab_erl_end_game(e, &gm, &rng);
    moves += gm.moves;
    randoms += gm.random_moves;
  }
  double train = (double)games / (bench_now() - t), train_cpu = (double)games / (dab_thread_cpu_s() - c);
  matched = (long)e->stats.matches;
  printf("3x3 games a second, one thread, %ld games each (per wall second / per CPU second):\n", games);
  printf("  baseline (no rules, team random vs chain): %.0f / %.0f\n", base, base_cpu);
  printf("  erl training, 1000 rules:                   %.0f / %.0f  (%.0f rule tests a game, %.1f%% prefiltered,"
         " activity %.3f, %ld matches)\n",
         train, train_cpu, (double)e->stats.tests / (double)games,
         100.0 * (double)e->stats.prefiltered / (double)e->stats.tests, 1 - (double)randoms / (double)moves,
         matched);

  /* The matcher alone: every rule of a population against positions of
  ** random games, as rule tests (and searches) a second. */
  printf("matcher alone, per CPU second (positions from random play; cap %d placements):\n", DAB_RMATCH_CAP);
  printf("  %6s %14s %14s %10s %8s %8s\n", "rules", "tests/s", "searches/s", "matches", "capped", "place/srch");
  static const int sizes[] = {10, 100, 1000, 3000};
  dab_ragent *pop = calloc(3000, sizeof *pop);
  make_rules(&g, pop, 3000, &rng);
  /* General rules too (a w-heavy tail): every third one made wild. */
  for (int i = 0; i < 3000; i += 3)
    for (int k = 0; k < 4; k++) dab_rule_mutate_one(&pop[i].rule, DAB_MUT_WILD, &rng);
  dab_sgraph *pos = malloc(sizeof *pos * 2000);
  int np = 0;
  while (np < 2000) {
    dab_lineset s = {{0}};
    int16_t legal[64];
    int depth = dab_rng_below(&rng, g.nlines);
    for (int d = 0; d < depth; d++) {
      int n = dab_legal_moves(&g, &s, legal);
      dab_ls_set(&s, legal[dab_rng_below(&rng, n)]);
    }
    dab_sgraph_build(&g, &s, &pos[np++]);
  }
  for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
    dab_rmatch_stats st = {0};
    t = dab_thread_cpu_s();
    long reps = 0;
    while (dab_thread_cpu_s() - t < 0.5 || reps < 1) {
      for (int p = 0; p < np; p++)
        for (int i = 0; i < sizes[z]; i++) dab_rule_match(&pop[i].rule, &pos[p], NULL, &rng, &st, NULL, NULL);
      reps++;
    }
    double dt = dab_thread_cpu_s() - t;
    printf("  %6d %14.0f %14.0f %10llu %8llu %8.1f\n", sizes[z], (double)st.tests / dt, (double)st.searches / dt,
           (unsigned long long)st.matches, (unsigned long long)st.capped,
           st.searches ? (double)st.placements / (double)st.searches : 0);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("wall %.1f s, peak RSS %.1f MiB\n", bench_now() - t0, (double)ru.ru_maxrss / 1024);
  free(pop);
  free(pos);
  dab_erl_free(e);
  dab_player_free(opp);
  return 0;
}
