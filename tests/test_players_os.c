/*
** test_players_os.c: the OpenSpiel-project players and studies: mcts-os
** plays legal moves and finds forced wins, the published (win/draw/loss)
** sliding window keeps exactly the results the oracle keeps, and the
** minimax-study solvers agree with the oracle on 1x1..2x3.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "bench/minimax_study.h"
#include "players/player.h"
#include "tests/testhelp.h"

static dab_player *make(const char *spec, const dab_geom *g, dab_player_env *env) {
  dab_player *p = NULL;
  dab_err err;
  dab_status st = dab_player_new(spec, g, env, &p, &err);
  TH_CHECK(st == DAB_OK, "make %s on %dx%d: %s", spec, g->rows, g->cols, st ? err.msg : "");
  return st ? NULL : p;
}

/* A game reached by random lines from the empty board, `left` lines left
** undrawn (so the score and box owners are real). */
static void random_game(const dab_geom *g, int left, dab_rng *rng, dab_game *game) {
  dab_game_init(g, game);
  while (g->nlines - dab_ls_count(&game->lines) > left) {
    int16_t moves[DAB_MAX_LINES];
    int n = dab_legal_moves(g, &game->lines, moves);
    dab_game_play(g, game, moves[dab_rng_below(rng, n)]);
  }
}

static int mover_diff(const dab_game *game) {
  return game->score[game->to_move] - game->score[game->to_move ^ 1];
}

/* mcts-os finishes games with legal moves on small and big boards (the
** one-word rollouts up to 64 lines, line sets beyond). */
static void test_mcts_os_legal(void) {
  static const int sizes[][2] = {{1, 1}, {2, 2}, {3, 3}, {5, 5}, {7, 7}};
  for (int i = 0; i < 5; i++) {
    dab_geom g;
    dab_geom_init(&g, sizes[i][0], sizes[i][1], NULL);
    dab_player *p[2] = {make("mcts-os:sims=60", &g, NULL), make("random", &g, NULL)};
    if (!p[0] || !p[1]) return;
    dab_rng rng;
    dab_rng_seed(&rng, 7 + (uint64_t)i);
    dab_game game;
    dab_game_init(&g, &game);
    bool legal = true;
    while (!dab_game_over(&g, &game) && legal) {
      int m = dab_player_move(p[game.to_move], &game, &rng);
      legal = m >= 0 && m < g.nlines && !dab_ls_has(&game.lines, m);
      if (legal) dab_game_play(&g, &game, m);
    }
    TH_CHECK(legal, "mcts-os: illegal move on %dx%d", g.rows, g.cols);
    TH_CHECK(dab_player_move(p[0], &game, &rng) == -1, "mcts-os: a move after the end");
    dab_player_free(p[0]);
    dab_player_free(p[1]);
  }
}

/* In endgames with a forced win where some moves do not win, mcts-os (its
** solver proves the root) always plays a winning move. */
static void test_mcts_os_forced_win(const dab_oracle *o3) {
  const dab_geom *g = dab_oracle_geom(o3);
  dab_player *p = make("mcts-os:sims=20000", g, NULL);
  if (!p) return;
  dab_rng rng;
  dab_rng_seed(&rng, 11);
  int found = 0, tries = 0;
  while (found < 25 && tries++ < 5000) {
    dab_game game;
    random_game(g, 7, &rng, &game);
    int result, nkeep;
    int16_t keep[64];
    dab_err err;
    if (dab_oracle_result(o3, dab_ls_word(&game.lines), mover_diff(&game), &result, keep, &nkeep,
                          &err))
      break;
    if (result != DAB_WIN || nkeep == 7) continue;  /* every move wins: nothing to find */
    found++;
    for (int rep = 0; rep < 3; rep++) {
      int m = dab_player_move(p, &game, &rng);
      bool wins = false;
      for (int i = 0; i < nkeep; i++) wins |= keep[i] == m;
      TH_CHECK(wins, "mcts-os missed the forced win (played %d, %d of 7 moves win)", m, nkeep);
    }
  }
  TH_CHECK(found == 25, "only %d forced-win positions found", found);
  dab_player_free(p);
}

