/*
** pdb_file.c: the pattern database on disk (one LMDB file of zstd
** blocks, checksummed), and its theory-free verification.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "game/clock.h"
#include "game/durable.h"
#include "pdb/pdb_int.h"
#include "symmetry/sckey.h"
#include "theorems/graphsolve.h"

/*
** Layout (docs/formats.md, "Pattern database"): an LMDB environment in a
** single file with two named databases.
**
**   meta    ASCII key -> ASCII value: magic "dab-pdb", format 1, the
**           graph-encoding version, max_strings, components, move_words,
**           blocks, built_utc, and meta_xxh3: XXH3-64 (16 hex digits) of
**           every other record as "key=value\n" in key order.
**   blocks  u32 big-endian block number -> header + zstd frame:
**           "PDB1" | components u32 LE | raw bytes u32 LE | 0 u32 |
**           XXH3-64 of the raw bytes u64 LE | frame.
**           Raw: per component, in id order, 8 bytes (coins, strings,
**           moves, flags, nimber, value, safe move, decline move), its
**           encoding (coins u32 LE words), then its move words (u32 LE).
** Blocks hold PDB_BLOCK components each (the last fewer): about 1 MB raw,
** far above LMDB's overflow-page threshold, as docs/formats.md advises.
*/

#define PDB_MAGIC "dab-pdb"
#define PDB_FORMAT 1
#define PDB_BLOCK 4096
#define PDB_BLOCK_MAGIC "PDB1"
#define PDB_BLOCK_HEADER 24

typedef struct meta_kv {
  char key[32], val[64];
} meta_kv;

static int cmp_kv(const void *a, const void *b) { return strcmp(((const meta_kv *)a)->key, ((const meta_kv *)b)->key); }

static uint64_t meta_digest(meta_kv *kv, int n) {
  qsort(kv, (size_t)n, sizeof *kv, cmp_kv);
  char all[16 * 100];
  size_t at = 0;
  for (int i = 0; i < n; i++) {
    if (strcmp(kv[i].key, "meta_xxh3"))
      at += (size_t)snprintf(all + at, sizeof all - at, "%s=%s\n", kv[i].key, kv[i].val);
  }
  return XXH3_64bits(all, at);
}

static size_t class_words(const dab_pdb *db, uint32_t id) {
  const uint32_t *w = pdb_moves(db, id);
  size_t n = 0;
  for (int m = 0; m < db->cls[id].nmoves; m++) n += 1 + MV_NCHILD(w[n]);
  return n;
}

static dab_status lmdb_fail(dab_err *err, const char *path, const char *what, int rc) {
  return dab_fail(err, DAB_EIO, "%s: %s: %s", path, what, mdb_strerror(rc));
}

