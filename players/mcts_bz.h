/*
** mcts_bz.h: the mcts-bz search's move generation and scoring, shared with
** the network-guided search of agents/ (BoxesZero, issue 21).
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_MCTS_BZ_H
#define DAB_MCTS_BZ_H

#include "game/board.h"
#include "game/sc.h"
#include <stddef.h>
#include "game/rng.h"

/*
** A search state: the lines, player 0's boxes minus player 1's (the
** game's score included), the player to move, the undrawn lines, and the
** first line drawn since the state was set up (-1: none yet; macro moves
** use it to name their first line).
*/
typedef struct pl_mstate {
  dab_lineset s;
  int diff;
  int turn;
  int left;
  int first;
} pl_mstate;

/* Sets *st from a game position (first = -1). */
void pl_mstate_from_game(const dab_geom *g, const dab_game *game, pl_mstate *st);

/*
** Macro moves (players/mcts.c explains them): where a box can be taken,
** mcts-bz's children are PL_MACRO_TAKE_ALL and, when it exists,
** PL_MACRO_DECLINE; moves >= 0 are lines.
*/
enum { PL_MACRO_TAKE_ALL = -2, PL_MACRO_DECLINE = -3 };

/*
** The children of st, written to moves[] (DAB_MAX_LINES entries), in a
** fixed order (the caller shuffles if it wants).  bz: mcts-bz's moves
** (macro moves where a box can be taken, else one opening line per
** isolated chain or loop, which needs the scratch view, not NULL); !bz:
** every undrawn line.  RETURN: the count (0 when the game is over).
*/
/*
** Makes room for need nodes of elem bytes in a node pool of *cap
** allocated nodes, doubling from 4096 up to max_nodes.  Shared by every
** tree search (mcts, mcts-os, agents' PUCT).
** RETURN: the pool (moved or not) with *cap updated; NULL when need passes
** max_nodes or memory runs out (then the old pool is unchanged, still the
** caller's).
*/
void *pl_pool_reserve(void *pool, int32_t *cap, int32_t need, int32_t max_nodes, size_t elem);

int pl_mcts_children(const dab_geom *g, const pl_mstate *st, bool bz, dab_sc_view *view,
                     int16_t *moves);

/* Plays a child move (a line or a macro) on st.  The move must be one
** pl_mcts_children gave for st. */
void pl_mcts_apply(const dab_geom *g, pl_mstate *st, int move);

/*
** Theorem pruning: when every box left has 2 or 4 sides drawn (a simple
** loony endgame, extended to 1- and 2-chains), sets *diff to the exact
** final player-0-minus-player-1 score under optimal play.
** RETURN: true when it did; false when st is not such an endgame.
*/
bool pl_mcts_sle_exact(const dab_geom *g, const pl_mstate *st, int *diff);

/* A random rollout from st to the end: the final diff.  sle: stop at the
** first simple loony endgame and score it exactly (boards of <= 64 lines). */
int pl_mcts_rollout(const dab_geom *g, const pl_mstate *st, dab_rng *rng, bool sle);

#endif
