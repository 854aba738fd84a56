/*
** az_loop.c: the BoxesZero / AlphaZero training loop: self-play games,
** the replay buffer, backward-training steps, checkpoints and snapshots.
** See Copyright Notice in README.md
*/
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agents/az_int.h"
#include "game/clock.h"

typedef struct az_run {
  const dab_geom *g;
  az_opts o;
  dab_az_net *net;
  az_trainer tr;
  dab_sym *sym;
  az_sample *buf;
  size_t nbuf;
  long iter, games, step_k, step_iters;   /* step_k: lines left undrawn at the start */
  uint64_t seed;
  double lp, lv, mqr, nvr, sps;   /* sps: the trainer pass's steps a second */
  double cpu0, cpu_before;        /* the run's CPU clock: see run_cpu */
  char dir[64];
} az_run;

/* CPU seconds the run has spent (self-play, the trainer process,
** snapshots), across resumes: --hours budgets this, not wall time, so a
** run on a busy machine gets the training it asked for.  The live
** trainer's time is what it last reported (rusage counts a child only
** once it has been waited for). */
static double run_cpu(const az_run *R) {
  return R->cpu_before + dab_process_cpu_s() - R->cpu0 + R->tr.cpu_s;
}

/* ---- Checkpoints and models ----------------------------------------------- */

static dab_az_search_opts play_opts(const az_opts *o) {
  return (dab_az_search_opts){.sims = o->sims, .c_puct = o->c, .chainloop = o->chainloop,
                              .theorems = o->theorems, .margin = o->margin};
}

/* A checkpoint's state after the weights (format 2, little-endian):
** "AZC2", u32 n then the options text (az_opts_write), u32 n then the
** trainer's Adam state (torch.save; n = 0: none yet or --adam=reset),
** then nbuf samples of AZ_SREC bytes each: u64 lines, i16 score_rel,
** i32 iter, f32 z, f32 pi[64]. */
#define AZ_SREC (8 + 2 + 4 + 4 + 64 * 4)

static unsigned char *put(unsigned char *b, const void *p, size_t n) {
  memcpy(b, p, n);
  return b + n;
}

static const unsigned char *get(const unsigned char *b, void *p, size_t n) {
  memcpy(p, b, n);
  return b + n;
}

/* Reads the whole of path (a missing file: *n = 0, NULL). */
static unsigned char *slurp(const char *path, size_t *n) {
  *n = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *b = NULL;
  long sz = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  if (sz > 0 && fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)sz)) &&
      fread(b, 1, (size_t)sz, f) == (size_t)sz)
    *n = (size_t)sz;
  fclose(f);
  return b;
}

static dab_status save(const az_run *R, const char *path, bool ckpt, double seconds, dab_err *err) {
  char extra[1024];
  int k = snprintf(extra, sizeof extra,
                   "method=%s,iter=%ld,games=%ld,step=%ld,step_iters=%ld,seconds=%.1f,cpu_seconds=%.1f,seed=%" PRIu64 ",augment=%d",
                   R->o.backward ? "backward" : "forward", R->iter, R->games, R->step_k,
                   R->step_iters, seconds, run_cpu(R), R->seed, R->o.augment);
  dab_az_search_opts so = play_opts(&R->o);
  if (!ckpt) return dab_az_model_save(path, R->net, &so, extra, NULL, 0, err);
  /* A checkpoint's own params come last: dab_az_ckpt_export cuts there. */
  snprintf(extra + k, sizeof extra - (size_t)k, ",checkpoint=2,nbuf=%zu", R->nbuf);
  char opts[4096];
  int on = az_opts_write(&R->o, opts, sizeof opts);
  if (on < 0) return dab_fail(err, DAB_EINPUT, "az: options too long for a checkpoint");
  char ap[128];
  snprintf(ap, sizeof ap, "%s/adam.pt", R->dir);
  size_t an;
  unsigned char *adam = slurp(ap, &an);
  size_t n = 4 + 4 + (size_t)on + 4 + an + R->nbuf * AZ_SREC;
  unsigned char *b = malloc(n + 1), *w = b;
  if (!b) {
    free(adam);
    return dab_fail(err, DAB_ENOMEM, "az: out of memory for a checkpoint");
  }
  uint32_t u = (uint32_t)on;
  w = put(w, "AZC2", 4);
  w = put(w, &u, 4);
  w = put(w, opts, (size_t)on);
  u = (uint32_t)an;
  w = put(w, &u, 4);
  if (an) w = put(w, adam, an);
  free(adam);
  for (size_t i = 0; i < R->nbuf; i++) {
    const az_sample *x = &R->buf[i];
    w = put(w, &x->lines, 8);
    w = put(w, &x->score_rel, 2);
    w = put(w, &x->iter, 4);
    w = put(w, &x->z, 4);
    w = put(w, x->pi, sizeof x->pi);
  }
  dab_status st = dab_az_model_save(path, R->net, &so, extra, b, n, err);
  free(b);
  return st;
}

