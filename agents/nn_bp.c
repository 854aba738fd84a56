/*
** nn_bp.c: `dab train nn` by gradient: the paper's backprop benchmark and oracle.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "agents/nn_int.h"

/* One training position: the lines drawn, the legal moves, and per line
** t: the boxes the move completes (the paper's sets) or its value minus
** the best move's, clamped to -127 (oracle sets; 0 = optimal). */
typedef struct bp_pos {
  uint64_t p, legal;
  int8_t t[64];
} bp_pos;

typedef struct bp_set {
  bp_pos *pos;
  long n, cap;
} bp_set;

/* How targets come from t and how the error is measured. */
enum { BP_MSE, BP_XENT, BP_SOFTMAX };

static bool set_push(bp_set *s, const bp_pos *x) {
  if (s->n == s->cap) {
    long cap = s->cap ? 2 * s->cap : 4096;
    bp_pos *np = realloc(s->pos, sizeof *np * (size_t)cap);
    if (!np) return false;
    s->pos = np;
    s->cap = cap;
  }
  s->pos[s->n++] = *x;
  return true;
}

/* Initial weights: a random genotype (the paper's random networks) or
** uniform on [-0.5, 0.5]. */
static void init_net(dab_nn *nn, int init, dab_rng *rng) {
  int nw = dab_nn_nweights(nn);
  for (int k = 0; k < nw; k++) {
    double v = init ? dab_rng_unit(rng) - 0.5 : dab_nn_gene_value((int)(dab_rng_next(rng) >> 54));
    *dab_nn_weight(nn, k) = (float)v;
  }
}

/* The output deltas dE/dz of position x for outputs z (sigmoids y for
** BP_MSE and BP_XENT; z itself for BP_SOFTMAX).  Illegal lines: 0.
**   BP_MSE:     target = t (boxes completed), squared error through the sigmoid;
**   BP_XENT:    target = 2^t, cross-entropy on each sigmoid output;
**   BP_SOFTMAX: softmax over the legal lines, target 1/k on each of the k
**               optimal lines, cross-entropy. */
static void bp_deltas(const bp_pos *x, const float *out, float *dout, int mode) {
  memset(dout, 0, sizeof(float) * 64);
  if (mode == BP_SOFTMAX) {
    float zmax = -INFINITY, sum = 0;
    int nopt = 0;
    for (uint64_t q = x->legal; q; q &= q - 1) {
      int m = __builtin_ctzll(q);
      if (out[m] > zmax) zmax = out[m];
      nopt += x->t[m] == 0;
    }
    for (uint64_t q = x->legal; q; q &= q - 1) {
      int m = __builtin_ctzll(q);
      dout[m] = expf(out[m] - zmax);
      sum += dout[m];
    }
    float inv = 1.0f / sum, share = nopt ? 1.0f / (float)nopt : 0;
    for (uint64_t q = x->legal; q; q &= q - 1) {
      int m = __builtin_ctzll(q);
      dout[m] = dout[m] * inv - (x->t[m] == 0 ? share : 0);
    }
    return;
  }
  for (uint64_t q = x->legal; q; q &= q - 1) {
    int m = __builtin_ctzll(q);
    float y = out[m];
    if (mode == BP_MSE) dout[m] = (y - (float)x->t[m]) * y * (1 - y);
    else dout[m] = y - (float)ldexp(1.0, x->t[m]);
  }
}

