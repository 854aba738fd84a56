/*
** tb_probe.c: opening tablebase files and answering positions from them.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>
#include <zstd.h>
#include "game/postext.h"
#include "game/dabassert.h"
#include "game/sysmem.h"
#include "tablebase/tb_internal.h"
#include "tablebase/tb_records.h"
#include "tablebase/tb_rule.h"

/* ---- Opening --------------------------------------------------------- */

typedef struct meta_rec {
  char key[64];
  char val[256];
} meta_rec;

#define META_MAX 256

static const char *meta_find(const meta_rec *m, int n, const char *key) {
  for (int i = 0; i < n; i++)
    if (!strcmp(m[i].key, key)) return m[i].val;
  return NULL;
}

static bool meta_u64(const meta_rec *m, int n, const char *key, uint64_t *out) {
  const char *v = meta_find(m, n, key);
  if (!v || !*v) return false;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(v, &end, 10);
  if (errno || *end) return false;
  *out = x;
  return true;
}

static bool parse_hex(const char *s, uint8_t *out, int nbytes) {
  if (!s || strlen(s) != (size_t)nbytes * 2) return false;
  for (int i = 0; i < nbytes; i++) {
    unsigned v;
    if (sscanf(s + 2 * i, "%2x", &v) != 1) return false;
    out[i] = (uint8_t)v;
  }
  return true;
}

/* XXH3-64 of every meta record but meta_xxh3 itself, as "key=value\n". */
static uint64_t meta_digest(const meta_rec *m, int n) {
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  for (int i = 0; i < n; i++) {
    if (!strcmp(m[i].key, "meta_xxh3")) continue;
    XXH3_64bits_update(&st, m[i].key, strlen(m[i].key));
    XXH3_64bits_update(&st, "=", 1);
    XXH3_64bits_update(&st, m[i].val, strlen(m[i].val));
    XXH3_64bits_update(&st, "\n", 1);
  }
  return XXH3_64bits_digest(&st);
}


static dab_status read_meta(dabtb *tb, meta_rec *m, int *n, dab_err *err) {
  MDB_cursor *cur;
  if (mdb_cursor_open(tb->txn, tb->dbi_meta, &cur))
    return dab_fail(err, DAB_EINPUT, "%s: cannot read the meta database", tb->path);
  MDB_val k, v;
  int rc, cnt = 0;
  dab_status st = DAB_OK;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    if (cnt == META_MAX || k.mv_size >= sizeof m->key || v.mv_size >= sizeof m->val) {
      st = dab_fail(err, DAB_EINPUT, "%s: not a dab tablebase (malformed meta record)", tb->path);
      break;
    }
    memcpy(m[cnt].key, k.mv_data, k.mv_size);
    m[cnt].key[k.mv_size] = 0;
    memcpy(m[cnt].val, v.mv_data, v.mv_size);
    m[cnt].val[v.mv_size] = 0;
    cnt++;
  }
  if (!st && rc != MDB_NOTFOUND)
    st = dab_fail(err, DAB_EINPUT, "%s: meta database unreadable (%s)", tb->path, mdb_strerror(rc));
  mdb_cursor_close(cur);
  *n = cnt;
  return st;
}

