/*
** tb_layered.c: the layered quiet-only retrograde builder, its plan and resume.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>
#include "game/durable.h"
#include "game/sysmem.h"
#include "tablebase/tb_internal.h"
#include "tablebase/tb_rule.h"
#include "game/clock.h"

/*
** A layer file, PATH.layers/KK (KK = lines drawn, two digits):
**
**   +----------+------+------+-------+------+---------+---------+------+-----------
**   | DABLAYR1 | rows | cols | layer | 0    | entries | xxh3    | 0... | entries bytes
**   | 8 bytes  | u32  | u32  | u32   | u32  | u64     | u64     |      | (rank order)
**   +----------+------+------+-------+------+---------+---------+------+-----------
**   0          8      12     16      20     24        32        40     64
**
** all little-endian; xxh3 = XXH3-64 of the entries bytes.  Written as
** KK.tmp, synced, renamed: a file named KK is always whole.
*/
#define LAYER_MAGIC "DABLAYR1"
#define LAYER_HEADER 64
#define CHUNK 16384u /* entries per unit of work (a slice of a layer) */
#define LAYER_SYNC ((uint64_t)1 << 24) /* layers this large are fsynced */

/* Real build time / timed sample (stand-in source), measured on 3x4 and
** 2x6 (docs/formats.md): the real source's reads miss the caches. */
#define PLAN_FACTOR 1.0
/* Encoding (zstd 12) per entry and thread, measured on 3x4 and 2x6. */
#define PLAN_ENCODE_NS 40.0
/* The file: compressed bytes per indexed entry, measured on the files
** (zstd 12): 0.101 on boards of 4 symmetries (3x4 3,174,400 bytes of 31.4 M
** entries, 3x5 193,966,080 of 1.93 G; 2x5 0.103, 2x6 0.08) and 0.0668 on
** squares, whose 8 symmetries leave half as many canonical entries (4x4
** 404,885,504 of 6.07 G); plus LMDB's pages: about 1.5 KiB a block record
** and 16 KiB of meta (2x4: 57,344 bytes for 22 blocks of a few KB). */
#define PLAN_FILE_PER_ENTRY_RECT 0.101
#define PLAN_FILE_PER_ENTRY_SQUARE 0.0668
#define PLAN_FILE_PER_BLOCK 1536.0
#define PLAN_FILE_FIXED ((uint64_t)16 << 10)
/* Peak memory beyond the layers and the file: the process, the index
** and symmetry tables (peak RSS of `dab build 1x1`: 8 MB), and a zstd
** context per thread, about 13 bytes per entry of the largest block (13.1
** MB for blocks of 2^20 entries: ZSTD_estimateCCtxSize_usingCParams). */
#define PLAN_MEM_FIXED ((uint64_t)10 << 20)
#define PLAN_MEM_ZSTD_PER_ENTRY 13

static void layer_name(const dabtb_layers *L, int k, bool tmp, char *out, size_t len) {
  snprintf(out, len, "%s/%02d%s", L->dir, k, tmp ? ".tmp" : "");
}

/* ---- The value source: finished layers ---------------------------------- */

/* What a layer's computation reads: the board and the finished layers
** above it.  The builder's own (borrowing its geometry, index and maps),
** or a standalone one (dabtb_lview_new: another process's copies). */
struct dabtb_lview {
  const dab_geom *g;
  const dab_tbidx *ix;
  const dab_sym *sym;
  const uint8_t *data[DAB_TBIDX_MAX_LINES + 1]; /* finished layers; NULL = not yet */
  int threads;
  dab_cancel_flag *cancel;
  bool owned;                /* g, ix, sym below are this view's own */
  dab_geom own_g;
  dab_tbidx own_ix;
  dab_sym *own_sym;
};

typedef struct layer_ctx {
  const dabtb_lview *v;
  int layer;                 /* the layer being computed: children lie above it */
} layer_ctx;

