/*
** test_az.c: BoxesZero / AlphaZero: the C forward pass against PyTorch
** (and its x86-64-v3 build against the base, bit for bit),
** PUCT with a uniform prior against mcts-bz, backward training on 2x2,
** checkpoints (options by name, Adam's state: resumed = straight),
** damaged model files, the az:FILE player.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "agents/agent.h"
#include "agents/az.h"
#include "agents/az_int.h"
#include "game/clock.h"
#include "game/isa.h"
#include "tests/testhelp.h"

static char tmpdir[64] = "/tmp/test_az_XXXXXX";

static float *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  float *b = malloc((size_t)sz + 4);
  *n = fread(b, 1, (size_t)sz, f) / sizeof(float);
  fclose(f);
  return b;
}

/* The C forward pass equals PyTorch's on random weights and inputs. */
static void test_forward(const char *trainer, int rows, int cols, int blocks, int filters, int vfilters) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "/usr/bin/python3 %s selftest --rows %d --cols %d --blocks %d --filters %d --vhidden 24 "
           "--vfilters %d --seed 7 --n 16 --dir %s >/dev/null",
           trainer, rows, cols, blocks, filters, vfilters, tmpdir);
  TH_CHECK(system(cmd) == 0, "selftest %dx%d failed", rows, cols);
  char p[128];
  size_t nw, nx, nr;
  snprintf(p, sizeof p, "%s/w.bin", tmpdir);
  float *w = read_all(p, &nw);
  snprintf(p, sizeof p, "%s/x.bin", tmpdir);
  float *x = read_all(p, &nx);
  snprintf(p, sizeof p, "%s/ref.bin", tmpdir);
  float *ref = read_all(p, &nr);
  dab_az_net *net = NULL;
  dab_err err;
  TH_CHECK(w && x && ref && !dab_az_net_new(rows, cols, blocks, filters, 24, vfilters, w, nw, &net, &err),
           "net: %s", err.msg);
  if (net) {
    int L = net->nlines, nb = 16;
    TH_CHECK(nx == (size_t)(nb * 3 * net->hw) && nr == (size_t)(nb * (L + 1)), "sizes");
    float logits[16 * 64], value[16];
    double maxd = 0;
    /* Batched, and one position at a time. */
    for (int mode = 0; mode < 2; mode++) {
      dab_az_scratch *s = dab_az_scratch_new(net, mode ? 1 : nb);
      if (mode == 0) dab_az_forward(net, s, nb, x, logits, value);
      else
        for (int i = 0; i < nb; i++)
          dab_az_forward(net, s, 1, x + (size_t)i * 3 * (size_t)net->hw, logits + i * L, value + i);
      for (int i = 0; i < nb * L; i++) maxd = fmax(maxd, fabs(logits[i] - ref[i]));
      for (int i = 0; i < nb; i++) maxd = fmax(maxd, fabs(value[i] - ref[nb * L + i]));
      dab_az_scratch_free(s);
    }
    TH_CHECK(maxd <= 1e-5, "%dx%d b=%d f=%d vf=%d: C and PyTorch differ by %g", rows, cols, blocks,
             filters, vfilters, maxd);
  }
  dab_az_net_free(net);
  free(w);
  free(x);
  free(ref);
}