static dab_status parse_meta(dabtb *tb, const meta_rec *m, int n, dab_err *err) {
  const char *path = tb->path;
  const char *magic = meta_find(m, n, "magic");
  if (!magic || strcmp(magic, DABTB_MAGIC))
    return dab_fail(err, DAB_EINPUT, "%s: not a dab tablebase (bad magic)", path);
  uint8_t want[8];
  if (!parse_hex(meta_find(m, n, "meta_xxh3"), want, 8))
    return dab_fail(err, DAB_ECORRUPT, "%s: damaged: meta checksum missing", path);
  uint64_t got = meta_digest(m, n), w = 0;
  for (int i = 0; i < 8; i++) w = w << 8 | want[i];
  if (got != w)
    return dab_fail(err, DAB_ECORRUPT, "%s: damaged: meta checksum mismatch", path);
  uint64_t ver, rows, cols, be, canon;
  if (!meta_u64(m, n, "format_version", &ver) || ver < DABTB_FORMAT_MIN_VERSION ||
      ver > DABTB_FORMAT_VERSION)
    return dab_fail(err, DAB_EINPUT, "%s: format version %s, this dab reads versions %d to %d", path,
                    meta_find(m, n, "format_version") ? meta_find(m, n, "format_version") : "?",
                    DABTB_FORMAT_MIN_VERSION, DABTB_FORMAT_VERSION);
  if (!meta_u64(m, n, "rows", &rows) || !meta_u64(m, n, "cols", &cols) || rows < 1 || cols < 1 ||
      rows > DAB_MAX_SIDE || cols > DAB_MAX_SIDE)
    return dab_fail(err, DAB_EINPUT, "%s: meta has no valid board size", path);
  const char *table = meta_find(m, n, "table");
  if (table && !strcmp(table, "none") && ver >= 2) {
    /* A solved-only file: the board may lie beyond the dense index. */
    tb->has_table = false;
    tb->format_version = (int)ver;
    dab_status gst = dab_geom_init(&tb->geom, (int)rows, (int)cols, err);
    if (gst) return DAB_EINPUT;
    if (!dab_geom_fast(&tb->geom))
      return dab_fail(err, DAB_EINPUT, "%s: solved-only file for %dx%d (over 64 lines)", path,
                      tb->geom.rows, tb->geom.cols);
    return DAB_OK;
  }
  if (table && strcmp(table, "dense"))
    return dab_fail(err, DAB_EINPUT, "%s: unknown table kind '%s'", path, table);
  tb->has_table = true;
  const char *scheme = meta_find(m, n, "index");
  if (!scheme || strcmp(scheme, DABTB_INDEX_SCHEME))
    return dab_fail(err, DAB_EINPUT, "%s: unknown index scheme '%s'", path, scheme ? scheme : "");
  if (!meta_u64(m, n, "block_entries", &be) || be < 1 || be > (1u << 30))
    return dab_fail(err, DAB_EINPUT, "%s: meta has no valid block size", path);
  if (!meta_u64(m, n, "positions_canonical", &canon))
    return dab_fail(err, DAB_EINPUT, "%s: meta has no position counts", path);
  tb->block_entries = (uint32_t)be;
  tb->canonical = canon;
  tb->format_version = (int)ver;
  dab_status st = dab_geom_init(&tb->geom, (int)rows, (int)cols, err);
  if (st) return DAB_EINPUT;
  return DAB_OK;
}

static dab_status check_layers(dabtb *tb, const meta_rec *m, int n, dab_err *err) {
  uint32_t b = 0;
  for (int k = 0; k <= tb->geom.nlines; k++) {
    char key[64];
    uint64_t cnt;
    snprintf(key, sizeof key, "layer.%02d.entries", k);
    if (!meta_u64(m, n, key, &cnt) || cnt != tb->idx.layer_count[k])
      return dab_fail(err, DAB_EINPUT, "%s: meta %s does not match the %dx%d index", tb->path, key,
                      tb->geom.rows, tb->geom.cols);
    snprintf(key, sizeof key, "layer.%02d.xxh3_128", k);
    if (!parse_hex(meta_find(m, n, key), tb->layer_sum[k], 16))
      return dab_fail(err, DAB_EINPUT, "%s: meta %s missing", tb->path, key);
    tb->layer_block0[k] = b;
    b += (uint32_t)((cnt + tb->block_entries - 1) / tb->block_entries);
  }
  tb->layer_block0[tb->geom.nlines + 1] = b;
  tb->nblocks = b;
  return DAB_OK;
}

