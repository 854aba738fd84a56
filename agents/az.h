/*
** az.h: BoxesZero and AlphaZero (seed paper 001): a residual policy-value
** network evaluated in C, PUCT search with the mcts-bz prunings, self-play.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_AZ_H
#define DAB_AZ_H

#include <stddef.h>
#include "game/board.h"
#include "game/sc.h"
#include "players/mcts_bz.h"
#include "game/rng.h"

/* ======================================================================
** The network
** ======================================================================
**
** Input: 3 planes on the (2R+1) x (2C+1) grid of dots, lines and boxes
** (a line or box sits at its cell: horizontal line (r,c) at (2r, 2c+1),
** vertical (r,c) at (2r+1, 2c), box (r,c) at (2r+1, 2c+1)):
**   plane 0  1 at every drawn line
**   plane 1  1 at every taken box (4 sides drawn)
**   plane 2  (mover's boxes - opponent's) / boxes, everywhere
** Trunk: conv3x3 (3 -> F) + ReLU, then B residual blocks
** (conv3x3 + ReLU + conv3x3, + skip, ReLU).  No batch norm: the trainer
** starts each block as the identity instead (its last conv is zero).
** Policy head: conv1x1 (F -> 2) + ReLU, linear (2HW -> lines): logits.
** Value head: conv1x1 (F -> 1) + ReLU, linear (HW -> V) + ReLU,
** linear (V -> 1), tanh: the value for the player to move.
**
** Weights: float32 little-endian, in this order (PyTorch's layouts:
** conv weight [out][in][ky][kx], linear weight [out][in]):
**   stem.w [F][3][3][3], stem.b [F];
**   per block: c1.w [F][F][3][3], c1.b [F], c2.w [F][F][3][3], c2.b [F];
**   pconv.w [2][F], pconv.b [2], pfc.w [L][2HW], pfc.b [L];
**   vconv.w [1][F], vconv.b [1], vfc1.w [V][HW], vfc1.b [V],
**   vfc2.w [1][V], vfc2.b [1].
** python/dab/az_train.py writes exactly this blob.
*/

#define DAB_AZ_PLANES 3
#define DAB_AZ_MAX_BLOCKS 20

typedef struct dab_az_net {
  int rows, cols, h, w, hw, nlines, nboxes;
  int blocks, filters, vhidden, vfilters;
  size_t nweights;
  float *weights;               /* owned */
  const float *stem_w, *stem_b, *blk_w[2 * DAB_AZ_MAX_BLOCKS], *blk_b[2 * DAB_AZ_MAX_BLOCKS];
  const float *pconv_w, *pconv_b, *pfc_w, *pfc_b;
  const float *vconv_w, *vconv_b, *vfc1_w, *vfc1_b, *vfc2_w, *vfc2_b;
  int16_t line_cell[DAB_MAX_LINES];   /* grid cell of each line */
  int16_t box_cell[DAB_MAX_BOXES];
} dab_az_net;

/* Number of float weights of a net with these dimensions (vfilters: the
** value head's 1x1 convolution channels; 1 is AlphaZero's). */
size_t dab_az_net_size(int rows, int cols, int blocks, int filters, int vhidden, int vfilters);

/*
** Makes a net from weights[0..n) (copied).  RETURN: DAB_OK and *out;
** DAB_EINPUT when a dimension is out of range (blocks 0..20, filters
** 1..256, vhidden 1..1024, vfilters 1..64, board of at most 64 lines) or n is not
** dab_az_net_size; DAB_ECORRUPT when a weight is not finite; DAB_ENOMEM.
*/
dab_status dab_az_net_new(int rows, int cols, int blocks, int filters, int vhidden, int vfilters,
                          const float *weights, size_t n, dab_az_net **out, dab_err *err);
void dab_az_net_free(dab_az_net *net);

/* Scratch memory for forward passes of up to `batch` positions; one per
** thread (the net itself is read-only and shared).  NULL when out of memory. */
typedef struct dab_az_scratch dab_az_scratch;
dab_az_scratch *dab_az_scratch_new(const dab_az_net *net, int batch);
void dab_az_scratch_free(dab_az_scratch *s);

/* Fills planes[3*h*w] for lines p with score_rel = mover's boxes minus
** the opponent's so far. */
void dab_az_encode(const dab_az_net *net, const dab_geom *g, uint64_t p, int score_rel,
                   float *planes);

