/*
** solvestore.c: a search's use of the solved store: answer from it, seed
** the search from it, store every bound as it is proved, checkpoint.
** See Copyright Notice in README.md
*/
#include "oracle/solvestore.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "tablebase/dabtb.h"
#include "tablebase/tb_cache.h"
#include "game/clock.h"

struct dab_solvestore {
  dab_geom g;
  dab_sym *sym;
  dab_solvestore_opts o;
  char tb_dir[PATH_MAX];       /* o.tb_dir points here */
  dabtb_store *st;             /* open file (read-only when !can_write) */
  bool can_write;              /* storing allowed and still possible */
  char create_path[PATH_MAX];  /* no file yet: made here on the first store */
  bool warned;
  const dab_ab *seeded;        /* solver already seeded */
  uint64_t written;            /* records stored through this handle */
  double store_seconds;        /* time spent storing */
  /* The position whose root bounds on_bound reports. */
  bool tracking, eager;        /* eager: store every bound, even early ones */
  dab_ab *cur_ab;
  uint64_t cur, node_base, prior_nodes;
  double t_base, prior_seconds;
  double last_checkpoint;      /* when the table was last saved */
  double checkpoint_cost;      /* seconds the last checkpoint took */
  /* The cache's policy (tb_cache.h): a file there, found or to be made,
  ** is kept only for searches that did real work. */
  bool in_cache;
  dabtb_cache_policy policy;
  bool wrote;                  /* something was written to the file (trim the cache at close) */
  double q_start;              /* when the running query's search began; 0 = none */
  bool q_dropped;              /* the last query's results were not kept (too short) */
  /* A new file in the cache waits until the search has earned it (run
  ** policy.min_seconds and proved more than the trivial bounds): what it
  ** would hold meanwhile, written first when it is made. */
  uint64_t *pend_pos;
  dabtb_solved *pend_rec;
  size_t npend, pend_cap;
  bool pend_useful;
  /* Serialises the store's writes while several analysis threads run
  ** (dab_ab_analyze_moves): a proved move and a checkpoint. */
  pthread_mutex_t lock;
};

/* Checkpoints of the warm table (see checkpoint()).  A million records
** is ~60 MB of file and ~1.5 s to write; storing only the 150,000 of most
** work lost ~3/4 of an interrupted 3x5 run's work, a million lost ~none
** (docs/persistence.md). */
#define CHECKPOINT_MAX_RECORDS 1000000
#define CHECKPOINT_EVERY_SECONDS 60.0
#define CHECKPOINT_MIN_SEARCH_SECONDS 10.0
/* Records a new cache file waits with in memory at most (a checkpoint is
** never held: it is only taken once the file is earned). */
#define PENDING_MAX 100000

/* One warning line to the caller's callback. */
__attribute__((format(printf, 2, 3))) static void warn(const dab_solvestore *s, const char *fmt, ...) {
  if (!s->o.warn) return;
  char msg[DAB_ERR_LEN + 256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  s->o.warn(s->o.warn_ctx, msg);
}

static void warn_once(dab_solvestore *s, const char *what, const char *msg) {
  if (s->warned) return;
  s->warned = true;
  warn(s, "%s: %s; going on without storing results", what, msg);
}

bool dab_solvestore_board_covered(const dab_geom *g, const char *tb_dir) {
  if (g->nlines <= DABTB_AUTO_BUILD_LINES) return true;
  char path[PATH_MAX + 64];
  if (dabtb_find(g->rows, g->cols, tb_dir, path, sizeof path, NULL)) return false;
  dabtb *tb;
  if (dabtb_open(path, NULL, &tb, NULL)) return false;
  bool table = dabtb_has_table(tb);
  dabtb_close(tb);
  return table;
}

/* s->create_path = RxC.dab in the first writable directory of tb_dir and
** $DAB_TB_PATH.  False when none is (dabtb_default_path decides then). */
static bool first_writable_dir(dab_solvestore *s) {
  char dirs[2 * PATH_MAX];
  const char *env = getenv("DAB_TB_PATH"), *tb_dir = s->o.tb_dir;
  snprintf(dirs, sizeof dirs, "%s%s%s", tb_dir && *tb_dir ? tb_dir : "",
           tb_dir && *tb_dir && env && *env ? ":" : "", env ? env : "");
  for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
    struct stat sb;
    if (stat(d, &sb) != 0 || !S_ISDIR(sb.st_mode) || access(d, W_OK | X_OK) != 0) continue;
    if ((size_t)snprintf(s->create_path, sizeof s->create_path, "%s/%dx%d.dab", d, s->g.rows, s->g.cols) <
        sizeof s->create_path)
      return true;
  }
  s->create_path[0] = 0;
  return false;
}

