/*
** test_nn.c: the networks of seed paper 002: genotype, forward pass, GA
** operators, fitness schemes, the level-1 net, model files, exact resume.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agents/nn.h"
#include "players/player.h"
#include "tests/testhelp.h"

static dab_geom geom(int r, int c) {
  dab_geom g;
  dab_geom_init(&g, r, c, NULL);
  return g;
}

static double sig(double z) { return 1.0 / (1.0 + exp(-z)); }

static void test_genotype(void) {
  TH_CHECK(dab_nn_gene_value(0) == -64.0 && dab_nn_gene_value(1023) == 64.0, "ends");
  TH_CHECK(fabs(dab_nn_gene_value(511) + 0.06256) < 1e-4, "511 -> %f", dab_nn_gene_value(511));
  TH_CHECK(fabs(dab_nn_gene_value(512) - 0.06256) < 1e-4, "512 -> %f", dab_nn_gene_value(512));
  bool zero = false, even = true;
  for (int k = 0; k < 1024; k++) {
    zero |= dab_nn_gene_value(k) == 0.0;
    if (k && fabs(dab_nn_gene_value(k) - dab_nn_gene_value(k - 1) - 128.0 / 1023) > 1e-12) even = false;
  }
  TH_CHECK(!zero && even, "no zero, even spacing");
  dab_geom g = geom(3, 3);
  dab_nn nn;
  TH_CHECK(dab_nn_init(&nn, &g, NULL) == DAB_OK, "init");
  TH_CHECK(dab_nn_nweights(&nn) == 465, "3x3 has 465 weights (paper: 465), got %d", dab_nn_nweights(&nn));
  TH_CHECK(dab_nn_nweights(&nn) * 10 == 582 * 8 - 6, "582 bytes, 6 bits unused");
  uint16_t genes[465];
  for (int k = 0; k < 465; k++) genes[k] = (uint16_t)((k * 37) % 1024);
  dab_nn_decode(&nn, genes);
  /* Genotype order: hidden 0's 24 input weights then its threshold, ... */
  TH_CHECK(nn.w_ih[5 * nn.hpad + 0] == (float)dab_nn_gene_value(genes[5]), "w(in 5 -> hid 0)");
  TH_CHECK(nn.th_h[0] == (float)dab_nn_gene_value(genes[24]), "hidden 0 threshold");
  TH_CHECK(nn.w_ih[3 * nn.hpad + 2] == (float)dab_nn_gene_value(genes[2 * 25 + 3]), "w(in 3 -> hid 2)");
  TH_CHECK(nn.w_ho[4 * nn.opad + 7] == (float)dab_nn_gene_value(genes[225 + 7 * 10 + 4]), "w(hid 4 -> out 7)");
  TH_CHECK(nn.th_o[23] == (float)dab_nn_gene_value(genes[464]), "last output threshold");
  dab_nn_free(&nn);
}

/* A 1x1 net (4-1-4) by hand. */
static void test_forward(void) {
  dab_geom g = geom(1, 1);
  dab_nn nn;
  dab_nn_init(&nn, &g, NULL);
  TH_CHECK(dab_nn_nweights(&nn) == 4 + 1 + 4 * 2, "1x1: 13 weights");
  uint16_t genes[13] = {600, 700, 300, 1000, 520, /* hidden: 4 inputs, threshold */
                        900, 100, 200, 800, 512, 511, 1023, 0};
  dab_nn_decode(&nn, genes);
  uint64_t p = (1u << 1) | (1u << 3); /* lines 1 and 3 drawn */
  float hid[8], out[8];
  dab_nn_forward64(&nn, p, hid, out);
  double v[13];
  for (int k = 0; k < 13; k++) v[k] = dab_nn_gene_value(genes[k]);
  double h = sig(v[1] + v[3] - v[4]);
  TH_CHECK(fabs(hid[0] - h) < 1e-6, "hidden %f vs %f", hid[0], h);
  for (int m = 0; m < 4; m++) {
    double y = sig(v[5 + 2 * m] * h - v[6 + 2 * m]);
    TH_CHECK(fabs(out[m] - y) < 1e-6, "output %d: %f vs %f", m, out[m], y);
  }
  dab_lineset s = dab_ls_from_word(p);
  float hid2[8], out2[8];
  dab_nn_forward(&nn, &s, hid2, out2);
  TH_CHECK(memcmp(out, out2, 4 * sizeof(float)) == 0, "both forward paths agree");
  /* Legal lines 0 and 2: output 0 = sig(53.7 h + 49.7) vs output 2 = sig(-15 h + 0.06). */
  uint64_t best = dab_nn_best64(&nn, p, 0x5);
  TH_CHECK(best == ((out[0] >= out[2] ? 1u : 0u) | (out[2] >= out[0] ? 4u : 0u)), "best of legal");
  dab_nn_free(&nn);
}

