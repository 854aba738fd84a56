/*
** az_int.h: internals shared by az_train.c, az_loop.c and az_selfplay.c (not public).
** See Copyright Notice in README.md
*/
#ifndef DAB_AZ_INT_H
#define DAB_AZ_INT_H

#include <sys/types.h>
#include "agents/agent.h"
#include "agents/az.h"
#include "symmetry/sym.h"

typedef struct az_opts {
  bool backward, theorems, augment, chainloop, margin, table, prefix_random, adam_reset;
  double hours, c, decay, lr, l2, filter, noise_eps, mqth, nvth, mqrth, nvrth, temp_frac;
  long sims, blocks, filters, vhidden, vfilters, games, replay, batch, epochs, mit, eval_per_step, max_steps;
  long min_batches;   /* the trainer shrinks the batch to make >= this many steps an epoch (0: never) */
  long eval_batch;    /* self-play games in flight per thread, evaluated together (not a
                         training setting: a checkpoint does not store it) */
  bool eval_given;    /* --eval-per-step was given: a board without an oracle is then an
                         error, not an ungraded run (not stored either) */
  bool net_given;     /* --blocks, --filters, --vhidden or --vfilters was given (not stored) */
  char trainer[4096];
  char init[4096];    /* --init=FILE: the model whose net starts the run ("": a fresh
                         net; not stored: a checkpoint holds the net itself) */
} az_opts;

/* One training sample, before augmentation. */
typedef struct az_sample {
  uint64_t lines;
  int16_t score_rel;     /* mover's boxes minus the opponent's */
  int16_t pad;
  int32_t iter;          /* the iteration that made it */
  float z;               /* value target for the mover */
  float pi[64];          /* policy target over lines */
} az_sample;

/* What self-play needs of a run. */
typedef struct az_play {
  const dab_geom *g;
  const az_opts *o;
  const dab_az_net *net;
  uint64_t seed;
  long iter, step_k;     /* step_k: lines left undrawn at a game's start */
} az_play;

/* One game's samples (tree nodes, then its root positions) and its
** advancement counts: positions with a choice, Q and net value confident;
** oom: the game ran out of memory (its samples are incomplete). */
typedef struct az_game_out {
  az_sample *s;
  int n, cap;
  int npos, nmq, nnv;
  bool oom;
} az_game_out;

/*
** Plays iteration play->iter's ngames self-play games on threads threads,
** game gi's samples into outs[gi] (zeroed by the caller, who frees each
** outs[gi].s).  Game gi is seeded by (seed, iter, gi) alone, so outs do
** not depend on threads or o->eval_batch (games in flight per thread,
** their positions evaluated in one batch).
** RETURN: DAB_OK; DAB_ENOMEM; DAB_ECANCELED when *cancel was raised.
*/
dab_status az_play_games(const az_play *play, long ngames, int threads, dab_cancel_flag *cancel,
                         az_game_out *outs, dab_err *err);

typedef struct az_testpos {
  uint64_t lines;
  int16_t score_rel, step;
} az_testpos;

typedef struct az_measure_out {
  long n[64];
  double opt_policy[64], opt_mcts[64], kept_policy[64], kept_mcts[64], verr[64];
  double all_opt_policy, all_opt_mcts, all_kept_policy, all_kept_mcts, rmse;
} az_measure_out;

void az_opts_default(az_opts *o);
/* The options as "name=value" lines (v=2 first; not the trainer path):
** what a checkpoint stores, independent of this struct's layout.
** RETURN: the text's length, or -1 when it does not fit in cap. */
int az_opts_write(const az_opts *o, char *out, size_t cap);
/* Reads az_opts_write's text over *o (names it lacks keep *o's values).
** RETURN: DAB_OK; DAB_ECORRUPT (err: the first bad line) for another
** version, an unknown name or a value that does not parse. */
dab_status az_opts_read(az_opts *o, const char *text, size_t n, dab_err *err);
/* Reads t's --KEY=VALUE options over *o (keys not given keep *o's values).
** RETURN: DAB_OK; DAB_EINPUT naming the option for a bad value. */
dab_status az_opts_parse(dab_train_ctx *t, az_opts *o, dab_err *err);
dab_status az_find_trainer(char *out, size_t cap, dab_err *err);
/* Checks $DAB_AZ_DEVICE's name (unset, empty, cpu, cuda, cuda:N, auto).
** RETURN: DAB_OK; DAB_EINPUT (err names it) for any other text. */
dab_status az_check_device_env(dab_err *err);

/* The trainer in a checkout, relative to its root. */
#define AZ_TRAINER_PATH "python/dab/az_train.py"

/* A running `python/dab/az_train.py serve`: torch is imported once per run,
** not once per training pass (2.3 s each). */
typedef struct az_trainer {
  pid_t pid;         /* -1 when not running */
  int fd;            /* our end of the socket pair, -1 when closed */
  double cpu_s;      /* the trainer's CPU seconds at its last answer */
  char log[128];     /* its stderr */
} az_trainer;

/* Starts the trainer script in serve mode, its stderr into log.
** RETURN: DAB_OK; DAB_EIO when it cannot be started (tr is then not
** running and az_trainer_stop is a no-op). */
dab_status az_trainer_start(az_trainer *tr, const char *script, const char *log, dab_err *err);
/* Sends one command (argv, NULL-terminated, no tabs or newlines) and
** waits for its answer; line gets the command's result line.
** RETURN: DAB_OK; DAB_EIO with the trainer's error (it lives on), or
** when it died (its log's last line; it is then stopped); DAB_ECANCELED
** when it died of SIGINT; DAB_EINPUT for an argument it cannot carry. */
dab_status az_trainer_call(az_trainer *tr, const char *const *argv, char *line, size_t cap,
                           dab_err *err);
/* Ends the trainer and waits for it (its CPU time then counts in
** RUSAGE_CHILDREN, so cpu_s drops to 0).  Safe on a stopped trainer. */
void az_trainer_stop(az_trainer *tr);
/* Runs a trainer command with the net options and extra args; loads the
** weights it writes to wpath into *net. */
dab_status az_python_net(az_trainer *tr, const dab_geom *g, const az_opts *o,
                         const char *const *extra, const char *wpath, dab_az_net **net, char *line,
                         size_t cap, dab_err *err);
dab_status az_write_samples(const char *path, const dab_geom *g, const dab_az_net *net,
                            const dab_sym *sym, bool augment, const az_sample *s, size_t n,
                            long iter_now, double decay, size_t *written, dab_err *err);
/* Positions from random play: per_step at every step 0..nlines-2. */
int az_random_positions(const dab_geom *g, int per_step, uint64_t seed, az_testpos *out, int cap);
/* Positions from the model's own games: per_step games from the empty board,
** each move sampled from the policy head (temperature 1); every game gives
** its position at every step 0..nlines-2.  RETURN: positions written (0 when
** out of memory). */
int az_own_positions(const dab_geom *g, dab_az_model *m, int per_step, uint64_t seed,
                     az_testpos *out, int cap);
/* Grades the policy argmax, the search's move (sims) and the value head
** on the positions against the oracle (n[step] = positions graded). */
void az_measure(const dab_geom *g, const dab_oracle *oracle, dab_az_model *m, long sims,
                const az_testpos *tp, int ntp, az_measure_out *out);

#endif
