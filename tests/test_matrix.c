/*
** test_matrix.c: matrix games: exact rationals, the payoff file parser,
** the Nash solver on games with known equilibria (a degenerate one among
** them), the published claims, and the learners (repeatable, PD -> (D,D)).
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agents/matrix.h"
#include "tests/testhelp.h"

/* The game in text, parsed; fails the test if it does not parse. */
static dab_matrix_game parse_ok(const char *text) {
  dab_matrix_game g;
  dab_err err;
  dab_status st = dab_matrix_parse(text, "t.txt", &g, &err);
  TH_CHECK(st == DAB_OK, "parse: %s", st ? err.msg : "");
  return g;
}

static dab_matrix_nash ne;

static void solve(const dab_matrix_game *g) {
  dab_err err;
  dab_status st = dab_matrix_solve(g, &ne, &err);
  TH_CHECK(st == DAB_OK, "solve %s: %s", g->name, st ? err.msg : "");
}

/* True when vertex v has the probabilities in text ("1/2 1/2"). */
static bool probs_are(const dab_matrix_vertex *v, const char *text, int n) {
  char buf[128], *save = NULL;
  snprintf(buf, sizeof buf, "%s", text);
  char *tok = strtok_r(buf, " ", &save);
  for (int i = 0; i < n; i++, tok = strtok_r(NULL, " ", &save)) {
    dab_rat r;
    if (!tok || !dab_rat_parse(tok, &r) || dab_rat_cmp(r, v->p[i])) return false;
  }
  return true;
}

/* Index of the equilibrium with row strategy x and column strategy y. */
static int has_eq(const dab_matrix_game *g, const char *x, const char *y) {
  for (int k = 0; k < ne.neq; k++)
    if (probs_are(&ne.xv[ne.eq[k].x], x, g->rows) && probs_are(&ne.yv[ne.eq[k].y], y, g->cols))
      return k;
  return -1;
}

static void test_rationals(void) {
  dab_rat a, b, c;
  TH_CHECK(dab_rat_parse("0.05", &a) && a.num == 1 && a.den == 20, "0.05 = 1/20");
  TH_CHECK(dab_rat_parse("-0.25", &a) && a.num == -1 && a.den == 4, "-0.25");
  TH_CHECK(dab_rat_parse("6/-4", &a) == false, "6/-4 refused");
  TH_CHECK(dab_rat_parse("6/4", &a) && a.num == 3 && a.den == 2, "6/4 = 3/2");
  TH_CHECK(dab_rat_parse(".5", &a) && a.num == 1 && a.den == 2, ".5");
  TH_CHECK(!dab_rat_parse("1e3", &a) && !dab_rat_parse("", &a) && !dab_rat_parse("-", &a) &&
               !dab_rat_parse("1/0", &a) && !dab_rat_parse("0.1234567891", &a) &&
               !dab_rat_parse("x", &a),
           "junk refused");
  dab_rat_parse("1/3", &a);
  dab_rat_parse("1/6", &b);
  TH_CHECK(dab_rat_add(a, b, &c) && c.num == 1 && c.den == 2, "1/3 + 1/6");
  TH_CHECK(dab_rat_sub(b, a, &c) && c.num == -1 && c.den == 6, "1/6 - 1/3");
  dab_rat big = {INT64_MAX / 2, 1};
  TH_CHECK(!dab_rat_mul(big, big, &c), "overflow reported");
  TH_CHECK(!dab_rat_div(a, dab_rat_int(0), &c), "division by zero reported");
  char buf[32];
  dab_rat_format(a, buf, sizeof buf);
  TH_CHECK(!strcmp(buf, "1/3"), "format %s", buf);
}