/* Beyond the paper: a 4-2-3-4 net with a second hidden layer and linear
** outputs, by hand; its model file round trip. */
static void test_deep(void) {
  dab_geom g = geom(1, 1);
  dab_nn nn;
  TH_CHECK(dab_nn_init_deep(&nn, 4, 0, 0, 4, NULL) == DAB_EINPUT, "no hidden units refused");
  TH_CHECK(dab_nn_init_deep(&nn, 4, 2, DAB_NN_MAX_HIDDEN + 1, 4, NULL) == DAB_EINPUT, "too many refused");
  TH_CHECK(dab_nn_init_deep(&nn, 4, 2, 3, 4, NULL) == DAB_OK, "init 4-2-3-4");
  nn.linear = true;
  int nw = dab_nn_nweights(&nn);
  TH_CHECK(nw == 2 * 5 + 3 * 3 + 4 * 4, "weights %d", nw);
  double v[35];
  for (int k = 0; k < 35; k++) {
    v[k] = (double)(float)(0.37 * ((k * 7) % 11) - 1.6);
    *dab_nn_weight(&nn, k) = (float)v[k];
  }
  uint64_t p = (1u << 0) | (1u << 2);
  double h1[2], h2[3], z[4];
  for (int j = 0; j < 2; j++) h1[j] = sig(v[5 * j + 0] + v[5 * j + 2] - v[5 * j + 4]);
  for (int k = 0; k < 3; k++) h2[k] = sig(v[10 + 3 * k] * h1[0] + v[10 + 3 * k + 1] * h1[1] - v[10 + 3 * k + 2]);
  for (int m = 0; m < 4; m++)
    z[m] = v[19 + 4 * m] * h2[0] + v[19 + 4 * m + 1] * h2[1] + v[19 + 4 * m + 2] * h2[2] - v[19 + 4 * m + 3];
  float hid[16 + 16], out[8];
  dab_nn_forward64(&nn, p, hid, out);
  bool ok = true;
  for (int m = 0; m < 4; m++) ok &= fabs(out[m] - z[m]) < 1e-5;
  TH_CHECK(ok, "linear outputs: %f %f %f %f vs %f %f %f %f", out[0], out[1], out[2], out[3], z[0], z[1], z[2], z[3]);
  TH_CHECK(fabs(hid[nn.hpad + 1] - h2[1]) < 1e-6, "second layer %f vs %f", hid[nn.hpad + 1], h2[1]);
  dab_lineset s = dab_ls_from_word(p);
  float hid2[32], out2[8];
  dab_nn_forward(&nn, &s, hid2, out2);
  TH_CHECK(memcmp(out, out2, 4 * sizeof(float)) == 0, "both forward paths agree");
  TH_CHECK(dab_nn_best64(&nn, p, 0xa) == (z[1] > z[3] ? 2u : 8u), "best of legal 1, 3 by z");
  char path[] = "/tmp/dab-test-nn-XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  dab_nn back;
  dab_model_header h;
  dab_err err;
  dab_status st = dab_nn_save(path, &nn, &g, "method=deep", &err);
  if (!st) st = dab_nn_load(path, &g, &back, &h, &err);
  TH_CHECK(st == DAB_OK, "deep round trip: %s", st ? err.msg : "");
  if (!st) {
    bool same = back.nhid == 2 && back.nhid2 == 3 && back.linear;
    for (int k = 0; same && k < nw; k++) same = *dab_nn_weight(&nn, k) == *dab_nn_weight(&back, k);
    TH_CHECK(same, "NNW2 keeps the shape, the linear flag and every weight");
    dab_nn_free(&back);
  }
  unlink(path);
  dab_nn_free(&nn);
}

