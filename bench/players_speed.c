/*
** players_speed.c: the players' speed targets: sliding-window moves per
** second on 7x7 with 3x3 windows, MCTS playouts per second on 5x5.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "game/clock.h"
#include "players/pint.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Positions along games in which both sides play like level2 (captures,
** then safe lines, then anything): the positions a player really meets. */
static int sample_positions(const dab_geom *g, int n, dab_rng *rng, dab_game *out) {
  int k = 0;
  while (k < n) {
    dab_game game;
    dab_game_init(g, &game);
    while (!dab_game_over(g, &game) && k < n) {
      out[k++] = game;
      pl_moves mv;
      pl_classify(g, &game.lines, &mv);
      int m = mv.ncap ? pl_pick(rng, mv.cap, mv.ncap)
              : mv.nsafe ? pl_pick(rng, mv.safe, mv.nsafe) : pl_pick(rng, mv.all, mv.n);
      dab_game_play(g, &game, m);
    }
  }
  return k;
}

static double sw_rate(const char *spec, dab_player_env *env, const dab_game *pos, int npos,
                      const dab_geom *g) {
  dab_player *p;
  dab_err err;
  if (dab_player_new(spec, g, env, &p, &err)) {
    fprintf(stderr, "players_speed: %s\n", err.msg);
    exit(1);
  }
  dab_rng rng;
  dab_rng_seed(&rng, 7);
  volatile int sink = 0;
  double t0 = dab_now_s();
  for (int i = 0; i < npos; i++) sink += dab_player_move(p, &pos[i], &rng);
  double dt = dab_now_s() - t0;
  (void)sink;
  dab_player_free(p);
  return npos / dt;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 5;
  if (reps < 1) reps = 1;
  dab_err err;
  dab_player_env *env;
  dab_player_env_new(NULL, &env, &err);
  dab_rng rng;
  dab_rng_seed(&rng, 1);

  /* Sliding window, 7x7, 3x3 windows. */
  dab_geom g7;
  dab_geom_init(&g7, 7, 7, NULL);
  int npos = 20000;
  dab_game *pos = malloc((size_t)npos * sizeof *pos);
  sample_positions(&g7, npos, &rng, pos);
  double t0 = dab_now_s();
  dab_player *warm;
  if (dab_player_new("sw:3x3", &g7, env, &warm, &err)) {
    fprintf(stderr, "players_speed: %s\n", err.msg);
    return 1;
  }
  dab_player_free(warm);
  printf("window table 3x3 built in %.2f s\n", dab_now_s() - t0);
  const char *sw_specs[] = {"sw:3x3", "sw+:3x3", "sw:2x2"};
  for (int s = 0; s < 3; s++) {
    double r[64];
    for (int i = 0; i < reps && i < 64; i++) r[i] = sw_rate(sw_specs[s], env, pos, npos, &g7);
    qsort(r, (size_t)reps, sizeof *r, cmp_double);
    printf("7x7 %-8s moves/s median %.0f (min %.0f, max %.0f, %d runs of %d moves)  target >= 5000\n",
           sw_specs[s], r[reps / 2], r[0], r[reps - 1], reps, npos);
  }
  free(pos);

  /* MCTS, 5x5: playouts per second from the empty board and mid-game. */
  dab_geom g5;
  dab_geom_init(&g5, 5, 5, NULL);
  const char *m_specs[] = {"mcts:sims=50000", "mcts-bz:sims=20000"};
  for (int s = 0; s < 2; s++) {
    dab_player *p;
    if (dab_player_new(m_specs[s], &g5, env, &p, &err)) {
      fprintf(stderr, "players_speed: %s\n", err.msg);
      return 1;
    }
    for (int phase = 0; phase < 2; phase++) {
      dab_game game;
      dab_game_init(&g5, &game);
      if (phase) {  /* 20 random safe lines in */
        for (int k = 0; k < 20; k++) {
          pl_moves mv;
          pl_classify(&g5, &game.lines, &mv);
          if (!mv.nsafe) break;
          dab_game_play(&g5, &game, pl_pick(&rng, mv.safe, mv.nsafe));
        }
      }
      double r[64];
      for (int i = 0; i < reps && i < 64; i++) r[i] = pl_mcts_rate(p, &game, &rng);
      qsort(r, (size_t)reps, sizeof *r, cmp_double);
      printf("5x5 %-18s %-9s playouts/s median %.0f (min %.0f, max %.0f)  target >= 100000\n",
             m_specs[s], phase ? "mid-game" : "empty", r[reps / 2], r[0], r[reps - 1]);
    }
    dab_player_free(p);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("peak RSS %.1f MiB\n", (double)ru.ru_maxrss / 1024.0);
  dab_player_env_free(env);
  return 0;
}
