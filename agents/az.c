/*
** az.c: az model files and the az:FILE player.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "agents/agent.h"
#include "agents/az.h"

static bool param_long(const char *params, const char *key, long *out) {
  char buf[64], *end;
  if (!dab_params_get(params, key, buf, sizeof buf)) return false;
  errno = 0;
  long x = strtol(buf, &end, 10);
  if (!buf[0] || *end || errno) return false;
  *out = x;
  return true;
}

static bool param_double(const char *params, const char *key, double *out) {
  char buf[64], *end;
  if (!dab_params_get(params, key, buf, sizeof buf)) return false;
  errno = 0;
  double x = strtod(buf, &end);
  if (!buf[0] || *end || errno) return false;
  *out = x;
  return true;
}

dab_status dab_az_model_save(const char *path, const dab_az_net *net, const dab_az_search_opts *so,
                             const char *extra_params, const void *extra, size_t extra_n,
                             dab_err *err) {
  dab_model_header h;
  memset(&h, 0, sizeof h);
  h.rows = net->rows;
  h.cols = net->cols;
  snprintf(h.kind, sizeof h.kind, "az");
  char vf[24] = "";   /* absent for AlphaZero's one value channel, as in older files */
  if (net->vfilters != 1) snprintf(vf, sizeof vf, "vfilters=%d,", net->vfilters);
  int k = snprintf(h.params, sizeof h.params,
                   "blocks=%d,filters=%d,vhidden=%d,%sweights=%zu,sims=%ld,c=%g,chainloop=%d,"
                   "theorems=%d,value=%s%s%s",
                   net->blocks, net->filters, net->vhidden, vf, net->nweights, so->sims, so->c_puct,
                   so->chainloop, so->theorems, so->margin ? "margin" : "wdl",
                   extra_params && *extra_params ? "," : "", extra_params ? extra_params : "");
  if (k < 0 || (size_t)k >= sizeof h.params || k > DAB_MODEL_PARAMS)
    return dab_fail(err, DAB_EINPUT, "%s: az params too long", path);
  size_t wn = net->nweights * sizeof(float);
  unsigned char *buf = malloc(wn + extra_n + 1);
  if (!buf) return dab_fail(err, DAB_ENOMEM, "%s: out of memory", path);
  /* Little-endian floats: the hosts dab builds on are little-endian. */
  memcpy(buf, net->weights, wn);
  if (extra_n) memcpy(buf + wn, extra, extra_n);
  dab_status st = dab_model_write(path, &h, buf, wn + extra_n, err);
  free(buf);
  return st;
}

