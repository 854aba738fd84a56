/*
** test_players.c: every player plays legal moves on boards 1x1..12x12,
** repeats itself from a seed, and follows its own rules; the perfect
** player never does worse than the oracle's value.
** See Copyright Notice in README.md
*/
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "game/postext.h"
#include "players/arena.h"
#include "players/pint.h"
#include "solver/retro.h"
#include "tests/testhelp.h"

static bool san;

/* Oracles build small tablebases on first use; this test keeps them in a
** directory of its own, so that it never writes into the project's
** data/tb/ (other tests expect to find it as they left it). */
static char tb_dir[64] = "/tmp/dab-test-players-XXXXXX";

static void remove_tb_dir(void) {
  DIR *d = opendir(tb_dir);
  if (!d) return;
  struct dirent *e;
  char path[512];
  while ((e = readdir(d)))
    if (e->d_name[0] != '.') {
      snprintf(path, sizeof path, "%s/%s", tb_dir, e->d_name);
      unlink(path);
    }
  closedir(d);
  rmdir(tb_dir);
}

/* A random position: each line drawn with probability fraction. */
static void random_position(const dab_geom *g, double fraction, dab_rng *rng, dab_game *game) {
  dab_game_init(g, game);
  int16_t moves[DAB_MAX_LINES];
  int n = dab_legal_moves(g, &game->lines, moves);
  for (int i = 0; i < n; i++)
    if (dab_rng_unit(rng) < fraction && !dab_game_over(g, game)) dab_game_play(g, game, moves[i]);
}

static dab_player *make(const char *spec, const dab_geom *g, dab_player_env *env) {
  dab_player *p = NULL;
  dab_err err;
  dab_status st = dab_player_new(spec, g, env, &p, &err);
  TH_CHECK(st == DAB_OK, "make %s on %dx%d: %s", spec, g->rows, g->cols, st ? err.msg : "");
  return st ? NULL : p;
}

/* Plays p0 (first) against p1 from game to the end; checks every move is
** legal.  RETURN: false after an illegal move. */
static bool play_out(const dab_geom *g, dab_player *pl[2], dab_game *game, dab_rng rng[2],
                     int16_t *history, int *nhist) {
  int n = 0;
  while (!dab_game_over(g, game)) {
    int who = game->to_move;
    int m = dab_player_move(pl[who], game, &rng[who]);
    if (m < 0 || m >= g->nlines || dab_ls_has(&game->lines, m)) {
      TH_CHECK(false, "%s played illegal line %d on %dx%d", dab_player_name(pl[who]), m, g->rows,
               g->cols);
      return false;
    }
    if (history) history[n++] = (int16_t)m;
    dab_game_play(g, game, m);
  }
  if (nhist) *nhist = n;
  return true;
}

static const char *all_specs[] = {"random", "level1", "level2", "chain", "mcts:sims=40",
                                  "mcts-bz:sims=40", "sw:2x2", "sw+:3x3", "sw:2x3,agg=mean",
                                  "ab:depth=2,nodes=3000", "perfect"};
#define NSPECS ((int)(sizeof all_specs / sizeof *all_specs))

static bool covered(const dab_geom *g) { return g->nlines <= 24; }