/*
** With a uniform prior and random-rollout values, PUCT behaves as mcts-bz:
** on 40 positions of 3x3 from random play (steps 6..21, fixed seeds),
** each search with 1500 simulations, the share of oracle-optimal moves
** of the two agrees within 0.15, both are >= 0.6, and on the positions
** with a unique winning move (a move keeping the win, every other losing)
** both find it in >= 80% of them.
*/
static void test_uniform(const dab_oracle *oracle, dab_player_env *env) {
  dab_geom g;
  dab_err err;
  dab_geom_init(&g, 3, 3, &err);
  az_testpos tp[64];
  int n = 0;
  az_testpos all[400];
  int na = az_random_positions(&g, 3, 99, all, 400);
  for (int i = 0; i < na && n < 40; i++)
    if (all[i].step >= 6 && all[i].step <= 21) tp[n++] = all[i];
  bool sle = true;
  dab_az_search_opts so = {.sims = 1500, .c_puct = 2, .chainloop = true, .theorems = true};
  dab_az_search *s = dab_az_search_new(&g, &so, dab_az_rollout_eval, &sle);
  dab_player *bz;
  TH_CHECK(!dab_player_new("mcts-bz:sims=1500", &g, env, &bz, &err), "mcts-bz: %s", err.msg);
  int opt_az = 0, opt_bz = 0, uniq = 0, uniq_az = 0, uniq_bz = 0;
  for (int i = 0; i < n; i++) {
    int16_t mv[64], val[64];
    int nm;
    dab_oracle_move_values(oracle, tp[i].lines, mv, val, &nm, &err);
    dab_game game;
    dab_game_init(&g, &game);
    game.lines = dab_ls_from_word(tp[i].lines);
    game.score[0] = tp[i].score_rel > 0 ? tp[i].score_rel : 0;
    game.score[1] = tp[i].score_rel < 0 ? -tp[i].score_rel : 0;
    dab_rng rng;
    dab_rng_seed2(&rng, 5, (uint64_t)i);
    pl_mstate st;
    pl_mstate_from_game(&g, &game, &st);
    dab_az_result r;
    TH_CHECK(!dab_az_search_run(s, &st, &rng, &r, &err), "search: %s", err.msg);
    int b = 0;
    for (int k = 1; k < r.nchild; k++)
      if (r.visits[k] > r.visits[b]) b = k;
    int maz = r.line[b];
    dab_rng_seed2(&rng, 5, (uint64_t)i);
    int mbz = dab_player_move(bz, &game, &rng);
    int best = -99, d = tp[i].score_rel, wins = 0;
    for (int k = 0; k < nm; k++) best = val[k] > best ? val[k] : best;
    for (int k = 0; k < nm; k++) wins += d + val[k] > 0;
    for (int k = 0; k < nm; k++) {
      if (mv[k] == maz) {
        opt_az += val[k] == best;
        if (wins == 1) uniq_az += d + val[k] > 0;
      }
      if (mv[k] == mbz) {
        opt_bz += val[k] == best;
        if (wins == 1) uniq_bz += d + val[k] > 0;
      }
    }
    uniq += wins == 1 && nm > 1;
  }
  double a = (double)opt_az / n, b = (double)opt_bz / n;
  TH_CHECK(fabs(a - b) <= 0.15 && a >= 0.6 && b >= 0.6, "optimal: puct-uniform %.2f, mcts-bz %.2f", a, b);
  TH_CHECK(uniq == 0 || (uniq_az >= 0.8 * uniq && uniq_bz >= 0.8 * uniq),
           "unique wins %d: puct %d, mcts-bz %d", uniq, uniq_az, uniq_bz);
  printf("uniform prior: optimal %.3f (mcts-bz %.3f) on %d positions; unique wins %d/%d (%d)\n", a,
         b, n, uniq_az, uniq, uniq_bz);
  dab_player_free(bz);
  dab_az_search_free(s);
}

/* Backward training on 2x2 advances its step within a few iterations. */
static void test_backward(dab_player_env *env, char *model) {
  dab_geom g;
  dab_err err;
  dab_geom_init(&g, 2, 2, &err);
  dab_kopts k;
  memset(&k, 0, sizeof k);
  const char *kv[][2] = {{"backward", ""}, {"iter-games", "12"}, {"sims", "24"},
                         {"eval-per-step", "2"}, {"filters", "8"}, {"blocks", "1"}};
  for (int i = 0; i < 6; i++) {
    k.key[k.n] = kv[i][0];
    k.val[k.n++] = kv[i][1];
  }
  snprintf(model, 128, "%s/b.model", tmpdir);
  char ck[160];
  snprintf(ck, sizeof ck, "%s.ckpt", model);
  dab_train_ctx t = {.g = &g, .seed = 3, .threads = 1, .generations = 4, .out = model,
                     .checkpoint = ck, .env = env, .kopts = &k};
  dab_status st = dab_agent_train_az(&t, &err);
  TH_CHECK(!st, "train: %s", err.msg);
  dab_az_model *m = NULL;
  TH_CHECK(!dab_az_model_load(model, &g, &m, &err), "load: %s", err.msg);
  char step[16] = "";
  if (m) dab_params_get(m->params, "step", step, sizeof step);
  TH_CHECK(atoi(step) >= 3, "backward step after 4 iterations: %s (want >= 3)", step);
  /* The run's CPU clock (what --hours budgets) counts the trainer
  ** subprocesses too, so it is positive and at most what this process
  ** and its children have spent. */
  char cpu[32] = "";
  if (m) dab_params_get(m->params, "cpu_seconds", cpu, sizeof cpu);
  TH_CHECK(atof(cpu) > 0 && atof(cpu) <= dab_process_cpu_s() + 0.1,
           "cpu_seconds=%s in (0, %.1f]", cpu, dab_process_cpu_s());
  dab_az_model_free(m);
}

