/*
** az_train.c: `dab train az`: self-play in C, one PyTorch training pass
** (python/dab/az_train.py) per iteration, backward training, exact grading.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "agents/agent.h"
#include "agents/az.h"
#include "agents/az_int.h"
#include "symmetry/sym.h"

extern char **environ;

/* ---- Options ---------------------------------------------------------------- */

static dab_status kflag(dab_kopts *k, const char *key, bool *out, dab_err *err) {
  for (int i = 0; k && i < k->n; i++)
    if (!strcmp(k->key[i], key)) {
      k->used[i] = true;
      const char *v = k->val[i];
      if (!*v || !strcmp(v, "1")) *out = true;
      else if (!strcmp(v, "0")) *out = false;
      else return dab_fail(err, DAB_EINPUT, "train az: --%s takes no value (or =0|1)", key);
    }
  return DAB_OK;
}

static const char *kstr(dab_kopts *k, const char *key) {
  for (int i = 0; k && i < k->n; i++)
    if (!strcmp(k->key[i], key)) {
      k->used[i] = true;
      return k->val[i];
    }
  return NULL;
}

void az_opts_default(az_opts *o) {
  *o = (az_opts){.sims = 48, .c = 2, .blocks = 2, .filters = 16, .vhidden = 32, .vfilters = 1, .games = 50,
                 .replay = 5, .decay = 0.98, .lr = 0.001, .batch = 1024, .epochs = 5, .l2 = 1e-4,
                 .filter = 0.25, .noise_eps = 0.25, .mqth = 0.85, .nvth = 0.75, .mqrth = 0.75,
                 .nvrth = 0.85, .mit = 150, .theorems = true, .augment = true, .chainloop = true,
                 .table = true, .eval_per_step = 10, .temp_frac = 0.34, .max_steps = 0,
                 .margin = true, .min_batches = 32, .eval_batch = 8};
}

