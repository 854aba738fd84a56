/*
** tb_build.c: building a tablebase file: encoding and writing the layers
** (from the layered builder, tb_layered.c, or the retrograde table).
** See Copyright Notice in README.md
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>
#include <zstd.h>
#include "game/durable.h"
#include "solver/retro.h"
#include "tablebase/tb_internal.h"
#include "game/clock.h"

uint64_t dabtb_meta_digest_kv(const char *const *keys, const char *const *vals, int n);

/* ---- Encoding blocks (parallel) --------------------------------------- */

typedef struct enc_item {
  int layer;
  uint32_t number;
  uint64_t first;    /* rank of its first entry */
  uint32_t entries;
  uint8_t *record;   /* header + frame */
  size_t size;
  uint64_t canonical;
  uint64_t hash;
} enc_item;

typedef struct enc_job {
  const dab_geom *g;
  const dab_sym *sym;
  const dab_tbidx *idx;
  const int8_t *value;        /* the retrograde table, or */
  const dabtb_layers *layers; /* the layered builder's layers */
  enc_item *items;
  uint32_t nitems;
  int level;
  bool fill_true;
  _Atomic uint32_t next;
  _Atomic uint64_t done;     /* entries encoded */
  _Atomic int failed;        /* a dab_status */
  dab_cancel_flag *cancel;
  char msg[DAB_ERR_LEN];
  pthread_mutex_t lock;
} enc_job;

static void job_fail(enc_job *j, dab_status st, const char *msg) {
  pthread_mutex_lock(&j->lock);
  if (!atomic_load(&j->failed)) {
    snprintf(j->msg, sizeof j->msg, "%s", msg);
    atomic_store(&j->failed, (int)st);
  }
  pthread_mutex_unlock(&j->lock);
}

static void *enc_worker(void *arg) {
  enc_job *j = arg;
  ZSTD_CCtx *cctx = ZSTD_createCCtx();
  uint8_t *buf = NULL;
  size_t bufcap = 0;
  if (!cctx) {
    job_fail(j, DAB_ENOMEM, "out of memory for a zstd context");
    return NULL;
  }
  for (;;) {
    if (atomic_load(&j->failed) || (j->cancel && *j->cancel)) break;
    uint32_t i = atomic_fetch_add(&j->next, 1);
    if (i >= j->nitems) break;
    enc_item *it = &j->items[i];
    if (bufcap < it->entries) {
      free(buf);
      bufcap = it->entries;
      buf = malloc(bufcap);
      if (!buf) {
        job_fail(j, DAB_ENOMEM, "out of memory for a block buffer");
        break;
      }
    }
    dab_tbidx_iter iter;
    uint8_t last = 0;
    uint64_t canon = 0;
    bool bad = false;
    if (j->layers) {
      /* The layer's bytes: DABTB_NOT_CANON becomes the previous byte. */
      const uint8_t *src = j->layers->data[it->layer] + it->first;
      for (uint32_t e = 0; e < it->entries; e++) {
        uint8_t w = src[e];
        if (w == DABTB_NOT_CANON) w = last;
        else {
          if (w > j->g->nboxes) bad = true;
          canon++;
          last = w;
        }
        buf[e] = w;
      }
    } else
      dab_tbidx_seek(j->idx, &iter, it->layer, it->first);
    for (uint32_t e = 0; !j->layers && e < it->entries; e++) {
      uint64_t p = iter.pos;
      bool care = dabtb_is_canonical(j->sym, p);
      uint8_t w = last;
      if (care || j->fill_true) {
        int R = dabtb_open_boxes(j->g, p);
        int v = j->value[p];
        if (((v + R) & 1) || v < -R || v > R) bad = true;
        w = (uint8_t)((v + R) / 2);
      }
      if (care) {
        canon++;
        last = w;
      }
      buf[e] = w;
      if (e + 1 < it->entries) dab_tbidx_step(j->idx, &iter);
    }
    if (bad) {
      job_fail(j, DAB_EINTERNAL, "a value out of range or of the wrong parity");
      break;
    }
    it->canonical = canon;
    it->hash = XXH3_64bits(buf, it->entries);
    size_t cap = DABTB_BLOCK_HEADER + ZSTD_compressBound(it->entries);
    it->record = malloc(cap);
    if (!it->record) {
      job_fail(j, DAB_ENOMEM, "out of memory for compressed blocks");
      break;
    }
    size_t z = ZSTD_compressCCtx(cctx, it->record + DABTB_BLOCK_HEADER, cap - DABTB_BLOCK_HEADER, buf,
                                 it->entries, j->level);
    if (ZSTD_isError(z)) {
      job_fail(j, DAB_EINTERNAL, ZSTD_getErrorName(z));
      break;
    }
    uint8_t *h = it->record;
    memcpy(h, DABTB_BLOCK_MAGIC, 4);
    h[4] = (uint8_t)it->layer;
    h[5] = h[6] = h[7] = 0;
    dabtb_put_le32(h + 8, it->number);
    dabtb_put_le32(h + 12, it->entries);
    dabtb_put_le64(h + 16, it->hash);
    it->size = DABTB_BLOCK_HEADER + z;
    uint8_t *shrunk = realloc(it->record, it->size);
    if (shrunk) it->record = shrunk;
    atomic_fetch_add(&j->done, it->entries);
  }
  free(buf);
  ZSTD_freeCCtx(cctx);
  return NULL;
}