/* The options a checkpoint stores: by name, round trip exact, and
** another version, an unknown name or a bad value refused. */
static void test_opts_text(void) {
  az_opts a, b;
  az_opts_default(&a);
  a.backward = true;
  a.adam_reset = true;
  a.lr = 0.1 / 3;
  a.sims = 77;
  a.max_steps = 5;
  char t[4096];
  int n = az_opts_write(&a, t, sizeof t);
  TH_CHECK(n > 0 && !strncmp(t, "v=2\n", 4) && strstr(t, "\nsims=77\n"), "opts text: %.40s", t);
  az_opts_default(&b);
  dab_err err;
  TH_CHECK(!az_opts_read(&b, t, (size_t)n, &err), "read: %s", err.msg);
  TH_CHECK(b.backward && b.adam_reset && b.lr == a.lr && b.sims == 77 && b.max_steps == 5 &&
               b.filter == a.filter && b.mit == a.mit,
           "opts round trip");
  TH_CHECK(az_opts_write(&a, t, 40) == -1, "opts text: too small a buffer is refused");
  const char *bad[] = {"v=1\nsims=3\n", "v=2\nsimz=3\n", "v=2\nsims=3x\n", "v=2\nlr\n", ""};
  for (int i = 0; i < 5; i++)
    TH_CHECK(az_opts_read(&b, bad[i], strlen(bad[i]), &err) == DAB_ECORRUPT, "bad opts %d accepted", i);
}

/* One small 2x2 run (no grading); the model's weights (malloc'd) or NULL. */
static float *train_small(dab_player_env *env, const char *name, const char *resume, long stop_at,
                          bool reset, size_t *nw) {
  dab_geom g;
  dab_err err;
  dab_geom_init(&g, 2, 2, &err);
  dab_kopts k;
  memset(&k, 0, sizeof k);
  const char *kv[][2] = {{"backward", ""}, {"iter-games", "6"}, {"sims", "16"}, {"eval-per-step", "0"},
                         {"filters", "4"}, {"blocks", "1"}, {"adam", "reset"}};
  for (int i = 0; i < (resume ? 0 : reset ? 7 : 6); i++) {
    k.key[k.n] = kv[i][0];
    k.val[k.n++] = kv[i][1];
  }
  char model[160], ck[170];
  snprintf(model, sizeof model, "%s/%s.model", tmpdir, name);
  snprintf(ck, sizeof ck, "%s/%s.ckpt", tmpdir, resume ? resume : name);
  dab_train_ctx t = {.g = &g, .seed = 5, .threads = 1, .generations = 3, .out = model,
                     .checkpoint = ck, .env = env, .kopts = &k, .stop_at = stop_at,
                     .resume = resume ? ck : NULL};
  dab_status st = dab_agent_train_az(&t, &err);
  if (stop_at) {
    TH_CHECK(st == DAB_ECANCELED && access(ck, R_OK) == 0, "%s: stop-at: %d %s", name, st, err.msg);
    return NULL;
  }
  TH_CHECK(!st, "%s: %s", name, err.msg);
  dab_az_model *m = NULL;
  if (st || dab_az_model_load(model, &g, &m, &err)) return NULL;
  float *w = malloc(m->net->nweights * sizeof(float));
  memcpy(w, m->net->weights, m->net->nweights * sizeof(float));
  *nw = m->net->nweights;
  dab_az_model_free(m);
  return w;
}

