/*
** sle.h: simple loony endgames (SLE): the exact value recursion, the
** controlled value, Buzzard-Ciere / Allcock / BoxesZero rules, nimbers.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_SLE_H
#define DAB_SLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "game/board.h"
#include "game/err.h"

/*
** An (extended) simple loony endgame G is a multiset of components:
**
**    chain of length a:  ground -c1-c2-...-ca- ground     (a >= 1)
**    loop  of length a:  c1-c2-...-ca-c1                   (a >= 4)
**
** written "3+3+L4" (chains as numbers, loops as L+length).  Chains of
** length 1 and 2 make the SLE "extended".  Loops of length 3 never occur
** on boards; they are accepted only as negative controls (the recursion
** treats them like any loop and is then wrong, on purpose).
**
** Values: v(G) is the CONTROLLER's net score over the rest of the game
** when the opener is to move.  In dab's board convention (value for the
** player to move) an SLE position is worth -v(G).
**
** Thread safety: every function here is pure (no global or static
** mutable state, no allocation); call them from any number of threads.
*/

/* Most components a dab_sle holds (a 16x16 board has at most 256 boxes,
** but an SLE on it has at most 256 components of length >= 1). */
#define DAB_SLE_MAX 256

/* A component multiset, each list sorted ascending.  Build it with
** dab_sle_make, dab_sle_parse or dab_sle_from_position. */
typedef struct dab_sle {
  int nchains, nloops;
  int16_t chain[DAB_SLE_MAX];
  int16_t loop[DAB_SLE_MAX];
} dab_sle;

/* ---- The two calls solvers use at their leaves ---------------------- */

/*
** v(G), exact, fast: the function solvers call at their leaves.
** PARAMETERS: chain lengths (>= 1) and loop lengths (>= 3), any order;
** counts may be 0 (the arrays may then be NULL).
** RETURN: v(G).  Out-of-range input (a length < 1, a loop < 3, more than
** DAB_SLE_MAX of either kind) returns DAB_SLE_BAD.
** NOTES: when every loop is even and |G| <= DAB_SLE_VERIFIED it evaluates
** the closed form V and the BZ5 rule in O(#components) (the checker
** proves them equal to the recursion on every such G, level 0).  Larger
** G with even loops use the recursion when its lattice fits the memo,
** else the published closed form (Allcock; BZ5), unverified there.  Odd
** loops (never on boards) always use dab_sle_value_rec.  No allocation,
** no global state; about 45 KiB of stack in the recursion case.
*/
int dab_sle_value(const int16_t *chains, int nchains, const int16_t *loops, int nloops);

/*
** v(G) by the exact value recursion of the spec, and nothing else (the
** checker's level-0 oracle):
**   v(empty) = 0
**   v(G) = min over components X:  chain a>=3:  a-2+|2-v(G-X)|
**                                  loop  a:     a-4+|4-v(G-X)|
**                                  chain 1,2:   a-v(G-X)
** Same parameters and return as dab_sle_value.
** NOTES: memoises over the lattice of sub-multisets (distinct component
** types with counts, mixed-radix index) in a fixed stack array of
** DAB_SLE_MEMO entries; a lattice larger than that (>= 14 distinct types,
** over 100 boxes) falls back to plain recursion, exponential in the
** number of components.
*/
int dab_sle_value_rec(const int16_t *chains, int nchains, const int16_t *loops, int nloops);

#define DAB_SLE_BAD (-32768)
#define DAB_SLE_MEMO 16384
/* Largest |G| for which level 0 of the checker verifies the closed form
** and BZ5 against the recursion (bench/theorems_full.sh). */
#define DAB_SLE_VERIFIED 46

/*
** Bridge from a board: if the position s on g is an SLE (extended: 1- and
** 2-chains allowed; a finished board is the empty SLE), writes its chain
** and loop lengths, sorted ascending, into chains[] / loops[] (each with
** room for g->nboxes entries) and returns true.  Otherwise returns false
** and the outputs are unspecified.  Works on any board; rejects fast-path
** positions with a capturable box before the full analysis.
** NOTES: uses about 12 KiB of stack (a dab_sc_view).
*/
bool dab_sle_from_position(const dab_geom *g, const dab_lineset *s, bool extended,
                           int16_t *chains, int *nchains, int16_t *loops, int *nloops);

/*
** The exact board value of an (extended) SLE position for the player to
** move: -v(G).  RETURN: true and *value, or false when s is not an SLE.
** A solver can return this at any node where it is true.
*/
bool dab_sle_position_value(const dab_geom *g, const dab_lineset *s, int *value);

/* ---- Building and printing multisets ------------------------------- */

/* Fills G from the arrays (sorted on the way in).  RETURN: false (G
** unspecified) if a count exceeds DAB_SLE_MAX or a length is out of range
** (chain < 1, loop < 3). */
bool dab_sle_make(dab_sle *G, const int16_t *chains, int nchains, const int16_t *loops,
                  int nloops);

/*
** Parses "3+3+L4" ("L" or "l" prefixes a loop; blanks ignored; "0" or ""
** is the empty SLE).  RETURN: DAB_OK, or DAB_EINPUT with a message naming
** the column and problem.  Loops of length 3 are accepted only when
** allow_3loops (negative controls).
*/
dab_status dab_sle_parse(const char *text, bool allow_3loops, dab_sle *G, dab_err *err);

