/*
** graphsolve.h: exact Strings-and-Coins solver on any small graph (coins
** of any degree, junctions, ground strings): scoring play and Nimstring.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_GRAPHSOLVE_H
#define DAB_GRAPHSOLVE_H

#include <stdbool.h>
#include <stdint.h>
#include "game/board.h"
#include "game/err.h"

/*
** A graph: coins 0..ncoins-1 and the ground (-1), joined by strings.  A
** position is the set of strings still uncut, as a bit mask (bit i =
** string i).  Cutting string s captures every coin of s left with no
** string (0, 1 or 2 coins); the mover then moves again.
**
**   scoring:   v(mask) = max over s: k>0 ? k + v(mask-s) : -v(mask-s)
**   Nimstring: normal play, whoever cannot move loses (so completing the
**              last coin loses: that player must move again and cannot).
**
** Both are memoised in arrays indexed by the mask (2^nstrings entries),
** so nstrings <= DAB_SG_MAX_STRINGS.
*/

#define DAB_SG_MAX_STRINGS 24
#define DAB_SG_MAX_COINS 32
/* Nimbers are found by probing heaps 0..DAB_SG_MAX_HEAP-1. */
#define DAB_SG_MAX_HEAP 8

typedef struct dab_sg {
  int ncoins, nstrings;
  int8_t end[DAB_SG_MAX_STRINGS][2];   /* coin ids, -1 = ground */
} dab_sg;

/* Adds a string between a and b (coin ids, -1 = ground).  RETURN: its
** index, or -1 if the graph is full, an id is out of range, or a == b. */
int dab_sg_add(dab_sg *g, int a, int b);

/* Coins with at least one string in mask. */
int dab_sg_coins_left(const dab_sg *g, uint32_t mask);

/*
** Builds the graph of a board position: one coin per box that has an
** undrawn side, one string per undrawn line (edge lines to the ground).
** RETURN: DAB_OK; DAB_EBOARD if it has more than DAB_SG_MAX_STRINGS
** undrawn lines (message says how many).  line_of[i] (may be NULL, room
** for DAB_SG_MAX_STRINGS) gets the board line of string i.
*/
dab_status dab_sg_from_board(const dab_geom *geo, const dab_lineset *s, dab_sg *g,
                             int16_t *line_of, dab_err *err);

/* Disjoint union: appends h's coins and strings to g.  RETURN: false if
** the result would not fit (g unchanged). */
bool dab_sg_append(dab_sg *g, const dab_sg *h);

typedef struct dab_sgs dab_sgs;

/*
** A solver for g with lazily filled tables (2^nstrings * 5 bytes).
** RETURN: DAB_OK and *out; DAB_EBOARD when g has too many strings or
** coins; DAB_ENOMEM.  NOTES: not thread-safe; one per thread.
*/
dab_status dab_sgs_new(const dab_sg *g, dab_sgs **out, dab_err *err);
void dab_sgs_free(dab_sgs *s);

/* Scoring value (mover's net coins from here on) of position mask. */
int dab_sgs_value(dab_sgs *s, uint32_t mask);

/* Coins the cut of string i captures in position mask (0, 1, 2). */
int dab_sgs_captures(const dab_sgs *s, uint32_t mask, int i);

/* Nimstring: true when the player to move at mask wins. */
bool dab_sgs_win(dab_sgs *s, uint32_t mask);

/* True when the player to move wins mask + a nim heap of size h (a move
** either cuts a string or shrinks the heap; captures move again). */
bool dab_sgs_win_heap(dab_sgs *s, uint32_t mask, int h);

/* The nimber of mask: the heap h < DAB_SG_MAX_HEAP with mask + *h a loss
** for the mover.  RETURN: h, or -1 if no such heap exists, or -2 if more
** than one does (neither may happen in an impartial game; the checker
** counts them). */
int dab_sgs_nimber(dab_sgs *s, uint32_t mask);

/* The full mask of g: every string uncut. */
static inline uint32_t dab_sg_full(const dab_sg *g) {
  return g->nstrings >= 32 ? 0xffffffffu : (1u << g->nstrings) - 1;
}

#endif
