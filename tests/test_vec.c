/*
** test_vec.c: batches of games (capi/vec.h) against dab_game_play and
** the oracle; dab_oracle_bounds64 under a node limit; player specs through
** capi/agent_capi.h.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "capi/agent_capi.h"
#include "oracle/oracle.h"
#include "capi/vec.h"
#include "tests/testhelp.h"

#define N 64

/* Random games on rows x cols, N at a time, stepped by dab_vec_step and by
** dab_game_play side by side. */
static void test_step(int rows, int cols) {
  dab_vec *v;
  dab_err err;
  TH_CHECK(dab_vec_new(rows, cols, &v, &err) == DAB_OK, "vec %dx%d: %s", rows, cols, err.msg);
  const dab_geom *g = dab_vec_geom(v);
  uint64_t lines[N] = {0}, by1[N] = {0}, box1[N] = {0};
  int16_t score[2 * N] = {0};
  int8_t to_move[N] = {0}, reward[N];
  int64_t act[N];
  dab_game ref[N];
  for (int i = 0; i < N; i++) dab_game_init(g, &ref[i]);
  int bad = 0, steps = 0;
  for (int t = 0; t < g->nlines; t++) {
    dab_vec_random_moves(v, N, lines, (uint64_t)t, act);
    TH_CHECK(dab_vec_step(v, N, lines, by1, box1, score, to_move, act, reward, &err) == DAB_OK, "step: %s",
             err.msg);
    for (int i = 0; i < N; i++) {
      int p = ref[i].to_move;
      int k = dab_game_play(g, &ref[i], (int)act[i]);
      steps++;
      bad += k != reward[i] || dab_ls_word(&ref[i].lines) != lines[i] || ref[i].score[0] != score[2 * i] ||
             ref[i].score[1] != score[2 * i + 1] || ref[i].to_move != to_move[i] || ((by1[i] >> act[i] & 1) != (uint64_t)p);
      for (int b = 0; b < g->nboxes; b++)
        if (ref[i].owner[b] >= 0) bad += ref[i].owner[b] != (int)(box1[i] >> b & 1);
    }
  }
  TH_CHECK(bad == 0, "%dx%d: %d steps equal dab_game_play (%d differ)", rows, cols, steps, bad);
  bool all_full = true;
  for (int i = 0; i < N; i++) all_full &= lines[i] == g->all_lines;
  dab_vec_random_moves(v, N, lines, 99, act);
  TH_CHECK(all_full && act[0] == -1 && act[N - 1] == -1, "full boards: no random move");
  /* An illegal action changes nothing. */
  uint64_t zero[2] = {0, 0}, z1[2] = {0, 0}, zb[2] = {0, 0};
  int16_t zs[4] = {0};
  int8_t zt[2] = {0};
  int64_t two[2] = {0, g->nlines};
  TH_CHECK(dab_vec_step(v, 2, zero, z1, zb, zs, zt, two, NULL, &err) == DAB_EINPUT && zero[0] == 0 &&
               strstr(err.msg, "state 1"),
           "an action beyond the board is refused before any is played: %s", err.msg);
  dab_vec_free(v);
}

static void test_observe(void) {
  dab_vec *v;
  TH_CHECK(dab_vec_new(1, 1, &v, NULL) == DAB_OK, "1x1");
  /* P0 top (0), P1 left (2), P0 bottom (1), P1 right (3): box to P1 */
  uint64_t lines = 0xf, by1 = (1u << 2) | (1u << 3), box1 = 1;
  float t[36];
  TH_CHECK(dab_vec_observe(v, DAB_VEC_OPENSPIEL, 1, &lines, &by1, &box1, NULL, t) == 36, "36 floats");
  /* [state][dot][part]: dot 0 h by P0 (state 1), v by P1 (2), box P1 (2) */
  TH_CHECK(t[(1 * 4 + 0) * 3 + 0] == 1 && t[(2 * 4 + 0) * 3 + 1] == 1 && t[(2 * 4 + 0) * 3 + 2] == 1 &&
               t[(0 * 4 + 1) * 3 + 0] == 1 && t[(2 * 4 + 1) * 3 + 1] == 1 && t[(1 * 4 + 2) * 3 + 0] == 1 &&
               t[(0 * 4 + 3) * 3 + 2] == 1,
           "1x1 OpenSpiel tensor");
  float sum = 0;
  for (int i = 0; i < 36; i++) sum += t[i];
  TH_CHECK(sum == 12, "one-hot: 12 ones in 4 dots x 3 parts (%g)", (double)sum);
  int8_t pov = 1;
  TH_CHECK(dab_vec_observe(v, DAB_VEC_PLANES, 1, &lines, &by1, &box1, &pov, t) == 16 && t[8] == 1 && t[12] == 0,
           "planes: the box is player 1's");
  TH_CHECK(dab_vec_observe(v, 7, 1, &lines, &by1, &box1, NULL, t) == -1, "unknown layout");
  dab_vec_free(v);
  TH_CHECK(dab_vec_new(6, 6, &v, NULL) == DAB_EBOARD, "6x6 has 84 lines: refused");
}