/* Writes G as text ("3+3+L4", "0" when empty) into buf.  RETURN: buf, or
** NULL if len is too small (buf then holds a truncated string). */
char *dab_sle_format(const dab_sle *G, char *buf, size_t len);

/* v(G) of a dab_sle: dab_sle_value / dab_sle_value_rec on its arrays. */
int dab_sle_v(const dab_sle *G);
int dab_sle_v_rec(const dab_sle *G);

/* Total boxes |G|, counts by kind. */
int dab_sle_size(const dab_sle *G);
int dab_sle_count_chains(const dab_sle *G, int len);   /* chains of exactly len */
int dab_sle_count_loops(const dab_sle *G, int len);
/* True when every chain is >= 3 and every loop >= 4 (a strict SLE). */
bool dab_sle_is_strict(const dab_sle *G);

/* Removes one component (kind 0 chain, 1 loop, of length len) from G into
** out.  RETURN: false (out unspecified) if G has no such component. */
bool dab_sle_remove(const dab_sle *G, int kind, int len, dab_sle *out);

/* ---- Controlled value (Berlekamp; Buzzard-Ciere's bonus) ------------ */

/* fcv(G) = |G| - 4*#chains - 8*#loops. */
int dab_sle_fcv(const dab_sle *G);

/* tb(G): 0 if G empty; 4 if no loops; 8 if no chains; 4 if loops and some
** chain >= 4; 6 if loops and every chain is a 3-chain. */
int dab_sle_tb(const dab_sle *G);

/* Berlekamp's older terminal bonus (negative control): 0 if empty, 4 if
** any chain, else 8. */
int dab_sle_tb_old(const dab_sle *G);

/* c(G) = fcv(G) + tb(G). */
int dab_sle_c(const dab_sle *G);

/* ---- Closed forms --------------------------------------------------- */

/*
** The closed form V of the spec for a strict SLE (chains >= 3, loops >= 4):
** case 1 c >= 2; case 2 no 3-chains; cases 3-5 c <= 1 with 3-chains.
** RETURN: v(G), or DAB_SLE_BAD if G is not strict.  *case_no (may be
** NULL) gets the case used, 1..5.
*/
int dab_sle_closed_form(const dab_sle *G, int *case_no);

/*
** BoxesZero's 1-/2-chain rule (BZ5): for G = C + k 1-chains + n 2-chains
** with v(C) = vC, returns v(G) = vC-1, 1-vC, 2-vC, vC for (k odd, n odd),
** (k odd, n even), (k even, n odd), (k even, n even).
*/
int dab_sle_bz5(int vC, int k, int n);

/*
** v(G) of an extended SLE without 3-loops in O(#components): the closed
** form on the long part, then the BZ5 rule.  RETURN: DAB_SLE_BAD if G has
** a 3-loop.
*/
int dab_sle_value_closed(const dab_sle *G);

/* ---- Moves ---------------------------------------------------------- */

/* A component to open: kind 0 = chain, 1 = loop; len its length. */
typedef struct dab_sle_comp {
  int8_t kind;
  int16_t len;
} dab_sle_comp;

enum { DAB_SLE_CHAIN = 0, DAB_SLE_LOOP = 1 };

/*
** The value for the controller of opening component X (the opener's move)
** given v' = v(G - X): chain a >= 3: a-2+|2-v'|; loop: a-4+|4-v'|; chain
** 1, 2: a-v'.  v(G) is the minimum of this over the components.
*/
int dab_sle_open_value(dab_sle_comp X, int v_rest);

/*
** Allcock's opening rule for a strict SLE G (non-empty): rules 1-4 of the
** spec in order.  RETURN: the component to open; *rule_no (may be NULL)
** gets the rule that fired (1..4).  Rule 1 opens the shortest loop.
*/
dab_sle_comp dab_sle_allcock(const dab_sle *G, int *rule_no);

/* The "standard" opening without Allcock's exceptions (rule 4 alone):
** a 3-chain, else the shortest loop, else the shortest chain.  A negative
** control: it is not always optimal. */
dab_sle_comp dab_sle_standard_open(const dab_sle *G);

/*
** Best-reply rule (B3): after the opener opens X leaving G' with
** v(G') = v_rest, keeping control is optimal iff v_rest >= 2 (X a chain
** of length >= 3) or v_rest >= 4 (X a loop).  Short chains cannot be
** declined: returns false for them.
*/
bool dab_sle_keep_control(dab_sle_comp X, int v_rest);

/*
** The BoxesZero opening (BZ5 move claim): a 1-chain if any, else a 2-chain
** if any, else *has_short = false and the result is unspecified.
*/
dab_sle_comp dab_sle_bz_open(const dab_sle *G, bool *has_short);

/* ---- Nimstring ------------------------------------------------------ */

/* Nimber of one component: 1- and 2-chains and 3-loops *1, long chains
** and loops of length >= 4 *0. */
int dab_sle_comp_nimber(dab_sle_comp X);

/* XOR of the component nimbers: the mover wins Nimstring iff non-zero. */
int dab_sle_nimber(const dab_sle *G);

#endif