dab_status dab_pdb_save(const dab_pdb *db, const char *path, dab_err *err) {
  char tmp[DAB_DURABLE_TMP];
  dab_status st0 = dab_durable_tmpname(path, tmp, sizeof tmp, err);
  if (st0) return st0;
  unlink(tmp);
  MDB_env *env = NULL;
  MDB_txn *txn = NULL;
  MDB_dbi dmeta, dblocks;
  dab_status st = DAB_OK;
  uint8_t *raw = NULL, *out = NULL;
  int rc = mdb_env_create(&env);
  if (rc) return lmdb_fail(err, path, "create", rc);
  mdb_env_set_maxdbs(env, 4);
  mdb_env_set_mapsize(env, (size_t)1 << 40);
  if ((rc = mdb_env_open(env, tmp, MDB_NOSUBDIR | MDB_NOSYNC | MDB_NOLOCK, 0644))) {
    st = lmdb_fail(err, tmp, "open", rc);
    goto out;
  }
  if ((rc = mdb_txn_begin(env, NULL, 0, &txn)) || (rc = mdb_dbi_open(txn, "meta", MDB_CREATE, &dmeta)) ||
      (rc = mdb_dbi_open(txn, "blocks", MDB_CREATE, &dblocks))) {
    st = lmdb_fail(err, tmp, "begin", rc);
    goto out;
  }
  uint32_t nblocks = (db->n + PDB_BLOCK - 1) / PDB_BLOCK;
  size_t cap = 0;
  for (uint32_t b = 0; b < nblocks; b++) {
    uint32_t lo = b * PDB_BLOCK, hi = lo + PDB_BLOCK < db->n ? lo + PDB_BLOCK : db->n;
    size_t need = 0;
    for (uint32_t id = lo; id < hi; id++) need += 8 + 4 * ((size_t)db->cls[id].coins + class_words(db, id));
    if (need > cap) {
      free(raw);
      free(out);
      cap = need;
      raw = malloc(cap);
      out = malloc(PDB_BLOCK_HEADER + ZSTD_compressBound(cap));
      if (!raw || !out) {
        st = dab_fail(err, DAB_ENOMEM, "pattern database: out of memory writing %s", path);
        goto out;
      }
    }
    size_t at = 0;
    for (uint32_t id = lo; id < hi; id++) {
      const pdb_class *c = &db->cls[id];
      uint8_t h[8] = {c->coins, c->strings, c->nmoves, c->flags, (uint8_t)c->nimber, (uint8_t)c->value,
                      (uint8_t)c->safe_move, (uint8_t)c->decline_move};
      memcpy(raw + at, h, 8);
      at += 8;
      memcpy(raw + at, db->enc + c->enc_at, 4 * (size_t)c->coins); /* little-endian hosts (x86-64, aarch64) */
      at += 4 * (size_t)c->coins;
      size_t nw = class_words(db, id);
      memcpy(raw + at, pdb_moves(db, id), 4 * nw);
      at += 4 * nw;
    }
    size_t z = ZSTD_compress(out + PDB_BLOCK_HEADER, ZSTD_compressBound(cap), raw, at, 9);
    if (ZSTD_isError(z)) {
      st = dab_fail(err, DAB_EINTERNAL, "pattern database: zstd: %s", ZSTD_getErrorName(z));
      goto out;
    }
    uint32_t n32 = hi - lo, raw32 = (uint32_t)at, zero = 0;
    uint64_t x = XXH3_64bits(raw, at);
    memcpy(out, PDB_BLOCK_MAGIC, 4);
    memcpy(out + 4, &n32, 4);
    memcpy(out + 8, &raw32, 4);
    memcpy(out + 12, &zero, 4);
    memcpy(out + 16, &x, 8);
    uint8_t kb[4] = {(uint8_t)(b >> 24), (uint8_t)(b >> 16), (uint8_t)(b >> 8), (uint8_t)b};
    MDB_val k = {4, kb}, v = {PDB_BLOCK_HEADER + z, out};
    if ((rc = mdb_put(txn, dblocks, &k, &v, MDB_APPEND))) {
      st = lmdb_fail(err, tmp, "write", rc);
      goto out;
    }
  }
  meta_kv kv[16];
  int nk = 0;
  char when[32];
  time_t now = time(NULL);
  struct tm tmv;
  gmtime_r(&now, &tmv);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tmv);
#define KV(k, ...) (snprintf(kv[nk].key, sizeof kv[nk].key, "%s", k), snprintf(kv[nk].val, sizeof kv[nk].val, __VA_ARGS__), nk++)
  KV("magic", "%s", PDB_MAGIC);
  KV("format_version", "%d", PDB_FORMAT);
  KV("sckey_version", "%d", DAB_SCKEY_VERSION);
  KV("max_strings", "%d", db->max_strings);
  KV("components", "%u", db->n);
  KV("move_words", "%zu", db->mv_n);
  KV("blocks", "%u", nblocks);
  KV("built_utc", "%s", when);
#undef KV
  uint64_t d = meta_digest(kv, nk);
  snprintf(kv[nk].key, sizeof kv[nk].key, "meta_xxh3");
  snprintf(kv[nk].val, sizeof kv[nk].val, "%016llx", (unsigned long long)d);
  nk++;
  for (int i = 0; i < nk; i++) {
    MDB_val k = {strlen(kv[i].key), kv[i].key}, v = {strlen(kv[i].val), kv[i].val};
    if ((rc = mdb_put(txn, dmeta, &k, &v, 0))) {
      st = lmdb_fail(err, tmp, "write meta", rc);
      goto out;
    }
  }
  rc = mdb_txn_commit(txn);
  txn = NULL;
  if (rc || (rc = mdb_env_sync(env, 1))) {
    st = lmdb_fail(err, tmp, "commit", rc);
    goto out;
  }
  mdb_env_close(env);
  env = NULL;
  char lockf[4300];
  snprintf(lockf, sizeof lockf, "%s-lock", tmp);
  unlink(lockf);
  st = dab_durable_commit_file(tmp, path, err);
