/*
** mcts.c: UCT Monte-Carlo tree search with random rollouts, plain and with
** the BoxesZero enhancements (chain-loop macro moves, exact SLE scoring).
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "game/sc.h"
#include "players/mcts_bz.h"
#include "players/pint.h"
#include "theorems/sle.h"
#include "game/clock.h"

/*
** The tree lives in one growing array of nodes; a node's children are
** contiguous, so a node only stores where they start.  A node holds the
** move that led to it and the statistics of the player who made it:
**
**   node: [child:int32][nchild:int16][move:int16][mover:u8][visits:u32][reward:f32]
**
** States are not stored: every simulation replays its path from the root,
** which costs a few line sets per step and keeps nodes at 20 bytes.
**
** Moves >= 0 are lines.  mcts-bz adds two macro moves, used instead of
** lines whenever a box can be taken:
**   MACRO_TAKE_ALL   capture every box that can be taken (the mover then
**                    moves again, from a position with nothing to take);
**   MACRO_DECLINE    capture all but the last 2 boxes of a chain or 4 of a
**                    loop, then double-deal (the turn passes).
** Forced chain and loop sequences so take one step, and the only choice
** left is the one that matters: keep control or not.  Where nothing can
** be taken, mcts-bz keeps one opening line per isolated chain or loop
** (opening_moves), and scores simple loony endgames exactly with the
** theorem library (sle_exact): at tree leaves (sle=1), and also inside
** rollouts, stopping at the first such position (sle=2, the default).
*/
enum { MACRO_TAKE_ALL = PL_MACRO_TAKE_ALL, MACRO_DECLINE = PL_MACRO_DECLINE };

typedef struct node {
  int32_t child;
  int16_t nchild;
  int16_t move;
  uint8_t mover;
  uint32_t visits;
  float reward;
} node;

/* diff: player 0's boxes minus player 1's, including the game's score;
** left: undrawn lines; first: first line drawn since set-up, -1 none. */
typedef pl_mstate mstate;

typedef struct mcts {
  bool bz;
  int sle;
  dab_sc_view *view;   /* scratch for mcts-bz's opening pruning */
  long sims, time_ms;
  double c;
  node *pool;
  int32_t npool, cap;
  int32_t max_nodes;
  dab_cancel_flag *cancel;  /* the player's, copied at each move */
} mcts;

static inline int st_play(const dab_geom *g, mstate *st, int m) {
  int k = dab_completes(g, &st->s, m);
  dab_ls_set(&st->s, m);
  st->left--;
  if (st->first < 0) st->first = m;
  if (k) st->diff += st->turn ? -k : k;
  else st->turn ^= 1;
  return k;
}

/* ---- Rollouts ----------------------------------------------------------- */

/* Plays random lines to the end; returns the final diff. */
/* True when every box of p has 2 or 4 sides drawn: an (extended) simple
** loony endgame, or the finished board. */
static inline bool all_two_or_four(const dab_geom *g, uint64_t p) {
  dab64_sides4 v = dab64_side_vectors(g, p);
  uint64_t odd = v.top ^ v.bottom ^ v.left ^ v.right;
  uint64_t none = ~(v.top | v.bottom | v.left | v.right) & dab64_all_boxes(g);
  return (odd | none) == 0;
}

/* ---- Macro moves (mcts-bz) ---------------------------------------------- */

static int first_capturable(const dab_geom *g, const dab_lineset *s) {
  for (int b = 0; b < g->nboxes; b++)
    if (dab_box_sides(g, s, b) == 3) return b;
  return -1;
}

/* Draws the last line of capturable box b. */
static void take_box(const dab_geom *g, mstate *st, int b) {
  st_play(g, st, pl_other_line(g, &st->s, b, -1));
}

static void macro_take_all(const dab_geom *g, mstate *st) {
  for (int b; (b = first_capturable(g, &st->s)) >= 0;) take_box(g, st, b);
}