static void test_crossover(void) {
  uint16_t a[5], b[5], c1[5], c2[5];
  for (int i = 0; i < 5; i++) a[i] = 0, b[i] = 1023;
  dab_ga_crossover(a, b, c1, c2, 5, 13);
  TH_CHECK(c1[0] == 0 && c1[1] == 127 && c1[2] == 1023 && c1[4] == 1023, "c1 %d %d %d", c1[0], c1[1], c1[2]);
  TH_CHECK(c2[0] == 1023 && c2[1] == 896 && c2[2] == 0 && c2[4] == 0, "c2 %d %d %d", c2[0], c2[1], c2[2]);
  dab_ga_crossover(a, b, c1, c2, 5, 20);
  TH_CHECK(c1[1] == 0 && c1[2] == 1023 && c2[1] == 1023 && c2[2] == 0, "point on a gene boundary");
  dab_ga_crossover(a, b, c1, c2, 5, 49);
  TH_CHECK(c1[3] == 0 && c1[4] == 1 && c2[4] == 1022, "last bit only: %d %d", c1[4], c2[4]);
}

static void test_mutation(void) {
  dab_rng rng;
  dab_rng_seed(&rng, 7);
  int ng = 465;
  uint16_t g0[465], g1[465];
  memset(g0, 0, sizeof g0);
  long total = 0, first_half = 0, bits = 0;
  int trials = 400;
  for (int t = 0; t < trials; t++) {
    memset(g1, 0, sizeof g1);
    long f = dab_ga_mutate(g1, ng, 0.005, &rng);
    total += f;
    for (int k = 0; k < ng; k++) {
      bits += __builtin_popcount(g1[k]);
      if (k < ng / 2) first_half += __builtin_popcount(g1[k]);
    }
  }
  double mean = (double)total / trials, expect = 4650 * 0.005; /* 23.25, sd/trial 4.8 */
  TH_CHECK(fabs(mean - expect) < 4 * 4.81 / sqrt(trials), "mean flips %.3f vs %.3f", mean, expect);
  TH_CHECK(bits == total, "each flip sets one bit (%ld vs %ld)", bits, total);
  double share = (double)first_half / (double)bits;
  TH_CHECK(fabs(share - 2320.0 / 4650) < 0.02, "flips spread evenly: %.3f", share);
  total = 0;
  for (int t = 0; t < 2000; t++) total += dab_ga_mutate(g0, ng, 0.00072, &rng);
  mean = (double)total / 2000; /* 3.348, sd 1.83 */
  TH_CHECK(fabs(mean - 3.348) < 4 * 1.83 / sqrt(2000), "low rate mean %.3f", mean);
  TH_CHECK(dab_ga_mutate(g0, ng, 0.0, &rng) == 0, "rate 0");
}

