/*
** oracle.h: the one question every client asks: what is this position
** worth, and what is every move worth?  Backed by the first source that
** covers it: a tablebase file, an in-memory retrograde table (the whole
** board, or below the queried position), or exact search with the
** board's persistent solved store, when the caller allows it.
** See Copyright Notice in README.md
*/
#ifndef DAB_ORACLE_H
#define DAB_ORACLE_H

#include "game/board.h"
#include "game/progress.h"
#include "game/analysis.h"
#include "game/dabapi.h"

struct dab_ab_opts;

typedef struct dab_oracle dab_oracle;

/* The choices of dab_oracle_opts below (int-sized: bindings mirror them as int). */
typedef enum dab_oracle_only {
  DAB_ORACLE_ANY = 0, DAB_ORACLE_ONLY_SEARCH = 1, DAB_ORACLE_ONLY_RETRO = 2
} dab_oracle_only;
typedef enum dab_oracle_store {
  DAB_ORACLE_STORE_READ = 0, DAB_ORACLE_STORE_WRITE = 1, DAB_ORACLE_STORE_NONE = 2
} dab_oracle_store;
typedef enum dab_oracle_pdb { DAB_ORACLE_PDB_OFF = 0, DAB_ORACLE_PDB_ON = 1 } dab_oracle_pdb;

typedef struct dab_oracle_opts {
  const char *tb_dir;       /* --tb DIR, searched first; NULL = none */
  int max_build_free;       /* build in memory when the board has at most
                               this many lines (0 = default 24, i.e. 3x3); a
                               board of at most 20 lines with no file is solved
                               in memory whatever this says (nothing is written) */
  int threads;              /* for builds and searches; 0 = all cores */
  /* Exact search for boards no table covers (up to 64 lines: 4x4, 3x5,
  ** 4x5, ...).  Off by default: a query near the start of a big board can
  ** take minutes (4x4's empty board: ~95 s on 2 cores), so the caller
  ** opts in and usually sets a node limit. */
  bool search;
  uint64_t search_hash;       /* the solver's table in bytes; 0 = sized by each
                                 query (dab_oracle_search_hash), grown as needed */
  uint64_t search_node_limit; /* per query; 0 = none (DAB_ECANCELED past it) */
  /* Zero is the default for each field below, so a caller (or a binding)
  ** that sets only the fields above gets the default behaviour. */
  int retro_free;           /* below-root retrograde for boards no table covers: a
                               query with at most this many free lines is answered
                               from a table built below it (2^F bytes), kept while
                               later queries lie below it; 0 = off (<= 32) */
  dab_oracle_only only;     /* DAB_ORACLE_ANY: the sources in order;
                               DAB_ORACLE_ONLY_SEARCH: search even where a table
                               covers the board; DAB_ORACLE_ONLY_RETRO: a
                               retrograde below each query (retro_free, default 32) */
  dab_oracle_store store;   /* the board's solved store, for search: DAB_ORACLE_STORE_READ
                               (answer from it, seed the search), _WRITE (also keep
                               every bound proved, with checkpoints, creating RxC.dab
                               on the search path), _NONE */
  uint64_t mem_limit;       /* memory budget of the tables built; 0 = MemAvailable */
  double checkpoint_seconds;/* _WRITE: save the warm table this often; 0 = adaptive
                               (60 s, or 20x the last checkpoint's cost) */
  const struct dab_ab_opts *search_opts; /* the solver's rules (solver/ab.h); NULL =
                               dab_ab_default_opts.  Table size, threads, node
                               limit, callbacks come from this struct. */
  dab_progress_fn progress; /* builds and searches report here (optional) */
  void *progress_ctx;
  void (*warn)(void *ctx, const char *msg); /* a store that cannot be written, ...:
                               one line each; NULL = silent.  Never stderr. */
  void *warn_ctx;
  dab_cancel_flag *cancel;  /* raised: the running query stops (DAB_ECANCELED) */
  dab_oracle_pdb pdb;       /* the pattern database for search (pdb/pdb.h):
                               DAB_ORACLE_PDB_OFF (the default: measured no faster,
                               docs/pdb.md) searches without it; DAB_ORACLE_PDB_ON
                               loads DAB_PDB_FILE where the tablebases are found, if
                               there is one (a damaged one is skipped with a warning:
                               never wrong) */
  bool read_only;           /* this oracle never creates or changes a file, whatever
                               the environment says: no table built on first use
                               (a board of up to max_build_free lines is solved in
                               memory instead), its store read but never written.
                               false: the process default, read-only mode when
                               DAB_READONLY is set (dabtb_readonly) */
} dab_oracle_opts;