static bool plong(const char *params, const char *key, long *out) {
  char buf[64], *end;
  if (!dab_params_get(params, key, buf, sizeof buf)) return false;
  *out = strtol(buf, &end, 10);
  return buf[0] && !*end;
}

/* Restores the run from a checkpoint: options (over the defaults; the
** trainer path stays this call's), counters, replay buffer, weights and
** Adam's state (written to the work folder for the next trainer pass). */
static dab_status resume(az_run *R, const char *path, double *seconds, dab_err *err) {
  dab_az_model *m;
  unsigned char *x;
  size_t xn;
  dab_status st = dab_az_model_load_ckpt(path, R->g, &m, &x, &xn, err);
  if (st) return st;
  long ck = 0, nbuf = -1, seed = 0;
  char sec[64];
  bool ok = plong(m->params, "checkpoint", &ck) && plong(m->params, "nbuf", &nbuf) &&
            plong(m->params, "iter", &R->iter) && plong(m->params, "games", &R->games) &&
            plong(m->params, "step", &R->step_k) && plong(m->params, "step_iters", &R->step_iters) &&
            plong(m->params, "seed", &seed) && dab_params_get(m->params, "seconds", sec, sizeof sec);
  char cpu[64]; /* absent in checkpoints written before the CPU clock */
  R->cpu_before = dab_params_get(m->params, "cpu_seconds", cpu, sizeof cpu) ? strtod(cpu, NULL) : 0;
  uint32_t on = 0, an = 0;
  const unsigned char *r = x, *end = x + xn;
  ok = ok && ck == 2 && nbuf >= 0 && xn >= 8 && !memcmp(x, "AZC2", 4);
  if (ok) r = get(r + 4, &on, 4);
  ok = ok && (size_t)(end - r) >= (size_t)on + 4;
  if (ok) r = get(r + on, &an, 4);
  ok = ok && (size_t)(end - r) == (size_t)an + (size_t)nbuf * AZ_SREC;
  if (!ok) {
    free(x);
    dab_az_model_free(m);
    return dab_fail(err, DAB_EINPUT,
                    "%s: not an az checkpoint (format 2; a finished model, or an older build's?)", path);
  }
  char trainer[sizeof R->o.trainer];   /* this call's, like the batch below */
  memcpy(trainer, R->o.trainer, sizeof trainer);
  long eval_batch = R->o.eval_batch;
  az_opts_default(&R->o);
  memcpy(R->o.trainer, trainer, sizeof trainer);
  R->o.eval_batch = eval_batch;
  st = az_opts_read(&R->o, (const char *)x + 8, on, err);
  if (!st && an) {
    char ap[128];
    snprintf(ap, sizeof ap, "%s/adam.pt", R->dir);
    FILE *f = fopen(ap, "wb");
    if (!f || fwrite(r, 1, an, f) != an) st = dab_fail(err, DAB_EIO, "az: cannot write %s", ap);
    if (f && fclose(f) != 0 && !st) st = dab_fail(err, DAB_EIO, "az: cannot write %s", ap);
  }
  r += an;
  if (!st && !(R->buf = malloc((size_t)nbuf * sizeof(az_sample) + 1)))
    st = dab_fail(err, DAB_ENOMEM, "az: out of memory");
  if (st) {
    free(x);
    dab_az_model_free(m);
    return st;
  }
  for (long i = 0; i < nbuf; i++) {
    az_sample *a = &R->buf[i];
    memset(a, 0, sizeof *a);
    r = get(r, &a->lines, 8);
    r = get(r, &a->score_rel, 2);
    r = get(r, &a->iter, 4);
    r = get(r, &a->z, 4);
    r = get(r, a->pi, sizeof a->pi);
  }
  R->nbuf = (size_t)nbuf;
  R->seed = (uint64_t)seed;
  *seconds = atof(sec);
  R->net = m->net;
  m->net = NULL;
  dab_az_model_free(m);
  free(x);
  return DAB_OK;
}

