/*
** arena.h: matches between two players, both colours, on several threads,
** every move scored against the oracle where one covers the board.  The
** `dab arena` command is a thin layer over this; learning agents use it
** to be graded.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_ARENA_H
#define DAB_ARENA_H

#include "game/progress.h"
#include "players/player.h"

/* Game phases for the blunder counts, by the share of lines drawn before
** the move: opening < 1/3, middle < 2/3, endgame the rest. */
enum { DAB_PHASE_OPENING = 0, DAB_PHASE_MIDDLE = 1, DAB_PHASE_ENDGAME = 2, DAB_PHASES = 3 };

/* One player's moves in one game (or summed over a match). */
typedef struct dab_side_stats {
  long moves;
  double seconds;                 /* wall time spent choosing moves */
  long scored;                    /* moves the oracle scored */
  long optimal;                   /* ... that kept the position's value */
  long lost;                      /* boxes of value lost, summed */
  long blunders[DAB_PHASES];      /* moves that lost value, by phase */
  long phase_moves[DAB_PHASES];   /* scored moves, by phase */
} dab_side_stats;

/* One game; index 0 is p1, 1 is p2 everywhere. */
typedef struct dab_game_record {
  bool done;                      /* false: not played (canceled or failed) */
  bool p1_first;                  /* p1 moved first (games 2k) */
  int score[2];                   /* boxes taken from the start on */
  int start_lines;
  dab_lineset start;
  dab_side_stats side[2];
} dab_game_record;

/*
** How to make a player: from a spec (see player.h), or by a callback the
** arena calls once per thread (for players the spec language does not
** know, e.g. a learning agent wrapped with dab_player_custom).
*/
typedef struct dab_match_player {
  const char *spec;
  dab_status (*make)(void *ctx, const dab_geom *g, dab_player **out, dab_err *err);
  void *ctx;
} dab_match_player;

typedef struct dab_match_opts {
  const dab_geom *g;
  dab_match_player player[2];
  dab_player_env *env;            /* for spec players; may be NULL if none needs it */
  const dab_oracle *oracle;       /* scores every move; NULL = no metrics */
  int games;                      /* games 2k and 2k+1 share a start, swap colours */
  int threads;                    /* 0 = 1 */
  uint64_t seed;                  /* every game's randomness derives from it */
  const dab_game *start;          /* fixed start, or NULL */
  double start_fraction;          /* >= 0 and no start: random starts with this
                                     share of lines drawn, no third side */
  dab_progress_fn progress;       /* optional, called from the calling thread */
  void *progress_ctx;
  dab_cancel_flag *cancel;        /* optional: stop; the players see it too, so a
                                     long move ends early and its game is dropped */
  int first_game;                 /* games are numbered first_game + i (seeds,
                                     colours, shared starts); records[i] is game
                                     first_game + i.  0 for a whole match; an even
                                     number for a long match run in chunks */
} dab_match_opts;

/*
** Plays the match; records[] (opts->games entries) gets every game.
** A match of more games than fit in memory runs in chunks of any even
** size (first_game 0, C, 2C, ...), each summarized and merged with
** dab_match_summary_merge: the games are the same as in one run.
** RETURN: DAB_OK; DAB_ECANCELED when canceled (records of the finished
** games are valid, the rest have done = false); DAB_EINPUT when a player
** cannot be made; DAB_EINTERNAL when a player plays an illegal line (the
** message names it).  Thread-safe (no shared state besides opts->env and
** opts->oracle, which are).
*/
dab_status dab_match_run(const dab_match_opts *opts, dab_game_record *records, dab_err *err);

/* A match's totals, from the records that are done. */
typedef struct dab_match_summary {
  int games, wins[2], ties;
  double margin;                  /* p1's mean points minus p2's, per game */
  double margin_ci;               /* 95% half-width (normal approximation) */
  dab_side_stats side[2];
  double sum, sum2;               /* p1's points minus p2's: sum and sum of squares */
} dab_match_summary;

void dab_match_summarize(const dab_game_record *records, int games, dab_match_summary *s);

/* Adds the totals of part (a summary of other games) into s, margin and
** interval recomputed over both. */
void dab_match_summary_merge(dab_match_summary *s, const dab_match_summary *part);

/* A random start: lines drawn at random among those that give no box a
** third side, until the fraction of all lines is reached or none is left. */
void dab_random_start(const dab_geom *g, double fraction, dab_rng *rng, dab_game *game);

#endif
