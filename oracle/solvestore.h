/*
** solvestore.h: a search's persistent memory: the solved store of the
** board's tablebase file, read before a search, seeding it, and written as
** bounds are proved, with checkpoints of the warm table (docs/persistence.md).
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_SOLVESTORE_H
#define DAB_SOLVESTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "solver/ab.h"
#include "game/analysis.h"

/*
** One handle per board and per caller: the oracle owns one for its search,
** the proof runner one for a finished proof.  No global state: two handles
** on one file are two LMDB environments (dabtb_store_open's rules apply).
**
** Warnings (a file that cannot be written, a contradiction refused) go to
** opts->warn, one line each without a trailing newline, never to stderr;
** "going on without storing" ones are said once per handle.
*/
typedef struct dab_solvestore dab_solvestore;

typedef struct dab_solvestore_opts {
  const char *tb_dir;          /* searched first, and where a new file goes; NULL = none */
  bool read_only;              /* never write (dab solve --no-store) */
  double checkpoint_seconds;   /* a fixed period between checkpoints of the warm table;
                                  0 = adaptive: every 60 s or 20x the last one's cost */
  uint64_t checkpoint_records; /* entries a checkpoint keeps at most (0: a million, ~60 MB) */
  void (*warn)(void *ctx, const char *msg); /* optional */
  void *warn_ctx;
} dab_solvestore_opts;

/*
** Opens the store of board g: RxC.dab found on the search path (tb_dir,
** $DAB_TB_PATH, the cache, data/tb/), else (unless read_only) a
** solved-only file created on the first write in the first writable
** directory of tb_dir and $DAB_TB_PATH, else in the cache.
** RETURN: DAB_OK and *out; DAB_EBOARD for a board of more than 64 lines;
** DAB_ENOMEM.  A file that cannot be opened is a warning, not an error:
** the handle then answers nothing and stores nothing.
** NOTES: a file in the cache follows the cache's policy (tablebase/
** tb_cache.h, read from the environment here; a bad variable is a
** warning): a new file is made only once a query's search has run
** min_seconds and proved more than the trivial bounds (until then its
** records wait in memory, and are dropped when the search ends first);
** checkpoints of the table go there only after a search has run a
** checkpoint period (60 s, or checkpoint_seconds); found there, the file
** is marked used (its access time); closing a handle that wrote there
** trims the cache's search files to policy.max_bytes (a warning names
** what was removed).  Files outside the cache keep everything.
*/
dab_status dab_solvestore_open(const dab_geom *g, const dab_solvestore_opts *opts,
                               dab_solvestore **out, dab_err *err);
void dab_solvestore_close(dab_solvestore *s);

/* True when the board is answered by a table (a dense tablebase file, or
** small enough to be built on first use): a store then is not used. */
bool dab_solvestore_board_covered(const dab_geom *g, const char *tb_dir);

/* The file ("" while none is open).  Valid until close. */
const char *dab_solvestore_path(const dab_solvestore *s);

/* Whether a file is open, whether results can be stored (a file open for
** writing, or one to be created). */
bool dab_solvestore_is_open(const dab_solvestore *s);
bool dab_solvestore_active(const dab_solvestore *s);
bool dab_solvestore_writable(const dab_solvestore *s);

/* policy.min_seconds while the file would be new in the cache (made only
** once a search has run that long), else 0. */
double dab_solvestore_new_in_cache(const dab_solvestore *s);

/* What the handle did: records written, milliseconds spent writing, and
** the file's record count (0 when none is open or it cannot be read). */
typedef struct dab_solvestore_stats {
  uint64_t written, records;
  double store_seconds;
  bool dropped;        /* the last query's results were not kept: a new file in the
                          cache, and the search ran under min_seconds (or proved
                          only trivial bounds) */
  double min_seconds;  /* the cache's least search time for a new file */
} dab_solvestore_stats;
void dab_solvestore_get_stats(dab_solvestore *s, dab_solvestore_stats *st);

/* The stored exact value of p (and its best move, -1 if none, when best
** is non-NULL).  RETURN: false when absent, a bound only, or unreadable. */
bool dab_solvestore_exact(dab_solvestore *s, uint64_t p, int *value, int *best);

/*
** Stores bounds proved elsewhere (a finished divisible proof): for each of
** n positions, lower[i] <= value <= upper[i] (-n / n for n open boxes: no
** bound on that side), merged with what the store holds.
** RETURN: the records written; 0 when nothing is writable or a
** contradiction with the store refused the batch (a warning says so).
*/
size_t dab_solvestore_put_bounds(dab_solvestore *s, size_t n, const uint64_t *pos, const int *lower,
                                 const int *upper);

/*
** The stored answer for root: true when the store holds root (and, unless
** value_only, every move) exactly; fills a (value, moves, best) and pv[64]
** (*npv moves along the stored best moves).  Stored move values that
** disagree with the stored value are a warning and a false.
*/
bool dab_solvestore_answer(dab_solvestore *s, uint64_t root, bool value_only, dab_analysis *a,
                           int16_t *pv, int *npv);

/*
** Hooks for the solver's options: set o->on_bound = dab_solvestore_on_bound
** and o->bound_ctx = s (stores the root bounds as they are proved), and
** call dab_solvestore_tick(s) from o->progress (saves a checkpoint of the
** table when one is due; runs in the reporting worker thread).
*/
void dab_solvestore_on_bound(void *s, int lower, int upper);
void dab_solvestore_tick(dab_solvestore *s);

/* Seeds ab's table from every stored record (once per solver). */
void dab_solvestore_seed(dab_solvestore *s, dab_ab *ab);

/*
** Saves a checkpoint of ab's warm table now: its entries with the most
** work below them, bounds included (at most a million), as a killed
** solve's checkpoint holds them, so that a later solver seeded from the
** store (dab_solvestore_seed) starts warm.  For callers that run their own
** searches (the proof runner, between claims; never while ab searches).
** ran_seconds: how long the caller has searched with ab; a file in the
** cache is written only past its checkpoint period (60 s), as for a solve.
** Failures are warnings (opts->warn), once per handle.
*/
void dab_solvestore_checkpoint(dab_solvestore *s, dab_ab *ab, double ran_seconds);

/*
** dab_ab_solve of p that stores each root bound as it is proved (one
** committed transaction each), then the result; a canceled solve leaves
** a checkpoint to resume from.  Same contract as dab_ab_solve.
*/
dab_status dab_solvestore_solve(dab_solvestore *s, dab_ab *ab, uint64_t p, int *value, int *lower,
                                int *upper, dab_err *err);

/*
** The value of every move of root (value v, proved), as
** dab_ab_analyze_moves gives it; stored exact children are not searched
** again and each proved child is stored at once.  Same contract.
*/
dab_status dab_solvestore_analyze(dab_solvestore *s, dab_ab *ab, uint64_t root, int v,
                                  dab_analysis *a, dab_err *err);

/*
** After a finished search of root (value v): stores root with its best
** move, the principal variation pv[0..npv) with its moves, and every
** position within two plies whose value the warm table knows exactly (one
** transaction); after a long search also a checkpoint of its expensive
** exact entries.
*/
void dab_solvestore_finish(dab_solvestore *s, dab_ab *ab, uint64_t root, const dab_analysis *a,
                           bool value_only, int v, const int16_t *pv, int npv);

#endif