/* Every player, random positions on boards 1x1..12x12: a legal move each time. */
static void test_legal_fuzz(dab_player_env *env) {
  static const int sizes[][2] = {{1, 1}, {1, 2}, {2, 1}, {1, 5}, {2, 2}, {2, 3}, {3, 2}, {3, 3},
                                 {2, 4}, {3, 5}, {4, 4}, {5, 5}, {4, 7}, {7, 7}, {8, 9}, {12, 12}};
  dab_rng rng;
  dab_rng_seed(&rng, 42);
  int nsizes = (int)(sizeof sizes / sizeof *sizes);
  for (int si = 0; si < nsizes; si++) {
    dab_geom g;
    dab_geom_init(&g, sizes[si][0], sizes[si][1], NULL);
    for (int k = 0; k < NSPECS; k++) {
      if (!strcmp(all_specs[k], "perfect") && !covered(&g)) continue;
      bool big = g.nlines > 100;
      if (big && (!strncmp(all_specs[k], "mcts", 4) || !strncmp(all_specs[k], "ab", 2)) && san)
        continue;
      dab_player *p = make(all_specs[k], &g, env);
      if (!p) continue;
      int trials = san ? 4 : big ? 12 : 40, bad = 0;
      for (int t = 0; t < trials; t++) {
        dab_game game;
        random_position(&g, dab_rng_unit(&rng), &rng, &game);
        int m = dab_player_move(p, &game, &rng);
        if (dab_game_over(&g, &game)) {
          if (m != -1) bad++;
        } else if (m < 0 || m >= g.nlines || dab_ls_has(&game.lines, m)) bad++;
      }
      TH_CHECK(bad == 0, "%s on %dx%d: %d illegal moves of %d", all_specs[k], g.rows, g.cols, bad,
               trials);
      dab_player_free(p);
    }
  }
}

/* Same seed, same game; and Berlekamp's turn identity in every finished
** game from the empty board: turns = dots + double-crosses. */
static void test_determinism_and_turns(dab_player_env *env) {
  static const int sizes[][2] = {{2, 2}, {3, 3}, {3, 5}, {5, 5}, {9, 9}};
  for (int si = 0; si < 5; si++) {
    dab_geom g;
    dab_geom_init(&g, sizes[si][0], sizes[si][1], NULL);
    if (san && g.nboxes > 25) continue;
    for (int k = 0; k < NSPECS; k++) {
      if (!strcmp(all_specs[k], "perfect") && !covered(&g)) continue;
      int16_t hist[2][DAB_MAX_LINES];
      int nh[2] = {0, 0};
      for (int rep = 0; rep < 2; rep++) {
        dab_player *pl[2] = {make(all_specs[k], &g, env), make("level2", &g, env)};
        if (!pl[0] || !pl[1]) {
          dab_player_free(pl[0]);
          dab_player_free(pl[1]);
          continue;
        }
        dab_rng rng[2];
        dab_rng_seed2(&rng[0], 99, (uint64_t)si);
        dab_rng_seed2(&rng[1], 99, (uint64_t)si + 100);
        dab_game game;
        dab_game_init(&g, &game);
        if (play_out(&g, pl, &game, rng, hist[rep], &nh[rep])) {
          /* Replay to count turns and double-crosses. */
          dab_game r;
          dab_game_init(&g, &r);
          int turns = 0, dc = 0;
          for (int i = 0; i < nh[rep]; i++) {
            int c = dab_game_play(&g, &r, hist[rep][i]);
            if (c == 2) dc++;
            if (c == 0 || i == nh[rep] - 1) turns++;
          }
          int dots = (g.rows + 1) * (g.cols + 1);
          TH_CHECK(turns == dots + dc, "%s %dx%d: turns %d != dots %d + double-crosses %d",
                   all_specs[k], g.rows, g.cols, turns, dots, dc);
          TH_CHECK(game.score[0] + game.score[1] == g.nboxes && game.nmoves == g.nlines,
                   "%s %dx%d: finished game has %d+%d boxes, %d moves", all_specs[k], g.rows,
                   g.cols, game.score[0], game.score[1], game.nmoves);
        }
        dab_player_free(pl[0]);
        dab_player_free(pl[1]);
      }
      TH_CHECK(nh[0] == nh[1] && !memcmp(hist[0], hist[1], sizeof(int16_t) * (size_t)nh[0]),
               "%s on %dx%d: same seed, different games", all_specs[k], g.rows, g.cols);
    }
  }
}