/* Reads an az file; extra and extra_n (may be NULL) get what follows the
** weights (a checkpoint's state), malloc'd. */
static dab_status load_full(const char *path, const dab_geom *g, dab_az_model **out,
                            unsigned char **extra, size_t *extra_n, dab_err *err) {
  *out = NULL;
  if (extra) *extra = NULL;
  dab_model_header h;
  void *pl;
  size_t n;
  dab_status st = dab_model_read(path, "az", &h, &pl, &n, err);
  if (st) return st;
  if (g && (st = dab_model_check_board(path, &h, g, err))) {
    free(pl);
    return st;
  }
  long blocks, filters, vhidden, vfilters = 1, nw, sims, chainloop, theorems;
  double c;
  char value[16];
  bool ok = param_long(h.params, "blocks", &blocks) && param_long(h.params, "filters", &filters) &&
            param_long(h.params, "vhidden", &vhidden) && param_long(h.params, "weights", &nw) &&
            param_long(h.params, "sims", &sims) && param_double(h.params, "c", &c) &&
            param_long(h.params, "chainloop", &chainloop) &&
            param_long(h.params, "theorems", &theorems) &&
            dab_params_get(h.params, "value", value, sizeof value);
  if (ok && !param_long(h.params, "vfilters", &vfilters)) vfilters = 1;   /* absent: AlphaZero's one */
  /* A checkpoint's payload goes on after the weights (its training
  ** state); a player may use its net, so only a model must end there. */
  char ckpt_version[16];
  bool ckpt = dab_params_get(h.params, "checkpoint", ckpt_version, sizeof ckpt_version);
  if (!ok || nw < 0 || (size_t)nw * sizeof(float) > n ||
      (!extra && !ckpt && n != (size_t)nw * sizeof(float))) {
    free(pl);
    return dab_fail(err, DAB_ECORRUPT, "%s: az params and payload disagree", path);
  }
  dab_az_model *m = calloc(1, sizeof *m);
  if (!m) {
    free(pl);
    return dab_fail(err, DAB_ENOMEM, "%s: out of memory", path);
  }
  st = dab_az_net_new(h.rows, h.cols, (int)blocks, (int)filters, (int)vhidden, (int)vfilters, pl, (size_t)nw,
                      &m->net, err);
  if (st) {
    free(pl);
    free(m);
    return st == DAB_EINPUT ? dab_fail(err, DAB_ECORRUPT, "%s: %s", path, err->msg) : st;
  }
  m->search = (dab_az_search_opts){.sims = sims, .c_puct = c, .chainloop = chainloop != 0,
                                   .theorems = theorems != 0, .margin = !strcmp(value, "margin")};
  snprintf(m->params, sizeof m->params, "%s", h.params);
  if (extra) {
    size_t wn = (size_t)nw * sizeof(float);
    *extra_n = n - wn;
    *extra = malloc(*extra_n + 1);
    if (!*extra) {
      free(pl);
      dab_az_model_free(m);
      return dab_fail(err, DAB_ENOMEM, "%s: out of memory", path);
    }
    memcpy(*extra, (unsigned char *)pl + wn, *extra_n);
  }
  free(pl);
  *out = m;
  return DAB_OK;
}

dab_status dab_az_model_load(const char *path, const dab_geom *g, dab_az_model **out, dab_err *err) {
  return load_full(path, g, out, NULL, NULL, err);
}

dab_status dab_az_model_load_ckpt(const char *path, const dab_geom *g, dab_az_model **out,
                                  unsigned char **extra, size_t *extra_n, dab_err *err) {
  return load_full(path, g, out, extra, extra_n, err);
}

