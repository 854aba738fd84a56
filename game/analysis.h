/*
** analysis.h: the answer every oracle gives about a position: its value
** and the value of each legal move.
** See Copyright Notice in README.md
*/
#ifndef DAB_ANALYSIS_H
#define DAB_ANALYSIS_H

#include "game/board.h"

/* Values follow Wilson's convention: the net boxes the player to move
** will gain from here on.  A move completing k >= 1 boxes is worth
** k + value(child); any other move is worth -value(child). */
typedef struct dab_analysis {
  int value;                          /* value of the position */
  int nmoves;                         /* legal moves, in increasing line order */
  int16_t move[DAB_MAX_LINES];
  int16_t move_value[DAB_MAX_LINES];  /* value of each move for the mover */
  int nbest;                          /* moves whose value equals value */
  int16_t best[DAB_MAX_LINES];
} dab_analysis;

/* Fills nbest/best from the moves whose value equals a->value. */
static inline void dab_analysis_pick_best(dab_analysis *a) {
  a->nbest = 0;
  for (int i = 0; i < a->nmoves; i++)
    if (a->move_value[i] == a->value) a->best[a->nbest++] = a->move[i];
}

/* Sets value to the best move's value (0 with no move) and fills best:
** for analyses built move by move. */
static inline void dab_analysis_from_moves(dab_analysis *a) {
  a->value = 0;
  if (a->nmoves) {
    a->value = a->move_value[0];
    for (int i = 1; i < a->nmoves; i++)
      if (a->move_value[i] > a->value) a->value = a->move_value[i];
  }
  dab_analysis_pick_best(a);
}

/*
** Win/draw/loss.  A learner rewarded for winning, not for the margin,
** needs the best reachable *result* and the moves that keep it.  Both
** follow from the margin values: with score_diff the mover's boxes minus
** the opponent's so far, the result is sign(score_diff + value), and a
** move keeps it when sign(score_diff + its value) is the same.  A margin-
** suboptimal move that keeps the win is no mistake for such a learner.
*/
typedef enum dab_result { DAB_LOSS = -1, DAB_DRAW = 0, DAB_WIN = 1 } dab_result;

typedef struct dab_wdl {
  dab_result result;                  /* best reachable, for the mover */
  int nkeep;                          /* moves that reach it (0 when over) */
  int16_t keep[DAB_MAX_LINES];
} dab_wdl;

static inline dab_result dab_result_of(int net) {
  return net > 0 ? DAB_WIN : net < 0 ? DAB_LOSS : DAB_DRAW;
}

/* Fills *w from a complete analysis (every move's value; value 0 when the
** game is over) and the score
** difference so far.  Never fails; a finished game's result is
** sign(score_diff). */
static inline void dab_analysis_wdl(const dab_analysis *a, int score_diff, dab_wdl *w) {
  w->result = dab_result_of(score_diff + a->value);
  w->nkeep = 0;
  for (int i = 0; i < a->nmoves; i++)
    if (dab_result_of(score_diff + a->move_value[i]) == w->result) w->keep[w->nkeep++] = a->move[i];
}

/* "win", "draw" or "loss". */
static inline const char *dab_result_name(dab_result r) {
  return r > 0 ? "win" : r < 0 ? "loss" : "draw";
}

#endif