/* ---- Temporary files --------------------------------------------------- */

/* Removes PATH.tmp.PID.TID and PATH.compact.PID.TID left by builds whose
** process is gone. */
static void remove_stale(const char *path) {
  char dcopy[4096], bcopy[4096];
  snprintf(dcopy, sizeof dcopy, "%s", path);
  snprintf(bcopy, sizeof bcopy, "%s", path);
  const char *dir = dirname(dcopy), *base = basename(bcopy);
  DIR *d = opendir(dir);
  if (!d) return;
  size_t bl = strlen(base);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, base, bl)) continue;
    const char *rest = e->d_name + bl, *num = NULL;
    if (!strncmp(rest, ".tmp.", 5)) num = rest + 5;
    else if (!strncmp(rest, ".compact.", 9)) num = rest + 9;
    if (!num || !*num) continue;
    char *end;
    long pid = strtol(num, &end, 10);
    if ((*end && *end != '.') || pid <= 0) continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
    char full[8192];
    snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
    unlink(full);
  }
  closedir(d);
}

/* ---- Meta ---------------------------------------------------------------- */

typedef struct meta_list {
  int n;
  char key[256][64];
  char val[256][256];
} meta_list;

static void meta_add(meta_list *m, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void meta_add(meta_list *m, const char *key, const char *fmt, ...) {
  if (m->n >= 256) return; /* 18 + 4 per layer: 150 at most for 32 lines */
  snprintf(m->key[m->n], sizeof m->key[0], "%s", key);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->val[m->n], sizeof m->val[0], fmt, ap);
  va_end(ap);
  m->n++;
}

static int cmp_idx(const void *a, const void *b, void *ctx) {
  const meta_list *m = ctx;
  return strcmp(m->key[*(const int *)a], m->key[*(const int *)b]);
}

/* ---- The build ---------------------------------------------------------- */

static dab_status put_or_fail(int rc, const char *what, dab_err *err) {
  if (rc == 0) return DAB_OK;
  return dab_fail(err, DAB_EIO, "writing the tablebase: %s: %s", what, mdb_strerror(rc));
}

