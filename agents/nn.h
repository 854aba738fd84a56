/*
** nn.h: the neural-network agents of seed paper 002: network, genotype, GA.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_NN_H
#define DAB_NN_H

#include <stddef.h>
#include <stdint.h>
#include "game/board.h"
#include "agents/agent.h"
#include "game/rng.h"

/* ======================================================================
** The network
** ======================================================================
**
** Feed-forward, fully connected: one input per line (1 = drawn), one
** hidden unit per box, one output per line (3x3: 24-9-24).  Every unit is
** a sigmoid 1/(1+e^-z) whose threshold is a weight on a constant -1:
**
**   hidden j:  z = -th_h[j] + sum over drawn lines i (increasing) of w_ih[i][j]
**   output m:  z = -th_o[m] + sum over j (increasing) of w_ho[j][m] * h[j]
**
** Arithmetic is float, summed in exactly that order (so results are the
** same on every path).  Beyond the paper, a second hidden layer may sit
** between the first and the outputs, and a linear net's outputs are z
** itself (no sigmoid: nets trained by a softmax).
** The move is the legal line of highest output;
** outputs that compare equal as floats (the sigmoid saturates to exactly
** 1.0f above z = 16.7) are tied, and one of them is drawn with a single
** dab_rng_below over the tied lines in increasing order.
*/

typedef struct dab_nn {
  int nin, nhid, nout;  /* lines, boxes, lines */
  int hpad, opad;       /* nhid, nout rounded up to multiples of 8 */
  float *w_ih;          /* [nin][hpad]: input i -> hidden j */
  float *th_h;          /* [hpad] hidden thresholds (weights on -1) */
  float *w_ho;          /* [lastpad][opad]: last hidden layer's unit j -> output m */
  float *th_o;          /* [opad] output thresholds */
  /* Beyond the paper (both off in the paper's nets): */
  int nhid2, h2pad;     /* a second hidden layer of sigmoid units (0: none) */
  float *w_hh;          /* [hpad][h2pad]: hidden j -> second hidden k */
  float *th_h2;         /* [h2pad] */
  bool linear;          /* outputs are z itself, no sigmoid (softmax-trained nets) */
} dab_nn;

/* Most units in a hidden layer. */
#define DAB_NN_MAX_HIDDEN 1024

/*
** Allocates the network for board g with every weight zero.
** RETURN: DAB_OK, or DAB_ENOMEM (nn is then empty and safe to free).
*/
dab_status dab_nn_init(dab_nn *nn, const dab_geom *g, dab_err *err);
/* The same with nhid hidden units instead of one per box (beyond the
** paper: --hidden=N); nin and nout stay the board's lines. */
dab_status dab_nn_init_shape(dab_nn *nn, int nin, int nhid, int nout, dab_err *err);
/* The same with a second hidden layer of nhid2 units (0: none; beyond the
** paper: --hidden2=N) between the first and the outputs.  Hidden layers
** have 1 .. DAB_NN_MAX_HIDDEN units (DAB_EINPUT otherwise). */
dab_status dab_nn_init_deep(dab_nn *nn, int nin, int nhid, int nhid2, int nout, dab_err *err);
void dab_nn_free(dab_nn *nn);
/* Copies src into dst (same shape, both initialised). */
void dab_nn_copy(dab_nn *dst, const dab_nn *src);

/* Weights and thresholds: nhid*(nin+1) + nout*(nhid+1) (3x3: 465); with
** a second layer nhid*(nin+1) + nhid2*(nhid+1) + nout*(nhid2+1). */
static inline int dab_nn_nweights(const dab_nn *nn) {
  int last = nn->nhid2 ? nn->nhid2 : nn->nhid;
  return nn->nhid * (nn->nin + 1) + nn->nhid2 * (nn->nhid + 1) + nn->nout * (last + 1);
}

/*
** Weight number k in genotype order: each hidden unit in turn (its nin
** input weights, then its threshold), then each second-layer unit (its
** nhid weights, then its threshold), then each output unit in turn (its
** weights from the last hidden layer, then its threshold).  dab_nn_weight returns a pointer to
** it (k in 0 .. dab_nn_nweights-1).
*/
float *dab_nn_weight(dab_nn *nn, int k);

/* Forward pass on a line set (any board) or a 64-bit position (boards of
** at most 64 lines).  hid (hpad + h2pad floats) gets the first hidden
** layer's nhid values, then the second's; out (opad floats) gets the nout
** outputs (sigmoids, or z for a linear net). */
void dab_nn_forward(const dab_nn *nn, const dab_lineset *s, float *hid, float *out);
void dab_nn_forward64(const dab_nn *nn, uint64_t p, float *hid, float *out);