/* Maps every block record; the keys must be exactly the expected ones. */
static dab_status map_blocks(dabtb *tb, dab_err *err) {
  tb->blocks = calloc(tb->nblocks ? tb->nblocks : 1, sizeof *tb->blocks);
  if (!tb->blocks) return dab_fail(err, DAB_ENOMEM, "out of memory for the block directory");
  MDB_cursor *cur;
  if (mdb_cursor_open(tb->txn, tb->dbi_blocks, &cur))
    return dab_fail(err, DAB_EINPUT, "%s: cannot read the blocks database", tb->path);
  MDB_val k, v;
  int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST);
  dab_status st = DAB_OK;
  for (int layer = 0; layer <= tb->geom.nlines && !st; layer++) {
    uint32_t nb = tb->layer_block0[layer + 1] - tb->layer_block0[layer];
    for (uint32_t i = 0; i < nb; i++) {
      if (rc) {
        st = dab_fail(err, DAB_ECORRUPT, "%s: layer %d block %u: missing (%s)", tb->path, layer, i,
                      rc == MDB_NOTFOUND ? "no such record" : mdb_strerror(rc));
        break;
      }
      const uint8_t *kp = k.mv_data, *vp = v.mv_data;
      if (k.mv_size != DABTB_KEY_LEN || dabtb_get_be32(kp) != (uint32_t)layer ||
          dabtb_get_be32(kp + 4) != i) {
        st = dab_fail(err, DAB_ECORRUPT, "%s: layer %d block %u: missing (found another key)",
                      tb->path, layer, i);
        break;
      }
      /* Offsets and sizes were checked against the file by dabtb_lmdb_structure. */
      if (v.mv_size < DABTB_BLOCK_HEADER) {
        st = dab_fail(err, DAB_ECORRUPT, "%s: layer %d block %u: record too short", tb->path,
                      layer, i);
        break;
      }
      dabtb_block *b = &tb->blocks[tb->layer_block0[layer] + i];
      b->data = vp;
      b->size = v.mv_size;
      b->layer = (uint8_t)layer;
      b->number = i;
      uint64_t left = tb->idx.layer_count[layer] - (uint64_t)i * tb->block_entries;
      b->entries = (uint32_t)(left < tb->block_entries ? left : tb->block_entries);
      rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    }
  }
  if (!st && rc != MDB_NOTFOUND)
    st = dab_fail(err, DAB_ECORRUPT, "%s: blocks database has extra records", tb->path);
  mdb_cursor_close(cur);
  return st;
}

/* Reserves each layer's cache region (address space only: pages are
** committed as blocks are decompressed into them).  DAB_ENOMEM when the
** address space is refused. */
static dab_status map_regions(dabtb *tb, dab_err *err) {
  const size_t huge = (size_t)2 << 20;
  for (int k = 0; k <= tb->geom.nlines; k++) {
    uint64_t n = tb->idx.layer_count[k];
    if (!n) continue;
    size_t len = (size_t)((n + huge - 1) / huge * huge) + huge;
    void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED)
      return dab_fail(err, DAB_ENOMEM, "cannot reserve %zu bytes of address space for layer %d",
                      len, k);
    tb->region_base[k] = m;
    tb->region_len[k] = len;
    tb->region[k] = (uint8_t *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
#ifdef MADV_HUGEPAGE
    madvise(tb->region[k], len - huge, MADV_HUGEPAGE); /* a hint: failure only costs speed */
#endif
  }
  return DAB_OK;
}

/* How open_file uses the lock file PATH-lock. */
enum { LOCK_IF_IN_USE, LOCK_ALWAYS };

