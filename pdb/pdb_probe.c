/*
** pdb_probe.c: a position's components as the pattern database knows
** them, in one call (the CLI's and Python's probe).
** See Copyright Notice in README.md
*/
#include <string.h>
#include "game/postext.h"
#include "game/sc.h"
#include "pdb/pdb.h"

dab_status dab_pdb_probe(const dab_pdb *db, const char *position, dab_pdb_probe_result *out, dab_err *err) {
  static const dab_pdb_probe_result zero;
  *out = zero;
  dab_parsed ps;
  dab_status st = dab_parse_position(position, &ps, err);
  if (st) return st;
  const dab_geom *g = &ps.geom;
  if (!dab_geom_fast(g))
    return dab_fail(err, DAB_EBOARD, "%dx%d has %d lines; the pattern database reads boards of at most 64",
                    g->rows, g->cols, g->nlines);
  uint64_t p = dab_ls_word(&ps.game.lines);
  dab_lineset ls = dab_ls_from_word(p);
  dab_sc_view v;
  dab_sc_analyze(g, &ls, &v);
  out->ncomp = v.ncomp;
  out->covered = 1;
  uint32_t all[DAB_PDB_MAX_COMP];
  int nall = 0;
  for (int c = 0; c < v.ncomp && c < DAB_PDB_MAX_COMP; c++) {
    dab_pdb_probe_comp *pc = &out->comp[c];
    pc->first_box = v.comp[c].first_box;
    pc->coins = v.comp[c].coins;
    pc->strings = v.comp[c].strings;
    /* the component alone: every line of the other boxes drawn */
    uint64_t q = p;
    for (int b = 0; b < g->nboxes; b++)
      if (v.comp_of[b] != c)
        for (int k = 0; k < 4; k++) q |= 1ull << g->box_line[b][k];
    uint32_t id;
    if (dab_pdb_split(db, g, q, &id) != 1) {
      pc->id = -1;
      out->covered = 0;
      continue;
    }
    dab_pdb_info in = dab_pdb_get(db, id);
    pc->id = id;
    pc->nimber = in.nimber;
    pc->value = in.value;
    pc->flags = in.flags;
    all[nall++] = id;
  }
  if (!out->covered || v.ncomp > DAB_PDB_MAX_COMP) {
    out->covered = 0;
    return DAB_OK;
  }
  for (int i = 1; i < nall; i++)
    for (int j = i; j > 0 && all[j - 1] > all[j]; j--) {
      uint32_t t = all[j];
      all[j] = all[j - 1], all[j - 1] = t;
    }
  out->nimber = dab_pdb_nimber_sum(db, all, nall);
  dab_pdb_table *t;
  if ((st = dab_pdb_table_new(20, &t, err))) return st;
  out->value = dab_pdb_value(db, t, all, nall, &out->nodes);
  dab_pdb_table_free(t);
  return DAB_OK;
}
