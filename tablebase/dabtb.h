/*
** dabtb.h: the public API of dab tablebases: open a file, ask the value
** of any position of its board and of every move, check its integrity.
** See Copyright Notice in README.md
*/
#ifndef DABTB_H
#define DABTB_H

#include <stddef.h>
#include <stdint.h>
#include "game/board.h"
#include "game/progress.h"
#include "game/analysis.h"
#include "symmetry/sckey.h"

/*
** THREAD SAFETY: a dabtb handle is read-only after dabtb_open; any number
** of threads may call every function below on one handle at once (blocks
** are decompressed into a shared cache published with atomics), except
** dabtb_close, which must not overlap any other call on that handle.
** Any number of processes may open one file at once (read-only, no lock
** file).  Open after fork(), not before.
**
** Positions are line sets as uint64_t: bit i set = line i drawn (OpenSpiel
** ids, see game/board.h).  Every position of the board is answered: any
** symmetric image, and positions with boxes ready to capture (resolved at
** probe time by the capture rule, as the retrograde solver does).
**
** Errors: functions return a dab_status and, when err is non-NULL, a
** one-line message.  DAB_ECORRUPT means the file failed an integrity
** check (no value is returned then: a value is never silently wrong);
** DAB_EINPUT a position not of this board; DAB_EIO an unreadable file.
*/

typedef struct dabtb dabtb;

typedef struct dabtb_opts {
  size_t cache_bytes;  /* decompressed blocks kept in memory; 0 = 4 GiB or half
                          of MemAvailable at open, whichever is more.
                          Beyond it, probes decompress into scratch (slow). */
} dabtb_opts;

/*
** Opens the tablebase at path (read-only).
** PARAMETERS: path of a .dab file; opts may be NULL.
** RETURN: DAB_OK and *out; DAB_EINPUT when path is not a usable
** tablebase (missing, not LMDB, no dab meta, bad magic, another format
** version, truncated); DAB_ECORRUPT when it is one but damaged (invalid
** LMDB page structure, meta checksum mismatch, missing blocks);
** DAB_ENOMEM.  On error *out is NULL.
** NOTES: checks every B-tree page of the file (so a damaged file is
** refused rather than read out of bounds), magic, format version,
** geometry and the meta checksum, and maps the block directory: about a
** millisecond.  Blocks are verified (XXH3-64) when first decompressed.
*/
dab_status dabtb_open(const char *path, const dabtb_opts *opts, dabtb **out, dab_err *err);

/* Closes tb and frees its cache.  NULL is allowed. */
void dabtb_close(dabtb *tb);

/* The file tb was opened from (valid until dabtb_close). */
const char *dabtb_path(const dabtb *tb);

/* The board geometry of tb (valid until dabtb_close). */
const dab_geom *dabtb_geom(const dabtb *tb);

/*
** Value of pos (Wilson's convention: net boxes the player to move gains).
** PARAMETERS: pos, a line set of tb's board; *value receives the value.
** RETURN: DAB_OK; DAB_EINPUT if pos has bits beyond the board's lines;
** DAB_ECORRUPT if a block it needs fails its checksum.
** NOTES: about 0.3-1 us on a warm handle (see docs/formats.md).
*/
dab_status dabtb_value(const dabtb *tb, uint64_t pos, int *value, dab_err *err);

/*
** Values of many positions: values[i] = value of pos[i], i < n.
** RETURN: DAB_OK, or the first error (its message names the index); then
** values[] beyond that index are unspecified.
*/
dab_status dabtb_value_batch(const dabtb *tb, const uint64_t *pos, size_t n, int8_t *values,
                             dab_err *err);

/*
** Every legal move of pos with its value for the mover (k + value(child)
** for a move completing k >= 1 boxes, else -value(child)).
** PARAMETERS: moves[] and values[] need room for the board's line count;
** *nmoves receives the count (0 when the board is full).  Moves come in
** increasing line order.
** RETURN: as dabtb_value.
*/
dab_status dabtb_move_values(const dabtb *tb, uint64_t pos, int16_t *moves, int16_t *values,
                             int *nmoves, dab_err *err);