/* Level 1 takes a box whenever one can be taken; level 2 also never gives
** a third side while a safe line exists. */
static void test_levels(dab_player_env *env) {
  dab_rng rng;
  dab_rng_seed(&rng, 5);
  for (int size = 2; size <= 6; size++) {
    dab_geom g;
    dab_geom_init(&g, size, size + 1, NULL);
    dab_player *l1 = make("level1", &g, env), *l2 = make("level2", &g, env);
    if (!l1 || !l2) return;
    int checked1 = 0, bad1 = 0, checked2 = 0, bad2 = 0, bad2cap = 0;
    for (int t = 0; t < (san ? 50 : 400); t++) {
      dab_game game;
      random_position(&g, 0.05 + 0.6 * dab_rng_unit(&rng), &rng, &game);
      if (dab_game_over(&g, &game)) continue;
      pl_moves mv;
      pl_classify(&g, &game.lines, &mv);
      int m1 = dab_player_move(l1, &game, &rng), m2 = dab_player_move(l2, &game, &rng);
      if (mv.ncap) {
        checked1++;
        bad1 += dab_completes(&g, &game.lines, m1) == 0;
        bad2cap += dab_completes(&g, &game.lines, m2) == 0;
      } else if (mv.nsafe) {
        checked2++;
        bad2 += pl_gives_third(&g, &game.lines, m2);
      }
    }
    TH_CHECK(checked1 > (san ? 3 : 10) && bad1 == 0, "level1 %dx%d: left a box %d times of %d", g.rows, g.cols,
             bad1, checked1);
    TH_CHECK(bad2cap == 0, "level2 %dx%d: left a box %d times", g.rows, g.cols, bad2cap);
    TH_CHECK(checked2 > (san ? 3 : 10) && bad2 == 0, "level2 %dx%d: gave a third side %d times of %d", g.rows,
             g.cols, bad2, checked2);
    dab_player_free(l1);
    dab_player_free(l2);
  }
}

static int move_at(const char *spec, const char *pos, dab_player_env *env, dab_parsed *p) {
  dab_err err;
  if (dab_parse_position(pos, p, &err)) {
    TH_CHECK(false, "parse %s: %s", pos, err.msg);
    return -2;
  }
  dab_player *pl = make(spec, &p->geom, env);
  if (!pl) return -2;
  dab_rng rng;
  dab_rng_seed(&rng, 3);
  int m = dab_player_move(pl, &p->game, &rng);
  dab_player_free(pl);
  return m;
}

/* The chain player declines the last two boxes of a chain when keeping
** control pays, and takes them all when it does not. */
static void test_chain_declines(dab_player_env *env) {
  static dab_parsed p;
  /* 2x4: every horizontal line drawn makes two 4-chains (the rows).  The
  ** opponent opened row 0 at its left end (12); we took boxes 0 and 1
  ** (13, 14).  Box 2 is capturable, box 3 has its ground string 16 left.
  ** Declining (16) keeps control of the other 4-chain: +2 net; taking
  ** (15) and opening the 4-chain nets 0. */
  const char *pos_2x4 = "2x4@0,1,2,3,4,5,6,7,8,9,10,11,12,13,14";
  int m = move_at("chain", pos_2x4, env, &p);
  TH_CHECK(m == 16, "chain 2x4: expected the all-but-two decline 16, played %d", m);
  const dab_oracle *o;
  if (dab_player_env_oracle(env, 2, 4, &o, NULL) == DAB_OK) {
    dab_analysis a;
    dab_oracle_analyze(o, &p.game.lines, &a, NULL);
    bool best = false;
    for (int i = 0; i < a.nbest; i++) best |= a.best[i] == m;
    TH_CHECK(best, "chain 2x4: move %d is not optimal (value %d)", m, a.value);
  }
  /* 3x4, three 4-chains: the same decline with two chains left. */
  m = move_at("chain", "3x4@0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18", env, &p);
  TH_CHECK(m == 20, "chain 3x4: expected the decline 20, played %d", m);
  /* 1x4, one chain: nothing left to control, so take everything (11). */
  m = move_at("chain", "1x4@0,1,2,3,4,5,6,7,8,9,10", env, &p);
  TH_CHECK(m == 11, "chain 1x4: expected to take all (11), played %d", m);
  /* Forced to open a lone 2-chain (1x2, horizontals drawn): the middle
  ** line (5), the hard-hearted handout that cannot be declined. */
  m = move_at("chain", "1x2@0,1,2,3", env, &p);
  TH_CHECK(m == 5, "chain 1x2: expected the middle line 5, played %d", m);
  /* mcts-bz sees only its two macro moves here, take all (15) or decline
  ** (16), and with chain-loop pruning and exact SLE scores (or without
  ** them) finds the decline. */
  static const char *bz[] = {"mcts-bz:sims=300", "mcts-bz:sims=300,sle=0", "mcts-bz:sims=300,sle=1"};
  for (int i = 0; i < 3; i++) {
    m = move_at(bz[i], pos_2x4, env, &p);
    TH_CHECK(m == 16, "%s 2x4: expected the decline 16, played %d", bz[i], m);
  }
}