out:
  if (txn) mdb_txn_abort(txn);
  if (env) mdb_env_close(env);
  if (st) {
    unlink(tmp);
    char lock[4300];
    snprintf(lock, sizeof lock, "%s-lock", tmp);
    unlink(lock);
  }
  free(raw);
  free(out);
  return st;
}

/* ---- Reading ------------------------------------------------------------ */

static dab_status corrupt(dab_err *err, const char *path, const char *what) {
  return dab_fail(err, DAB_ECORRUPT, "%s: not a valid dab pattern database: %s", path, what);
}

/* Reads meta into kv (sorted), checks magic, version and digest. */
static dab_status read_meta(MDB_txn *txn, MDB_dbi dmeta, const char *path, meta_kv *kv, int *nk, dab_err *err) {
  MDB_cursor *cur;
  if (mdb_cursor_open(txn, dmeta, &cur)) return corrupt(err, path, "meta unreadable");
  MDB_val k, v;
  int n = 0;
  for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); !rc; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    if (n == 16 || k.mv_size >= sizeof kv[0].key || v.mv_size >= sizeof kv[0].val) {
      mdb_cursor_close(cur);
      return corrupt(err, path, "unexpected meta record");
    }
    memcpy(kv[n].key, k.mv_data, k.mv_size), kv[n].key[k.mv_size] = 0;
    memcpy(kv[n].val, v.mv_data, v.mv_size), kv[n].val[v.mv_size] = 0;
    n++;
  }
  mdb_cursor_close(cur);
  *nk = n;
  const char *magic = NULL, *digest = NULL;
  for (int i = 0; i < n; i++) {
    if (!strcmp(kv[i].key, "magic")) magic = kv[i].val;
    if (!strcmp(kv[i].key, "meta_xxh3")) digest = kv[i].val;
  }
  if (!magic || strcmp(magic, PDB_MAGIC)) return corrupt(err, path, "no dab-pdb magic (another kind of file?)");
  char want[20];
  snprintf(want, sizeof want, "%016llx", (unsigned long long)meta_digest(kv, n));
  if (!digest || strcmp(digest, want)) return corrupt(err, path, "meta checksum mismatch");
  return DAB_OK;
}

static const char *meta_get(const meta_kv *kv, int n, const char *key) {
  for (int i = 0; i < n; i++)
    if (!strcmp(kv[i].key, key)) return kv[i].val;
  return NULL;
}