/*
** Forward pass of nb positions (nb <= the scratch's batch): planes holds
** nb * 3*h*w floats; writes logits[nb * nlines] and value[nb].
*/
void dab_az_forward(const dab_az_net *net, dab_az_scratch *s, int nb, const float *planes,
                    float *logits, float *value);
/* Its two builds (game/isa.h): dab_az_forward calls the one the CPU has;
** both give the same bits. */
void dab_az_forward_base(const dab_az_net *net, dab_az_scratch *s, int nb, const float *planes,
                         float *logits, float *value);
void dab_az_forward_v3(const dab_az_net *net, dab_az_scratch *s, int nb, const float *planes,
                       float *logits, float *value);

/* ======================================================================
** PUCT search
** ======================================================================
*/

/* An evaluator: the prior over lines (prior[nlines], need not be
** normalised; only undrawn lines are read) and the value of st for its
** player to move, in [-1, 1].  The network's, or (tests) a uniform prior
** with random rollouts. */
typedef void (*dab_az_eval_fn)(void *ctx, const dab_geom *g, const pl_mstate *st, dab_rng *rng,
                               float *prior, float *value);

typedef struct dab_az_search_opts {
  long sims;             /* simulations per search (>= 1) */
  double c_puct;         /* exploration constant (the paper: 2) */
  bool chainloop;        /* mcts-bz's macro moves and opening pruning */
  bool theorems;         /* exact values of simple loony endgames */
  bool margin;           /* values are margins / boxes, not win/draw/loss */
  double noise_eps;      /* root Dirichlet noise weight, 0 = none */
  double noise_alpha;
  double filter;         /* > 0: collect tree nodes with >= filter * root visits */
  int max_nodes;         /* tree size limit (0 = 1 << 20) */
} dab_az_search_opts;

typedef struct dab_az_search dab_az_search;

/* A tree-node sample (filtered nodes): the state, its policy target over
** lines, and its mean value for the player to move. */
typedef struct dab_az_node_sample {
  pl_mstate st;
  float pi[DAB_MAX_LINES];
  float q;
} dab_az_node_sample;

typedef struct dab_az_result {
  int nchild;
  int16_t move[DAB_MAX_LINES];     /* children: lines or PL_MACRO_* */
  int16_t line[DAB_MAX_LINES];     /* each child's first line */
  uint32_t visits[DAB_MAX_LINES];
  float pi[DAB_MAX_LINES];         /* visit shares summed per first line */
  double q;                        /* root mean value for the player to move */
  float net_value;                 /* the evaluator's value of the root */
  int nsamples;                    /* filtered tree nodes (filter > 0) */
} dab_az_result;

/* The child of a search result a game plays: with sample, drawn in
** proportion to its visits (self-play's temperature 1, from rng);
** otherwise the most visited (the first of equals).  RETURN: its index. */
int dab_az_pick(const dab_az_result *r, bool sample, dab_rng *rng);

/* A line drawn from prior over the n legal lines mv (prior indexed by
** line, as the evaluator writes it), one dab_rng_unit from rng; fallback
** when the prior's mass runs out first (rounding).  RETURN: the line. */
int dab_az_prior_pick(const float *prior, const int16_t *mv, int n, int fallback, dab_rng *rng);

/* BoxesZero's published advancement table for a backward run on nlines
** lines at stage k (k lines left to play): the root noise weight and the
** advancement threshold mqth of its row. */
void dab_az_table_row(int nlines, int k, double *noise, double *mqth);

/* RETURN: a search object (one per thread), or NULL when out of memory.
** fn may be NULL where only the resumable form below is used. */
dab_az_search *dab_az_search_new(const dab_geom *g, const dab_az_search_opts *o, dab_az_eval_fn fn,
                                 void *ctx);
void dab_az_search_free(dab_az_search *s);

/*
** Searches from root.  Fills *r; where o->filter > 0, the filtered tree
** nodes are kept in the search (dab_az_search_samples).
** RETURN: DAB_OK; DAB_EINPUT when root has no move; DAB_ENOMEM when the
** tree cannot hold the root's children.
*/
dab_status dab_az_search_run(dab_az_search *s, const pl_mstate *root, dab_rng *rng,
                             dab_az_result *r, dab_err *err);