/* Stopped after one iteration and resumed: the straight run's weights
** (the replay buffer, the options and Adam's moments come back); Adam
** reset each iteration (--adam=reset) trains another net. */
static void test_resume(dab_player_env *env) {
  size_t na = 0, nb = 0, nc = 0;
  float *a = train_small(env, "straight", NULL, 0, false, &na);
  train_small(env, "half", NULL, 12, false, &nb);
  /* A stopped run's checkpoint plays: its net loads as a model's does. */
  {
    char ck[170];
    snprintf(ck, sizeof ck, "%s/half.ckpt", tmpdir);
    dab_geom g;
    dab_err err;
    dab_geom_init(&g, 2, 2, &err);
    dab_az_model *m = NULL;
    TH_CHECK(!dab_az_model_load(ck, &g, &m, &err) && m && m->net->nweights > 0, "a checkpoint as a model: %s",
             err.msg);
    dab_az_model_free(m);
    /* --export: the same net and search in a model file a fraction of the
    ** checkpoint's size, with the run's params and without checkpoint=. */
    char ex[180], ex2[180], v[64];
    snprintf(ex, sizeof ex, "%s/half.export", tmpdir);
    snprintf(ex2, sizeof ex2, "%s/half.export2", tmpdir);
    TH_CHECK(!dab_az_ckpt_export(ck, ex, &err), "export: %s", err.msg);
    dab_az_model *c = NULL, *e = NULL;
    if (!dab_az_model_load(ck, &g, &c, &err) && !dab_az_model_load(ex, &g, &e, &err)) {
      TH_CHECK(c->net->nweights == e->net->nweights &&
                   !memcmp(c->net->weights, e->net->weights, c->net->nweights * sizeof(float)),
               "exported weights differ");
      TH_CHECK(!memcmp(&c->search, &e->search, sizeof c->search), "exported search settings differ");
      TH_CHECK(!dab_params_get(e->params, "checkpoint", v, sizeof v) &&
                   !dab_params_get(e->params, "nbuf", v, sizeof v),
               "export kept checkpoint params: %s", e->params);
      TH_CHECK(dab_params_get(e->params, "iter", v, sizeof v) && !strcmp(v, "2") &&
                   dab_params_get(e->params, "method", v, sizeof v) && !strcmp(v, "backward"),
               "export lost the run's params: %s", e->params);
    } else {
      TH_CHECK(0, "export: %s", err.msg);
    }
    dab_az_model_free(c);
    dab_az_model_free(e);
    struct stat sc, se;
    TH_CHECK(!stat(ck, &sc) && !stat(ex, &se) && se.st_size * 4 < sc.st_size, "export %ld of checkpoint %ld bytes",
             (long)se.st_size, (long)sc.st_size);
    /* A finished model is not a checkpoint; a checkpoint is not its own
    ** export target; neither writes a file. */
    TH_CHECK(dab_az_ckpt_export(ex, ex2, &err) == DAB_EINPUT && access(ex2, F_OK) != 0,
             "exported a finished model: %s", err.msg);
    TH_CHECK(dab_az_ckpt_export(ck, ck, &err) == DAB_EINPUT && dab_az_model_load_ckpt(ck, &g, &c, NULL, NULL, &err) == DAB_OK,
             "exported over the checkpoint: %s", err.msg);
    dab_az_model_free(c);
  }
  float *b = train_small(env, "resumed", "half", 0, false, &nb);
  float *c = train_small(env, "reset", NULL, 0, true, &nc);
  TH_CHECK(a && b && c && na == nb && na == nc, "weights %zu %zu %zu", na, nb, nc);
  if (a && b && c && na == nb && na == nc) {
    TH_CHECK(!memcmp(a, b, na * sizeof(float)), "resumed run's weights differ from the straight run's");
    TH_CHECK(memcmp(a, c, na * sizeof(float)) != 0, "--adam=reset trained the same weights as keep");
  }
  free(a);
  free(b);
  free(c);
}

/* az_own_positions: games from the empty board by the policy, each
** giving one position per step, in order, reproducible by seed. */
static void test_own_positions(const char *model) {
  dab_geom g;
  dab_err err;
  dab_geom_init(&g, 2, 2, &err);
  dab_az_model *m = NULL;
  TH_CHECK(!dab_az_model_load(model, &g, &m, &err), "load: %s", err.msg);
  if (!m) return;
  enum { GAMES = 5, PER = 11, CAP = GAMES * PER };
  az_testpos a[CAP], b[CAP], c[CAP];
  int na = az_own_positions(&g, m, GAMES, 7, a, CAP);
  int nb = az_own_positions(&g, m, GAMES, 7, b, CAP);
  int nc = az_own_positions(&g, m, GAMES, 8, c, CAP);
  TH_CHECK(na == CAP && nb == CAP && nc == CAP, "positions: %d %d %d (want %d)", na, nb, nc, CAP);
  int bad = 0, same_seed_differs = 0, other_seed_differs = 0;
  for (int i = 0; i < na; i++) {
    int s = i % PER;
    uint64_t p = a[i].lines;
    bad += a[i].step != s || __builtin_popcountll(p) != s || (p & ~g.all_lines) ||
           a[i].score_rel < -g.nboxes || a[i].score_rel > g.nboxes || (s == 0 && (p || a[i].score_rel));
    if (s > 0) { /* one more line than the game's previous position */
      uint64_t q = a[i - 1].lines;
      bad += (q & ~p) || __builtin_popcountll(p ^ q) != 1;
    }
    same_seed_differs += a[i].lines != b[i].lines || a[i].score_rel != b[i].score_rel;
    other_seed_differs += a[i].lines != c[i].lines;
  }
  TH_CHECK(!bad, "%d positions break step order, line count or score range", bad);
  TH_CHECK(!same_seed_differs, "the same seed gives other positions in %d places", same_seed_differs);
  TH_CHECK(other_seed_differs > 0, "another seed gives the same %d positions", na);
  TH_CHECK(az_own_positions(&g, m, GAMES, 7, c, 10) == 10, "the cap of 10 positions is kept");
  dab_az_model_free(m);
}

