/*
** sckey.h: canonical keys of positions as Strings-and-Coins graphs, so
** that positions with isomorphic graphs (not only board symmetries) share
** one transposition-table entry.
** See Copyright Notice in README.md
*/
#ifndef DAB_SCKEY_H
#define DAB_SCKEY_H

#include <stdint.h>
#include "game/board.h"
#include "game/dabapi.h"

/*
** The value of a position depends only on its Strings-and-Coins graph:
** the open boxes (coins), the undrawn lines between two of them (strings)
** and the undrawn edge lines (strings to the ground).  Completed boxes
** and the board's shape do not matter.  So two positions whose graphs are
** isomorphic (a bijection of the coins keeping strings and ground strings)
** have the same value, even when no board symmetry maps one to the other:
** a chain bent round a corner and a straight one, a region that could be
** mirrored on its own, ...
**
** The key is computed per connected component (the ground does not join
** components) by colour refinement (each coin's colour is hashed with the
** multiset of its neighbours' colours until the partition is stable) and,
** where colours tie, by individualising the first coin of the first tied
** cell and refining again (see canonical_order in sckey.c for why one
** choice is enough here).  The components are then sorted by size and
** encoding, so identical components (lone coins, short chains: common)
** cost nothing extra.  A component that is a chain or a loop (no coin
** with three neighbours) is not refined at all: its canonical order is
** the walk along it whose sequence of ground strings is least.  What is
** hashed (version 3) is the list of the component sizes in sorted order
** (one byte each, padded to whole words), then each component's encoding
** below, its coins numbered 0..k-1 in its own canonical order.  (Version
** 1 hashed the whole graph's encoding; version 2 refined chains too.)
**
**   encoding of a labelled graph, coins in canonical order 0..n-1, two
**   coins per 64-bit word:
**   +----------+----------------+-----------------------------------+
**   | bits     | 31..29: zero   | 28..26: ground strings | 25..0:   |
**   |          |                | (0..4)                 | neighbour|
**   |          |                |                        | set      |
**   +----------+----------------+-----------------------------------+
**   neighbour set: bit j set when the coin has a string to coin j (two
**   boxes share at most one line, so a set is exact).
**
** CORRECTNESS DOES NOT DEPEND ON CANONICITY: equal encodings describe the
** same graph up to isomorphism, whatever labelling produced them.  A
** labelling that is not canonical can only make a position miss a
** transposition, never get a wrong one.  The encoding is hashed to 128
** bits (XXH3, seeded with DAB_SCKEY_VERSION); the solver's table keeps the
** first 64 and 23 bits of the second half (a false hit needs a 2^-87
** collision).
*/

#define DAB_SCKEY_MAX_COINS 32
#define DAB_SCKEY_GROUND 31
/* Seeds the hash: change it whenever the encoding changes, so keys stored
** on disk (tablebase shapes) by another version can never match. */
#define DAB_SCKEY_VERSION 3

/* R x C boxes have 2RC + R + C lines; the fewest for 26 or more boxes is
** 66 (3x9), so every fast-path board has at most 25 coins and a
** neighbour set fits 26 bits. */
_Static_assert(DAB_FAST_MAX_LINES < 66, "fast-path boards have at most 25 boxes");

typedef struct dab_sckey {
  uint64_t key;                        /* first half of the hash: the table key */
  uint64_t check;                      /* second half: verification bits */
  int ncoins;
  uint8_t box_of[DAB_SCKEY_MAX_COINS]; /* canonical coin index -> box number */
  int8_t index_of[64];                 /* box number -> canonical index (-1: complete) */
} dab_sckey;

/*
** Canonical graph key of position p on board g (fast path).
** RETURN: nothing; *out is filled.  ncoins == 0 for a finished game.
** NOTES: pure function of (g, p), no state: thread-safe.
*/
DAB_API void dab_sckey64(const dab_geom *g, uint64_t p, dab_sckey *out);

/*
** A move (undrawn line m of p) as a canonical edge: a * 32 + b, where a
** and b are the canonical indices of its coins (b = DAB_SCKEY_GROUND for
** an edge line), a <= b.  RETURN: the code (< 1024).
*/
DAB_API int dab_sckey_edge(const dab_geom *g, const dab_sckey *k, int m);

/*
** The undrawn line of p that is canonical edge `code` under key k.
** RETURN: the line, or -1 when none is undrawn (a stale or foreign code).
*/
DAB_API int dab_sckey_line(const dab_geom *g, const dab_sckey *k, uint64_t p, int code);

/*
** One connected component as an abstract graph, for the pattern database
** (pdb/): coin i of n has code[i] = (strings to the ground << 26) | the
** set of coins it has a string to (bit j: a string to coin j).  Coins
** have at most 4 strings, no coin a string to itself.
*/
#define DAB_SCKEY_COMP_MAX 26   /* a neighbour set is 26 bits */
#define DAB_SCKEY_NBR_MASK ((1u << 26) - 1)

/*
** Canonical encoding of the connected component code[0..n) (n <= 26):
** enc[c] is the code of the coin at canonical index c, its neighbour set
** in canonical indices; order[c] (may be NULL) that coin's input index.
** It is the per-component encoding dab_sckey64 hashes (the same
** refinement and walk), so a component cut out of a board and the same
** graph built by hand get equal encodings except where refinement ties
** coins that no automorphism maps onto each other (rare; the two then
** differ, and a lookup by one misses the other: never a wrong match).
** NOTES: pure, thread-safe.
*/
DAB_API void dab_sckey_canon_component(const uint32_t *code, int n, uint32_t *enc, uint8_t *order);

/*
** The components of position p on board g (fast path), each as an
** abstract graph in box order: comp_of[b] = component of box b (-1:
** complete), codes written to code[] component after component, with
** start[c] .. start[c+1] the coins of component c and box_of[i] the box
** of coin i.  RETURN: the number of components (room: 25 + 1 starts).
** NOTES: pure, thread-safe.
*/
DAB_API int dab_sckey_split64(const dab_geom *g, uint64_t p, uint32_t *code, uint8_t *box_of, int *start,
                              int8_t *comp_of);

#endif