/* dabtb_open with lock_mode: LOCK_ALWAYS opens through PATH-lock, making
** it, whenever LMDB can; LOCK_IF_IN_USE only when it exists (at least a
** page: a user has it).  checked: this process has just checked the
** file's page structure (skip the walk). */
static dab_status open_file(const char *path, const dabtb_opts *opts, int lock_mode, bool checked, dabtb **out,
                            dab_err *err) {
  *out = NULL;
  struct stat sb;
  if (stat(path, &sb) != 0)
    return dab_fail(err, DAB_EINPUT, "%s: %s", path, strerror(errno));
  if (!S_ISREG(sb.st_mode)) return dab_fail(err, DAB_EINPUT, "%s: not a regular file", path);
  /* LMDB trusts its meta pages too (it divides by their page size).  The
  ** check also tells a cut tablebase (ECORRUPT) from another file (EINPUT). */
  dab_status mst = dabtb_lmdb_meta(path, (uint64_t)sb.st_size, err);
  if (mst) return mst;
  if (sb.st_size < 8192)
    return dab_fail(err, DAB_ECORRUPT, "%s: truncated (%lld bytes; a tablebase has at least two pages)", path,
                    (long long)sb.st_size);
  dabtb *tb = calloc(1, sizeof *tb);
  if (!tb) return dab_fail(err, DAB_ENOMEM, "out of memory");
  snprintf(tb->path, sizeof tb->path, "%s", path);
  tb->hold = -1;
  dab_status st = DAB_OK;
  /* A file that a solved-store writer has used has a real LMDB lock file
  ** (PATH-lock, >= one page; a build's flock file is empty): then read
  ** through it, so that the writer never reuses pages of this snapshot.
  ** Else (and in read-only places) open without one, as before. */
  int rc = mdb_env_create(&tb->env);
  if (!rc) rc = mdb_env_set_maxdbs(tb->env, 4);
  if (!rc) {
    char lock[4096 + 8];
    struct stat lb;
    snprintf(lock, sizeof lock, "%s-lock", path);
    rc = -1;
    if (lock_mode == LOCK_ALWAYS || (lock_mode == LOCK_IF_IN_USE && stat(lock, &lb) == 0 && lb.st_size >= 4096)) {
      tb->hold = dabtb_hold_begin(path); /* the last user removes the lock file */
      rc = mdb_env_open(tb->env, path, MDB_RDONLY | MDB_NOSUBDIR | MDB_NOTLS, 0444);
      if (!rc && !dabtb_hold_same(tb->hold, tb->env)) rc = EAGAIN; /* replaced meanwhile: without */
      if (!rc) tb->locked = true;
      else {
        mdb_env_close(tb->env);
        dabtb_hold_end(tb->hold, path);
        tb->hold = -1;
        tb->env = NULL;
        rc = mdb_env_create(&tb->env);
        if (!rc) rc = mdb_env_set_maxdbs(tb->env, 4);
        if (!rc) rc = -1;
      }
    }
    if (rc == -1)
      rc = mdb_env_open(tb->env, path, MDB_RDONLY | MDB_NOSUBDIR | MDB_NOLOCK | MDB_NOTLS, 0444);
  }
  if (rc) {
    st = dab_fail(err, DAB_EINPUT, "%s: not a dab tablebase (LMDB: %s)", path, mdb_strerror(rc));
    goto fail;
  }
  {
    MDB_envinfo info;
    MDB_stat est;
    mdb_env_info(tb->env, &info);
    /* A writer may have grown the file since the stat above: its pages
    ** are written before the meta that points to them, so size it now. */
    int fd;
    if (mdb_env_get_fd(tb->env, &fd) == 0) fstat(fd, &sb);
    mdb_env_stat(tb->env, &est);
    /* compared as a page count: a damaged last_pgno's product can wrap */
    if (!est.ms_psize || info.me_last_pgno >= (uint64_t)sb.st_size / est.ms_psize) {
      st = dab_fail(err, DAB_ECORRUPT, "%s: truncated (%lld bytes; its pages run to page %llu of %u bytes)", path,
                    (long long)sb.st_size, (unsigned long long)info.me_last_pgno, est.ms_psize);
      goto fail;
    }
  }
  /* The snapshot first (it reads only the meta pages): with the lock
  ** file, it also keeps a writer from reusing the pages walked below. */
  rc = mdb_txn_begin(tb->env, NULL, MDB_RDONLY, &tb->txn);
  if (rc) {
    st = dab_fail(err, DAB_EINPUT, "%s: not a dab tablebase (%s)", path, mdb_strerror(rc));
    goto fail;
  }
  /* LMDB trusts its pages: check them before it reads any. */
  if (!checked) st = dabtb_lmdb_structure(tb->env, (uint64_t)sb.st_size, path, err);
  if (st) goto fail;
  rc = mdb_dbi_open(tb->txn, "meta", 0, &tb->dbi_meta);
  if (!rc) rc = mdb_dbi_open(tb->txn, "blocks", 0, &tb->dbi_blocks);
  if (!rc) rc = mdb_dbi_open(tb->txn, "solved", 0, &tb->dbi_solved);
  if (rc) {
    st = dab_fail(err, DAB_EINPUT, "%s: not a dab tablebase (%s)", path,
                  rc == MDB_NOTFOUND ? "no meta/blocks/solved databases" : mdb_strerror(rc));
    goto fail;
  }
  {
    static const size_t meta_bytes = sizeof(meta_rec) * META_MAX;
    meta_rec *m = malloc(meta_bytes);
    int n = 0;
    if (!m) {
      st = dab_fail(err, DAB_ENOMEM, "out of memory");
      goto fail;
    }
    st = read_meta(tb, m, &n, err);
    if (!st) st = parse_meta(tb, m, n, err);
    if (!st && tb->has_table) {
      st = dab_tbidx_init(&tb->idx, &tb->geom, err);
      if (st == DAB_EBOARD) st = DAB_EINPUT;
    }
    if (!st && tb->has_table) st = check_layers(tb, m, n, err);
    free(m);
    if (st) goto fail;
  }
  tb->sym = dab_sym_new(&tb->geom, err);
  if (!tb->sym) {
    st = DAB_ENOMEM;
    goto fail;
  }
  if (tb->has_table) {
    st = map_blocks(tb, err);
    if (st) goto fail;
  }
  {
    MDB_stat ss;
    if (mdb_stat(tb->txn, tb->dbi_solved, &ss) == 0) tb->solved = ss.ms_entries;
    MDB_dbi ds; /* absent until a checkpoint writes shapes */
    if (mdb_dbi_open(tb->txn, DABTB_SHAPES_DB, 0, &ds) == 0 && mdb_stat(tb->txn, ds, &ss) == 0)
      tb->shapes = ss.ms_entries;
  }
  tb->cache = calloc(tb->nblocks ? tb->nblocks : 1, sizeof *tb->cache);
  tb->claim = calloc(tb->nblocks ? tb->nblocks : 1, sizeof *tb->claim);
  if (!tb->cache || !tb->claim) {
    st = dab_fail(err, DAB_ENOMEM, "out of memory");
    goto fail;
  }
  if (tb->has_table) {
    st = map_regions(tb, err);
    if (st) goto fail;
  }
  if (opts && opts->cache_bytes) tb->cache_limit = opts->cache_bytes;
  else {
    /* 4 GiB, or half the free memory when that is more: a 4x4 file
    ** decompresses to 6.1 GB, and `dab verify` reads all of it. */
    uint64_t half = dab_mem_available() / 2;
    tb->cache_limit = half > ((uint64_t)4 << 30) ? (size_t)half : (size_t)4 << 30;
  }
  *out = tb;
  return DAB_OK;
fail:
  dabtb_close(tb);
  return st;
}

