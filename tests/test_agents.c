/*
** test_agents.c: model files (round trip, damaged files refused), agent
** player specs, oracle grading, and Q-learning (exact resume, 2x2 goal).
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agents/agent.h"
#include "agents/q.h"
#include "tests/testhelp.h"

static char dir[64] = "/tmp/dab-test-agents-XXXXXX";

static void path_of(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", dir, name); }

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  rewind(f);
  uint8_t *b = malloc((size_t)size + 1);
  *n = fread(b, 1, (size_t)size, f);
  fclose(f);
  return b;
}

static void spit(const char *path, const uint8_t *b, size_t n) {
  FILE *f = fopen(path, "wb");
  fwrite(b, 1, n, f);
  fclose(f);
}

static void test_model_files(void) {
  char p[128], q[128];
  path_of(p, sizeof p, "m.dab");
  path_of(q, sizeof q, "bad.dab");
  dab_model_header h, r;
  memset(&h, 0, sizeof h);
  h.rows = 2;
  h.cols = 3;
  snprintf(h.kind, sizeof h.kind, "test");
  dab_err err;
  TH_CHECK(dab_params_add(&h, "method", "direct", &err) == DAB_OK, "params_add");
  TH_CHECK(dab_params_add(&h, "seed", "7", &err) == DAB_OK, "params_add");
  TH_CHECK(!strcmp(h.params, "method=direct,seed=7"), "params text '%s'", h.params);
  uint8_t payload[1000];
  for (int i = 0; i < 1000; i++) payload[i] = (uint8_t)(i * 7 + 3);
  TH_CHECK(dab_model_write(p, &h, payload, sizeof payload, &err) == DAB_OK, "write: %s", err.msg);
  void *back;
  size_t n;
  dab_status st = dab_model_read(p, "test", &r, &back, &n, &err);
  TH_CHECK(st == DAB_OK, "read: %s", err.msg);
  if (!st) {
    TH_CHECK(n == sizeof payload && !memcmp(back, payload, n), "payload round trip");
    TH_CHECK(r.rows == 2 && r.cols == 3 && !strcmp(r.kind, "test") && r.version == 1,
             "header round trip");
    TH_CHECK(!strcmp(r.params, h.params), "params round trip '%s'", r.params);
    char v[32];
    TH_CHECK(dab_params_get(r.params, "seed", v, sizeof v) && !strcmp(v, "7"), "params_get seed");
    TH_CHECK(!dab_params_get(r.params, "see", v, sizeof v), "params_get: no prefix match");
    free(back);
  }
  /* an empty payload is a valid model too */
  TH_CHECK(dab_model_write(q, &h, NULL, 0, &err) == DAB_OK, "write empty");
  TH_CHECK(dab_model_read(q, NULL, &r, &back, &n, &err) == DAB_OK && n == 0, "read empty");
  free(back);

  size_t fn;
  uint8_t *file = slurp(p, &fn);
  TH_CHECK(file && fn == 44 + strlen(h.params) + 1000 + 8, "file size %zu", fn);
  if (!file) return;
  /* every single flipped byte is refused, wherever it is */
  int refused = 0, tried = 0;
  for (size_t at = 0; at < fn; at += (at < 64 ? 1 : 97)) {
    file[at] ^= 0x10;
    spit(q, file, fn);
    file[at] ^= 0x10;
    tried++;
    back = (void *)1;
    st = dab_model_read(q, "test", &r, &back, &n, &err);
    if (st != DAB_OK && back == NULL && strstr(err.msg, q) && !strchr(err.msg, '\n')) refused++;
    else if (!st) free(back);
  }
  TH_CHECK(refused == tried, "flipped bytes refused: %d of %d", refused, tried);
  spit(q, file, fn - 1);
  TH_CHECK(dab_model_read(q, "test", &r, &back, &n, &err) == DAB_ECORRUPT && !back,
           "truncated by one byte refused");
  spit(q, file, 30);
  TH_CHECK(dab_model_read(q, "test", &r, &back, &n, &err) == DAB_ECORRUPT, "truncated header");
  uint8_t *longer = malloc(fn + 1);
  memcpy(longer, file, fn);
  longer[fn] = 0;
  spit(q, longer, fn + 1);
  TH_CHECK(dab_model_read(q, "test", &r, &back, &n, &err) == DAB_ECORRUPT, "overlong refused");
  free(longer);
  st = dab_model_read(p, "nn", &r, &back, &n, &err);
  TH_CHECK(st == DAB_EINPUT && !back && strstr(err.msg, "'test' model"), "wrong kind: %s", err.msg);
  unlink(q);
  TH_CHECK(dab_model_read(q, NULL, &r, &back, &n, &err) == DAB_EINPUT, "missing file");
  snprintf(h.kind, sizeof h.kind, "%s", "");
  TH_CHECK(dab_model_write(q, &h, payload, 10, &err) == DAB_EINPUT, "empty kind refused");
  char nodir[128];
  path_of(nodir, sizeof nodir, "no/such/dir/m.dab");
  snprintf(h.kind, sizeof h.kind, "test");
  TH_CHECK(dab_model_write(nodir, &h, payload, 10, &err) == DAB_EIO, "unwritable path");
  free(file);
}