static void test_selection_scaling(void) {
  dab_rng rng;
  dab_rng_seed(&rng, 11);
  double fit[4] = {1, 2, 3, 4};
  long count[4] = {0};
  int draws = 200000;
  for (int t = 0; t < draws; t++) count[dab_ga_select(fit, 4, 10, &rng)]++;
  for (int i = 0; i < 4; i++) {
    double sd = sqrt(fit[i] / 10 * (1 - fit[i] / 10) / draws);
    TH_CHECK(fabs((double)count[i] / draws - fit[i] / 10) < 4 * sd, "select %d: %.4f", i, (double)count[i] / draws);
  }
  double raw[100], sc[100];
  for (int i = 0; i < 100; i++) raw[i] = 5.0 + 0.01 * (i % 7);
  raw[42] = 6.0;
  dab_ga_scale(raw, sc, 100, 10.0);
  double sum = 0, rsum = 0;
  for (int i = 0; i < 100; i++) sum += sc[i], rsum += raw[i];
  TH_CHECK(fabs(sc[42] / sum - 0.10) < 1e-9, "best takes 10%%: %.6f", sc[42] / sum);
  TH_CHECK(fabs(sum - rsum) < 1e-9, "mean kept");
  /* A spread population: scaling would go negative, so the worst maps to 0. */
  for (int i = 0; i < 100; i++) raw[i] = i;
  dab_ga_scale(raw, sc, 100, 10.0);
  sum = 0;
  for (int i = 0; i < 100; i++) sum += sc[i];
  TH_CHECK(fabs(sc[0]) < 1e-9 && fabs(sum - 4950) < 1e-6 && sc[99] / sum < 0.10, "fallback scaling");
  for (int i = 0; i < 100; i++) raw[i] = 3;
  dab_ga_scale(raw, sc, 100, 10.0);
  TH_CHECK(sc[0] == 3 && sc[99] == 3, "all equal: unchanged");
}

static void test_elitism(void) {
  dab_rng rng;
  dab_rng_seed(&rng, 3);
  int n = 10, ng = 50;
  uint16_t pop[500], next[500];
  dab_ga_random(pop, n * ng, &rng);
  double fit[10] = {1, 1, 1, 1, 1, 1, 9, 1, 1, 1};
  dab_ga_params par = {1.0, 0.5};
  int e = dab_ga_generation(pop, fit, n, ng, next, &par, &rng);
  TH_CHECK(e == 6 && memcmp(next, pop + 6 * ng, sizeof(uint16_t) * (size_t)ng) == 0, "elite kept unchanged");
  int same = 0;
  for (int i = 1; i < n; i++) same += memcmp(next + i * ng, pop + 6 * ng, sizeof(uint16_t) * (size_t)ng) == 0;
  TH_CHECK(same == 0, "the others were mutated (rate 0.5)");
  dab_ga_params none = {0.0, 0.0};
  double only[10] = {0, 0, 0, 5, 0, 0, 0, 0, 0, 0};
  dab_ga_generation(pop, only, n, ng, next, &none, &rng);
  same = 0;
  for (int i = 0; i < n; i++) same += memcmp(next + i * ng, pop + 3 * ng, sizeof(uint16_t) * (size_t)ng) == 0;
  TH_CHECK(same == n, "all fitness on one: all copies of it");
}

/* Stub matches: a's strength is its index; the stronger wins both games,
** equal strength splits.  Member 5 ties both games against member 6. */
static int stub_calls;
static int stub_match(void *ctx, int a, int b, uint64_t seed) {
  (void)ctx;
  (void)seed;
  stub_calls++;
  if (b < 0) return a % 3 == 0 ? 6 : (a % 3 == 1 ? 3 : 0); /* vs fixed: 2, 1, 0 wins */
  if ((a == 5 && b == 6) || (a == 6 && b == 5)) return 2;
  return a > b ? 6 : (a < b ? 0 : 3);
}

/* Antibodies win one game against antigens of lower index, both when
** the gap is at least 10. */
static int stub_ifs(void *ctx, int a, int b, uint64_t seed) {
  (void)ctx;
  (void)seed;
  stub_calls++;
  return a - b >= 10 ? 6 : (a > b ? 3 : 0);
}

