/*
** q.h: tabular Q-learning by self-play on boards of up to 20 lines, with
** the oracle's move values as the exact Q to measure against.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_Q_H
#define DAB_Q_H

#include "agents/agent.h"

/* Largest board: 2^20 positions x 20 moves x 4 bytes = 80 MiB of Q. */
#define DAB_Q_MAX_LINES 20

enum { DAB_Q_EGREEDY = 0, DAB_Q_LENIENT = 1 };
enum { DAB_Q_BACKWARD = 0, DAB_Q_FORWARD = 1 };

typedef struct dab_q_opts {
  int policy;           /* DAB_Q_EGREEDY or DAB_Q_LENIENT */
  int replay;           /* order of an episode's updates */
  double alpha;         /* learning rate, (0, 1] */
  double eps_end;       /* epsilon_k = e + (1 - e) exp(-decay k / N) */
  double decay;
  double t_start, t_end;  /* T_k = Ts (Te/Ts)^(k/N) */
  double kappa;         /* leniency: targets gathered per update (>= 1) */
  long episodes;        /* N */
} dab_q_opts;

/* Defaults: egreedy, backward, alpha 1, eps 1 -> 0.01 with decay 5,
** T 80 -> 0.01, kappa 2, 100000 episodes. */
void dab_q_opts_default(dab_q_opts *o);

/*
** A Q table: q[p * nlines + m] for every line set p (2^nlines of them)
** and line m (undrawn lines only are meaningful).  Values in Wilson's
** convention: net boxes for the player to move after playing m.
*/
typedef struct dab_q {
  dab_geom g;
  int nlines;
  uint64_t npos;
  float *q;
} dab_q;

/* A learner: the table, its exploration state and its rng. */
typedef struct dab_q_learner dab_q_learner;

/*
** Makes a learner with every Q at 0, its rng seeded from seed.
** RETURN: DAB_OK and *out; DAB_EBOARD above DAB_Q_MAX_LINES lines;
** DAB_EINPUT for options out of range; DAB_ENOMEM.
*/
dab_status dab_q_learner_new(const dab_geom *g, const dab_q_opts *o, uint64_t seed,
                             dab_q_learner **out, dab_err *err);
void dab_q_learner_free(dab_q_learner *l);

/* The learner's table (owned by it) and its episodes played so far. */
const dab_q *dab_q_learner_table(const dab_q_learner *l);
long dab_q_learner_episode(const dab_q_learner *l);

/* Plays self-play episodes until `until` have been played in all, or the
** cancel flag rises (checked between episodes).  Single-threaded and
** deterministic given the seed.  RETURN: episodes played so far. */
long dab_q_learner_run(dab_q_learner *l, long until, dab_cancel_flag *cancel);

/*
** Exact Q for every position: ex[p * nlines + m] = the oracle's value of
** move m in p (INT8_MIN for drawn lines).  RETURN: DAB_OK and *out
** (malloc'd); the oracle's error; DAB_ENOMEM.
*/
dab_status dab_q_exact(const dab_geom *g, const dab_oracle *o, int8_t **out, dab_err *err);

/* Over every position with an undrawn line: rmse of Q against ex, and the
** share of positions whose greedy moves (every move tied at the top Q)
** are all optimal. */
void dab_q_measure(const dab_q *q, const int8_t *ex, double *rmse, double *opt_all);

/* The greedy move in game (ties at random from rng); -1 when over. */
int dab_q_move(const dab_q *q, const dab_game *game, dab_rng *rng);

/* Writes / reads a model file of kind "q" (the table as little-endian
** float32).  dab_q_load: RETURN as dab_model_read, plus DAB_EBOARD for a
** model of another board than g (g NULL: any) and DAB_ECORRUPT for a
** payload of the wrong size.  *out is malloc'd (dab_q_free). */
dab_status dab_q_save(const char *path, const dab_q *q, const char *params, dab_err *err);
dab_status dab_q_load(const char *path, const dab_geom *g, dab_q **out, dab_err *err);
void dab_q_free(dab_q *q);

#endif
