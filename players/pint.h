/*
** pint.h: internals shared by the player modules (not a public header).
** See Copyright Notice in README.md
*/
#ifndef DAB_PINT_H
#define DAB_PINT_H

#include <stdio.h>
#include "players/player.h"

/* Parsed options of a spec: "key=value" pairs, or bare words (value ""). */
#define PL_MAX_OPTS 12
typedef struct pl_opts {
  int n;
  char key[PL_MAX_OPTS][32];
  char val[PL_MAX_OPTS][64];
  bool used[PL_MAX_OPTS];
} pl_opts;

typedef struct pl_ops {
  int (*move)(dab_player *p, const dab_game *game, dab_rng *rng);
  void (*free_impl)(void *impl);
} pl_ops;

struct dab_player {
  const pl_ops *ops;
  dab_geom geom;
  dab_player_env *env;
  void *impl;                 /* the kind's own state */
  int kind;                   /* one of the PL_* codes below */
  char name[160];
  dab_cancel_flag *cancel;    /* dab_player_set_cancel; NULL: none */
};

enum { PL_RANDOM, PL_LEVEL1, PL_LEVEL2, PL_CHAIN, PL_MCTS, PL_MCTS_BZ, PL_SW, PL_AB, PL_PERFECT,
       PL_CUSTOM, PL_MCTS_OS };

/* Option helpers: each returns DAB_OK or DAB_EINPUT with a message naming
** the player and the option.  A missing key leaves *out unchanged. */
dab_status pl_opt_long(pl_opts *o, const char *who, const char *key, long lo, long hi, long *out,
                       dab_err *err);
dab_status pl_opt_double(pl_opts *o, const char *who, const char *key, double lo, double hi,
                         double *out, dab_err *err);
/* Returns the value of key (marking it used), or NULL. */
const char *pl_opt_str(pl_opts *o, const char *key);

/* Each kind's constructor fills p->ops, p->impl and p->name; it must mark
** every option it understands as used (the caller rejects the rest). */
dab_status pl_new_simple(dab_player *p, pl_opts *o, dab_err *err);
dab_status pl_new_mcts(dab_player *p, pl_opts *o, dab_err *err);
dab_status pl_new_mcts_os(dab_player *p, pl_opts *o, dab_err *err);
dab_status pl_new_sw(dab_player *p, pl_opts *o, const char *size, dab_err *err);
dab_status pl_new_ab(dab_player *p, pl_opts *o, dab_err *err);
dab_status pl_new_perfect(dab_player *p, pl_opts *o, dab_err *err);

/* Largest window table: 2^PL_MAX_WINDOW_LINES bytes (3x3 has 24 lines);
** bigger windows are read through the oracle, one call per value. */
#define PL_MAX_WINDOW_LINES 26

/*
** Sliding-window tables: the value of every position of a KxL board, one
** int8_t per position indexed by its line bits.  Built once per env (the
** window board's retrograde table) and then read-only.  RETURN: DAB_OK and
** *out (owned by env); DAB_EBOARD above PL_MAX_WINDOW_LINES lines.
*/
dab_status pl_env_window_table(dab_player_env *env, int rows, int cols, const int8_t **out,
                               dab_err *err);

/* Simulations per second of one search from game (benchmarks; mcts only). */
double pl_mcts_rate(dab_player *p, const dab_game *game, dab_rng *rng);

/* ---- Tactics on any board (multi-word line sets) --------------------- */

/* True when drawing undrawn line m puts a third side on some box. */
static inline bool pl_gives_third(const dab_geom *g, const dab_lineset *s, int m) {
  for (int j = 0; j < 2; j++) {
    int b = g->line_box[m][j];
    if (b >= 0 && dab_box_sides(g, s, b) == 2) return true;
  }
  return false;
}

/* A "safe capture": line m completes a box and gives no third side to the
** other box beside it.  Always an optimal move (see field-notes.md). */
static inline bool pl_safe_capture(const dab_geom *g, const dab_lineset *s, int m) {
  return dab_completes(g, s, m) > 0 && !pl_gives_third(g, s, m);
}

/* Legal moves sorted into classes (any may be empty).  Lists hold lines. */
typedef struct pl_moves {
  int n, ncap, nsafecap, nsafe;
  int16_t all[DAB_MAX_LINES];
  int16_t cap[DAB_MAX_LINES];      /* complete a box */
  int16_t safecap[DAB_MAX_LINES];  /* complete a box, no third side elsewhere */
  int16_t safe[DAB_MAX_LINES];     /* complete nothing, give no third side */
} pl_moves;

void pl_classify(const dab_geom *g, const dab_lineset *s, pl_moves *mv);

/* Boxes the player to move can take by capturing greedily from s (every
** capturable box, chain after chain); *after gets the line set reached. */
int pl_greedy_captures(const dab_geom *g, const dab_lineset *s, dab_lineset *after);

/* The undrawn line of box b other than `from` (-1: the first), or -1. */
int pl_other_line(const dab_geom *g, const dab_lineset *s, int b, int from);

/*
** Box b is capturable (one undrawn line) and starts a run through
** degree-2 boxes.  When exactly 2 boxes are left of a run that ends on
** the ground (a chain), or 4 of a run whose far end is capturable too (an
** opened loop), returns the double-dealing line (all-but-two: the far
** ground string; all-but-four: the middle string) and sets *is_loop.
** RETURN: that line, or -1 when b is not at such a point.
*/
int pl_decline_line(const dab_geom *g, const dab_lineset *s, int b, bool *is_loop);

static inline int pl_pick(dab_rng *rng, const int16_t *list, int n) {
  return list[dab_rng_below(rng, n)];
}

#endif