static void test_fitness(void) {
  double fit[100];
  stub_calls = 0;
  dab_ga_fitness_direct(9, 10, stub_match, NULL, 1, 1e-6, 0, fit);
  TH_CHECK(stub_calls == 90, "direct: 10 matches each");
  TH_CHECK(fabs(fit[0] - 10 - 1e-6) < 1e-12 && fabs(fit[1] - 5 - 1e-6) < 1e-12 && fabs(fit[2] - 1e-6) < 1e-12,
           "direct scores %g %g %g", fit[0], fit[1], fit[2]);
  double want[9];
  dab_ga_scale(fit, want, 9, 3.0);
  dab_ga_fitness_direct(9, 10, stub_match, NULL, 1, 1e-6, 3.0, fit);
  TH_CHECK(memcmp(fit, want, sizeof want) == 0 && fit[2] == 0, "direct: scaled after the bonus");
  double sum = 0;
  stub_calls = 0;
  dab_ga_fitness_roundrobin(10, stub_match, NULL, 1, 0, fit);
  TH_CHECK(stub_calls == 45, "round robin: every pair once (%d)", stub_calls);
  TH_CHECK(fit[9] == 9 && fit[0] == 0 && fit[4] == 4 && fit[5] == 5.5 && fit[6] == 5.5,
           "round robin scores %g %g %g %g", fit[9], fit[4], fit[5], fit[6]);
  dab_rng rng;
  dab_rng_seed(&rng, 5);
  stub_calls = 0;
  long played = dab_ga_fitness_ifs(100, 0.25, 0.33, 33, stub_ifs, NULL, &rng, 1, 0, fit);
  TH_CHECK(played == 25 * 33 && stub_calls == 825, "IFS: 25 antigens x 33 antibodies = %ld", played);
  sum = 0;
  for (int i = 0; i < 100; i++) sum += fit[i];
  double r = fmod(sum, 33.0);
  TH_CHECK(r < 1e-6 || 33 - r < 1e-6, "IFS: 33 points per beaten antigen (total %g)", sum);
  TH_CHECK(fit[0] == 0, "IFS: the weakest never scores");
  /* One antigen (index 0, via a 1-member-antigen run) met by all others:
  ** 1..9 win once (1 share), 10..99 both (4 shares). */
  double f2[100];
  dab_rng_seed(&rng, 5);
  dab_ga_fitness_ifs(100, 0.01, 0.99, 33, stub_ifs, NULL, &rng, 1, 0, f2);
  int ag = -1;
  for (int i = 0; i < 100; i++)
    if (f2[i] == 0 && i != 0) ag = i;
  if (ag < 0) ag = 0;
  double w1 = 0, w4 = 0;
  int n1 = 0, n4 = 0;
  for (int i = 0; i < 100; i++) {
    if (i == ag) continue;
    if (i - ag >= 10) w4 += f2[i], n4++;
    else if (i > ag) w1 += f2[i], n1++;
    else TH_CHECK(f2[i] == 0, "loser %d scores nothing", i);
  }
  double per_share = 33.0 / (4 * n4 + n1);
  TH_CHECK(fabs(w4 - 4 * n4 * per_share) < 1e-9 && fabs(w1 - n1 * per_share) < 1e-9,
           "IFS shares 4:1 (antigen %d)", ag);
}

/* The hand-wired net plays as level1: same best set, same moves. */
static void test_level1_net(int rows, int cols) {
  dab_geom g = geom(rows, cols);
  dab_nn nn;
  dab_nn_init(&nn, &g, NULL);
  uint16_t *genes = malloc(sizeof(uint16_t) * (size_t)dab_nn_nweights(&nn));
  dab_nn_level1_genes(&g, genes);
  dab_nn_decode(&nn, genes);
  dab_player *l1 = NULL;
  dab_player_new("level1", &g, NULL, &l1, NULL);
  dab_rng rng;
  dab_rng_seed(&rng, 99);
  int bad_sets = 0, bad_moves = 0, positions = 0;
  for (int game = 0; game < 400; game++) {
    dab_game gm;
    dab_game_init(&g, &gm);
    while (!dab_game_over(&g, &gm)) {
      uint64_t p = dab_ls_word(&gm.lines), legal = g.all_lines & ~p;
      uint64_t three = dab64_three_sided(&g, p);
      uint64_t cap = dab64_lines_of_boxes(&g, three) & legal;
      uint64_t want = cap ? cap : legal;
      bad_sets += dab_nn_best64(&nn, p, legal) != want;
      dab_rng r1 = rng, r2 = rng;
      int a = dab_player_move(l1, &gm, &r1), b = dab_nn_move(&nn, &g, &gm.lines, &r2);
      bad_moves += a != b || memcmp(&r1, &r2, sizeof r1) != 0;
      positions++;
      /* Walk on by random moves so that every kind of position comes up. */
      int16_t mv[DAB_MAX_LINES];
      int n = dab_legal_moves(&g, &gm.lines, mv);
      dab_game_play(&g, &gm, mv[dab_rng_below(&rng, n)]);
    }
  }
  TH_CHECK(bad_sets == 0, "%dx%d: level1 net's best set differs in %d of %d positions", rows, cols, bad_sets,
           positions);
  TH_CHECK(bad_moves == 0, "%dx%d: level1 net's move differs from level1 in %d of %d", rows, cols, bad_moves,
           positions);
  /* Whole games with a shared rng stream: identical outcomes. */
  int diff_games = 0;
  for (int k = 0; k < 2000; k++) {
    dab_rng a, b;
    dab_rng_seed2(&a, 1234, (uint64_t)k);
    b = a;
    dab_nn_side net = {&nn, 0}, lv1 = {NULL, 1}, rnd = {NULL, 0};
    int x = dab_nn_play(&g, net, rnd, &a), y = dab_nn_play(&g, lv1, rnd, &b);
    diff_games += x != y || memcmp(&a, &b, sizeof a) != 0;
  }
  TH_CHECK(diff_games == 0, "%dx%d: %d of 2000 games differ", rows, cols, diff_games);
  dab_player_free(l1);
  free(genes);
  dab_nn_free(&nn);
}

