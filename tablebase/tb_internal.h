/*
** tb_internal.h: the tablebase handle, shared by the probe code, the
** builder and the verifier (verify/).  Not part of the public API.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_TB_INTERNAL_H
#define DAB_TB_INTERNAL_H

#include <lmdb.h>
#include <stdatomic.h>
#include "symmetry/sym.h"
#include "tablebase/dabtb.h"
#include "tablebase/tb_format.h"
#include "tablebase/tb_index.h"

/* One block of the file: where its record lies in the map. */
typedef struct dabtb_block {
  const uint8_t *data;  /* header + zstd frame, inside the read-only map */
  size_t size;
  uint32_t entries;     /* payload bytes it must decompress to */
  uint8_t layer;
  uint32_t number;
} dabtb_block;

struct dabtb {
  dab_geom geom;
  dab_sym *sym;
  dab_tbidx idx;
  uint32_t block_entries;
  uint64_t canonical, solved, shapes;
  int format_version;
  bool has_table;             /* false: a solved-only file (meta table=none) */
  bool locked;                /* opened with the LMDB lock file (a writer may run) */
  int hold;                   /* dabtb_hold_begin's descriptor while locked; -1 = none */
  char path[4096];
  MDB_env *env;
  MDB_txn *txn;               /* one read txn for the handle's life (a snapshot) */
  MDB_dbi dbi_meta, dbi_blocks, dbi_solved;
  uint32_t layer_block0[DAB_TBIDX_MAX_LINES + 2]; /* first block of each layer */
  uint32_t nblocks;
  dabtb_block *blocks;
  uint8_t layer_sum[DAB_TBIDX_MAX_LINES + 1][16]; /* XXH3-128 from meta (canonical BE) */
  /* The block cache.  Each layer's decompressed payloads live in one
  ** reserved, 2 MiB-aligned virtual region (huge pages where the kernel
  ** gives them: random probes of a 2 GB table then cost one cache miss,
  ** not a page walk too).  Block i of the layer sits at offset
  ** number * block_entries; its bytes are committed when it is first read.
  **
  **   region[k]: | block 0 | block 1 | ... | last block | (2 MiB-rounded)
  **   claim[i]:  0 free, 1 taken by the one thread that fills block i
  **   cache[i]:  NULL until block i is filled and verified, then its slot
  */
  uint8_t *region_base[DAB_TBIDX_MAX_LINES + 1]; /* mmap'd; NULL for an empty layer */
  size_t region_len[DAB_TBIDX_MAX_LINES + 1];
  uint8_t *region[DAB_TBIDX_MAX_LINES + 1];      /* region_base aligned up to 2 MiB */
  _Atomic unsigned char *claim;
  _Atomic(uint8_t *) *cache;  /* decompressed payloads, published once */
  _Atomic size_t cached_bytes;
  size_t cache_limit;
  uint64_t box_all;           /* mask of box numbers */
};

/* Boxes of p not yet complete. */
static inline int dabtb_open_boxes(const dab_geom *g, uint64_t p) {
  dab64_sides4 v = dab64_side_vectors(g, p);
  return g->nboxes - dab_popcount64(v.top & v.bottom & v.left & v.right);
}

/* True when p is its own canonical image (p must be border-normal). */
static inline bool dabtb_is_canonical(const dab_sym *s, uint64_t p) {
  for (int t = 1; t < s->ntrans; t++)
    if (dab_sym_border_normal64(s, dab_sym_apply64(s, t, p)) < p) return false;
  return true;
}

/*
** Decodes and verifies block i: returns its payload (cached, or a malloc'd
** copy in *owned that the caller frees when the cache is full), or NULL
** with DAB_ECORRUPT/DAB_ENOMEM in *st and err.
*/
const uint8_t *dabtb_block_payload(const dabtb *tb, uint32_t i, uint8_t **owned, dab_status *st,
                                   dab_err *err);

/* Walks the B-tree pages of env (opened read-only on a file of file_size
** bytes) and checks every offset and page number.  RETURN: DAB_OK, or
** DAB_ECORRUPT ("truncated or damaged") before LMDB itself could read out
** of bounds. */
dab_status dabtb_lmdb_structure(MDB_env *env, uint64_t file_size, const char *path, dab_err *err);