static dab_status write_env(const char *tmp, const dab_geom *g, const dab_tbidx *ix,
                            const enc_item *items, uint32_t nitems, const meta_list *meta,
                            int compact_fd, dab_err *err) {
  MDB_env *env = NULL;
  MDB_txn *txn = NULL;
  MDB_dbi dm, db, ds;
  size_t total = 0;
  for (uint32_t i = 0; i < nitems; i++) total += items[i].size + 4096;
  int rc = mdb_env_create(&env);
  if (rc) return put_or_fail(rc, "create", err);
  dab_status st = DAB_OK;
  rc = mdb_env_set_maxdbs(env, 4);
  if (!rc) rc = mdb_env_set_mapsize(env, 2 * total + ((size_t)64 << 20));
  if (!rc) rc = mdb_env_open(env, tmp, MDB_NOSUBDIR | MDB_NOSYNC | MDB_NOLOCK, 0644);
  if (rc) {
    st = put_or_fail(rc, tmp, err);
    goto done;
  }
  rc = mdb_txn_begin(env, NULL, 0, &txn);
  if (!rc) rc = mdb_dbi_open(txn, "meta", MDB_CREATE, &dm);
  if (!rc) rc = mdb_dbi_open(txn, "blocks", MDB_CREATE, &db);
  if (!rc) rc = mdb_dbi_open(txn, "solved", MDB_CREATE, &ds);
  if (rc) {
    st = put_or_fail(rc, "databases", err);
    goto done;
  }
  (void)g;
  (void)ix;
  size_t since = 0;
  for (uint32_t i = 0; i < nitems; i++) {
    uint8_t key[DABTB_KEY_LEN];
    dabtb_put_be32(key, (uint32_t)items[i].layer);
    dabtb_put_be32(key + 4, items[i].number);
    MDB_val k = {sizeof key, key}, v = {items[i].size, items[i].record};
    rc = mdb_put(txn, db, &k, &v, MDB_APPEND);
    if (rc) {
      st = put_or_fail(rc, "blocks", err);
      goto done;
    }
    since += items[i].size;
    if (since > ((size_t)64 << 20)) {
      rc = mdb_txn_commit(txn);
      txn = NULL;
      if (!rc) rc = mdb_txn_begin(env, NULL, 0, &txn);
      if (rc) {
        st = put_or_fail(rc, "commit", err);
        goto done;
      }
      since = 0;
    }
  }
  /* Meta last: a file without it never opens as a tablebase. */
  int order[256];
  for (int i = 0; i < meta->n; i++) order[i] = i;
  qsort_r(order, (size_t)meta->n, sizeof *order, cmp_idx, (void *)meta);
  for (int i = 0; i < meta->n; i++) {
    MDB_val k = {strlen(meta->key[order[i]]), (void *)meta->key[order[i]]};
    MDB_val v = {strlen(meta->val[order[i]]), (void *)meta->val[order[i]]};
    rc = mdb_put(txn, dm, &k, &v, 0);
    if (rc) {
      st = put_or_fail(rc, "meta", err);
      goto done;
    }
  }
  rc = mdb_txn_commit(txn);
  txn = NULL;
  if (!rc) rc = mdb_env_sync(env, 1);
  if (!rc) rc = mdb_env_copyfd2(env, compact_fd, MDB_CP_COMPACT);
  if (rc) st = put_or_fail(rc, "sync and compact", err);
done:
  if (txn) mdb_txn_abort(txn);
  mdb_env_close(env);
  return st;
}

typedef struct carry_list {
  uint64_t *pos;
  dabtb_solved *rec;
  size_t n, cap;
  bool oom;       /* the list is short: the build must fail, not drop records */
} carry_list;

static int carry_one(void *ctx, uint64_t key, const dabtb_solved *r) {
  carry_list *l = ctx;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 4096;
    uint64_t *p = realloc(l->pos, cap * sizeof *p);
    if (p) l->pos = p;
    dabtb_solved *q = realloc(l->rec, cap * sizeof *q);
    if (q) l->rec = q;
    if (!p || !q) return l->oom = true;
    l->cap = cap;
  }
  l->pos[l->n] = key;
  l->rec[l->n++] = *r;
  return 0;
}