/*
** The full answer for pos: value, every move's value, and the best moves
** (those whose value equals the position's), as `dab solve` prints it.
** RETURN: as dabtb_value.
*/
dab_status dabtb_analyze(const dabtb *tb, uint64_t pos, dab_analysis *a, dab_err *err);

/*
** The optimal moves of pos in increasing order into best[] (room for the
** line count); *nbest receives their count (0 on a full board).
** RETURN: as dabtb_value.
*/
dab_status dabtb_best_moves(const dabtb *tb, uint64_t pos, int16_t *best, int *nbest,
                            dab_err *err);

/* What a file covers: its board and how many positions it answers. */
typedef struct dabtb_coverage {
  int rows, cols, nlines;
  uint64_t positions;       /* every line set of the board: 2^nlines, all answered */
  uint64_t indexed;         /* entries in the dense table (quiet, border-normal) */
  uint64_t canonical;       /* of those, canonical ones (the stored values) */
  uint64_t solved;          /* entries of the sparse `solved` map */
  uint64_t shapes;          /* entries of the shapes store (graph-keyed checkpoint bounds) */
  int format_version;
} dabtb_coverage;

/* Fills *c.  Never fails. */
void dabtb_get_coverage(const dabtb *tb, dabtb_coverage *c);

/* False for a solved-only file (meta table=none: a board without a
** retrograde table, holding only solved records); such a handle answers
** no position (dabtb_value and the like return DAB_EBOARD) and its
** coverage counts only `solved`. */
bool dabtb_has_table(const dabtb *tb);

/* True when tb answers pos of a rows x cols board (right board, no
** lines beyond it; never for a solved-only file). */
bool dabtb_covers(const dabtb *tb, int rows, int cols, uint64_t pos);

/*
** Parses position text (RxC, RxC:DBN, RxC@moves) for tb's board.
** RETURN: DAB_OK and *pos; DAB_EINPUT (malformed, or another board: the
** message names both boards).
*/
dab_status dabtb_parse(const dabtb *tb, const char *text, uint64_t *pos, dab_err *err);

/*
** Calls fn(ctx, key, value) for every meta record, in key order (values
** are NUL-terminated copies).  RETURN: DAB_OK, or the error of the read.
*/
dab_status dabtb_meta_each(const dabtb *tb, void (*fn)(void *ctx, const char *key, const char *value),
                           void *ctx, dab_err *err);

/*
** Integrity check: decompresses every block, compares each payload with
** its XXH3-64 and each layer with its XXH3-128, and reads and checks every
** solved record (its XXH3-64, bounds within the boxes left, canonical
** key, best move undrawn).
** PARAMETERS: progress may be NULL.
** RETURN: DAB_OK; DAB_ECORRUPT naming the first bad block ("layer K block
** N: ...") or record ("solved key 0x...: ..."); DAB_ECANCELED.
*/
dab_status dabtb_check(const dabtb *tb, dab_progress_fn progress, void *progress_ctx,
                       dab_cancel_flag *cancel, dab_err *err);

/* ---- Finding and building files ------------------------------------- */

/*
** Looks for "RxC.dab" in: tb_dir (if non-NULL), then each directory of
** $DAB_TB_PATH (colon-separated), then the user's cache ($XDG_CACHE_HOME/dab
** or ~/.cache/dab), then data/tb/ of the dab project (found from the
** location of the running binary or libdab.so).  $DAB_TB_NO_PROJECT=1
** leaves the cache and the project out.
** RETURN: DAB_OK with the path in path[len]; DAB_EIO when no directory has
** it (the message lists where it looked and names `dab build RxC`).
*/
dab_status dabtb_find(int rows, int cols, const char *tb_dir, char *path, size_t len, dab_err *err);