/* The fast loop's heuristics draw as the players do. */
static void test_heuristics(void) {
  dab_geom g = geom(3, 3);
  const char *spec[3] = {"random", "level1", "level2"};
  for (int lv = 0; lv < 3; lv++) {
    dab_player *pl = NULL;
    dab_player_new(spec[lv], &g, NULL, &pl, NULL);
    dab_rng rng;
    dab_rng_seed(&rng, (uint64_t)lv);
    int bad = 0;
    for (int game = 0; game < 300; game++) {
      dab_game gm;
      dab_game_init(&g, &gm);
      while (!dab_game_over(&g, &gm)) {
        uint64_t p = dab_ls_word(&gm.lines);
        dab_rng r1 = rng, r2 = rng;
        int a = dab_player_move(pl, &gm, &r1);
        int b = dab_nn_heuristic_move(&g, p, g.all_lines & ~p, lv, &r2);
        bad += a != b;
        int16_t mv[DAB_MAX_LINES];
        int n = dab_legal_moves(&g, &gm.lines, mv);
        dab_game_play(&g, &gm, mv[dab_rng_below(&rng, n)]);
      }
    }
    TH_CHECK(bad == 0, "fast %s differs in %d positions", spec[lv], bad);
    dab_player_free(pl);
  }
}

