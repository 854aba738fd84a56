/*
** tb_store.h: the solved store of a board's file: bounds proved by
** searches, keyed by canonical position, and graph-keyed shapes.
** See Copyright Notice in README.md
*/
#ifndef DAB_TB_STORE_H
#define DAB_TB_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "game/board.h"
#include "game/progress.h"
#include "symmetry/sckey.h"
#include "game/dabapi.h"

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
DAB_API dab_status dabtb_store_open(const char *path, int rows, int cols, int mode, dabtb_store **out,
                                    dab_err *err);

/* Closes s.  NULL is allowed. */
DAB_API void dabtb_store_close(dabtb_store *s);

/* The file's path; true when s was opened for writing. */
DAB_API const char *dabtb_store_path(const dabtb_store *s);
DAB_API bool dabtb_store_writable(const dabtb_store *s);

/* The canonical key of position pos (its record's key). */
DAB_API uint64_t dabtb_store_key(const dabtb_store *s, uint64_t pos);

/*
** Looks pos up.
** RETURN: DAB_OK with *found (and *rec, best move in pos's frame, when
** found); DAB_EINPUT when pos has lines beyond the board; DAB_ECORRUPT
** when its record fails its checksum or sanity checks; DAB_EIO.
** NOTES: one short read transaction (a few microseconds).
*/
DAB_API dab_status dabtb_store_get(dabtb_store *s, uint64_t pos, dabtb_solved *rec, bool *found,
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
DAB_API dab_status dabtb_store_put(dabtb_store *s, size_t n, const uint64_t *pos, const dabtb_solved *recs,
                                   dab_err *err);

/*
** Calls fn(ctx, key, rec) for every record in key order (key is the
** canonical position; rec's best move is in key's frame), in one read
** transaction; fn returns non-zero to stop early.
** RETURN: DAB_OK; DAB_ECORRUPT at the first bad record; DAB_EIO.
*/
DAB_API dab_status dabtb_store_each(dabtb_store *s, int (*fn)(void *ctx, uint64_t key, const dabtb_solved *rec),
                                    void *ctx, dab_err *err);

/* Number of records.  RETURN: DAB_OK, or DAB_EIO. */
DAB_API dab_status dabtb_store_count(dabtb_store *s, uint64_t *n, dab_err *err);

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
DAB_API dab_status dabtb_shapes_put(dabtb_store *s, size_t n, const dabtb_shape *recs, dab_err *err);

/*
** Calls fn(ctx, rec) for every shape record, in one read transaction; fn
** returns > 0 to stop, < 0 to cancel.  RETURN: DAB_OK (also when none are
** stored, or fn stopped it); DAB_ECANCELED; DAB_ECORRUPT at the first bad
** record; DAB_EIO.
*/
DAB_API dab_status dabtb_shapes_each(dabtb_store *s, int (*fn)(void *ctx, const dabtb_shape *rec), void *ctx,
                                     dab_err *err);

/* Number of shape records.  RETURN: DAB_OK (0 when none are stored), or
** DAB_EIO. */
DAB_API dab_status dabtb_shapes_count(dabtb_store *s, uint64_t *n, dab_err *err);

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
DAB_API dab_status dabtb_store_verify(dabtb_store *s, dab_cancel_flag *cancel, uint64_t *records,
                                      uint64_t *checked, dab_err *err);

#endif
