/*
** ruleteam.h: teams of rule agents (seed papers 000 and 003): rule files, games, grading.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_RULETEAM_H
#define DAB_RULETEAM_H

#include "agents/agent.h"
#include "agents/rule.h"

/*
** One agent of a team: a rule and its numbers.  The artificial economy
** (econ) uses bid and wealth; concept accessibility (erl) uses q and f.
** fired, graded, optimal, lost: its moves so far and the oracle's grades
** of them (lost: boxes lost, summed).
*/
typedef struct dab_ragent {
  dab_rule rule;
  double q, f;
  double bid, wealth;
  long fired, graded, optimal;
  double lost;
  long born;             /* the game it was made in */
} dab_ragent;

/*
** RULE FILES are text, one rule per line with its numbers:
**
**   DABRULES 1                       magic and format version
**   board 3x3
**   kind erl                         econ or erl
**   params key=value,...             the run's settings (as model params)
**   rules N
**   q=.. f=.. bid=.. wealth=.. fired=.. graded=.. optimal=.. lost=.. born=.. | RULE TEXT
**   ... (N lines)
**   xxh3 HEX                         XXH3-64 (seed 0) of every byte above
**
** A wrong magic, version, kind or count, a checksum mismatch, a rule that
** does not parse or is invalid, or anything after the checksum line is
** refused.
*/
#define DAB_RULES_MAGIC "DABRULES"
#define DAB_RULES_VERSION 1

/* Writes n agents to path (atomically: PATH.tmp.PID, renamed).
** RETURN: DAB_OK; DAB_EINPUT for a kind or params with a newline; DAB_EIO. */
dab_status dab_rules_write(const char *path, int rows, int cols, const char *kind, const char *params,
                           const dab_ragent *a, int n, dab_err *err);

/*
** Reads a rule file.  want_kind: "econ", "erl", or NULL for either.
** On success *a is malloc'd (caller frees), *n its count; h gets the
** board, kind and params.
** RETURN: DAB_OK; DAB_EINPUT for a missing file, one that is not a rule
** file (no magic) or another kind; DAB_EIO; DAB_ECORRUPT (one line naming
** the file and the line) for any damage listed above; DAB_ENOMEM.
*/
dab_status dab_rules_read(const char *path, const char *want_kind, dab_model_header *h, dab_ragent **a,
                          int *n, dab_err *err);

/* ---- Games ------------------------------------------------------------- */

/* How the team chooses: returns the agent that acts (and *line, its
** move), or -1 with *line = -1 for a random move (the loop draws it).
** The system may add agents here (a new rule for an unmatched state). */
typedef int (*dab_rt_choose)(void *sys, const dab_sgraph *sg, const dab_game *game, dab_rng *rng,
                             int *line);

#define DAB_RT_MAX_FIRE 64

typedef struct dab_rt_game {
  /* In: */
  int team;              /* the team's colour: 0 moves first, 1 second */
  double opp_random;     /* the opponent plays a random line with this probability */
  double prefill;        /* share of lines drawn before the game (no third sides) */
  const dab_oracle *oracle;  /* grade the team's moves when not NULL */
  /* Out: */
  int diff;              /* team's boxes minus the opponent's */
  int moves, random_moves;   /* the team's moves; those no rule made */
  int nfire;
  int fire[DAB_RT_MAX_FIRE]; /* the agent of each rule move (may repeat) */
  int fire_optimal[DAB_RT_MAX_FIRE], fire_lost[DAB_RT_MAX_FIRE];
  long graded, optimal, kept, lost;   /* every team move graded (rule or random) */
} dab_rt_game;

/*
** Plays one game of the team (choose, sys) against opp (the chain player,
** mixed with random lines) on g.  Draws everything from rng.
** RETURN: DAB_OK; DAB_EINTERNAL when a choice is an illegal line; an
** oracle error.
*/
dab_status dab_rt_play(const dab_geom *g, dab_player *opp, dab_rt_choose choose, void *sys, dab_rng *rng,
                       dab_rt_game *gm, dab_err *err);

/* Draws random lines of s until `fraction` of g's lines are drawn or no
** line is left that keeps every box at two sides or fewer. */
void dab_rt_prefill(const dab_geom *g, dab_lineset *s, double fraction, dab_rng *rng);

/* The agents a player keeps: the team, greedy (highest bid or Q). */
typedef struct dab_rt_player {
  dab_geom g;
  int kind;              /* 0: econ (bid), 1: erl (q) */
  int n;
  dab_ragent *a;
  int *rank;             /* a ranked by dab_rt_rank */
} dab_rt_player;

/* The move fn of econ:FILE and erl:FILE players (ctx: a dab_rt_player). */
int dab_rt_player_move(void *ctx, const dab_geom *g, const dab_game *game, dab_rng *rng);

/* Builds the player for "KIND:FILE" (kind "econ" or "erl").  RETURN: as
** dab_rules_read, DAB_EBOARD for a file of another board. */
dab_status dab_rt_player_new(const char *kind, const char *args, const dab_geom *g, dab_player **out,
                             dab_err *err);

/* Ranks a team for its greedy choice: rank[0 .. n) gets 0 .. n-1 ordered
** by bid (kind 0, econ) or q (kind 1, erl), highest first, and the lower
** index first among equal values.  No memory is allocated. */
void dab_rt_rank(const dab_ragent *a, int n, int kind, int *rank);

/* The greedy choice of a team (highest bid for econ, highest q for erl;
** the lowest index among equals): the agent index and *line, or -1.
** rank: a's order from dab_rt_rank, or NULL.  With it the scan stops at
** the first rule that matches, so a team whose best rules match often
** costs a few rule tests a move instead of n; the choice is the same. */
int dab_rt_greedy(const dab_ragent *a, int n, int kind, const int *rank, const dab_sgraph *sg, int *line);

