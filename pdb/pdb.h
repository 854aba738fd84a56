/*
** pdb.h: the pattern database: every connected Strings-and-Coins
** component of up to N strings that can occur on a grid board, with exact
** facts that hold in any position it is part of (docs/pdb.md).
** See Copyright Notice in README.md
*/
#ifndef DAB_PDB_H
#define DAB_PDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "game/board.h"
#include "game/err.h"
#include "game/progress.h"
#include "game/dabapi.h"

/*
** A component is a class of connected graphs (coins, strings between
** coins, strings to the ground), named by its canonical encoding
** (symmetry/sckey.h: one 32-bit word per coin, neighbours in canonical
** indices, ground strings in bits 26..28).  The database numbers its
** classes 0..n-1 (an id), in the order it made them.
**
** Stored per component:
**   - nimber: its Nimstring value, 0..7, or DAB_PDB_LOONY.  The Nimstring
**     value of a position is the XOR of its components' (a loony one makes
**     the whole position loony): who wins Nimstring, i.e. control.
**   - value: the net coins the player to move gains in it played alone.
**   - its moves, one per class of cut (cuts an automorphism maps onto
**     each other are one): coins captured (0..2) and the components left,
**     by id.  Every child of a component is in the database, so a
**     position whose every component is there can be searched on ids
**     alone (dab_pdb_search): a move is a table read, a position's key a
**     hash of its sorted ids, and a component met on any board is the
**     same entry.
**   - flags: DAB_PDB_FREE (every cut captures, and leaves free parts: it
**     is worth its coins to whoever moves, in any position: the lemma in
**     docs/theorems.md), DAB_PDB_CAPTURABLE (a coin has one string),
**     chain / loop shape (for the simple-loony-endgame formula).
**
** Thread safety: a built or loaded dab_pdb is read-only and may be shared
** by any number of threads; building one is single-threaded per object.
*/

#define DAB_PDB_MAX_STRINGS 24
#define DAB_PDB_LOONY (-1)
#define DAB_PDB_MAX_COMP 32      /* components in one position (a 5x5 board has at most 25) */

enum dab_pdb_flags {
  DAB_PDB_FREE = 1,          /* worth its coins to the mover in any context */
  DAB_PDB_CAPTURABLE = 2,    /* has a coin with one string */
  DAB_PDB_CHAIN = 4,         /* every coin two strings, both ends to the ground */
  DAB_PDB_LOOP = 8           /* every coin two strings, no ground: a cycle */
};

typedef struct dab_pdb_info {
  uint8_t coins, strings, nmoves, flags;
  int8_t nimber;             /* 0..7 or DAB_PDB_LOONY */
  int8_t value;              /* played alone, for the player to move */
} dab_pdb_info;

/* One move of a component: cut a string of class `cut` (a canonical edge:
** a * 32 + b, coins a <= b, b = 31 for the ground), capturing `captured`
** coins and leaving children[0..nchildren) (ids, sorted). */
typedef struct dab_pdb_move {
  uint8_t captured, nchildren;
  uint16_t cut;
  const uint32_t *children;
} dab_pdb_move;

typedef struct dab_pdb dab_pdb;

/* An empty database.  RETURN: DAB_OK and *out, or DAB_ENOMEM. */
DAB_API dab_status dab_pdb_new(dab_pdb **out, dab_err *err);
DAB_API void dab_pdb_free(dab_pdb *db);

/*
** Fills db with every component of up to max_strings strings that occurs
** on some grid board, their moves and their facts.  Components are grown
** a string at a time from their board embeddings (pdb_enum.c says how
** and why the result is complete); the facts come bottom-up from the
** children (nimbers by the mex rule and XOR, values by dab_pdb_search).
** PARAMETERS: max_strings 1..DAB_PDB_MAX_STRINGS; progress and cancel
** may be NULL.
** RETURN: DAB_OK; DAB_EINPUT (max_strings out of range); DAB_ENOMEM;
** DAB_ECANCELED (db then holds every component of the levels finished,
** and some of the next, each complete: a smaller database, which a later
** build started from it extends without computing their facts again).
** NOTES: db may hold components already (a loaded file): they are reused,
** and max_strings never decreases.
*/
DAB_API dab_status dab_pdb_build(dab_pdb *db, int max_strings, dab_progress_fn progress, void *progress_ctx,
                                 dab_cancel_flag *cancel, dab_err *err);

/* Components in db, and the most strings of any. */
DAB_API uint32_t dab_pdb_count(const dab_pdb *db);
DAB_API int dab_pdb_max_strings(const dab_pdb *db);

/* Facts of component id (< dab_pdb_count). */
DAB_API dab_pdb_info dab_pdb_get(const dab_pdb *db, uint32_t id);

/* Its canonical encoding: info.coins words. */
DAB_API const uint32_t *dab_pdb_encoding(const dab_pdb *db, uint32_t id);

/*
** Appends component id's graph to g (its coins numbered after g's), for
** the theory-free graph solver (theorems/graphsolve.h).
** RETURN: false when g would exceed that solver's limits (g unchanged).
*/
struct dab_sg;
DAB_API bool dab_pdb_graph(const dab_pdb *db, uint32_t id, struct dab_sg *g);

/* Its i-th move (i < info.nmoves). */
DAB_API dab_pdb_move dab_pdb_get_move(const dab_pdb *db, uint32_t id, int i);

