/*
** az_mcts.c: PUCT search guided by an evaluator (the network), with the
** mcts-bz macro moves, opening pruning and exact loony-endgame values.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "agents/az.h"

/*
** Nodes live in one array; a node's children are contiguous.  A node
** holds the move that led to it, the player who made it (mover), its
** prior, and the sum w of backed-up values from the mover's side.  The
** root's mover is the player to move there, so its w/visits is the
** root's value.  States are replayed from the root on each simulation.
*/
typedef struct az_node {
  int32_t child;
  int16_t nchild;
  int16_t move;
  uint8_t mover;
  uint8_t exact;        /* 1: value known exactly (v0 below) */
  float prior;
  uint32_t visits;
  float w;
  float v0;             /* exact value for player 0 */
} az_node;

#define AZ_MAX_SAMPLES 64

struct dab_az_search {
  const dab_geom *g;
  dab_az_search_opts o;
  dab_az_eval_fn fn;
  void *ctx;
  dab_sc_view *view;
  az_node *pool;
  int32_t npool, cap;
  dab_az_node_sample samples[AZ_MAX_SAMPLES];
  int nsamples;
  /* The run under way (dab_az_search_begin .. dab_az_search_result): */
  dab_rng *rng;
  pl_mstate root;
  int32_t ri;
  long sim, sims;
  bool pending;                 /* a leaf awaits dab_az_search_feed (leaf_ni = ri: the root) */
  float net_value;              /* the evaluator's value of the root */
  pl_mstate leaf;               /* the pending leaf's state, node and path */
  int32_t leaf_ni;
  int depth;
  int32_t path[DAB_MAX_LINES + 2];
};

dab_az_search *dab_az_search_new(const dab_geom *g, const dab_az_search_opts *o, dab_az_eval_fn fn,
                                 void *ctx) {
  dab_az_search *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->g = g;
  s->o = *o;
  if (s->o.max_nodes <= 0) s->o.max_nodes = 1 << 20;
  s->fn = fn;
  s->ctx = ctx;
  if (!(s->view = malloc(sizeof *s->view))) {
    free(s);
    return NULL;
  }
  return s;
}

void dab_az_search_free(dab_az_search *s) {
  if (!s) return;
  free(s->pool);
  free(s->view);
  free(s);
}

const dab_az_node_sample *dab_az_search_samples(const dab_az_search *s) { return s->samples; }

static int32_t alloc_nodes(dab_az_search *s, int n) {
  az_node *np = pl_pool_reserve(s->pool, &s->cap, s->npool + n, s->o.max_nodes, sizeof *np);
  if (!np) return -1;
  s->pool = np;
  int32_t at = s->npool;
  s->npool += n;
  return at;
}

/* Value for player 0 of a final (or exactly known) player-0 margin. */
static float final_v0(const dab_az_search *s, int diff) {
  if (s->o.margin) return (float)diff / (float)s->g->nboxes;
  return diff > 0 ? 1.0f : diff < 0 ? -1.0f : 0.0f;
}

/* The first line a child move draws from st. */
static int first_line(const dab_geom *g, const pl_mstate *st, int move) {
  if (move >= 0) return move;
  pl_mstate t = *st;
  t.first = -1;
  pl_mcts_apply(g, &t, move);
  return t.first;
}

/* Gamma(alpha) by Marsaglia and Tsang (boosted for alpha < 1). */
static double gamma_draw(dab_rng *rng, double alpha) {
  double boost = 1.0;
  if (alpha < 1.0) {
    double u = dab_rng_unit(rng);
    boost = pow(u > 0 ? u : 1e-300, 1.0 / alpha);
    alpha += 1.0;
  }
  double d = alpha - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      double u1 = dab_rng_unit(rng), u2 = dab_rng_unit(rng);
      x = sqrt(-2.0 * log(u1 > 0 ? u1 : 1e-300)) * cos(6.283185307179586 * u2);
      v = 1.0 + c * x;
    } while (v <= 0);
    v = v * v * v;
    double u = dab_rng_unit(rng);
    if (u < 1.0 - 0.0331 * x * x * x * x || log(u > 0 ? u : 1e-300) < 0.5 * x * x + d * (1.0 - v + log(v)))
      return d * v * boost;
  }
}