/* Applies MACRO_DECLINE to st.  RETURN: false (st unspecified) when no
** run ends at a decline point, i.e. the macro does not exist here. */
static bool macro_decline(const dab_geom *g, mstate *st) {
  for (;;) {
    int keep = -1, keep_line = -1, other = -1;
    bool keep_loop = false;
    bool ate = false;
    for (int b = 0; b < g->nboxes && !ate; b++) {
      if (dab_box_sides(g, &st->s, b) != 3) continue;
      bool loop;
      int d = pl_decline_line(g, &st->s, b, &loop);
      if (d < 0) {
        take_box(g, st, b);  /* eat down towards the decline point */
        ate = true;
      } else if (keep < 0) {
        keep = b;
        keep_line = d;
        keep_loop = loop;
      } else if (other < 0) {
        /* A second capturable end: the same opened loop, or another run. */
        bool same = false;
        if (keep_loop) {
          dab_lineset t = st->s;
          int m = pl_other_line(g, &t, keep, -1), last = keep;
          for (int i = 0; i < 3; i++) {
            int n = dab_sc_across(g, last, m);
            if (n == b) same = true;
            if (n < 0) break;
            int m2 = pl_other_line(g, &t, n, m);
            if (m2 < 0) break;
            last = n;
            m = m2;
          }
        }
        if (!same) other = b;
      }
    }
    if (ate) continue;
    if (keep < 0) return false;
    if (other >= 0) {
      take_box(g, st, other);  /* take every other run whole */
      continue;
    }
    st_play(g, st, keep_line);
    return true;
  }
}

static void apply_move(const dab_geom *g, mstate *st, int move) {
  if (move >= 0) st_play(g, st, move);
  else if (move == MACRO_TAKE_ALL) macro_take_all(g, st);
  else macro_decline(g, st);
}

/*
** mcts-bz's moves where nothing can be taken.  Opening an isolated chain
** of n >= 3 coins anywhere leaves the controller the same two answers
** (take all n, or n-2 and decline 2), and every string of a loop is
** alike, so one line per such component is enough; a 2-chain keeps two
** (the end: declinable, the middle: not); a 1-chain one.  Every other
** line is kept.
*/
static int opening_moves(const dab_geom *g, const dab_lineset *s, dab_sc_view *v, int16_t *moves) {
  dab_sc_analyze(g, s, v);
  uint8_t seen[DAB_MAX_BOXES];   /* per component: 1 = end line kept, 2 = middle kept */
  memset(seen, 0, (size_t)v->ncomp);
  int n = 0;
  for (int m = 0; m < g->nlines; m++) {
    if (dab_ls_has(s, m)) continue;
    int b0 = g->line_box[m][0], b1 = g->line_box[m][1];
    int b = b0 >= 0 ? b0 : b1;
    int c = v->comp_of[b];
    const dab_sc_component *cp = c >= 0 ? &v->comp[c] : NULL;
    if (cp && (cp->kind == DAB_SC_LOOP || cp->kind == DAB_SC_CHAIN)) {
      bool middle = b0 >= 0 && b1 >= 0;
      int kind = cp->kind == DAB_SC_CHAIN && cp->coins == 2 && middle ? 2 : 1;
      if (seen[c] & kind) continue;
      seen[c] |= (uint8_t)kind;
    }
    moves[n++] = (int16_t)m;
  }
  return n;
}

/* ---- Tree ----------------------------------------------------------------- */

void *pl_pool_reserve(void *pool, int32_t *cap, int32_t need, int32_t max_nodes, size_t elem) {
  if (need <= *cap) return pool;
  if (need > max_nodes) return NULL;
  int32_t c = *cap ? *cap : 4096;
  while (c < need) c = c > max_nodes / 2 ? max_nodes : c * 2;
  void *np = realloc(pool, (size_t)c * elem);
  if (np) *cap = c;
  return np;
}

static int32_t alloc_nodes(mcts *t, int n) {
  node *np = pl_pool_reserve(t->pool, &t->cap, t->npool + n, t->max_nodes, sizeof *np);
  if (!np) return -1;
  t->pool = np;
  int32_t at = t->npool;
  t->npool += n;
  return at;
}