/*
** Opens an oracle for rows x cols.
** RETURN: DAB_OK and *out; DAB_EBOARD (with the command that would make a
** table, when one could) if nothing covers the board and neither search
** nor retro_free is on, or the board has more than 64 lines; DAB_ENOMEM.
** NOTES: after open the oracle is read-only: any number of threads may
** query one oracle at once.  The search and below-root sources answer one
** query at a time (the others wait on a lock; the search table stays warm
** between queries, so the positions of one game get cheaper as it goes).
** The search table is allocated by the first query that searches, sized
** by its free lines and node limit (dab_oracle_search_hash) unless
** search_hash is given, and grows when a later query needs more.  A
** search first looks in the board's solved store (what `dab solve`
** proved), seeds its table from it, and with DAB_ORACLE_STORE_WRITE keeps
** what it proves there (a rerun resumes; in the cache, only what a search
** of real work proved: oracle/solvestore.h).  A board of 21 to 24 lines
** (1x7, 2x4, 3x3) with no tablebase file gets one built on first use (its
** file answers in 0.01 s, solving it takes 0.05-0.2 s of CPU); a smaller
** one is solved in memory on open, in milliseconds, and nothing is written.
*/
DAB_API dab_status dab_oracle_open(int rows, int cols, const dab_oracle_opts *opts, dab_oracle **out,
                                   dab_err *err);
DAB_API void dab_oracle_close(dab_oracle *o);

/* The board geometry of the oracle. */
DAB_API const dab_geom *dab_oracle_geom(const dab_oracle *o);

/* What answers: "tablebase" (a file), "memory" (a retrograde table built
** on open), "retro" (tables built below the queries) or "search". */
DAB_API const char *dab_oracle_source(const dab_oracle *o);

/*
** The search table for a query with free_lines undrawn lines: 512 MiB at
** 36, doubling every two lines (halving below), 16 MiB to 8 GiB; with a
** node limit at most 16 bytes a node (a 100,000-node query gets 16 MiB);
** at most half of mem_limit (0: of MemAvailable).
*/
DAB_API uint64_t dab_oracle_search_hash(int free_lines, uint64_t node_limit, uint64_t mem_limit);

/*
** Expected CPU seconds of an exact search proving the value of a position
** with free_lines undrawn lines, on one thread of the reference machine
** (docs/PERFORMANCE.md's EPYC): interpolated between measured boards
** (2x5 27 lines 0.2 s, 3x4 31 1.3-1.5 s, 2x6 32 3.7 s, 2x7 37 28-46 s,
** 3x5 38 107 s, 4x4 40 about 140 s, 4x5 49 about 3.6e6 s), extrapolated
** x3 a line.  It is the middle of a range: searches of empty boards and
** of positions in play with that many free lines (which cost as much or
** more: 3x4 after one move 1.9 s, 4x4 and 3x5 at 32 free lines 3-5 s) have taken
** DAB_ORACLE_PLAN_LOW to DAB_ORACLE_PLAN_HIGH times it, and every move's
** value DAB_ORACLE_PLAN_MOVES times that (measured 1.0x to 3.3x the
** value's).  Two threads spend 1.0x to 1.3x the CPU time of one and
** finish 1.4x to 1.8x sooner: N > 1 threads on free cores are taken to
** finish DAB_ORACLE_PLAN_SMP * N times sooner than one.
*/
#define DAB_ORACLE_PLAN_LOW 0.5
#define DAB_ORACLE_PLAN_HIGH 2.0
#define DAB_ORACLE_PLAN_MOVES 2.0
#define DAB_ORACLE_PLAN_SMP 0.75
DAB_API double dab_oracle_expected_seconds(int free_lines);

/* The size of the path buffers below: Linux's PATH_MAX, spelled out so a
** strict C11 consumer (no _GNU_SOURCE or _POSIX_C_SOURCE) can include
** this header; a longer path is cut to DAB_ORACLE_PATH_MAX - 1 bytes. */
#define DAB_ORACLE_PATH_MAX 4096

/* What a query would do, said before it starts (dab_oracle_plan_query). */
typedef struct dab_oracle_plan {
  const char *source;      /* "tablebase", "memory", "retro", "stored", "search";
                              NULL when no source covers the position */
  int free_lines;
  uint64_t new_bytes;      /* memory the query allocates first (0: none, or held) */
  uint64_t table_bytes;    /* search: its table (held or to be allocated) */
  double expected_seconds; /* search: dab_oracle_expected_seconds; retro (a table
                              to build): dab_retro_expected_seconds; else 0 */
  char store[DAB_ORACLE_PATH_MAX];    /* search: the solved store file ("" when none yet) */
  bool store_write;        /* ... and whether results are written to it */
  double store_min_seconds;/* > 0: the file would be new in the cache, made only once the
                              search has run this long (DAB_CACHE_MIN_SECONDS) */
} dab_oracle_plan;