/*
** A leaf node ni (state st) whose value is known without the evaluator:
** an exact simple-loony-endgame value (theorems on).  RETURN: true, with
** *v0 its value for player 0; false when the evaluator must value it.
*/
static bool exact_leaf(dab_az_search *s, int32_t ni, const pl_mstate *st, float *v0) {
  int diff;
  if (!s->o.theorems || !pl_mcts_sle_exact(s->g, st, &diff)) return false;
  s->pool[ni].exact = 1;
  *v0 = s->pool[ni].v0 = final_v0(s, diff);
  return true;
}

/*
** Expands node ni (state st) with the evaluator's prior and value (for
** st's player to move): its children, shuffled from rng, with the prior
** renormalised over them.  RETURN: the leaf's value for player 0.  When
** the tree is full the node stays a leaf (it is evaluated again later).
*/
static float expand(dab_az_search *s, int32_t ni, const pl_mstate *st, const float *prior,
                    float value) {
  const dab_geom *g = s->g;
  int16_t moves[DAB_MAX_LINES];
  int n = pl_mcts_children(g, st, s->o.chainloop, s->view, moves);
  float v0 = st->turn == 0 ? value : -value;
  int32_t at = alloc_nodes(s, n);
  if (at < 0) return v0;
  for (int i = n - 1; i > 0; i--) {
    int j = dab_rng_below(s->rng, i + 1);
    int16_t x = moves[i];
    moves[i] = moves[j];
    moves[j] = x;
  }
  double sum = 0;
  for (int i = 0; i < n; i++) {
    az_node *c = &s->pool[at + i];
    int line = first_line(g, st, moves[i]);
    float p = line >= 0 ? prior[line] : 0.0f;
    *c = (az_node){-1, 0, moves[i], (uint8_t)st->turn, 0, p > 0 ? p : 0, 0, 0, 0};
    sum += c->prior;
  }
  for (int i = 0; i < n; i++) {
    az_node *c = &s->pool[at + i];
    c->prior = sum > 0 ? (float)(c->prior / sum) : 1.0f / (float)n;
  }
  s->pool[ni].child = at;
  s->pool[ni].nchild = (int16_t)n;
  return v0;
}

static int32_t select_child(const dab_az_search *s, const az_node *parent) {
  const az_node *ch = &s->pool[parent->child];
  double sq = sqrt((double)(parent->visits > 0 ? parent->visits : 1));
  int32_t best = 0;
  double best_u = -1e30;
  for (int i = 0; i < parent->nchild; i++) {
    double q = ch[i].visits ? (double)ch[i].w / (double)ch[i].visits : 0.0;
    double u = q + s->o.c_puct * (double)ch[i].prior * sq / (1.0 + (double)ch[i].visits);
    if (u > best_u) {
      best_u = u;
      best = i;
    }
  }
  return parent->child + best;
}

/* Visit shares of node ni's children, summed per first line, into
** pi[DAB_MAX_LINES] (zero past the board's lines: samples copy it whole). */
static void node_pi(const dab_az_search *s, const az_node *nd, const pl_mstate *st, float *pi) {
  memset(pi, 0, sizeof(float) * DAB_MAX_LINES);
  double tot = 0;
  for (int i = 0; i < nd->nchild; i++) tot += s->pool[nd->child + i].visits;
  if (tot <= 0) return;
  for (int i = 0; i < nd->nchild; i++) {
    const az_node *c = &s->pool[nd->child + i];
    int line = first_line(s->g, st, c->move);
    if (line >= 0) pi[line] += (float)(c->visits / tot);
  }
}

/* Collects non-root nodes with >= min visits and a real choice. */
static void collect(dab_az_search *s, int32_t ni, const pl_mstate *st, uint32_t min, int depth) {
  const az_node *nd = &s->pool[ni];
  if (depth > 0 && nd->nchild >= 2 && nd->visits >= min && s->nsamples < AZ_MAX_SAMPLES) {
    dab_az_node_sample *x = &s->samples[s->nsamples++];
    x->st = *st;
    node_pi(s, nd, st, x->pi);
    float q = nd->w / (float)nd->visits;
    x->q = nd->mover == st->turn ? q : -q;
  }
  for (int i = 0; i < nd->nchild; i++) {
    const az_node *c = &s->pool[nd->child + i];
    if (c->visits < min || c->nchild == 0) continue;
    pl_mstate t = *st;
    pl_mcts_apply(s->g, &t, c->move);
    collect(s, nd->child + i, &t, min, depth + 1);
  }
}