/*
** The same search, resumable, for callers that evaluate the leaves of
** several searches together (self-play batches them across games):
**   dab_az_search_begin(s, root, rng, err);
**   while ((leaf = dab_az_search_leaf(s)))  evaluate *leaf, then
**     dab_az_search_feed(s, prior, value, err);
**   dab_az_search_result(s, r);
** It draws from rng exactly as dab_az_search_run does with an evaluator
** that draws nothing (the net's), so the two give the same result.
** begin RETURN: DAB_OK; DAB_EINPUT when root has no move; DAB_ENOMEM.
** leaf RETURN: the state awaiting its evaluation (valid until the next
** feed), or NULL when the search is done.
** feed: prior and value as an evaluator writes them.  RETURN: DAB_OK;
** DAB_ENOMEM when the tree cannot hold the root's children (the search
** is then over and has no result).
** NOTES: rng must live until the search is done.
*/
dab_status dab_az_search_begin(dab_az_search *s, const pl_mstate *root, dab_rng *rng, dab_err *err);
const pl_mstate *dab_az_search_leaf(const dab_az_search *s);
dab_status dab_az_search_feed(dab_az_search *s, const float *prior, float value, dab_err *err);
void dab_az_search_result(dab_az_search *s, dab_az_result *r);

/* The filtered tree nodes of the last run (r->nsamples of them). */
const dab_az_node_sample *dab_az_search_samples(const dab_az_search *s);

/* The evaluator of a net: ctx is a dab_az_evaluator. */
typedef struct dab_az_evaluator {
  const dab_az_net *net;
  dab_az_scratch *scratch;
  long evals;
} dab_az_evaluator;
void dab_az_net_eval(void *ctx, const dab_geom *g, const pl_mstate *st, dab_rng *rng, float *prior,
                     float *value);
/* The prior of a position with lines drawn, from the net's logits: the
** softmax over the undrawn lines (0 on drawn ones), as dab_az_net_eval
** writes it. */
void dab_az_prior_of(const dab_geom *g, uint64_t drawn, const float *logits, float *prior);

/* The uniform-prior, random-rollout evaluator (ctx: a bool *, true for
** theorem-scored rollouts; win/draw/loss values). */
void dab_az_rollout_eval(void *ctx, const dab_geom *g, const pl_mstate *st, dab_rng *rng,
                         float *prior, float *value);

/* ======================================================================
** Model files (kind "az") and the player
** ======================================================================
**
** Params: blocks, filters, vhidden, vfilters (absent: 1), sims, c,
** chainloop, theorems, value (wdl|margin) and the training run's
** settings; the payload is the weight blob.  A checkpoint (params checkpoint=1) appends the training state.
*/

typedef struct dab_az_model {
  dab_az_net *net;
  dab_az_search_opts search;
  char params[4097];
} dab_az_model;

/* Reads an az model for board g (NULL: any board); a checkpoint gives
** its net and search settings (its training state is skipped), so a
** stopped run plays as `az:CHECKPOINT`.  RETURN: DAB_OK and *out;
** dab_model_read's errors; DAB_EBOARD for another board; DAB_ECORRUPT
** when the params and the payload disagree. */
dab_status dab_az_model_load(const char *path, const dab_geom *g, dab_az_model **out, dab_err *err);
void dab_az_model_free(dab_az_model *m);

/* Writes an az model (net weights, search settings, extra params text). */
dab_status dab_az_model_save(const char *path, const dab_az_net *net, const dab_az_search_opts *so,
                             const char *extra_params, const void *extra, size_t extra_n,
                             dab_err *err);

/* The move the model's search plays (its most visited child's first
** line); sims <= 0: the policy head's argmax (no search). */
int dab_az_model_move(dab_az_model *m, const dab_geom *g, dab_az_search *s, dab_az_evaluator *ev,
                      const dab_game *game, dab_rng *rng);

/*
** Writes the model a stopped run's checkpoint holds to out: the same net,
** search settings and run params (iteration, games, step, seconds...), without
** the training state (replay buffer, options, Adam's moments), so a file that
** `az:FILE` plays is kilobytes, not megabytes.
** PARAMETERS: ckpt, an az checkpoint (params checkpoint=N); out, the model
** file to write (durably, as dab_model_write does).
** RETURN: DAB_OK; dab_az_model_load's errors for ckpt; DAB_EINPUT when ckpt
** is a finished model and not a checkpoint, or when out is ckpt itself
** (that would lose the training state); dab_model_write's errors (nothing
** is left at out then).
** NOTES: reentrant; the exported model plays move for move as the
** checkpoint does.
*/
dab_status dab_az_ckpt_export(const char *ckpt, const char *out, dab_err *err);

/* A checkpoint's model and the state after its weights (*extra malloc'd). */
dab_status dab_az_model_load_ckpt(const char *path, const dab_geom *g, dab_az_model **out,
                                  unsigned char **extra, size_t *extra_n, dab_err *err);

#endif
