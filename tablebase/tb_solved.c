/*
** tb_solved.c: the `solved` store of a tablebase file: bounds proved by
** search, merged and read in LMDB transactions (contracts in tb_store.h).
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>
#include "tablebase/tb_internal.h"
#include "tablebase/tb_records.h"

struct dabtb_store {
  dab_geom geom;
  dab_sym *sym;
  MDB_env *env;
  MDB_dbi dbi_solved;
  int format_version;
  bool writable;
  int hold;                 /* dabtb_hold_begin's descriptor while the env uses PATH-lock; -1 = none */
  char path[4096];
};

_Static_assert(DABTB_SOLVED_REC == 24, "the record layout of tb_format.h");

/* Extra map room for a writer: records are ~60 bytes with B-tree overhead,
** so 1 GiB holds some 15 million of them (the map grows on MDB_MAP_FULL). */
#define STORE_MAP_SLACK ((size_t)1 << 30)

/* Records are encoded and checked by tablebase/tb_records.c. */

/* ---- Frames ------------------------------------------------------------ */

/* Another undrawn line of c's border group in p (equivalent to c), or -1. */
static int border_alt(const dab_sym *s, uint64_t p, int c) {
  for (int i = 0; i < s->ngroups; i++)
    if (s->group[i] >> c & 1) {
      uint64_t alt = s->group[i] & ~p;
      return alt ? __builtin_ctzll(alt) : -1;
    }
  return -1;
}

/* Move m of p, in the frame of key = canonical image of p by transform t. */
static int to_key_frame(const dab_sym *s, uint64_t key, int t, int m) {
  int c = s->perm[t][m];
  return key >> c & 1 ? border_alt(s, key, c) : c;
}

/* Move c of key, in the frame of p (key = canonical image of p by t). */
static int from_key_frame(const dab_sym *s, uint64_t p, int t, int c) {
  int m = s->inv[t][c];
  return p >> m & 1 ? border_alt(s, p, m) : m;
}

static void to_public(const dabtb_raw_rec *r, int best, dabtb_solved *out) {
  out->lower = r->lower;
  out->upper = r->upper;
  out->best = best;
  out->nodes = r->nodes;
  out->seconds = r->ms / 1000.0;
  out->work = r->work;
}

/* ---- Opening and creating ------------------------------------------------ */

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Puts meta records (n pairs, any order) plus meta_xxh3 over them into dbi. */
static int put_meta(MDB_txn *txn, MDB_dbi dbi, char (*kv)[2][256], int n) {
  const char *ks[64], *vs[64];
  const char *order[64];
  for (int i = 0; i < n; i++) order[i] = kv[i][0];
  qsort(order, (size_t)n, sizeof *order, cmp_str); /* LMDB's key order */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (order[i] == kv[j][0]) ks[i] = kv[j][0], vs[i] = kv[j][1];
  char hex[24];
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)dabtb_meta_digest_kv(ks, vs, n));
  for (int i = 0; i < n; i++) {
    MDB_val k = {strlen(ks[i]), (void *)ks[i]}, v = {strlen(vs[i]), (void *)vs[i]};
    int rc = mdb_put(txn, dbi, &k, &v, 0);
    if (rc) return rc;
  }
  MDB_val k = {9, (void *)"meta_xxh3"}, v = {16, hex};
  return mdb_put(txn, dbi, &k, &v, 0);
}

/* " (the disk is full)" when the file system holding path has less than
** 1 MiB left: LMDB reports a short write as EIO, which hides the reason. */
static const char *disk_full_note(const char *path) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0; /* the directory: the file may be gone */
  struct statvfs fs;
  if (statvfs(slash ? (*dir ? dir : "/") : ".", &fs) != 0) return "";
  return (uint64_t)fs.f_bavail * fs.f_frsize < (1u << 20) ? " (the disk is full)" : "";
}