static void test_parser(void) {
  dab_matrix_game g = parse_ok("# stag hunt\nname stag hunt\nrows S H\ncols S H\n"
                               "4,4 0,3   # S row\n(3,0) (3, 3)\n");
  TH_CHECK(g.rows == 2 && g.cols == 2 && !strcmp(g.name, "stag hunt"), "stag hunt shape");
  TH_CHECK(!strcmp(g.row_name[1], "H") && !strcmp(g.col_name[0], "S"), "names");
  TH_CHECK(g.pay[0][1][0].num == 3 && g.pay[1][1][0].num == 0 && g.pay[1][0][1].num == 3,
           "cells read row payoff first");
  g = parse_ok("zerosum\n0 -1/4 0.5\n0.25 0 -0.05\n-.5 0.05 0\n");
  dab_matrix_game rps;
  dab_matrix_builtin("rps", &rps, NULL);
  TH_CHECK(g.rows == 3 && g.cols == 3 && !memcmp(g.pay, rps.pay, sizeof g.pay),
           "zerosum file equals the built-in biased RPS");
  TH_CHECK(!strcmp(g.row_name[2], "r3") && !strcmp(g.col_name[0], "c1"), "default names");
  g = parse_ok("1,2 3,4 5,6\n");
  TH_CHECK(g.rows == 1 && g.cols == 3, "1x3");

  static const struct {
    const char *text, *msg;
  } bad[] = {
      {"1,2 3,4\n1,2\n", "t.txt:2: 1 payoff cells; expected 2"},
      {"1,2 3\n", "t.txt:1: 3 numbers"},
      {"# c\n\n1,2 x,4\n", "t.txt:3: 'x' is not a payoff"},
      {"rows A B C\n1,1\n2,2\n", "t.txt:1: 3 row names but 2 payoff rows"},
      {"foo 1 2\n", "t.txt:1: expected a payoff row"},
      {"# nothing\n", "t.txt:1: no payoff rows"},
      {"1,1\nzerosum\n", "t.txt:2: 'zerosum' must come before"},
      {"rows A A\n1,1\n1,1\n", "t.txt:1: action name 'A' given twice"},
      {"1,1 1,1 1,1 1,1 1,1 1,1 1,1 1,1 1,1\n", "t.txt:1: more than 8 actions"},
      {"1,0.1234567891\n", "t.txt:1: '0.1234567891' is not a payoff"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    dab_err err;
    dab_status st = dab_matrix_parse(bad[i].text, "t.txt", &g, &err);
    TH_CHECK(st == DAB_EINPUT && !strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)),
             "bad file %zu: got '%s', want '%s...'", i, st ? err.msg : "ok", bad[i].msg);
  }
  dab_err err;
  TH_CHECK(dab_matrix_load("/nonexistent/dab-matrix.txt", &g, &err) == DAB_EINPUT &&
               strstr(err.msg, "/nonexistent/dab-matrix.txt"),
           "missing file named: %s", err.msg);
  TH_CHECK(dab_matrix_builtin("chess", &g, &err) == DAB_EINPUT, "unknown game refused");
}