/* Checks the two LMDB meta pages of the file at path (a file of
** file_size bytes) before mdb_env_open reads them: page flags, magic,
** version, and a page size LMDB can use (a power of two, 512..65536; LMDB
** divides by it).  RETURN: DAB_OK; DAB_EINPUT ("not a dab tablebase") for
** a file with no valid first LMDB meta page; DAB_ECORRUPT when the first
** is valid and the second missing (cut short) or bad; DAB_EIO when it
** cannot be read. */
dab_status dabtb_lmdb_meta(const char *path, uint64_t file_size, dab_err *err);

/*
** Lock files (tb_lockfile.c).  Every environment opened on a file with
** LMDB's lock file PATH-lock (a solved-only file's writers and readers)
** holds the file for as long as it is open: a shared flock on PATH, taken
** before mdb_env_open and released after mdb_env_close.  The last holder
** removes PATH-lock, so none is left behind once no one uses the file.
**
** dabtb_hold_begin: the hold (a descriptor of PATH with the shared flock,
** PATH still naming that file), or -1 with errno: ENOENT when PATH is
** gone (removed by `dab cache` or eviction: do not open it, LMDB would
** make an empty file there), else flock is unsupported (no one removes
** the lock file then).
** dabtb_hold_same: true when the hold and env are on the same file (false:
** PATH was replaced between the two opens; reopen both).
** dabtb_hold_end: after the environment is closed: when no other holder
** is left (an exclusive flock succeeds at once), no LMDB environment has
** PATH-lock open (an OFD lock test) and PATH is still the held file,
** removes PATH-lock; then releases the hold.  RETURN: true when removed.
** dabtb_lock_file_reap: removes PATH-lock when no one uses it (PATH held
** by no one, or gone); for `dab cache` and lock files left by a kill.
** THREAD SAFETY: any thread; holds are per descriptor, so two handles of
** one process on one file count as two users.
** NOTES: users that do not take the hold (other programs on the file's
** LMDB environment) are seen by the OFD test only once they have locked
** the lock file; the removal can race one that is just opening it.
*/
int dabtb_hold_begin(const char *path);
bool dabtb_hold_same(int fd, MDB_env *env);
bool dabtb_hold_end(int fd, const char *path);
bool dabtb_lock_file_reap(const char *path);

/* The stored byte of a canonical indexed position; DAB_OK or an error. */
dab_status dabtb_stored(const dabtb *tb, uint64_t canon, int *value, dab_err *err);

/*
** The finished layers of a layered build (tb_layered.c): layer k's bytes
** data[k][rank] hold w = (v + R) / 2 for canonical entries and
** DABTB_NOT_CANON for the others, memory-mapped from PATH.layers/KK.
*/
#define DABTB_NOT_CANON 0xFF
typedef struct dabtb_layers {
  int nlines;
  int lock_fd;                                  /* flock on PATH.layers/lock; -1 = none */
  char dir[4200];
  const uint8_t *data[DAB_TBIDX_MAX_LINES + 1];
  void *map[DAB_TBIDX_MAX_LINES + 1];
  size_t map_bytes[DAB_TBIDX_MAX_LINES + 1];
} dabtb_layers;

/*
** Computes (or resumes) every layer of board g into *L (zeroed by the
** caller), fills r->layers_resumed and r->value.
** RETURN: DAB_OK; DAB_ENOMEM (the plan does not fit: nothing written);
** DAB_EIO; DAB_ECANCELED (finished layers kept); DAB_EINTERNAL.  On
** error *L is closed (layers kept on disk).
*/
dab_status dabtb_layered_solve(const dab_geom *g, const dab_tbidx *ix, const dab_sym *sym,
                               const char *path, const dabtb_build_opts *o, dabtb_layers *L,
                               dabtb_build_report *r, dab_err *err);

/* Unmaps the layers and releases the lock; with remove, deletes the
** layer files and the directory (after the file is in place). */
void dabtb_layers_close(dabtb_layers *L, bool remove);

#endif