/* The perfect player never does worse than the oracle's value: from random
** starts on 2x2, 2x3 and 3x3 its net gain is at least its guaranteed value. */
static void test_perfect(dab_player_env *env) {
  static const int sizes[][2] = {{2, 2}, {2, 3}, {3, 3}, {1, 5}};
  static const char *opp[] = {"random", "level2", "chain", "mcts:sims=50"};
  dab_rng rng;
  dab_rng_seed(&rng, 11);
  for (int si = 0; si < 4; si++) {
    dab_geom g;
    dab_geom_init(&g, sizes[si][0], sizes[si][1], NULL);
    const dab_oracle *o;
    dab_err err;
    if (dab_player_env_oracle(env, g.rows, g.cols, &o, &err)) {
      TH_CHECK(false, "oracle %dx%d: %s", g.rows, g.cols, err.msg);
      continue;
    }
    for (int tie = 0; tie < 3; tie++) {
      static const char *specs[] = {"perfect", "perfect:tie=boxes", "perfect:tie=long"};
      int games = san ? 6 : 60, worse = 0;
      for (int gi = 0; gi < games; gi++) {
        dab_game game;
        random_position(&g, 0.6 * dab_rng_unit(&rng), &rng, &game);
        if (dab_game_over(&g, &game)) continue;
        int seat = gi & 1;
        dab_player *pl[2];
        pl[seat] = make(specs[tie], &g, env);
        pl[seat ^ 1] = make(opp[gi % 4], &g, env);
        if (!pl[0] || !pl[1]) return;
        int v;
        dab_oracle_value(o, &game.lines, &v, NULL);
        int guaranteed = game.to_move == seat ? v : -v;
        int s0[2] = {game.score[0], game.score[1]};
        dab_rng r2[2];
        dab_rng_seed2(&r2[0], 5, (uint64_t)gi);
        dab_rng_seed2(&r2[1], 6, (uint64_t)gi);
        play_out(&g, pl, &game, r2, NULL, NULL);
        int net = (game.score[seat] - s0[seat]) - (game.score[seat ^ 1] - s0[seat ^ 1]);
        worse += net < guaranteed;
        dab_player_free(pl[0]);
        dab_player_free(pl[1]);
      }
      TH_CHECK(worse == 0, "%s on %dx%d: below the oracle value in %d of %d games", specs[tie],
               g.rows, g.cols, worse, games);
    }
  }
}

/* A window as big as the board is the board: sw's moves are then exact,
** which checks the window reading and the table behind it. */
static void test_sw_exact(dab_player_env *env) {
  static const int sizes[] = {1, 2, 3};
  dab_rng rng;
  dab_rng_seed(&rng, 23);
  for (int i = 0; i < 3; i++) {
    dab_geom g;
    dab_geom_init(&g, sizes[i], sizes[i], NULL);
    char spec[16];
    snprintf(spec, sizeof spec, "sw:%dx%d", sizes[i], sizes[i]);
    dab_player *p = make(spec, &g, env);
    const dab_oracle *o;
    if (!p || dab_player_env_oracle(env, g.rows, g.cols, &o, NULL)) return;
    int bad = 0, n = 0;
    for (int t = 0; t < (san ? 40 : 400); t++) {
      dab_game game;
      random_position(&g, dab_rng_unit(&rng), &rng, &game);
      if (dab_game_over(&g, &game)) continue;
      dab_analysis a;
      dab_oracle_analyze(o, &game.lines, &a, NULL);
      int m = dab_player_move(p, &game, &rng);
      bool best = false;
      for (int k = 0; k < a.nbest; k++) best |= a.best[k] == m;
      bad += !best;
      n++;
    }
    TH_CHECK(n > 0 && bad == 0, "%s on %dx%d: %d non-optimal moves of %d", spec, g.rows, g.cols, bad, n);
    dab_player_free(p);
  }
}

