/*
** matrix.h: two-player matrix games: the four benchmark games of seed paper
** 004, a text format for a user's own bimatrix, exact Nash equilibria, the
** paper's claims about them, stateless Q-learners and replicator dynamics.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_MATRIX_H
#define DAB_MATRIX_H

#include <stdbool.h>
#include <stdint.h>
#include "game/err.h"

/* Most actions one player may have. */
#define DAB_MATRIX_MAX 8
/* Longest action or game name, with its terminating zero. */
#define DAB_MATRIX_NAME 32
/* Most extreme strategies of one player that take part in equilibria
** (vertices of its best-response polytope), and most extreme equilibria. */
#define DAB_MATRIX_MAX_VERT 1024
#define DAB_MATRIX_MAX_EQ 1024
/* Most maximal Nash subsets (components) described for a degenerate game. */
#define DAB_MATRIX_MAX_COMP 32
/* Most published claims checked for one game. */
#define DAB_MATRIX_MAX_CLAIMS 8

/* ---- Exact rationals ----------------------------------------------------- */

/* num/den in lowest terms with den > 0.  Every operation below reports an
** int64 overflow instead of wrapping. */
typedef struct dab_rat {
  int64_t num, den;
} dab_rat;

/* The rational n/1. */
dab_rat dab_rat_int(int64_t n);

/* *out = a op b.  RETURN: false on int64 overflow (or b == 0 for div),
** leaving *out unspecified. */
bool dab_rat_add(dab_rat a, dab_rat b, dab_rat *out);
bool dab_rat_sub(dab_rat a, dab_rat b, dab_rat *out);
bool dab_rat_mul(dab_rat a, dab_rat b, dab_rat *out);
bool dab_rat_div(dab_rat a, dab_rat b, dab_rat *out);

/* Sign of a - b: -1, 0 or 1 (exact, never overflows). */
int dab_rat_cmp(dab_rat a, dab_rat b);

/* The nearest double. */
double dab_rat_to_double(dab_rat a);

/*
** Parses a whole word as an exact rational: an integer ("-3"), a decimal
** ("-0.25", ".5", "1e-2" is refused) or a fraction ("2/3").  A decimal is
** the exact rational it spells (0.05 = 1/20).
** RETURN: false for anything else, or for values beyond 10^12 or with more
** than 9 digits after the point.
*/
bool dab_rat_parse(const char *s, dab_rat *out);

/* Writes a as "n" or "n/d" into buf (32 bytes always suffice). */
void dab_rat_format(dab_rat a, char *buf, int size);

/* ---- Games --------------------------------------------------------------- */

/* A bimatrix game: pay[0] holds the row player's payoffs, pay[1] the
** column player's, both indexed [row action][column action]. */
typedef struct dab_matrix_game {
  char name[DAB_MATRIX_NAME];
  int rows, cols;
  char row_name[DAB_MATRIX_MAX][DAB_MATRIX_NAME];
  char col_name[DAB_MATRIX_MAX][DAB_MATRIX_NAME];
  dab_rat pay[2][DAB_MATRIX_MAX][DAB_MATRIX_MAX];
  int builtin; /* which benchmark game (dab_matrix_builtin_id), or 0 for a user's */
} dab_matrix_game;

/* The benchmark games of seed paper 004 (Table 1), payoffs as published. */
typedef enum dab_matrix_builtin_id {
  DAB_MATRIX_USER = 0,
  DAB_MATRIX_DISPERSION = 1, /* A/B: (-1,-1) on the diagonal, (1,1) off it */
  DAB_MATRIX_BOS = 2,        /* battle of the sexes, O/M: (3,2) (0,0) / (0,0) (2,3) */
  DAB_MATRIX_PD = 3,         /* prisoner's dilemma, C/D: (-1,-1) (-4,0) / (0,-4) (-3,-3) */
  DAB_MATRIX_RPS = 4         /* biased rock-paper-scissors, zero-sum */
} dab_matrix_builtin_id;

/* "dispersion, bos, pd, rps" and their long aliases, for usage texts. */
extern const char dab_matrix_builtin_help[];