int pl_mcts_children(const dab_geom *g, const pl_mstate *st, bool bz, dab_sc_view *view,
                     int16_t *moves) {
  int n = 0;
  if (bz && first_capturable(g, &st->s) >= 0) {
    moves[n++] = MACRO_TAKE_ALL;
    mstate tmp = *st;
    if (macro_decline(g, &tmp)) moves[n++] = MACRO_DECLINE;
  } else if (bz) {
    n = opening_moves(g, &st->s, view, moves);
  } else {
    n = dab_legal_moves(g, &st->s, moves);
  }
  return n;
}

/* Creates the children of node ni for state st, in random order.
** RETURN: false when the pool is full (the node stays a leaf). */
static bool expand(mcts *t, const dab_geom *g, int32_t ni, const mstate *st, dab_rng *rng) {
  int16_t moves[DAB_MAX_LINES];
  int n = pl_mcts_children(g, st, t->bz && t->view, t->view, moves);
  int32_t at = alloc_nodes(t, n);
  if (at < 0) return false;
  for (int i = n - 1; i > 0; i--) {
    int j = dab_rng_below(rng, i + 1);
    int16_t x = moves[i];
    moves[i] = moves[j];
    moves[j] = x;
  }
  for (int i = 0; i < n; i++) {
    node *c = &t->pool[at + i];
    c->child = -1;
    c->nchild = 0;
    c->move = moves[i];
    c->mover = (uint8_t)st->turn;
    c->visits = 0;
    c->reward = 0;
  }
  t->pool[ni].child = at;
  t->pool[ni].nchild = (int16_t)n;
  return true;
}

static int32_t select_child(const mcts *t, const node *parent) {
  const node *ch = &t->pool[parent->child];
  double logn = log((double)parent->visits + 1.0);
  int32_t best = 0;
  double best_u = -1.0;
  for (int i = 0; i < parent->nchild; i++) {
    if (ch[i].visits == 0) return parent->child + i;
    double nv = (double)ch[i].visits;
    double u = (double)ch[i].reward / nv + t->c * sqrt(logn / nv);
    if (u > best_u) {
      best_u = u;
      best = i;
    }
  }
  return parent->child + best;
}

/*
** Theorem pruning: a position in which every box left has exactly two
** sides undrawn is a simple loony endgame (extended: 1- and 2-chains
** too), whose value the theorem library knows exactly: the player to move
** is the opener and nets -v(G).  RETURN: true and the final *diff.
*/
static bool sle_exact(const dab_geom *g, const mstate *st, int *diff);