static dab_status layer_stored(const void *ctx, uint64_t c, int *v, dab_err *err) {
  const layer_ctx *lc = ctx;
  int k = dab_popcount64(c);
  if (k <= lc->layer || !lc->v->data[k])
    return dab_fail(err, DAB_EINTERNAL, "layered build: a child in layer %d of layer %d", k, lc->layer);
  uint8_t w = lc->v->data[k][dab_tbidx_rank(lc->v->ix, c)];
  if (w == DABTB_NOT_CANON)
    return dab_fail(err, DAB_EINTERNAL, "layered build: a canonical child without a value");
  *v = 2 * w - dabtb_open_boxes(lc->v->g, c);
  return DAB_OK;
}

/* ---- Computing one layer ------------------------------------------------ */

typedef struct layer_job {
  const dab_geom *g;
  const dab_tbidx *ix;
  const dab_sym *sym;
  dabtb_source src;          /* its ctx: a layer_ctx */
  int layer;
  uint64_t lo, entries;      /* ranks lo .. lo + entries - 1 */
  uint8_t *out;              /* out[i]: the byte of rank lo + i */
  _Atomic uint64_t next;     /* next chunk */
  _Atomic uint64_t done, canonical;
  _Atomic int failed;
  dab_cancel_flag *cancel;
  pthread_mutex_t lock;
  dab_err err;
} layer_job;

static void lfail(layer_job *j, dab_status st, const dab_err *e) {
  pthread_mutex_lock(&j->lock);
  if (!atomic_load(&j->failed)) {
    j->err = *e;
    atomic_store(&j->failed, (int)st);
  }
  pthread_mutex_unlock(&j->lock);
}

/* The byte of indexed entry p: w of its value from its moves, or
** DABTB_NOT_CANON.  The one computation of the builder (dab verify's). */
static dab_status entry_byte(const layer_job *j, const dabtb_source *src, uint64_t p, uint8_t *w,
                             bool *canon, dab_err *e) {
  *canon = dabtb_is_canonical(j->sym, p);
  if (!*canon) {
    *w = DABTB_NOT_CANON;
    return DAB_OK;
  }
  int R = dabtb_open_boxes(j->g, p), v = 0;
  if (p != j->g->all_lines) {
    dab_status st = dabtb_rule_from_moves(src, p, &v, e);
    if (st) return st;
  }
  if (((v + R) & 1) || v < -R || v > R)
    return dab_fail(e, DAB_EINTERNAL, "layered build: value %d with %d boxes left", v, R);
  *w = (uint8_t)((v + R) / 2);
  return DAB_OK;
}

static void *layer_worker(void *arg) {
  layer_job *j = arg;
  dab_err e;
  for (;;) {
    if (atomic_load(&j->failed) || (j->cancel && *j->cancel)) break;
    uint64_t first = atomic_fetch_add(&j->next, 1) * CHUNK;
    if (first >= j->entries) break;
    uint64_t n = j->entries - first < CHUNK ? j->entries - first : CHUNK, canon = 0;
    dab_tbidx_iter it;
    dab_tbidx_seek(j->ix, &it, j->layer, j->lo + first);
    for (uint64_t i = 0; i < n; i++) {
      bool c;
      dab_status st = entry_byte(j, &j->src, it.pos, &j->out[first + i], &c, &e);
      if (st) {
        lfail(j, st, &e);
        return NULL;
      }
      canon += c;
      if (i + 1 < n) dab_tbidx_step(j->ix, &it);
    }
    atomic_fetch_add(&j->canonical, canon);
    atomic_fetch_add(&j->done, n);
  }
  return NULL;
}

static int count_threads(const dabtb_build_opts *o) {
  if (o->threads > 0) return o->threads < 64 ? o->threads : 64;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (n < 64 ? (int)n : 64) : 1;
}