/* Adds a simulation's leaf value (for player 0) along its path. */
static void backup(dab_az_search *s, const int32_t *path, int depth, float leaf) {
  for (int i = 0; i < depth; i++) {
    az_node *nd = &s->pool[path[i]];
    nd->visits++;
    nd->w += nd->mover == 0 ? leaf : -leaf;
  }
}

/*
** Runs simulations until one reaches a leaf the evaluator must value (it
** is left pending: s->leaf, s->leaf_ni, s->path) or the budget is spent.
*/
static void advance(dab_az_search *s) {
  for (; s->sim < s->sims; s->sim++) {
    pl_mstate st = s->root;
    int depth = 0;
    int32_t ni = s->ri;
    s->path[depth++] = ni;
    float leaf;
    for (;;) {
      az_node *nd = &s->pool[ni];
      if (st.left == 0) {
        leaf = final_v0(s, st.diff);
        break;
      }
      if (nd->exact) {
        leaf = nd->v0;
        break;
      }
      if (nd->child < 0) {
        if (exact_leaf(s, ni, &st, &leaf)) break;
        s->leaf = st;
        s->leaf_ni = ni;
        s->depth = depth;
        s->pending = true;
        return;
      }
      ni = select_child(s, nd);
      pl_mcts_apply(s->g, &st, s->pool[ni].move);
      s->path[depth++] = ni;
    }
    backup(s, s->path, depth, leaf);
  }
}

dab_status dab_az_search_begin(dab_az_search *s, const pl_mstate *root, dab_rng *rng, dab_err *err) {
  s->pending = false;
  if (root->left == 0) return dab_fail(err, DAB_EINPUT, "az: search from a finished game");
  s->npool = 0;
  s->nsamples = 0;
  s->rng = rng;
  s->root = *root;
  s->ri = alloc_nodes(s, 1);
  if (s->ri < 0) return dab_fail(err, DAB_ENOMEM, "az: out of memory for the search tree");
  s->pool[s->ri] = (az_node){-1, 0, -1, (uint8_t)root->turn, 0, 1, 0, 0, 0};
  /* The root always gets children (no exact shortcut): the caller wants a move. */
  s->leaf = *root;
  s->leaf_ni = s->ri;
  s->pending = true;
  return DAB_OK;
}

const pl_mstate *dab_az_search_leaf(const dab_az_search *s) { return s->pending ? &s->leaf : NULL; }

dab_status dab_az_search_feed(dab_az_search *s, const float *prior, float value, dab_err *err) {
  s->pending = false;
  float v0 = expand(s, s->leaf_ni, &s->leaf, prior, value);
  if (s->leaf_ni != s->ri) {
    backup(s, s->path, s->depth, v0);
    s->sim++;
    advance(s);
    return DAB_OK;
  }
  az_node *rn = &s->pool[s->ri];
  if (rn->nchild == 0) return dab_fail(err, DAB_ENOMEM, "az: no room for the root's children");
  s->net_value = value;
  rn->visits = 1;
  rn->w = s->root.turn == 0 ? v0 : -v0;
  if (s->o.noise_eps > 0) {
    az_node *ch = &s->pool[rn->child];
    int n = rn->nchild;
    double eta[DAB_MAX_LINES], sum = 0;
    for (int i = 0; i < n; i++) sum += eta[i] = gamma_draw(s->rng, s->o.noise_alpha);
    for (int i = 0; i < n; i++)
      ch[i].prior = (float)((1 - s->o.noise_eps) * ch[i].prior + s->o.noise_eps * (sum > 0 ? eta[i] / sum : 1.0 / n));
  }
  s->sims = rn->nchild > 1 ? s->o.sims : 1;  /* one child: nothing to decide */
  s->sim = 1;
  advance(s);
  return DAB_OK;
}