/* A resumed run keeps the settings its checkpoint holds: the command
** line may change the CPU budget (--hours) and nothing else a checkpoint
** stores, so a setting given that differs is an error, not ignored. */
static dab_status resume_opts(az_run *R, dab_train_ctx *t, dab_err *err) {
  az_opts given = R->o;
  dab_status st = az_opts_parse(t, &given, err);
  if (st) return st;
  double hours = given.hours;
  given.hours = R->o.hours;
  char had[4096], want[4096];
  int hn = az_opts_write(&R->o, had, sizeof had), wn = az_opts_write(&given, want, sizeof want);
  if (hn < 0 || wn < 0) return dab_fail(err, DAB_EINPUT, "az: options too long");
  for (const char *h = had, *w = want; *h && *w;) {
    size_t hl = strcspn(h, "\n"), wl = strcspn(w, "\n");
    if (hl != wl || memcmp(h, w, hl))
      return dab_fail(err, DAB_EINPUT,
                      "az: the checkpoint trains with %.*s, not %.*s: a resumed run keeps its settings, "
                      "all but --hours (--init=CHECKPOINT starts a new run from its net)",
                      (int)hl, h, (int)wl, w);
    h += hl + (h[hl] != 0);
    w += wl + (w[wl] != 0);
  }
  R->o.hours = hours;
  return DAB_OK;
}

/* Starts the run from --init's net: its shape replaces the options'
** (which must agree where they were given), its weights the fresh net's;
** the replay buffer, Adam's state and the counters start empty.  A
** model's values must be of the kind the run trains (margin or wdl). */
static dab_status warm_start(az_run *R, dab_err *err) {
  dab_az_model *m;
  dab_status st = dab_az_model_load(R->o.init, R->g, &m, err);
  if (st) return dab_fail(err, st, "az: --init: %s", err->msg);
  const dab_az_net *n = m->net;
  if (R->o.net_given && (n->blocks != R->o.blocks || n->filters != R->o.filters ||
                         n->vhidden != R->o.vhidden || n->vfilters != R->o.vfilters))
    st = dab_fail(err, DAB_EINPUT,
                  "az: --init=%s holds a net of --blocks=%d --filters=%d --vhidden=%d --vfilters=%d; "
                  "leave those out or give the same", R->o.init, n->blocks, n->filters, n->vhidden, n->vfilters);
  else if (m->search.margin != R->o.margin)
    st = dab_fail(err, DAB_EINPUT, "az: --init=%s values %s; train it with --value=%s", R->o.init,
                  m->search.margin ? "margins" : "win/draw/loss", m->search.margin ? "margin" : "wdl");
  if (!st) {
    R->o.blocks = n->blocks;
    R->o.filters = n->filters;
    R->o.vhidden = n->vhidden;
    R->o.vfilters = n->vfilters;
    R->net = m->net;
    m->net = NULL;
    R->step_k = R->o.backward ? 1 : R->g->nlines;
  }
  dab_az_model_free(m);
  return st;
}