/* Writes a new solved-only file at path: beside it first, then linked
** into place (an existing file wins: a concurrent creator made it). */
static dab_status create_file(const char *path, const dab_geom *g, const dab_sym *s, dab_err *err) {
  char tmp[4096 + 64];
  { /* Remove PATH.new.PID left by creators that died (kill -9). */
    glob_t gl;
    snprintf(tmp, sizeof tmp, "%s.new.*", path);
    if (glob(tmp, GLOB_NOSORT, NULL, &gl) == 0) {
      for (size_t i = 0; i < gl.gl_pathc; i++) {
        const char *dot = strrchr(gl.gl_pathv[i], '.');
        long pid = dot ? strtol(dot + 1, NULL, 10) : 0;
        if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH) unlink(gl.gl_pathv[i]);
      }
      globfree(&gl);
    }
  }
  snprintf(tmp, sizeof tmp, "%s.new.%ld", path, (long)getpid());
  unlink(tmp);
  static char kv[16][2][256];
  int n = 0;
#define META(k, ...) (snprintf(kv[n][0], 256, "%s", k), snprintf(kv[n][1], 256, __VA_ARGS__), n++)
  char date[64];
  time_t now = time(NULL);
  struct tm tmv;
  gmtime_r(&now, &tmv);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  META("magic", "%s", DABTB_MAGIC);
  META("format_version", "%d", DABTB_FORMAT_VERSION);
  META("rows", "%d", g->rows);
  META("cols", "%d", g->cols);
  META("lines", "%d", g->nlines);
  META("table", "none");
  META("index", "none");
  META("symmetry", "%d transforms (%s), border equivalence on boxes with >= 2 edge lines", s->ntrans,
       s->ntrans == 8 ? "dihedral group of the square" : "mirrors and half turn");
  META("solved_encoding", "%s", DABTB_SOLVED_ENCODING);
  META("generator", "dab solved store 1 (results of alpha-beta search)");
  META("build_date", "%s", date);
#undef META
  MDB_env *env = NULL;
  MDB_txn *txn = NULL;
  MDB_dbi dm, db, ds;
  int rc = mdb_env_create(&env);
  if (!rc) rc = mdb_env_set_maxdbs(env, 4);
  if (!rc) rc = mdb_env_set_mapsize(env, (size_t)1 << 20);
  if (!rc) rc = mdb_env_open(env, tmp, MDB_NOSUBDIR | MDB_NOLOCK, 0644);
  if (!rc) rc = mdb_txn_begin(env, NULL, 0, &txn);
  if (!rc) rc = mdb_dbi_open(txn, "meta", MDB_CREATE, &dm);
  if (!rc) rc = mdb_dbi_open(txn, "blocks", MDB_CREATE, &db);
  if (!rc) rc = mdb_dbi_open(txn, "solved", MDB_CREATE, &ds);
  if (!rc) rc = put_meta(txn, dm, kv, n);
  if (!rc) {
    rc = mdb_txn_commit(txn);
    txn = NULL;
  }
  if (!rc) rc = mdb_env_sync(env, 1);
  if (txn) mdb_txn_abort(txn);
  if (env) mdb_env_close(env);
  if (rc) {
    unlink(tmp);
    return dab_fail(err, DAB_EIO, "cannot create %s: %s%s", path, mdb_strerror(rc), disk_full_note(path));
  }
  dab_status st = DAB_OK;
  if (link(tmp, path) != 0 && errno != EEXIST)
    st = dab_fail(err, DAB_EIO, "cannot create %s: %s", path, strerror(errno));
  unlink(tmp);
  return st;
}

/* Begins a transaction, adopting a map another process has grown. */
static int txn_begin(MDB_env *env, unsigned flags, MDB_txn **txn) {
  int rc = mdb_txn_begin(env, NULL, flags, txn);
  if (rc == MDB_MAP_RESIZED) {
    mdb_env_set_mapsize(env, 0);
    rc = mdb_txn_begin(env, NULL, flags, txn);
  }
  return rc;
}