/*
** Fills g with a benchmark game by name: dispersion, bos
** (battle-of-the-sexes), pd (prisoners-dilemma), rps (biased-rps).
** RETURN: DAB_OK, or DAB_EINPUT for an unknown name.
*/
dab_status dab_matrix_builtin(const char *name, dab_matrix_game *g, dab_err *err);

/*
** Parses a game in dab's payoff text format (docs/agents.md):
**   # comment                 (anywhere; blank lines are skipped)
**   name  TEXT                (optional)
**   rows  NAME NAME ...       (optional action names; default r1, r2, ...)
**   cols  NAME NAME ...       (optional; default c1, c2, ...)
**   zerosum                   (optional, before the payoffs: cells are single
**                              numbers, the row player's; the column's is minus)
**   a,b  a,b  ...             (one line per row action, one cell per column
**                              action: row payoff, column payoff)
** Numbers are exact rationals as dab_rat_parse reads them.  file names the
** source in messages.
** RETURN: DAB_OK, or DAB_EINPUT with "FILE:LINE: what is wrong" in err.
*/
dab_status dab_matrix_parse(const char *text, const char *file, dab_matrix_game *g,
                            dab_err *err);

/* Reads and parses a payoff file (at most 64 KiB).
** RETURN: DAB_OK, DAB_EIO if it cannot be read, or dab_matrix_parse's error. */
dab_status dab_matrix_load(const char *path, dab_matrix_game *g, dab_err *err);

/* True when the game is symmetric: rows == cols and pay[1] is the transpose
** of pay[0] (the biased RPS is, being zero-sum with an antisymmetric matrix). */
bool dab_matrix_symmetric(const dab_matrix_game *g);

/* ---- Nash equilibria ----------------------------------------------------- */

/* A mixed strategy of one player at a vertex of its best-response polytope:
** p[] its probabilities, payoff what it gives the other player's best reply,
** support its actions played, best the other player's pure best replies. */
typedef struct dab_matrix_vertex {
  dab_rat p[DAB_MATRIX_MAX];
  dab_rat payoff;
  uint32_t support, best;
} dab_matrix_vertex;

/* An extreme Nash equilibrium: row strategy xv[x], column strategy yv[y]. */
typedef struct dab_matrix_eq {
  int x, y;
  dab_rat value[2];  /* expected payoffs of the row and column player */
  bool pure;
  bool pareto;       /* no pure outcome pays both at least as much and one more */
  bool pareto_ne;    /* no other listed equilibrium does */
} dab_matrix_eq;

/* A maximal Nash subset: every mix of the row vertices in xmask with every
** mix of the column vertices in ymask is an equilibrium (bit i: xv[i] or
** yv[i]; vertices in equilibria come first, and subsets are described only
** when at most 64 of each player's vertices take part in equilibria). */
typedef struct dab_matrix_comp {
  uint64_t xmask, ymask;
} dab_matrix_comp;

/* The solver's result: about 360 KB, so keep it static or on the heap. */
typedef struct dab_matrix_nash {
  int nxv, nyv;
  dab_matrix_vertex xv[DAB_MATRIX_MAX_VERT], yv[DAB_MATRIX_MAX_VERT];
  int neq;
  dab_matrix_eq eq[DAB_MATRIX_MAX_EQ];
  /* Degenerate: some strategy with k actions has more than k pure best
  ** replies; equilibria may then form continua (described in comp[]). */
  bool degenerate;
  int ncomp;                 /* maximal Nash subsets with more than one point */
  dab_matrix_comp comp[DAB_MATRIX_MAX_COMP];
  bool comp_truncated;       /* more subsets existed than comp[] holds */
} dab_matrix_nash;

/*
** Every extreme Nash equilibrium of g, exactly.  It enumerates, for each
** player, every pair (support, set of the other player's replies made
** indifferent), solves the indifference equations in exact rationals and
** keeps the solutions that are mixed strategies with those replies best:
** the vertices of the best-response polytopes.  Equilibria are the pairs of
** vertices each playing only best replies to the other.  In a nondegenerate
** game these are all the equilibria; in a degenerate one, every equilibrium
** lies in a maximal Nash subset, the product of the convex hulls of vertex
** sets listed in comp[].  Equilibria are sorted pure first.
** RETURN: DAB_OK; DAB_EINPUT when exact arithmetic overflows int64 (payoffs
** too large or too finely divided); DAB_EBOARD when a limit above is passed;
** DAB_ENOMEM.
*/
dab_status dab_matrix_solve(const dab_matrix_game *g, dab_matrix_nash *out, dab_err *err);