/* Opens the file found on the search path, or plans where to make one. */
static void select_file(dab_solvestore *s) {
  const dab_geom *g = &s->g;
  dab_err err;
  char path[PATH_MAX + 64];
  if (dabtb_find(g->rows, g->cols, s->o.tb_dir, path, sizeof path, NULL) == DAB_OK) {
    s->in_cache = dabtb_in_cache(path);
    /* Used now: last in the eviction order (a read is a use; read-only
    ** mode changes nothing, not even an access time). */
    if (s->in_cache && !dabtb_readonly()) dabtb_cache_touch(path);
    dab_status st = DAB_EIO;
    if (!s->o.read_only) {
      st = dabtb_store_open(path, g->rows, g->cols, DABTB_STORE_WRITE, &s->st, &err);
      if (st == DAB_OK) s->can_write = true;
      else if (st == DAB_EIO) warn_once(s, "cannot write the solved store", err.msg);
    }
    if (st == DAB_EIO) st = dabtb_store_open(path, g->rows, g->cols, DABTB_STORE_READ, &s->st, &err);
    if (st) {
      s->warned = false; /* this one matters more than a read-only note */
      warn_once(s, "cannot use the solved store", err.msg);
      s->can_write = false;
    }
    return;
  }
  if (s->o.read_only) return;
  if (first_writable_dir(s)) {
    s->can_write = true;
    return;
  }
  if (dabtb_default_path(g->rows, g->cols, s->o.tb_dir, s->create_path, sizeof s->create_path, &err)) {
    s->create_path[0] = 0;
    warn_once(s, "no place for a solved store", err.msg);
    return;
  }
  s->in_cache = dabtb_in_cache(s->create_path);
  s->can_write = true;
}

dab_status dab_solvestore_open(const dab_geom *g, const dab_solvestore_opts *opts,
                               dab_solvestore **out, dab_err *err) {
  static const dab_solvestore_opts defaults;
  *out = NULL;
  if (!dab_geom_fast(g))
    return dab_fail(err, DAB_EBOARD, "solved stores hold boards of at most %d lines (%dx%d has %d)",
                    DAB_FAST_MAX_LINES, g->rows, g->cols, g->nlines);
  dab_solvestore *s = calloc(1, sizeof *s);
  if (!s) return dab_fail(err, DAB_ENOMEM, "out of memory");
  s->o = opts ? *opts : defaults;
  if (dabtb_readonly()) s->o.read_only = true; /* read-only mode: read the store, never write */
  if (s->o.tb_dir) {
    snprintf(s->tb_dir, sizeof s->tb_dir, "%s", s->o.tb_dir);
    s->o.tb_dir = s->tb_dir;
  }
  s->g = *g;
  s->sym = dab_sym_new(g, err);
  if (!s->sym || pthread_mutex_init(&s->lock, NULL)) {
    bool had_sym = s->sym != NULL;
    dab_sym_free(s->sym);
    free(s);
    return had_sym ? dab_fail(err, DAB_ENOMEM, "out of memory") : DAB_ENOMEM;
  }
  dab_err perr;
  if (dabtb_cache_policy_get(&s->policy, &perr)) warn(s, "%s; using the default", perr.msg);
  select_file(s);
  *out = s;
  return DAB_OK;
}