/* The solved records of the file being replaced (e.g. a solved-only file
** of this board) go into the new one: a build never loses search results.
** RETURN: DAB_OK (also when there is no old file); else the error, and
** the new file is not put in place. */
static dab_status carry_solved(const char *path, const char *fresh, int rows, int cols, dab_err *err) {
  struct stat sb;
  if (stat(path, &sb) != 0) return DAB_OK;
  dabtb_store *old;
  dab_err why;
  dab_status st = dabtb_store_open(path, rows, cols, DABTB_STORE_READ, &old, &why);
  if (st == DAB_ENOMEM) return dab_fail(err, st, "%s", why.msg); /* ours, maybe: not read */
  if (st) return DAB_OK; /* not ours */
  carry_list l = {0};
  st = dabtb_store_each(old, carry_one, &l, err);
  dabtb_store_close(old);
  if (!st && l.oom) st = dab_fail(err, DAB_ENOMEM, "out of memory for the solved records of %s", path);
  if (!st && l.n) {
    dabtb_store *s;
    st = dabtb_store_open(fresh, rows, cols, DABTB_STORE_WRITE, &s, err);
    if (!st) st = dabtb_store_put(s, l.n, l.pos, l.rec, err);
    dabtb_store_close(s);
    char lock[4216]; /* fresh: at most 4200 bytes; not malloc'd, or a failure left the lock */
    if ((size_t)snprintf(lock, sizeof lock, "%s-lock", fresh) < sizeof lock) unlink(lock);
  }
  free(l.pos);
  free(l.rec);
  return st;
}