/* Model files: round trip, the nn:FILE player, damaged files refused. */
static void test_model(void) {
  dab_geom g = geom(3, 3);
  dab_nn nn, back;
  dab_nn_init(&nn, &g, NULL);
  uint16_t genes[465];
  dab_nn_level1_genes(&g, genes);
  dab_nn_decode(&nn, genes);
  *dab_nn_weight(&nn, 7) = 0.123456789f; /* off the genotype's grid */
  char path[] = "/tmp/dab-test-nn-XXXXXX";
  int fd = mkstemp(path);
  TH_CHECK(fd >= 0, "temp file");
  if (fd < 0) return;
  close(fd);
  dab_err err;
  dab_status st = dab_nn_save(path, &nn, &g, "method=test", &err);
  TH_CHECK(st == DAB_OK, "save: %s", st ? err.msg : "");
  dab_model_header h;
  st = dab_nn_load(path, &g, &back, &h, &err);
  TH_CHECK(st == DAB_OK, "load: %s", st ? err.msg : "");
  bool same = st == DAB_OK;
  for (int k = 0; same && k < dab_nn_nweights(&nn); k++) same = *dab_nn_weight(&nn, k) == *dab_nn_weight(&back, k);
  TH_CHECK(same && !strcmp(h.params, "method=test"), "round trip keeps every weight and the params");
  if (st == DAB_OK) dab_nn_free(&back);
  dab_geom g2 = geom(2, 2);
  st = dab_nn_load(path, &g2, &back, &h, &err);
  TH_CHECK(st == DAB_EBOARD, "another board refused (%d)", st);
  /* The nn:FILE spec plays as level1 does. */
  dab_player_env *env = NULL;
  dab_player_env_new(NULL, &env, NULL);
  dab_agents_register(env, NULL);
  char spec[64];
  snprintf(spec, sizeof spec, "nn:%s", path);
  dab_player *pl = NULL, *l1 = NULL;
  st = dab_player_new(spec, &g, env, &pl, &err);
  TH_CHECK(st == DAB_OK, "player %s: %s", spec, st ? err.msg : "");
  dab_player_new("level1", &g, NULL, &l1, NULL);
  if (pl) {
    dab_rng rng;
    dab_rng_seed(&rng, 4);
    int diff = 0;
    for (int k = 0; k < 50; k++) {
      dab_game gm;
      dab_game_init(&g, &gm);
      while (!dab_game_over(&g, &gm)) {
        dab_rng a = rng, b = rng;
        diff += dab_player_move(pl, &gm, &a) != dab_player_move(l1, &gm, &b);
        int16_t mv[DAB_MAX_LINES];
        int n = dab_legal_moves(&g, &gm.lines, mv);
        dab_game_play(&g, &gm, mv[dab_rng_below(&rng, n)]);
      }
    }
    TH_CHECK(diff == 0, "nn:FILE of the level1 net plays as level1 (%d differ)", diff);
    dab_player_free(pl);
  }
  dab_player_free(l1);
  /* Damage: one flipped byte, then a truncation. */
  FILE *f = fopen(path, "r+b");
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, size / 2, SEEK_SET);
  int c = fgetc(f);
  fseek(f, size / 2, SEEK_SET);
  fputc(c ^ 0x10, f);
  fclose(f);
  st = dab_nn_load(path, &g, &back, &h, &err);
  TH_CHECK(st == DAB_ECORRUPT, "flipped byte refused (%d)", st);
  st = dab_player_new(spec, &g, env, &pl, &err);
  TH_CHECK(st != DAB_OK && pl == NULL, "damaged file: no player");
  TH_CHECK(truncate(path, size - 5) == 0, "truncate");
  st = dab_nn_load(path, &g, &back, &h, &err);
  TH_CHECK(st == DAB_ECORRUPT, "truncated file refused (%d)", st);
  unlink(path);
  st = dab_nn_load(path, &g, &back, &h, &err);
  TH_CHECK(st == DAB_EINPUT, "missing file is bad input (%d)", st);
  dab_player_env_free(env);
  dab_nn_free(&nn);
}

/* ---- Stop and resume: the same model as an uninterrupted run --------------- */

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(len > 0 ? (size_t)len : 1);
  *n = b && len > 0 ? fread(b, 1, (size_t)len, f) : 0;
  fclose(f);
  return b;
}

static bool same_file(const char *a, const char *b) {
  size_t na = 0, nb = 0;
  uint8_t *fa = slurp(a, &na), *fb = slurp(b, &nb);
  bool same = fa && fb && na == nb && na > 0 && memcmp(fa, fb, na) == 0;
  free(fa);
  free(fb);
  return same;
}

/* `dab train nn` through the kind's function, train_threads threads, seed 5, on the
** options opts ("key=value" words). */
static int train_threads = 1;
static dab_status train_nn(dab_player_env *env, const dab_geom *g, const char *const *opts, long gens,
                           long stop_at, const char *resume, const char *out, const char *ckpt,
                           dab_err *err) {
  dab_kopts k;
  memset(&k, 0, sizeof k);
  char words[DAB_KOPTS_MAX][64];
  for (; opts[k.n] && k.n < DAB_KOPTS_MAX; k.n++) {
    snprintf(words[k.n], sizeof words[k.n], "%s", opts[k.n]);
    char *eq = strchr(words[k.n], '=');
    *eq = 0;
    k.key[k.n] = words[k.n];
    k.val[k.n] = eq + 1;
  }
  dab_train_ctx t = {.g = g, .seed = 5, .threads = train_threads, .generations = gens, .snapshot_every = 2,
                     .grade_games = 10, .out = out, .checkpoint = ckpt, .resume = resume,
                     .stop_at = stop_at, .env = env, .kopts = &k};
  return dab_agent_train_nn(&t, err);
}