void dab_solvestore_close(dab_solvestore *s) {
  if (!s) return;
  char path[PATH_MAX], cache[PATH_MAX];
  bool trim = s->st && s->wrote && s->in_cache && s->policy.max_bytes;
  if (trim) snprintf(path, sizeof path, "%s", dabtb_store_path(s->st));
  dabtb_store_close(s->st);
  /* Within the cap: the least recently used search files go, never this
  ** one (docs/persistence.md, "The cache"). */
  char note[1024];
  uint64_t freed = 0;
  dab_err err;
  if (trim && dabtb_cache_dir(cache, sizeof cache) &&
      dabtb_cache_trim(cache, s->policy.max_bytes, path, note, sizeof note, &freed, &err) == DAB_OK && freed)
    warn(s, "the cache keeps at most %.1f GiB of search results (DAB_CACHE_MAX): removed the least recently "
         "used: %s", (double)s->policy.max_bytes / 1073741824.0, note);
  free(s->pend_pos);
  free(s->pend_rec);
  dab_sym_free(s->sym);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

bool dab_solvestore_is_open(const dab_solvestore *s) { return s && s->st; }
bool dab_solvestore_active(const dab_solvestore *s) { return s && (s->st || s->can_write); }
bool dab_solvestore_writable(const dab_solvestore *s) { return s && s->st && s->can_write; }
const char *dab_solvestore_path(const dab_solvestore *s) {
  return s && s->st ? dabtb_store_path(s->st) : "";
}

void dab_solvestore_get_stats(dab_solvestore *s, dab_solvestore_stats *out) {
  memset(out, 0, sizeof *out);
  if (!s) return;
  out->written = s->written;
  out->store_seconds = s->store_seconds;
  out->dropped = s->q_dropped;
  out->min_seconds = s->policy.min_seconds;
  if (s->st && dabtb_store_count(s->st, &out->records, NULL)) out->records = 0;
}

double dab_solvestore_new_in_cache(const dab_solvestore *s) {
  return s && s->can_write && !s->st && s->in_cache ? s->policy.min_seconds : 0;
}

/* The handle to write through (created on first use), or NULL. */
static dabtb_store *writer(dab_solvestore *s) {
  if (!s->can_write) return NULL;
  if (s->st) return s->st;
  dab_err err;
  if (dabtb_store_open(s->create_path, s->g.rows, s->g.cols, DABTB_STORE_CREATE, &s->st, &err)) {
    s->can_write = false;
    s->st = NULL;
    warn_once(s, "cannot create the solved store", err.msg);
  }
  return s->st;
}

/* Writes n records now (making the file on the first write). */
static void put_now(dab_solvestore *s, size_t n, const uint64_t *pos, const dabtb_solved *recs) {
  if (!n) return;
  dabtb_store *w = writer(s);
  if (!w) return;
  double t0 = dab_now_s();
  dab_err err;
  dab_status st = dabtb_store_put(w, n, pos, recs, &err);
  s->store_seconds += dab_now_s() - t0;
  if (st == DAB_OK) {
    s->written += n;
    s->wrote = true;
    return;
  }
  if (st == DAB_EINTERNAL) { /* a contradiction: say so every time */
    warn(s, "%s", err.msg);
    return;
  }
  s->can_write = false;
  warn_once(s, "storing failed", err.msg);
}

/* Seconds the running query has searched (0 outside a search). */
static double query_seconds(const dab_solvestore *s) { return s->q_start > 0 ? dab_now_s() - s->q_start : 0; }

/* True when a record of p says more than that its value lies in [-R, R]. */
static bool useful(const dab_solvestore *s, uint64_t p, const dabtb_solved *r) {
  int R = dab_ab_open_boxes(&s->g, p);
  return r->lower > -R || r->upper < R;
}

/* True while a new file in the cache waits to be earned. */
static bool deferring(const dab_solvestore *s) { return s->can_write && !s->st && s->in_cache; }

/* The search earned its file: made now, with what waited first. */
static void earn(dab_solvestore *s) {
  if (!deferring(s)) return;
  size_t np = s->npend;
  s->npend = 0;
  if (np) put_now(s, np, s->pend_pos, s->pend_rec);
  else writer(s);
}

/*
** Stores n records: at once where a file exists or goes outside the
** cache; for a new file in the cache, only once the query's search has
** run policy.min_seconds and proved something beyond the trivial bounds
** (the records wait in memory until then, and are dropped if the search
** ends before: a rerun costs less than the file is worth).
*/
static void put(dab_solvestore *s, size_t n, const uint64_t *pos, const dabtb_solved *recs) {
  if (!n || !s->can_write) return;
  if (deferring(s)) {
    for (size_t i = 0; i < n && !s->pend_useful; i++) s->pend_useful = useful(s, pos[i], &recs[i]);
    if (!s->pend_useful || query_seconds(s) < s->policy.min_seconds) {
      if (s->npend + n > PENDING_MAX) return;
      if (s->npend + n > s->pend_cap) {
        size_t cap = 2 * (s->npend + n);
        uint64_t *np = realloc(s->pend_pos, cap * sizeof *np);
        if (np) s->pend_pos = np;
        dabtb_solved *nr = np ? realloc(s->pend_rec, cap * sizeof *nr) : NULL;
        if (!nr) return;
        s->pend_rec = nr;
        s->pend_cap = cap;
      }
      memcpy(s->pend_pos + s->npend, pos, n * sizeof *pos);
      memcpy(s->pend_rec + s->npend, recs, n * sizeof *recs);
      s->npend += n;
      return;
    }
    earn(s);
  }
  put_now(s, n, pos, recs);
}

/* A query starts: its search's clock, nothing waiting. */
static void begin_query(dab_solvestore *s) {
  s->q_start = dab_now_s();
  s->npend = 0;
  s->pend_useful = false;
  s->q_dropped = false;
}

/* A query ends (finished, stopped or failed): what still waits is dropped. */
static void end_query(dab_solvestore *s) {
  s->q_dropped = s->npend > 0 || (deferring(s) && s->q_start > 0);
  s->npend = 0;
  s->pend_useful = false;
  s->q_start = 0;
}

/* Looks p up; false when absent or unreadable. */
static bool get(dab_solvestore *s, uint64_t p, dabtb_solved *r) {
  if (!s->st) return false;
  bool found = false;
  dab_err err;
  if (dabtb_store_get(s->st, p, r, &found, &err)) {
    warn_once(s, "reading the solved store", err.msg);
    return false;
  }
  return found;
}

bool dab_solvestore_exact(dab_solvestore *s, uint64_t p, int *v, int *best) {
  dabtb_solved r;
  if (!s || !get(s, p, &r) || r.lower != r.upper) return false;
  *v = r.lower;
  if (best) *best = r.best;
  return true;
}

static int open_boxes(const dab_solvestore *s, uint64_t p) { return dab_ab_open_boxes(&s->g, p); }

size_t dab_solvestore_put_bounds(dab_solvestore *s, size_t n, const uint64_t *pos, const int *lower,
                                 const int *upper) {
  if (!s || !s->can_write || !n) return 0;
  dabtb_solved *recs = malloc(n * sizeof *recs);
  if (!recs) return 0;
  for (size_t i = 0; i < n; i++) recs[i] = (dabtb_solved){lower[i], upper[i], -1, 0, 0, 0};
  uint64_t before = s->written;
  put_now(s, n, pos, recs); /* a finished proof is always worth its file */
  free(recs);
  return (size_t)(s->written - before);
}

/* ---- Answering from the store --------------------------------------------- */

bool dab_solvestore_answer(dab_solvestore *s, uint64_t root, bool value_only, dab_analysis *a,
                           int16_t *pv, int *npv) {
  *npv = 0;
  if (!s || !s->st) return false;
  int v, best = -1;
  if (!dab_solvestore_exact(s, root, &v, &best)) return false;
  memset(a, 0, sizeof *a);
  a->value = v;
  if (!value_only) {
    for (uint64_t fr = s->g.all_lines & ~root; fr; fr &= fr - 1) {
      int m = __builtin_ctzll(fr), k = dab64_completes(&s->g, root, m), cv = 0;
      uint64_t c = root | 1ull << m;
      if (open_boxes(s, c) && !dab_solvestore_exact(s, c, &cv, NULL)) return false;
      a->move[a->nmoves] = (int16_t)m;
      a->move_value[a->nmoves++] = (int16_t)(k ? k + cv : -cv);
    }
    if (a->nmoves) {
      int mx = a->move_value[0];
      for (int i = 1; i < a->nmoves; i++)
        if (a->move_value[i] > mx) mx = a->move_value[i];
      if (mx != v) {
        warn(s, "stored move values (best %+d) disagree with the stored value %+d; searching again", mx, v);
        return false;
      }
    }
    dab_analysis_pick_best(a);
  }
  /* A principal variation along the stored best moves. */
  uint64_t p = root;
  int m = best >= 0 ? best : (a->nbest ? a->best[0] : -1);
  while (m >= 0 && *npv < 64 && !(p >> m & 1) && (p & s->g.all_lines) != s->g.all_lines) {
    pv[(*npv)++] = (int16_t)m;
    p |= 1ull << m;
    int cv;
    m = -1;
    if (open_boxes(s, p) && !dab_solvestore_exact(s, p, &cv, &m)) m = -1;
  }
  return true;
}

/* ---- Searching with the store ---------------------------------------------- */

/*
** Saves the expensive part of the warm table: the entries with the most
** work below them (at most opts.checkpoint_records, by default
** CHECKPOINT_MAX_RECORDS, work >= min_work),
** exact ones only or bounds too.  They are true bounds of positions (the
** table's key is the canonical position itself), so a rerun that seeds
** them skips the subtrees they summarise: this is what makes a resumed
** search cheaper than starting over.  It may run while workers write the
** table: dab_tt_read reports a torn entry as empty.  Entries keyed by
** Strings-and-Coins graph hashes (the default above 8 free lines) go to
** the shapes store: they name no position.
*/
static void checkpoint(dab_solvestore *s, dab_ab *ab, bool bounds_too, int min_work) {
  if (!s->can_write || !ab) return;
  if (s->in_cache) {
    /* In the cache a table's worth of resume data (up to ~60 MB) is kept
    ** only for a search that has run a checkpoint period: a shorter one
    ** costs less to redo than its file is worth. */
    double need = s->policy.min_seconds;
    double period = s->o.checkpoint_seconds > 0 ? s->o.checkpoint_seconds : CHECKPOINT_EVERY_SECONDS;
    if (bounds_too && period > need) need = period;
    if (query_seconds(s) < need) return;
    earn(s); /* the checkpoint may hold shapes only */
  }
  double t0 = dab_now_s();
  const dab_tt *tt = dab_ab_tt(ab);
  const uint64_t max = s->o.checkpoint_records ? s->o.checkpoint_records : CHECKPOINT_MAX_RECORDS;
  uint64_t hist[256] = {0};
  for (int pass = 0; pass < 2; pass++) {
    int threshold = min_work;
    if (pass == 1) { /* the highest-work entries that fit */
      uint64_t n = 0;
      for (threshold = 255; threshold > min_work && n + hist[threshold] <= max; threshold--)
        n += hist[threshold];
      if (n + hist[threshold] > max) threshold++;
    }
    uint64_t *pos = NULL;
    dabtb_solved *recs = NULL;
    dabtb_shape *shapes = NULL;
    size_t n = 0, nshapes = 0;
    if (pass == 1) {
      pos = malloc(max * sizeof *pos);
      recs = malloc(max * sizeof *recs);
      shapes = malloc(max * sizeof *shapes);
      if (!pos || !recs || !shapes) {
        free(pos);
        free(recs);
        free(shapes);
        return;
      }
    }
    uint64_t cap = dab_tt_capacity(tt);
    for (uint64_t slot = 0; slot < cap; slot++) {
      uint64_t key;
      uint32_t check;
      dab_tt_hit e;
      int work;
      if (!dab_tt_read(tt, slot, &key, &check, &e, &work)) continue;
      bool hashed = check & DAB_TT_CHECK_HASHED;
      if (work < threshold || (!hashed && (key & ~s->g.all_lines)) || e.lower > e.upper) continue;
      if (e.lower != e.upper && (!bounds_too || (e.lower == -128 && e.upper == 127))) continue;
      if (pass == 0) hist[work]++;
      else if (n + nshapes < max) {
        if (hashed) shapes[nshapes++] = (dabtb_shape){key, check, e.lower, e.upper, work};
        else {
          pos[n] = key;
          recs[n++] = (dabtb_solved){e.lower, e.upper, -1, 0, 0, work};
        }
      }
    }
    if (pass == 1) {
      put(s, n, pos, recs);
      dab_err err;
      /* a checkpoint may hold shapes only: then it makes the file */
      dabtb_store *w = nshapes ? writer(s) : NULL;
      if (w) {
        if (dabtb_shapes_put(w, nshapes, shapes, &err)) warn_once(s, "storing shapes", err.msg);
        else s->wrote = true;
      }
    }
    free(pos);
    free(recs);
    free(shapes);
  }
  s->last_checkpoint = dab_now_s();
  s->checkpoint_cost = s->last_checkpoint - t0;
}

/*
** Seeding a rerun's table from the store.  A whole solve's result (work 0)
** is always pinned.  Checkpoint entries are pinned too while the file
** holds at most twice as many as the table has slots: they are what the
** killed search knew, and pinned they stay through its generation changes.
** A store much larger than the table fills every bucket with pinned
** entries and crowds the search out, so then each comes back at the
** weight it had (measured on 2x6: docs/persistence.md).
*/
typedef struct seed_ctx {
  dab_ab *ab;
  bool pin;
} seed_ctx;

static int seed_one(void *ctx, uint64_t key, const dabtb_solved *r) {
  const seed_ctx *c = ctx;
  dab_ab_seed(c->ab, key, r->lower, r->upper, c->pin || !r->work ? DAB_AB_SEED_KEEP : r->work, NULL);
  return 0;
}

static int seed_shape(void *ctx, const dabtb_shape *r) {
  const seed_ctx *c = ctx;
  dab_ab_seed_key(c->ab, r->key, r->check, r->lower, r->upper, c->pin ? DAB_AB_SEED_KEEP : r->work);
  return 0;
}

void dab_solvestore_seed(dab_solvestore *s, dab_ab *ab) {
  if (!s || !s->st || s->seeded == ab) return;
  dab_err err;
  uint64_t records = 0, shapes = 0;
  if (dabtb_store_count(s->st, &records, &err) || dabtb_shapes_count(s->st, &shapes, &err))
    warn_once(s, "reading the solved store", err.msg);
  seed_ctx c = {ab, records + shapes <= 2 * dab_tt_capacity(dab_ab_tt(ab))};
  if (dabtb_store_each(s->st, seed_one, &c, &err)) warn_once(s, "reading the solved store", err.msg);
  if (dabtb_shapes_each(s->st, seed_shape, &c, &err)) warn_once(s, "reading the shapes store", err.msg);
  s->seeded = ab;
}

void dab_solvestore_checkpoint(dab_solvestore *s, dab_ab *ab, double ran_seconds) {
  if (!s || !ab) return;
  pthread_mutex_lock(&s->lock);
  /* the caller's searching counts as the query's, for the cache's policy */
  double q = s->q_start;
  s->q_start = dab_now_s() - ran_seconds;
  checkpoint(s, ab, true, 1);
  s->q_start = q;
  pthread_mutex_unlock(&s->lock);
}

/* Time for a periodic checkpoint (at most 5% of the time on them, or the
** caller's fixed period)? */
static bool checkpoint_due(const dab_solvestore *s) {
  double every = 20 * s->checkpoint_cost;
  if (every < CHECKPOINT_EVERY_SECONDS) every = CHECKPOINT_EVERY_SECONDS;
  if (s->o.checkpoint_seconds > 0) every = s->o.checkpoint_seconds;
  return s->tracking && s->last_checkpoint > 0 && dab_now_s() - s->last_checkpoint >= every;
}

void dab_solvestore_tick(dab_solvestore *s) {
  /* Inside a long null-window test: save the table now and then, so a
  ** kill loses at most a few minutes.  Runs in worker 0's thread, maybe
  ** while an analysis thread stores a move (solved_child). */
  if (s && checkpoint_due(s)) {
    pthread_mutex_lock(&s->lock);
    checkpoint(s, s->cur_ab, true, 1);
    pthread_mutex_unlock(&s->lock);
  }
}

void dab_solvestore_on_bound(void *ctx, int lower, int upper) {
  dab_solvestore *s = ctx;
  if (!s || !s->tracking) return;
  /* A child's intermediate bounds are worth a commit (an fsync) only once
  ** its solve has taken a while; its result is stored in any case. */
  if (!s->eager && dab_now_s() - s->t_base < 1.0) return;
  dab_ab_stats st;
  dab_ab_get_stats(s->cur_ab, &st);
  dabtb_solved r = {lower, upper, -1, s->prior_nodes + (st.nodes - s->node_base),
                    s->prior_seconds + (dab_now_s() - s->t_base), 0};
  put(s, 1, &s->cur, &r);
  /* Long solves: save the expensive table entries now and then, so that
  ** even a kill -9 leaves them (on_bound runs between searches). */
  if (checkpoint_due(s)) checkpoint(s, s->cur_ab, true, 1);
}

dab_status dab_solvestore_solve(dab_solvestore *s, dab_ab *ab, uint64_t p, int *value, int *lower,
                                int *upper, dab_err *err) {
  if (!dab_solvestore_active(s)) return dab_ab_solve(ab, p, value, lower, upper, err);
  begin_query(s);
  s->eager = true;
  dabtb_solved prior;
  bool had = get(s, p, &prior);
  dab_ab_stats st;
  dab_ab_get_stats(ab, &st);
  s->cur_ab = ab;
  s->cur = p;
  s->node_base = st.nodes;
  s->t_base = dab_now_s();
  s->prior_nodes = had ? prior.nodes : 0;
  s->prior_seconds = had ? prior.seconds : 0;
  s->tracking = true;
  if (s->last_checkpoint == 0) s->last_checkpoint = s->t_base;
  int lo = 0, hi = 0;
  dab_status rc = dab_ab_solve(ab, p, value, &lo, &hi, err);
  s->tracking = false;
  if (lower) *lower = lo;
  if (upper) *upper = hi;
  if (rc == DAB_OK || rc == DAB_ECANCELED) {
    dab_ab_get_stats(ab, &st);
    dabtb_solved r = {rc ? lo : *value, rc ? hi : *value, -1, s->prior_nodes + (st.nodes - s->node_base),
                      s->prior_seconds + (dab_now_s() - s->t_base), 0};
    if (!had || r.lower > prior.lower || r.upper < prior.upper) put(s, 1, &p, &r);
  }
  if (rc == DAB_ECANCELED) checkpoint(s, ab, true, 1); /* resume from here */
  if (rc) end_query(s);
  return rc;
}

/* dab_ab_analyze_moves hooks: a child the store knows exactly is not
** searched; a proved child is stored at once, so an interrupted analysis
** keeps the moves it finished. */
static bool known_child(void *ctx, uint64_t c, int *v) { return dab_solvestore_exact(ctx, c, v, NULL); }

static void solved_child(void *ctx, uint64_t c, int v, uint64_t nodes, double seconds) {
  dab_solvestore *s = ctx;
  pthread_mutex_lock(&s->lock);
  dabtb_solved prior;
  bool had = get(s, c, &prior);
  dabtb_solved r = {v, v, -1, (had ? prior.nodes : 0) + nodes, (had ? prior.seconds : 0) + seconds, 0};
  put(s, 1, &c, &r);
  pthread_mutex_unlock(&s->lock);
}

dab_status dab_solvestore_analyze(dab_solvestore *s, dab_ab *ab, uint64_t root, int v,
                                  dab_analysis *a, dab_err *err) {
  if (!dab_solvestore_active(s)) return dab_ab_analyze_moves(ab, root, v, NULL, a, err);
  dab_ab_move_hooks hooks = {known_child, solved_child, s};
  /* Tracking on: the progress tick checkpoints the table meanwhile. */
  s->cur_ab = ab;
  s->tracking = true;
  dab_status st = dab_ab_analyze_moves(ab, root, v, &hooks, a, err);
  s->tracking = false;
  if (st == DAB_ECANCELED) checkpoint(s, ab, true, 1); /* resume from here */
  if (st) end_query(s);
  return st;
}

void dab_solvestore_finish(dab_solvestore *s, dab_ab *ab, uint64_t root, const dab_analysis *a,
                           bool value_only, int v, const int16_t *pv, int npv) {
  if (!s || !s->can_write) return;
  const dab_geom *g = &s->g;
  size_t cap = 2 + (size_t)npv + (size_t)g->nlines * (size_t)(g->nlines + 1), n = 0;
  uint64_t *pos = malloc(cap * sizeof *pos);
  dabtb_solved *recs = malloc(cap * sizeof *recs);
  uint64_t *seen = malloc(cap * sizeof *seen);
  if (pos && recs && seen) {
    /* The root with a best move, and the principal variation. */
    pos[n] = root;
    recs[n++] = (dabtb_solved){v, v, !value_only && a->nbest ? a->best[0] : -1, 0, 0, 0};
    uint64_t p = root;
    int val = v;
    for (int i = 0; i < npv && !(p >> pv[i] & 1); i++) {
      int k = dab64_completes(g, p, pv[i]);
      pos[n] = p;
      recs[n++] = (dabtb_solved){val, val, pv[i], 0, 0, 0};
      val = k ? val - k : -val;
      p |= 1ull << pv[i];
    }
    /* Exact values the warm table knows within two plies (under the
    ** search's own keys: graph keys above 8 free lines). */
    size_t nseen = 0;
    for (uint64_t f1 = g->all_lines & ~root; f1; f1 &= f1 - 1) {
      uint64_t c1 = root | (f1 & -f1);
      for (uint64_t f2 = g->all_lines & ~c1;; f2 &= f2 - 1) {
        uint64_t c = f2 ? c1 | (f2 & -f2) : c1; /* f2 == 0: c1 itself (then stop) */
        uint64_t key = dab_sym_canon64(s->sym, c, true, NULL);
        bool dup = false;
        for (size_t i = 0; i < nseen && !dup; i++) dup = seen[i] == key;
        if (!dup && nseen < cap) {
          seen[nseen++] = key;
          dab_tt_hit hit;
          if (open_boxes(s, c) && dab_ab_probe(ab, c, &hit) && hit.lower == hit.upper && n < cap) {
            pos[n] = c;
            recs[n++] = (dabtb_solved){hit.lower, hit.upper, -1, 0, 0, 0};
          }
        }
        if (!f2) break;
      }
    }
    put(s, n, pos, recs);
  }
  /* A long search: keep its expensive exact results for other queries. */
  dab_ab_stats st;
  dab_ab_get_stats(ab, &st);
  if (st.seconds >= CHECKPOINT_MIN_SEARCH_SECONDS && s->can_write) checkpoint(s, ab, false, 12);
  end_query(s);
  free(pos);
  free(recs);
  free(seen);
}
