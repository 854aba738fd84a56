/*
** vec.h: many games at once, for bindings: arrays of states stepped,
** observed and labelled by one call each.
** See Copyright Notice in README.md
*/
#ifndef DAB_VEC_H
#define DAB_VEC_H

#include <stddef.h>
#include <stdint.h>
#include "game/board.h"
#include "oracle/oracle.h"
#include "game/dabapi.h"

/*
** A batch of n games on one board of at most 64 lines is held by the
** caller as plain arrays (structure of arrays; numpy buffers in
** python/dab), state i being:
**
**   lines[i]    uint64  bit m set = line m drawn (OpenSpiel action ids)
**   by1[i]      uint64  bit m set = line m was drawn by player 1 (the
**                       second player); lines drawn by player 0 are
**                       lines[i] & ~by1[i]
**   box1[i]     uint64  bit b set = box b is owned by player 1; boxes
**                       complete in lines[i] and not in box1[i] are player 0's
**   score[2i], score[2i+1]   int16  boxes of player 0 and of player 1
**   to_move[i]  int8    0 or 1: the player to move (the last mover once
**                       every line is drawn; bindings report OpenSpiel's
**                       terminal id there)
**
** The rules are game/board.h's: a move that completes a box keeps the
** turn.  Nothing here keeps state between calls except the geometry of a
** dab_vec, which is read-only once made: any number of threads may share
** one.
*/
typedef struct dab_vec dab_vec;

/* Makes the geometry of rows x cols.  RETURN: DAB_OK and *out; DAB_EBOARD
** for a board of more than 64 lines or a side outside 1..DAB_MAX_SIDE;
** DAB_ENOMEM. */
DAB_API dab_status dab_vec_new(int rows, int cols, dab_vec **out, dab_err *err);
DAB_API void dab_vec_free(dab_vec *v);

/* The geometry (for the line and box numbering). */
DAB_API const dab_geom *dab_vec_geom(const dab_vec *v);

/*
** Plays action[i] in state i for every i < n with action[i] >= 0 (a
** negative action leaves state i as it is).  reward, when not NULL, gets
** the boxes the move completed (0, 1 or 2; 0 for a skipped state).
** RETURN: DAB_OK; DAB_EINPUT naming the first state whose action is
** beyond the board or already drawn; then no state has changed (the
** actions are checked before any is played).
*/
DAB_API dab_status dab_vec_step(const dab_vec *v, size_t n, uint64_t *lines, uint64_t *by1,
                                uint64_t *box1, int16_t *score, int8_t *to_move, const int64_t *action,
                                int8_t *reward, dab_err *err);

/* legal[i * nlines + m] = 1 when line m is undrawn in state i, else 0. */
DAB_API void dab_vec_legal(const dab_vec *v, size_t n, const uint64_t *lines, uint8_t *legal);

/*
** One undrawn line per state, uniformly at random, from a generator
** seeded by (seed, i): action[i] = -1 where every line is drawn.
** Reproducible whatever the batch is split into, for one (seed, i).
*/
DAB_API void dab_vec_random_moves(const dab_vec *v, size_t n, const uint64_t *lines, uint64_t seed,
                                  int64_t *action);

/*
** Observation tensors of n states into out (float32, zeroed here first).
**   DAB_VEC_OPENSPIEL: OpenSpiel's dots_and_boxes layout, per state
**     [3][(R+1)(C+1)][3] = [cell state: empty, player 0, player 1]
**     [dot r*(C+1)+c][part: the horizontal line right of the dot, the
**     vertical line below it, the box to its lower right]; one-hot: a part
**     that does not exist (right of the last column...) counts as empty.
**   DAB_VEC_PLANES: per state [4][R+1][C+1]: plane 0 horizontal lines
**     drawn (h(r,c) at [r][c]), plane 1 vertical lines drawn (v(r,c) at
**     [r][c]), plane 2 boxes of player pov[i], plane 3 boxes of the
**     other player (box (r,c) at [r][c]); unused cells are 0.
** pov (0 or 1 per state) may be NULL (then player 0) and is read only for
** DAB_VEC_PLANES.
** RETURN: the floats written per state, or -1 for an unknown layout.
*/
enum { DAB_VEC_OPENSPIEL = 0, DAB_VEC_PLANES = 1 };
DAB_API long dab_vec_observe(const dab_vec *v, int layout, size_t n, const uint64_t *lines,
                             const uint64_t *by1, const uint64_t *box1, const int8_t *pov, float *out);

/* Floats per state of a layout (as dab_vec_observe returns), or -1. */
DAB_API long dab_vec_observe_size(const dab_vec *v, int layout);

/* ---- Labels through an oracle (oracle/oracle.h) of the same board ------ */

/*
** Values of n positions (Wilson's convention: net boxes the player to
** move gains from here): lo[i] == hi[i] is the exact value; lo[i] < hi[i]
** are the bounds a search proved before its node limit stopped it.
** RETURN: DAB_OK; DAB_EBOARD when the oracle is for another board; the
** oracle's other errors (DAB_EINPUT for lines beyond the board...).
*/
DAB_API dab_status dab_vec_values(const dab_oracle *o, const dab_vec *v, size_t n, const uint64_t *lines,
                                  int8_t *lo, int8_t *hi, dab_err *err);

/*
** The value of every move: out[i * nlines + m] = the value of line m for
** the mover of state i, or DAB_VEC_NONE (-128) when m is drawn.  exact[i]
** = 1 when state i was answered, 0 when a search's node limit stopped it
** (then its row is DAB_VEC_NONE throughout).
** RETURN: as dab_vec_values.
*/
#define DAB_VEC_NONE (-128)
DAB_API dab_status dab_vec_move_values(const dab_oracle *o, const dab_vec *v, size_t n,
                                       const uint64_t *lines, int8_t *out, uint8_t *exact, dab_err *err);

/*
** Win/draw/loss: result[i] = 1, 0 or -1, the best the mover of state i
** can reach when the score so far is diff[i] (the mover's boxes minus the
** other's); keep[i * nlines + m] = 1 for the moves that reach it.  A state
** a node limit stopped gets result DAB_VEC_NONE and no keep.
** RETURN: as dab_vec_values.
*/
DAB_API dab_status dab_vec_wdl(const dab_oracle *o, const dab_vec *v, size_t n, const uint64_t *lines,
                               const int16_t *diff, int8_t *result, uint8_t *keep, dab_err *err);

#endif