/* Damaged files are refused; the player plays legal moves to the end. */
static void test_files(dab_player_env *env, const char *model) {
  dab_geom g;
  dab_err err;
  dab_geom_init(&g, 2, 2, &err);
  size_t n;
  float *b = read_all(model, &n);
  if (!b) {
    TH_CHECK(0, "no model");
    return;
  }
  n *= sizeof(float);
  unsigned char *raw = (unsigned char *)b;
  FILE *f = fopen(model, "rb");
  fseek(f, 0, SEEK_END);
  n = (size_t)ftell(f);
  fclose(f);
  char bad[160];
  snprintf(bad, sizeof bad, "%s/bad.model", tmpdir);
  dab_az_model *m = NULL;
  for (int kind = 0; kind < 3; kind++) {
    unsigned char *c = malloc(n);
    memcpy(c, raw, n);
    size_t len = n;
    if (kind == 0) c[n - 20] ^= 0x40;   /* a weight bit */
    if (kind == 1) len = n - 9;         /* truncated */
    if (kind == 2) c[0] = 'X';          /* magic */
    f = fopen(bad, "wb");
    fwrite(c, 1, len, f);
    fclose(f);
    free(c);
    dab_status st = dab_az_model_load(bad, &g, &m, &err);
    /* Not a model file at all (wrong magic) is bad input; a damaged one, corrupt. */
    dab_status want = kind == 2 ? DAB_EINPUT : DAB_ECORRUPT;
    TH_CHECK(st == want && !m, "damage %d: status %d (%s)", kind, st, err.msg);
  }
  /* A well-formed file with a NaN weight, and one whose params lie. */
  dab_az_model *good = NULL;
  TH_CHECK(!dab_az_model_load(model, &g, &good, &err), "load: %s", err.msg);
  if (good) {
    dab_az_search_opts so = good->search;
    good->net->weights[3] = NAN;
    TH_CHECK(!dab_az_model_save(bad, good->net, &so, "", NULL, 0, &err), "save");
    TH_CHECK(dab_az_model_load(bad, &g, &m, &err) == DAB_ECORRUPT, "NaN weight accepted");
    good->net->weights[3] = 0;
    TH_CHECK(!dab_az_model_save(bad, good->net, &so, "", "abcd", 4, &err), "save");
    TH_CHECK(dab_az_model_load(bad, &g, &m, &err) == DAB_ECORRUPT, "extra payload accepted");
    dab_geom g3;
    dab_geom_init(&g3, 3, 3, &err);
    TH_CHECK(dab_az_model_load(model, &g3, &m, &err) == DAB_EBOARD, "2x2 model loaded for 3x3");
    dab_az_model_free(good);
  }
  free(b);
  char spec[200];
  snprintf(spec, sizeof spec, "az:%s,sims=16", model);
  dab_player *p = NULL;
  TH_CHECK(!dab_player_new(spec, &g, env, &p, &err), "player: %s", err.msg);
  if (p) {
    dab_game game;
    dab_game_init(&g, &game);
    dab_rng rng;
    dab_rng_seed(&rng, 1);
    int moves = 0;
    while (dab_ls_count(&game.lines) < g.nlines) {
      int m2 = dab_player_move(p, &game, &rng);
      if (m2 < 0 || m2 >= g.nlines || dab_ls_has(&game.lines, m2)) break;
      dab_game_play(&g, &game, m2);
      moves++;
    }
    TH_CHECK(moves == g.nlines, "az player stopped after %d moves", moves);
    dab_player_free(p);
  }
  snprintf(spec, sizeof spec, "az:%s,bogus=1", model);
  TH_CHECK(dab_player_new(spec, &g, env, &p, &err) == DAB_EINPUT, "bad option accepted");
}

/* A net with every weight drawn from seed (no zero rows: every product counts). */
static dab_az_net *random_net(int rows, int cols, int blocks, int filters, uint64_t seed) {
  size_t n = dab_az_net_size(rows, cols, blocks, filters, 16, 1);
  float *w = malloc(n * sizeof *w);
  dab_rng rng;
  dab_rng_seed(&rng, seed);
  for (size_t i = 0; w && i < n; i++) w[i] = (float)(dab_rng_unit(&rng) - 0.5) * 0.4f;
  dab_az_net *net = NULL;
  dab_err err;
  if (w && dab_az_net_new(rows, cols, blocks, filters, 16, 1, w, n, &net, &err)) net = NULL;
  free(w);
  return net;
}

