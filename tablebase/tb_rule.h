/*
** tb_rule.h: the capture rule over a value source: the one recursion that
** the probes (values read from a file) and the layered builder (values
** read from finished layers in memory) share.  Not part of the public API.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_TB_RULE_H
#define DAB_TB_RULE_H

#include <stdint.h>
#include "game/board.h"
#include "symmetry/sym.h"

/*
** Where the values of quiet positions come from.  stored(ctx, c, &v, err)
** gets the value v of c, a canonical indexed position (quiet, border-
** normal, its own least image: dab_sym_canon64(sym, p, true, NULL)).
** RETURN of stored: DAB_OK, or an error that the recursion passes up.
*/
typedef struct dabtb_source {
  const dab_geom *g;
  const dab_sym *sym;
  dab_status (*stored)(const void *ctx, uint64_t canon, int *v, dab_err *err);
  const void *ctx;
} dabtb_source;

/*
** A memo of one probe's recursion.  The capture rule's branches draw the
** same lines in different orders (captures commute), so a random 3x4
** position makes ~42 recursive calls on only ~9 distinct positions, and
** they all end in the same quiet position: remembering them cuts the
** table reads from ~12.6 to 1.  Direct-mapped, 32 slots, on the stack;
** set used = 0 before the first call.  One memo serves one source.
*/
typedef struct dabtb_memo {
  uint32_t used;
  uint64_t key[32];
  int8_t val[32];
} dabtb_memo;

/*
** Value of any position p of the source's board (Wilson's convention),
** by the capture rule (the retrograde solver's, solver/retro.c): let b be
** a box with three sides and m its last line, shared with box n.  If n is
** the edge or has 0, 1 or 3 sides, taking b is optimal: v(p) = k +
** v(p+m).  If every such b would hand n a third side, the optimal move is
** one of the captures or the decline of the first b (drawing n's other
** undrawn line).  Quiet positions are read from the source after
** canonicalisation.
** RETURN: DAB_OK and *v; else the source's error.
** NOTES: thread-safe when the source is; mo is the caller's.
*/
dab_status dabtb_rule_value(const dabtb_source *src, dabtb_memo *mo, uint64_t p, int *v, dab_err *err);

/* Value for the mover of drawing undrawn line m in p: k + v(p+m) when it
** completes k >= 1 boxes, else -v(p+m).  RETURN: as dabtb_rule_value. */
dab_status dabtb_rule_move(const dabtb_source *src, dabtb_memo *mo, uint64_t p, int m, int *v,
                           dab_err *err);

/*
** The value of p from its moves: max over every undrawn line of
** dabtb_rule_move (p must have one; one memo shared by the moves, whose
** captures overlap).  This is what the layered builder stores and what
** `dab verify` compares.  RETURN: as dabtb_rule_value.
*/
dab_status dabtb_rule_from_moves(const dabtb_source *src, uint64_t p, int *v, dab_err *err);

#endif
