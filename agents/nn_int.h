/*
** nn_int.h: internals shared by the nn training modules (not a public header).
** See Copyright Notice in README.md
*/
#ifndef DAB_NN_INT_H
#define DAB_NN_INT_H

#include "agents/agent.h"
#include "agents/nn.h"

enum { NN_DIRECT, NN_ROUNDROBIN, NN_IFS, NN_BACKPROP, NN_ORACLE, NN_OFIT };
#define NN_METHODS "direct|roundrobin|ifs|backprop|oracle|oracle-fitness"
/* Oracle targets: 2^-(boxes lost) per output through its sigmoid, or a
** softmax over the legal moves with all probability on the optimal ones. */
enum { NN_LOSS_SIGMOID, NN_LOSS_SOFTMAX };

typedef struct nn_opts {
  int method, opponent, init;     /* opponent: heuristic level; init: 0 genotype, 1 small */
  long population, matches, eval_games, hidden, hidden2;
  int loss;                       /* oracle: NN_LOSS_SIGMOID or NN_LOSS_SOFTMAX */
  double mutation, crossover, share, antigens, antibodies, points;
  /* backprop / oracle */
  long runs, sets, set_games, positions, rounds;
  double rate;
} nn_opts;

typedef struct nn_run {
  dab_train_ctx *t;
  const dab_geom *g;
  nn_opts o;
  const dab_oracle *oracle;       /* NULL where no oracle covers the board */
  char params[1024];              /* the options as model params */
  char columns[512];
  double last_step;               /* the step of the last row logged (-1: none) */
} nn_run;

/*
** Evaluates every net of nets[0..n) against level0 and level1
** (o.eval_games each), grades the one with the best sum with the oracle,
** and logs one row: games, seconds, step, then win_best/win_mean against
** both, then the graded net's DAB_GRADE_COLUMNS (when an oracle covers
** the board).  *best gets the graded net's index.
** RETURN: DAB_OK, or the grading's or the log's error.
*/
dab_status nn_snapshot(nn_run *r, const dab_nn *nets, int n, double games, double step, int *best,
                       dab_err *err);

/* The params a checkpoint carries: r->params and the run's length and
** snapshot schedule (total steps, snapshot every, grade games), so that
** a resume with other settings is refused rather than ending elsewhere. */
void nn_ckpt_params(const nn_run *r, long total, long snap, char *buf, size_t size);

/* Allocates n nets of the run's shape. RETURN: the array, or NULL. */
dab_nn *nn_nets_new(const nn_run *r, int n);
void nn_nets_free(dab_nn *nets, int n);

/* The two gradient methods (agents/nn_bp.c): backprop (the paper's
** benchmark) and oracle (exact targets). */
dab_status nn_train_bp(nn_run *r, dab_err *err);
dab_status nn_train_oracle(nn_run *r, dab_err *err);

#endif
