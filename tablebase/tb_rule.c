/*
** tb_rule.c: the capture rule over a value source (probes and builder).
** See Copyright Notice in README.md
*/
#include <stddef.h>
#include "game/isa.h"
#include "tablebase/tb_rule.h"

/* Built twice (game/isa.h, the Makefile's ISA_SRC): a probe spends most of
** its time here, in pext and popcount (the symmetry canonicaliser, the
** box sides), and the portable object's check per call cost probes 8%.
** The public functions, in the base object, call the variant the CPU runs
** fast; the variants recurse within themselves. */
#define RULE_DECLS(sfx)                                                                               \
  dab_status dabtb_rule_value_##sfx(const dabtb_source *, dabtb_memo *, uint64_t, int *, dab_err *);  \
  dab_status dabtb_rule_move_##sfx(const dabtb_source *, dabtb_memo *, uint64_t, int, int *, dab_err *); \
  dab_status dabtb_rule_from_moves_##sfx(const dabtb_source *, uint64_t, int *, dab_err *);
RULE_DECLS(base)
RULE_DECLS(v3)

static inline unsigned memo_slot(uint64_t p) { return (unsigned)((p * 0x9e3779b97f4a7c15ull) >> 59); }

static dab_status value_raw(const dabtb_source *src, dabtb_memo *mo, uint64_t p, int *v, dab_err *err);

dab_status DAB_ISA_FN(dabtb_rule_value)(const dabtb_source *src, dabtb_memo *mo, uint64_t p, int *v, dab_err *err) {
  unsigned h = memo_slot(p);
  if ((mo->used >> h & 1) && mo->key[h] == p) {
    *v = mo->val[h];
    return DAB_OK;
  }
  dab_status st = value_raw(src, mo, p, v, err);
  if (!st) {
    mo->used |= 1u << h;
    mo->key[h] = p;
    mo->val[h] = (int8_t)*v;
  }
  return st;
}

dab_status DAB_ISA_FN(dabtb_rule_move)(const dabtb_source *src, dabtb_memo *mo, uint64_t p, int m, int *v,
                                       dab_err *err) {
  int k = dab64_completes(src->g, p, m), cv;
  dab_status st = DAB_ISA_FN(dabtb_rule_value)(src, mo, p | 1ull << m, &cv, err);
  if (st) return st;
  *v = k ? k + cv : -cv;
  return DAB_OK;
}

static dab_status value_raw(const dabtb_source *src, dabtb_memo *mo, uint64_t p, int *v, dab_err *err) {
  const dab_geom *g = src->g;
  uint64_t three = dab64_three_sided(g, p);
  if (!three) return src->stored(src->ctx, dab_sym_canon64(src->sym, p, true, NULL), v, err);
  for (uint64_t t = three; t; t &= t - 1) {
    int b = __builtin_ctzll(t);
    int m = __builtin_ctzll(~p & g->box_mask[b]);
    int n = g->line_box[m][0] == b ? g->line_box[m][1] : g->line_box[m][0];
    int ns = n < 0 ? 0 : dab64_sides(g, p, n);
    if (ns != 2) {
      int cv;
      dab_status st = DAB_ISA_FN(dabtb_rule_value)(src, mo, p | 1ull << m, &cv, err);
      if (st) return st;
      *v = (ns == 3 ? 2 : 1) + cv;
      return DAB_OK;
    }
  }
  int best = -128, um = -1, un = -1;
  for (uint64_t t = three; t; t &= t - 1) {
    int b = __builtin_ctzll(t);
    int m = __builtin_ctzll(~p & g->box_mask[b]);
    int n = g->line_box[m][0] == b ? g->line_box[m][1] : g->line_box[m][0];
    if (um < 0) um = m, un = n;
    int cv;
    dab_status st = DAB_ISA_FN(dabtb_rule_value)(src, mo, p | 1ull << m, &cv, err);
    if (st) return st;
    if (1 + cv > best) best = 1 + cv;
  }
  int dec, m2 = __builtin_ctzll(~p & g->box_mask[un] & ~(1ull << um));
  dab_status st = DAB_ISA_FN(dabtb_rule_move)(src, mo, p, m2, &dec, err);
  if (st) return st;
  *v = best > dec ? best : dec;
  return DAB_OK;
}

dab_status DAB_ISA_FN(dabtb_rule_from_moves)(const dabtb_source *src, uint64_t p, int *v, dab_err *err) {
  dabtb_memo mo;
  mo.used = 0;
  int best = -128;
  for (uint64_t f = ~p & src->g->all_lines; f; f &= f - 1) {
    int mv;
    dab_status st = DAB_ISA_FN(dabtb_rule_move)(src, &mo, p, __builtin_ctzll(f), &mv, err);
    if (st) return st;
    if (mv > best) best = mv;
  }
  *v = best;
  return DAB_OK;
}

#ifndef DAB_ISA_V3 /* the public functions once, in the base object */
dab_status dabtb_rule_value(const dabtb_source *src, dabtb_memo *mo, uint64_t p, int *v, dab_err *err) {
  return DAB_ISA_CALL(dabtb_rule_value, src, mo, p, v, err);
}
dab_status dabtb_rule_move(const dabtb_source *src, dabtb_memo *mo, uint64_t p, int m, int *v, dab_err *err) {
  return DAB_ISA_CALL(dabtb_rule_move, src, mo, p, m, v, err);
}
dab_status dabtb_rule_from_moves(const dabtb_source *src, uint64_t p, int *v, dab_err *err) {
  return DAB_ISA_CALL(dabtb_rule_from_moves, src, p, v, err);
}
#endif
