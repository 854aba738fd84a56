/*
** econ_speed.c: games a CPU-second of the artificial economy (dab train econ), with the auction's memo and without.
** See Copyright Notice in README.md
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "agents/econ.h"
#include "bench/benchutil.h"

/*
** Usage: econ_speed [GAMES] [REPEAT]
**
** Plays GAMES (default 50000) economy games on 3x3 as `dab train econ`
** does, less the oracle: the team second, the first fifth against `chain`
** with 20% random lines and a prefill falling from 0.9 to 0, the rest
** against the unrestricted `chain` (the published run is 5 x 10^5 of the
** first kind and 3 x 10^6 of the second).  Each repeat runs the economy
** twice from seed 1, with the memo and without (every auction searched in
** full: the baseline), checks that both end in the same state, and times
** each on the process CPU clock.  Prints the medians over REPEAT (default
** 3) of games a CPU-second and of matcher searches a game, and peak RSS.
*/

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct run_out {
  double cpu;
  uint64_t searches;
  dab_rng rng;
  int n;
  long born;
} run_out;

static int run(const dab_geom *g, long games, bool memo, run_out *out) {
  dab_econ_opts o;
  dab_econ_opts_default(&o);
  dab_econ *e;
  dab_player *opp;
  dab_err err;
  if (dab_econ_new(&o, &e, &err) || dab_rt_opponent(g, &opp, &err)) {
    fprintf(stderr, "econ_speed: %s\n", err.msg);
    return 1;
  }
  e->memo_off = !memo;
  dab_rng rng;
  dab_rng_seed(&rng, 1);
  long training = games / 5;
  double t0 = cpu_now();
  for (long k = 0; k < games; k++) {
    dab_rt_game gm = {.team = 1};
    if (k < training) gm.opp_random = 0.2, gm.prefill = 0.9 * (1.0 - (double)k / (double)training);
    dab_econ_start_game(e);
    if (dab_rt_play(g, opp, dab_econ_choose, e, &rng, &gm, &err)) {
      fprintf(stderr, "econ_speed: %s\n", err.msg);
      return 1;
    }
    dab_econ_end_game(e, &gm, &rng);
  }
  out->cpu = cpu_now() - t0;
  out->searches = e->stats.searches;
  out->rng = rng;
  out->n = e->n;
  out->born = e->born;
  dab_econ_free(e);
  dab_player_free(opp);
  return 0;
}

int main(int argc, char **argv) {
  long games = argc > 1 ? atol(argv[1]) : 50000;
  int repeat = argc > 2 ? atoi(argv[2]) : 3;
  if (games < 5 || repeat < 1 || repeat > 99) {
    fprintf(stderr, "usage: econ_speed [GAMES >= 5] [REPEAT 1-99]\n");
    return 2;
  }
  dab_geom g;
  dab_geom_init(&g, 3, 3, NULL);
  double t_start = bench_now(), rate[2][99], per_game[2][99];
  for (int r = 0; r < repeat; r++) {
    run_out x[2];
    for (int v = 0; v < 2; v++) {
      if (run(&g, games, v == 0, &x[v])) return 1;
      rate[v][r] = (double)games / x[v].cpu;
      per_game[v][r] = (double)x[v].searches / (double)games;
    }
    if (memcmp(&x[0].rng, &x[1].rng, sizeof x[0].rng) || x[0].n != x[1].n || x[0].born != x[1].born) {
      fprintf(stderr, "econ_speed: the memo changed the run (repeat %d)\n", r);
      return 1;
    }
    printf("repeat %d: memo %.0f games/CPU-s, %.0f searches a game; without %.0f, %.0f\n", r, rate[0][r],
           per_game[0][r], rate[1][r], per_game[1][r]);
  }
  for (int v = 0; v < 2; v++) {
    qsort(rate[v], (size_t)repeat, sizeof rate[v][0], bench_cmp_double);
    qsort(per_game[v], (size_t)repeat, sizeof per_game[v][0], bench_cmp_double);
  }
  double m0 = rate[0][repeat / 2], m1 = rate[1][repeat / 2];
  printf("econ 3x3, %ld games, median of %d: memo %.0f games/CPU-s (%.0f searches a game), "
         "without (baseline) %.0f (%.0f): %.2fx; the same run both ways\n",
         games, repeat, m0, per_game[0][repeat / 2], m1, per_game[1][repeat / 2], m0 / m1);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("wall %.1f s, peak RSS %ld KiB\n", bench_now() - t_start, ru.ru_maxrss);
  return 0;
}
