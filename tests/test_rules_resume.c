/*
** test_rules_resume.c: rule-team runs stopped and resumed end byte-identical; greedy games
** give the same results on any number of threads; the economy's oracle pay by hand.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agents/econ.h"
#include "agents/erl.h"
#include "tests/testhelp.h"

static char dir[] = "/tmp/dab_rules_resume_XXXXXX";
static dab_geom g33;

static void path_of(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", dir, name); }

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  uint8_t *buf = malloc(1 << 22);
  *n = buf ? fread(buf, 1, 1 << 22, f) : 0;
  fclose(f);
  return buf;
}

static bool same_file(const char *a, const char *b) {
  size_t na = 0, nb = 0;
  uint8_t *fa = slurp(a, &na), *fb = slurp(b, &nb);
  bool same = fa && fb && na == nb && na > 0 && !memcmp(fa, fb, na);
  free(fa);
  free(fb);
  return same;
}

/* Kind options from "key=value" words (NULL-terminated). */
static void kopts_of(dab_kopts *k, const char *const *words, char store[][64]) {
  memset(k, 0, sizeof *k);
  for (int i = 0; words && words[i]; i++) {
    snprintf(store[i], 64, "%s", words[i]);
    char *eq = strchr(store[i], '=');
    *eq = 0;
    k->key[k->n] = store[i];
    k->val[k->n++] = eq + 1;
  }
}

/* One `dab train KIND` call through the kind's function. */
static dab_status train(dab_player_env *env, const char *kind, long games, long stop_at, int threads,
                        const char *resume, const char *out, const char *ckpt, const char *const *words,
                        dab_err *err) {
  char store[DAB_KOPTS_MAX][64];
  dab_kopts k;
  kopts_of(&k, resume ? NULL : words, store);
  dab_train_ctx t = {.g = &g33, .seed = 11, .threads = threads, .games = games, .snapshot_every = resume ? 0 : 100,
                     .out = out, .checkpoint = ckpt, .resume = resume, .stop_at = stop_at, .env = env,
                     .kopts = &k};
  const dab_agent_kind *ak = dab_agent_kind_find(kind);
  return ak->train(&t, err);
}