/*
** The network's move: the best legal output, ties drawn from rng (one
** dab_rng_below call).  legal = the undrawn lines (nonzero).
** RETURN: a line of legal.
*/
int dab_nn_move64(const dab_nn *nn, uint64_t p, uint64_t legal, dab_rng *rng);
/* The same for any board; RETURN: a line, or -1 when every line is drawn. */
int dab_nn_move(const dab_nn *nn, const dab_geom *g, const dab_lineset *s, dab_rng *rng);
/* The set of tied best legal lines of p (a mask), as dab_nn_move64 sees it. */
uint64_t dab_nn_best64(const dab_nn *nn, uint64_t p, uint64_t legal);

/* The logistic function in the network's float arithmetic. */
float dab_nn_sigmoid(float z);

/*
** The paper's hand-wired level-1 network (its section 3.6), built only
** from values the genotype can represent: hidden unit b weighs its box's
** four lines 23.085 (gene 696) and every other line -0.0626 (gene 511),
** threshold 64 (gene 1023): 3 sides drawn give h > 0.98, 2 give h < 2e-8.
** Output m weighs the hidden units of its boxes 64 (gene 1023), every
** other hidden unit +0.0626 (gene 512), threshold 40.04 (gene 831): a
** capture saturates to exactly 1.0f, and the tiny h of boxes with two
** sides or fewer vanish below half an ulp of the threshold, so every
** non-capture ties.  It therefore plays exactly as `level1` (same moves,
** same rng draws).  genes gets dab_nn_nweights entries.
*/
void dab_nn_level1_genes(const dab_geom *g, uint16_t *genes);

/* ======================================================================
** Model files and the player (agents/nn_model.c)
** ======================================================================
**
** Kind "nn"; the payload is "NNW1", uint32 nin, nhid, nout (the paper's
** shape), or "NNW2", uint32 nin, nhid, nhid2, nout, flags (bit 0: linear
** outputs) for a net beyond the paper, then every weight in genotype
** order as the little-endian bits of an IEEE float (trained nets need not
** sit on the genotype's grid).
*/

/* Writes nn (a net for board g) to path with the params text.
** RETURN: as dab_model_write. */
dab_status dab_nn_save(const char *path, dab_nn *nn, const dab_geom *g, const char *params,
                       dab_err *err);

/*
** Loads a network for board g into nn (initialised here; free it with
** dab_nn_free) and its header into *h.
** RETURN: DAB_OK; as dab_model_read for a wrong, truncated or damaged
** file; DAB_EBOARD for another board; DAB_ECORRUPT for a payload that is
** not a network of this board (wrong shape or size, a weight that is not
** finite).  On error nn is empty.
*/
dab_status dab_nn_load(const char *path, const dab_geom *g, dab_nn *nn, dab_model_header *h,
                       dab_err *err);

/* A player that moves by dab_nn_move.  owned: nn was malloc'd and the
** player frees it (dab_nn_free, then free); else the caller keeps nn alive
** for the player's life.  RETURN: DAB_OK and *out, or DAB_ENOMEM. */
dab_status dab_nn_player(const dab_nn *nn, const char *name, const dab_geom *g, bool owned,
                         dab_player **out, dab_err *err);

/* ======================================================================
** Fast games (agents/nn_eval.c; boards of at most 64 lines)
** ======================================================================
*/

/* One side of a game: a network, or (net NULL) a heuristic of `level`
** 0 (random), 1 (level1) or 2 (level2), drawing from the game's rng the
** way the players of players/simple.c do. */
typedef struct dab_nn_side {
  const dab_nn *net;
  int level;
} dab_nn_side;

/* The heuristic's move in p (legal = undrawn lines, nonzero). */
int dab_nn_heuristic_move(const dab_geom *g, uint64_t p, uint64_t legal, int level, dab_rng *rng);

/* Plays one game from the empty board, `first` to move, both sides
** drawing from rng.  RETURN: first's boxes minus second's. */
int dab_nn_play(const dab_geom *g, dab_nn_side first, dab_nn_side second, dab_rng *rng);

/* A two-game match, a first in game 0 and b first in game 1, each game's
** rng seeded from (seed, game).  RETURN: 3 w + t (w games won by a, t
** tied), as dab_ga_match_fn wants. */
int dab_nn_match(const dab_geom *g, dab_nn_side a, dab_nn_side b, uint64_t seed);

/*
** Every one of the n nets plays `games` games against heuristic `level`
** (colours alternate, game k first for the net when k is even; game k's
** rng is seeded from (seed, k) for every net).  win[i] (and tie[i] unless
** tie is NULL) get net i's shares.  Runs on `threads` threads; the result
** does not depend on their number.
*/
void dab_nn_eval(const dab_geom *g, const dab_nn *nets, int n, int level, int games, int threads,
                 uint64_t seed, double *win, double *tie);

/* Calls fn(ctx, i) for i in 0..n-1 on up to `threads` threads (the
** caller's included), in no particular order; returns when all are done.
** Threads that cannot be started leave their share to the others. */
void dab_nn_parallel(int threads, int n, void (*fn)(void *ctx, int i), void *ctx);