/* A batch's rows are each what that position alone gives, bit for bit:
** self-play's results cannot depend on which games share a batch. */
static void test_batch_rows(int rows, int cols) {
  enum { NB = 11 };
  dab_az_net *net = random_net(rows, cols, 2, 12, 3);
  dab_geom g;
  dab_err err;
  dab_geom_init(&g, rows, cols, &err);
  dab_az_scratch *s1 = dab_az_scratch_new(net, 1), *sn = dab_az_scratch_new(net, NB);
  size_t P = (size_t)DAB_AZ_PLANES * (size_t)net->hw;
  float *x = malloc(NB * P * sizeof *x), lg[NB][64], v[NB], l1[64], v1;
  TH_CHECK(net && s1 && sn && x, "setup");
  if (!net || !s1 || !sn || !x) return;
  dab_rng rng;
  dab_rng_seed(&rng, 9);
  for (int i = 0; i < NB; i++)
    dab_az_encode(net, &g, dab_rng_next(&rng) & g.all_lines, i - 5, x + (size_t)i * P);
  dab_az_forward(net, sn, NB, x, &lg[0][0], v);
  int differ = 0;
  for (int i = 0; i < NB; i++) {
    float lgi[64];
    dab_az_forward(net, s1, 1, x + (size_t)i * P, l1, &v1);
    memcpy(lgi, lg[0] + (size_t)i * (size_t)g.nlines, (size_t)g.nlines * sizeof(float));
    differ += memcmp(l1, lgi, (size_t)g.nlines * sizeof(float)) != 0 || memcmp(&v1, &v[i], sizeof v1) != 0;
  }
  TH_CHECK(!differ, "%dx%d: %d of %d batch rows differ from single evaluations", rows, cols, differ, NB);
  free(x);
  dab_az_scratch_free(s1);
  dab_az_scratch_free(sn);
  dab_az_net_free(net);
}

/*
** The x86-64-v3 forward pass (8-float AVX2 tiles of 24 columns) gives the
** base one's bits (4-float SSE tiles of 12), logits and values, and so
** does dab_az_forward, whichever it calls: on random nets of several
** shapes (filters not a multiple of 4 included), some with zero weights
** (single ones, whole k of a group, a block's second convolution all
** zero), at batch sizes whose nb*hw is a multiple of no tile width and of
** both.  Skipped where the CPU lacks x86-64-v3.
*/
static void test_forward_isa(void) {
#if DAB_ISA_HAVE_V3
  if (!dab_isa_v3_float()) {
    printf("test_az: this CPU lacks x86-64-v3: v3 forward pass check skipped\n");
    return;
  }
  static const int shape[][5] = {/* rows cols blocks filters vfilters */
                                 {5, 5, 2, 32, 1}, {3, 3, 1, 12, 4}, {2, 3, 1, 6, 2}, {1, 1, 1, 5, 1},
                                 {4, 5, 2, 8, 3},  {1, 2, 0, 3, 1}};
  static const int batch[] = {1, 2, 3, 5, 8, 11, 24};
  enum { MAXB = 24 };
  int differ = 0, cases = 0;
  dab_rng rng;
  dab_rng_seed(&rng, 17);
  for (size_t sh = 0; sh < sizeof shape / sizeof shape[0]; sh++)
    for (int zeros = 0; zeros < 3; zeros++) {
      const int *d = shape[sh];
      size_t n = dab_az_net_size(d[0], d[1], d[2], d[3], 16, d[4]);
      float *w = malloc(n * sizeof *w);
      for (size_t i = 0; w && i < n; i++) {
        w[i] = (float)(dab_rng_unit(&rng) - 0.5) * 0.6f;
        if (zeros == 1 && dab_rng_next(&rng) % 4 == 0) w[i] = 0;
      }
      dab_az_net *net = NULL;
      dab_err err;
      dab_geom g;
      TH_CHECK(w && !dab_az_net_new(d[0], d[1], d[2], d[3], 16, d[4], w, n, &net, &err) &&
                   !dab_geom_init(&g, d[0], d[1], &err),
               "net %zu", sh);
      free(w);
      if (!net) continue;
      if (zeros == 2) {   /* every other k of a block's first conv, its second conv, all zero */
        size_t K = 9 * (size_t)d[3];
        for (int b = 0; b < d[2]; b++) {
          float *w1 = (float *)net->blk_w[2 * b], *w2 = (float *)net->blk_w[2 * b + 1];
          for (size_t o = 0; o < (size_t)d[3]; o++)
            for (size_t k = 0; k < K; k += 2) w1[o * K + k] = 0;
          memset(w2, 0, (size_t)d[3] * K * sizeof(float));
        }
      }
      size_t P = (size_t)DAB_AZ_PLANES * (size_t)net->hw, L = (size_t)net->nlines;
      float *x = malloc(MAXB * P * sizeof *x), *lg[3], v[3][MAXB];
      dab_az_scratch *s = dab_az_scratch_new(net, MAXB);
      for (int k = 0; k < 3; k++) lg[k] = malloc(MAXB * L * sizeof(float));
      TH_CHECK(x && s && lg[0] && lg[1] && lg[2], "setup");
      for (int i = 0; x && i < MAXB; i++)
        dab_az_encode(net, &g, dab_rng_next(&rng) & g.all_lines, (int)(dab_rng_next(&rng) % 9) - 4,
                      x + (size_t)i * P);
      for (size_t b = 0; x && s && lg[0] && lg[1] && lg[2] && b < sizeof batch / sizeof batch[0]; b++) {
        int nb = batch[b];
        dab_az_forward_base(net, s, nb, x, lg[0], v[0]);
        dab_az_forward_v3(net, s, nb, x, lg[1], v[1]);
        dab_az_forward(net, s, nb, x, lg[2], v[2]);
        for (int k = 1; k < 3; k++)
          differ += memcmp(lg[0], lg[k], (size_t)nb * L * sizeof(float)) != 0 ||
                    memcmp(v[0], v[k], (size_t)nb * sizeof(float)) != 0;
        cases++;
      }
      for (int k = 0; k < 3; k++) free(lg[k]);
      free(x);
      dab_az_scratch_free(s);
      dab_az_net_free(net);
    }
  TH_CHECK(!differ, "v3 and base forward passes differ in %d of %d cases", differ, 2 * cases);
#else
  printf("test_az: no x86-64-v3 build: v3 forward pass check skipped\n");
#endif
}

