/*
** test_retro.c: the retrograde solver against a naive search, against its
** own plain mode, against the published values, and its error paths.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "solver/retro.h"
#include "tests/testhelp.h"

static bool san(void) { return getenv("DAB_TEST_SAN") != NULL; }

/* ---- A naive solver written from the rules alone ---------------------
** Its own board model (2D arrays of drawn flags), its own capture test,
** every move tried, memoised on the position only to keep it finite. */
typedef struct naive {
  int R, C;
  int8_t *memo; /* 2^L entries, 127 = unknown */
} naive;

static int naive_id_h(const naive *n, int r, int c) { return r * n->C + c; }
static int naive_id_v(const naive *n, int r, int c) { return (n->R + 1) * n->C + r * (n->C + 1) + c; }

static bool naive_box_done(const naive *n, uint64_t p, int r, int c) {
  return (p >> naive_id_h(n, r, c) & 1) && (p >> naive_id_h(n, r + 1, c) & 1) &&
         (p >> naive_id_v(n, r, c) & 1) && (p >> naive_id_v(n, r, c + 1) & 1);
}

static int naive_value(naive *n, uint64_t p) {
  int L = 2 * n->R * n->C + n->R + n->C;
  if (n->memo[p] != 127) return n->memo[p];
  int best = -1000, moves = 0;
  for (int m = 0; m < L; m++) {
    if (p >> m & 1) continue;
    moves++;
    uint64_t q = p | 1ull << m;
    int gained = 0;
    for (int r = 0; r < n->R; r++)
      for (int c = 0; c < n->C; c++)
        gained += naive_box_done(n, q, r, c) && !naive_box_done(n, p, r, c);
    int v = gained ? gained + naive_value(n, q) : -naive_value(n, q);
    if (v > best) best = v;
  }
  if (!moves) best = 0;
  n->memo[p] = (int8_t)best;
  return best;
}

static void test_against_naive(void) {
  int boards[][2] = {{1, 1}, {1, 2}, {1, 3}, {2, 1}, {1, 4}, {2, 2}, {2, 3}};
  for (size_t i = 0; i < sizeof boards / sizeof *boards; i++) {
    dab_geom g;
    dab_geom_init(&g, boards[i][0], boards[i][1], NULL);
    dab_retro *r;
    dab_status st = dab_retro_solve(&g, 0, NULL, &r, NULL);
    naive n = {g.rows, g.cols, malloc(1ull << g.nlines)};
    memset(n.memo, 127, 1ull << g.nlines);
    uint64_t bad = 0;
    for (uint64_t p = 0; st == DAB_OK && p < r->count; p++) bad += naive_value(&n, p) != r->value[p];
    TH_CHECK(st == DAB_OK && bad == 0, "%dx%d: %llu positions differ from the naive search",
             g.rows, g.cols, (unsigned long long)bad);
    free(n.memo);
    dab_retro_free(r);
  }
}

/* The capture rule is exact: same table as trying every move. */
static void test_capture_rule(void) {
  int boards[][2] = {{1, 5}, {1, 6}, {1, 7}, {2, 2}, {2, 3}, {3, 2}, {2, 4}, {3, 3}, {1, 8}, {2, 5}};
  size_t nb = san() ? 7 : sizeof boards / sizeof *boards;
  for (size_t i = 0; i < nb; i++) {
    dab_geom g;
    dab_geom_init(&g, boards[i][0], boards[i][1], NULL);
    dab_retro *fast, *plain;
    dab_retro_opts po = {.plain = true};
    dab_retro_solve(&g, 0, NULL, &fast, NULL);
    dab_retro_solve(&g, 0, &po, &plain, NULL);
    uint64_t bad = 0;
    for (uint64_t p = 0; p < fast->count; p++) bad += fast->value[p] != plain->value[p];
    TH_CHECK(bad == 0, "%dx%d: capture rule changed %llu of %llu values", g.rows, g.cols,
             (unsigned long long)bad, (unsigned long long)fast->count);
    dab_retro_free(fast);
    dab_retro_free(plain);
  }
}

/* Thread count does not change the table; a rooted table equals the
** whole-board table on the positions below its root. */
static void test_threads_and_roots(void) {
  dab_geom g;
  dab_geom_init(&g, san() ? 2 : 3, 3, NULL);
  dab_retro *one, *two;
  dab_retro_opts o1 = {.threads = 1}, o2 = {.threads = 2};
  dab_retro_solve(&g, 0, &o1, &one, NULL);
  dab_retro_solve(&g, 0, &o2, &two, NULL);
  TH_CHECK(memcmp(one->value, two->value, one->count) == 0, "1 and 2 threads disagree");
  uint64_t seed = 0x9e3779b97f4a7c15ull, bad = 0;
  for (int k = 0; k < 20; k++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t root = (seed >> 7) & (seed >> 29) & g.all_lines;
    dab_retro *r;
    dab_retro_solve(&g, root, &o2, &r, NULL);
    for (uint64_t q = 0; q < r->count; q++) {
      uint64_t p = root;
      int bit = 0;
      for (int m = 0; m < g.nlines; m++)
        if (!(root >> m & 1)) p |= ((q >> bit++) & 1) << m;
      bad += r->value[q] != one->value[p] || dab_retro_value(r, p) != one->value[p];
    }
    bad += dab_retro_covers(r, root) != true;
    bad += root && dab_retro_covers(r, 0);
    dab_retro_free(r);
  }
  TH_CHECK(bad == 0, "rooted tables disagree with the whole board %llu times", (unsigned long long)bad);
  dab_retro_free(one);
  dab_retro_free(two);
}

