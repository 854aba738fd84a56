/*
** oracle.h: the one question every client asks: what is this position
** worth, and what is every move worth?  Backed by the best source that
** covers the board: a tablebase file, an in-memory retrograde table for
** small boards, or (later) exact search.
** See Copyright Notice in README.md
*/
#ifndef DAB_ORACLE_H
#define DAB_ORACLE_H

#include "board.h"
#include "solver/analysis.h"

typedef struct dab_oracle dab_oracle;

typedef struct dab_oracle_opts {
  const char *tb_dir;       /* --tb DIR, searched first; NULL = none */
  int max_build_free;       /* build in memory when the board has at most
                               this many lines (0 = default 24, i.e. 3x3) */
  int threads;              /* for builds; 0 = all cores */
} dab_oracle_opts;

/*
** Opens an oracle for rows x cols.
** RETURN: DAB_OK and *out; DAB_EBOARD (with the command that would make a
** table, when one could) if nothing covers the board; DAB_ENOMEM.
** NOTES: after open the oracle is read-only: any number of threads may
** query one oracle at once.
*/
dab_status dab_oracle_open(int rows, int cols, const dab_oracle_opts *opts, dab_oracle **out,
                           dab_err *err);
void dab_oracle_close(dab_oracle *o);

/* The board geometry of the oracle. */
const dab_geom *dab_oracle_geom(const dab_oracle *o);

/* Value of pos (Wilson's convention).  RETURN: DAB_OK, or an error. */
dab_status dab_oracle_value(const dab_oracle *o, const dab_lineset *pos, int *value, dab_err *err);

/* Value of pos and of each legal move, with the best moves. */
dab_status dab_oracle_analyze(const dab_oracle *o, const dab_lineset *pos, dab_analysis *a,
                              dab_err *err);

#endif