/* A window too big for a flat table (2x5: 27 lines) is read through the
** oracle; as big as the board it must again play exactly. */
static void test_sw_oracle_windows(void) {
  if (san) return;  /* a 2^27-entry retrograde build: too slow under ASan */
  dab_player_env *env;
  if (dab_player_env_new(tb_dir, &env, NULL)) return;
  dab_player_env_set_build_lines(env, 27);
  dab_geom g;
  dab_geom_init(&g, 2, 5, NULL);
  dab_player *p = make("sw:2x5", &g, env);
  const dab_oracle *o;
  if (p && !dab_player_env_oracle(env, 2, 5, &o, NULL)) {
    dab_rng rng;
    dab_rng_seed(&rng, 29);
    int bad = 0, n = 0;
    for (int t = 0; t < 200; t++) {
      dab_game game;
      random_position(&g, dab_rng_unit(&rng), &rng, &game);
      if (dab_game_over(&g, &game)) continue;
      dab_analysis a;
      dab_oracle_analyze(o, &game.lines, &a, NULL);
      int m = dab_player_move(p, &game, &rng);
      bool best = false;
      for (int k = 0; k < a.nbest; k++) best |= a.best[k] == m;
      bad += !best;
      n++;
    }
    TH_CHECK(n > 0 && bad == 0, "sw:2x5 through the oracle: %d non-optimal moves of %d", bad, n);
  }
  dab_player_free(p);
  dab_player_env_free(env);
}

/* perfect:solve=F (retrograde) or perfect:search=N (alpha-beta) on a board
** no oracle covers: from starts with at most F undrawn lines it never does
** worse than the retrograde value. */
static void test_perfect_endgames(dab_player_env *env, bool search) {
  dab_geom g;
  dab_geom_init(&g, 4, 4, NULL);
  dab_rng rng;
  dab_rng_seed(&rng, 17);
  int F = search ? (san ? 16 : 24) : (san ? 14 : 18), games = san ? 2 : 8, worse = 0, played = 0;
  int suboptimal = 0;
  for (int gi = 0; gi < games; gi++) {
    dab_game game;
    /* A start with exactly F undrawn lines. */
    random_position(&g, 0.0, &rng, &game);
    int16_t order[DAB_MAX_LINES];
    int n = dab_legal_moves(&g, &game.lines, order);
    for (int i = n - 1; i > 0; i--) {
      int j = dab_rng_below(&rng, i + 1);
      int16_t x = order[i];
      order[i] = order[j];
      order[j] = x;
    }
    for (int i = 0; i < g.nlines - F; i++) dab_game_play(&g, &game, order[i]);
    dab_retro *r;
    dab_retro_opts ro = {.threads = 1};
    if (dab_retro_solve(&g, dab_ls_word(&game.lines), &ro, &r, NULL)) continue;
    int v = dab_retro_value(r, dab_ls_word(&game.lines));
    int seat = gi & 1;
    char spec[48];
    if (search) snprintf(spec, sizeof spec, "perfect:search=3000000,hash=32");
    else snprintf(spec, sizeof spec, "perfect:solve=%d", F);
    dab_player *pl[2];
    pl[seat] = make(spec, &g, env);
    pl[seat ^ 1] = make(gi & 2 ? "chain" : "level2", &g, env);
    if (!pl[0] || !pl[1]) return;
    int guaranteed = game.to_move == seat ? v : -v;
    int s0[2] = {game.score[0], game.score[1]};
    dab_game start = game;
    dab_rng r2[2];
    dab_rng_seed2(&r2[0], 7, (uint64_t)gi);
    dab_rng_seed2(&r2[1], 8, (uint64_t)gi);
    int16_t hist[DAB_MAX_LINES];
    int nh = 0;
    play_out(&g, pl, &game, r2, hist, &nh);
    int net = (game.score[seat] - s0[seat]) - (game.score[seat ^ 1] - s0[seat ^ 1]);
    worse += net < guaranteed;
    /* ... and each of its moves is optimal (the table knows every one) */
    dab_analysis *an = malloc(sizeof *an);
    for (int i = 0; an && i < nh; i++) {
      if (start.to_move == seat && !dab_retro_analyze(r, dab_ls_word(&start.lines), an, NULL))
        for (int j = 0; j < an->nmoves; j++)
          if (an->move[j] == hist[i]) suboptimal += an->move_value[j] != an->value;
      dab_game_play(&g, &start, hist[i]);
    }
    free(an);
    dab_retro_free(r);
    played++;
    dab_player_free(pl[0]);
    dab_player_free(pl[1]);
  }
  TH_CHECK(played == games && worse == 0 && suboptimal == 0,
           "perfect:%s on 4x4 from %d lines: below the value in %d of %d games, %d moves not optimal",
           search ? "search" : "solve", F, worse, played, suboptimal);
}