dab_status az_opts_parse(dab_train_ctx *t, az_opts *o, dab_err *err) {
  dab_kopts *k = t->kopts;
  /* Over *o's values, so that parsing over a checkpoint's settings
  ** changes only what the command line gives. */
  bool no_th = !o->theorems, no_aug = !o->augment, no_cl = !o->chainloop;
  int value = o->margin ? 1 : 0, prefix = o->prefix_random ? 1 : 0, adam = o->adam_reset ? 1 : 0;
  dab_status st;
  if ((st = kflag(k, "backward", &o->backward, err)) || (st = kflag(k, "no-theorems", &no_th, err)) ||
      (st = kflag(k, "no-augment", &no_aug, err)) || (st = kflag(k, "no-chainloop", &no_cl, err)) ||
      (st = dab_kopt_double(k, "az", "hours", 0, 1e4, &o->hours, err)) ||
      (st = dab_kopt_long(k, "az", "sims", 1, 100000, &o->sims, err)) ||
      (st = dab_kopt_double(k, "az", "c", 0, 100, &o->c, err)) ||
      (st = dab_kopt_long(k, "az", "blocks", 0, DAB_AZ_MAX_BLOCKS, &o->blocks, err)) ||
      (st = dab_kopt_long(k, "az", "filters", 1, 256, &o->filters, err)) ||
      (st = dab_kopt_long(k, "az", "vhidden", 1, 1024, &o->vhidden, err)) ||
      (st = dab_kopt_long(k, "az", "vfilters", 1, 64, &o->vfilters, err)) ||
      (st = dab_kopt_long(k, "az", "iter-games", 1, 100000, &o->games, err)) ||
      (st = dab_kopt_long(k, "az", "replay", 1, 100, &o->replay, err)) ||
      (st = dab_kopt_double(k, "az", "decay", 0, 1, &o->decay, err)) ||
      (st = dab_kopt_double(k, "az", "lr", 1e-7, 1, &o->lr, err)) ||
      (st = dab_kopt_long(k, "az", "batch", 1, 1 << 20, &o->batch, err)) ||
      (st = dab_kopt_long(k, "az", "epochs", 1, 1000, &o->epochs, err)) ||
      (st = dab_kopt_long(k, "az", "max-steps", 0, 1 << 30, &o->max_steps, err)) ||
      (st = dab_kopt_long(k, "az", "min-batches", 0, 1 << 20, &o->min_batches, err)) ||
      (st = dab_kopt_long(k, "az", "eval-batch", 1, 1024, &o->eval_batch, err)) ||
      (st = dab_kopt_double(k, "az", "l2", 0, 1, &o->l2, err)) ||
      (st = dab_kopt_double(k, "az", "filter", 0, 1, &o->filter, err)) ||
      (st = dab_kopt_double(k, "az", "noise", 0, 1, &o->noise_eps, err)) ||
      (st = dab_kopt_double(k, "az", "mqth", -1, 1, &o->mqth, err)) ||
      (st = dab_kopt_double(k, "az", "nvth", -1, 1, &o->nvth, err)) ||
      (st = dab_kopt_double(k, "az", "mqrth", 0, 1, &o->mqrth, err)) ||
      (st = dab_kopt_double(k, "az", "nvrth", 0, 1, &o->nvrth, err)) ||
      (st = dab_kopt_long(k, "az", "mit", 1, 1000000, &o->mit, err)) ||
      (st = kflag(k, "table", &o->table, err)) ||
      (st = dab_kopt_long(k, "az", "eval-per-step", 0, 10000, &o->eval_per_step, err)) ||
      (st = dab_kopt_double(k, "az", "temp-frac", 0, 1, &o->temp_frac, err)) ||
      (st = dab_kopt_choice(k, "az", "value", "wdl|margin", &value, err)) ||
      (st = dab_kopt_choice(k, "az", "prefix", "policy|random", &prefix, err)) ||
      (st = dab_kopt_choice(k, "az", "adam", "keep|reset", &adam, err)))
    return st;
  o->theorems = !no_th;
  o->augment = !no_aug;
  o->chainloop = !no_cl;
  o->margin = value == 1;
  o->prefix_random = prefix == 1;
  o->adam_reset = adam == 1;
  o->eval_given = kstr(k, "eval-per-step") != NULL;
  const char *tr = kstr(k, "trainer");
  if (tr) snprintf(o->trainer, sizeof o->trainer, "%s", tr);
  const char *init = kstr(k, "init");
  if (init && !*init) return dab_fail(err, DAB_EINPUT, "train az: --init needs a model file (--init=FILE)");
  if (init) snprintf(o->init, sizeof o->init, "%s", init);
  o->net_given = kstr(k, "blocks") || kstr(k, "filters") || kstr(k, "vhidden") || kstr(k, "vfilters");
  return DAB_OK;
}

/* The options a checkpoint stores, by name. */
typedef struct az_field { const char *name; char kind; size_t off; } az_field;
#define AZ_B(f) {#f, 'b', offsetof(az_opts, f)}
#define AZ_D(f) {#f, 'd', offsetof(az_opts, f)}
#define AZ_L(f) {#f, 'l', offsetof(az_opts, f)}
static const az_field az_fields[] = {
    AZ_B(backward), AZ_B(theorems), AZ_B(augment), AZ_B(chainloop), AZ_B(margin), AZ_B(table),
    AZ_B(prefix_random), AZ_B(adam_reset), AZ_D(hours), AZ_D(c), AZ_D(decay), AZ_D(lr), AZ_D(l2),
    AZ_D(filter), AZ_D(noise_eps), AZ_D(mqth), AZ_D(nvth), AZ_D(mqrth), AZ_D(nvrth), AZ_D(temp_frac),
    AZ_L(sims), AZ_L(blocks), AZ_L(filters), AZ_L(vhidden), AZ_L(games), AZ_L(replay), AZ_L(batch),
    AZ_L(epochs), AZ_L(mit), AZ_L(eval_per_step), AZ_L(max_steps),
    AZ_L(min_batches), AZ_L(vfilters)};