/* Format 1 -> 2 in the open write txn: meta version and checksum, and
** the (never used) int8 records as 24-byte ones. */
static int upgrade_v1(dabtb_store *s, MDB_txn *txn) {
  MDB_dbi dm;
  int rc = mdb_dbi_open(txn, "meta", 0, &dm);
  if (rc) return rc;
  static char kv[256][2][256];
  int n = 0;
  MDB_cursor *cur;
  MDB_val k, v;
  rc = mdb_cursor_open(txn, dm, &cur);
  if (rc) return rc;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 && n < 255;
       rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    if (k.mv_size >= 256 || v.mv_size >= 256) continue;
    memcpy(kv[n][0], k.mv_data, k.mv_size);
    kv[n][0][k.mv_size] = 0;
    memcpy(kv[n][1], v.mv_data, v.mv_size);
    kv[n][1][v.mv_size] = 0;
    if (!strcmp(kv[n][0], "meta_xxh3") || !strcmp(kv[n][0], "solved_encoding")) continue;
    if (!strcmp(kv[n][0], "format_version")) snprintf(kv[n][1], 256, "%d", DABTB_FORMAT_VERSION);
    n++;
  }
  mdb_cursor_close(cur);
  if (rc != MDB_NOTFOUND) return rc;
  snprintf(kv[n][0], 256, "solved_encoding");
  snprintf(kv[n][1], 256, "%s", DABTB_SOLVED_ENCODING);
  n++;
  /* put_meta takes at most 64 records; a dense file has ~4 per layer. */
  const char *ks[256], *vs[256];
  for (int i = 0; i < n; i++) ks[i] = kv[i][0];
  qsort(ks, (size_t)n, sizeof *ks, cmp_str);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (ks[i] == kv[j][0]) vs[i] = kv[j][1];
  for (int i = 0; i < n; i++) {
    MDB_val mk = {strlen(ks[i]), (void *)ks[i]}, mv = {strlen(vs[i]), (void *)vs[i]};
    rc = mdb_put(txn, dm, &mk, &mv, 0);
    if (rc) return rc;
  }
  char hex[24];
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)dabtb_meta_digest_kv(ks, vs, n));
  MDB_val hk = {9, (void *)"meta_xxh3"}, hv = {16, hex};
  rc = mdb_put(txn, dm, &hk, &hv, 0);
  if (rc) return rc;
  /* Legacy records: exact int8 values. */
  rc = mdb_cursor_open(txn, s->dbi_solved, &cur);
  if (rc) return rc;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    if (k.mv_size != 8 || v.mv_size != 1) continue;
    uint64_t key = dabtb_get_be64(k.mv_data);
    dabtb_raw_rec r = {(int8_t)((uint8_t *)v.mv_data)[0], (int8_t)((uint8_t *)v.mv_data)[0], -1, 0, 0, 0};
    uint8_t buf[DABTB_SOLVED_REC];
    dabtb_rec_encode(buf, key, &r);
    MDB_val nv = {sizeof buf, buf};
    rc = mdb_cursor_put(cur, &k, &nv, MDB_CURRENT);
    if (rc) break;
  }
  mdb_cursor_close(cur);
  return rc == MDB_NOTFOUND ? 0 : rc;
}