/* RETURN: DAB_OK and *plan; DAB_EINPUT for lines beyond the board. */
DAB_API dab_status dab_oracle_plan_query(const dab_oracle *o, const dab_lineset *pos, dab_oracle_plan *plan,
                                         dab_err *err);

/* dab_oracle_query flags. */
enum { DAB_ORACLE_VALUE_ONLY = 1, DAB_ORACLE_PV = 2 };

/* How a query was answered (dab_oracle_query). */
typedef struct dab_oracle_info {
  const char *source;      /* as dab_oracle_plan's source */
  int lower, upper;        /* DAB_ECANCELED: the bounds proved for the value */
  bool value_proved;       /* DAB_ECANCELED while valuing the moves: lower == upper */
  int16_t pv[64];          /* DAB_ORACLE_PV, search or stored: a principal variation */
  int npv;
  uint64_t nodes;          /* search: nodes and seconds of this query */
  double seconds;
  uint64_t tt_capacity, tt_used, tt_probes, tt_hits;
  bool store_serves;       /* a solved store serves this query's board */
  bool store_open;         /* ... a file is open */
  bool store_writable;     /* ... and written to */
  char store[DAB_ORACLE_PATH_MAX];    /* its path ("" when none) */
  uint64_t store_records, store_written; /* in the file; written by this oracle */
  double store_seconds;    /* spent writing */
  bool store_dropped;      /* this query's results were not kept: the search ran under
                              store_min_seconds, too short for a new file in the cache */
  double store_min_seconds;
} dab_oracle_info;

/*
** dab_oracle_analyze with details: flags DAB_ORACLE_VALUE_ONLY (a->value
** only, a->nmoves 0) and DAB_ORACLE_PV; info (may be NULL) says how.
** RETURN: as dab_oracle_analyze; on DAB_ECANCELED info has the bounds.
*/
DAB_API dab_status dab_oracle_query(const dab_oracle *o, const dab_lineset *pos, int flags, dab_analysis *a,
                                    dab_oracle_info *info, dab_err *err);

/*
** Value of pos (Wilson's convention).
** RETURN: DAB_OK, or an error: DAB_EINPUT for lines beyond the board;
** DAB_ECANCELED when a search passes search_node_limit (the message gives
** the bounds it proved); DAB_ECORRUPT / DAB_EIO from a tablebase file.
*/
DAB_API dab_status dab_oracle_value(const dab_oracle *o, const dab_lineset *pos, int *value, dab_err *err);

/* Value of pos and of each legal move, with the best moves.  RETURN: as
** dab_oracle_value (a search's node limit holds for the whole analysis);
** on error *a is unspecified. */
DAB_API dab_status dab_oracle_analyze(const dab_oracle *o, const dab_lineset *pos, dab_analysis *a,
                                      dab_err *err);

/*
** The same two questions for boards of at most 64 lines, with plain
** arguments (for bindings such as python/dab/_lib.py): pos is a line set, bit
** i = line i drawn.  dab_oracle_move_values writes the legal moves in
** increasing order to move[], their values to value[] (64 entries each)
** and their count to *n.  dab_oracle_parse reads a position text of this
** board (RxC, RxC:DBN, RxC@m1,...).
** RETURN: as dab_oracle_value; DAB_EBOARD on a board of more than 64
** lines; DAB_EINPUT for text of another board or malformed text.
*/
DAB_API dab_status dab_oracle_value64(const dab_oracle *o, uint64_t pos, int *value, dab_err *err);
DAB_API dab_status dab_oracle_move_values(const dab_oracle *o, uint64_t pos, int16_t *move, int16_t *value,
                                          int *n, dab_err *err);
DAB_API dab_status dab_oracle_parse(const dab_oracle *o, const char *text, uint64_t *pos, dab_err *err);

/*
** Win/draw/loss (game/analysis.h: dab_analysis_wdl): the best result the
** player to move can reach from pos when the score so far is score_diff
** (the mover's boxes minus the opponent's), and the moves that keep it.
** *result is DAB_WIN, DAB_DRAW or DAB_LOSS; keep[] (64 entries) gets those
** moves in increasing order and *nkeep their count.
** RETURN: as dab_oracle_move_values.
*/
DAB_API dab_status dab_oracle_result(const dab_oracle *o, uint64_t pos, int score_diff, int *result,
                                     int16_t *keep, int *nkeep, dab_err *err);

/*
** Value of pos as proved bounds (boards of at most 64 lines): *lower ==
** *upper is the exact value; *lower < *upper when a search stopped at its
** node limit, which here is no error (capi/vec.h, python/dab label
** calls with exact=False).  Table-backed oracles always answer exactly.
** RETURN: DAB_OK; as dab_oracle_value64 for every other error.
*/
DAB_API dab_status dab_oracle_bounds64(const dab_oracle *o, uint64_t pos, int *lower, int *upper, dab_err *err);

#endif