/* Self-play with many games in flight (their leaves evaluated together)
** and on two threads plays the same games, sample for sample, as one game
** at a time: forward, backward with a policy-drawn prefix, and backward
** with a random one. */
static void test_selfplay_batches(int rows, int cols) {
  enum { GAMES = 13 };
  dab_az_net *net = random_net(rows, cols, 1, 8, 5);
  dab_geom g;
  dab_err err;
  dab_geom_init(&g, rows, cols, &err);
  TH_CHECK(net != NULL, "net");
  if (!net) return;
  for (int mode = 0; mode < 3; mode++) {
    az_opts o;
    az_opts_default(&o);
    o.sims = 24;
    o.backward = mode > 0;
    o.prefix_random = mode == 2;
    az_play play = {&g, &o, net, 11, 2, mode ? g.nlines / 2 : g.nlines};
    az_game_out ref[GAMES], got[GAMES];
    memset(ref, 0, sizeof ref);
    o.eval_batch = 1;
    TH_CHECK(!az_play_games(&play, GAMES, 1, NULL, ref, &err), "self-play: %s", err.msg);
    long nref = 0;
    for (int i = 0; i < GAMES; i++) nref += ref[i].n;
    TH_CHECK(nref >= GAMES, "%dx%d mode %d: %ld samples from %d games", rows, cols, mode, nref, GAMES);
    const long batches[3] = {4, 32, 5};
    for (int b = 0; b < 3; b++) {
      o.eval_batch = batches[b];
      int threads = b == 2 ? 2 : 1, differ = 0;
      memset(got, 0, sizeof got);
      TH_CHECK(!az_play_games(&play, GAMES, threads, NULL, got, &err), "self-play: %s", err.msg);
      for (int i = 0; i < GAMES; i++) {
        bool same = got[i].n == ref[i].n && got[i].npos == ref[i].npos && got[i].nmq == ref[i].nmq &&
                    got[i].nnv == ref[i].nnv;
        for (int j = 0; same && j < ref[i].n; j++) {   /* field by field: the struct has padding */
          const az_sample *a = &got[i].s[j], *r = &ref[i].s[j];
          same = a->lines == r->lines && a->score_rel == r->score_rel && a->iter == r->iter &&
                 !memcmp(&a->z, &r->z, sizeof a->z) && !memcmp(a->pi, r->pi, sizeof a->pi);
        }
        differ += !same;
        free(got[i].s);
      }
      TH_CHECK(!differ, "%dx%d mode %d, %ld in flight, %d threads: %d of %d games differ from one at a time",
               rows, cols, mode, batches[b], threads, differ, GAMES);
    }
    for (int i = 0; i < GAMES; i++) free(ref[i].s);
  }
  dab_az_net_free(net);
}

/* The serving trainer: a command's error leaves it alive for the next,
** and one that dies (killed) is reported with its log and stopped. */
static void test_trainer(const char *trainer) {
  char log[160], line[512], w[170];
  snprintf(log, sizeof log, "%s/trainer.log", tmpdir);
  snprintf(w, sizeof w, "%s/t.bin", tmpdir);
  az_trainer tr;
  dab_err err;
  TH_CHECK(!az_trainer_start(&tr, trainer, log, &err), "start: %s", err.msg);
  const char *bad[] = {"train", "--weights", "/nonexistent/w.bin", "--samples", "/nonexistent/s", "--out", w, NULL};
  TH_CHECK(az_trainer_call(&tr, bad, line, sizeof line, &err) == DAB_EIO && strstr(err.msg, "nonexistent"),
           "a failing command: %s", err.msg);
  const char *init[] = {"init", "--out", w, "--filters", "4", "--blocks", "1", NULL};
  TH_CHECK(!az_trainer_call(&tr, init, line, sizeof line, &err) && !strncmp(line, "init weights=", 13),
           "the next command after an error: %s / %s", line, err.msg);
  TH_CHECK(tr.cpu_s > 0, "the trainer reports its CPU time: %g", tr.cpu_s);
  const char *tab[] = {"init", "--out", "a\tb", NULL};
  TH_CHECK(az_trainer_call(&tr, tab, line, sizeof line, &err) == DAB_EINPUT, "a tab in an argument is refused");
  kill(tr.pid, SIGKILL);
  TH_CHECK(az_trainer_call(&tr, init, line, sizeof line, &err) == DAB_EIO && strstr(err.msg, "died") &&
               tr.pid == -1 && tr.fd == -1,
           "a killed trainer: %s", err.msg);
  az_trainer_stop(&tr);
  az_trainer_stop(&tr);
}