dab_status dabtb_store_open(const char *path, int rows, int cols, int mode, dabtb_store **out,
                            dab_err *err) {
  *out = NULL;
  bool write = mode & DABTB_STORE_WRITE, create = (mode & DABTB_STORE_CREATE) == DABTB_STORE_CREATE;
  dabtb_store *s = calloc(1, sizeof *s);
  if (!s) return dab_fail(err, DAB_ENOMEM, "out of memory");
  s->hold = -1;
  dab_status st = dab_geom_init(&s->geom, rows, cols, err);
  if (st) goto fail;
  if (!dab_geom_fast(&s->geom)) {
    st = dab_fail(err, DAB_EBOARD, "no solved store for %dx%d: over 64 lines", rows, cols);
    goto fail;
  }
  s->sym = dab_sym_new(&s->geom, err);
  if (!s->sym) {
    st = DAB_ENOMEM;
    goto fail;
  }
  if ((size_t)snprintf(s->path, sizeof s->path, "%s", path) >= sizeof s->path) {
    st = dab_fail(err, DAB_EINPUT, "path too long: %s", path);
    goto fail;
  }
  struct stat sb;
  if (stat(path, &sb) != 0) {
    if (errno != ENOENT || !create) {
      st = dab_fail(err, DAB_EIO, "%s: %s", path, strerror(errno));
      goto fail;
    }
    st = create_file(path, &s->geom, s->sym, err);
    if (st) goto fail;
    if (stat(path, &sb) != 0) {
      st = dab_fail(err, DAB_EIO, "%s: %s", path, strerror(errno));
      goto fail;
    }
  }
  { /* Validate as a reader would: magic, version, geometry, checksums. */
    dabtb *tb;
    st = dabtb_open(path, NULL, &tb, err);
    if (st) goto fail;
    dabtb_coverage cov;
    dabtb_get_coverage(tb, &cov);
    dabtb_close(tb);
    if (cov.rows != rows || cov.cols != cols) {
      st = dab_fail(err, DAB_EINPUT, "%s is a %dx%d tablebase, not %dx%d", path, cov.rows, cov.cols,
                    rows, cols);
      goto fail;
    }
    s->format_version = cov.format_version;
  }
  if (write && access(path, W_OK) != 0) {
    st = dab_fail(err, DAB_EIO, "%s: not writable (%s)", path, strerror(errno));
    goto fail;
  }
  int rc;
  for (int attempt = 0;; attempt++) {
    /* The hold first: the last user removes PATH-lock (tb_internal.h). */
    s->hold = dabtb_hold_begin(path);
    if (s->hold < 0 && errno == ENOENT) {
      st = dab_fail(err, DAB_EIO, "%s: removed while being opened", path);
      goto fail;
    }
    rc = mdb_env_create(&s->env);
    if (!rc) rc = mdb_env_set_maxdbs(s->env, 4);
    if (!rc && write) rc = mdb_env_set_mapsize(s->env, (size_t)sb.st_size + STORE_MAP_SLACK);
    /* NOMETASYNC: a system crash may undo the last commit, never corrupt. */
    if (!rc) rc = mdb_env_open(s->env, path, MDB_NOSUBDIR | MDB_NOTLS | (write ? MDB_NOMETASYNC : MDB_RDONLY), 0644);
    if (rc || dabtb_hold_same(s->hold, s->env) || attempt == 2) break;
    /* PATH was replaced between the hold and the open: both again. */
    mdb_env_close(s->env);
    s->env = NULL;
    dabtb_hold_end(s->hold, path);
  }
  if (rc && !write) {
    /* A read-only place with no usable lock file: read without one. */
    mdb_env_close(s->env);
    dabtb_hold_end(s->hold, path);
    s->hold = -1;
    rc = mdb_env_create(&s->env);
    if (!rc) rc = mdb_env_set_maxdbs(s->env, 4);
    if (!rc) rc = mdb_env_open(s->env, path, MDB_NOSUBDIR | MDB_NOTLS | MDB_RDONLY | MDB_NOLOCK, 0444);
  }
  if (rc) {
    st = dab_fail(err, DAB_EIO, "%s: cannot open for %s (%s)", path, write ? "writing" : "reading",
                  mdb_strerror(rc));
    goto fail;
  }
  s->writable = write;
  MDB_txn *txn;
  rc = txn_begin(s->env, write ? 0 : MDB_RDONLY, &txn);
  if (!rc) rc = mdb_dbi_open(txn, "solved", 0, &s->dbi_solved);
  if (!rc && write && s->format_version == 1) {
    rc = upgrade_v1(s, txn);
    if (!rc) s->format_version = DABTB_FORMAT_VERSION;
  }
  if (!rc) rc = mdb_txn_commit(txn);
  else mdb_txn_abort(txn);
  if (rc) {
    st = dab_fail(err, DAB_EIO, "%s: %s", path, mdb_strerror(rc));
    goto fail;
  }
  *out = s;
  return DAB_OK;
fail:
  dabtb_store_close(s);
  return st;
}

void dabtb_store_close(dabtb_store *s) {
  if (!s) return;
  if (s->env) mdb_env_close(s->env);
  dabtb_hold_end(s->hold, s->path); /* after the close: the last user removes PATH-lock */
  dab_sym_free(s->sym);
  free(s);
}

const char *dabtb_store_path(const dabtb_store *s) { return s->path; }
bool dabtb_store_writable(const dabtb_store *s) { return s->writable; }

uint64_t dabtb_store_key(const dabtb_store *s, uint64_t pos) {
  return dab_sym_canon64(s->sym, pos, true, NULL);
}

/* ---- Reading ------------------------------------------------------------- */