dab_status dab_az_ckpt_export(const char *ckpt, const char *out, dab_err *err) {
  struct stat a, b;
  if (stat(ckpt, &a) == 0 && stat(out, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
    return dab_fail(err, DAB_EINPUT, "%s: exporting a checkpoint over itself would lose its training state",
                    out);
  dab_az_model *m;
  dab_status st = load_full(ckpt, NULL, &m, NULL, NULL, err);
  if (st) return st;
  /* A checkpoint's params are its model's with its own appended
  ** (az_loop.c's save): cut them off, keep the weights alone. */
  char *own = strstr(m->params, ",checkpoint=");
  if (!own) {
    dab_az_model_free(m);
    return dab_fail(err, DAB_EINPUT, "%s: not a checkpoint (a finished model already plays as az:%s)", ckpt,
                    ckpt);
  }
  *own = 0;
  dab_model_header h;
  memset(&h, 0, sizeof h);
  h.rows = m->net->rows;
  h.cols = m->net->cols;
  snprintf(h.kind, sizeof h.kind, "az");
  snprintf(h.params, sizeof h.params, "%s", m->params);
  st = dab_model_write(out, &h, m->net->weights, m->net->nweights * sizeof(float), err);
  dab_az_model_free(m);
  return st;
}

void dab_az_model_free(dab_az_model *m) {
  if (!m) return;
  dab_az_net_free(m->net);
  free(m);
}

int dab_az_model_move(dab_az_model *m, const dab_geom *g, dab_az_search *s, dab_az_evaluator *ev,
                      const dab_game *game, dab_rng *rng) {
  dab_err err;
  int16_t legal[DAB_MAX_LINES];
  int nl = dab_legal_moves(g, &game->lines, legal);
  if (nl == 0) return -1;
  if (nl == 1) return legal[0];
  pl_mstate st;
  pl_mstate_from_game(g, game, &st);
  if (m->search.sims <= 0 || !s) {
    float prior[DAB_MAX_LINES], v;
    dab_az_net_eval(ev, g, &st, rng, prior, &v);
    int best = legal[0];
    for (int i = 1; i < nl; i++)
      if (prior[legal[i]] > prior[best]) best = legal[i];
    return best;
  }
  dab_az_result r;
  if (dab_az_search_run(s, &st, rng, &r, &err)) return legal[0];
  if (r.nchild == 1) return r.line[0];
  int best = 0;
  for (int i = 1; i < r.nchild; i++)
    if (r.visits[i] > r.visits[best]) best = i;
  return r.line[best] >= 0 ? r.line[best] : legal[0];
}

/* ---- The az:FILE player --------------------------------------------------- */

typedef struct az_player {
  dab_az_model *m;
  dab_az_search *s;
  dab_az_evaluator ev;
  dab_geom g;
} az_player;

static void az_player_free(void *ctx) {
  az_player *p = ctx;
  if (!p) return;
  dab_az_search_free(p->s);
  dab_az_scratch_free(p->ev.scratch);
  dab_az_model_free(p->m);
  free(p);
}

static int az_player_move(void *ctx, const dab_geom *g, const dab_game *game, dab_rng *rng) {
  (void)g;
  az_player *p = ctx;
  return dab_az_model_move(p->m, &p->g, p->s, &p->ev, game, rng);
}

dab_status dab_agent_player_az(void *ctx, const char *args, const dab_geom *g, dab_player_env *env,
                               dab_player **out, dab_err *err) {
  (void)ctx;
  (void)env;
  *out = NULL;
  char path[4096];
  const char *rest;
  dab_status st = dab_agent_args("az", args, path, sizeof path, &rest, err);
  if (st) return st;
  az_player *p = calloc(1, sizeof *p);
  if (!p) return dab_fail(err, DAB_ENOMEM, "az: out of memory");
  if ((st = dab_az_model_load(path, g, &p->m, err))) {
    free(p);
    return st;
  }
  p->g = *g;
  /* Options after the file: sims=N (0: the policy head alone), c=X. */
  char opts[256];
  snprintf(opts, sizeof opts, "%s", rest);
  for (char *tok = strtok(opts, ","); tok; tok = strtok(NULL, ",")) {
    char *eq = strchr(tok, '='), *end;
    if (!eq) goto bad;
    *eq = 0;
    errno = 0;
    double x = strtod(eq + 1, &end);
    if (!eq[1] || *end || errno) goto bad;
    if (!strcmp(tok, "sims") && x >= 0 && x <= 1e7 && x == (long)x) p->m->search.sims = (long)x;
    else if (!strcmp(tok, "c") && x >= 0 && x <= 100) p->m->search.c_puct = x;
    else goto bad;
  }
  p->ev.net = p->m->net;
  p->ev.scratch = dab_az_scratch_new(p->m->net, 1);
  p->m->search.noise_eps = 0;
  p->m->search.filter = 0;
  if (p->m->search.sims > 0)
    p->s = dab_az_search_new(&p->g, &p->m->search, dab_az_net_eval, &p->ev);
  if (!p->ev.scratch || (p->m->search.sims > 0 && !p->s)) {
    az_player_free(p);
    return dab_fail(err, DAB_ENOMEM, "az: out of memory");
  }
  char name[4200];
  snprintf(name, sizeof name, "az:%s,sims=%ld", path, p->m->search.sims);
  return dab_agent_player(name, g, az_player_move, p, az_player_free, out, err);
bad:
  az_player_free(p);
  return dab_fail(err, DAB_EINPUT, "player 'az': bad option '%s' (az:FILE[,sims=N,c=X])", rest);
}