/* A board no oracle covers (5x5) trains ungraded: every snapshot still
** logs its row, with the oracle's columns empty; asking for grading there
** is an error that names the way out. */
static void test_ungraded(dab_player_env *env) {
  dab_geom g;
  dab_err err;
  dab_geom_init(&g, 5, 5, &err);
  const char *kv[][2] = {{"backward", ""}, {"iter-games", "2"}, {"sims", "4"},
                         {"filters", "4"}, {"blocks", "1"}, {"eval-per-step", "2"}};
  for (int graded = 0; graded < 2; graded++) {
    dab_kopts k;
    memset(&k, 0, sizeof k);
    for (int i = 0; i < (graded ? 6 : 5); i++) {
      k.key[k.n] = kv[i][0];
      k.val[k.n++] = kv[i][1];
    }
    char model[160], ck[170], logp[170];
    snprintf(model, sizeof model, "%s/ungraded%d.model", tmpdir, graded);
    snprintf(ck, sizeof ck, "%s.ckpt", model);
    snprintf(logp, sizeof logp, "%s.csv", model);
    FILE *lf = fopen(logp, "w");
    dab_train_ctx t = {.g = &g, .seed = 3, .threads = 1, .generations = 2, .out = model,
                       .checkpoint = ck, .env = env, .kopts = &k, .log = lf};
    dab_status st = dab_agent_train_az(&t, &err);
    if (lf) fclose(lf);
    if (graded) {
      TH_CHECK(st == DAB_EBOARD && strstr(err.msg, "--eval-per-step=0"), "5x5 graded: %d %s", st, err.msg);
      continue;
    }
    TH_CHECK(!st && access(model, R_OK) == 0, "5x5 ungraded: %d %s", st, err.msg);
    FILE *f = fopen(logp, "r");
    char line[512];
    int rows = 0, bad = 0;
    long last_games = -1;
    while (f && fgets(line, sizeof line, f)) {
      if (!rows++) {
        TH_CHECK(!strncmp(line, "games,", 6), "5x5 log header: %s", line);
        continue;
      }
      /* fields 9-13 (optimal .. rmse) are the oracle's */
      char *field[16];
      int n = 0;
      for (char *p = line; n < 16;) {
        field[n++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = 0;
        p = c + 1;
      }
      bad += n != 15;
      for (int i = 8; i < 13 && n == 15; i++) bad += field[i][0] != 0;
      last_games = atol(field[0]);
    }
    if (f) fclose(f);
    TH_CHECK(rows == 3 && !bad && last_games == 4, "5x5 log: %d lines, %d bad fields, %ld games", rows, bad,
             last_games);
  }
}

int main(void) {
  if (!mkdtemp(tmpdir)) return 1;
  dab_err err;
  dab_player_env *env;
  dab_player_env_new(NULL, &env, &err);
  dab_agents_register(env, &err);
  const dab_oracle *o3;
  TH_CHECK(!dab_player_env_oracle(env, 3, 3, &o3, &err), "oracle: %s", err.msg);
  test_uniform(o3, env);
  test_opts_text();
  test_batch_rows(3, 3);
  test_batch_rows(2, 5);
  test_forward_isa();
  test_selfplay_batches(2, 2);
  test_selfplay_batches(3, 3);
  char trainer[4096] = "";
  bool torch = !az_find_trainer(trainer, sizeof trainer, &err) &&
               system("/usr/bin/python3 -c 'import torch' 2>/dev/null") == 0;
  if (!torch) {
    printf("test_az: PyTorch (python3-torch) missing: forward and training checks skipped\n");
  } else {
    test_trainer(trainer);
    test_forward(trainer, 3, 3, 2, 16, 1);
    test_forward(trainer, 2, 3, 1, 5, 1);
    test_forward(trainer, 5, 5, 0, 8, 1);
    test_forward(trainer, 3, 3, 1, 8, 4);
    test_forward(trainer, 3, 4, 2, 6, 3);
    char model[128];
    test_backward(env, model);
    test_own_positions(model);
    test_resume(env);
    test_files(env, model);
    test_ungraded(env);
  }
  dab_player_env_free(env);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", tmpdir);
  return TH_REPORT("test_az");
}
