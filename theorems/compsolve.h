/*
** compsolve.h: exact, theory-free Strings-and-Coins solver over disjoint
** unions of paths and cycles (the level-1 oracle of the theorem checker).
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_COMPSOLVE_H
#define DAB_COMPSOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "game/err.h"
#include "theorems/sle.h"

/*
** A position is a multiset of components:
**
**    path  (n, GG):  ground - c1 - ... - cn - ground
**    path  (n, GF):  ground - c1 - ... - cn          (cn capturable if n..)
**    path  (n, FF):           c1 - ... - cn          (both ends free)
**    cycle (n):      c1 - ... - cn - c1
**
** A move cuts one string; every coin left without strings is captured by
** the mover, who then moves again.  The solver knows nothing else: no
** chain/loop theory, no "take all but two".  Values are the net coins the
** player to move gains from here on (dab's convention).
**
** One exact simplification is applied everywhere: a component in which
** every cut captures (a lone coin on the ground, a domino, a free 3-path)
** is worth its coins to whoever moves, whatever else is on the table
** (proof in docs/theorems.md), so it is taken off and added to the score.
**
** A component is one byte, code = 4*n + type (type 0 GG, 1 GF, 2 FF,
** 3 cycle), and a position is its sorted codes.  The transposition table
** key packs the sorted codes into 128 bits as (2 type bits, n-1 zeros, a
** one) per component, which is injective while coins + 2*components <=
** 128; positions are therefore limited to DAB_CS_MAX_COINS coins.
*/

#define DAB_CS_MAX_COINS 42
#define DAB_CS_MAX_COMP 48

enum { DAB_CS_GG = 0, DAB_CS_GF = 1, DAB_CS_FF = 2, DAB_CS_CYCLE = 3 };

typedef struct dab_cs_pos {
  int n;                            /* components */
  uint8_t code[DAB_CS_MAX_COMP];    /* sorted ascending */
} dab_cs_pos;

static inline int dab_cs_len(uint8_t code) { return code >> 2; }
static inline int dab_cs_type(uint8_t code) { return code & 3; }
static inline uint8_t dab_cs_code(int len, int type) { return (uint8_t)(len * 4 + type); }

/* One legal move (deduplicated by symmetry): cut string `cut` of
** component `comp` (strings numbered from the left end: the left ground
** string if any, then the internal strings), giving `child`.  The cut
** captures `captured` coins (then the mover moves again); `free` coins of
** free components were taken off the child and belong to whoever moves
** in it.  Value for the mover: captured + free + v(child) when captured
** > 0, else -(free + v(child)). */
typedef struct dab_cs_move {
  int comp;           /* index into the parent's code[] */
  int cut;
  int captured;
  int free;
  dab_cs_pos child;
} dab_cs_move;

typedef struct dab_cs dab_cs;

/*
** Creates a solver whose table may grow to max_entries (24 bytes each;
** 0 = 64M).  RETURN: the solver, or NULL when out of memory.
** NOTES: a solver is not thread-safe; use one per thread.
*/
dab_cs *dab_cs_new(size_t max_entries);
void dab_cs_free(dab_cs *cs);

/* Entries stored, and searches made (nodes), for reports. */
size_t dab_cs_entries(const dab_cs *cs);
uint64_t dab_cs_nodes(const dab_cs *cs);

/*
** Builds a position from an extended SLE: chains become GG paths, loops
** cycles (3-loops allowed).  RETURN: false if it has more than
** DAB_CS_MAX_COINS coins or DAB_CS_MAX_COMP components.
*/
bool dab_cs_from_sle(const dab_sle *G, dab_cs_pos *out);

/* Sorts codes, removes free components; returns the coins removed (which
** belong to the player to move). */
int dab_cs_normalize(dab_cs_pos *p);

/* Coins in p. */
int dab_cs_coins(const dab_cs_pos *p);

/* Fills moves[] (room for DAB_CS_MAX_COINS * 2 + DAB_CS_MAX_COMP) with the
** distinct legal moves of p (p normalized).  RETURN: count. */
int dab_cs_moves(const dab_cs_pos *p, dab_cs_move *moves);

/*
** Alpha-beta value of normalized p within (alpha, beta): the exact value
** if strictly inside, else a bound on the same side (fail-soft).
** NOTES: when the table reaches max_entries, new positions are no longer
** stored: results stay exact, searches get slower.
*/
int dab_cs_search(dab_cs *cs, const dab_cs_pos *p, int alpha, int beta);

/* Exact value of normalized p; guess (e.g. the recursion's prediction)
** only affects speed: a right guess costs one narrow window. */
int dab_cs_value(dab_cs *cs, const dab_cs_pos *p, int guess);

/* The value for the mover of one move (captured + free + v(child), or
** -(free + v(child)) for a quiet cut). */
int dab_cs_move_value(dab_cs *cs, const dab_cs_move *m, int guess);

/* Writes p as text: "3+L4+3GF+2FF" style (GG paths as plain numbers,
** cycles as L+n, others with their end letters).  RETURN: buf. */
char *dab_cs_format(const dab_cs_pos *p, char *buf, size_t len);

#endif
