/*
** pdb_probe.c: a position's components as the pattern database knows
** them, in one call (the CLI's and Python's probe).
** See Copyright Notice in README.md
*/
#include <string.h>
#include "game/postext.h"
#include "pdb/pdb.h"
#include "symmetry/sckey.h"

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
  uint32_t code[64], enc[DAB_SCKEY_COMP_MAX];
  uint8_t box_of[64];
  int start[65];
  int8_t comp_of[64];
  int n = dab_sckey_split64(g, dab_ls_word(&ps.game.lines), code, box_of, start, comp_of);
  out->ncomp = n;
  out->covered = n <= DAB_PDB_MAX_COMP;
  uint32_t all[DAB_PDB_MAX_COMP];
  int nall = 0;
  for (int c = 0; c < n && c < DAB_PDB_MAX_COMP; c++) {
    dab_pdb_probe_comp *pc = &out->comp[c];
    int k = start[c + 1] - start[c], half = 0, ground = 0;
    for (int i = start[c]; i < start[c + 1]; i++)
      half += __builtin_popcount(code[i] & DAB_SCKEY_NBR_MASK), ground += (int)(code[i] >> 26);
    pc->first_box = box_of[start[c]]; /* the split starts each component at its lowest box */
    pc->coins = k;
    pc->strings = half / 2 + ground;
    int64_t id = -1;
    if (k <= DAB_SCKEY_COMP_MAX) {
      dab_sckey_canon_component(code + start[c], k, enc, NULL);
      id = dab_pdb_find(db, enc, k);
    }
    pc->id = id;
    if (id < 0) {
      out->covered = 0;
      continue;
    }
    dab_pdb_info in = dab_pdb_get(db, (uint32_t)id);
    pc->nimber = in.nimber;
    pc->value = in.value;
    pc->flags = in.flags;
    all[nall++] = (uint32_t)id;
  }
  if (!out->covered) return DAB_OK;
  dab_pdb_sort(all, nall);
  out->nimber = dab_pdb_nimber_sum(db, all, nall);
  dab_pdb_table *t;
  if ((st = dab_pdb_table_new(20, &t, err))) return st;
  out->value = dab_pdb_value(db, t, all, nall, &out->nodes);
  dab_pdb_table_free(t);
  return DAB_OK;
}