/* One stochastic gradient step on position x (mode as bp_deltas). */
static void bp_step(dab_nn *nn, const bp_pos *x, float rate, int mode) {
  float hid[2 * DAB_NN_MAX_HIDDEN + 16], dh[DAB_NN_MAX_HIDDEN + 8], dh2[DAB_NN_MAX_HIDDEN + 8];
  float out[72], dout[72];
  int nh = nn->nhid, op = nn->opad, n2 = nn->nhid2, p2 = nn->h2pad;
  if (op > 64) return;
  dab_nn_forward64(nn, x->p, hid, out);
  bp_deltas(x, out, dout, mode);
  /* The last hidden layer's deltas, then the output weights. */
  const float *last = n2 ? hid + nn->hpad : hid;
  int nlast = n2 ? n2 : nh;
  float *dlast = n2 ? dh2 : dh;
  for (int j = 0; j < nlast; j++) {
    const float *w = nn->w_ho + (size_t)j * (size_t)op;
    float s = 0;
    for (int m = 0; m < op; m++) s += w[m] * dout[m];
    dlast[j] = s * last[j] * (1 - last[j]);
  }
  for (int j = 0; j < nlast; j++) {
    float *w = nn->w_ho + (size_t)j * (size_t)op, a = rate * last[j];
    for (int m = 0; m < op; m++) w[m] -= a * dout[m];
  }
  for (int m = 0; m < op; m++) nn->th_o[m] += rate * dout[m];
  if (n2) {
    for (int j = 0; j < nh; j++) {
      const float *w = nn->w_hh + (size_t)j * (size_t)p2;
      float s = 0;
      for (int k = 0; k < p2; k++) s += w[k] * dh2[k];
      dh[j] = s * hid[j] * (1 - hid[j]);
    }
    for (int k = nlast; k < p2; k++) dh2[k] = 0;
    for (int j = 0; j < nh; j++) {
      float *w = nn->w_hh + (size_t)j * (size_t)p2, a = rate * hid[j];
      for (int k = 0; k < p2; k++) w[k] -= a * dh2[k];
    }
    for (int k = 0; k < n2; k++) nn->th_h2[k] += rate * dh2[k];
  }
  for (uint64_t q = x->p; q; q &= q - 1) {
    float *w = nn->w_ih + (size_t)__builtin_ctzll(q) * (size_t)nn->hpad;
    for (int j = 0; j < nh; j++) w[j] -= rate * dh[j];
  }
  for (int j = 0; j < nh; j++) nn->th_h[j] += rate * dh[j];
}

/* One epoch of set s on nn in an order drawn from rng. */
static void bp_epoch(dab_nn *nn, const bp_set *s, long *order, float rate, int mode, dab_rng *rng) {
  for (long i = 0; i < s->n; i++) order[i] = i;
  for (long i = s->n - 1; i > 0; i--) {
    long j = (long)(dab_rng_unit(rng) * (double)(i + 1)), tmp = order[i];
    order[i] = order[j];
    order[j] = tmp;
  }
  for (long i = 0; i < s->n; i++) bp_step(nn, &s->pos[order[i]], rate, mode);
}

/* ---- The paper's training sets ------------------------------------------ */

/* Positions where level1 moves in level1-vs-random games, filtered to
** those with a capture; targets = boxes each move completes. */
static bool paper_set(const dab_geom *g, long games, uint64_t seed, bp_set *s) {
  for (long k = 0; k < games; k++) {
    dab_rng rng;
    dab_rng_seed2(&rng, seed, (uint64_t)k);
    uint64_t p = 0;
    int turn = (int)(k & 1); /* 0: level1 to move */
    while (p != g->all_lines) {
      uint64_t legal = g->all_lines & ~p;
      if (turn == 0) {
        bp_pos x = {p, legal, {0}};
        bool any = false;
        for (uint64_t q = legal; q; q &= q - 1) {
          int m = __builtin_ctzll(q);
          x.t[m] = (int8_t)dab64_completes(g, p, m);
          any |= x.t[m] > 0;
        }
        if (any && !set_push(s, &x)) return false;
      }
      int m = dab_nn_heuristic_move(g, p, legal, turn == 0 ? 1 : 0, &rng);
      int got = dab64_completes(g, p, m);
      p |= 1ull << m;
      if (!got) turn ^= 1;
    }
  }
  return true;
}

typedef struct bp_job {
  dab_nn *nets;
  bp_set *sets;
  long *orders;
  long maxn, sets_n;
  float rate;
  int mode;
  uint64_t seed, epoch;
} bp_job;

static void bp_run_epoch(void *arg, int i) {
  bp_job *j = arg;
  dab_rng rng;
  dab_rng_seed2(&rng, j->seed + (uint64_t)i * 0x10001ull, j->epoch);
  bp_epoch(&j->nets[i], &j->sets[i % j->sets_n], j->orders + (size_t)i * (size_t)j->maxn, j->rate,
           j->mode, &rng);
}