/* One published claim about a benchmark game and whether it holds. */
typedef struct dab_matrix_claim {
  const char *where;   /* section of the paper: "3.2 (b)", ... */
  const char *claim;   /* the claim, in dab's words */
  bool holds;
  char why[256];       /* what dab computed */
} dab_matrix_claim;

/* Checks the published claims about g (a benchmark game) against the
** computed equilibria.  RETURN: how many were written (0 for a user's game). */
int dab_matrix_claims(const dab_matrix_game *g, const dab_matrix_nash *ne,
                      dab_matrix_claim *out, int max);

/* ---- Learning dynamics (matrix_learn.c) ---------------------------------- */

typedef enum dab_mlearn_kind {
  DAB_MLEARN_EGREEDY = 0, /* epsilon-greedy Q-learning */
  DAB_MLEARN_LENIENT = 1  /* lenient Boltzmann Q-learning */
} dab_mlearn_kind;

/*
** Parameters of two independent stateless Q-learners.  Both update
**   Q(a) <- Q(a) + alpha * (r + gamma * max_b Q(b) - Q(a))
** after each episode (one play of the game): the game has one state, which
** is also the next state, so gamma discounts the bootstrap from the same
** Q-table.  epsilon-greedy plays uniformly at random with probability
**   eps_k = eps_min + (eps_max - eps_min) * exp(-eps_decay * k)
** in episode k (k = 0, 1, ...), else the greedy action (ties at random).
** Lenient Boltzmann plays action a with probability proportional to
** exp(Q(a) / T_k), T_k = max(t_min, t_max - t_step * k), and updates an
** action's Q only once it has been played kappa times since its last
** update, with the largest of those kappa rewards.
*/
typedef struct dab_mlearn_params {
  dab_mlearn_kind kind;
  int episodes;
  double alpha, gamma;
  double eps_min, eps_max, eps_decay;
  double t_max, t_min, t_step;
  int kappa;
  double q0_lo, q0_hi;   /* initial Q-values: uniform in [q0_lo, q0_hi] */
} dab_mlearn_params;

/* The published values: 10,000 episodes, alpha 0.05, gamma 0.1,
** eps 1 -> 0.01 with decay 0.001, T 80 -> 0.01 by 0.01 an episode,
** kappa 5 (dab's choice; the paper gives none), Q0 in [-4, 4]. */
void dab_mlearn_defaults(dab_mlearn_kind kind, dab_mlearn_params *p);

/* Parses "egreedy" or "lenient".  RETURN: false for anything else. */
bool dab_mlearn_kind_parse(const char *s, dab_mlearn_kind *kind);

/* Called with the policies both learners would play in episode k, after k
** episodes of learning (k = 0 is the start, k = episodes the end).  A
** nonzero return stops the run. */
typedef int (*dab_mlearn_fn)(void *ctx, int episode, const double *row, const double *col);

/*
** Runs one pair of learners on g for p->episodes episodes from the random
** stream (seed, run); the same arguments give the same run, bit for bit.
** Calls fn (if non-NULL) at episodes 0, every, 2*every, ... and at the end.
** final_row / final_col (may be NULL) receive the final policies.
** RETURN: DAB_OK; DAB_EINPUT for bad parameters; DAB_ECANCELED if fn stopped it.
*/
dab_status dab_mlearn_run(const dab_matrix_game *g, const dab_mlearn_params *p, uint64_t seed,
                          uint64_t run, int every, dab_mlearn_fn fn, void *ctx, double *final_row,
                          double *final_col, dab_err *err);

/*
** Two-population replicator dynamics at (x, y), x the row player's mixed
** strategy, y the column player's:
**   dx_i = x_i ((A y)_i - x.A y),   dy_j = y_j ((x B)_j - x B.y).
** For a symmetric game with x = y this is the one-population dynamics.
*/
void dab_matrix_replicator(const dab_matrix_game *g, const double *x, const double *y, double *dx,
                           double *dy);

#endif