/* Reads key's record in txn.  RETURN: DAB_OK with *found. */
static dab_status get_raw(dabtb_store *s, MDB_txn *txn, uint64_t key, dabtb_raw_rec *r, bool *found,
                          dab_err *err) {
  uint8_t kb[8];
  dabtb_put_be64(kb, key);
  MDB_val k = {8, kb}, v;
  int rc = mdb_get(txn, s->dbi_solved, &k, &v);
  *found = false;
  if (rc == MDB_NOTFOUND) return DAB_OK;
  if (rc) return dab_fail(err, DAB_EIO, "%s: solved: %s", s->path, mdb_strerror(rc));
  uint64_t got;
  const char *why = dabtb_rec_decode(&s->geom, s->sym, s->format_version, &k, &v, &got, r);
  if (why)
    return dab_fail(err, DAB_ECORRUPT, "%s: solved key 0x%llx: %s", s->path, (unsigned long long)key,
                    why);
  *found = true;
  return DAB_OK;
}

dab_status dabtb_store_get(dabtb_store *s, uint64_t pos, dabtb_solved *rec, bool *found,
                           dab_err *err) {
  *found = false;
  if (pos & ~s->geom.all_lines)
    return dab_fail(err, DAB_EINPUT, "position has lines beyond the %dx%d board", s->geom.rows,
                    s->geom.cols);
  int t;
  uint64_t key = dab_sym_canon64(s->sym, pos, true, &t);
  MDB_txn *txn;
  int rc = txn_begin(s->env, MDB_RDONLY, &txn);
  if (rc) return dab_fail(err, DAB_EIO, "%s: %s", s->path, mdb_strerror(rc));
  dabtb_raw_rec r;
  dab_status st = get_raw(s, txn, key, &r, found, err);
  mdb_txn_abort(txn);
  if (!st && *found) to_public(&r, r.best >= 0 ? from_key_frame(s->sym, pos, t, r.best) : -1, rec);
  return st;
}

/* Opens a read transaction and a cursor on dbi, or on the named database
** when name is given.  RETURN: 0 with both open, or an LMDB error
** (MDB_NOTFOUND: no such database) with nothing open. */
static int read_cursor(dabtb_store *s, const char *name, MDB_dbi dbi, MDB_txn **txn, MDB_cursor **cur) {
  int rc = txn_begin(s->env, MDB_RDONLY, txn);
  if (rc) return rc;
  if (name) rc = mdb_dbi_open(*txn, name, 0, &dbi);
  if (!rc) rc = mdb_cursor_open(*txn, dbi, cur);
  if (rc) mdb_txn_abort(*txn);
  return rc;
}

dab_status dabtb_store_each(dabtb_store *s, int (*fn)(void *ctx, uint64_t key, const dabtb_solved *rec),
                            void *ctx, dab_err *err) {
  MDB_txn *txn;
  MDB_cursor *cur;
  int rc = read_cursor(s, NULL, s->dbi_solved, &txn, &cur);
  if (rc) return dab_fail(err, DAB_EIO, "%s: %s", s->path, mdb_strerror(rc));
  MDB_val k, v;
  dab_status st = DAB_OK;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    uint64_t key = 0;
    dabtb_raw_rec r;
    const char *why = dabtb_rec_decode(&s->geom, s->sym, s->format_version, &k, &v, &key, &r);
    if (why) {
      st = dab_fail(err, DAB_ECORRUPT, "%s: solved key 0x%llx: %s", s->path, (unsigned long long)key,
                    why);
      break;
    }
    dabtb_solved pub;
    to_public(&r, r.best, &pub);
    if (fn(ctx, key, &pub)) break;
  }
  if (!st && rc && rc != MDB_NOTFOUND)
    st = dab_fail(err, DAB_EIO, "%s: solved: %s", s->path, mdb_strerror(rc));
  mdb_cursor_close(cur);
  mdb_txn_abort(txn);
  return st;
}

dab_status dabtb_store_count(dabtb_store *s, uint64_t *n, dab_err *err) {
  MDB_txn *txn;
  MDB_stat ms;
  int rc = txn_begin(s->env, MDB_RDONLY, &txn);
  if (rc) return dab_fail(err, DAB_EIO, "%s: %s", s->path, mdb_strerror(rc));
  rc = mdb_stat(txn, s->dbi_solved, &ms);
  mdb_txn_abort(txn);
  if (rc) return dab_fail(err, DAB_EIO, "%s: %s", s->path, mdb_strerror(rc));
  *n = ms.ms_entries;
  return DAB_OK;
}