/* True when this process may make PATH-lock beside path: a writable
** directory, and not read-only mode (which creates no file). */
static bool can_lock(const char *path) {
  if (dabtb_readonly()) return false;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = 0;
  else if (slash) *slash = 0;
  else snprintf(dir, sizeof dir, ".");
  return access(dir, W_OK | X_OK) == 0;
}

dab_status dabtb_open(const char *path, const dabtb_opts *opts, dabtb **out, dab_err *err) {
  /* A solved-only file may get a writer at any time (a search storing
  ** results): read it through the lock file, so that a writer arriving
  ** later never reuses the pages of this handle's snapshot.  A table is
  ** read without one unless a user has the lock file (no reader limit,
  ** no file made: searches do not store where a table covers the board).
  ** The kind is known only once the file is open: a solved-only file read
  ** without is opened again through the lock file (its pages just
  ** checked), and the first handle dropped. */
  dab_status st = open_file(path, opts, LOCK_IF_IN_USE, false, out, err);
  if (st || (*out)->locked || dabtb_has_table(*out) || !can_lock(path)) return st;
  dabtb *locked;
  dab_err lerr;
  if (open_file(path, opts, LOCK_ALWAYS, true, &locked, &lerr) == DAB_OK) {
    if (!locked->locked) { /* the lock file could not be made: the first will do */
      dabtb_close(locked);
      return DAB_OK;
    }
    dabtb_close(*out);
    *out = locked;
  }
  return DAB_OK;
}

void dabtb_close(dabtb *tb) {
  if (!tb) return;
  for (int k = 0; k <= DAB_TBIDX_MAX_LINES; k++)
    if (tb->region_base[k]) munmap(tb->region_base[k], tb->region_len[k]);
  free(tb->cache); /* its pointers are slots of the regions */
  free((void *)tb->claim);
  free(tb->blocks);
  if (tb->txn) mdb_txn_abort(tb->txn);
  if (tb->env) mdb_env_close(tb->env);
  dabtb_hold_end(tb->hold, tb->path); /* after the close: the last user removes PATH-lock */
  dab_sym_free(tb->sym);
  if (tb->has_table) dab_tbidx_free(&tb->idx);
  free(tb);
}

const dab_geom *dabtb_geom(const dabtb *tb) { return &tb->geom; }
const char *dabtb_path(const dabtb *tb) { return tb->path; }

/* ---- Blocks ------------------------------------------------------------ */