dab_status dab_pdb_load(const char *path, dab_pdb **out, dab_err *err) {
  struct stat sb;
  if (stat(path, &sb) != 0) return dab_fail(err, DAB_EIO, "%s: %s", path, strerror(errno));
  if (!S_ISREG(sb.st_mode)) return dab_fail(err, DAB_EIO, "%s: not a file", path);
  MDB_env *env = NULL;
  MDB_txn *txn = NULL;
  MDB_dbi dmeta, dblocks;
  dab_pdb *db = NULL;
  uint8_t *raw = NULL;
  dab_status st = DAB_OK;
  int rc = mdb_env_create(&env);
  if (rc) return lmdb_fail(err, path, "create", rc);
  mdb_env_set_maxdbs(env, 4);
  if ((rc = mdb_env_open(env, path, MDB_RDONLY | MDB_NOSUBDIR | MDB_NOLOCK | MDB_NOTLS, 0444))) {
    st = rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH ? corrupt(err, path, "not an LMDB file")
                                                        : lmdb_fail(err, path, "open", rc);
    goto out;
  }
  if ((rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn)) || (rc = mdb_dbi_open(txn, "meta", 0, &dmeta)) ||
      (rc = mdb_dbi_open(txn, "blocks", 0, &dblocks))) {
    st = corrupt(err, path, "no meta or blocks database");
    goto out;
  }
  meta_kv kv[16];
  int nk = 0;
  if ((st = read_meta(txn, dmeta, path, kv, &nk, err))) goto out;
  const char *fv = meta_get(kv, nk, "format_version"), *sv = meta_get(kv, nk, "sckey_version"),
             *ms = meta_get(kv, nk, "max_strings"), *nc = meta_get(kv, nk, "components"),
             *nb = meta_get(kv, nk, "blocks");
  if (!fv || atoi(fv) != PDB_FORMAT) {
    st = dab_fail(err, DAB_ECORRUPT, "%s: pattern database format %s; this dab reads format %d", path,
                  fv ? fv : "?", PDB_FORMAT);
    goto out;
  }
  if (!sv || atoi(sv) != DAB_SCKEY_VERSION) {
    st = dab_fail(err, DAB_ECORRUPT, "%s: graph encoding version %s; this dab uses %d (rebuild it)", path,
                  sv ? sv : "?", DAB_SCKEY_VERSION);
    goto out;
  }
  if (!ms || !nc || !nb || atoi(ms) < 1 || atoi(ms) > DAB_PDB_MAX_STRINGS) {
    st = corrupt(err, path, "bad meta counts");
    goto out;
  }
  uint32_t ncomp = (uint32_t)strtoul(nc, NULL, 10), nblocks = (uint32_t)strtoul(nb, NULL, 10);
  if ((st = dab_pdb_new(&db, err))) goto out;
  db->max_strings = atoi(ms);
  size_t cap = 0;
  for (uint32_t b = 0; b < nblocks; b++) {
    uint8_t kb[4] = {(uint8_t)(b >> 24), (uint8_t)(b >> 16), (uint8_t)(b >> 8), (uint8_t)b};
    MDB_val k = {4, kb}, v;
    if (mdb_get(txn, dblocks, &k, &v)) {
      char m[64];
      snprintf(m, sizeof m, "block %u missing", b);
      st = corrupt(err, path, m);
      goto out;
    }
    const uint8_t *p = v.mv_data;
    uint32_t n32, raw32;
    uint64_t x;
    if (v.mv_size < PDB_BLOCK_HEADER || memcmp(p, PDB_BLOCK_MAGIC, 4)) {
      st = corrupt(err, path, "bad block header");
      goto out;
    }
    memcpy(&n32, p + 4, 4), memcpy(&raw32, p + 8, 4), memcpy(&x, p + 16, 8);
    if (n32 == 0 || n32 > PDB_BLOCK || raw32 > (64u << 20)) {
      st = corrupt(err, path, "bad block counts");
      goto out;
    }
    if (raw32 > cap) {
      free(raw);
      cap = raw32;
      if (!(raw = malloc(cap))) {
        st = dab_fail(err, DAB_ENOMEM, "%s: out of memory", path);
        goto out;
      }
    }
    size_t got = ZSTD_decompress(raw, raw32, p + PDB_BLOCK_HEADER, v.mv_size - PDB_BLOCK_HEADER);
    if (ZSTD_isError(got) || got != raw32 || XXH3_64bits(raw, raw32) != x) {
      char m[64];
      snprintf(m, sizeof m, "block %u checksum mismatch", b);
      st = corrupt(err, path, m);
      goto out;
    }
    size_t at = 0;
    for (uint32_t i = 0; i < n32; i++) {
      if (at + 8 > raw32) goto short_block;
      const uint8_t *h = raw + at;
      at += 8;
      int coins = h[0];
      if (coins < 1 || coins > DAB_SCKEY_COMP_MAX || at + 4 * (size_t)coins > raw32) goto short_block;
      uint32_t enc[DAB_SCKEY_COMP_MAX];
      memcpy(enc, raw + at, 4 * (size_t)coins);
      at += 4 * (size_t)coins;
      int64_t id = pdb_add_class(db, enc, coins);
      if (id < 0) {
        st = dab_fail(err, DAB_ENOMEM, "%s: out of memory", path);
        goto out;
      }
      pdb_class *c = &db->cls[id];
      if (c->strings != h[1]) goto short_block;
      c->nmoves = h[2], c->flags = h[3], c->nimber = (int8_t)h[4], c->value = (int8_t)h[5];
      c->safe_move = (int8_t)h[6], c->decline_move = (int8_t)h[7];
      c->mv_at = (uint32_t)db->mv_n;
      for (int m = 0; m < c->nmoves; m++) {
        if (at + 4 > raw32) goto short_block;
        uint32_t w;
        memcpy(&w, raw + at, 4);
        size_t words = 1 + MV_NCHILD(w);
        if (at + 4 * words > raw32) goto short_block;
        if (!pdb_reserve_moves(db, words)) {
          st = dab_fail(err, DAB_ENOMEM, "%s: out of memory", path);
          goto out;
        }
        memcpy(db->mv + db->mv_n, raw + at, 4 * words);
        db->mv_n += words;
        at += 4 * words;
      }
    }
    continue;
  short_block:
    st = corrupt(err, path, "a block's components do not parse");
    goto out;
  }
  if (db->n != ncomp) {
    st = corrupt(err, path, "component count differs from meta");
    goto out;
  }
  /* every child names a component of the file */
  for (uint32_t id = 0; id < db->n; id++) {
    const uint32_t *w = pdb_moves(db, id);
    for (int m = 0; m < db->cls[id].nmoves; m++, w = pdb_next_move(w))
      for (uint32_t k = 0; k < MV_NCHILD(*w); k++)
        if (w[1 + k] >= db->n) {
          st = corrupt(err, path, "a move names a component the file lacks");
          goto out;
        }
  }