static void test_grade_move(void) {
  dab_analysis a = {.value = 1, .nmoves = 3, .move = {4, 5, 6}, .move_value = {1, -1, 0}};
  bool opt, kept;
  int lost;
  dab_grade_move(&a, 4, 0, &opt, &kept, &lost);
  TH_CHECK(opt && kept && lost == 0, "best move");
  dab_grade_move(&a, 5, 0, &opt, &kept, &lost);
  TH_CHECK(!opt && !kept && lost == 2, "a win thrown to a loss");
  dab_grade_move(&a, 5, 3, &opt, &kept, &lost);
  TH_CHECK(!opt && kept && lost == 2, "3 boxes ahead: -1 still wins");
  dab_grade_move(&a, 6, 0, &opt, &kept, &lost);
  TH_CHECK(!opt && !kept && lost == 1, "a win thrown to a draw");
  dab_grade_move(&a, 6, -1, &opt, &kept, &lost);
  TH_CHECK(!opt && kept == false && lost == 1, "behind by 1: draw -> loss");
  dab_grade_move(&a, 6, -5, &opt, &kept, &lost);
  TH_CHECK(!opt && kept && lost == 1, "lost anyway: kept");
}

static void test_grade(dab_player_env *env, const dab_geom *g, const dab_oracle *o) {
  dab_grade gp, gr, gp2;
  dab_err err;
  dab_grade_opts opts = {.g = g, .agent = {.spec = "perfect"}, .env = env, .oracle = o,
                         .games = 40, .threads = 2, .seed = 5};
  TH_CHECK(dab_agent_grade(&opts, &gp, &err) == DAB_OK, "grade perfect: %s", err.msg);
  TH_CHECK(gp.moves > 0 && gp.optimal == 1.0 && gp.kept == 1.0 && gp.lost == 0, "perfect: opt %g kept %g lost %g",
           gp.optimal, gp.kept, gp.lost);
  TH_CHECK(gp.games[0] == 40 && gp.games[1] == 40, "games counted");
  TH_CHECK(gp.loss[0] == 0 && gp.loss[1] == 0, "perfect never loses (2x2 empty is a draw or win)");
  opts.threads = 1;
  TH_CHECK(dab_agent_grade(&opts, &gp2, &err) == DAB_OK && gp2.moves == gp.moves &&
           gp2.win[0] == gp.win[0] && gp2.win[1] == gp.win[1], "same result on 1 thread");
  opts.agent.spec = "random";
  TH_CHECK(dab_agent_grade(&opts, &gr, &err) == DAB_OK, "grade random: %s", err.msg);
  TH_CHECK(gr.optimal < 0.9 && gr.lost > 0.1 && gr.kept < 1 && gr.kept >= gr.optimal - 1e-12,
           "random: opt %g kept %g lost %g", gr.optimal, gr.kept, gr.lost);
  TH_CHECK(gr.win[0] + gr.draw[0] + gr.loss[0] > 0.999, "shares add up");
  opts.games = 3;
  TH_CHECK(dab_agent_grade(&opts, &gr, &err) == DAB_EINPUT, "odd games refused");
}

/* Runs `dab train q` through the kind's function. */
static dab_status train(dab_player_env *env, const dab_geom *g, long games, long stop_at,
                        const char *resume, const char *out, const char *ckpt, dab_kopts *k,
                        dab_err *err) {
  dab_train_ctx t = {.g = g, .seed = 9, .threads = 1, .games = games, .snapshot_every = 3000,
                     .grade_games = 10, .out = out, .checkpoint = ckpt, .resume = resume,
                     .stop_at = stop_at, .env = env, .kopts = k};
  return dab_agent_train_q(&t, err);
}

static void test_resume(dab_player_env *env, const dab_geom *g, const char *policy) {
  char a[128], b[128], c[128];
  path_of(a, sizeof a, "straight.dab");
  path_of(b, sizeof b, "resumed.dab");
  path_of(c, sizeof c, "half.ckpt");
  dab_kopts k;
  memset(&k, 0, sizeof k);
  k.n = 1;
  k.key[0] = "policy";
  k.val[0] = policy;
  dab_err err;
  TH_CHECK(train(env, g, 10000, 0, NULL, a, c, &k, &err) == DAB_OK, "straight: %s", err.msg);
  memset(&k.used, 0, sizeof k.used);
  unlink(b);
  TH_CHECK(train(env, g, 10000, 4321, NULL, b, c, &k, &err) == DAB_ECANCELED, "stop: %s", err.msg);
  TH_CHECK(access(b, F_OK) != 0, "no model after a stop");
  dab_q *ck;
  TH_CHECK(dab_q_load(c, g, &ck, &err) == DAB_OK, "a checkpoint plays as a model: %s", err.msg);
  dab_q_free(ck);
  TH_CHECK(train(env, g, 0, 0, c, b, c, NULL, &err) == DAB_OK, "resume: %s", err.msg);
  size_t na, nb;
  uint8_t *fa = slurp(a, &na), *fb = slurp(b, &nb);
  TH_CHECK(fa && fb && na == nb && !memcmp(fa, fb, na), "%s: resumed model identical (%zu/%zu bytes)",
           policy, na, nb);
  free(fa);
  free(fb);
  TH_CHECK(train(env, g, 0, 0, a, b, c, NULL, &err) == DAB_EINPUT, "a finished model is no checkpoint");
}