static void test_builtins(void) {
  dab_matrix_game g;
  dab_matrix_claim cl[DAB_MATRIX_MAX_CLAIMS];

  dab_matrix_builtin("dispersion", &g, NULL);
  solve(&g);
  TH_CHECK(ne.neq == 3 && !ne.degenerate, "dispersion: 3 NEs, got %d", ne.neq);
  int ab = has_eq(&g, "1 0", "0 1"), ba = has_eq(&g, "0 1", "1 0"), m = has_eq(&g, "1/2 1/2", "1/2 1/2");
  TH_CHECK(ab >= 0 && ba >= 0 && m >= 0, "dispersion: (A,B), (B,A), mixed 1/2");
  TH_CHECK(ab >= 0 && ne.eq[ab].pure && ne.eq[ab].pareto && ne.eq[ab].value[0].num == 1,
           "dispersion (A,B) pure, Pareto, pays 1");
  TH_CHECK(m >= 0 && !ne.eq[m].pure && !ne.eq[m].pareto && !ne.eq[m].pareto_ne &&
               ne.eq[m].value[0].num == 0,
           "dispersion mixed pays 0, not Pareto");
  int n = dab_matrix_claims(&g, &ne, cl, DAB_MATRIX_MAX_CLAIMS);
  TH_CHECK(n == 2 && cl[0].holds && cl[1].holds, "dispersion claims hold");

  dab_matrix_builtin("bos", &g, NULL);
  solve(&g);
  TH_CHECK(ne.neq == 3, "bos: 3 NEs, got %d", ne.neq);
  m = has_eq(&g, "3/5 2/5", "2/5 3/5");
  TH_CHECK(has_eq(&g, "1 0", "1 0") >= 0 && has_eq(&g, "0 1", "0 1") >= 0 && m >= 0,
           "bos: (O,O), (M,M), mixed (3/5, 2/5)");
  TH_CHECK(m >= 0 && ne.eq[m].value[0].num == 6 && ne.eq[m].value[0].den == 5 &&
               ne.eq[m].value[1].num == 6 && ne.eq[m].value[1].den == 5,
           "bos mixed pays (6/5, 6/5)");
  n = dab_matrix_claims(&g, &ne, cl, DAB_MATRIX_MAX_CLAIMS);
  TH_CHECK(n == 4 && cl[0].holds && !cl[1].holds && cl[2].holds && cl[3].holds,
           "bos claims: two pure yes, (M,O)/(O,M) no, mixed yes, (O,O)/(M,M) yes");

  dab_matrix_builtin("pd", &g, NULL);
  solve(&g);
  int dd = has_eq(&g, "0 1", "0 1");
  TH_CHECK(ne.neq == 1 && dd == 0 && !ne.eq[0].pareto && ne.eq[0].pareto_ne,
           "pd: only (D,D), not Pareto optimal, undominated among NEs");
  n = dab_matrix_claims(&g, &ne, cl, DAB_MATRIX_MAX_CLAIMS);
  TH_CHECK(n == 1 && cl[0].holds, "pd claim holds");

  dab_matrix_builtin("rps", &g, NULL);
  TH_CHECK(dab_matrix_symmetric(&g), "biased RPS is symmetric");
  solve(&g);
  TH_CHECK(ne.neq == 1 && has_eq(&g, "1/16 5/8 5/16", "1/16 5/8 5/16") == 0 &&
               ne.eq[0].value[0].num == 0 && ne.eq[0].pareto,
           "rps: the one NE is mixed (1/16, 5/8, 5/16), value 0");
  n = dab_matrix_claims(&g, &ne, cl, DAB_MATRIX_MAX_CLAIMS);
  TH_CHECK(n == 2 && !cl[0].holds && cl[1].holds, "rps: (P,P) claim fails, Pareto holds");
}

static void test_other_games(void) {
  /* Matching pennies: only the mixed (1/2, 1/2). */
  dab_matrix_game g = parse_ok("1,-1 -1,1\n-1,1 1,-1\n");
  solve(&g);
  TH_CHECK(ne.neq == 1 && has_eq(&g, "1/2 1/2", "1/2 1/2") == 0 && !ne.degenerate,
           "matching pennies");
  /* A 3x3 zero-sum game: A y = 0 gives (1/4, 1/2, 1/4). */
  g = parse_ok("zerosum\n0 -1 2\n1 0 -1\n-2 1 0\n");
  solve(&g);
  TH_CHECK(ne.neq == 1 && has_eq(&g, "1/4 1/2 1/4", "1/4 1/2 1/4") == 0, "3x3 weighted RPS");
  /* A non-square game: the column player's third action is dominated. */
  g = parse_ok("3,3 0,0 1,-5\n0,0 2,2 1,-5\n");
  solve(&g);
  TH_CHECK(ne.neq == 3 && has_eq(&g, "2/5 3/5", "2/5 3/5 0") >= 0, "2x3 coordination");
  /* Degenerate: T is a best reply to every y with y_L >= 1/2, and the
  ** column player is indifferent when the row plays T.  NEs: (B,R) and the
  ** segment T x {y_L in [1/2, 1]}, whose ends are (T,L) and (T,(1/2,1/2)). */
  g = parse_ok("1,1 1,1\n0,0 2,2\n");
  solve(&g);
  TH_CHECK(ne.degenerate, "degenerate game flagged");
  TH_CHECK(ne.neq == 3 && has_eq(&g, "0 1", "0 1") >= 0 && has_eq(&g, "1 0", "1 0") >= 0 &&
               has_eq(&g, "1 0", "1/2 1/2") >= 0,
           "degenerate: extreme equilibria (B,R), (T,L), (T,(1/2,1/2)); got %d", ne.neq);
  bool seg = false;
  for (int c = 0; c < ne.ncomp; c++)
    if (__builtin_popcountll(ne.comp[c].xmask) == 1 && __builtin_popcountll(ne.comp[c].ymask) == 2)
      seg = true;
  TH_CHECK(ne.ncomp == 1 && seg, "degenerate: one continuum, T with a segment of y");
  /* All payoffs equal: every profile is an equilibrium. */
  g = parse_ok("0,0 0,0\n0,0 0,0\n");
  solve(&g);
  TH_CHECK(ne.degenerate && ne.neq == 4 && ne.ncomp == 1 &&
               __builtin_popcountll(ne.comp[0].xmask) == 2,
           "all-zero game: the whole square");
  /* Overflow is reported, not wrapped. */
  g = parse_ok("1000000000000,1/999999999999 1/999999999989,7\n"
               "1/999999999961,999999999999 3,1/999999999959\n");
  dab_err err;
  dab_status st = dab_matrix_solve(&g, &ne, &err);
  TH_CHECK(st == DAB_OK || st == DAB_EINPUT, "huge payoffs: ok or a clean error (%d)", st);
}