/* Computes ranks lo .. lo + n - 1 of layer K into out[0..n) on up to
** threads threads, reading the finished layers of v; tick(tick_ctx,
** entries done) is called every 5 ms while threads run (may be NULL).
** RETURN: DAB_OK and *canonical; the first error; DAB_ECANCELED. */
static dab_status compute_range(const dabtb_lview *v, int K, uint64_t lo, uint64_t n, uint8_t *out,
                                void (*tick)(void *, uint64_t), void *tick_ctx, uint64_t *canonical,
                                dab_err *err) {
  layer_job j;
  memset(&j, 0, sizeof j);
  layer_ctx lc = {v, K};
  j.g = v->g;
  j.ix = v->ix;
  j.sym = v->sym;
  j.src = (dabtb_source){v->g, v->sym, layer_stored, &lc};
  j.layer = K;
  j.lo = lo;
  j.entries = n;
  j.cancel = v->cancel;
  j.out = out;
  pthread_mutex_init(&j.lock, NULL);
  uint64_t chunks = (n + CHUNK - 1) / CHUNK;
  int threads = v->threads > 0 ? (v->threads < 64 ? v->threads : 64) : 1;
  /* Small ranges run on this thread: no start-up, no polling. */
  int nt = chunks < 4 ? 0 : (uint64_t)threads < chunks ? threads : (int)chunks;
  pthread_t th[64];
  int started = 0;
  for (int i = 0; i < nt; i++)
    if (pthread_create(&th[i], NULL, layer_worker, &j) == 0) started++;
    else break;
  if (!started && n) layer_worker(&j);
  while (started && !atomic_load(&j.failed) && !(v->cancel && *v->cancel) && atomic_load(&j.done) < n) {
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
    if (tick) tick(tick_ctx, atomic_load(&j.done));
  }
  for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
  pthread_mutex_destroy(&j.lock);
  *canonical = atomic_load(&j.canonical);
  if (atomic_load(&j.failed)) {
    if (err) *err = j.err;
    return (dab_status)atomic_load(&j.failed);
  }
  if (v->cancel && *v->cancel) return dab_fail(err, DAB_ECANCELED, "layer %d canceled", K);
  return DAB_OK;
}

/* ---- Slices: the public API for builds spread over processes ---------- */

dab_status dabtb_lview_new(int rows, int cols, int threads, dabtb_lview **out, dab_err *err) {
  *out = NULL;
  dab_status st = dabtb_buildable(rows, cols, err);
  if (st) return st;
  dabtb_lview *v = calloc(1, sizeof *v);
  if (!v) return dab_fail(err, DAB_ENOMEM, "out of memory");
  dab_geom_init(&v->own_g, rows, cols, NULL);
  st = dab_tbidx_init(&v->own_ix, &v->own_g, err);
  if (st) {
    free(v);
    return st;
  }
  v->own_sym = dab_sym_new(&v->own_g, err);
  if (!v->own_sym) {
    dab_tbidx_free(&v->own_ix);
    free(v);
    return DAB_ENOMEM;
  }
  v->owned = true;
  v->g = &v->own_g;
  v->ix = &v->own_ix;
  v->sym = v->own_sym;
  v->threads = threads > 0 ? threads : count_threads(&(dabtb_build_opts){0});
  *out = v;
  return DAB_OK;
}

void dabtb_lview_free(dabtb_lview *v) {
  if (!v || !v->owned) return;
  dab_sym_free(v->own_sym);
  dab_tbidx_free(&v->own_ix);
  free(v);
}

int dabtb_lview_lines(const dabtb_lview *v) { return v->g->nlines; }

uint64_t dabtb_lview_entries(const dabtb_lview *v, int layer) {
  return layer >= 0 && layer <= v->g->nlines ? v->ix->layer_count[layer] : 0;
}

const uint8_t *dabtb_lview_layer(const dabtb_lview *v, int layer) {
  return layer >= 0 && layer <= v->g->nlines ? v->data[layer] : NULL;
}

