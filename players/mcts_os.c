/*
** mcts_os.c: MCTS configured as OpenSpiel's MCTSBot with a random-rollout
** evaluator: win/loss returns, MCTS-Solver backups, most-visited move.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdlib.h>
#include "players/mcts_bz.h"
#include "players/pint.h"

/*
** The search follows open_spiel/python/algorithms/mcts.py (MCTSBot with
** RandomRolloutEvaluator, solve=True), step by step:
**
**  - returns are +1 / -1 / 0 (win, loss, draw by the final score, which
**    counts the boxes taken before the search began);
**  - a node holds the player who made the move into it (the root: the
**    player to move) and sums that player's returns;
**  - selection: a child whose outcome is proven scores that outcome, an
**    unvisited child +infinity, else mean + c * sqrt(ln N_parent / n);
**    ties go to the earlier child, and children are created in a random
**    order (the shuffle of the uniform prior);
**  - a node is expanded when it is reached with at least one visit, and
**    one of its children is then evaluated (the first simulation
**    evaluates the root itself);
**  - evaluation: one uniformly random rollout (rollout_count = 1);
**  - solver: a terminal state reached in the tree is proven; going up,
**    a node is proven when one child is a proven win for the mover or
**    every child is proven (it takes the best); the search stops early
**    once the root is proven;
**  - the move played is the child with the greatest (proven outcome, or
**    0 when unproven; visits; summed return), first in child order.
**
** Nodes are stored as in mcts.c (one growing array, children contiguous,
** states replayed from the root); a fresh tree is grown for every move.
*/

enum { OUT_NONE = -128 };

typedef struct onode {
  int32_t child;
  int16_t nchild;
  int16_t move;
  uint8_t player;   /* who made the move into this node */
  int8_t outcome;   /* proven return for player 0, or OUT_NONE */
  uint32_t visits;
  double reward;    /* sum of `player`'s returns */
} onode;

typedef struct ostate {
  dab_lineset s;
  int diff;         /* player 0's boxes minus player 1's */
  int turn;
  int left;         /* undrawn lines */
} ostate;

typedef struct mcts_os {
  long sims;
  double c;
  onode *pool;
  int32_t npool, cap, max_nodes;
  dab_cancel_flag *cancel;  /* the player's, copied at each move */
} mcts_os;

static inline int sign(int x) { return (x > 0) - (x < 0); }

static void os_play(const dab_geom *g, ostate *st, int m) {
  int k = dab_completes(g, &st->s, m);
  dab_ls_set(&st->s, m);
  st->left--;
  if (k) st->diff += st->turn ? -k : k;
  else st->turn ^= 1;
}

/* One uniformly random playout to the end.  RETURN: the final diff. */
static int os_rollout(const dab_geom *g, const ostate *st0, dab_rng *rng) {
  int16_t free_lines[DAB_MAX_LINES];
  int diff = st0->diff, turn = st0->turn;
  if (dab_geom_fast(g)) {
    uint64_t p = dab_ls_word(&st0->s);
    int n = 0;
    for (uint64_t f = ~p & g->all_lines; f; f &= f - 1) free_lines[n++] = (int16_t)__builtin_ctzll(f);
    while (n) {
      int i = dab_rng_below(rng, n);
      int m = free_lines[i];
      free_lines[i] = free_lines[--n];
      int k = dab64_completes(g, p, m);
      p |= 1ull << m;
      if (k) diff += turn ? -k : k;
      else turn ^= 1;
    }
    return diff;
  }
  dab_lineset s = st0->s;
  int n = dab_legal_moves(g, &s, free_lines);
  while (n) {
    int i = dab_rng_below(rng, n);
    int m = free_lines[i];
    free_lines[i] = free_lines[--n];
    int k = dab_completes(g, &s, m);
    dab_ls_set(&s, m);
    if (k) diff += turn ? -k : k;
    else turn ^= 1;
  }
  return diff;
}

/* n fresh nodes at the end of the pool.  RETURN: the first, or -1 when
** the pool would pass max_nodes or memory runs out. */
static int32_t os_alloc(mcts_os *t, int n) {
  onode *np = pl_pool_reserve(t->pool, &t->cap, t->npool + n, t->max_nodes, sizeof *np);
  if (!np) return -1;
  t->pool = np;
  int32_t at = t->npool;
  t->npool += n;
  return at;
}

/* Children of node ni for state st, in a random order.  RETURN: false
** when the pool is full (the node stays a leaf). */
static bool os_expand(mcts_os *t, const dab_geom *g, int32_t ni, const ostate *st, dab_rng *rng) {
  int16_t moves[DAB_MAX_LINES];
  int n = dab_legal_moves(g, &st->s, moves);
  int32_t at = os_alloc(t, n);
  if (at < 0) return false;
  for (int i = n - 1; i > 0; i--) {
    int j = dab_rng_below(rng, i + 1);
    int16_t x = moves[i];
    moves[i] = moves[j];
    moves[j] = x;
  }
  for (int i = 0; i < n; i++)
    t->pool[at + i] = (onode){-1, 0, moves[i], (uint8_t)st->turn, OUT_NONE, 0, 0.0};
  t->pool[ni].child = at;
  t->pool[ni].nchild = (int16_t)n;
  return true;
}

/* The outcome of node n for player pl (n->outcome is set). */
static inline int out_for(const onode *n, int pl) { return pl == 0 ? n->outcome : -n->outcome; }