/* ---- Snapshots ---------------------------------------------------------------- */

#define AZ_COLUMNS \
  "games,seconds,iter,step,mqr,nvr,policy_loss,value_loss,optimal,opt_policy,kept,kept_policy,rmse," \
  "train_steps_per_s,cpu_seconds"

/* One log row.  Without an oracle (a board none covers) the oracle's
** columns are NaN, which the log writes as empty fields. */
static dab_status snapshot(dab_train_ctx *t, az_run *R, const dab_oracle *oracle,
                           const az_testpos *tp, int ntp, dab_err *err) {
  dab_az_model m = {R->net, play_opts(&R->o), ""};
  az_measure_out mo;
  if (oracle) {
    az_measure(R->g, oracle, &m, R->o.sims, tp, ntp, &mo);
  } else {
    mo.all_opt_mcts = mo.all_opt_policy = mo.all_kept_mcts = mo.all_kept_policy = mo.rmse = NAN;
  }
  double v[15] = {(double)R->games, dab_train_elapsed(t), (double)R->iter, (double)R->step_k, R->mqr,
                  R->nvr, R->lp, R->lv, mo.all_opt_mcts, mo.all_opt_policy, mo.all_kept_mcts,
                  mo.all_kept_policy, mo.rmse, R->sps, run_cpu(R)};
  return dab_train_log(t, AZ_COLUMNS, v, 15, err);
}

/* ---- One iteration ------------------------------------------------------------ */