/* A run of gens steps straight, stopped after `stop` then resumed, and
** straight on 3 threads: byte-identical models.  A resume asking for
** another length is refused. */
static void check_resume(dab_player_env *env, const dab_geom *g, const char *dir, const char *what,
                         const char *const *opts, long gens, long stop) {
  char a[128], b[128], c[128];
  snprintf(a, sizeof a, "%s/straight.dab", dir);
  snprintf(b, sizeof b, "%s/resumed.dab", dir);
  snprintf(c, sizeof c, "%s/half.ckpt", dir);
  dab_err err;
  dab_status st = train_nn(env, g, opts, gens, 0, NULL, a, c, &err);
  TH_CHECK(st == DAB_OK, "%s straight: %s", what, st ? err.msg : "");
  unlink(b);
  st = train_nn(env, g, opts, gens, stop, NULL, b, c, &err);
  TH_CHECK(st == DAB_ECANCELED && access(b, F_OK) != 0, "%s: stopped (%d), no model yet", what, st);
  st = train_nn(env, g, opts, gens + 1, 0, c, b, c, &err);
  TH_CHECK(st == DAB_EINPUT && access(b, F_OK) != 0, "%s: a resume with another length refused (%d)", what, st);
  st = train_nn(env, g, opts, gens, 0, c, b, c, &err);
  TH_CHECK(st == DAB_OK, "%s resumed: %s", what, st ? err.msg : "");
  TH_CHECK(same_file(a, b), "%s: the resumed model is byte-identical to the straight one", what);
  train_threads = 3;
  st = train_nn(env, g, opts, gens, 0, NULL, b, c, &err);
  train_threads = 1;
  TH_CHECK(st == DAB_OK && same_file(a, b), "%s: 3 threads give the same model as 1", what);
  unlink(a);
  unlink(b);
  unlink(c);
}

static void test_resume(void) {
  char dir[] = "/tmp/dab-test-nn-XXXXXX";
  if (!mkdtemp(dir)) {
    TH_CHECK(false, "temp dir");
    return;
  }
  dab_geom g = geom(2, 2);
  dab_player_env *env = NULL;
  dab_player_env_new(NULL, &env, NULL);
  dab_agents_register(env, NULL);
  static const char *const direct[] = {"method=direct", "population=12", "matches=3", "eval-games=20",
                                       "mutation=0.01", NULL};
  check_resume(env, &g, dir, "GA direct", direct, 7, 3);
  static const char *const ifs[] = {"method=ifs", "population=12", "eval-games=20", NULL};
  check_resume(env, &g, dir, "GA ifs", ifs, 5, 2);
  static const char *const bp[] = {"method=backprop", "runs=2", "sets=2", "set-games=30", "eval-games=20",
                                   NULL};
  check_resume(env, &g, dir, "backprop", bp, 5, 2);
  /* Stopped inside round 1 (epochs 2-3 of 6): the resumed run samples that
  ** round with the net as it was at epoch 2, kept in the checkpoint. */
  static const char *const orc[] = {"method=oracle", "hidden=8", "hidden2=6", "loss=softmax", "positions=3000",
                                    "rounds=3", "eval-games=20", NULL};
  check_resume(env, &g, dir, "oracle", orc, 6, 3);
  dab_player_env_free(env);
  rmdir(dir);
}

int main(void) {
  test_genotype();
  test_forward();
  test_deep();
  test_crossover();
  test_mutation();
  test_selection_scaling();
  test_elitism();
  test_fitness();
  test_level1_net(3, 3);
  test_level1_net(2, 2);
  test_level1_net(2, 4);
  test_heuristics();
  test_model();
  test_resume();
  return TH_REPORT("test_nn");
}