/* ---- Writing ------------------------------------------------------------- */

/* Doubles the map of s (call with no transaction of ours open).
** RETURN: true when it grew. */
static bool grow_map(dabtb_store *s) {
  MDB_envinfo info;
  mdb_env_info(s->env, &info);
  return mdb_env_set_mapsize(s->env, info.me_mapsize * 2) == 0;
}

/* One put batch in txn.  RETURN: DAB_OK, or an error (txn to abort); an
** LMDB MDB_MAP_FULL is passed back in *mdb_rc. */
static dab_status put_batch(dabtb_store *s, MDB_txn *txn, size_t n, const uint64_t *pos,
                            const dabtb_solved *recs, int *mdb_rc, dab_err *err) {
  const dab_geom *g = &s->geom;
  *mdb_rc = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t p = pos[i];
    const dabtb_solved *in = &recs[i];
    if (p & ~g->all_lines)
      return dab_fail(err, DAB_EINPUT, "record %zu: position has lines beyond the %dx%d board", i,
                      g->rows, g->cols);
    int R = dabtb_open_boxes(g, p);
    int lo = in->lower < -R ? -R : in->lower, hi = in->upper > R ? R : in->upper;
    if ((lo - R) & 1) lo++; /* value == R (mod 2) */
    if ((hi - R) & 1) hi--;
    if (lo > hi)
      return dab_fail(err, DAB_EINPUT, "record %zu: bounds [%d,%d] leave no value of %d open boxes", i,
                      in->lower, in->upper, R);
    if (in->best >= g->nlines || (in->best >= 0 && (p >> in->best & 1)))
      return dab_fail(err, DAB_EINPUT, "record %zu: best move %d is not an undrawn line", i, in->best);
    int t;
    uint64_t key = dab_sym_canon64(s->sym, p, true, &t);
    if (in->work < 0 || in->work > 63)
      return dab_fail(err, DAB_EINPUT, "record %zu: work %d is not 0..63", i, in->work);
    dabtb_raw_rec r = {lo, hi, in->best >= 0 ? to_key_frame(s->sym, key, t, in->best) : -1, in->work, 0, in->nodes};
    double ms = in->seconds * 1000.0 + 0.5;
    r.ms = ms <= 0 ? 0 : ms >= 4294967295.0 ? UINT32_MAX : (uint32_t)ms;
    dabtb_raw_rec old;
    bool found;
    dab_status st = get_raw(s, txn, key, &old, &found, err);
    if (st) return st;
    if (found) {
      if (old.lower > r.lower) r.lower = old.lower;
      if (old.upper < r.upper) r.upper = old.upper;
      if (r.lower > r.upper)
        return dab_fail(err, DAB_EINTERNAL,
                        "record %zu: bounds [%d,%d] contradict the stored [%d,%d] of key 0x%llx "
                        "(one of them is wrong; nothing written)",
                        i, lo, hi, old.lower, old.upper, (unsigned long long)key);
      if (r.best < 0) r.best = old.best;
      if (old.nodes > r.nodes) r.nodes = old.nodes;
      if (old.ms > r.ms) r.ms = old.ms;
      r.work = !old.work || !r.work ? 0 : old.work > r.work ? old.work : r.work;
      if (old.lower == r.lower && old.upper == r.upper && old.best == r.best && old.work == r.work &&
          old.ms == r.ms && old.nodes == r.nodes)
        continue; /* nothing new */
    }
    uint8_t kb[8], vb[DABTB_SOLVED_REC];
    dabtb_put_be64(kb, key);
    dabtb_rec_encode(vb, key, &r);
    MDB_val k = {8, kb}, v = {sizeof vb, vb};
    int rc = mdb_put(txn, s->dbi_solved, &k, &v, 0);
    if (rc) {
      *mdb_rc = rc;
      return dab_fail(err, DAB_EIO, "%s: writing solved records: %s", s->path, mdb_strerror(rc));
    }
  }
  return DAB_OK;
}