/* ======================================================================
** The genotype
** ======================================================================
**
** Each weight is a 10-bit integer k (0..1023) for the value
** -64 + 128 k / 1023: 1024 evenly spaced values on [-64, 64], spacing
** 0.1251.  There is no zero: the nearest values are -0.0626 (511) and
** +0.0626 (512).  Bits are numbered from the first gene's most
** significant bit: bit 10 g + t is bit 9 - t of gene g.
*/

#define DAB_NN_GENE_BITS 10
#define DAB_NN_GENE_VALUES 1024

static inline double dab_nn_gene_value(int k) { return -64.0 + 128.0 * k / 1023.0; }

/* Sets every weight of nn from genes (dab_nn_nweights entries). */
void dab_nn_decode(dab_nn *nn, const uint16_t *genes);

/* ======================================================================
** GA operators (agents/ga.c)
** ======================================================================
*/

/*
** Goldberg's linear fitness scaling (Genetic Algorithms, pp. 76-79):
** f' = a f + b with the mean kept and the best at cmult times the mean,
** so that proportional selection gives the best cmult expected copies
** (the paper: 10% of 100, cmult = 10).  Where that would make some f'
** negative, the scaling instead maps the worst to 0 and keeps the mean.
** All equal: unchanged.  raw and scaled may alias.
*/
void dab_ga_scale(const double *raw, double *scaled, int n, double cmult);

/* Proportional (roulette-wheel) selection: index i with probability
** fit[i] / total (fit >= 0, total > 0 their sum). */
int dab_ga_select(const double *fit, int n, double total, dab_rng *rng);

/*
** Single-point crossover at bit `point` (1 .. 10*ngenes-1): c1 gets a's
** bits before it and b's from it on, c2 the opposite.  c1/c2 may not
** alias a/b.
*/
void dab_ga_crossover(const uint16_t *a, const uint16_t *b, uint16_t *c1, uint16_t *c2, int ngenes,
                      int point);

/* Flips each of the 10*ngenes bits independently with probability p
** (geometric skips).  RETURN: bits flipped. */
long dab_ga_mutate(uint16_t *genes, int ngenes, double p, dab_rng *rng);

/* Uniformly random genes. */
void dab_ga_random(uint16_t *genes, int ngenes, dab_rng *rng);

typedef struct dab_ga_params {
  double crossover;  /* probability a selected pair is crossed (0.6) */
  double mutation;   /* per bit (0.005 or 0.00072) */
} dab_ga_params;

/*
** One generation: next[0] is a copy of the fittest of pop (single
** elitism: unchanged by crossover and mutation), the other n-1 are
** children of pairs drawn by proportional selection on fit (crossed with
** probability par->crossover at a uniform point, then mutated).
** pop and next: n * ngenes genes, not aliasing.
** RETURN: the index in pop of the elite.
*/
int dab_ga_generation(const uint16_t *pop, const double *fit, int n, int ngenes, uint16_t *next,
                      const dab_ga_params *par, dab_rng *rng);

/* ---- Fitness schemes ---------------------------------------------------
**
** A two-game match (each side first once) between members a and b (or
** the fixed opponent, b < 0) returns 3 w + t: w games won by a, t tied
** (w + t <= 2).  The schemes take the matches as a callback so that
** tests can stub them.
*/
typedef int (*dab_ga_match_fn)(void *ctx, int a, int b, uint64_t seed);

/* Direct: score of member i = sum over its `matches` two-game matches
** against the fixed opponent (callback b = -1-k for match k) of 1 (both
** games won), 1/2 (one) or 0; plus bonus; then dab_ga_scale(cmult) when
** cmult > 1. */
void dab_ga_fitness_direct(int n, int matches, dab_ga_match_fn fn, void *ctx, uint64_t seed,
                           double bonus, double cmult, double *fit);

/* Round robin: every pair once; the match winner (more half games: a
** win 2, a tie 1) scores 1, a drawn match 1/2 each; plus bonus; no
** scaling. */
void dab_ga_fitness_roundrobin(int n, dab_ga_match_fn fn, void *ctx, uint64_t seed, double bonus,
                               double *fit);

/*
** Antibody/antigen implicit fitness sharing: round(antigen_share * n)
** antigens drawn at random; each meets round(antibody_share * n) others
** (drawn at random, not itself) as antibodies in a two-game match.  Each
** antigen's `points` are shared among the antibodies that beat it: 4
** shares for winning both games, 1 for one win (a tie is no win); nothing
** to the rest, nothing to antigens as antigens.  Plus bonus; no scaling.
** RETURN: matches played.
*/
long dab_ga_fitness_ifs(int n, double antigen_share, double antibody_share, double points,
                        dab_ga_match_fn fn, void *ctx, dab_rng *rng, uint64_t seed, double bonus,
                        double *fit);

#endif