const uint8_t *dabtb_block_payload(const dabtb *tb, uint32_t i, uint8_t **owned, dab_status *st,
                                   dab_err *err) {
  *owned = NULL;
  uint8_t *c = atomic_load_explicit(&tb->cache[i], memory_order_acquire);
  if (c) return c;
  const dabtb_block *b = &tb->blocks[i];
  const uint8_t *h = b->data;
  if (memcmp(h, DABTB_BLOCK_MAGIC, 4) || h[4] != b->layer || dabtb_get_le32(h + 8) != b->number ||
      dabtb_get_le32(h + 12) != b->entries) {
    *st = dab_fail(err, DAB_ECORRUPT, "%s: layer %u block %u: bad block header", tb->path, b->layer,
                   b->number);
    return NULL;
  }
  /* One thread fills the block's slot while the cache has room; any other
  ** reader in the meantime (or past the limit) decodes a private copy. */
  dabtb *mt = (dabtb *)tb; /* the cache is the handle's only mutable part */
  uint8_t *slot = NULL;
  size_t before = atomic_fetch_add(&mt->cached_bytes, (size_t)b->entries);
  unsigned char free_claim = 0;
  if (before + b->entries <= tb->cache_limit &&
      atomic_compare_exchange_strong(&mt->claim[i], &free_claim, 1))
    slot = tb->region[b->layer] + (size_t)b->number * tb->block_entries;
  else
    atomic_fetch_sub(&mt->cached_bytes, (size_t)b->entries);
  uint8_t *buf = slot ? slot : malloc(b->entries ? b->entries : 1);
  if (!buf) {
    *st = dab_fail(err, DAB_ENOMEM, "out of memory decompressing a block");
    return NULL;
  }
  size_t got = ZSTD_decompress(buf, b->entries, h + DABTB_BLOCK_HEADER, b->size - DABTB_BLOCK_HEADER);
  const char *bad = ZSTD_isError(got)                               ? ZSTD_getErrorName(got)
                    : got != b->entries                             ? "wrong decompressed size"
                    : XXH3_64bits(buf, b->entries) != dabtb_get_le64(h + 16) ? "checksum mismatch"
                                                                    : NULL;
  if (bad) {
    if (slot) { /* give the slot back: the next reader decodes (and fails) again */
      atomic_fetch_sub(&mt->cached_bytes, (size_t)b->entries);
      atomic_store(&mt->claim[i], 0);
    } else {
      free(buf);
    }
    *st = dab_fail(err, DAB_ECORRUPT, "%s: layer %u block %u: %s", tb->path, b->layer, b->number,
                   bad);
    return NULL;
  }
  if (!slot) {
    *owned = buf;
    return buf;
  }
  atomic_store_explicit(&mt->cache[i], slot, memory_order_release);
  return slot;
}

dab_status dabtb_stored(const dabtb *tb, uint64_t c, int *value, dab_err *err) {
  int k = dab_popcount64(c);
  uint64_t r = dab_tbidx_rank(&tb->idx, c);
  uint32_t bi = tb->layer_block0[k] + (uint32_t)(r / tb->block_entries);
  uint32_t off = (uint32_t)(r % tb->block_entries);
  uint8_t *owned;
  dab_status st = DAB_OK;
  const uint8_t *pl = dabtb_block_payload(tb, bi, &owned, &st, err);
  if (!pl) return st;
  int w = pl[off];
  free(owned);
  int R = dabtb_open_boxes(&tb->geom, c);
  if (w > R)
    return dab_fail(err, DAB_ECORRUPT, "%s: layer %d block %u: impossible value", tb->path, k,
                    bi - tb->layer_block0[k]);
  *value = 2 * w - R;
  return DAB_OK;
}

/* ---- Values -------------------------------------------------------------- */

/* The file as a value source of the capture rule (tb_rule.h). */
static dab_status file_stored(const void *ctx, uint64_t canon, int *v, dab_err *err) {
  return dabtb_stored(ctx, canon, v, err);
}

static inline dabtb_source file_source(const dabtb *tb) {
  return (dabtb_source){&tb->geom, tb->sym, file_stored, tb};
}

static dab_status check_pos(const dabtb *tb, uint64_t pos, dab_err *err) {
  if (!tb->has_table) {
    int r = tb->geom.rows, c = tb->geom.cols;
    if (dabtb_buildable(r, c, NULL)) /* no hint to a build that refuses */
      return dab_fail(err, DAB_EBOARD, "%s holds only solved results of search, no table; `dab solve %dx%d` reads them",
                      tb->path, r, c);
    return dab_fail(err, DAB_EBOARD,
                    "%s holds only solved results of search, no table; `dab solve` reads them, "
                    "or build the table with: dab build %dx%d",
                    tb->path, r, c);
  }
  if (pos & ~tb->geom.all_lines)
    return dab_fail(err, DAB_EINPUT, "position 0x%llx has lines beyond the %dx%d board's %d",
                    (unsigned long long)pos, tb->geom.rows, tb->geom.cols, tb->geom.nlines);
  return DAB_OK;
}