dab_status dabtb_lview_set_layer(dabtb_lview *v, int layer, const uint8_t *data, dab_err *err) {
  if (!v->owned) return dab_fail(err, DAB_EINPUT, "the builder's own view takes no layers");
  if (layer < 0 || layer > v->g->nlines)
    return dab_fail(err, DAB_EINPUT, "layer %d: the %dx%d board has layers 0..%d", layer, v->g->rows,
                    v->g->cols, v->g->nlines);
  v->data[layer] = data;
  return DAB_OK;
}

dab_status dabtb_layer_slice(const dabtb_lview *v, int layer, uint64_t lo, uint64_t hi, uint8_t *out,
                             uint64_t *canonical, dab_err *err) {
  *canonical = 0;
  if (layer < 0 || layer > v->g->nlines || lo > hi || hi > v->ix->layer_count[layer])
    return dab_fail(err, DAB_EINPUT, "slice [%llu, %llu) of layer %d: out of range", (unsigned long long)lo,
                    (unsigned long long)hi, layer);
  for (int k = layer + 1; k <= v->g->nlines; k++)
    if (v->ix->layer_count[k] && !v->data[k])
      return dab_fail(err, DAB_EINPUT, "slice of layer %d: finished layer %d is missing", layer, k);
  return compute_range(v, layer, lo, hi - lo, out, NULL, NULL, canonical, err);
}

/* ---- Layer files -------------------------------------------------------- */

static void header(uint8_t *h, const dab_geom *g, int k, uint64_t entries, uint64_t hash) {
  memset(h, 0, LAYER_HEADER);
  memcpy(h, LAYER_MAGIC, 8);
  dabtb_put_le32(h + 8, (uint32_t)g->rows);
  dabtb_put_le32(h + 12, (uint32_t)g->cols);
  dabtb_put_le32(h + 16, (uint32_t)k);
  dabtb_put_le64(h + 24, entries);
  dabtb_put_le64(h + 32, hash);
}

/* Writes layer k (KK.tmp, fsync, rename to KK: game/durable.h).  KK.tmp
** is the one name: the layers' lock admits one build, and closing the
** layers removes it. */
static dab_status save_layer(const dabtb_layers *L, const dab_geom *g, int k, const uint8_t *data,
                             uint64_t n, dab_err *err) {
  char tmp[4300], fin[4300];
  layer_name(L, k, true, tmp, sizeof tmp);
  layer_name(L, k, false, fin, sizeof fin);
  uint8_t h[LAYER_HEADER];
  header(h, g, k, n, XXH3_64bits(data, n));
  dab_durable d;
  dab_status st = dab_durable_open(&d, fin, tmp, err);
  if (st) return st;
  /* Small layers are not synced: a layer lost to a crash fails its
  ** checksum on the resume and is computed again (seconds at most). */
  d.nosync = n < LAYER_SYNC;
  if ((st = dab_durable_put(&d, h, sizeof h, err)) || (st = dab_durable_put(&d, data, n, err))) {
    dab_durable_abort(&d);
    return st;
  }
  return dab_durable_commit(&d, err);
}

/* Maps layer k's file when it is whole and of this board (check: its
** checksum too).  RETURN: true when mapped. */
static bool map_layer(dabtb_layers *L, const dab_geom *g, int k, uint64_t n, bool check) {
  char fin[4300];
  layer_name(L, k, false, fin, sizeof fin);
  int fd = open(fin, O_RDONLY);
  if (fd < 0) return false;
  struct stat sb;
  uint8_t h[LAYER_HEADER], want[LAYER_HEADER];
  bool ok = fstat(fd, &sb) == 0 && (uint64_t)sb.st_size == LAYER_HEADER + n &&
            pread(fd, h, sizeof h, 0) == (ssize_t)sizeof h;
  if (ok) {
    header(want, g, k, n, dabtb_get_le64(h + 32));
    ok = memcmp(h, want, LAYER_HEADER) == 0;
  }
  void *m = NULL;
  if (ok && n) {
    m = mmap(NULL, LAYER_HEADER + n, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) m = NULL, ok = false;
    else dab_mapped(m, LAYER_HEADER + n);
  }
  close(fd);
  if (ok && n && check && XXH3_64bits((const uint8_t *)m + LAYER_HEADER, n) != dabtb_get_le64(h + 32))
    ok = false;
  if (!ok) {
    if (m) munmap(m, LAYER_HEADER + n);
    return false;
  }
  L->map[k] = m;
  L->map_bytes[k] = n ? LAYER_HEADER + n : 0;
  L->data[k] = n ? (const uint8_t *)m + LAYER_HEADER : NULL;
  return true;
}

