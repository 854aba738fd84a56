/*
** oracle.h: the one question every client asks: what is this position
** worth, and what is every move worth?  Backed by the best source that
** covers the board: a tablebase file, an in-memory retrograde table for
** small boards, or exact search (solver/ab.h) when the caller allows it.
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
  int threads;              /* for builds and searches; 0 = all cores */
  /* Exact search for boards no table covers (up to 64 lines: 4x4, 3x5,
  ** 4x5, ...).  Off by default: a query near the start of a big board can
  ** take minutes (4x4's empty board: ~95 s on 2 cores), so the caller
  ** opts in and usually sets a node limit. */
  bool search;
  uint64_t search_hash;       /* the solver's table; 0 = 512 MiB */
  uint64_t search_node_limit; /* per query; 0 = none (DAB_ECANCELED past it) */
} dab_oracle_opts;

/*
** Opens an oracle for rows x cols.
** RETURN: DAB_OK and *out; DAB_EBOARD (with the command that would make a
** table, when one could) if nothing covers the board and opts->search is
** off or the board has more than 64 lines; DAB_ENOMEM (the message gives
** the memory a search table needs and what is available).
** NOTES: after open the oracle is read-only: any number of threads may
** query one oracle at once.  A search-backed oracle answers one query at
** a time (the others wait on a lock; its table stays warm between
** queries, so the positions of one game get cheaper as it goes); it first
** looks in the board's solved store (what `dab solve` proved), if any.
*/
dab_status dab_oracle_open(int rows, int cols, const dab_oracle_opts *opts, dab_oracle **out,
                           dab_err *err);
void dab_oracle_close(dab_oracle *o);

/* The board geometry of the oracle. */
const dab_geom *dab_oracle_geom(const dab_oracle *o);

/* What answers: "tablebase" (a file), "memory" (a retrograde table built
** on open) or "search". */
const char *dab_oracle_source(const dab_oracle *o);

/*
** Value of pos (Wilson's convention).
** RETURN: DAB_OK, or an error: DAB_EINPUT for lines beyond the board;
** DAB_ECANCELED when a search passes search_node_limit (the message gives
** the bounds it proved); DAB_ECORRUPT / DAB_EIO from a tablebase file.
*/
dab_status dab_oracle_value(const dab_oracle *o, const dab_lineset *pos, int *value, dab_err *err);

/* Value of pos and of each legal move, with the best moves.  RETURN: as
** dab_oracle_value (a search's node limit holds for the whole analysis);
** on error *a is unspecified. */
dab_status dab_oracle_analyze(const dab_oracle *o, const dab_lineset *pos, dab_analysis *a,
                              dab_err *err);

/*
** The same two questions for boards of at most 64 lines, with plain
** arguments (for bindings such as python/dab.py): pos is a line set, bit
** i = line i drawn.  dab_oracle_move_values writes the legal moves in
** increasing order to move[], their values to value[] (64 entries each)
** and their count to *n.  dab_oracle_parse reads a position text of this
** board (RxC, RxC:DBN, RxC@m1,...).
** RETURN: as dab_oracle_value; DAB_EBOARD on a board of more than 64
** lines; DAB_EINPUT for text of another board or malformed text.
*/
dab_status dab_oracle_value64(const dab_oracle *o, uint64_t pos, int *value, dab_err *err);
dab_status dab_oracle_move_values(const dab_oracle *o, uint64_t pos, int16_t *move, int16_t *value,
                                  int *n, dab_err *err);
dab_status dab_oracle_parse(const dab_oracle *o, const char *text, uint64_t *pos, dab_err *err);

/*
** Win/draw/loss (solver/analysis.h: dab_analysis_wdl): the best result the
** player to move can reach from pos when the score so far is score_diff
** (the mover's boxes minus the opponent's), and the moves that keep it.
** *result is DAB_WIN, DAB_DRAW or DAB_LOSS; keep[] (64 entries) gets those
** moves in increasing order and *nkeep their count.
** RETURN: as dab_oracle_move_values.
*/
dab_status dab_oracle_result(const dab_oracle *o, uint64_t pos, int score_diff, int *result,
                             int16_t *keep, int *nkeep, dab_err *err);

#endif