/* perfect:search=N when N nodes prove nothing (the empty 4x4 board) plays
** the chain player's legal moves and finishes the game. */
static void test_perfect_search_fallback(dab_player_env *env) {
  dab_geom g;
  dab_geom_init(&g, 4, 4, NULL);
  dab_player *pl[2] = {make("perfect:search=2000,hash=8", &g, env), make("chain", &g, env)};
  if (!pl[0] || !pl[1]) return;
  TH_CHECK(strstr(dab_player_name(pl[0]), "search=2000"), "name: %s", dab_player_name(pl[0]));
  dab_game game;
  dab_game_init(&g, &game);
  dab_rng r2[2];
  dab_rng_seed2(&r2[0], 1, 1);
  dab_rng_seed2(&r2[1], 2, 1);
  play_out(&g, pl, &game, r2, NULL, NULL);
  TH_CHECK(dab_game_over(&g, &game) && game.score[0] + game.score[1] == g.nboxes,
           "a 4x4 game with a 2000-node budget ends with every box taken (%d + %d)", game.score[0],
           game.score[1]);
  dab_player_free(pl[0]);
  dab_player_free(pl[1]);
}

/* A caller's own player (as a learning agent would be): the lowest
** undrawn line, or an illegal line when ctx says so. */
static int lowest_line(void *ctx, const dab_geom *g, const dab_game *game, dab_rng *rng) {
  (void)rng;
  if (ctx) return 0;  /* line 0 is drawn after the first move: illegal */
  for (int m = 0; m < g->nlines; m++)
    if (!dab_ls_has(&game->lines, m)) return m;
  return -1;
}

static dab_status make_lowest(void *ctx, const dab_geom *g, dab_player **out, dab_err *err) {
  return dab_player_custom("lowest", g, lowest_line, ctx, out, err);
}