/*
** Grades every agent's rule over the positions of `games` games (the
** team, greedy, against `chain` with randomness opp_random, colours
** alternating: game k plays colour k & 1): per rule, the moves it made,
** how many were optimal and the boxes they lost.  Resets and fills
** graded/optimal/lost/fired.  Game k draws from the stream (seed, k); the
** games run on `threads` threads (each with its own opponent) and the
** result does not depend on how many.
** RETURN: DAB_OK; the opponent's, the oracle's or dab_rt_play's error;
** DAB_ENOMEM.
*/
dab_status dab_rt_grade_rules(const dab_geom *g, dab_ragent *a, int n, int kind, const dab_oracle *oracle,
                              int games, double opp_random, uint64_t seed, int threads, dab_err *err);

/*
** Grades each rule alone: over the positions of `games` games of random
** play from the empty board, every position a rule matches counts one
** firing of its move, graded by the oracle.  Resets and fills
** fired/graded/optimal/lost.  RETURN: DAB_OK or the oracle's error.
*/
dab_status dab_rt_grade_alone(const dab_geom *g, dab_ragent *a, int n, const dab_oracle *oracle, int games,
                              uint64_t seed, dab_err *err);

/* A greedy team's score over `games` games against `chain` (no
** randomness, empty board); team: its colour, or -1 for a random colour
** each game.  Graded by the oracle when one is given.  Game k draws from
** the stream (seed, k), on `threads` threads: the result does not depend
** on how many.  RETURN: as dab_rt_grade_rules. */
typedef struct dab_rt_eval_out {
  double win, draw, diff;        /* shares of games; mean box difference */
  double activity;               /* share of the team's moves a rule made */
  long graded;                   /* the team's moves graded (oracle given) */
  double optimal, kept, lost;    /* shares and mean boxes lost per move */
} dab_rt_eval_out;

dab_status dab_rt_eval(const dab_geom *g, const dab_ragent *a, int n, int kind, const dab_oracle *oracle,
                       int games, int team, uint64_t seed, int threads, dab_rt_eval_out *o, dab_err *err);

/* ---- Checkpoints (ruleteam_ckpt.c) ---------------------------------------
**
** A stopped `dab train econ|erl` run writes a checkpoint: a model file
** (agents/agent.h) of kind "econ" or "erl" whose params hold the run's
** settings and loop state (the trainer's: "checkpoint=1" among them) and
** whose payload holds the agents exactly, all integers little-endian:
**
**   uint32 n                        agents, in population order
**   per agent:
**     5 x float64 (IEEE bits)       q f bid wealth lost
**     4 x int64                     fired graded optimal born
**     6 x uint8                     nnodes act_a act_b act_pos act_pos_b act_prop
**     uint16 ntok
**     nnodes x 10 bytes             sym deg len plus, uint16 id, nb[4]
**     ntok x 2 bytes                node flags
**
** The rule's derived fields are recomputed (dab_rule_finish), so a
** resumed population matches exactly as the stopped one did (a rule's
** text would not: reparsing renumbers its unnumbered nodes).
*/

/* Writes the checkpoint.  RETURN: DAB_OK; DAB_ENOMEM; dab_model_write's
** errors. */
dab_status dab_rt_ckpt_write(const char *path, const dab_geom *g, const char *kind, const char *params,
                             const dab_ragent *a, int n, dab_err *err);

/*
** Reads a checkpoint of `kind` for board g: h gets its header (params),
** a[0 .. *n) the agents (at most cap).
** RETURN: DAB_OK; dab_model_read's errors; DAB_EBOARD for another board;
** DAB_EINPUT when it is not a checkpoint (no "checkpoint" param: a
** finished rule file or model); DAB_ECORRUPT for a payload of the wrong
** length, more than cap agents, or a rule that is out of range or invalid.
** Every message is one line naming the file.
*/
dab_status dab_rt_ckpt_read(const char *path, const dab_geom *g, const char *kind, dab_model_header *h,
                            dab_ragent *a, int cap, int *n, dab_err *err);

/* Params values (see dab_params_get): a number (strtod: decimal or the
** exact "%a" hex form), a whole number, an unsigned one.  RETURN: false
** when key is absent or its value malformed (*out unchanged). */
bool dab_rt_param_f64(const char *params, const char *key, double *out);
bool dab_rt_param_long(const char *params, const char *key, long *out);
bool dab_rt_param_u64(const char *params, const char *key, uint64_t *out);
/* The index of key's value among the '|'-separated choices, or -1. */
int dab_rt_param_choice(const char *params, const char *key, const char *choices);
/* Copies choice idx of the '|'-separated choices into buf (cap bytes; ""
** when there is no such choice) and returns buf. */
const char *dab_rt_choice_name(const char *choices, int idx, char *buf, size_t cap);

/* The rng state and match counters as one params value each
** ("s0:s1:s2:s3" in hex; "tests:prefiltered:..." in decimal): fmt writes
** into buf (cap bytes), parse returns false when malformed. */
void dab_rt_rng_fmt(const dab_rng *r, char *buf, size_t cap);
bool dab_rt_rng_parse(const char *params, const char *key, dab_rng *r);
void dab_rt_stats_fmt(const dab_rmatch_stats *s, char *buf, size_t cap);
bool dab_rt_stats_parse(const char *params, const char *key, dab_rmatch_stats *s);

/* Both trainers make the opponent "chain" for g.  RETURN: as dab_player_new. */
dab_status dab_rt_opponent(const dab_geom *g, dab_player **out, dab_err *err);

#endif