/*
** The id of the component with canonical encoding enc[0..coins).
** RETURN: the id, or -1 when db does not hold it.
*/
DAB_API int64_t dab_pdb_find(const dab_pdb *db, const uint32_t *enc, int coins);

/*
** The components of position p on board g (fast path) as ids.
** RETURN: the number of components written to ids[] (room for
** DAB_PDB_MAX_COMP), sorted; -1 when some component is not in db (or
** has more strings than db holds).  Completed boxes are no component.
** NOTES: about one graph key's cost (docs/pdb.md).
*/
DAB_API int dab_pdb_split(const dab_pdb *db, const dab_geom *g, uint64_t p, uint32_t *ids);

/* Sorts ids[0..n) ascending: the order every call on a sum expects. */
DAB_API void dab_pdb_sort(uint32_t *ids, int n);

/*
** Nimstring value of a sum of components (ids[0..n)): XOR of their
** nimbers, DAB_PDB_LOONY when one is loony.
*/
DAB_API int dab_pdb_nimber_sum(const dab_pdb *db, const uint32_t *ids, int n);

/* ---- Probing a position -------------------------------------------- */

typedef struct dab_pdb_probe_comp {
  int first_box, coins, strings;
  int64_t id;                /* -1: not in the database (the rest is then 0) */
  int nimber, value, flags;
} dab_pdb_probe_comp;

typedef struct dab_pdb_probe_result {
  int ncomp;
  dab_pdb_probe_comp comp[DAB_PDB_MAX_COMP];
  int covered;               /* 1 when every component is in the database: */
  int nimber;                /* ... the position's Nimstring value (or DAB_PDB_LOONY) */
  int value;                 /* ... its value for the player to move */
  uint64_t nodes;            /* ... and the positions that search visited */
} dab_pdb_probe_result;

/*
** The components of position (text: RxC, RxC:DBN or RxC@moves) with
** their stored facts; when every one is covered, the position's Nimstring
** value and its exact value (dab_pdb_value, a table of 16 MiB made and
** freed here).
** RETURN: DAB_OK; DAB_EINPUT (not a position: the message says where);
** DAB_EBOARD (more than 64 lines); DAB_ENOMEM.
** NOTES: thread-safe for distinct out.
*/
DAB_API dab_status dab_pdb_probe(const dab_pdb *db, const char *position, dab_pdb_probe_result *out, dab_err *err);

/* ---- Files ------------------------------------------------------------ */

/* The file name a database goes by in the tablebase directories. */
#define DAB_PDB_FILE "components.dabpdb"

/*
** Writes db to path: a temporary file beside it, synced, then renamed
** over path and the directory synced (a crash leaves the old file or the
** new one, never half of either).  Format: docs/formats.md.
** RETURN: DAB_OK; DAB_EIO (the message names the file and the reason,
** the disk full included); DAB_ENOMEM.
*/
DAB_API dab_status dab_pdb_save(const dab_pdb *db, const char *path, dab_err *err);

/*
** Reads the database at path, checking its magic, format and encoding
** versions, the meta checksum, every block's checksum and that every
** move names a component of the file.
** RETURN: DAB_OK and *out; DAB_EIO (cannot open); DAB_ECORRUPT (damaged
** or foreign: one line says which check failed); DAB_ENOMEM.
*/
DAB_API dab_status dab_pdb_load(const char *path, dab_pdb **out, dab_err *err);

/*
** Re-derives every component's value and nimber with the theory-free
** graph solver (theorems/graphsolve.h: every cut of every string, no
** rule) and checks every move's structure (one string fewer, coins kept
** or captured).  *checked gets the components checked, *mismatches the
** disagreements (err describes the first).
** RETURN: DAB_OK (mismatches or not); DAB_ECANCELED; DAB_ENOMEM.
*/
DAB_API dab_status dab_pdb_verify(const dab_pdb *db, uint64_t *checked, uint64_t *mismatches, dab_progress_fn progress,
                                  void *progress_ctx, dab_cancel_flag *cancel, dab_err *err);

/* ---- Searching sums of components ------------------------------------ */

/*
** The transposition table of searches over sums of components: 2^bits
** 16-byte entries, lock-free (any number of threads may search with one
** table at once; a torn entry reads as a miss).
** RETURN: DAB_OK and *out; DAB_EINPUT (bits not 4..32; 0 means 20);
** DAB_ENOMEM.
*/
typedef struct dab_pdb_table dab_pdb_table;
DAB_API dab_status dab_pdb_table_new(int bits, dab_pdb_table **out, dab_err *err);
DAB_API void dab_pdb_table_free(dab_pdb_table *t);
DAB_API size_t dab_pdb_table_bytes(int bits);

/*
** Fail-soft alpha-beta value of the sum ids[0..n) (sorted) for the player
** to move: exact when strictly inside (alpha, beta), else a bound on the
** same side.  Every move of every component is tried, except where the
** rules of docs/pdb.md (free components, the capture rules, the
** simple-loony-endgame formula) prove fewer enough.  *nodes (may be NULL)
** grows by the positions visited.
** NOTES: thread-safe for distinct callers sharing db and t.
*/
DAB_API int dab_pdb_search(const dab_pdb *db, dab_pdb_table *t, const uint32_t *ids, int n, int alpha, int beta,
                           uint64_t *nodes);

/* Exact value of the sum ids[0..n) (a full-window dab_pdb_search). */
DAB_API int dab_pdb_value(const dab_pdb *db, dab_pdb_table *t, const uint32_t *ids, int n, uint64_t *nodes);

#endif