dab_status dabtb_store_put(dabtb_store *s, size_t n, const uint64_t *pos, const dabtb_solved *recs,
                           dab_err *err) {
  if (!s->writable) return dab_fail(err, DAB_EIO, "%s: opened read-only", s->path);
  for (int attempt = 0;; attempt++) {
    MDB_txn *txn;
    int rc = txn_begin(s->env, 0, &txn), mrc = 0;
    if (rc) return dab_fail(err, DAB_EIO, "%s: %s", s->path, mdb_strerror(rc));
    dab_status st = put_batch(s, txn, n, pos, recs, &mrc, err);
    if (st) {
      mdb_txn_abort(txn);
      if (mrc == MDB_MAP_FULL && attempt < 4) {
        /* Grow the map (no transaction of ours is open now) and redo. */
        if (grow_map(s)) continue;
      }
      return st;
    }
    rc = mdb_txn_commit(txn);
    if (rc == MDB_MAP_FULL && attempt < 4) {
      if (grow_map(s)) continue;
    }
    if (rc) return dab_fail(err, DAB_EIO, "%s: commit: %s%s", s->path, mdb_strerror(rc), disk_full_note(s->path));
    return DAB_OK;
  }
}

/* ---- Verifying ------------------------------------------------------------ */

dab_status dabtb_store_verify(dabtb_store *s, dab_cancel_flag *cancel, uint64_t *records,
                              uint64_t *checked, dab_err *err) {
  const dab_geom *g = &s->geom;
  *records = *checked = 0;
  MDB_txn *txn;
  MDB_cursor *cur;
  int rc = txn_begin(s->env, MDB_RDONLY, &txn);
  if (rc) return dab_fail(err, DAB_EIO, "%s: %s", s->path, mdb_strerror(rc));
  dab_status st = dabtb_solved_scan(g, s->sym, s->format_version, txn, s->dbi_solved, cancel, records, err);
  if (st) {
    mdb_txn_abort(txn);
    return st;
  }
  rc = mdb_cursor_open(txn, s->dbi_solved, &cur);
  if (rc) {
    mdb_txn_abort(txn);
    return dab_fail(err, DAB_EIO, "%s: %s", s->path, mdb_strerror(rc));
  }
  MDB_val k, v;
  uint64_t seen = 0;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 && !st;
       rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    if ((++seen & 1023) == 0 && cancel && *cancel) {
      st = dab_fail(err, DAB_ECANCELED, "verify canceled");
      break;
    }
    uint64_t p;
    dabtb_raw_rec r;
    dabtb_rec_decode(g, s->sym, s->format_version, &k, &v, &p, &r); /* checked by the scan */
    /* Each move's value lies in [a, b]; value(p) = the largest. */
    int amax = -1000, bmax = -1000, known = 0, moves = 0;
    for (uint64_t fr = g->all_lines & ~p; fr && !st; fr &= fr - 1) {
      int m = __builtin_ctzll(fr), kc = dab64_completes(g, p, m);
      uint64_t c = p | 1ull << m;
      int cl, ch;
      moves++;
      if (dabtb_open_boxes(g, c) == 0) {
        cl = ch = 0;
      } else {
        dabtb_raw_rec cr;
        bool found;
        st = get_raw(s, txn, dab_sym_canon64(s->sym, c, true, NULL), &cr, &found, err);
        if (st || !found) continue;
        cl = cr.lower, ch = cr.upper;
      }
      known++;
      int a = kc ? kc + cl : -ch, b = kc ? kc + ch : -cl;
      if (a > amax) amax = a;
      if (b > bmax) bmax = b;
    }
    if (st || !known) continue;
    (*checked)++;
    if (amax > r.upper)
      st = dab_fail(err, DAB_ECORRUPT,
                    "%s: solved key 0x%llx: upper bound %+d, but a move is worth at least %+d", s->path,
                    (unsigned long long)p, r.upper, amax);
    else if (known == moves && bmax < r.lower)
      st = dab_fail(err, DAB_ECORRUPT,
                    "%s: solved key 0x%llx: lower bound %+d, but no move is worth more than %+d",
                    s->path, (unsigned long long)p, r.lower, bmax);
  }
  mdb_cursor_close(cur);
  mdb_txn_abort(txn);
  return st;
}

