/*
** nn_eval.c: fast games of networks and heuristics on 64-bit positions.
** See Copyright Notice in README.md
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "agents/nn.h"

/* A uniformly drawn line of a nonempty mask: the k-th lowest, as a
** player's pick over its list in increasing order. */
static inline int pick(uint64_t mask, dab_rng *rng) {
  int k = dab_rng_below(rng, __builtin_popcountll(mask));
  return __builtin_ctzll(dab_pdep64(1ull << k, mask));
}

int dab_nn_heuristic_move(const dab_geom *g, uint64_t p, uint64_t legal, int level, dab_rng *rng) {
  if (level >= 1) {
    uint64_t three = dab64_three_sided(g, p);
    if (three) {
      uint64_t cap = dab64_lines_of_boxes(g, three) & legal;
      if (cap) return pick(cap, rng);
    }
    if (level >= 2) {
      uint64_t two = dab64_two_sided_v(dab64_side_vectors(g, p));
      uint64_t safe = legal & ~dab64_lines_of_boxes(g, two);
      if (safe) return pick(safe, rng);
    }
  }
  return pick(legal, rng);
}

int dab_nn_play(const dab_geom *g, dab_nn_side first, dab_nn_side second, dab_rng *rng) {
  const dab_nn_side *side[2] = {&first, &second};
  uint64_t p = 0, all = g->all_lines;
  int diff = 0, turn = 0;
  while (p != all) {
    uint64_t legal = all & ~p;
    const dab_nn_side *s = side[turn];
    int m = s->net ? dab_nn_move64(s->net, p, legal, rng)
                   : dab_nn_heuristic_move(g, p, legal, s->level, rng);
    int k = dab64_completes(g, p, m);
    p |= 1ull << m;
    if (k) diff += turn ? -k : k;
    else turn ^= 1;
  }
  return diff;
}

int dab_nn_match(const dab_geom *g, dab_nn_side a, dab_nn_side b, uint64_t seed) {
  int w = 0, t = 0;
  for (int k = 0; k < 2; k++) {
    dab_rng rng;
    dab_rng_seed2(&rng, seed, (uint64_t)k);
    int d = k == 0 ? dab_nn_play(g, a, b, &rng) : -dab_nn_play(g, b, a, &rng);
    w += d > 0;
    t += d == 0;
  }
  return 3 * w + t;
}

/* ---- A parallel for ----------------------------------------------------- */

typedef struct pf_job {
  void (*fn)(void *ctx, int i);
  void *ctx;
  int n;
  atomic_int next;
} pf_job;

static void *pf_worker(void *arg) {
  pf_job *j = arg;
  for (int i; (i = atomic_fetch_add(&j->next, 1)) < j->n;) j->fn(j->ctx, i);
  return NULL;
}

void dab_nn_parallel(int threads, int n, void (*fn)(void *ctx, int i), void *ctx) {
  pf_job j = {fn, ctx, n, 0};
  if (threads > n) threads = n;
  if (threads > 64) threads = 64;
  pthread_t tid[64];
  int started = 0;
  for (int t = 1; t < threads; t++)
    if (pthread_create(&tid[started], NULL, pf_worker, &j) == 0) started++;
  pf_worker(&j);
  for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
}

/* ---- Every net against a heuristic -------------------------------------- */

typedef struct ev_ctx {
  const dab_geom *g;
  const dab_nn *nets;
  int level, games;
  uint64_t seed;
  double *win, *tie;
} ev_ctx;

static void ev_one(void *arg, int i) {
  ev_ctx *c = arg;
  dab_nn_side net = {&c->nets[i], 0}, opp = {NULL, c->level};
  int w = 0, t = 0;
  for (int k = 0; k < c->games; k++) {
    dab_rng rng;
    dab_rng_seed2(&rng, c->seed, (uint64_t)k);  /* the same games for every net */
    int d = (k & 1) ? -dab_nn_play(c->g, opp, net, &rng) : dab_nn_play(c->g, net, opp, &rng);
    w += d > 0;
    t += d == 0;
  }
  c->win[i] = c->games ? (double)w / c->games : 0;
  if (c->tie) c->tie[i] = c->games ? (double)t / c->games : 0;
}

void dab_nn_eval(const dab_geom *g, const dab_nn *nets, int n, int level, int games, int threads,
                 uint64_t seed, double *win, double *tie) {
  ev_ctx c = {g, nets, level, games, seed, win, tie};
  dab_nn_parallel(threads, n, ev_one, &c);
}