/*
** Where a new RxC.dab goes: tb_dir if given, else the first directory of
** $DAB_TB_PATH, else the user's cache, $XDG_CACHE_HOME/dab or
** ~/.cache/dab (created if missing).  The project's data/tb/ is searched
** (dabtb_find: after the cache) but written only when named by --tb or
** $DAB_TB_PATH.
** RETURN: DAB_OK and the file path; DAB_EIO if there is no such place,
** or in read-only mode (dabtb_readonly), saying so.
*/
dab_status dabtb_default_path(int rows, int cols, const char *tb_dir, char *path, size_t len,
                              dab_err *err);

/* True in read-only mode ($DAB_READONLY set and not "0"): no query may
** create or change a file; dabtb_default_path refuses, so nothing is
** built on first use (oracles of small boards solve in memory instead). */
bool dabtb_readonly(void);

/* For `dab info`: lookup gets the directories dabtb_find searches, in
** order, ':'-separated; write where dabtb_default_path would put a new
** file (a directory), or "nowhere (why)".  Both are truncated to fit. */
void dabtb_where(const char *tb_dir, char *lookup, size_t llen, char *write, size_t wlen);

/* Boards with at most this many lines (3x3) are built on first use. */
#define DABTB_AUTO_BUILD_LINES 24

/*
** Finds and opens the tablebase of rows x cols; when none exists and the
** board has at most DABTB_AUTO_BUILD_LINES lines, builds it first (well
** under a second) at dabtb_default_path, holding an flock on PATH-lock so
** that processes starting together build it once.
** RETURN: as dabtb_open and dabtb_find; DAB_EBOARD for larger boards
** without a file (the message names the build command).
*/
dab_status dabtb_open_board(int rows, int cols, const char *tb_dir, dabtb **out, dab_err *err);

/* Build options (dabtb_build).  Zeroes give the defaults. */
typedef struct dabtb_build_opts {
  int threads;                /* 0 = all cores */
  int zstd_level;             /* 0 = DABTB_DEFAULT_ZSTD_LEVEL */
  uint32_t block_entries;     /* 0 = DABTB_DEFAULT_BLOCK_ENTRIES */
  bool fill_true;             /* store every entry's true value (for measurement;
                                 implies full_array) */
  bool full_array;            /* solve with the retrograde table (2^L bytes, boards
                                 of at most 32 lines) instead of the layered builder */
  bool restart;               /* layered: discard the finished layers of an earlier
                                 run instead of resuming from them */
  uint64_t mem_limit;         /* refuse plans above this many bytes; 0 = MemAvailable */
  dab_progress_fn progress;   /* optional; the layered builder reports the entries
                                 done in this run, from inside a layer only */
  void *progress_ctx;
  /* optional: called with progress_ctx once per layer the layered builder
  ** finishes (from the calling thread, after its file is on disk) */
  void (*layer_done)(void *ctx, int layer, uint64_t entries, uint64_t canonical, double seconds);
  dab_cancel_flag *cancel;    /* optional */
} dabtb_build_opts;

#define DABTB_DEFAULT_ZSTD_LEVEL 12
#define DABTB_DEFAULT_BLOCK_ENTRIES (1u << 20)

/* What a build did. */
typedef struct dabtb_build_report {
  double retro_seconds, encode_seconds, write_seconds, total_seconds;
  uint64_t file_bytes, payload_bytes, compressed_bytes, blocks;
  uint64_t indexed, canonical;
  int value;                  /* of the empty board */
  bool layered;               /* built by the layered builder */
  int layers_resumed;         /* finished layers of an earlier run reused (layered) */
} dabtb_build_report;