/* Epochs between snapshots in a run of `epochs`. */
static long bp_snap(const dab_train_ctx *t, long epochs) {
  return t->snapshot_every ? t->snapshot_every : (epochs >= 20 ? epochs / 20 : 1);
}

/* Saves or loads the n nets and the epoch of a run of `epochs` (a
** checkpoint of kind nn-bp-ckpt). */
static dab_status bp_ckpt(const nn_run *r, dab_nn *nets, int n, long epochs, uint64_t *epoch,
                          double *seconds, bool save, dab_err *err) {
  int nw = dab_nn_nweights(&nets[0]);
  char params[1400];
  nn_ckpt_params(r, epochs, bp_snap(r->t, epochs), params, sizeof params);
  size_t len = 16 + sizeof(float) * (size_t)nw * (size_t)n;
  dab_model_header *h = calloc(1, sizeof *h);
  unsigned char *buf = save ? malloc(len) : NULL;
  if (!h || (save && !buf)) {
    free(h);
    free(buf);
    return dab_fail(err, DAB_ENOMEM, "out of memory for a checkpoint");
  }
  dab_status st = DAB_OK;
  if (save) {
    memcpy(buf, epoch, 8);
    memcpy(buf + 8, seconds, 8);
    for (int i = 0; i < n; i++)
      for (int k = 0; k < nw; k++)
        memcpy(buf + 16 + sizeof(float) * ((size_t)i * (size_t)nw + (size_t)k), dab_nn_weight(&nets[i], k), 4);
    h->rows = r->g->rows;
    h->cols = r->g->cols;
    snprintf(h->kind, sizeof h->kind, "nn-bp-ckpt");
    snprintf(h->params, sizeof h->params, "%s", params);
    st = dab_model_write(r->t->checkpoint, h, buf, len, err);
  } else {
    void *payload = NULL;
    size_t got = 0;
    st = dab_model_read(r->t->resume, "nn-bp-ckpt", h, &payload, &got, err);
    if (!st) st = dab_model_check_board(r->t->resume, h, r->g, err);
    if (!st && strcmp(h->params, params) != 0)
      st = dab_fail(err, DAB_EINPUT, "%s was written with other options (%s)", r->t->resume, h->params);
    if (!st && got != len) st = dab_fail(err, DAB_ECORRUPT, "%s: not a checkpoint of these nets", r->t->resume);
    if (!st) {
      buf = payload;
      memcpy(epoch, buf, 8);
      memcpy(seconds, buf + 8, 8);
      for (int i = 0; i < n; i++)
        for (int k = 0; k < nw; k++)
          memcpy(dab_nn_weight(&nets[i], k), buf + 16 + sizeof(float) * ((size_t)i * (size_t)nw + (size_t)k), 4);
      buf = NULL;
    }
    free(payload);
  }
  free(buf);
  free(h);
  return st;
}

/* The epochs loop shared by both methods: n nets, net i trains on
** sets[i % nsets]; snapshots as the GA's; a stop checkpoints the first
** ck_n >= n nets.  *best gets the last snapshot's best. */
static dab_status bp_loop(nn_run *r, dab_nn *nets, int n, int ck_n, bp_set *sets, int nsets, int mode,
                          long end, long epochs, uint64_t *epoch, double *seconds, int *best,
                          dab_err *err) {
  dab_train_ctx *t = r->t;
  long maxn = 1;
  for (int s = 0; s < nsets; s++)
    if (sets[s].n > maxn) maxn = sets[s].n;
  long *orders = malloc(sizeof(long) * (size_t)maxn * (size_t)n);
  if (!orders) return dab_fail(err, DAB_ENOMEM, "out of memory for training orders");
  long snap = bp_snap(t, epochs);
  uint64_t first = *epoch;
  dab_status st = DAB_OK;
  for (;;) {
    if (*epoch > first && (dab_train_canceled(t) || (t->stop_at && (long)*epoch >= t->stop_at))) {
      *seconds = dab_train_elapsed(t);
      st = bp_ckpt(r, nets, ck_n, epochs, epoch, seconds, true, err);
      if (!st) st = dab_fail(err, DAB_ECANCELED, "stopped after epoch %llu", (unsigned long long)*epoch);
      break;
    }
    if ((long)*epoch % snap == 0 || (long)*epoch == epochs) {
      st = nn_snapshot(r, nets, n, (double)*epoch, (double)*epoch, best, err);
      if (st) break;
    }
    if ((long)*epoch >= end) break;
    /* The rate falls linearly to a tenth over the run (oracle); constant (paper). */
    bool paper = mode == BP_MSE;
    float rate = (float)(paper ? r->o.rate : r->o.rate * (1.0 - 0.9 * (double)*epoch / (double)epochs));
    bp_job j = {nets, sets, orders, maxn, nsets, rate, mode, t->seed, *epoch};
    dab_nn_parallel(t->threads, n, bp_run_epoch, &j);
    (*epoch)++;
    dab_train_progress(t, "nn epochs", *epoch, (uint64_t)epochs);
  }
  free(orders);
  return st;
}