enum { AZ_NFIELDS = (int)(sizeof az_fields / sizeof az_fields[0]) };

int az_opts_write(const az_opts *o, char *out, size_t cap) {
  size_t k = 0;
  int w = snprintf(out, cap, "v=2\n");
  for (int i = 0; w >= 0 && (k += (size_t)w) < cap && i < AZ_NFIELDS; i++) {
    const char *p = (const char *)o + az_fields[i].off, *name = az_fields[i].name;
    if (az_fields[i].kind == 'b') w = snprintf(out + k, cap - k, "%s=%d\n", name, *(const bool *)p);
    else if (az_fields[i].kind == 'd') w = snprintf(out + k, cap - k, "%s=%.17g\n", name, *(const double *)p);
    else w = snprintf(out + k, cap - k, "%s=%ld\n", name, *(const long *)p);
  }
  return w < 0 || k >= cap ? -1 : (int)k;
}

dab_status az_opts_read(az_opts *o, const char *text, size_t n, dab_err *err) {
  size_t at = 0;
  bool first = true;
  while (at < n) {
    char line[128];
    size_t e = at;
    while (e < n && text[e] != '\n') e++;
    if (e - at >= sizeof line) return dab_fail(err, DAB_ECORRUPT, "az checkpoint: option line too long");
    memcpy(line, text + at, e - at);
    line[e - at] = 0;
    at = e + 1;
    char *eq = strchr(line, '='), *end;
    if (!eq) return dab_fail(err, DAB_ECORRUPT, "az checkpoint: bad option line '%s'", line);
    *eq = 0;
    const char *v = eq + 1;
    if (first) {
      if (strcmp(line, "v") || strcmp(v, "2"))
        return dab_fail(err, DAB_ECORRUPT, "az checkpoint: options version '%s=%s' (want v=2)", line, v);
      first = false;
      continue;
    }
    int i = 0;
    while (i < AZ_NFIELDS && strcmp(az_fields[i].name, line)) i++;
    if (i == AZ_NFIELDS) return dab_fail(err, DAB_ECORRUPT, "az checkpoint: unknown option '%s'", line);
    char *p = (char *)o + az_fields[i].off;
    errno = 0;
    if (az_fields[i].kind == 'd') *(double *)p = strtod(v, &end);
    else {
      long x = strtol(v, &end, 10);
      if (az_fields[i].kind == 'b') *(bool *)p = x != 0;
      else *(long *)p = x;
    }
    if (!*v || *end || errno) return dab_fail(err, DAB_ECORRUPT, "az checkpoint: bad value '%s=%s'", line, v);
  }
  if (first) return dab_fail(err, DAB_ECORRUPT, "az checkpoint: no options");
  return DAB_OK;
}

/* ---- The Python trainer ----------------------------------------------------- */

/* Finds the trainer, python/dab/az_train.py: opts, $DAB_AZ_TRAINER, then
** beside the running program (up to three folders up: a checkout's
** python/dab/, or the package `make install` put in lib/python3.X/
** dist-packages/dab/), then ./python/dab. */
dab_status az_find_trainer(char *out, size_t cap, dab_err *err) {
  if (out[0]) return access(out, R_OK) == 0 ? DAB_OK : dab_fail(err, DAB_EINPUT, "az: cannot read trainer %s", out);
  const char *env = getenv("DAB_AZ_TRAINER");
  if (env && *env) {
    snprintf(out, cap, "%s", env);
    return access(out, R_OK) == 0 ? DAB_OK : dab_fail(err, DAB_EINPUT, "az: cannot read %s", out);
  }
  if (dab_python_package_file("az_train.py", out, cap)) return DAB_OK;
  return dab_fail(err, DAB_EINPUT, "az: " AZ_TRAINER_PATH " not found (set DAB_AZ_TRAINER or --trainer=FILE)");
}