dab_status dabtb_build(int rows, int cols, const char *path, const dabtb_build_opts *opts,
                       dabtb_build_report *rep, dab_err *err) {
  dabtb_build_opts o = opts ? *opts : (dabtb_build_opts){0};
  if (!o.zstd_level) o.zstd_level = DABTB_DEFAULT_ZSTD_LEVEL;
  if (!o.block_entries) o.block_entries = DABTB_DEFAULT_BLOCK_ENTRIES;
  if (o.threads <= 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    o.threads = n > 0 ? (int)n : 1;
  }
  if (o.fill_true) o.full_array = true; /* don't-care entries have no value in layers */
  dabtb_build_report r = {0};
  double t0 = dab_now_s();
  dab_geom g;
  dab_status st = dab_geom_init(&g, rows, cols, err);
  if (st) return st;
  dab_tbidx ix;
  st = dab_tbidx_init(&ix, &g, err);
  if (st) return st;
  dab_sym *sym = dab_sym_new(&g, err);
  dab_retro *t = NULL;
  dabtb_layers layers;
  bool have_layers = false;
  enc_item *items = NULL;
  uint32_t nitems = 0;
  meta_list *meta = NULL;
  char tmp[4200], cmp[4200];
  bool made_tmp = false, made_cmp = false;
  int cfd = -1;
  if (!sym) {
    dab_tbidx_free(&ix);
    return DAB_ENOMEM;
  }
  /* PID.TID: unique even when two threads of one process build at once. */
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%ld", path, (long)getpid(), (long)gettid());
  snprintf(cmp, sizeof cmp, "%s.compact.%ld.%ld", path, (long)getpid(), (long)gettid());
  remove_stale(path);

  /* Fail before the long solve if the output directory is not writable. */
  cfd = open(cmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (cfd < 0) {
    st = dab_fail(err, DAB_EIO, "cannot write %s: %s", path, strerror(errno)); /* the user's path */
    goto out;
  }
  made_cmp = true;

  if (o.full_array) {
    dab_retro_opts ro = {0};
    ro.threads = o.threads;
    ro.mem_limit = o.mem_limit;
    ro.progress = o.progress;
    ro.progress_ctx = o.progress_ctx;
    ro.cancel = o.cancel;
    st = dab_retro_solve(&g, 0, &ro, &t, err);
    if (st) goto out;
    r.value = t->value[0];
  } else {
    st = dabtb_layered_solve(&g, &ix, sym, path, &o, &layers, &r, err);
    if (st) goto out;
    have_layers = true;
    r.layered = true;
  }
  r.retro_seconds = dab_now_s() - t0;

  /* Blocks of every layer, encoded in parallel. */
  for (int k = 0; k <= g.nlines; k++) nitems += (uint32_t)((ix.layer_count[k] + o.block_entries - 1) / o.block_entries);
  items = calloc(nitems ? nitems : 1, sizeof *items);
  meta = calloc(1, sizeof *meta);
  if (!items || !meta) {
    st = dab_fail(err, DAB_ENOMEM, "out of memory for the block list");
    goto out;
  }
  {
    uint32_t n = 0;
    for (int k = 0; k <= g.nlines; k++)
      for (uint64_t first = 0; first < ix.layer_count[k]; first += o.block_entries) {
        enc_item *it = &items[n];
        it->layer = k;
        it->number = (uint32_t)(first / o.block_entries);
        it->first = first;
        uint64_t left = ix.layer_count[k] - first;
        it->entries = (uint32_t)(left < o.block_entries ? left : o.block_entries);
        n++;
      }
  }
  double t1 = dab_now_s();
  {
    enc_job job;
    memset(&job, 0, sizeof job);
    job.g = &g;
    job.sym = sym;
    job.idx = &ix;
    job.value = t ? t->value : NULL;
    job.layers = have_layers ? &layers : NULL;
    job.items = items;
    job.nitems = nitems;
    job.level = o.zstd_level;
    job.fill_true = o.fill_true;
    job.cancel = o.cancel;
    pthread_mutex_init(&job.lock, NULL);
    int nt = o.threads < 64 ? o.threads : 64;
    pthread_t th[64];
    int started = 0;
    for (int i = 0; i < nt; i++)
      if (pthread_create(&th[i], NULL, enc_worker, &job) == 0) started++;
      else break;
    if (!started) enc_worker(&job);
    char what[64];
    snprintf(what, sizeof what, "encode %dx%d", rows, cols);
    dab_progress pr = {what, 0, ix.total, 0};
    double last = 0;
    while (started && atomic_load(&job.done) < ix.total && !atomic_load(&job.failed) &&
           !(o.cancel && *o.cancel)) {
      struct timespec ts = {0, 5 * 1000 * 1000};
      nanosleep(&ts, NULL);
      pr.done = atomic_load(&job.done);
      pr.elapsed = dab_now_s() - t1;
      if (o.progress && pr.elapsed - last >= DAB_PROGRESS_INTERVAL) {
        last = pr.elapsed;
        o.progress(o.progress_ctx, &pr);
      }
    }
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    pthread_mutex_destroy(&job.lock);
    if (atomic_load(&job.failed)) {
      st = dab_fail(err, (dab_status)atomic_load(&job.failed), "encoding blocks: %s", job.msg);
      goto out;
    }
    if (o.cancel && *o.cancel) {
      st = dab_fail(err, DAB_ECANCELED, "build canceled");
      goto out;
    }
  }
  dab_retro_free(t);
  t = NULL;
  r.encode_seconds = dab_now_s() - t1;

  /* Meta. */
  {
    uint64_t canon_layer[DAB_TBIDX_MAX_LINES + 1] = {0}, blocks_layer[DAB_TBIDX_MAX_LINES + 1] = {0};
    XXH3_state_t hs[DAB_TBIDX_MAX_LINES + 1];
    for (int k = 0; k <= g.nlines; k++) XXH3_128bits_reset(&hs[k]);
    for (uint32_t i = 0; i < nitems; i++) {
      canon_layer[items[i].layer] += items[i].canonical;
      blocks_layer[items[i].layer]++;
      uint8_t le[8];
      dabtb_put_le64(le, items[i].hash);
      XXH3_128bits_update(&hs[items[i].layer], le, 8);
      r.canonical += items[i].canonical;
      r.payload_bytes += items[i].entries;
      r.compressed_bytes += items[i].size;
    }
    r.blocks = nitems;
    r.indexed = ix.total;
    char date[64];
    /* $SOURCE_DATE_EPOCH (reproducible builds) fixes the date, so two
    ** builds of one board give the same file, byte for byte. */
    time_t now = time(NULL);
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    if (sde && *sde) {
      char *end;
      long long e = strtoll(sde, &end, 10);
      if (!*end && e >= 0) now = (time_t)e;
    }
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    meta_add(meta, "magic", "%s", DABTB_MAGIC);
    meta_add(meta, "format_version", "%d", DABTB_FORMAT_VERSION);
    meta_add(meta, "rows", "%d", rows);
    meta_add(meta, "cols", "%d", cols);
    meta_add(meta, "lines", "%d", g.nlines);
    meta_add(meta, "symmetry", "%d transforms (%s), border equivalence on boxes with >= 2 edge lines",
             sym->ntrans, sym->ntrans == 8 ? "dihedral group of the square" : "mirrors and half turn");
    meta_add(meta, "index", "%s", DABTB_INDEX_SCHEME);
    meta_add(meta, "solved_encoding", "%s", DABTB_SOLVED_ENCODING);
    meta_add(meta, "value_encoding", "%s", DABTB_VALUE_ENCODING);
    meta_add(meta, "compression", "zstd level %d, XXH3-64 per block, XXH3-128 per layer", o.zstd_level);
    meta_add(meta, "block_entries", "%u", o.block_entries);
    meta_add(meta, "positions_total", "%llu", (unsigned long long)(1ull << g.nlines));
    meta_add(meta, "positions_indexed", "%llu", (unsigned long long)ix.total);
    meta_add(meta, "positions_canonical", "%llu", (unsigned long long)r.canonical);
    meta_add(meta, "layers", "%d", g.nlines + 1);
    meta_add(meta, "generator", "dab tablebase builder %s",
             o.fill_true    ? "1 (retrograde with the capture rule), fill=true"
             : o.full_array ? "1 (retrograde with the capture rule)"
                            : "2 (layered, quiet positions only, capture rule)");
    meta_add(meta, "build_date", "%s", date);
    meta_add(meta, "value_empty_board", "%d", r.value);
    for (int k = 0; k <= g.nlines; k++) {
      char key[64];
      snprintf(key, sizeof key, "layer.%02d.entries", k);
      meta_add(meta, key, "%llu", (unsigned long long)ix.layer_count[k]);
      snprintf(key, sizeof key, "layer.%02d.canonical", k);
      meta_add(meta, key, "%llu", (unsigned long long)canon_layer[k]);
      snprintf(key, sizeof key, "layer.%02d.blocks", k);
      meta_add(meta, key, "%llu", (unsigned long long)blocks_layer[k]);
      XXH128_canonical_t cs;
      XXH128_canonicalFromHash(&cs, XXH3_128bits_digest(&hs[k]));
      char hex[40];
      for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", cs.digest[i]);
      snprintf(key, sizeof key, "layer.%02d.xxh3_128", k);
      meta_add(meta, key, "%s", hex);
    }
    /* The digest is over the records in key order (LMDB's order). */
    int order[256];
    const char *ks[256], *vs[256];
    for (int i = 0; i < meta->n; i++) order[i] = i;
    qsort_r(order, (size_t)meta->n, sizeof *order, cmp_idx, meta);
    for (int i = 0; i < meta->n; i++) ks[i] = meta->key[order[i]], vs[i] = meta->val[order[i]];
    meta_add(meta, "meta_xxh3", "%016llx", (unsigned long long)dabtb_meta_digest_kv(ks, vs, meta->n));
  }

  /* Write, compact, carry the solved records, then sync and rename
  ** (dab_durable_commit_file: one fsync covers all of it). */
  double t2 = dab_now_s();
  unlink(tmp);
  made_tmp = true;
  st = write_env(tmp, &g, &ix, items, nitems, meta, cfd, err);
  if (st) goto out;
  {
    struct stat sb;
    if (fstat(cfd, &sb) == 0) r.file_bytes = (uint64_t)sb.st_size;
  }
  close(cfd);
  cfd = -1;
  st = carry_solved(path, cmp, rows, cols, err);
  if (st) goto out;
  st = dab_durable_commit_file(cmp, path, err);
  if (st) goto out;
  made_cmp = false;
  if (have_layers) dabtb_layers_close(&layers, true); /* the file is in place */
  have_layers = false;
  r.write_seconds = dab_now_s() - t2;
  r.total_seconds = dab_now_s() - t0;
out:
  if (cfd >= 0) close(cfd);
  if (made_tmp) unlink(tmp);
  if (made_cmp) unlink(cmp);
  if (items)
    for (uint32_t i = 0; i < nitems; i++) free(items[i].record);
  free(items);
  free(meta);
  dab_retro_free(t);
  if (have_layers) dabtb_layers_close(&layers, false); /* kept for a resume */
  dab_sym_free(sym);
  dab_tbidx_free(&ix);
  if (!st && rep) *rep = r;
  return st;
}