/*
** The layered builder (the default; tb_layered.c).  It never holds a
** table of all 2^L positions: layer by layer from the full board down,
** it computes the value of every canonical indexed position of layer K
** from its moves (captures resolved by the capture rule, exactly as the
** probes do), reading the children from the finished layers K+1..L,
** one byte per indexed entry, memory-mapped from their files.  Each
** finished layer is written to PATH.layers/KK (header + bytes, XXH3-64),
** so a killed or canceled build resumes at the last finished layer; the
** directory is removed once the file is in place.  A layer's work is
** split into chunks of consecutive ranks (independent slices: each entry
** depends only on finished layers), shared by the threads.
**
** Peak memory: every layer, i.e. the indexed entries in bytes (1.9 GB
** for 3x5, 6.1 GB for 4x4), plus the compressed blocks before they are
** written.  Temporary disk: the same bytes in PATH.layers/, plus the
** file twice (written, then compacted).
*/
#define DABTB_PLAN_MAX_LAYERS 65

typedef struct dabtb_plan {
  int rows, cols, nlines, ntrans, threads;
  bool full_array;                          /* the plan of the full-array builder */
  uint64_t entries[DABTB_PLAN_MAX_LAYERS];  /* indexed entries of layer k (k lines drawn) */
  double layer_seconds[DABTB_PLAN_MAX_LAYERS]; /* estimated time of each layer */
  uint64_t indexed;                         /* sum of entries */
  uint64_t peak_bytes;                      /* memory the build needs at its peak */
  uint64_t disk_bytes;                      /* temporary disk at the peak */
  uint64_t file_bytes;                      /* the finished file (estimate) */
  uint64_t mem_limit;                       /* the figure peak_bytes was held against; 0 = unknown */
  bool fits;                                /* peak_bytes <= mem_limit (or no limit known) */
  double seconds;                           /* estimated wall time on `threads` threads */
  double sample_rate;                       /* entries per second per thread of the timed sample */
  int layers_done;                          /* finished layers already on disk (a resume) */
} dabtb_plan;

/*
** The plan of `dabtb_build(rows, cols, path, opts)` before anything runs:
** exact entries per layer (transfer-matrix counts), peak memory,
** temporary disk, and an estimated time: the builder's own inner loop is
** timed on a sample of every layer with a stand-in for the finished
** layers, and scaled by a factor measured on 3x4 and 2x6 against real
** builds (docs/formats.md).  Takes about a second.
** RETURN: DAB_OK and *plan; DAB_EBOARD when no table can be built for
** the board (the message says why); DAB_ENOMEM.
*/
dab_status dabtb_build_plan(int rows, int cols, const char *path, const dabtb_build_opts *opts,
                            dabtb_plan *plan, dab_err *err);

/*
** DAB_OK when dabtb_build can build rows x cols (the index covers it:
** a shorter side of at most 4 and fewer than 2^32 entries per layer: up
** to 3x5, 4x4 and 2xN, 3xN for N <= 5 or so); else DAB_EBOARD with the
** reason, naming what works instead.  Memory is not considered here.
*/
dab_status dabtb_buildable(int rows, int cols, dab_err *err);

/*
** Solves rows x cols (the layered builder, or the retrograde table with
** opts->full_array) and writes the tablebase to path: into path.tmp.PID.TID (MDB_NOSYNC, MDB_APPEND), synced, compacted
** into path.compact.PID.TID, synced, then renamed onto path.  Stale temporaries of
** dead builds are removed first.  A build killed at any point leaves no
** file at path, or the previous one.
** The layered builder keeps its finished layers in path.layers/ until
** the file is in place (a rerun resumes from them; opts->restart drops
** them); concurrent builds of one path take turns on its lock.
** RETURN: DAB_OK (rep may be NULL); DAB_EBOARD (board beyond the
** index, or beyond the retrograde with full_array), DAB_ENOMEM (the plan
** does not fit opts->mem_limit or MemAvailable; the message says how much
** it needs), DAB_EIO, DAB_ECANCELED (temporaries removed; finished layers
** are kept for the resume).
*/
dab_status dabtb_build(int rows, int cols, const char *path, const dabtb_build_opts *opts,
                       dabtb_build_report *rep, dab_err *err);

/* ---- The solved store --------------------------------------------------- */