/* $DAB_AZ_DEVICE is read by the trainer at its first pass, minutes in;
** a name no machine has (a typo) is refused here, before anything runs.
** Whether a CUDA device is present only the trainer can tell. */
dab_status az_check_device_env(dab_err *err) {
  const char *dev = getenv("DAB_AZ_DEVICE");
  if (!dev || !*dev || !strcmp(dev, "cpu") || !strcmp(dev, "cuda") || !strcmp(dev, "auto")) return DAB_OK;
  if (!strncmp(dev, "cuda:", 5) && dev[5] && strspn(dev + 5, "0123456789") == strlen(dev + 5)) return DAB_OK;
  return dab_fail(err, DAB_EINPUT, "az: DAB_AZ_DEVICE=%s: not a device (cpu, cuda, cuda:N or auto)", dev);
}

/* The last non-empty line of the trainer's log: its error, if it died. */
static void log_tail(const char *log, char *line, size_t cap) {
  line[0] = 0;
  FILE *f = fopen(log, "r");
  if (!f) return;
  char buf[1024];
  while (fgets(buf, sizeof buf, f))
    if (buf[0] && buf[0] != '\n') snprintf(line, cap, "%s", buf);
  fclose(f);
  size_t k = strlen(line);
  if (k && line[k - 1] == '\n') line[k - 1] = 0;
}