/* Straight run vs. stopped twice (at s1, then at s2 on 3 threads) and
** resumed: the rule files are byte-identical. */
static void test_resume(dab_player_env *env, const char *kind, long games, long s1, long s2,
                        const char *const *words) {
  char a[256], b[256], c[256];
  snprintf(a, sizeof a, "%s/%s_straight.rules", dir, kind);
  snprintf(b, sizeof b, "%s/%s_resumed.rules", dir, kind);
  snprintf(c, sizeof c, "%s/%s.ckpt", dir, kind);
  dab_err err;
  TH_CHECK(train(env, kind, games, 0, 1, NULL, a, c, words, &err) == DAB_OK, "%s straight: %s", kind, err.msg);
  unlink(b);
  TH_CHECK(train(env, kind, games, s1, 1, NULL, b, c, words, &err) == DAB_ECANCELED, "%s stop at %ld: %s", kind,
           s1, err.msg);
  TH_CHECK(access(b, F_OK) != 0 && access(c, F_OK) == 0, "%s: a checkpoint and no rule file after a stop", kind);
  TH_CHECK(train(env, kind, 0, s2, 3, c, b, c, NULL, &err) == DAB_ECANCELED, "%s resume, stop at %ld: %s", kind,
           s2, err.msg);
  TH_CHECK(train(env, kind, 0, 0, 1, c, b, c, NULL, &err) == DAB_OK, "%s resume to the end: %s", kind, err.msg);
  TH_CHECK(same_file(a, b), "%s: the resumed run's rule file is byte-identical", kind);

  /* Refusals: options on a resume, another --games, a finished rule file,
  ** the other kind's checkpoint, a damaged checkpoint. */
  TH_CHECK(train(env, kind, games, s1, 1, NULL, b, c, words, &err) == DAB_ECANCELED, "stop again");
  static const char *const extra[] = {"snap-games=5", NULL};
  char store[DAB_KOPTS_MAX][64];
  dab_kopts k;
  kopts_of(&k, extra, store);
  dab_train_ctx t = {.g = &g33, .seed = 11, .threads = 1, .out = b, .checkpoint = c, .resume = c, .env = env,
                     .kopts = &k};
  TH_CHECK(dab_agent_kind_find(kind)->train(&t, &err) == DAB_EINPUT && strstr(err.msg, "snap-games"),
           "%s: options on a resume refused (%s)", kind, err.msg);
  TH_CHECK(train(env, kind, games + 1, 0, 1, c, b, c, NULL, &err) == DAB_EINPUT, "%s: other --games refused", kind);
  TH_CHECK(train(env, kind, 0, 0, 1, a, b, c, NULL, &err) != DAB_OK, "%s: a finished rule file is no checkpoint",
           kind);
  const char *other = !strcmp(kind, "erl") ? "econ" : "erl";
  TH_CHECK(train(env, other, 0, 0, 1, c, b, c, NULL, &err) == DAB_EINPUT, "%s checkpoint refused by %s (%s)", kind,
           other, err.msg);
  size_t n;
  uint8_t *buf = slurp(c, &n);
  char d[256];
  snprintf(d, sizeof d, "%s/damaged.ckpt", dir);
  int refused = 0, tries = 0;
  for (size_t at = 40; buf && at < n; at += n / 7 + 1, tries++) {
    buf[at] ^= 0x10;
    FILE *f = fopen(d, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    buf[at] ^= 0x10;
    refused += train(env, kind, 0, 0, 1, d, b, d, NULL, &err) == DAB_ECORRUPT;
  }
  TH_CHECK(tries > 0 && refused == tries, "%s: damaged checkpoints refused: %d of %d", kind, refused, tries);
  FILE *f = fopen(d, "wb");
  if (buf) fwrite(buf, 1, n - 9, f);
  fclose(f);
  TH_CHECK(train(env, kind, 0, 0, 1, d, b, d, NULL, &err) == DAB_ECORRUPT, "%s: truncated checkpoint refused", kind);
  free(buf);
}

/* Greedy evaluation and per-rule grading: the same on 1 and on 4 threads. */
static void test_threads(const dab_oracle *o) {
  char a[256];
  path_of(a, sizeof a, "erl_straight.rules");
  dab_model_header h;
  dab_ragent *x, *y;
  int n, m;
  dab_err err;
  TH_CHECK(dab_rules_read(a, "erl", &h, &x, &n, &err) == DAB_OK, "read: %s", err.msg);
  TH_CHECK(dab_rules_read(a, "erl", &h, &y, &m, &err) == DAB_OK && n == m && n > 0, "read twice");
  if (n <= 0 || n != m) return;
  dab_rt_eval_out e1, e4;
  TH_CHECK(dab_rt_eval(&g33, x, n, 1, o, 101, -1, 5, 1, &e1, &err) == DAB_OK &&
               dab_rt_eval(&g33, x, n, 1, o, 101, -1, 5, 4, &e4, &err) == DAB_OK,
           "eval: %s", err.msg);
  TH_CHECK(!memcmp(&e1, &e4, sizeof e1) && e1.graded > 0 && e1.win + e1.draw <= 1,
           "eval on 1 and 4 threads: win %g/%g, graded %ld/%ld", e1.win, e4.win, e1.graded, e4.graded);
  TH_CHECK(dab_rt_grade_rules(&g33, x, n, 1, o, 60, 0.2, 7, 1, &err) == DAB_OK &&
               dab_rt_grade_rules(&g33, y, n, 1, o, 60, 0.2, 7, 4, &err) == DAB_OK,
           "grade rules: %s", err.msg);
  int same = 0;
  long fired = 0;
  for (int i = 0; i < n; i++) {
    same += x[i].fired == y[i].fired && x[i].optimal == y[i].optimal && x[i].lost == y[i].lost;
    fired += x[i].fired;
  }
  TH_CHECK(same == n && fired > 0, "per-rule grades on 1 and 4 threads: %d of %d agree, %ld firings", same, n, fired);
  free(x);
  free(y);
}

/* The oracle's pay, by hand: an optimal move earns oracle_pay, a move that
** loses k boxes costs k * oracle_pay; the win reward goes to the owner. */
static void test_oracle_pay(void) {
  dab_econ_opts o;
  dab_econ_opts_default(&o);
  o.pop = 10;
  o.w_spawn = 100;
  o.pay = DAB_ECON_PAY_BOTH;
  o.oracle_pay = 0.25;
  dab_econ *e;
  dab_err err;
  dab_econ_new(&o, &e, &err);
  e->n = 3;
  for (int i = 0; i < 3; i++) {
    dab_rule_parse("x0n => x0 - n", false, &e->a[i].rule, &err);
    e->a[i].wealth = 1;
  }
  dab_econ_start_game(e);
  e->nfire = 3;
  e->fire[0] = 0, e->fire[1] = 1, e->fire[2] = 0;
  e->owner = 1;
  dab_rt_game gm = {.diff = 2, .nfire = 3, .fire = {0, 1, 0}, .fire_optimal = {1, 0, 1}, .fire_lost = {0, 3, 0},
                    .graded = 3};
  dab_rng rng;
  dab_rng_seed(&rng, 1);
  dab_econ_end_game(e, &gm, &rng);
  TH_CHECK(e->a[0].wealth == 1.5 && e->a[1].wealth == 1 + 1 - 0.75 && e->a[2].wealth == 1,
           "pay both: %g %g %g", e->a[0].wealth, e->a[1].wealth, e->a[2].wealth);
  TH_CHECK(e->rewards == 1 + 0.5 - 0.75 && e->a[0].fired == 2 && e->a[1].fired == 1, "booked: %g", e->rewards);
  e->o.pay = DAB_ECON_PAY_ORACLE;
  dab_econ_start_game(e);
  e->nfire = 1, e->fire[0] = 2, e->owner = 2;
  dab_rt_game g2 = {.diff = 5, .nfire = 1, .fire = {2}, .fire_optimal = {0}, .fire_lost = {1}, .graded = 1};
  dab_econ_end_game(e, &g2, &rng);
  TH_CHECK(e->a[2].wealth == 0.75, "pay oracle: no win reward, one box lost: %g", e->a[2].wealth);
  dab_econ_free(e);
}

/* The books balance with the oracle's pay too, every game. */
static void test_books(const dab_oracle *oracle) {
  dab_econ_opts o;
  dab_econ_opts_default(&o);
  o.pop = 40;
  o.pay = DAB_ECON_PAY_BOTH;
  dab_econ *e;
  dab_player *opp;
  dab_err err;
  TH_CHECK(dab_econ_new(&o, &e, &err) == DAB_OK && dab_rt_opponent(&g33, &opp, &err) == DAB_OK, "econ new");
  dab_rng rng;
  dab_rng_seed(&rng, 4);
  int ok = 0, games = 200;
  bool fined = false;
  for (int k = 0; k < games; k++) {
    dab_rt_game gm = {.team = 1, .opp_random = 0.5, .prefill = 0.4, .oracle = oracle};
    dab_econ_start_game(e);
    dab_rt_play(&g33, opp, dab_econ_choose, e, &rng, &gm, &err);
    double r0 = e->rewards;
    dab_econ_end_game(e, &gm, &rng);
    fined |= e->rewards < r0;
    ok += fabs(dab_econ_wealth(e) - (e->created + e->rewards - e->paid_out - e->buried)) < 1e-6;
  }
  TH_CHECK(ok == games && fined, "books balance with oracle pay: %d of %d (a fine seen: %d)", ok, games, fined);
  dab_econ_free(e);
  dab_player_free(opp);
}

/* The auction's memo changes nothing: two economies of one seed, one
** searching every auction in full, stay equal game by game (the random
** streams, which every capped search and new agent draws from, and every
** agent's bid and wealth), while the memo saves searches (in a long
** run over half of them; here over a tenth). */
static void test_memo(void) {
  dab_econ_opts o;
  dab_econ_opts_default(&o);
  o.pop = 150;
  dab_econ *e[2];
  dab_player *opp;
  dab_err err;
  TH_CHECK(dab_econ_new(&o, &e[0], &err) == DAB_OK && dab_econ_new(&o, &e[1], &err) == DAB_OK &&
               dab_rt_opponent(&g33, &opp, &err) == DAB_OK,
           "econ new");
  e[1]->memo_off = true;
  dab_rng rng[2];
  dab_rng_seed(&rng[0], 9);
  dab_rng_seed(&rng[1], 9);
  int games = 3000, same = 0;
  for (int k = 0; k < games; k++) {
    for (int j = 0; j < 2; j++) {
      dab_rt_game gm = {.team = 1, .opp_random = k < games / 10 ? 0.2 : 0};
      dab_econ_start_game(e[j]);
      dab_rt_play(&g33, opp, dab_econ_choose, e[j], &rng[j], &gm, &err);
      dab_econ_end_game(e[j], &gm, &rng[j]);
    }
    bool eq = !memcmp(&rng[0], &rng[1], sizeof rng[0]) && e[0]->n == e[1]->n && e[0]->born == e[1]->born;
    for (int i = 0; eq && i < e[0]->n; i++)
      eq = e[0]->a[i].bid == e[1]->a[i].bid && e[0]->a[i].wealth == e[1]->a[i].wealth;
    same += eq;
  }
  TH_CHECK(same == games && e[0]->died > 100, "memo: %d of %d games the same as without (%ld died)", same, games,
           e[0]->died);
  TH_CHECK(e[0]->stats.searches * 10 < e[1]->stats.searches * 9, "memo: %llu searches against %llu without",
           (unsigned long long)e[0]->stats.searches, (unsigned long long)e[1]->stats.searches);
  dab_econ_free(e[0]);
  dab_econ_free(e[1]);
  dab_player_free(opp);
}

/* A ranked team's greedy choice is the scan's, for bids and for Q. */
static void test_rank(void) {
  const char *files[2] = {"econ_straight.rules", "erl_straight.rules"};
  for (int kind = 0; kind < 2; kind++) {
    char path[256];
    path_of(path, sizeof path, files[kind]);
    dab_model_header h;
    dab_ragent *a;
    int n;
    dab_err err;
    bool read = dab_rules_read(path, kind ? "erl" : "econ", &h, &a, &n, &err) == DAB_OK;
    TH_CHECK(read && n > 1, "read %s: %s", path, read ? "one rule" : err.msg);
    if (!read) continue;
    if (n < 2) {
      free(a);
      continue;
    }
    int *rank = malloc((size_t)n * sizeof *rank), sorted = 1, same = 0, found = 0, tries = 0;
    dab_rt_rank(a, n, kind, rank);
    for (int k = 1; k < n; k++) {
      double u = kind ? a[rank[k - 1]].q : a[rank[k - 1]].bid, v = kind ? a[rank[k]].q : a[rank[k]].bid;
      sorted &= u > v || (u == v && rank[k - 1] < rank[k]);
    }
    dab_rng rng;
    dab_rng_seed(&rng, 3);
    int16_t legal[DAB_MAX_LINES];
    for (int g = 0; g < 40; g++) {
      dab_game game;
      dab_game_init(&g33, &game);
      while (!dab_game_over(&g33, &game)) {
        dab_sgraph sg;
        dab_sgraph_build(&g33, &game.lines, &sg);
        int l1, l2, i1 = dab_rt_greedy(a, n, kind, rank, &sg, &l1), i2 = dab_rt_greedy(a, n, kind, NULL, &sg, &l2);
        same += i1 == i2 && l1 == l2, found += i1 >= 0, tries++;
        int nl = dab_legal_moves(&g33, &game.lines, legal);
        dab_game_play(&g33, &game, legal[dab_rng_below(&rng, nl)]);
      }
    }
    TH_CHECK(sorted && same == tries && found > tries / 2, "%s: ranked %d, greedy choices the same %d of %d (%d found)",
             files[kind], sorted, same, tries, found);
    free(rank);
    free(a);
  }
}

int main(void) {
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  dab_geom_init(&g33, 3, 3, NULL);
  dab_err err;
  dab_player_env *env;
  dab_player_env_new(dir, &env, &err);
  const dab_oracle *o = NULL;
  TH_CHECK(dab_player_env_oracle(env, 3, 3, &o, &err) == DAB_OK, "oracle: %s", err.msg);
  static const char *const erl_words[] = {"snap-games=10", "eval-games=30", NULL};
  static const char *const econ_words[] = {"snap-games=10", "full-games=100", "pay=both", "pop=200", NULL};
  test_resume(env, "erl", 400, 150, 290, erl_words);
  test_resume(env, "econ", 300, 77, 340, econ_words);
  test_threads(o);
  test_rank();
  test_memo();
  test_oracle_pay();
  if (o) test_books(o);
  dab_player_env_free(env);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return TH_REPORT("test_rules_resume");
}
