/*
** test_limits.c: resource limits of the arena: a match run in chunks
** plays the same games as one run; a canceled player ends a long move.
** See Copyright Notice in README.md
*/
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "game/clock.h"
#include "players/arena.h"
#include "tests/testhelp.h"

/* Games 0..N-1 in one run equal the same games run in chunks of 4 (random
** starts: the pairs' shared starts follow the game numbers), and the merged
** summary equals the whole one. */
static void test_chunks(void) {
  dab_geom g;
  dab_geom_init(&g, 2, 3, NULL);
  enum { N = 22 };
  dab_game_record whole[N], part[4];
  dab_match_opts mo = {.g = &g,
                       .player = {{.spec = "level1"}, {.spec = "mcts:sims=40"}},
                       .games = N,
                       .threads = 2,
                       .seed = 9,
                       .start_fraction = 0.3};
  dab_err err;
  TH_CHECK(dab_match_run(&mo, whole, &err) == DAB_OK, "whole match: %s", err.msg);
  dab_match_summary sw, sc;
  dab_match_summarize(whole, N, &sw);
  memset(&sc, 0, sizeof sc);
  int same = 0;
  for (int first = 0; first < N; first += 4) {
    mo.first_game = first;
    mo.games = N - first < 4 ? N - first : 4;
    TH_CHECK(dab_match_run(&mo, part, &err) == DAB_OK, "chunk at %d: %s", first, err.msg);
    dab_match_summary s;
    dab_match_summarize(part, mo.games, &s);
    dab_match_summary_merge(&sc, &s);
    for (int i = 0; i < mo.games; i++) {
      const dab_game_record *a = &whole[first + i], *b = &part[i];
      same += a->done && b->done && a->p1_first == b->p1_first && a->score[0] == b->score[0] &&
              a->score[1] == b->score[1] && a->start_lines == b->start_lines &&
              !memcmp(&a->start, &b->start, sizeof a->start) && a->side[0].moves == b->side[0].moves;
    }
  }
  TH_CHECK(same == N, "chunked games equal the whole match's: %d of %d", same, N);
  TH_CHECK(sc.games == sw.games && sc.wins[0] == sw.wins[0] && sc.ties == sw.ties &&
               sc.side[1].moves == sw.side[1].moves,
           "merged totals: %d games vs %d", sc.games, sw.games);
  double d = sc.margin - sw.margin, e = sc.margin_ci - sw.margin_ci;
  TH_CHECK(d * d < 1e-18 && e * e < 1e-18, "merged margin %g +- %g vs %g +- %g", sc.margin, sc.margin_ci,
           sw.margin, sw.margin_ci);
}

/* A player told to stop returns a legal move at once, whatever its budget. */
static void test_cancel_in_move(void) {
  dab_geom g;
  dab_geom_init(&g, 3, 3, NULL);
  static const char *specs[] = {"mcts:sims=100000000", "mcts-bz:sims=100000000", "mcts-os:sims=100000000",
                                "ab:depth=40,nodes=1000000000"};
  static volatile sig_atomic_t flag = 1;
  for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
    dab_player *p;
    dab_err err;
    if (dab_player_new(specs[i], &g, NULL, &p, &err)) {
      TH_CHECK(0, "%s: %s", specs[i], err.msg);
      continue;
    }
    dab_player_set_cancel(p, &flag);
    dab_game game;
    dab_game_init(&g, &game);
    dab_rng rng;
    dab_rng_seed2(&rng, 1, i);
    double t0 = dab_now_s();
    int m = dab_player_move(p, &game, &rng);
    double dt = dab_now_s() - t0;
    TH_CHECK(m >= 0 && m < g.nlines, "%s: legal move %d", specs[i], m);
    TH_CHECK(dt < 1.0, "%s: canceled move took %.2f s", specs[i], dt);
    dab_player_free(p);
  }
}

int main(void) {
  test_chunks();
  test_cancel_in_move();
  printf("test_limits: %d passed, %d failed\n", th_passed, th_failed);
  return th_failed != 0;
}