dab_status az_trainer_start(az_trainer *tr, const char *script, const char *log, dab_err *err) {
  tr->pid = -1;
  tr->fd = -1;
  tr->cpu_s = 0;
  snprintf(tr->log, sizeof tr->log, "%s", log);
  /* A socket, not pipes: send() with MSG_NOSIGNAL reports a dead trainer
  ** as EPIPE instead of killing this process with SIGPIPE. */
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
    return dab_fail(err, DAB_EIO, "az: socketpair: %s", strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
  posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const char *py = getenv("DAB_PYTHON");
  if (!py || !*py) py = "/usr/bin/python3";
  const char *argv[] = {"python3", script, "serve", NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, py, &fa, NULL, (char *const *)argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(sv[1]);
  if (rc) {
    close(sv[0]);
    return dab_fail(err, DAB_EIO, "az: cannot run %s: %s", py, strerror(rc));
  }
  tr->pid = pid;
  tr->fd = sv[0];
  return DAB_OK;
}

/* Closes the socket (end of requests: the trainer exits) and waits for
** it; its wait status, 0 when none was running. */
static int trainer_reap(az_trainer *tr) {
  int status = 0;
  if (tr->fd >= 0) close(tr->fd);
  tr->fd = -1;
  if (tr->pid > 0)
    while (waitpid(tr->pid, &status, 0) < 0 && errno == EINTR) {
    }
  tr->pid = -1;
  tr->cpu_s = 0;    /* now in RUSAGE_CHILDREN: see dab_process_cpu_s */
  return status;
}

void az_trainer_stop(az_trainer *tr) { trainer_reap(tr); }

/* Sends all of buf; false when the trainer has gone. */
static bool send_all(int fd, const char *buf, size_t n) {
  while (n) {
    ssize_t k = send(fd, buf, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    buf += k;
    n -= (size_t)k;
  }
  return true;
}

dab_status az_trainer_call(az_trainer *tr, const char *const *argv, char *line, size_t cap,
                           dab_err *err) {
  if (tr->fd < 0) return dab_fail(err, DAB_EIO, "az: the trainer is not running");
  char req[8192];
  size_t n = 0;
  for (int i = 0; argv[i]; i++) {
    if (strpbrk(argv[i], "\t\n")) return dab_fail(err, DAB_EINPUT, "az: a tab or newline in '%s'", argv[i]);
    int k = snprintf(req + n, sizeof req - n, "%s%s", i ? "\t" : "", argv[i]);
    if (k < 0 || (size_t)k >= sizeof req - n) return dab_fail(err, DAB_EINPUT, "az: trainer request too long");
    n += (size_t)k;
  }
  if (n + 1 >= sizeof req) return dab_fail(err, DAB_EINPUT, "az: trainer request too long");
  req[n++] = '\n';
  /* The answer: one line.  A short read is EOF (the trainer died:
  ** Ctrl-C, an exception outside a request, the OOM killer). */
  bool alive = send_all(tr->fd, req, n);
  size_t got = 0;
  line[0] = 0;
  while (alive && got + 1 < cap) {
    ssize_t k = read(tr->fd, line + got, 1);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      alive = false;
      break;
    }
    if (line[got] == '\n') break;
    got++;
  }
  line[got] = 0;
  if (!alive) {
    int status = trainer_reap(tr);
    log_tail(tr->log, line, cap);
    return dab_fail(err, WIFSIGNALED(status) && WTERMSIG(status) == SIGINT ? DAB_ECANCELED : DAB_EIO,
                    "az: the trainer died: %s", line[0] ? line : "(no output)");
  }
  char *c = strstr(line, " cpu_s=");
  if (c) {
    tr->cpu_s = atof(c + 7);
    *c = 0;
  }
  if (!strncmp(line, "ok ", 3)) {
    memmove(line, line + 3, strlen(line + 3) + 1);
    return DAB_OK;
  }
  return dab_fail(err, DAB_EIO, "az: trainer: %s", strncmp(line, "error ", 6) ? line : line + 6);
}

static dab_status read_floats(const char *path, float **out, size_t *n, dab_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return dab_fail(err, DAB_EIO, "az: cannot read %s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  *n = (size_t)(sz > 0 ? sz : 0) / sizeof(float);
  *out = malloc(*n * sizeof(float) + 1);
  if (!*out) {
    fclose(f);
    return dab_fail(err, DAB_ENOMEM, "az: out of memory");
  }
  size_t got = fread(*out, sizeof(float), *n, f);
  fclose(f);
  if (got != *n) {
    free(*out);
    *out = NULL;
    return dab_fail(err, DAB_EIO, "az: short read of %s", path);
  }
  return DAB_OK;
}

dab_status az_python_net(az_trainer *tr, const dab_geom *g, const az_opts *o,
                         const char *const *extra, const char *wpath, dab_az_net **net, char *line,
                         size_t cap, dab_err *err) {
  char a[6][24];
  snprintf(a[0], 24, "%d", g->rows);
  snprintf(a[1], 24, "%d", g->cols);
  snprintf(a[2], 24, "%ld", o->blocks);
  snprintf(a[3], 24, "%ld", o->filters);
  snprintf(a[4], 24, "%ld", o->vhidden);
  snprintf(a[5], 24, "%ld", o->vfilters);
  const char *argv[64];
  int n = 0;
  for (; extra[n]; n++) argv[n] = extra[n];
  const char *fixed[] = {"--rows", a[0], "--cols", a[1], "--blocks", a[2], "--filters", a[3],
                         "--vhidden", a[4], "--vfilters", a[5], "--out", wpath, NULL};
  for (int i = 0; fixed[i]; i++) argv[n++] = fixed[i];
  argv[n] = NULL;
  dab_status st = az_trainer_call(tr, argv, line, cap, err);
  if (st) return st;
  float *w;
  size_t nw = 0;
  if ((st = read_floats(wpath, &w, &nw, err))) return st;
  dab_az_net *nn;
  st = dab_az_net_new(g->rows, g->cols, (int)o->blocks, (int)o->filters, (int)o->vhidden, (int)o->vfilters, w,
                      nw, &nn, err);
  free(w);
  if (st) return st;
  dab_az_net_free(*net);
  *net = nn;
  return DAB_OK;
}

/* ---- Samples file ------------------------------------------------------------ */

dab_status az_write_samples(const char *path, const dab_geom *g, const dab_az_net *net,
                            const dab_sym *sym, bool augment, const az_sample *s, size_t n,
                            long iter_now, double decay, size_t *written, dab_err *err) {
  FILE *f = fopen(path, "wb");
  if (!f) return dab_fail(err, DAB_EIO, "az: cannot write %s: %s", path, strerror(errno));
  int nt = augment ? sym->ntrans : 1, L = g->nlines, hw = net->hw;
  int32_t head[3] = {(int32_t)(n * (size_t)nt), L, hw};
  fwrite("AZS1", 1, 4, f);
  fwrite(head, sizeof head, 1, f);
  size_t rec = (size_t)(3 * hw + L + 2);
  float *buf = malloc(rec * sizeof(float));
  if (!buf) {
    fclose(f);
    return dab_fail(err, DAB_ENOMEM, "az: out of memory");
  }
  for (size_t i = 0; i < n; i++)
    for (int t = 0; t < nt; t++) {
      uint64_t p = dab_sym_apply64(sym, t, s[i].lines);
      dab_az_encode(net, g, p, s[i].score_rel, buf);
      float *pi = buf + 3 * hw;
      for (int l = 0; l < L; l++) pi[sym->perm[t][l]] = s[i].pi[l];
      pi[L] = s[i].z;
      pi[L + 1] = (float)pow(decay, (double)(iter_now - s[i].iter));
      fwrite(buf, sizeof(float), rec, f);
    }
  free(buf);
  if (fclose(f) != 0) return dab_fail(err, DAB_EIO, "az: cannot write %s", path);
  *written = n * (size_t)nt;
  return DAB_OK;
}

/* ---- Exact measurement --------------------------------------------------------- */

void az_measure(const dab_geom *g, const dab_oracle *oracle, dab_az_model *m, long sims,
                const az_testpos *tp, int ntp, az_measure_out *out) {
  memset(out, 0, sizeof *out);
  dab_az_evaluator ev = {m->net, dab_az_scratch_new(m->net, 1), 0};
  dab_az_search_opts so = m->search;
  so.sims = sims;
  so.noise_eps = 0;
  so.filter = 0;
  dab_az_search *s = sims > 0 ? dab_az_search_new(g, &so, dab_az_net_eval, &ev) : NULL;
  dab_rng rng;
  double se = 0;
  for (int i = 0; i < ntp; i++) {
    const az_testpos *x = &tp[i];
    int16_t mv[64], val[64];
    int n;
    dab_err err;
    if (dab_oracle_move_values(oracle, x->lines, mv, val, &n, &err) || n == 0) continue;
    int best = -1000;
    for (int j = 0; j < n; j++)
      if (val[j] > best) best = val[j];
    dab_game game;
    dab_game_init(g, &game);
    game.lines = dab_ls_from_word(x->lines);
    game.to_move = 0;
    game.score[0] = x->score_rel > 0 ? x->score_rel : 0;
    game.score[1] = x->score_rel < 0 ? -x->score_rel : 0;
    dab_rng_seed2(&rng, 77, (uint64_t)i);
    pl_mstate st;
    pl_mstate_from_game(g, &game, &st);
    float prior[DAB_MAX_LINES], v;
    dab_az_net_eval(&ev, g, &st, &rng, prior, &v);
    int pm = mv[0];
    for (int j = 1; j < n; j++)
      if (prior[mv[j]] > prior[pm]) pm = mv[j];
    long save = m->search.sims;
    m->search.sims = sims;
    int sm = s ? dab_az_model_move(m, g, s, &ev, &game, &rng) : pm;
    m->search.sims = save;
    int d = x->score_rel;
    int res_best = (d + best > 0) - (d + best < 0);
    for (int j = 0; j < n; j++) {
      int r = (d + val[j] > 0) - (d + val[j] < 0);
      if (mv[j] == pm) {
        out->opt_policy[x->step] += val[j] == best;
        out->kept_policy[x->step] += r == res_best;
      }
      if (mv[j] == sm) {
        out->opt_mcts[x->step] += val[j] == best;
        out->kept_mcts[x->step] += r == res_best;
      }
    }
    double exact = m->search.margin ? (double)(d + best) / g->nboxes : (double)res_best;
    out->n[x->step]++;
    se += (v - exact) * (v - exact);
    out->verr[x->step] += fabs(v - exact);
  }
  long tot = 0;
  for (int k = 0; k < g->nlines; k++) {
    tot += out->n[k];
    out->all_opt_policy += out->opt_policy[k];
    out->all_opt_mcts += out->opt_mcts[k];
    out->all_kept_policy += out->kept_policy[k];
    out->all_kept_mcts += out->kept_mcts[k];
  }
  if (tot) {
    out->all_opt_policy /= (double)tot;
    out->all_opt_mcts /= (double)tot;
    out->all_kept_policy /= (double)tot;
    out->all_kept_mcts /= (double)tot;
    out->rmse = sqrt(se / (double)tot);
  }
  dab_az_search_free(s);
  dab_az_scratch_free(ev.scratch);
}

int az_random_positions(const dab_geom *g, int per_step, uint64_t seed, az_testpos *out, int cap) {
  int n = 0;
  dab_rng rng;
  for (int s = 0; s < g->nlines - 1; s++)
    for (int k = 0; k < per_step && n < cap; k++) {
      dab_rng_seed2(&rng, seed, (uint64_t)(s * 100003 + k));
      dab_game game;
      dab_game_init(g, &game);
      int16_t mv[DAB_MAX_LINES];
      for (int i = 0; i < s; i++) {
        int nm = dab_legal_moves(g, &game.lines, mv);
        dab_game_play(g, &game, mv[dab_rng_below(&rng, nm)]);
      }
      int me = game.to_move;
      out[n++] = (az_testpos){dab_ls_word(&game.lines), (int16_t)(game.score[me] - game.score[me ^ 1]),
                              (int16_t)s};
    }
  return n;
}

int az_own_positions(const dab_geom *g, dab_az_model *m, int per_step, uint64_t seed,
                     az_testpos *out, int cap) {
  dab_az_evaluator ev = {m->net, dab_az_scratch_new(m->net, 1), 0};
  if (!ev.scratch) return 0;
  int n = 0;
  dab_rng rng;
  for (int k = 0; k < per_step; k++) {
    dab_rng_seed2(&rng, seed, (uint64_t)k);
    dab_game game;
    dab_game_init(g, &game);
    for (int s = 0; s < g->nlines - 1 && n < cap; s++) {
      int me = game.to_move;
      out[n++] = (az_testpos){dab_ls_word(&game.lines), (int16_t)(game.score[me] - game.score[me ^ 1]),
                              (int16_t)s};
      int16_t mv[DAB_MAX_LINES];
      int nm = dab_legal_moves(g, &game.lines, mv);
      pl_mstate st;
      pl_mstate_from_game(g, &game, &st);
      float prior[DAB_MAX_LINES], v, sum = 0;
      dab_az_net_eval(&ev, g, &st, &rng, prior, &v);
      for (int j = 0; j < nm; j++) sum += prior[mv[j]];
      double u = dab_rng_unit(&rng) * sum, acc = 0;
      int pick = mv[nm - 1];
      for (int j = 0; j < nm; j++) {
        acc += prior[mv[j]];
        if (u < acc) {
          pick = mv[j];
          break;
        }
      }
      dab_game_play(g, &game, pick);
    }
  }
  dab_az_scratch_free(ev.scratch);
  return n;
}