void dab_az_search_result(dab_az_search *s, dab_az_result *r) {
  const dab_geom *g = s->g;
  const az_node *rn = &s->pool[s->ri];
  r->nchild = rn->nchild;
  for (int i = 0; i < rn->nchild; i++) {
    const az_node *c = &s->pool[rn->child + i];
    r->move[i] = c->move;
    r->line[i] = (int16_t)first_line(g, &s->root, c->move);
    r->visits[i] = c->visits;
  }
  node_pi(s, rn, &s->root, r->pi);
  r->q = rn->w / (double)rn->visits;
  r->net_value = s->net_value;
  if (s->o.filter > 0) {
    uint32_t min = (uint32_t)ceil(s->o.filter * (double)rn->visits);
    if (min < 2) min = 2;
    collect(s, s->ri, &s->root, min, 0);
  }
  r->nsamples = s->nsamples;
}

dab_status dab_az_search_run(dab_az_search *s, const pl_mstate *root, dab_rng *rng,
                             dab_az_result *r, dab_err *err) {
  dab_status st = dab_az_search_begin(s, root, rng, err);
  float prior[DAB_MAX_LINES], value;
  for (const pl_mstate *leaf; !st && (leaf = dab_az_search_leaf(s));) {
    s->fn(s->ctx, s->g, leaf, rng, prior, &value);
    st = dab_az_search_feed(s, prior, value, err);
  }
  if (!st) dab_az_search_result(s, r);
  return st;
}

/* ---- Evaluators ----------------------------------------------------------- */

void dab_az_net_eval(void *ctx, const dab_geom *g, const pl_mstate *st, dab_rng *rng, float *prior,
                     float *value) {
  (void)rng;
  dab_az_evaluator *ev = ctx;
  const dab_az_net *net = ev->net;
  float planes[DAB_AZ_PLANES * 17 * 17], logits[DAB_MAX_LINES];
  uint64_t p = dab_ls_word(&st->s);
  dab_az_encode(net, g, p, st->turn == 0 ? st->diff : -st->diff, planes);
  dab_az_forward(net, ev->scratch, 1, planes, logits, value);
  ev->evals++;
  dab_az_prior_of(g, p, logits, prior);
}

void dab_az_prior_of(const dab_geom *g, uint64_t drawn, const float *logits, float *prior) {
  float mx = -1e30f;
  for (int m = 0; m < g->nlines; m++)
    if (!(drawn >> m & 1) && logits[m] > mx) mx = logits[m];
  double sum = 0;
  for (int m = 0; m < g->nlines; m++) {
    prior[m] = (drawn >> m & 1) ? 0.0f : expf(logits[m] - mx);
    sum += prior[m];
  }
  for (int m = 0; m < g->nlines; m++) prior[m] = (float)(prior[m] / sum);
}

void dab_az_rollout_eval(void *ctx, const dab_geom *g, const pl_mstate *st, dab_rng *rng,
                         float *prior, float *value) {
  bool sle = ctx && *(const bool *)ctx;
  for (int m = 0; m < g->nlines; m++) prior[m] = 1.0f;
  int diff = pl_mcts_rollout(g, st, rng, sle);
  float v0 = diff > 0 ? 1.0f : diff < 0 ? -1.0f : 0.0f;
  *value = st->turn == 0 ? v0 : -v0;
}

int dab_az_pick(const dab_az_result *r, bool sample, dab_rng *rng) {
  int pick = 0;
  if (sample) {
    double tot = 0, acc = 0;
    for (int i = 0; i < r->nchild; i++) tot += r->visits[i];
    double u = dab_rng_unit(rng) * tot;
    for (pick = 0; pick < r->nchild - 1; pick++)
      if ((acc += r->visits[pick]) > u) break;
  } else {
    for (int i = 1; i < r->nchild; i++)
      if (r->visits[i] > r->visits[pick]) pick = i;
  }
  return pick;
}

int dab_az_prior_pick(const float *prior, const int16_t *mv, int n, int fallback, dab_rng *rng) {
  double u = dab_rng_unit(rng), acc = 0;
  for (int j = 0; j < n; j++)
    if ((acc += prior[mv[j]]) > u) return mv[j];
  return fallback;
}

/* Rows in increasing start step (L - k) by fifths of the board; columns:
** root noise weight, mqth. */
static const double az_table[5][2] = {{0.15, 0.5}, {0.2, 0.6}, {0.21, 0.7}, {0.22, 0.8}, {0.23, 0.85}};

void dab_az_table_row(int nlines, int k, double *noise, double *mqth) {
  int row = (nlines - k) * 5 / nlines;
  if (row > 4) row = 4;
  *noise = az_table[row][0];
  *mqth = az_table[row][1];
}
