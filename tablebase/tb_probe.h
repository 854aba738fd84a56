/*
** tb_probe.h: open a tablebase file and ask the value of any
** position of its board and of every move; check its integrity.
** See Copyright Notice in README.md
*/
#ifndef DAB_TB_PROBE_H
#define DAB_TB_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "game/analysis.h"
#include "game/board.h"
#include "game/progress.h"
#include "game/dabapi.h"

/*
** THREAD SAFETY: a dabtb handle is read-only after dabtb_open; any number
** of threads may call every function below on one handle at once (blocks
** are decompressed into a shared cache published with atomics), except
** dabtb_close, which must not overlap any other call on that handle.
** Any number of processes may open one file at once (read-only).  A
** table is read without a lock file; a solved-only file in a writable
** directory is read through LMDB's lock file PATH-lock (made while any
** handle has the file open, removed by the last one to close), so that
** a search storing results there never reuses the pages a reader is
** looking at.  Open after fork(), not before.
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
** version); DAB_ECORRUPT when it is one but damaged, however: cut short
** (truncated), invalid LMDB page structure or second meta page, meta
** checksum mismatch, missing blocks; DAB_ENOMEM.  On error *out is NULL.
** NOTES: checks every B-tree page of the file (so a damaged file is
** refused rather than read out of bounds), magic, format version,
** geometry and the meta checksum, and maps the block directory: about a
** millisecond.  Blocks are verified (XXH3-64) when first decompressed.
*/
DAB_API dab_status dabtb_open(const char *path, const dabtb_opts *opts, dabtb **out, dab_err *err);

/* Closes tb and frees its cache.  NULL is allowed. */
DAB_API void dabtb_close(dabtb *tb);

/* The file tb was opened from (valid until dabtb_close). */
DAB_API const char *dabtb_path(const dabtb *tb);

/* The board geometry of tb (valid until dabtb_close). */
DAB_API const dab_geom *dabtb_geom(const dabtb *tb);

/*
** Value of pos (Wilson's convention: net boxes the player to move gains).
** PARAMETERS: pos, a line set of tb's board; *value receives the value.
** RETURN: DAB_OK; DAB_EINPUT if pos has bits beyond the board's lines;
** DAB_ECORRUPT if a block it needs fails its checksum.
** NOTES: about 0.3-1 us on a warm handle (see docs/formats.md).
*/
DAB_API dab_status dabtb_value(const dabtb *tb, uint64_t pos, int *value, dab_err *err);

/*
** Values of many positions: values[i] = value of pos[i], i < n.
** RETURN: DAB_OK, or the first error (its message names the index); then
** values[] beyond that index are unspecified.
*/
DAB_API dab_status dabtb_value_batch(const dabtb *tb, const uint64_t *pos, size_t n, int8_t *values,
                                     dab_err *err);

/*
** Every legal move of pos with its value for the mover (k + value(child)
** for a move completing k >= 1 boxes, else -value(child)).
** PARAMETERS: moves[] and values[] need room for the board's line count;
** *nmoves receives the count (0 when the board is full).  Moves come in
** increasing line order.
** RETURN: as dabtb_value.
*/
DAB_API dab_status dabtb_move_values(const dabtb *tb, uint64_t pos, int16_t *moves, int16_t *values,
                                     int *nmoves, dab_err *err);

/*
** The full answer for pos: value, every move's value, and the best moves
** (those whose value equals the position's), as `dab solve` prints it.
** RETURN: as dabtb_value.
*/
DAB_API dab_status dabtb_analyze(const dabtb *tb, uint64_t pos, dab_analysis *a, dab_err *err);

/*
** The optimal moves of pos in increasing order into best[] (room for the
** line count); *nbest receives their count (0 on a full board).
** RETURN: as dabtb_value.
*/
DAB_API dab_status dabtb_best_moves(const dabtb *tb, uint64_t pos, int16_t *best, int *nbest,
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
DAB_API void dabtb_get_coverage(const dabtb *tb, dabtb_coverage *c);

/* False for a solved-only file (meta table=none: a board without a
** retrograde table, holding only solved records); such a handle answers
** no position (dabtb_value and the like return DAB_EBOARD) and its
** coverage counts only `solved`. */
DAB_API bool dabtb_has_table(const dabtb *tb);

/* True when tb answers pos of a rows x cols board (right board, no
** lines beyond it; never for a solved-only file). */
DAB_API bool dabtb_covers(const dabtb *tb, int rows, int cols, uint64_t pos);

/*
** Parses position text (RxC, RxC:DBN, RxC@moves) for tb's board.
** RETURN: DAB_OK and *pos; DAB_EINPUT (malformed, or another board: the
** message names both boards).
*/
DAB_API dab_status dabtb_parse(const dabtb *tb, const char *text, uint64_t *pos, dab_err *err);

/*
** Calls fn(ctx, key, value) for every meta record, in key order (values
** are NUL-terminated copies).  RETURN: DAB_OK, or the error of the read.
*/
DAB_API dab_status dabtb_meta_each(const dabtb *tb, void (*fn)(void *ctx, const char *key, const char *value),
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
DAB_API dab_status dabtb_check(const dabtb *tb, dab_progress_fn progress, void *progress_ctx,
                               dab_cancel_flag *cancel, dab_err *err);

#endif