dab_status dabtb_value(const dabtb *tb, uint64_t pos, int *value, dab_err *err) {
  dab_status st = check_pos(tb, pos, err);
  if (st) return st;
  dabtb_source src = file_source(tb);
  dabtb_memo mo;
  mo.used = 0;
  st = dabtb_rule_value(&src, &mo, pos, value, err);
  DAB_ASSERT(st || (*value >= -tb->geom.nboxes && *value <= tb->geom.nboxes));
  return st;
}

dab_status dabtb_value_batch(const dabtb *tb, const uint64_t *pos, size_t n, int8_t *values,
                             dab_err *err) {
  for (size_t i = 0; i < n; i++) {
    int v;
    dab_status st = dabtb_value(tb, pos[i], &v, err);
    if (st) return dab_fail(err, st, "position %zu: %s", i, err ? err->msg : "");
    values[i] = (int8_t)v;
  }
  return DAB_OK;
}

dab_status dabtb_move_values(const dabtb *tb, uint64_t pos, int16_t *moves, int16_t *values,
                             int *nmoves, dab_err *err) {
  dab_status st = check_pos(tb, pos, err);
  if (st) return st;
  int n = 0;
  dabtb_source src = file_source(tb);
  dabtb_memo mo; /* shared by the moves: their captures overlap too */
  mo.used = 0;
  for (uint64_t free_lines = ~pos & tb->geom.all_lines; free_lines; free_lines &= free_lines - 1) {
    int m = __builtin_ctzll(free_lines), v;
    st = dabtb_rule_move(&src, &mo, pos, m, &v, err);
    if (st) return st;
    moves[n] = (int16_t)m;
    values[n++] = (int16_t)v;
  }
  *nmoves = n;
  return DAB_OK;
}

dab_status dabtb_analyze(const dabtb *tb, uint64_t pos, dab_analysis *a, dab_err *err) {
  dab_status st = dabtb_move_values(tb, pos, a->move, a->move_value, &a->nmoves, err);
  if (st) return st;
  dab_analysis_from_moves(a);
  return DAB_OK;
}

dab_status dabtb_best_moves(const dabtb *tb, uint64_t pos, int16_t *best, int *nbest, dab_err *err) {
  dab_analysis *a = malloc(sizeof *a);
  if (!a) return dab_fail(err, DAB_ENOMEM, "out of memory");
  dab_status st = dabtb_analyze(tb, pos, a, err);
  if (!st) {
    memcpy(best, a->best, sizeof *best * (size_t)a->nbest);
    *nbest = a->nbest;
  }
  free(a);
  return st;
}

void dabtb_get_coverage(const dabtb *tb, dabtb_coverage *c) {
  memset(c, 0, sizeof *c);
  c->rows = tb->geom.rows;
  c->cols = tb->geom.cols;
  c->nlines = tb->geom.nlines;
  c->positions = tb->has_table ? 1ull << tb->geom.nlines : 0;
  c->indexed = tb->idx.total;
  c->canonical = tb->canonical;
  c->solved = tb->solved;
  c->shapes = tb->shapes;
  c->format_version = tb->format_version;
}

bool dabtb_has_table(const dabtb *tb) { return tb->has_table; }

bool dabtb_covers(const dabtb *tb, int rows, int cols, uint64_t pos) {
  return tb->has_table && rows == tb->geom.rows && cols == tb->geom.cols && !(pos & ~tb->geom.all_lines);
}

/* The common RxC:DBN form of tb's own board, without the general parser
** (which builds a geometry per call).  False when text is anything else. */
static bool parse_dbn_fast(const dabtb *tb, const char *text, uint64_t *pos) {
  const char *s = text;
  int r = 0, c = 0;
  while (*s >= '0' && *s <= '9' && r < 100) r = r * 10 + (*s++ - '0');
  if (*s != 'x' || r != tb->geom.rows) return false;
  s++;
  while (*s >= '0' && *s <= '9' && c < 100) c = c * 10 + (*s++ - '0');
  if (*s != ':' || c != tb->geom.cols) return false;
  s++;
  uint64_t p = 0;
  for (int i = 0; i < tb->geom.nlines; i++) {
    if (s[i] == '1') p |= 1ull << i;
    else if (s[i] != '0') return false;
  }
  if (s[tb->geom.nlines]) return false;
  *pos = p;
  return true;
}