/* On a board the size of the window, the published sliding window plays
** exactly the moves that keep the oracle's win/draw/loss result given the
** score (all of them, uniformly), where value=net plays only moves of the
** best margin. */
static void test_sw_wdl(dab_player_env *env, const dab_oracle *o2) {
  const dab_geom *g = dab_oracle_geom(o2);
  dab_player *wdl = make("sw:2x2,value=wdl", g, env), *net = make("sw:2x2", g, env);
  if (!wdl || !net) return;
  TH_CHECK(!strcmp(dab_player_name(wdl), "sw:2x2,agg=max,border=cut,safe=0,value=wdl"), "name %s",
           dab_player_name(wdl));
  dab_rng rng;
  dab_rng_seed(&rng, 3);
  int wider = 0;
  for (int t = 0; t < 60; t++) {
    dab_game game;
    random_game(g, 2 + t % 9, &rng, &game);
    int result, nkeep;
    int16_t keep[64];
    dab_err err;
    if (dab_oracle_result(o2, dab_ls_word(&game.lines), mover_diff(&game), &result, keep, &nkeep,
                          &err))
      break;
    uint64_t want = 0, got = 0, got_net = 0;
    for (int i = 0; i < nkeep; i++) want |= 1ull << keep[i];
    for (int k = 0; k < 200; k++) {
      got |= 1ull << dab_player_move(wdl, &game, &rng);
      got_net |= 1ull << dab_player_move(net, &game, &rng);
    }
    TH_CHECK(got == want, "value=wdl played %llx, the result-keeping moves are %llx",
             (unsigned long long)got, (unsigned long long)want);
    TH_CHECK((got_net & ~want) == 0, "value=net played a move that loses the result");
    wider += got != got_net;
  }
  TH_CHECK(wider > 0, "value=wdl never differed from value=net");

  /* A hand position on 2x2: 1 7 8 by turns, then the second player draws
  ** 3 (completing the top-right box) and 6; the first player is to move,
  ** 0-1 down.  Move values: 0 and 2: -1; 4, 9, 10: +1; 5 and 11: +3.
  ** Counting the box already taken only 5 and 11 win; a window blind to
  ** it would see five winning moves. */
  dab_game game;
  dab_game_init(g, &game);
  static const int16_t seq[] = {1, 7, 8, 3, 6};
  for (int i = 0; i < 5; i++) dab_game_play(g, &game, seq[i]);
  TH_CHECK(game.to_move == 0 && game.score[0] == 0 && game.score[1] == 1, "hand position: %d-%d",
           game.score[0], game.score[1]);
  uint64_t got = 0;
  for (int k = 0; k < 300; k++) got |= 1ull << dab_player_move(wdl, &game, &rng);
  TH_CHECK(got == (1ull << 5 | 1ull << 11), "hand position: value=wdl played %llx",
           (unsigned long long)got);
  dab_player_free(wdl);
  dab_player_free(net);
}

/* value=wdl finishes games with legal moves on boards bigger than its
** windows, smaller ones (cut down) and with 2x3 windows both ways. */
static void test_sw_wdl_legal(dab_player_env *env) {
  static const int sizes[][2] = {{7, 7}, {1, 3}, {3, 5}};
  static const char *specs[] = {"sw:2x2,value=wdl", "sw:2x2,value=wdl", "sw:2x3,value=wdl,safe=1"};
  for (int i = 0; i < 3; i++) {
    dab_geom g;
    dab_geom_init(&g, sizes[i][0], sizes[i][1], NULL);
    dab_player *p[2] = {make(specs[i], &g, env), make("random", &g, NULL)};
    if (!p[0] || !p[1]) return;
    dab_rng rng;
    dab_rng_seed(&rng, 17 + (uint64_t)i);
    for (int rep = 0; rep < 4; rep++) {
      dab_game game;
      dab_game_init(&g, &game);
      bool legal = true;
      while (!dab_game_over(&g, &game) && legal) {
        int m = dab_player_move(p[(game.to_move + rep) & 1], &game, &rng);
        legal = m >= 0 && m < g.nlines && !dab_ls_has(&game.lines, m);
        if (legal) dab_game_play(&g, &game, m);
      }
      TH_CHECK(legal, "%s: illegal move on %dx%d", specs[i], g.rows, g.cols);
    }
    dab_player_free(p[0]);
    dab_player_free(p[1]);
  }
}