static void test_labels(const char *tb_dir) {
  dab_oracle_opts oo = {.tb_dir = tb_dir, .threads = 1};
  dab_oracle *o;
  dab_err err;
  TH_CHECK(dab_oracle_open(2, 3, &oo, &o, &err) == DAB_OK, "oracle 2x3: %s", err.msg);
  dab_vec *v;
  dab_vec_new(2, 3, &v, NULL);
  uint64_t lines[N], st = 5;
  for (int i = 0; i < N; i++) lines[i] = th_splitmix64(&st) & th_splitmix64(&st) & 0x1ffff;
  int8_t lo[N], hi[N], mv[N * 17], res[N];
  uint8_t ex[N], keep[N * 17];
  int16_t diff[N];
  for (int i = 0; i < N; i++) diff[i] = (int16_t)(i % 5 - 2);
  TH_CHECK(dab_vec_values(o, v, N, lines, lo, hi, &err) == DAB_OK, "values: %s", err.msg);
  TH_CHECK(dab_vec_move_values(o, v, N, lines, mv, ex, &err) == DAB_OK, "move values: %s", err.msg);
  TH_CHECK(dab_vec_wdl(o, v, N, lines, diff, res, keep, &err) == DAB_OK, "wdl: %s", err.msg);
  int bad = 0;
  for (int i = 0; i < N; i++) {
    int val;
    int16_t m[64], mvv[64], kp[64];
    int n, r, nk;
    dab_oracle_value64(o, lines[i], &val, NULL);
    dab_oracle_move_values(o, lines[i], m, mvv, &n, NULL);
    dab_oracle_result(o, lines[i], diff[i], &r, kp, &nk, NULL);
    bad += lo[i] != val || hi[i] != val || !ex[i] || res[i] != r;
    for (int j = 0; j < n; j++) bad += mv[i * 17 + m[j]] != mvv[j];
    for (int l = 0; l < 17; l++) bad += (lines[i] >> l & 1) && mv[i * 17 + l] != DAB_VEC_NONE;
    int kc = 0;
    for (int l = 0; l < 17; l++) kc += keep[i * 17 + l];
    bad += kc != nk;
    for (int j = 0; j < nk; j++) bad += keep[i * 17 + kp[j]] != 1;
  }
  TH_CHECK(bad == 0, "batch labels equal the oracle's one by one (%d differ)", bad);
  dab_vec *v33;
  dab_vec_new(3, 3, &v33, NULL);
  TH_CHECK(dab_vec_values(o, v33, 1, lines, lo, hi, &err) == DAB_EBOARD, "another board's oracle refused");
  dab_vec_free(v33);
  dab_vec_free(v);
  dab_oracle_close(o);

  /* Bounds under a node limit: 4x4's empty board (value -2 ... proved
  ** only in bounds), no error. */
  dab_oracle_opts so = {.tb_dir = tb_dir, .threads = 1, .search = true, .search_hash = 16 << 20,
                        .search_node_limit = 20000};
  if (dab_oracle_open(4, 4, &so, &o, &err) == DAB_OK) {
    int l, h;
    TH_CHECK(dab_oracle_bounds64(o, 0, &l, &h, &err) == DAB_OK && l < h && l <= 0 && h >= -16,
             "4x4 empty board under a node limit: bounds [%d, %d]", l, h);
    uint64_t late = (1ull << 26) - 1;
    TH_CHECK(dab_oracle_bounds64(o, late, &l, &h, &err) == DAB_OK && l == h, "a late position is exact");
    dab_oracle_close(o);
  } else {
    TH_CHECK(false, "4x4 search oracle: %s", err.msg);
  }
}

static void test_capi(const char *tb_dir) {
  dab_capi_player *p;
  dab_err err;
  const char *specs[] = {"random", "chain", "mcts:sims=20", "perfect"};
  for (int s = 0; s < 4; s++) {
    TH_CHECK(dab_capi_player_new(specs[s], 2, 3, tb_dir, 1, &p, &err) == DAB_OK, "%s: %s", specs[s], err.msg);
    if (!p) continue;
    dab_geom g;
    dab_geom_init(&g, 2, 3, NULL);
    dab_game game;
    dab_game_init(&g, &game);
    int bad = 0;
    while (!dab_game_over(&g, &game)) {
      int m = -1;
      if (dab_capi_player_move(p, dab_ls_word(&game.lines), game.score[0], game.score[1], game.to_move, &m,
                               &err))
        bad++;
      if (dab_game_play(&g, &game, m) < 0) {
        bad++;
        break;
      }
    }
    TH_CHECK(bad == 0, "%s plays a whole game legally", specs[s]);
    int m;
    TH_CHECK(dab_capi_player_move(p, g.all_lines, 3, 3, 0, &m, &err) == DAB_EINPUT, "full board refused");
    TH_CHECK(dab_capi_player_move(p, 0, 1, 0, 0, &m, &err) == DAB_EINPUT, "a score without boxes refused");
    dab_capi_player_free(p);
  }
  TH_CHECK(dab_capi_player_new("nonsense", 2, 2, tb_dir, 0, &p, &err) == DAB_EINPUT && !p, "bad spec: %s",
           err.msg);
  TH_CHECK(dab_capi_player_new("q:/nonexistent/model", 2, 2, tb_dir, 0, &p, &err) != DAB_OK && !p,
           "missing model: %s", err.msg);
  TH_CHECK(dab_capi_player_new("random", 6, 6, tb_dir, 0, &p, &err) == DAB_EBOARD, "6x6 refused");
}

int main(void) {
  char tb_dir[] = "/tmp/dab-test-vec-XXXXXX";
  if (!mkdtemp(tb_dir)) return 1;
  setenv("DAB_TB_NO_PROJECT", "1", 1); /* the user's tables stay out; nothing is written */
  setenv("DAB_READONLY", "1", 1);
  test_step(2, 2);
  test_step(3, 3);
  test_step(5, 5);
  test_observe();
  test_labels(tb_dir);
  test_capi(tb_dir);
  rmdir(tb_dir);
  return TH_REPORT("test_vec");
}