static dab_status iterate(dab_train_ctx *t, az_run *R, dab_err *err) {
  long G = R->o.games;
  az_game_out *outs = calloc((size_t)G, sizeof *outs);
  if (!outs) return dab_fail(err, DAB_ENOMEM, "az: out of memory");
  int nt = t->threads > 1 ? t->threads : 1;
  az_play play = {R->g, &R->o, R->net, R->seed, R->iter, R->step_k};
  dab_status st = az_play_games(&play, G, nt, t->cancel, outs, err);
  size_t add = 0;
  long npos = 0, nmq = 0, nnv = 0;
  for (long i = 0; i < G; i++) {
    add += (size_t)outs[i].n;
    npos += outs[i].npos;
    nmq += outs[i].nmq;
    nnv += outs[i].nnv;
  }
  az_sample *nb = NULL;
  size_t nn = 0;
  if (!st && dab_train_canceled(t)) st = dab_fail(err, DAB_ECANCELED, "stopped");
  if (!st && !(nb = malloc((R->nbuf + add + 1) * sizeof *nb))) st = dab_fail(err, DAB_ENOMEM, "az: out of memory");
  if (!st) {
    for (size_t i = 0; i < R->nbuf; i++)
      if (R->buf[i].iter > R->iter - R->o.replay) nb[nn++] = R->buf[i];
    for (long i = 0; i < G; i++)
      for (int j = 0; j < outs[i].n; j++) nb[nn++] = outs[i].s[j];
    char sp[128], wp[128], w2[128], ap[128], seed[32], ep[16], bs[16], lr[32], l2[32];
    char thr[16], ms[16], mb[16];
    snprintf(sp, sizeof sp, "%s/samples.bin", R->dir);
    snprintf(wp, sizeof wp, "%s/w.bin", R->dir);
    snprintf(w2, sizeof w2, "%s/w2.bin", R->dir);
    snprintf(ap, sizeof ap, "%s/adam.pt", R->dir);
    size_t written;
    st = az_write_samples(sp, R->g, R->net, R->sym, R->o.augment, nb, nn, R->iter, R->o.decay,
                          &written, err);
    FILE *f = st ? NULL : fopen(wp, "wb");
    if (!st && (!f || fwrite(R->net->weights, sizeof(float), R->net->nweights, f) != R->net->nweights))
      st = dab_fail(err, DAB_EIO, "az: cannot write %s", wp);
    if (f) fclose(f);
    snprintf(seed, sizeof seed, "%" PRIu64, R->seed + (uint64_t)R->iter);
    snprintf(ep, sizeof ep, "%ld", R->o.epochs);
    snprintf(bs, sizeof bs, "%ld", R->o.batch);
    snprintf(lr, sizeof lr, "%g", R->o.lr);
    snprintf(l2, sizeof l2, "%g", R->o.l2);
    snprintf(thr, sizeof thr, "%d", nt);
    snprintf(ms, sizeof ms, "%ld", R->o.max_steps);
    snprintf(mb, sizeof mb, "%ld", R->o.min_batches);
    const char *extra[] = {"train", "--weights", wp, "--samples", sp, "--epochs", ep, "--batch", bs,
                           "--lr", lr, "--l2", l2, "--seed", seed, "--threads", thr,
                           "--max-steps", ms, "--min-batches", mb, R->o.adam_reset ? NULL : "--opt-state", ap, NULL};
    char line[512];
    if (!st) st = az_python_net(&R->tr, R->g, &R->o, extra, w2, &R->net, line, sizeof line, err);
    if (!st) {
      const char *a = strstr(line, "policy_loss="), *b = strstr(line, "value_loss=");
      R->lp = a ? atof(a + 12) : NAN;
      R->lv = b ? atof(b + 11) : NAN;
      const char *c = strstr(line, "steps_per_s=");
      R->sps = c ? atof(c + 12) : NAN;
    }
    if (st == DAB_EIO && dab_train_canceled(t)) st = dab_fail(err, DAB_ECANCELED, "stopped");
  }
  for (long i = 0; i < G; i++) free(outs[i].s);
  free(outs);
  if (st) {
    free(nb);
    return st;
  }
  free(R->buf);
  R->buf = nb;
  R->nbuf = nn;
  R->iter++;
  R->games += G;
  R->mqr = npos ? (double)nmq / (double)npos : 0;
  R->nvr = npos ? (double)nnv / (double)npos : 0;
  if (R->o.backward && R->step_k < R->g->nlines) {
    R->step_iters++;
    /* No position with a choice at this step (e.g. one line left): nothing to learn. */
    if (npos == 0 || (R->mqr >= R->o.mqrth && R->nvr >= R->o.nvrth) || R->step_iters >= R->o.mit) {
      R->step_k++;
      R->step_iters = 0;
    }
  }
  return DAB_OK;
}

/* ---- dab train az ---------------------------------------------------------------- */