/* Specs: options and refusals. */
static void test_specs(dab_player_env *env) {
  dab_geom g;
  dab_geom_init(&g, 3, 3, NULL);
  dab_player *p = make("mcts-os", &g, NULL);
  if (p) TH_CHECK(!strcmp(dab_player_name(p), "mcts-os:sims=1000,c=2"), "%s", dab_player_name(p));
  dab_player_free(p);
  static const char *bad[] = {"mcts-os:sims=0", "mcts-os:time=5", "sw:2x2,value=wdl,agg=sum",
                              "sw:2x2,value=wdl,border=aware", "sw:2x2,value=best"};
  for (int i = 0; i < 5; i++) {
    dab_err err;
    dab_status st = dab_player_new(bad[i], &g, env, &p, &err);
    TH_CHECK(st == DAB_EINPUT && !p, "spec %s accepted", bad[i]);
  }
}

/* The four minimax-study solvers against the oracle: the empty board and
** random positions of 1x1..2x3 (naive where its tree is small). */
static void test_minimax_study(void) {
  static const int sizes[][2] = {{1, 1}, {1, 2}, {2, 2}, {2, 3}};
  for (int i = 0; i < 4; i++) {
    dab_geom g;
    dab_geom_init(&g, sizes[i][0], sizes[i][1], NULL);
    dab_oracle *o;
    dab_oracle_opts oo = {.threads = 1};
    dab_err err;
    if (dab_oracle_open(g.rows, g.cols, &oo, &o, &err)) {
      TH_CHECK(false, "oracle %dx%d: %s", g.rows, g.cols, err.msg);
      continue;
    }
    dab_sym *sym = dab_sym_new(&g, &err);
    dab_rng rng;
    dab_rng_seed(&rng, 5 + (uint64_t)i);
    for (int t = 0; t < 12; t++) {
      uint64_t p = 0;
      if (t) {
        dab_game game;
        random_game(&g, 1 + dab_rng_below(&rng, g.nlines), &rng, &game);
        p = dab_ls_word(&game.lines);
      }
      int ov;
      dab_oracle_value64(o, p, &ov, NULL);
      int left = g.nlines - __builtin_popcountll(p);
      ms_result r[MS_NKINDS];
      for (int k = 0; k < MS_NKINDS; k++) {
        if (k == MS_NAIVE && left > 8) continue;
        r[k] = ms_solve(&g, sym, (ms_kind)k, p, 0);
        TH_CHECK(r[k].complete && r[k].value == ov, "%s on %dx%d position %llx: %d, oracle %d",
                 ms_kind_name[k], g.rows, g.cols, (unsigned long long)p, r[k].value, ov);
      }
      if (t == 0) {
        /* The published coincidences: canonical keys and stored images
        ** expand the same nodes; the image table holds every position. */
        TH_CHECK(r[MS_TT].keys == (1ull << g.nlines) - 1, "tt keys %llu",
                 (unsigned long long)r[MS_TT].keys);
        TH_CHECK(r[MS_ALLSYM].keys == r[MS_TT].keys, "all-images keys differ from tt");
        TH_CHECK(r[MS_CANON].nodes == r[MS_ALLSYM].nodes && r[MS_CANON].keys == r[MS_CANON].nodes &&
                     r[MS_CANON].nodes < r[MS_TT].nodes,
                 "canonical/all-images nodes %llu/%llu", (unsigned long long)r[MS_CANON].nodes,
                 (unsigned long long)r[MS_ALLSYM].nodes);
      }
    }
    dab_sym_free(sym);
    dab_oracle_close(o);
  }
}

int main(void) {
  dab_player_env *env;
  dab_player_env_new(NULL, &env, NULL);
  dab_oracle *o2, *o3;
  dab_oracle_opts oo = {.threads = 1};
  if (dab_oracle_open(2, 2, &oo, &o2, NULL) || dab_oracle_open(3, 3, &oo, &o3, NULL)) {
    TH_CHECK(false, "cannot open the 2x2 and 3x3 oracles");
    return TH_REPORT("test_players_os");
  }
  test_specs(env);
  test_mcts_os_legal();
  test_mcts_os_forced_win(o3);
  test_sw_wdl(env, o2);
  test_sw_wdl_legal(env);
  test_minimax_study();
  dab_oracle_close(o2);
  dab_oracle_close(o3);
  dab_player_env_free(env);
  return TH_REPORT("test_players_os");
}
