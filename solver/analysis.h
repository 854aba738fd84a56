/*
** analysis.h: the answer every oracle gives about a position: its value
** and the value of each legal move.
** See Copyright Notice in README.md
*/
#ifndef DAB_ANALYSIS_H
#define DAB_ANALYSIS_H

#include "board.h"

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

#endif