static void test_q(dab_player_env *env, const dab_geom *g, const dab_oracle *o) {
  int8_t *ex;
  dab_err err;
  TH_CHECK(dab_q_exact(g, o, &ex, &err) == DAB_OK, "exact: %s", err.msg);
  int v;
  dab_oracle_value64(o, 0, &v, NULL);
  int best = -100;
  for (int m = 0; m < 12; m++) best = ex[m] > best ? ex[m] : best;
  TH_CHECK(best == v, "exact Q of the empty board: max %d, value %d", best, v);
  dab_q_opts qo;
  dab_q_opts_default(&qo);
  qo.episodes = 300000;
  dab_q_learner *l;
  TH_CHECK(dab_q_learner_new(g, &qo, 3, &l, &err) == DAB_OK, "learner");
  double rmse0, opt0, rmse, opt;
  dab_q_measure(dab_q_learner_table(l), ex, &rmse0, &opt0);
  dab_q_learner_run(l, qo.episodes, NULL);
  dab_q_measure(dab_q_learner_table(l), ex, &rmse, &opt);
  TH_CHECK(opt0 < 0.5 && rmse0 > 1, "untrained: opt %g rmse %g", opt0, rmse0);
  TH_CHECK(opt == 1.0, "2x2: optimal-move rate %g over every position (goal 1.0)", opt);
  TH_CHECK(rmse < 0.2, "2x2: rmse %g", rmse);
  /* save, and play it as a spec */
  char p[128], spec[160];
  path_of(p, sizeof p, "q22.dab");
  TH_CHECK(dab_q_save(p, dab_q_learner_table(l), "test=1", &err) == DAB_OK, "save: %s", err.msg);
  dab_q_learner_free(l);
  free(ex);
  snprintf(spec, sizeof spec, "q:%s", p);
  dab_player *pl;
  TH_CHECK(dab_player_new(spec, g, env, &pl, &err) == DAB_OK, "spec %s: %s", spec, err.msg);
  if (pl) {
    TH_CHECK(!strcmp(dab_player_name(pl), spec), "name %s", dab_player_name(pl));
    dab_game game;
    dab_game_init(g, &game);
    dab_rng rng;
    dab_rng_seed(&rng, 1);
    bool legal = true;
    while (!dab_game_over(g, &game)) legal &= dab_game_play(g, &game, dab_player_move(pl, &game, &rng)) >= 0;
    TH_CHECK(legal, "q player plays legal moves to the end");
    dab_player_free(pl);
  }
  dab_grade gr;
  dab_grade_opts go = {.g = g, .agent = {.spec = spec}, .env = env, .oracle = o, .games = 40, .seed = 1};
  TH_CHECK(dab_agent_grade(&go, &gr, &err) == DAB_OK && gr.optimal == 1.0 && gr.kept == 1.0,
           "trained q graded optimal: %g", gr.optimal);
  dab_geom g23;
  dab_geom_init(&g23, 2, 3, NULL);
  TH_CHECK(dab_player_new(spec, &g23, env, &pl, &err) == DAB_EBOARD && !pl, "model of another board: %s",
           err.msg);
  TH_CHECK(dab_player_new("q:", g, env, &pl, &err) == DAB_EINPUT, "q: without a file");
  TH_CHECK(dab_player_new("q:/no/such/file", g, env, &pl, &err) == DAB_EINPUT, "missing model");
  TH_CHECK(dab_player_new(spec, g, NULL, &pl, &err) == DAB_EINPUT, "no env, no agent kinds");
}

int main(void) {
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_model_files();
  test_grade_move();
  dab_err err;
  dab_player_env *env;
  dab_player_env_new(NULL, &env, &err);
  TH_CHECK(dab_agents_register(env, &err) == DAB_OK, "register: %s", err.msg);
  TH_CHECK(dab_agents_register(env, &err) == DAB_EINPUT, "registering twice refused");
  TH_CHECK(dab_agent_kind_find("q") && !dab_agent_kind_find("zz"), "kind table");
  dab_geom g;
  dab_geom_init(&g, 2, 2, NULL);
  const dab_oracle *o;
  TH_CHECK(dab_player_env_oracle(env, 2, 2, &o, &err) == DAB_OK, "oracle: %s", err.msg);
  test_grade(env, &g, o);
  test_q(env, &g, o);
  test_resume(env, &g, "egreedy");
  test_resume(env, &g, "lenient");
  dab_player_env_free(env);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return TH_REPORT("test_agents");
}