static int32_t os_select(const mcts_os *t, const onode *parent) {
  const onode *ch = &t->pool[parent->child];
  double logn = log((double)parent->visits);
  int best = 0;
  double best_u = -HUGE_VAL;
  for (int i = 0; i < parent->nchild; i++) {
    double u;
    if (ch[i].outcome != OUT_NONE) u = out_for(&ch[i], ch[i].player);
    else if (ch[i].visits == 0) u = HUGE_VAL;
    else {
      double nv = (double)ch[i].visits;
      u = ch[i].reward / nv + t->c * sqrt(logn / nv);
    }
    if (u > best_u) {
      best_u = u;
      best = i;
    }
  }
  return parent->child + best;
}

/* The move to play: greatest (proven outcome or 0, visits, reward). */
static int os_best(const mcts_os *t) {
  const onode *root = &t->pool[0];
  const onode *ch = &t->pool[root->child];
  int best = 0;
  for (int i = 1; i < root->nchild; i++) {
    const onode *a = &ch[i], *b = &ch[best];
    int oa = a->outcome != OUT_NONE ? out_for(a, a->player) : 0;
    int ob = b->outcome != OUT_NONE ? out_for(b, b->player) : 0;
    if (oa != ob ? oa > ob : a->visits != b->visits ? a->visits > b->visits : a->reward > b->reward)
      best = i;
  }
  return ch[best].move;
}

/* Runs the search from game.  RETURN: the move, or -1 when the pool could
** not hold the root's children. */
static int os_search(mcts_os *t, const dab_geom *g, const dab_game *game, dab_rng *rng,
                     long *nsims) {
  ostate root = {game->lines, game->score[0] - game->score[1], game->to_move,
                 g->nlines - dab_ls_count(&game->lines)};
  t->npool = 0;
  if (os_alloc(t, 1) < 0) return -1;
  t->pool[0] = (onode){-1, 0, -1, (uint8_t)root.turn, OUT_NONE, 0, 0.0};
  int32_t path[DAB_MAX_LINES + 2];
  long sim = 0;
  while (sim < t->sims && t->pool[0].outcome == OUT_NONE) {
    if (t->cancel && (sim & 63) == 0 && *t->cancel) break;
    sim++;
    ostate st = root;
    int depth = 0;
    int32_t ni = 0;
    path[depth++] = 0;
    while (st.left > 0 && t->pool[ni].visits > 0) {
      if (t->pool[ni].child < 0 && !os_expand(t, g, ni, &st, rng)) break;
      ni = os_select(t, &t->pool[ni]);
      os_play(g, &st, t->pool[ni].move);
      path[depth++] = ni;
    }
    int ret0;                 /* the return of player 0 */
    bool solved = false;
    if (st.left == 0) {
      ret0 = sign(st.diff);
      t->pool[ni].outcome = (int8_t)ret0;
      solved = true;
    } else {
      ret0 = sign(os_rollout(g, &st, rng));
    }
    for (int i = depth - 1; i >= 0; i--) {
      onode *n = &t->pool[path[i]];
      n->reward += n->player == 0 ? ret0 : -ret0;
      n->visits++;
      if (!solved || n->nchild == 0) continue;
      const onode *ch = &t->pool[n->child];
      int pl = ch[0].player;
      int best = -1;
      bool all = true;
      for (int k = 0; k < n->nchild; k++) {
        if (ch[k].outcome == OUT_NONE) all = false;
        else if (best < 0 || out_for(&ch[k], pl) > out_for(&ch[best], pl)) best = k;
      }
      if (best >= 0 && (all || out_for(&ch[best], pl) == 1)) n->outcome = ch[best].outcome;
      else solved = false;
    }
  }
  *nsims = sim;
  if (t->pool[0].nchild == 0) return -1;
  return os_best(t);
}

static int os_move(dab_player *p, const dab_game *game, dab_rng *rng) {
  mcts_os *t = p->impl;
  long nsims;
  t->cancel = p->cancel;
  int m = os_search(t, &p->geom, game, rng, &nsims);
  if (m >= 0) return m;
  /* The pool could not hold the root's children: a random line. */
  int16_t moves[DAB_MAX_LINES];
  int n = dab_legal_moves(&p->geom, &game->lines, moves);
  return moves[dab_rng_below(rng, n)];
}

static void os_free(void *impl) {
  mcts_os *t = impl;
  if (t) free(t->pool);
  free(t);
}

static const pl_ops ops_mcts_os = {os_move, os_free};

dab_status pl_new_mcts_os(dab_player *p, pl_opts *o, dab_err *err) {
  long sims = 1000, nodes = 16 << 20;
  double c = 2.0;
  dab_status st;
  if ((st = pl_opt_long(o, "mcts-os", "sims", 1, 100000000, &sims, err))) return st;
  if ((st = pl_opt_double(o, "mcts-os", "c", 0, 100, &c, err))) return st;
  if ((st = pl_opt_long(o, "mcts-os", "nodes", 1000, 1L << 27, &nodes, err))) return st;
  mcts_os *t = calloc(1, sizeof *t);
  if (!t) return dab_fail(err, DAB_ENOMEM, "out of memory for player 'mcts-os'");
  t->sims = sims;
  t->c = c;
  t->max_nodes = (int32_t)nodes;
  p->impl = t;
  p->ops = &ops_mcts_os;
  snprintf(p->name, sizeof p->name, "mcts-os:sims=%ld,c=%g", sims, c);
  return DAB_OK;
}