void dabtb_layers_close(dabtb_layers *L, bool remove) {
  if (!L) return;
  for (int k = 0; k <= DAB_TBIDX_MAX_LINES; k++) {
    if (L->map[k]) munmap(L->map[k], L->map_bytes[k]);
    L->map[k] = NULL;
    L->data[k] = NULL;
  }
  if (remove && L->dir[0]) {
    char f[4300];
    for (int k = 0; k <= L->nlines; k++) {
      layer_name(L, k, false, f, sizeof f);
      unlink(f);
      layer_name(L, k, true, f, sizeof f);
      unlink(f);
    }
    snprintf(f, sizeof f, "%s/lock", L->dir);
    unlink(f);
    rmdir(L->dir);
  }
  if (L->lock_fd >= 0) close(L->lock_fd);
  L->lock_fd = -1;
}

/* Creates PATH.layers/ and takes its lock (waiting for another build of
** the same path).  A lock file removed while waiting belongs to a build
** that finished: then start again on a fresh one. */
static dab_status lock_dir(dabtb_layers *L, const char *path, dab_err *err) {
  snprintf(L->dir, sizeof L->dir, "%s.layers", path);
  char lock[4300];
  snprintf(lock, sizeof lock, "%s/lock", L->dir);
  for (int tries = 0; tries < 100; tries++) {
    if (mkdir(L->dir, 0755) != 0 && errno != EEXIST)
      return dab_fail(err, DAB_EIO, "%s: %s", L->dir, strerror(errno));
    int fd = open(lock, O_RDWR | O_CREAT, 0644);
    if (fd < 0) {
      if (errno == ENOENT) continue;
      return dab_fail(err, DAB_EIO, "%s: %s", lock, strerror(errno));
    }
    if (flock(fd, LOCK_EX) != 0) {
      close(fd);
      return dab_fail(err, DAB_EIO, "%s: flock: %s", lock, strerror(errno));
    }
    struct stat a, b;
    if (fstat(fd, &a) == 0 && stat(lock, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
      L->lock_fd = fd;
      return DAB_OK;
    }
    close(fd);
  }
  return dab_fail(err, DAB_EIO, "%s: could not take the build lock", lock);
}

/* ---- The plan -------------------------------------------------------------- */

/* Stand-in source for timing: the real one's canonical rank and a read. */
typedef struct stub_ctx {
  const dab_tbidx *ix;
  const uint8_t *scratch;
  uint64_t mask;
} stub_ctx;

static dab_status stub_stored(const void *ctx, uint64_t c, int *v, dab_err *err) {
  (void)err;
  const stub_ctx *s = ctx;
  *v = s->scratch[(dab_tbidx_rank(s->ix, c) * 0x9e3779b97f4a7c15ull >> 20) & s->mask] & 1;
  return DAB_OK;
}

#define PLAN_SAMPLE 32768u /* entries timed per layer */
#define PLAN_SCRATCH ((size_t)16 << 20)

/* Times the inner loop on up to PLAN_SAMPLE entries of each layer (8
** spans spread over it): seconds per entry and thread, into per_entry[]. */
static dab_status time_sample(const dab_geom *g, const dab_tbidx *ix, const dab_sym *sym,
                              double *per_entry, dab_err *err) {
  uint8_t *scratch = calloc(1, PLAN_SCRATCH);
  if (!scratch) return dab_fail(err, DAB_ENOMEM, "out of memory timing the plan");
  stub_ctx sc = {ix, scratch, PLAN_SCRATCH - 1};
  layer_job j;
  memset(&j, 0, sizeof j);
  j.g = g;
  j.ix = ix;
  j.sym = sym;
  j.src = (dabtb_source){g, sym, stub_stored, &sc};
  dab_status st = DAB_OK;
  for (int k = g->nlines; k >= 0 && !st; k--) {
    uint64_t n = ix->layer_count[k];
    per_entry[k] = 0;
    if (!n) continue;
    int spans = n <= PLAN_SAMPLE ? 1 : 8;
    uint64_t len = n <= PLAN_SAMPLE ? n : PLAN_SAMPLE / 8, timed = 0;
    double t0 = dab_thread_cpu_s(); /* CPU time: other jobs on the cores do not inflate the plan */
    for (int s = 0; s < spans && !st; s++) {
      uint64_t first = spans == 1 ? 0 : (uint64_t)(2 * s + 1) * (n / 16);
      if (first + len > n) first = n - len;
      dab_tbidx_iter it;
      dab_tbidx_seek(ix, &it, k, first);
      for (uint64_t i = 0; i < len; i++) {
        if (dabtb_is_canonical(sym, it.pos) && it.pos != g->all_lines) {
          int v;
          st = dabtb_rule_from_moves(&j.src, it.pos, &v, err);
          if (st) break;
        }
        timed++;
        if (i + 1 < len) dab_tbidx_step(ix, &it);
      }
    }
    per_entry[k] = (dab_thread_cpu_s() - t0) / (double)timed;
  }
  free(scratch);
  return st;
}

static void plan_fill(const dab_geom *g, const dab_tbidx *ix, const dab_sym *sym,
                      const dabtb_build_opts *o, int threads, dabtb_plan *p) {
  memset(p, 0, sizeof *p);
  p->rows = g->rows;
  p->cols = g->cols;
  p->nlines = g->nlines;
  p->ntrans = sym->ntrans;
  p->threads = threads;
  p->full_array = o->full_array || o->fill_true;
  for (int k = 0; k <= g->nlines; k++) {
    p->entries[k] = ix->layer_count[k];
    p->indexed += ix->layer_count[k];
  }
  uint64_t block = o->block_entries ? o->block_entries : DABTB_DEFAULT_BLOCK_ENTRIES, blocks = 0, largest = 0;
  for (int k = 0; k <= g->nlines; k++) {
    blocks += (ix->layer_count[k] + block - 1) / block;
    uint64_t b = ix->layer_count[k] < block ? ix->layer_count[k] : block;
    if (b > largest) largest = b;
  }
  double per_entry = p->ntrans >= 8 ? PLAN_FILE_PER_ENTRY_SQUARE : PLAN_FILE_PER_ENTRY_RECT;
  p->file_bytes = (uint64_t)((double)p->indexed * per_entry + (double)blocks * PLAN_FILE_PER_BLOCK) + PLAN_FILE_FIXED;
  /* The compressed blocks are held before the write, and the compaction
  ** reads the written file through LMDB's map: the file counts twice
  ** (3x5: 2.27 GiB measured, 1.93 GB of layers). */
  uint64_t fixed = PLAN_MEM_FIXED + (uint64_t)threads * largest * PLAN_MEM_ZSTD_PER_ENTRY + 2 * p->file_bytes;
  if (p->full_array) {
    p->peak_bytes = (1ull << g->nlines) + fixed;
    p->disk_bytes = 2 * p->file_bytes;
  } else {
    p->peak_bytes = p->indexed + fixed;
    p->disk_bytes = p->indexed + 2 * p->file_bytes;
  }
  p->mem_limit = o->mem_limit ? o->mem_limit : dab_mem_available();
  p->fits = !p->mem_limit || p->peak_bytes <= p->mem_limit;
}

static dab_status plan_refuse(const dabtb_plan *p, dab_err *err) {
  return dab_fail(err, DAB_ENOMEM,
                  "the %dx%d build needs %.2f GiB of memory at its peak (%s) but only %.2f GiB is "
                  "available; `dab build %dx%d --plan` shows the plan",
                  p->rows, p->cols, (double)p->peak_bytes / 1073741824.0,
                  p->full_array ? "2^L bytes of retrograde table" : "every layer, one byte per indexed entry",
                  (double)p->mem_limit / 1073741824.0, p->rows, p->cols);
}


dab_status dabtb_buildable(int rows, int cols, dab_err *err) {
  dab_geom g;
  dab_status st = dab_geom_init(&g, rows, cols, err);
  if (st) return st;
  int shorter = rows < cols ? rows : cols;
  if (!dab_geom_fast(&g) || shorter > DAB_TBIDX_MAX_W)
    return dab_fail(err, DAB_EBOARD,
                    "no tablebase can be built for %dx%d (the index needs a side of at most %d); "
                    "`dab solve %dx%d` searches instead",
                    rows, cols, DAB_TBIDX_MAX_W, rows, cols);
  uint64_t counts[DAB_TBIDX_MAX_LINES + 1];
  st = dab_tbidx_count(&g, true, counts, err);
  if (st) return st;
  for (int k = 0; k <= g.nlines; k++)
    if (counts[k] > UINT32_MAX)
      return dab_fail(err, DAB_EBOARD,
                      "no tablebase can be built for %dx%d here (layer %d alone has %llu entries; "
                      "see docs/formats.md); `dab solve %dx%d` searches instead",
                      rows, cols, k, (unsigned long long)counts[k], rows, cols);
  return DAB_OK;
}

dab_status dabtb_build_plan(int rows, int cols, const char *path, const dabtb_build_opts *opts,
                            dabtb_plan *plan, dab_err *err) {
  dabtb_build_opts o = opts ? *opts : (dabtb_build_opts){0};
  dab_status st = dabtb_buildable(rows, cols, err);
  if (st) return st;
  dab_geom g;
  dab_geom_init(&g, rows, cols, NULL);
  dab_tbidx ix;
  st = dab_tbidx_init(&ix, &g, err);
  if (st) return st;
  dab_sym *sym = dab_sym_new(&g, err);
  if (!sym) {
    dab_tbidx_free(&ix);
    return DAB_ENOMEM;
  }
  int threads = count_threads(&o);
  plan_fill(&g, &ix, sym, &o, threads, plan);
  double per_entry[DABTB_PLAN_MAX_LAYERS] = {0}, cpu = 0;
  st = time_sample(&g, &ix, sym, per_entry, err);
  if (!st) {
    for (int k = 0; k <= g.nlines; k++) {
      plan->layer_seconds[k] = (double)ix.layer_count[k] * per_entry[k] * PLAN_FACTOR / threads;
      cpu += (double)ix.layer_count[k] * per_entry[k] * PLAN_FACTOR;
      plan->seconds += plan->layer_seconds[k];
    }
    plan->sample_rate = cpu > 0 ? (double)plan->indexed / cpu : 0;
    plan->seconds += (double)plan->indexed * PLAN_ENCODE_NS * 1e-9 / threads;
  }
  if (!st && path && !plan->full_array && !o.restart) {
    /* Finished layers of an earlier run (headers only; the build checks
    ** their checksums). */
    dabtb_layers L;
    memset(&L, 0, sizeof L);
    L.lock_fd = -1;
    snprintf(L.dir, sizeof L.dir, "%s.layers", path);
    for (int k = g.nlines; k >= 0 && map_layer(&L, &g, k, ix.layer_count[k], false); k--) {
      plan->layers_done++;
      plan->seconds -= plan->layer_seconds[k];
    }
    dabtb_layers_close(&L, false);
  }
  dab_sym_free(sym);
  dab_tbidx_free(&ix);
  return st;
}

/* ---- The build ------------------------------------------------------------ */

/* Progress of the one-process build, from inside a layer. */
typedef struct build_tick {
  const dabtb_build_opts *o;
  dab_progress *pr;
  double t0, *last;
  uint64_t before;           /* entries of the layers finished in this run */
} build_tick;

static void build_tick_fn(void *ctx, uint64_t done) {
  build_tick *b = ctx;
  b->pr->done = b->before + done;
  b->pr->elapsed = dab_now_s() - b->t0;
  if (b->o->progress && b->pr->elapsed - *b->last >= DAB_PROGRESS_INTERVAL) {
    *b->last = b->pr->elapsed;
    b->o->progress(b->o->progress_ctx, b->pr);
  }
}


dab_status dabtb_layered_solve(const dab_geom *g, const dab_tbidx *ix, const dab_sym *sym,
                               const char *path, const dabtb_build_opts *o, dabtb_layers *L,
                               dabtb_build_report *r, dab_err *err) {
  memset(L, 0, sizeof *L);
  L->lock_fd = -1;
  L->nlines = g->nlines;
  int threads = count_threads(o);
  dabtb_plan plan;
  plan_fill(g, ix, sym, o, threads, &plan);
  if (!plan.fits) return plan_refuse(&plan, err);
  dab_status st = lock_dir(L, path, err);
  if (st) return st;
  char f[4300];
  if (o->restart)
    for (int k = 0; k <= g->nlines; k++) {
      layer_name(L, k, false, f, sizeof f);
      unlink(f);
    }
  /* Resume: the finished layers from the top down, checksums checked. */
  int K = g->nlines;
  while (K >= 0 && map_layer(L, g, K, ix->layer_count[K], true)) K--;
  r->layers_resumed = g->nlines - K;
  for (int k = K; k >= 0; k--) { /* a killed layer, or layers below a damaged one */
    layer_name(L, k, true, f, sizeof f);
    unlink(f);
    layer_name(L, k, false, f, sizeof f);
    unlink(f);
  }
  uint64_t total = 0, before = 0;
  for (int k = K; k >= 0; k--) total += ix->layer_count[k];
  char what[96];
  dab_progress pr = {what, 0, total, 0};
  double t0 = dab_now_s(), last = 0;
  dabtb_lview view;
  memset(&view, 0, sizeof view);
  view.g = g;
  view.ix = ix;
  view.sym = sym;
  view.threads = threads;
  view.cancel = o->cancel;
  build_tick bt = {o, &pr, t0, &last, 0};
  for (; K >= 0; K--) {
    uint64_t n = ix->layer_count[K], canonical = 0;
    double tl = dab_now_s();
    snprintf(what, sizeof what, "build %dx%d layer %d/%d", g->rows, g->cols, K, g->nlines);
    for (int k = K + 1; k <= g->nlines; k++) view.data[k] = L->data[k];
    uint8_t *out = malloc(n ? n : 1);
    if (!out) {
      st = dab_fail(err, DAB_ENOMEM, "out of memory for layer %d (%llu bytes)", K, (unsigned long long)n);
      break;
    }
    bt.before = before;
    if (o->layer_fn)
      st = o->layer_fn(o->layer_ctx, &view, K, n, out, &canonical, err);
    else
      st = compute_range(&view, K, 0, n, out, build_tick_fn, &bt, &canonical, err);
    if (st == DAB_ECANCELED || (!st && o->cancel && *o->cancel))
      st = dab_fail(err, DAB_ECANCELED,
                    "build canceled in layer %d; %d finished layers are kept in %s (the same build, "
                    "to the same file, resumes from them)",
                    K, g->nlines - K, L->dir);
    if (!st) st = save_layer(L, g, K, out, n, err);
    free(out);
    if (!st && !map_layer(L, g, K, n, false))
      st = dab_fail(err, DAB_EIO, "%s: cannot map the layer just written", L->dir);
    if (st) break;
    before += n;
    if (o->layer_done) o->layer_done(o->progress_ctx, K, n, canonical, dab_now_s() - tl);
  }
  if (st) {
    dabtb_layers_close(L, false);
    return st;
  }
  r->value = 2 * L->data[0][0] - g->nboxes;
  return DAB_OK;
}