dab_status nn_train_bp(nn_run *r, dab_err *err) {
  dab_train_ctx *t = r->t;
  int n = (int)r->o.runs, nsets = (int)r->o.sets;
  dab_nn *nets = nn_nets_new(r, n);
  bp_set *sets = calloc((size_t)nsets, sizeof *sets);
  dab_status st = DAB_OK;
  if (!nets || !sets) {
    st = dab_fail(err, DAB_ENOMEM, "out of memory for %d nets", n);
    goto done;
  }
  double total = 0;
  for (int s = 0; s < nsets; s++) {
    if (!paper_set(r->g, r->o.set_games, t->seed * 1000003ull + (uint64_t)s, &sets[s])) {
      st = dab_fail(err, DAB_ENOMEM, "out of memory for training sets");
      goto done;
    }
    total += (double)sets[s].n;
  }
  dab_rng rng;
  dab_rng_seed(&rng, t->seed);
  for (int i = 0; i < n; i++) init_net(&nets[i], r->o.init, &rng);
  uint64_t epoch = 0;
  double seconds = 0;
  long epochs = t->generations ? t->generations : 200;
  if (t->resume && (st = bp_ckpt(r, nets, n, epochs, &epoch, &seconds, false, err))) goto done;
  dab_train_start(t, seconds);
  int best = 0;
  st = bp_loop(r, nets, n, n, sets, nsets, BP_MSE, epochs, epochs, &epoch, &seconds, &best, err);
  if (!st) {
    char params[1200];
    snprintf(params, sizeof params, "%s,epochs=%ld,positions_per_set=%.0f", r->params, epochs, total / nsets);
    st = dab_nn_save(t->out, &nets[best], r->g, params, err);
  }
done:
  if (sets)
    for (int s = 0; s < nsets; s++) free(sets[s].pos);
  free(sets);
  nn_nets_free(nets, n);
  return st;
}

/* ---- Oracle targets --------------------------------------------------------- */

/* Fills x's targets from the oracle: each legal move's value minus the
** best's (0 for the optimal ones).  RETURN: false when the oracle fails. */
static bool oracle_targets(const dab_oracle *o, bp_pos *x) {
  int16_t mv[64], val[64];
  int n = 0;
  if (dab_oracle_move_values(o, x->p, mv, val, &n, NULL) != DAB_OK || n == 0) return false;
  int best = val[0];
  for (int j = 1; j < n; j++)
    if (val[j] > best) best = val[j];
  for (int j = 0; j < n; j++) x->t[mv[j]] = (int8_t)(val[j] - best < -127 ? -127 : val[j] - best);
  return true;
}