dab_status dabtb_parse(const dabtb *tb, const char *text, uint64_t *pos, dab_err *err) {
  if (parse_dbn_fast(tb, text, pos)) return DAB_OK;
  dab_parsed *p = malloc(sizeof *p);
  if (!p) return dab_fail(err, DAB_ENOMEM, "out of memory");
  dab_status st = dab_parse_position(text, p, err);
  if (!st && (p->geom.rows != tb->geom.rows || p->geom.cols != tb->geom.cols))
    st = dab_fail(err, DAB_EINPUT, "position '%s' is on a %dx%d board, the tablebase %s is %dx%d",
                  text, p->geom.rows, p->geom.cols, tb->path, tb->geom.rows, tb->geom.cols);
  if (!st) *pos = dab_ls_word(&p->game.lines);
  free(p);
  if (st == DAB_EBOARD) st = DAB_EINPUT;
  return st;
}

dab_status dabtb_meta_each(const dabtb *tb, void (*fn)(void *ctx, const char *key, const char *value),
                           void *ctx, dab_err *err) {
  meta_rec *m = malloc(sizeof(meta_rec) * META_MAX);
  if (!m) return dab_fail(err, DAB_ENOMEM, "out of memory");
  int n;
  dab_status st = read_meta((dabtb *)tb, m, &n, err);
  if (!st)
    for (int i = 0; i < n; i++) fn(ctx, m[i].key, m[i].val);
  free(m);
  return st;
}

/* ---- Check ------------------------------------------------------------- */

dab_status dabtb_check(const dabtb *tb, dab_progress_fn progress, void *progress_ctx,
                       dab_cancel_flag *cancel, dab_err *err) {
  dab_progress pr = {"check", 0, tb->nblocks, 0};
  for (int k = 0; tb->has_table && k <= tb->geom.nlines; k++) {
    XXH3_state_t hs;
    XXH3_128bits_reset(&hs);
    for (uint32_t i = tb->layer_block0[k]; i < tb->layer_block0[k + 1]; i++) {
      if (cancel && *cancel) return dab_fail(err, DAB_ECANCELED, "check canceled");
      /* Decode afresh, never from the cache: check reads the file. */
      const dabtb_block *b = &tb->blocks[i];
      uint8_t *buf = malloc(b->entries ? b->entries : 1);
      if (!buf) return dab_fail(err, DAB_ENOMEM, "out of memory");
      const uint8_t *h = b->data;
      size_t got = 0;
      const char *why = NULL;
      if (memcmp(h, DABTB_BLOCK_MAGIC, 4) || h[4] != b->layer || dabtb_get_le32(h + 8) != b->number ||
          dabtb_get_le32(h + 12) != b->entries)
        why = "bad block header";
      else {
        got = ZSTD_decompress(buf, b->entries, h + DABTB_BLOCK_HEADER, b->size - DABTB_BLOCK_HEADER);
        if (ZSTD_isError(got)) why = ZSTD_getErrorName(got);
        else if (got != b->entries) why = "wrong decompressed size";
        else if (XXH3_64bits(buf, b->entries) != dabtb_get_le64(h + 16)) why = "checksum mismatch";
      }
      free(buf);
      if (why)
        return dab_fail(err, DAB_ECORRUPT, "layer %d block %u: %s", k, b->number, why);
      uint8_t le[8];
      dabtb_put_le64(le, dabtb_get_le64(h + 16));
      XXH3_128bits_update(&hs, le, 8);
      pr.done++;
      if (progress && (pr.done & 15) == 0) progress(progress_ctx, &pr);
    }
    XXH128_canonical_t cs;
    XXH128_canonicalFromHash(&cs, XXH3_128bits_digest(&hs));
    if (memcmp(cs.digest, tb->layer_sum[k], 16))
      return dab_fail(err, DAB_ECORRUPT, "layer %d: layer checksum mismatch", k);
  }
  uint64_t nsolved, nshapes;
  dab_status st = dabtb_solved_scan(&tb->geom, tb->sym, tb->format_version, tb->txn, tb->dbi_solved, cancel,
                                    &nsolved, err);
  return st ? st : dabtb_shapes_scan(tb->txn, cancel, &nshapes, err);
}