/* Random integer games: every listed equilibrium is one (no pure deviation
** gains, checked in doubles independently of the solver), and a
** nondegenerate game has an odd number of equilibria. */
static void test_random_games(void) {
  uint64_t state = 12345;
  int nondeg = 0, odd = 0, checked = 0, bad = 0;
  for (int t = 0; t < 300; t++) {
    dab_matrix_game g;
    memset(&g, 0, sizeof g);
    g.rows = 2 + (int)(th_splitmix64(&state) % 3);
    g.cols = 2 + (int)(th_splitmix64(&state) % 3);
    for (int s = 0; s < 2; s++)
      for (int i = 0; i < g.rows; i++)
        for (int j = 0; j < g.cols; j++)
          g.pay[s][i][j] = dab_rat_int((int64_t)(th_splitmix64(&state) % 9) - 4);
    if (dab_matrix_solve(&g, &ne, NULL) != DAB_OK) {
      bad++;
      continue;
    }
    TH_CHECK(ne.neq >= 1, "game %d: every game has an equilibrium", t);
    for (int k = 0; k < ne.neq; k++) {
      double x[DAB_MATRIX_MAX], y[DAB_MATRIX_MAX], sx = 0, sy = 0;
      for (int i = 0; i < g.rows; i++) sx += x[i] = dab_rat_to_double(ne.xv[ne.eq[k].x].p[i]);
      for (int j = 0; j < g.cols; j++) sy += y[j] = dab_rat_to_double(ne.yv[ne.eq[k].y].p[j]);
      double u0 = 0, u1 = 0, best0 = -1e9, best1 = -1e9;
      for (int i = 0; i < g.rows; i++) {
        double r = 0;
        for (int j = 0; j < g.cols; j++) {
          r += dab_rat_to_double(g.pay[0][i][j]) * y[j];
          u0 += x[i] * y[j] * dab_rat_to_double(g.pay[0][i][j]);
          u1 += x[i] * y[j] * dab_rat_to_double(g.pay[1][i][j]);
        }
        best0 = fmax(best0, r);
      }
      for (int j = 0; j < g.cols; j++) {
        double c = 0;
        for (int i = 0; i < g.rows; i++) c += x[i] * dab_rat_to_double(g.pay[1][i][j]);
        best1 = fmax(best1, c);
      }
      bool ok = fabs(sx - 1) < 1e-9 && fabs(sy - 1) < 1e-9 && best0 <= u0 + 1e-9 &&
                best1 <= u1 + 1e-9 && fabs(u0 - dab_rat_to_double(ne.eq[k].value[0])) < 1e-9;
      checked++;
      if (!ok) bad++;
    }
    if (!ne.degenerate) nondeg++, odd += ne.neq % 2;
  }
  TH_CHECK(bad == 0, "random games: %d of %d equilibria wrong", bad, checked);
  TH_CHECK(nondeg > 50 && odd == nondeg, "random nondegenerate games: %d of %d have an odd count",
           odd, nondeg);
}