/*
** The `solved` database of a board's file holds what searches proved:
** for a position p, bounds lower <= value(p) <= upper (exact when equal),
** optionally a best move, and the work spent.  Records are keyed by the
** canonical key of p with border equivalence (dab_sym_canon64(.., true)),
** so every symmetric or border-equivalent image of p shares one record.
** Layout: tb_format.h (DABTB_SOLVED_REC) and docs/formats.md.
**
** Boards without a retrograde table get a "solved-only" file (meta,
** empty blocks, solved), created on the first write.
**
** THREAD SAFETY: one dabtb_store handle is used by one thread at a time.
** Any number of processes may read a file while one process writes it:
** each write is one LMDB transaction (atomic: a kill, even kill -9,
** leaves the previous or the new state), writers are serialised by
** LMDB's lock file PATH-lock, and readers go through it too, so a
** writer never reuses the pages a reader is looking at.  In a read-only
** directory a store opens read-only without the lock file.
*/
typedef struct dabtb_store dabtb_store;

/* One solved record, in the frame of the position asked about. */
typedef struct dabtb_solved {
  int lower, upper;    /* lower <= value <= upper (Wilson's convention) */
  int best;            /* a best move (line id), -1 = none */
  uint64_t nodes;      /* search work behind these bounds */
  double seconds;
  int work;            /* 0: the result of a whole solve (kept first when
                       ** seeding a search); 1..63: bounds a checkpoint saved
                       ** from a search's table, 1 + floor(log2(nodes below)) */
} dabtb_solved;

/* dabtb_store_open modes. */
enum {
  DABTB_STORE_READ = 0,    /* read; the file must exist */
  DABTB_STORE_WRITE = 1,   /* read and write; the file must exist */
  DABTB_STORE_CREATE = 3   /* read and write; create a solved-only file if missing */
};

/*
** Opens the solved store of the rows x cols file at path.
** PARAMETERS: mode, one of DABTB_STORE_*.
** RETURN: DAB_OK and *out; DAB_EIO when the file is missing (READ/WRITE)
** or cannot be written or created (the message says why: a read-only
** directory, ...); DAB_EINPUT when path is not a dab tablebase, is of
** another board or another format version; DAB_ECORRUPT; DAB_ENOMEM.
** On error *out is NULL.
** NOTES: the file is validated as dabtb_open does.  Opening a format-1
** file for writing upgrades it to format 2 in one transaction (its meta
** format_version and checksum; format 1 never held solved records).
** Creating a file is atomic too: it is written beside path and linked
** into place, so concurrent creators agree on one file.
*/
dab_status dabtb_store_open(const char *path, int rows, int cols, int mode, dabtb_store **out,
                            dab_err *err);

/* Closes s.  NULL is allowed. */
void dabtb_store_close(dabtb_store *s);

/* The file's path; true when s was opened for writing. */
const char *dabtb_store_path(const dabtb_store *s);
bool dabtb_store_writable(const dabtb_store *s);

/* The canonical key of position pos (its record's key). */
uint64_t dabtb_store_key(const dabtb_store *s, uint64_t pos);

/*
** Looks pos up.
** RETURN: DAB_OK with *found (and *rec, best move in pos's frame, when
** found); DAB_EINPUT when pos has lines beyond the board; DAB_ECORRUPT
** when its record fails its checksum or sanity checks; DAB_EIO.
** NOTES: one short read transaction (a few microseconds).
*/
dab_status dabtb_store_get(dabtb_store *s, uint64_t pos, dabtb_solved *rec, bool *found,
                           dab_err *err);