/* Published values (../shared/docs/known-values.md, beside the project): R x C, value from the
** empty board for the first player. */
static void test_known_values(void) {
  static const struct { int r, c, value; } known[] = {
      {1, 1, -1}, {1, 2, 0}, {1, 3, -1}, {1, 4, 0}, {1, 5, -1}, {1, 6, 0}, {1, 7, -1},
      {1, 8, 0},  {1, 9, -1}, {1, 10, 0}, {2, 2, 2}, {2, 3, -2}, {2, 4, 2}, {2, 5, -2},
      {2, 6, 2},  {3, 3, -3}, {3, 4, 0},  {2, 1, 0}, {4, 3, 0},
  };
  /* First-move vectors (first player's value after each first move). */
  static const struct { int r, c; const char *vec; } first[] = {
      {1, 2, "-2 -2 -2 -2 -2 0 -2"},
      {2, 2, "2 2 0 0 2 2 2 0 2 2 0 2"},
      {2, 6, "0 0 2 2 0 0 0 2 0 0 2 0 0 0 2 2 0 0 0 0 2 0 2 0 0 0 0 2 0 2 0 0"},
  };
  for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
    dab_geom g;
    dab_geom_init(&g, known[i].r, known[i].c, NULL);
    if (san() && g.nlines > 24) continue; /* big tables: plain run only */
    dab_retro *r;
    dab_err err;
    dab_status st = dab_retro_solve(&g, 0, NULL, &r, &err);
    TH_CHECK(st == DAB_OK, "%dx%d: %s", g.rows, g.cols, err.msg);
    if (st) continue;
    TH_CHECK(r->value[0] == known[i].value, "%dx%d: value %d, published %d", g.rows, g.cols,
             r->value[0], known[i].value);
    static dab_analysis a;
    dab_retro_analyze(r, 0, &a, NULL);
    for (size_t k = 0; k < sizeof first / sizeof *first; k++) {
      if (first[k].r != g.rows || first[k].c != g.cols) continue;
      const char *s = first[k].vec;
      int bad = 0;
      for (int m = 0; m < a.nmoves; m++) {
        char *end;
        long want = strtol(s, &end, 10);
        bad += end == s || a.move_value[m] != want;
        s = end;
      }
      TH_CHECK(bad == 0, "%dx%d: first-move vector differs in %d places", g.rows, g.cols, bad);
    }
    if (g.rows == 3 && g.cols == 3) {
      int bad = a.nmoves != 24;
      for (int m = 0; m < a.nmoves; m++) bad += a.move_value[m] != -3;
      TH_CHECK(bad == 0, "3x3: every first move should be worth -3");
    }
    if (g.rows == 3 && g.cols == 4) {
      int bad = a.nmoves != 31;
      for (int m = 0; m < a.nmoves; m++)
        bad += a.move_value[m] != ((m == 18 || m == 23 || m == 28) ? 0 : -2);
      TH_CHECK(bad == 0 && a.nbest == 3 && a.best[0] == 18 && a.best[1] == 23 && a.best[2] == 28,
               "3x4: all first moves -2 except 18, 23, 28 at 0");
    }
    dab_retro_free(r);
  }
}

static void test_errors(void) {
  dab_geom g;
  dab_retro *r = (dab_retro *)1;
  dab_err err;
  dab_geom_init(&g, 3, 4, NULL);
  dab_retro_opts small = {.mem_limit = 1 << 20};
  TH_CHECK(dab_retro_solve(&g, 0, &small, &r, &err) == DAB_ENOMEM && r == NULL &&
               strstr(err.msg, "needs 2048.0 MiB"),
           "memory limit refused: %s", err.msg);
  dab_geom_init(&g, 4, 4, NULL);
  TH_CHECK(dab_retro_solve(&g, 0, NULL, &r, &err) == DAB_EBOARD && strstr(err.msg, "40 undrawn"),
           "40 free lines refused: %s", err.msg);
  dab_geom_init(&g, 6, 6, NULL);
  TH_CHECK(dab_retro_solve(&g, 0, NULL, &r, &err) == DAB_EBOARD && strstr(err.msg, "84 lines"),
           "6x6 refused: %s", err.msg);
  dab_geom_init(&g, 3, 3, NULL);
  static volatile sig_atomic_t stop = 1;
  dab_retro_opts cancel = {.cancel = &stop};
  TH_CHECK(dab_retro_solve(&g, 0, &cancel, &r, &err) == DAB_ECANCELED && r == NULL,
           "cancel flag honoured");
  static dab_analysis a;
  dab_retro_solve(&g, 0x7, NULL, &r, NULL);
  TH_CHECK(dab_retro_analyze(r, 0x6, &a, &err) == DAB_EINPUT, "position above the root refused");
  dab_retro_free(r);
}

int main(void) {
  test_against_naive();
  test_capture_rule();
  test_threads_and_roots();
  test_errors();
  test_known_values();
  return TH_REPORT("test_retro");
}
