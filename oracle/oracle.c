/*
** oracle.c: the oracle, backed by an in-memory retrograde table.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include "oracle/oracle.h"
#include "solver/retro.h"

/* Largest board (in lines) solved in memory on open: 3x3 takes ~0.1 s. */
#define ORACLE_DEFAULT_BUILD_LINES 24

struct dab_oracle {
  dab_geom geom;
  dab_retro *table;
};

dab_status dab_oracle_open(int rows, int cols, const dab_oracle_opts *opts, dab_oracle **out,
                           dab_err *err) {
  static const dab_oracle_opts defaults;
  if (!opts) opts = &defaults;
  *out = NULL;
  dab_oracle *o = calloc(1, sizeof *o);
  if (!o) return dab_fail(err, DAB_ENOMEM, "out of memory");
  dab_status st = dab_geom_init(&o->geom, rows, cols, err);
  int max_lines = opts->max_build_free ? opts->max_build_free : ORACLE_DEFAULT_BUILD_LINES;
  if (!st && o->geom.nlines > max_lines)
    st = dab_fail(err, DAB_EBOARD, "no oracle covers %dx%d: boards up to %d lines are solved in memory",
                  rows, cols, max_lines);
  if (!st) {
    dab_retro_opts ro = {.threads = opts->threads};
    st = dab_retro_solve(&o->geom, 0, &ro, &o->table, err);
  }
  if (st) {
    free(o);
    return st;
  }
  *out = o;
  return DAB_OK;
}

void dab_oracle_close(dab_oracle *o) {
  if (!o) return;
  dab_retro_free(o->table);
  free(o);
}

const dab_geom *dab_oracle_geom(const dab_oracle *o) { return &o->geom; }

dab_status dab_oracle_value(const dab_oracle *o, const dab_lineset *pos, int *value, dab_err *err) {
  (void)err;
  *value = dab_retro_value(o->table, dab_ls_word(pos));
  return DAB_OK;
}

dab_status dab_oracle_analyze(const dab_oracle *o, const dab_lineset *pos, dab_analysis *a,
                              dab_err *err) {
  return dab_retro_analyze(o->table, dab_ls_word(pos), a, err);
}