out:
  if (txn) mdb_txn_abort(txn);
  if (env) mdb_env_close(env);
  free(raw);
  if (st) dab_pdb_free(db);
  else *out = db;
  return st;
}

/* ---- Verification ------------------------------------------------------ */

dab_status dab_pdb_verify(const dab_pdb *db, uint64_t *checked, uint64_t *mismatches, dab_progress_fn progress,
                          void *progress_ctx, dab_cancel_flag *cancel, dab_err *err) {
  uint64_t bad = 0;
  double t0 = dab_now_s(), last = 0;
  *checked = 0;
  for (uint32_t id = 0; id < db->n; id++) {
    const pdb_class *c = &db->cls[id];
    dab_sg g;
    memset(&g, 0, sizeof g);
    bool ok = dab_pdb_graph(db, id, &g);
    if (!ok || g.nstrings != c->strings) {
      if (!bad++) dab_fail(err, DAB_ECORRUPT, "component %u: its encoding has %d strings, not %d", id, g.nstrings, c->strings);
      continue;
    }
    /* structure: a move removes one string and the coins it captures */
    const uint32_t *w = pdb_moves(db, id);
    for (int m = 0; m < c->nmoves; m++, w = pdb_next_move(w)) {
      int coins = (int)MV_CAPTURED(*w), strings = 0;
      for (uint32_t k = 0; k < MV_NCHILD(*w); k++) coins += db->cls[w[1 + k]].coins, strings += db->cls[w[1 + k]].strings;
      if (coins != c->coins || strings != c->strings - 1) {
        if (!bad++) dab_fail(err, DAB_ECORRUPT, "component %u: move %d does not remove one string", id, m);
      }
    }
    dab_sgs *s;
    dab_status st = dab_sgs_new(&g, &s, err);
    if (st) return st;
    int v = dab_sgs_value(s, dab_sg_full(&g));
    int nim = dab_sgs_nimber(s, dab_sg_full(&g));
    dab_sgs_free(s);
    if (v != c->value || nim != c->nimber) {
      if (!bad++)
        dab_fail(err, DAB_ECORRUPT, "component %u: stored value %d nimber %d, the graph solver says %d and %d", id,
                 c->value, c->nimber, v, nim);
    }
    (*checked)++;
    if ((id & 255) == 0) {
      if (cancel && *cancel) return dab_fail(err, DAB_ECANCELED, "verify canceled after %u components", id);
      double t = dab_now_s();
      if (progress && t - last >= DAB_PROGRESS_INTERVAL) {
        dab_progress p = {"pdb verify", id, db->n, t - t0};
        progress(progress_ctx, &p);
        last = t;
      }
    }
  }
  *mismatches = bad;
  return DAB_OK;
}