dab_status dab_agent_train_az(dab_train_ctx *t, dab_err *err) {
  az_run R;
  memset(&R, 0, sizeof R);
  R.g = t->g;
  R.seed = t->seed;
  az_opts_default(&R.o);
  dab_status st = az_opts_parse(t, &R.o, err);
  if (!st) st = dab_kopts_check(t->kopts, "az", err);
  if (st) return st;
  if (!dab_geom_fast(t->g)) return dab_fail(err, DAB_EBOARD, "az: boards of at most 64 lines");
  if ((st = az_find_trainer(R.o.trainer, sizeof R.o.trainer, err))) return st;
  if ((st = az_check_device_env(err))) return st;
  if (R.o.init[0] && t->resume)
    return dab_fail(err, DAB_EINPUT, "az: --init starts a run from a net, --resume continues one; give one");
  /* Snapshots grade against the oracle.  On a board none covers (5x5) a
  ** run trains ungraded unless --eval-per-step asked for grading. */
  const dab_oracle *oracle = NULL;
  if (R.o.eval_per_step > 0 && (st = dab_player_env_oracle(t->env, t->g->rows, t->g->cols, &oracle, err))) {
    if (st != DAB_EBOARD) return st;
    if (R.o.eval_given) return dab_fail(err, st, "az: %s; --eval-per-step=0 trains without grading", err->msg);
    st = DAB_OK;
    R.o.eval_per_step = 0;
  }
  if (!(R.sym = dab_sym_new(t->g, err))) return DAB_ENOMEM;
  snprintf(R.dir, sizeof R.dir, "%s/dab-az-XXXXXX", "/tmp");
  if (!mkdtemp(R.dir)) {
    dab_sym_free(R.sym);
    return dab_fail(err, DAB_EIO, "az: cannot make a work folder in /tmp");
  }
  double before = 0;
  char line[512], lg[128], wp[128];
  snprintf(lg, sizeof lg, "%s/train.log", R.dir);
  snprintf(wp, sizeof wp, "%s/w.bin", R.dir);
  st = az_trainer_start(&R.tr, R.o.trainer, lg, err);
  if (!st && t->resume) {
    st = resume(&R, t->resume, &before, err);
    if (!st) st = resume_opts(&R, t, err);
  } else if (!st && R.o.init[0]) {
    st = warm_start(&R, err);
  } else if (!st) {
    R.step_k = R.o.backward ? 1 : t->g->nlines;
    char seed[32];
    snprintf(seed, sizeof seed, "%" PRIu64, R.seed);
    const char *extra[] = {"init", "--seed", seed, NULL};
    st = az_python_net(&R.tr, t->g, &R.o, extra, wp, &R.net, line, sizeof line, err);
  }
  az_testpos *tp = NULL;
  int ntp = 0;
  if (!st && oracle) {
    int cap = (int)R.o.eval_per_step * t->g->nlines;
    if (!(tp = malloc((size_t)cap * sizeof *tp))) st = dab_fail(err, DAB_ENOMEM, "az: out of memory");
    else ntp = az_random_positions(t->g, (int)R.o.eval_per_step, 12345, tp, cap);
  }
  dab_train_start(t, before);
  R.cpu0 = dab_process_cpu_s();
  long every = t->snapshot_every > 0 ? t->snapshot_every : 2;
  char what[32];
  snprintf(what, sizeof what, "az %dx%d", t->g->rows, t->g->cols);
  if (!st && !t->resume) st = snapshot(t, &R, oracle, tp, ntp, err);
  while (!st) {
    if (R.o.hours > 0 && run_cpu(&R) >= R.o.hours * 3600) break;
    if (t->generations > 0 && R.iter >= t->generations) break;
    if (t->games > 0 && R.games >= t->games) break;
    if (t->stop_at > 0 && R.games >= t->stop_at) {
      st = DAB_ECANCELED;
      break;
    }
    if (!(R.o.hours > 0) && t->generations <= 0 && t->games <= 0 && R.iter >= 10) break;
    st = iterate(t, &R, err);
    dab_train_progress(t, what, (uint64_t)R.iter, (uint64_t)(t->generations > 0 ? t->generations : 0));
    if (!st && R.iter % every == 0) st = snapshot(t, &R, oracle, tp, ntp, err);
  }
  if (st == DAB_ECANCELED) {
    dab_status s2 = save(&R, t->checkpoint, true, dab_train_elapsed(t), err);
    st = s2 ? s2 : dab_fail(err, DAB_ECANCELED, "stopped after %ld iterations (%ld games); checkpoint %s",
                            R.iter, R.games, t->checkpoint);
  } else if (!st) {
    if (R.iter % every != 0) st = snapshot(t, &R, oracle, tp, ntp, err);
    if (!st) st = save(&R, t->out, false, dab_train_elapsed(t), err);
  }
  az_trainer_stop(&R.tr);
  char p[160];
  const char *files[] = {"samples.bin", "w.bin", "w2.bin", "train.log", "adam.pt", "adam.pt.tmp"};
  for (int i = 0; i < 6; i++) {
    snprintf(p, sizeof p, "%s/%s", R.dir, files[i]);
    unlink(p);
  }
  rmdir(R.dir);
  free(tp);
  free(R.buf);
  dab_az_net_free(R.net);
  dab_sym_free(R.sym);
  return st;
}