/* The match engine: both colours, consistent totals, oracle metrics that
** agree with a direct count, and a clean failure on an illegal move. */
static void test_match(dab_player_env *env) {
  dab_geom g;
  dab_geom_init(&g, 3, 3, NULL);
  const dab_oracle *o;
  if (dab_player_env_oracle(env, 3, 3, &o, NULL)) return;
  int games = san ? 10 : 60;
  dab_game_record *rec = calloc((size_t)games, sizeof *rec);
  dab_match_opts mo = {.g = &g,
                       .player = {{.make = make_lowest}, {.spec = "perfect"}},
                       .env = env,
                       .oracle = o,
                       .games = games,
                       .threads = 2,
                       .seed = 4,
                       .start_fraction = -1};
  dab_err err;
  dab_status st = dab_match_run(&mo, rec, &err);
  TH_CHECK(st == DAB_OK, "match: %s", st ? err.msg : "");
  dab_match_summary sm;
  dab_match_summarize(rec, games, &sm);
  TH_CHECK(sm.games == games && sm.wins[0] + sm.wins[1] + sm.ties == games, "match: %d games counted",
           sm.games);
  int firsts = 0;
  for (int i = 0; i < games; i++) firsts += rec[i].p1_first;
  TH_CHECK(firsts * 2 == games, "match: p1 first in %d of %d games", firsts, games);
  TH_CHECK(sm.side[1].scored == sm.side[1].moves && sm.side[1].optimal == sm.side[1].moves &&
               sm.side[1].lost == 0,
           "match: perfect scored %ld optimal of %ld", sm.side[1].optimal, sm.side[1].moves);
  TH_CHECK(sm.side[0].optimal < sm.side[0].scored && sm.side[0].lost > 0,
           "match: the lowest-line player should lose value");
  /* Perfect against a deterministic player from the empty 3x3 board: the
  ** second player wins by at least 3 (the value is -3 for the first). */
  bool ok = true;
  for (int i = 0; i < games; i++) {
    int margin = rec[i].score[1] - rec[i].score[0];
    if (rec[i].p1_first ? margin < 3 : margin < -3) ok = false;
  }
  TH_CHECK(ok, "match: perfect below the 3x3 value");
  mo.player[0].ctx = (void *)1;  /* now illegal */
  st = dab_match_run(&mo, rec, &err);
  TH_CHECK(st == DAB_EINTERNAL && strstr(err.msg, "illegal"), "match with an illegal player: %d %s", st,
           err.msg);
  free(rec);
}

/* Bad specs are refused with a message, never half-made. */
static void test_bad_specs(dab_player_env *env) {
  dab_geom g;
  dab_geom_init(&g, 3, 3, NULL);
  static const char *bad[] = {"", "nosuch", "mcts:sims=0", "mcts:sims=abc", "mcts:bogus=1",
                              "sw:9x", "sw:2x2,agg=median", "ab:depth=0", "perfect:tie=x",
                              "level1:x=1", "sw:2x2,,safe=1", "perfect:solve=99",
                              "perfect:search=0", "perfect:search=1,hash=0"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    dab_player *p = (dab_player *)1;
    dab_err err;
    err.msg[0] = 0;
    dab_status st = dab_player_new(bad[i], &g, env, &p, &err);
    TH_CHECK(st == DAB_EINPUT && p == NULL && err.msg[0] && !strchr(err.msg, '\n'),
             "spec '%s': status %d, message '%s'", bad[i], st, err.msg);
  }
  dab_geom g44;
  dab_geom_init(&g44, 4, 4, NULL);
  dab_player *p;
  TH_CHECK(dab_player_new("perfect", &g44, env, &p, NULL) == DAB_EBOARD,
           "perfect on 4x4 without tablebases should be refused");
}

int main(void) {
  san = getenv("DAB_TEST_SAN") && !strcmp(getenv("DAB_TEST_SAN"), "1");
  if (!mkdtemp(tb_dir)) {
    fprintf(stderr, "test_players: cannot make a temporary directory\n");
    return 1;
  }
  dab_player_env *env;
  if (dab_player_env_new(tb_dir, &env, NULL)) return 1;
  test_bad_specs(env);
  test_levels(env);
  test_chain_declines(env);
  test_legal_fuzz(env);
  test_determinism_and_turns(env);
  test_perfect(env);
  test_sw_exact(env);
  test_sw_oracle_windows();
  test_perfect_endgames(env, false);
  test_perfect_endgames(env, true);
  test_perfect_search_fallback(env);
  test_match(env);
  dab_player_env_free(env);
  remove_tb_dir();
  return TH_REPORT("test_players");
}
