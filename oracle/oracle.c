/*
** oracle.c: the oracle: a tablebase file when one covers the board (small
** boards get theirs built on first use), else an in-memory retrograde
** table for small boards.
** See Copyright Notice in README.md
*/
#include <limits.h>
#include <stdlib.h>
#include "oracle/oracle.h"
#include "solver/retro.h"
#include "tablebase/dabtb.h"

/* Largest board (in lines) solved in memory on open: 3x3 takes ~0.1 s. */
#define ORACLE_DEFAULT_BUILD_LINES 24

struct dab_oracle {
  dab_geom geom;
  dabtb *tb;          /* the tablebase, or NULL */
  dab_retro *table;   /* else the in-memory table */
};

/* A tablebase for the board: found on the search path, or built there on
** first use for boards up to DABTB_AUTO_BUILD_LINES.  NULL when neither;
** *st is then an error only when a file exists but cannot be used. */
static dabtb *open_tablebase(int rows, int cols, const dab_oracle_opts *opts, dab_status *st,
                             dab_err *err) {
  char path[PATH_MAX + 64];
  dabtb *tb = NULL;
  *st = DAB_OK;
  if (dabtb_find(rows, cols, opts->tb_dir, path, sizeof path, NULL) == DAB_OK) {
    *st = dabtb_open(path, NULL, &tb, err);
    if (tb && !dabtb_has_table(tb)) { /* solved results of search only: no table */
      dabtb_close(tb);
      tb = NULL;
    }
    return tb;
  }
  if (dabtb_open_board(rows, cols, opts->tb_dir, &tb, NULL)) return NULL;
  return tb;
}

dab_status dab_oracle_open(int rows, int cols, const dab_oracle_opts *opts, dab_oracle **out,
                           dab_err *err) {
  static const dab_oracle_opts defaults;
  if (!opts) opts = &defaults;
  *out = NULL;
  dab_oracle *o = calloc(1, sizeof *o);
  if (!o) return dab_fail(err, DAB_ENOMEM, "out of memory");
  dab_status st = dab_geom_init(&o->geom, rows, cols, err);
  if (st) {
    free(o);
    return st;
  }
  int max_lines = opts->max_build_free ? opts->max_build_free : ORACLE_DEFAULT_BUILD_LINES;
  dab_status tst;
  if (dab_geom_fast(&o->geom)) o->tb = open_tablebase(rows, cols, opts, &tst, err);
  else tst = DAB_OK;
  if (o->tb) {
    *out = o;
    return DAB_OK;
  }
  if (o->geom.nlines > max_lines) {
    if (tst) st = tst; /* a file exists but cannot be used: say why */
    else if (o->geom.nlines <= DAB_RETRO_MAX_FREE)
      st = dab_fail(err, DAB_EBOARD,
                    "no %dx%d tablebase found (looked in --tb, $DAB_TB_PATH, data/tb/); build it "
                    "once with: dab build %dx%d",
                    rows, cols, rows, cols);
    else
      st = dab_fail(err, DAB_EBOARD, "no oracle covers %dx%d: boards up to %d lines are solved in memory",
                    rows, cols, max_lines);
  } else {
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
  dabtb_close(o->tb);
  dab_retro_free(o->table);
  free(o);
}

const dab_geom *dab_oracle_geom(const dab_oracle *o) { return &o->geom; }

dab_status dab_oracle_value(const dab_oracle *o, const dab_lineset *pos, int *value, dab_err *err) {
  if (o->tb) return dabtb_value(o->tb, dab_ls_word(pos), value, err);
  *value = dab_retro_value(o->table, dab_ls_word(pos));
  return DAB_OK;
}

dab_status dab_oracle_analyze(const dab_oracle *o, const dab_lineset *pos, dab_analysis *a,
                              dab_err *err) {
  if (o->tb) return dabtb_analyze(o->tb, dab_ls_word(pos), a, err);
  return dab_retro_analyze(o->table, dab_ls_word(pos), a, err);
}