typedef struct trace {
  int calls, last;
  double sum;
} trace;

static int on_policy(void *ctx, int episode, const double *row, const double *col) {
  trace *t = ctx;
  t->calls++;
  t->last = episode;
  t->sum += row[0] * 3 + col[1] + episode * 1e-9;
  return 0;
}

static void test_learners(void) {
  dab_matrix_game g;
  dab_matrix_builtin("pd", &g, NULL);
  for (int kind = 0; kind < 2; kind++) {
    dab_mlearn_params p;
    dab_mlearn_defaults((dab_mlearn_kind)kind, &p);
    double r1[2], c1[2], r2[2], c2[2];
    trace t1 = {0}, t2 = {0};
    dab_err err;
    dab_status st = dab_mlearn_run(&g, &p, 7, 0, 100, on_policy, &t1, r1, c1, &err);
    TH_CHECK(st == DAB_OK, "learn: %s", st ? err.msg : "");
    dab_mlearn_run(&g, &p, 7, 0, 100, on_policy, &t2, r2, c2, NULL);
    TH_CHECK(t1.calls == 101 && t1.last == 10000, "kind %d: callbacks %d", kind, t1.calls);
    TH_CHECK(t1.sum == t2.sum && r1[0] == r2[0] && c1[1] == c2[1], "kind %d: repeatable", kind);
    /* On BoS the seed decides where the learners go. */
    dab_matrix_game bos;
    dab_matrix_builtin("bos", &bos, NULL);
    trace t3 = {0}, t4 = {0};
    dab_mlearn_run(&bos, &p, 7, 0, 1, on_policy, &t3, NULL, NULL, NULL);
    dab_mlearn_run(&bos, &p, 8, 0, 1, on_policy, &t4, NULL, NULL, NULL);
    TH_CHECK(t3.sum != t4.sum, "kind %d: another seed, another run", kind);
    int dd = 0;
    for (int run = 0; run < 5; run++) {
      dab_mlearn_run(&g, &p, 1, (uint64_t)run, 1000, NULL, NULL, r1, c1, NULL);
      dd += r1[1] > 0.99 && c1[1] > 0.99;
    }
    TH_CHECK(dd == 5, "kind %d: PD learners end at (D,D) in %d of 5 runs", kind, dd);
  }
  dab_mlearn_params p;
  dab_mlearn_defaults(DAB_MLEARN_LENIENT, &p);
  p.kappa = 0;
  TH_CHECK(dab_mlearn_run(&g, &p, 1, 0, 1, NULL, NULL, NULL, NULL, NULL) == DAB_EINPUT,
           "kappa 0 refused");
  /* The replicator field of PD points to (D,D): x = P(C) decreases. */
  double x[2] = {0.5, 0.5}, y[2] = {0.3, 0.7}, dx[2], dy[2];
  dab_matrix_replicator(&g, x, y, dx, dy);
  TH_CHECK(dx[0] < 0 && dy[0] < 0 && fabs(dx[0] + dx[1]) < 1e-12, "replicator on PD");
  dab_matrix_builtin("rps", &g, NULL);
  double z[3] = {1.0 / 16, 5.0 / 8, 5.0 / 16}, dz[3], dw[3];
  dab_matrix_replicator(&g, z, z, dz, dw);
  TH_CHECK(fabs(dz[0]) + fabs(dz[1]) + fabs(dz[2]) < 1e-12, "RPS NE is a rest point");
}

int main(void) {
  test_rationals();
  test_parser();
  test_builtins();
  test_other_games();
  test_random_games();
  test_learners();
  return TH_REPORT("test_matrix");
}