/*
** Games that sample positions: each side plays level1, level2, the
** oracle's best move, or (net non-NULL, one side) the net, with one move
** in 8 replaced by a random line.  Every position with two or more legal
** moves is kept.
*/
static bool sample_positions(const nn_run *r, const dab_nn *net, long want, uint64_t seed, bp_set *s) {
  const dab_geom *g = r->g;
  long goal = s->n + want;
  for (uint64_t k = 0; s->n < goal; k++) {
    dab_rng rng;
    dab_rng_seed2(&rng, seed, k);
    int kind[2] = {1 + dab_rng_below(&rng, 3), 1 + dab_rng_below(&rng, 3)};
    if (net) kind[k & 1] = 0;
    uint64_t p = 0;
    int turn = 0;
    while (p != g->all_lines && s->n < goal) {
      uint64_t legal = g->all_lines & ~p;
      bp_pos x = {p, legal, {0}};
      if (__builtin_popcountll(legal) >= 2) {
        if (!oracle_targets(r->oracle, &x)) return false;
        if (!set_push(s, &x)) return false;
      }
      int m;
      if (dab_rng_below(&rng, 8) == 0) m = dab_nn_heuristic_move(g, p, legal, 0, &rng);
      else if (kind[turn] == 0) m = dab_nn_move64(net, p, legal, &rng);
      else if (kind[turn] < 3) m = dab_nn_heuristic_move(g, p, legal, kind[turn], &rng);
      else {
        if (__builtin_popcountll(legal) < 2 && !oracle_targets(r->oracle, &x)) return false;
        uint64_t opt = 0;
        for (uint64_t q = legal; q; q &= q - 1)
          if (x.t[__builtin_ctzll(q)] == 0) opt |= q & -q;
        if (!opt) opt = legal;
        int c = dab_rng_below(&rng, __builtin_popcountll(opt));
        m = __builtin_ctzll(dab_pdep64(1ull << c, opt));
      }
      int got = dab64_completes(g, p, m);
      p |= 1ull << m;
      if (!got) turn ^= 1;
    }
  }
  return true;
}

/*
** The oracle method.  nets[0] trains; nets[k] (k = 1 .. rounds-1) keeps the
** net as it was at the start of round k, whose games sampled that round's
** positions, so a resumed run rebuilds exactly the same set (checkpoints
** hold all of them).
*/
dab_status nn_train_oracle(nn_run *r, dab_err *err) {
  dab_train_ctx *t = r->t;
  long epochs = t->generations ? t->generations : 60;
  long rounds = r->o.rounds < epochs ? r->o.rounds : epochs;
  dab_nn *nets = nn_nets_new(r, (int)rounds);
  dab_nn *net = nets;
  bp_set set = {0};
  dab_status st = DAB_OK;
  if (!nets) return dab_fail(err, DAB_ENOMEM, "out of memory for a network");
  dab_rng rng;
  dab_rng_seed(&rng, t->seed);
  init_net(net, r->o.init, &rng);
  uint64_t epoch = 0;
  double seconds = 0;
  if (t->resume && (st = bp_ckpt(r, nets, (int)rounds, epochs, &epoch, &seconds, false, err))) goto done;
  dab_train_start(t, seconds);
  long first_share = rounds > 1 ? r->o.positions / 2 : r->o.positions;
  long later = rounds > 1 ? (r->o.positions - first_share) / (rounds - 1) : 0;
  if (!sample_positions(r, NULL, first_share, t->seed, &set)) goto fail;
  int best = 0;
  int mode = r->o.loss == NN_LOSS_SOFTMAX ? BP_SOFTMAX : BP_XENT;
  for (long round = 0; round < rounds; round++) {
    long start = epochs * round / rounds, end = epochs * (round + 1) / rounds;
    if (round > 0) {
      /* Positions from the net's own games, as it was at this round's
      ** start (from the checkpoint when the run resumed past it). */
      if ((long)epoch <= start) dab_nn_copy(&nets[round], net);
      if (!sample_positions(r, &nets[round], later, t->seed + (uint64_t)round, &set)) goto fail;
    }
    if ((long)epoch >= end) continue;
    st = bp_loop(r, net, 1, (int)rounds, &set, 1, mode, end, epochs, &epoch, &seconds, &best, err);
    if (st) goto done;
  }
  {
    char params[1200];
    snprintf(params, sizeof params, "%s,epochs=%ld,positions=%ld", r->params, epochs, set.n);
    st = dab_nn_save(t->out, net, r->g, params, err);
  }
  goto done;
fail:
  st = dab_fail(err, DAB_ENOMEM, "out of memory (or an oracle failure) sampling positions");
done:
  free(set.pos);
  nn_nets_free(nets, (int)rounds);
  return st;
}