/*
** Stores n records (pos[i] with recs[i]) in ONE transaction, merged with
** what the file holds: bounds are intersected (all bounds are true
** bounds), then rounded to the value's parity (value = boxes left mod 2);
** the best move is the new one when given, else the old; nodes and
** seconds are the larger of the two (a writer continuing a stored proof
** passes old + new); work is 0 when either is 0 (a whole solve's result
** stays one), else the larger.  Two records for one key within the call merge too.
** Bounds beyond -R..R (R = open boxes of the position; e.g. -128/127 for
** "none") are clamped: they hold trivially.
** RETURN: DAB_OK; DAB_EINPUT (a position beyond the board, bounds that
** leave no value of the right parity, a best move not undrawn, or work not 0..63);
** DAB_EINTERNAL when the intersection with the stored bounds is empty
** (one of them is wrong: nothing is written); DAB_EIO (read-only handle,
** disk full: nothing is written); DAB_ECORRUPT (a stored record is bad).
*/
dab_status dabtb_store_put(dabtb_store *s, size_t n, const uint64_t *pos, const dabtb_solved *recs,
                           dab_err *err);

/*
** Calls fn(ctx, key, rec) for every record in key order (key is the
** canonical position; rec's best move is in key's frame), in one read
** transaction; fn returns non-zero to stop early.
** RETURN: DAB_OK; DAB_ECORRUPT at the first bad record; DAB_EIO.
*/
dab_status dabtb_store_each(dabtb_store *s, int (*fn)(void *ctx, uint64_t key, const dabtb_solved *rec),
                            void *ctx, dab_err *err);

/* Number of records.  RETURN: DAB_OK, or DAB_EIO. */
dab_status dabtb_store_count(dabtb_store *s, uint64_t *n, dab_err *err);

/*
** Shapes: bounds keyed by the solver's Strings-and-Coins graph keys
** (symmetry/sckey.h, hashed with the key version DAB_SCKEY_VERSION in the
** database name), for checkpoints of a search whose table is keyed by
** graph shapes rather than positions.  A shape names no position of the
** board: it only seeds a later search (dab_ab_seed_key).
*/
#define DABTB_STR_(x) #x
#define DABTB_STR(x) DABTB_STR_(x)
#define DABTB_SHAPES_DB "shapes" DABTB_STR(DAB_SCKEY_VERSION) /* "shapes3" */

typedef struct dabtb_shape {
  uint64_t key;        /* graph key */
  uint32_t check;      /* its check bits (solver/tt.h) */
  int lower, upper;    /* proved bounds */
  int work;            /* log2 of the search work behind them */
} dabtb_shape;

/*
** Stores n shape records in ONE transaction, merged with the stored ones
** (bounds intersected, work the larger).
** RETURN: DAB_OK; DAB_EINTERNAL when an intersection is empty (nothing
** written); DAB_EIO (read-only handle, disk full: nothing written);
** DAB_ECORRUPT (a stored record is bad).
*/
dab_status dabtb_shapes_put(dabtb_store *s, size_t n, const dabtb_shape *recs, dab_err *err);

/*
** Calls fn(ctx, rec) for every shape record, in one read transaction; fn
** returns non-zero to stop.  RETURN: DAB_OK (also when none are stored);
** DAB_ECORRUPT at the first bad record; DAB_EIO.
*/
dab_status dabtb_shapes_each(dabtb_store *s, int (*fn)(void *ctx, const dabtb_shape *rec), void *ctx,
                             dab_err *err);

/* Number of shape records.  RETURN: DAB_OK (0 when none are stored), or
** DAB_EIO. */
dab_status dabtb_shapes_count(dabtb_store *s, uint64_t *n, dab_err *err);

/*
** Re-checks what a store can without searching: every record as
** dabtb_check does, and every record whose children all have records
** against them: with move values m_i in [a_i, b_i] (from the children's
** bounds and the boxes each move completes), value = max m_i must meet
** [lower, upper], i.e. max a_i <= upper and lower <= max b_i.
** RETURN: DAB_OK with *records and *checked (records checked against
** their children); DAB_ECORRUPT naming the first inconsistent key;
** DAB_ECANCELED.
*/
dab_status dabtb_store_verify(dabtb_store *s, dab_cancel_flag *cancel, uint64_t *records,
                              uint64_t *checked, dab_err *err);

#endif