/* A random rollout on a fast-path board.  With sle (mcts-bz with theorem
** pruning) it stops at the first simple loony endgame and scores it
** exactly. */
static int rollout_fast(const dab_geom *g, const mstate *st0, dab_rng *rng, bool sle) {
  int16_t free_lines[DAB_MAX_LINES];
  int n = 0, diff = st0->diff, turn = st0->turn;
  uint64_t p = dab_ls_word(&st0->s);
  for (uint64_t f = ~p & g->all_lines; f; f &= f - 1) free_lines[n++] = (int16_t)__builtin_ctzll(f);
  while (n) {
    if (sle && all_two_or_four(g, p)) {
      mstate st = {dab_ls_from_word(p), diff, turn, n, -1};
      int exact;
      if (sle_exact(g, &st, &exact)) return exact;
    }
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

/* A random rollout to the end of the game: diff of the final score. */
static int rollout(const dab_geom *g, const mstate *st0, dab_rng *rng) {
  if (dab_geom_fast(g)) return rollout_fast(g, st0, rng, false);
  int16_t free_lines[DAB_MAX_LINES];
  int n, diff = st0->diff, turn = st0->turn;
  dab_lineset s = st0->s;
  n = dab_legal_moves(g, &s, free_lines);
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

static bool sle_exact(const dab_geom *g, const mstate *st, int *diff) {
  for (int b = 0; b < g->nboxes; b++) {
    int sides = dab_box_sides(g, &st->s, b);
    if (sides != 2 && sides != 4) return false;
  }
  int16_t chains[DAB_MAX_BOXES], loops[DAB_MAX_BOXES];
  int nc, nl;
  if (!dab_sle_from_position(g, &st->s, true, chains, &nc, loops, &nl)) return false;
  int v = dab_sle_value(chains, nc, loops, nl);
  if (v == DAB_SLE_BAD) return false;
  *diff = st->diff + (st->turn == 0 ? -v : v);
  return true;
}

/* Runs the search; returns the move (line or macro) of the best child and
** the number of simulations in *nsims. */
static int search(mcts *t, const dab_geom *g, const dab_game *game, dab_rng *rng, long *nsims) {
  mstate root = {game->lines, game->score[0] - game->score[1], game->to_move,
                 g->nlines - dab_ls_count(&game->lines), -1};
  t->npool = 0;
  int32_t r = alloc_nodes(t, 1);
  if (r < 0) return -1;
  t->pool[r] = (node){-1, 0, -1, (uint8_t)(root.turn ^ 1), 0, 0};
  int32_t path[DAB_MAX_LINES + 2];
  double t0 = t->time_ms ? (dab_now_s() * 1e3) : 0;
  long sim = 0;
  for (;; sim++) {
    if (t->sims && sim >= t->sims) break;
    if (t->cancel && (sim & 63) == 0 && *t->cancel) break;
    if (t->time_ms && (sim & 31) == 0 && sim && (dab_now_s() * 1e3) - t0 >= (double)t->time_ms) break;
    mstate st = root;
    int depth = 0;
    int32_t ni = 0;
    path[depth++] = 0;
    for (;;) {
      node *n = &t->pool[ni];
      if (st.left == 0) break;
      if (n->child < 0) {
        if (n->visits == 0 && ni != 0) break;            /* first visit: roll out */
        if (!expand(t, g, ni, &st, rng)) break;         /* pool full: roll out */
      }
      ni = select_child(t, &t->pool[ni]);
      apply_move(g, &st, t->pool[ni].move);
      path[depth++] = ni;
      if (t->pool[ni].visits == 0) break;
    }
    int diff;
    if (t->bz && t->sle == 2 && dab_geom_fast(g)) diff = rollout_fast(g, &st, rng, true);
    else if (!(t->bz && t->sle && sle_exact(g, &st, &diff))) diff = rollout(g, &st, rng);
    float r0 = diff > 0 ? 1.0f : diff == 0 ? 0.5f : 0.0f;
    for (int i = 0; i < depth; i++) {
      node *n = &t->pool[path[i]];
      n->visits++;
      n->reward += n->mover == 0 ? r0 : 1.0f - r0;
    }
  }
  *nsims = sim;
  const node *root_node = &t->pool[0];
  if (root_node->nchild == 0) return -1;
  int32_t best = root_node->child;
  for (int i = 1; i < root_node->nchild; i++) {
    const node *c = &t->pool[root_node->child + i];
    if (c->visits > t->pool[best].visits) best = root_node->child + i;
  }
  return t->pool[best].move;
}

static int mcts_move(dab_player *p, const dab_game *game, dab_rng *rng) {
  mcts *t = p->impl;
  const dab_geom *g = &p->geom;
  long nsims;
  if (t->bz && first_capturable(g, &game->lines) >= 0) {
    /* Nothing to decide when only "take everything" exists. */
    mstate tmp = {game->lines, 0, game->to_move, g->nlines, -1};
    if (!macro_decline(g, &tmp)) return pl_other_line(g, &game->lines, first_capturable(g, &game->lines), -1);
  }
  if (g->nlines - dab_ls_count(&game->lines) == 1) {
    int16_t last[1];
    dab_legal_moves(g, &game->lines, last);
    return last[0];
  }
  t->cancel = p->cancel;
  int m = search(t, g, game, rng, &nsims);
  if (m >= 0) return m;
  if (m == MACRO_TAKE_ALL || m == MACRO_DECLINE) {
    /* Play the macro's first line; the next call continues it (every
    ** macro step keeps the same choice available or forced). */
    mstate st = {game->lines, 0, game->to_move, g->nlines, -1};
    apply_move(g, &st, m);
    if (st.first >= 0) return st.first;
  }
  /* Pool exhausted before the root expanded: fall back on a random line. */
  int16_t moves[DAB_MAX_LINES];
  int n = dab_legal_moves(g, &game->lines, moves);
  return moves[dab_rng_below(rng, n)];
}

static void mcts_free(void *impl) {
  mcts *t = impl;
  if (t) {
    free(t->pool);
    free(t->view);
  }
  free(t);
}

static const pl_ops ops_mcts = {mcts_move, mcts_free};

dab_status pl_new_mcts(dab_player *p, pl_opts *o, dab_err *err) {
  const char *who = p->kind == PL_MCTS_BZ ? "mcts-bz" : "mcts";
  long sims = -1, time_ms = 0, nodes = 16 << 20, sle = 2;
  double c = 1.41;
  dab_status st;
  /* sims=0 / time=0: no limit of that kind (the canonical name spells
  ** both out, and must parse again); one of them must limit the search. */
  if ((st = pl_opt_long(o, who, "sims", 0, 100000000, &sims, err))) return st;
  if ((st = pl_opt_long(o, who, "time", 0, 3600000, &time_ms, err))) return st;
  if (sims == 0 && time_ms == 0)
    return dab_fail(err, DAB_EINPUT, "player '%s': sims=0 needs a time limit (time=MS)", who);
  if ((st = pl_opt_double(o, who, "c", 0, 100, &c, err))) return st;
  if ((st = pl_opt_long(o, who, "nodes", 1000, 1L << 27, &nodes, err))) return st;
  if (p->kind == PL_MCTS_BZ && (st = pl_opt_long(o, who, "sle", 0, 2, &sle, err))) return st;
  if (sims < 0) sims = time_ms ? 0 : 1000;
  mcts *t = calloc(1, sizeof *t);
  if (!t) return dab_fail(err, DAB_ENOMEM, "out of memory for player '%s'", who);
  t->bz = p->kind == PL_MCTS_BZ;
  p->impl = t;
  p->ops = &ops_mcts;
  if (t->bz && !(t->view = malloc(sizeof *t->view)))
    return dab_fail(err, DAB_ENOMEM, "out of memory for player '%s'", who);
  t->sle = (int)sle;
  t->sims = sims;
  t->time_ms = time_ms;
  t->c = c;
  t->max_nodes = (int32_t)nodes;
  p->ops = &ops_mcts;
  if (t->bz)
    snprintf(p->name, sizeof p->name, "%s:sims=%ld,time=%ld,c=%g,sle=%ld", who, sims, time_ms, c, sle);
  else
    snprintf(p->name, sizeof p->name, "%s:sims=%ld,time=%ld,c=%g", who, sims, time_ms, c);
  return DAB_OK;
}

double pl_mcts_rate(dab_player *p, const dab_game *game, dab_rng *rng) {
  mcts *t = p->impl;
  long nsims;
  double t0 = (dab_now_s() * 1e3);
  search(t, &p->geom, game, rng, &nsims);
  double dt = (dab_now_s() * 1e3) - t0;
  return dt > 0 ? (double)nsims * 1000.0 / dt : 0;
}

/* ---- Shared with agents/ (players/mcts_bz.h) ------------------------------ */

void pl_mstate_from_game(const dab_geom *g, const dab_game *game, pl_mstate *st) {
  *st = (pl_mstate){game->lines, game->score[0] - game->score[1], game->to_move,
                    g->nlines - dab_ls_count(&game->lines), -1};
}

void pl_mcts_apply(const dab_geom *g, pl_mstate *st, int move) { apply_move(g, st, move); }

bool pl_mcts_sle_exact(const dab_geom *g, const pl_mstate *st, int *diff) {
  return sle_exact(g, st, diff);
}

int pl_mcts_rollout(const dab_geom *g, const pl_mstate *st, dab_rng *rng, bool sle) {
  if (sle && dab_geom_fast(g)) return rollout_fast(g, st, rng, true);
  return rollout(g, st, rng);
}
