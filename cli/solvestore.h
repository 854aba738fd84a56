/*
** solvestore.h: what `dab solve` keeps in the board's tablebase file (the
** solved store): lookups before a search, seeding the solver from it, and
** storing every bound as it is proved (docs/persistence.md).
** See Copyright Notice in README.md
*/
#ifndef DAB_SOLVESTORE_H
#define DAB_SOLVESTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "solver/ab.h"
#include "solver/analysis.h"
#include "progress.h"

/*
** Selects the store of board g for the next positions: RxC.dab found on
** the search path (tb_dir, $DAB_TB_PATH, data/tb/), else a solved-only
** file created there on the first store (first directory of that path).
** no_store: read only, never write.  Never fails: a file that cannot be
** read or written is reported once on stderr, and solving goes on
** without it.  Calling it again for the same board keeps the handle.
*/
void solvestore_select(const dab_geom *g, const char *tb_dir, bool no_store);

/* True when the board of g is answered by the oracle's table (a dense
** tablebase file, or small enough to be solved in memory): the store is
** then not used. */
bool solvestore_board_covered(const dab_geom *g, const char *tb_dir);

/*
** Stores bounds proved elsewhere (a finished divisible proof): for each of
** the n positions of the selected board, lower[i] <= value <= upper[i]
** (-n / n, n the open boxes: no bound on that side), merged with what
** the store holds.
** RETURN: the number of records written; 0 when there is no writable
** store, or nothing was written (a contradiction with the store is
** refused whole and reported on stderr).
*/
size_t solvestore_put_bounds(size_t n, const uint64_t *pos, const int *lower, const int *upper);

/* The store's file ("" when none is open yet). */
const char *solvestore_path(void);

/* True when a store is selected (readable or to be created). */
bool solvestore_active(void);

/*
** The stored answer for root: true when the store holds root (and, unless
** value_only, every move) exactly; fills a (value, moves, best) and the
** JSON / text extras ("source":"stored", a principal variation from the
** stored best moves, "nodes":0, time, "store").
*/
bool solvestore_answer(uint64_t root, bool value_only, dab_analysis *a, char *extra, size_t extra_len,
                       char *text, size_t text_len);

/* The on_bound callback to set in dab_ab_opts (bound_ctx unused). */
void solvestore_on_bound(void *ctx, int lower, int upper);

/* The progress callback to set in dab_ab_opts: draws the progress line
** (cli_progress) when ctx is non-NULL, and saves a checkpoint of the
** search table every few minutes of a long solve. */
void solvestore_progress(void *ctx, const dab_progress *p);

/* Seeds ab's table from every stored record of the board (once per
** solver and board). */
void solvestore_seed(dab_ab *ab);

/*
** dab_ab_solve of p that stores each root bound as it is proved (one
** committed transaction each), and the result.  Same contract as
** dab_ab_solve.
*/
dab_status solvestore_solve(dab_ab *ab, uint64_t p, int *value, int *lower, int *upper, dab_err *err);

/*
** The value of every move of root (value v, proved), as dab_ab_analyze
** gives it, child by child with solvestore_solve (children deduplicated
** by canonical key; stored exact children are not searched again), each
** stored as soon as it is proved.  Same contract as dab_ab_analyze.
*/
dab_status solvestore_analyze(dab_ab *ab, uint64_t root, int v, dab_analysis *a, dab_err *err);

/*
** After a finished search of root: stores root with its best move, the
** principal variation's positions with their moves, and every position
** within two plies of root whose value the warm table knows exactly (one
** transaction), then appends "store" to the JSON / text extras.
*/
void solvestore_finish(dab_ab *ab, uint64_t root, const dab_analysis *a, bool value_only, int v,
                       const int16_t *pv, int npv, char *extra, size_t extra_len, char *text,
                       size_t text_len);

/* Closes the store. */
void solvestore_close(void);

#endif