/* ---- Shapes: bounds keyed by Strings-and-Coins graph keys ---------------- */

dab_status dabtb_shapes_put(dabtb_store *s, size_t n, const dabtb_shape *recs, dab_err *err) {
  if (!s->writable) return dab_fail(err, DAB_EIO, "%s: opened read-only", s->path);
  if (!n) return DAB_OK;
  for (int attempt = 0;; attempt++) {
    MDB_txn *txn;
    MDB_dbi dbi;
    int rc = txn_begin(s->env, 0, &txn);
    if (rc) return dab_fail(err, DAB_EIO, "%s: %s", s->path, mdb_strerror(rc));
    rc = mdb_dbi_open(txn, DABTB_SHAPES_DB, MDB_CREATE, &dbi);
    dab_status st = DAB_OK;
    for (size_t i = 0; i < n && !rc && !st; i++) {
      dabtb_shape r = recs[i];
      if (r.lower < -128) r.lower = -128;
      if (r.upper > 127) r.upper = 127;
      uint8_t kb[DABTB_SHAPE_KEY_BYTES], vb[DABTB_SHAPE_REC_BYTES];
      dabtb_shape_encode(kb, vb, &r);
      MDB_val k = {sizeof kb, kb}, v;
      if (mdb_get(txn, dbi, &k, &v) == 0) {
        dabtb_shape old;
        const char *why = dabtb_shape_decode(&k, &v, &old);
        if (why) {
          st = dab_fail(err, DAB_ECORRUPT, "%s: shape key 0x%llx: %s", s->path, (unsigned long long)r.key, why);
          break;
        }
        if (old.lower > r.lower) r.lower = old.lower;
        if (old.upper < r.upper) r.upper = old.upper;
        if (old.work > r.work) r.work = old.work;
        if (r.lower > r.upper) {
          st = dab_fail(err, DAB_EINTERNAL, "%s: shape 0x%llx: bounds contradict the stored [%d,%d] (nothing written)",
                        s->path, (unsigned long long)r.key, old.lower, old.upper);
          break;
        }
        dabtb_shape_encode(kb, vb, &r);
      }
      v = (MDB_val){sizeof vb, vb};
      rc = mdb_put(txn, dbi, &k, &v, 0);
    }
    if (!rc && !st) rc = mdb_txn_commit(txn);
    else mdb_txn_abort(txn);
    if (st) return st;
    if (rc == MDB_MAP_FULL && attempt < 4) {
      if (grow_map(s)) continue;
    }
    if (rc) return dab_fail(err, DAB_EIO, "%s: writing shapes: %s", s->path, mdb_strerror(rc));
    return DAB_OK;
  }
}

dab_status dabtb_shapes_count(dabtb_store *s, uint64_t *n, dab_err *err) {
  MDB_txn *txn;
  MDB_dbi dbi;
  MDB_stat ms;
  *n = 0;
  int rc = txn_begin(s->env, MDB_RDONLY, &txn);
  if (rc) return dab_fail(err, DAB_EIO, "%s: %s", s->path, mdb_strerror(rc));
  rc = mdb_dbi_open(txn, DABTB_SHAPES_DB, 0, &dbi);
  if (!rc) rc = mdb_stat(txn, dbi, &ms);
  mdb_txn_abort(txn);
  if (rc == MDB_NOTFOUND) return DAB_OK; /* no shapes stored yet */
  if (rc) return dab_fail(err, DAB_EIO, "%s: shapes: %s", s->path, mdb_strerror(rc));
  *n = ms.ms_entries;
  return DAB_OK;
}

dab_status dabtb_shapes_each(dabtb_store *s, int (*fn)(void *ctx, const dabtb_shape *rec), void *ctx,
                             dab_err *err) {
  MDB_txn *txn;
  int rc = txn_begin(s->env, MDB_RDONLY, &txn);
  if (rc) return dab_fail(err, DAB_EIO, "%s: shapes: %s", s->path, mdb_strerror(rc));
  dab_err why;
  dab_status st = dabtb_shapes_walk(txn, fn, ctx, &why);
  mdb_txn_abort(txn);
  return st ? dab_fail(err, st, "%s: %s", s->path, why.msg) : DAB_OK;
}
