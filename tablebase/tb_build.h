/*
** tb_build.h: building tablebase files: the plan, the one-process
** build, and the layer slices a build spread over processes computes.
** See Copyright Notice in README.md
*/
#ifndef DAB_TB_BUILD_H
#define DAB_TB_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include "game/board.h"
#include "game/progress.h"
#include "game/dabapi.h"

/*
** THREAD SAFETY: dabtb_build, dabtb_build_plan and dabtb_buildable share
** no state: any number may run at once on different paths (two builds of
** one path take turns on its layer lock).  A build runs its own threads
** (opts->threads); its callbacks are called from the calling thread.
** A dabtb_lview is used by one thread at a time (dabtb_layer_slice runs
** threads of its own inside).
*/

/* The finished layers a layer's computation reads (see dabtb_layer_slice). */
typedef struct dabtb_lview dabtb_lview;

/*
** A layered build's hook for computing one layer elsewhere (the MPI
** driver, service/mpi_build.c): called once per layer from the top down
** with the builder's view (every layer above `layer` finished), it
** fills out[0..entries) with layer `layer`'s bytes, in rank order, and
** *canonical with the count of canonical entries.  The result must be
** what dabtb_layer_slice gives for [0, entries): the builder writes it
** as its own.  RETURN: DAB_OK, or an error (the build stops with it;
** finished layers are kept for a resume).
*/
typedef dab_status (*dabtb_layer_fn)(void *ctx, const dabtb_lview *view, int layer, uint64_t entries,
                                     uint8_t *out, uint64_t *canonical, dab_err *err);

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
  dabtb_layer_fn layer_fn;    /* optional (layered builder): computes each layer in
                                 place of the builder's threads; NULL = here */
  void *layer_ctx;            /* passed to layer_fn */
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
** for 3x5, 6.1 GB for 4x4), plus the file twice (the compressed blocks
** before they are written, then the written file read back through
** LMDB's map by the compaction) and a zstd context per thread.
** Temporary disk: the same bytes in PATH.layers/, plus the file twice
** (written, then compacted).
*/
#define DABTB_PLAN_MAX_LAYERS 65
/* The spread of the time estimate: a build's CPU time has come out between
** 0.55x (4x4; 3x5 0.66x) and 1.05x (2x5, 3x4, 2x6) of the plan's, whose
** timed sample itself varies by 1.2x from run to run (docs/formats.md). */
#define DABTB_PLAN_LOW 0.5
#define DABTB_PLAN_HIGH 1.5

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
  double seconds;                           /* estimated wall time on `threads` free cores:
                                               seconds * threads CPU-seconds, which real
                                               builds have met within DABTB_PLAN_LOW ..
                                               DABTB_PLAN_HIGH times (docs/formats.md) */
  double sample_rate;                       /* entries per second per thread of the timed sample */
  int layers_done;                          /* finished layers already on disk (a resume) */
} dabtb_plan;

/*
** The plan of `dabtb_build(rows, cols, path, opts)` before anything runs:
** exact entries per layer (transfer-matrix counts), peak memory,
** temporary disk, and an estimated time: the builder's own inner loop is
** timed on a sample of every layer with a stand-in for the finished
** layers, and scaled by a factor measured on 3x4 and 2x6 against real
** builds (docs/formats.md); peak memory and the file's size from the
** measured bytes of real builds (3x4, 3x5, 4x4).  Takes about a second.
** RETURN: DAB_OK and *plan; DAB_EBOARD when no table can be built for
** the board (the message says why); DAB_ENOMEM.
*/
DAB_API dab_status dabtb_build_plan(int rows, int cols, const char *path, const dabtb_build_opts *opts,
                                    dabtb_plan *plan, dab_err *err);

/*
** DAB_OK when dabtb_build can build rows x cols (the index covers it:
** a shorter side of at most 4 and fewer than 2^32 entries per layer: up
** to 3x5, 4x4 and 2xN, 3xN for N <= 5 or so); else DAB_EBOARD with the
** reason, naming what works instead.  Memory is not considered here.
*/
DAB_API dab_status dabtb_buildable(int rows, int cols, dab_err *err);

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
DAB_API dab_status dabtb_build(int rows, int cols, const char *path, const dabtb_build_opts *opts,
                               dabtb_build_report *rep, dab_err *err);

/* ---- Layer slices: one build over many processes ------------------- */

/*
** A layer's entries split into slices by rank range: the bytes of ranks
** [lo, hi) of layer K depend only on the finished layers K+1..L, so any
** split, computed anywhere and put together in rank order, gives the
** same layer, byte for byte.  The MPI driver computes the slices on many
** ranks and assembles them on rank 0, which writes the file
** (docs/formats.md, "Layered builds beyond one machine").
*/

/*
** A standalone view of the rows x cols board with no layers yet, for a
** process that computes slices of another process's build.
** PARAMETERS: threads for dabtb_layer_slice (0 = all cores).
** RETURN: DAB_OK and *out; DAB_EBOARD (no table can be built for the
** board, as dabtb_buildable); DAB_ENOMEM.  On error *out is NULL.
** NOTES: holds the index's rank tables (tens of MB for 4x4), not layers.
*/
DAB_API dab_status dabtb_lview_new(int rows, int cols, int threads, dabtb_lview **out, dab_err *err);

/* Frees a view from dabtb_lview_new (not the layers it was given).  NULL
** and the builder's own view (passed to layer_fn) are ignored. */
DAB_API void dabtb_lview_free(dabtb_lview *v);

/* The board's line count L (layers 0..L). */
DAB_API int dabtb_lview_lines(const dabtb_lview *v);

/* Indexed entries of layer k (0 for k outside 0..L). */
DAB_API uint64_t dabtb_lview_entries(const dabtb_lview *v, int k);

/* The bytes of finished layer k (dabtb_lview_entries(v, k) of them, the
** layer file's payload), or NULL when not finished or empty. */
DAB_API const uint8_t *dabtb_lview_layer(const dabtb_lview *v, int k);

/*
** Gives a standalone view the finished layer k: data holds its
** dabtb_lview_entries(v, k) bytes and must stay valid (unchanged) while
** v is used; v does not free it.
** RETURN: DAB_OK; DAB_EINPUT (k out of range, or v is a builder's view).
*/
DAB_API dab_status dabtb_lview_set_layer(dabtb_lview *v, int k, const uint8_t *data, dab_err *err);

/*
** Computes ranks [lo, hi) of layer `layer` into out[0 .. hi - lo) on the
** view's threads, reading its finished layers layer+1..L.
** PARAMETERS: 0 <= lo <= hi <= dabtb_lview_entries(v, layer).
** RETURN: DAB_OK and *canonical (canonical entries in the slice);
** DAB_EINPUT (a range out of bounds, or a layer above `layer` not
** given: the message names it); DAB_EINTERNAL (a finished layer
** contradicts the position: layers of another build).
** NOTES: the same bytes as the one-process build for any lo, hi.
*/
DAB_API dab_status dabtb_layer_slice(const dabtb_lview *v, int layer, uint64_t lo, uint64_t hi, uint8_t *out,
                                     uint64_t *canonical, dab_err *err);

#endif
