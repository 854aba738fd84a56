/*
** solvestore.c: `dab solve`'s use of the solved store: answer from it,
** seed the search from it, store every bound as it is proved.
** See Copyright Notice in README.md
*/
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli/cliutil.h"
#include "cli/solvestore.h"
#include "tablebase/dabtb.h"

/* The CLI solves one position at a time, so one store state will do. */
static struct {
  int rows, cols;              /* board selected; 0 = none */
  dab_geom g;
  dab_sym *sym;
  dabtb_store *st;             /* open file (read-only when !can_write) */
  bool can_write;              /* storing allowed and still possible */
  char create_path[PATH_MAX];  /* no file yet: made here on the first store */
  bool warned, no_store;
  const dab_ab *seeded;        /* solver already seeded for this board */
  uint64_t written;            /* records stored by this process */
  double store_seconds;        /* time spent storing */
  /* The position whose root bounds on_bound reports. */
  bool tracking, eager;        /* eager: store every bound, even early ones */
  dab_ab *cur_ab;
  uint64_t cur, node_base, prior_nodes;
  double t_base, prior_seconds;
  double last_checkpoint;      /* when the table was last saved */
  double checkpoint_cost;      /* seconds the last checkpoint took */
} S;

/* Checkpoints of the warm table (see checkpoint()).  A million records
** is ~60 MB of file and ~1.5 s to write; storing only the 150,000 of most
** work lost ~3/4 of an interrupted 3x5 run's work, a million lost ~none
** (docs/persistence.md). */
#define CHECKPOINT_MAX_RECORDS 1000000
#define CHECKPOINT_EVERY_SECONDS 60.0
#define CHECKPOINT_MIN_SEARCH_SECONDS 10.0

/* Serialises the store's writes while several analysis threads run
** (dab_ab_analyze_moves): a proved move and a checkpoint. */
static pthread_mutex_t store_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void warn_once(const char *what, const char *msg) {
  if (S.warned) return;
  S.warned = true;
  fprintf(stderr, "dab solve: warning: %s: %s; going on without storing results\n", what, msg);
}

void solvestore_close(void) {
  dabtb_store_close(S.st);
  dab_sym_free(S.sym);
  bool warned = S.warned;
  memset(&S, 0, sizeof S);
  S.warned = warned;
}

bool solvestore_board_covered(const dab_geom *g, const char *tb_dir) {
  if (g->nlines <= DABTB_AUTO_BUILD_LINES) return true;
  char path[PATH_MAX + 64];
  if (dabtb_find(g->rows, g->cols, tb_dir, path, sizeof path, NULL)) return false;
  dabtb *tb;
  if (dabtb_open(path, NULL, &tb, NULL)) return false;
  bool table = dabtb_has_table(tb);
  dabtb_close(tb);
  return table;
}

/* S.create_path = RxC.dab in the first writable directory of --tb and
** $DAB_TB_PATH.  False when none is (dabtb_default_path decides then). */
static bool first_writable_dir(const dab_geom *g, const char *tb_dir) {
  char dirs[PATH_MAX];
  const char *env = getenv("DAB_TB_PATH");
  snprintf(dirs, sizeof dirs, "%s%s%s", tb_dir && *tb_dir ? tb_dir : "",
           tb_dir && *tb_dir && env && *env ? ":" : "", env ? env : "");
  for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
    struct stat sb;
    if (stat(d, &sb) != 0 || !S_ISDIR(sb.st_mode) || access(d, W_OK | X_OK) != 0) continue;
    if ((size_t)snprintf(S.create_path, sizeof S.create_path, "%s/%dx%d.dab", d, g->rows, g->cols) <
        sizeof S.create_path)
      return true;
  }
  S.create_path[0] = 0;
  return false;
}

void solvestore_select(const dab_geom *g, const char *tb_dir, bool no_store) {
  if (S.rows == g->rows && S.cols == g->cols) return;
  solvestore_close();
  if (!dab_geom_fast(g)) return;
  dab_err err;
  S.sym = dab_sym_new(g, &err);
  if (!S.sym) return;
  S.g = *g;
  S.rows = g->rows, S.cols = g->cols;
  S.no_store = no_store;
  char path[PATH_MAX + 64];
  if (dabtb_find(g->rows, g->cols, tb_dir, path, sizeof path, NULL) == DAB_OK) {
    dab_status st = DAB_EIO;
    if (!no_store) {
      st = dabtb_store_open(path, g->rows, g->cols, DABTB_STORE_WRITE, &S.st, &err);
      if (st == DAB_OK) S.can_write = true;
      else if (st == DAB_EIO) warn_once("cannot write the solved store", err.msg);
    }
    if (st == DAB_EIO) st = dabtb_store_open(path, g->rows, g->cols, DABTB_STORE_READ, &S.st, &err);
    if (st) {
      S.warned = false; /* this one matters more than a read-only note */
      warn_once("cannot use the solved store", err.msg);
      S.can_write = false;
    }
    return;
  }
  if (no_store) return;
  if (first_writable_dir(g, tb_dir)) {
    S.can_write = true;
    return;
  }
  if (dabtb_default_path(g->rows, g->cols, tb_dir, S.create_path, sizeof S.create_path, &err)) {
    S.create_path[0] = 0;
    warn_once("no place for a solved store", err.msg);
    return;
  }
  S.can_write = true;
}

bool solvestore_active(void) { return S.rows && (S.st || S.can_write); }

/* The handle to write through (created on first use), or NULL. */
static dabtb_store *writer(void) {
  if (!S.can_write) return NULL;
  if (S.st) return S.st;
  dab_err err;
  if (dabtb_store_open(S.create_path, S.rows, S.cols, DABTB_STORE_CREATE, &S.st, &err)) {
    S.can_write = false;
    S.st = NULL;
    warn_once("cannot create the solved store", err.msg);
  }
  return S.st;
}

static void put(size_t n, const uint64_t *pos, const dabtb_solved *recs) {
  if (!n) return;
  dabtb_store *w = writer();
  if (!w) return;
  double t0 = now_s();
  dab_err err;
  dab_status st = dabtb_store_put(w, n, pos, recs, &err);
  S.store_seconds += now_s() - t0;
  if (st == DAB_OK) {
    S.written += n;
    return;
  }
  if (st == DAB_EINTERNAL) { /* a contradiction: say so every time */
    fprintf(stderr, "dab solve: warning: %s\n", err.msg);
    return;
  }
  S.can_write = false;
  warn_once("storing failed", err.msg);
}

/* Looks p up; false when absent or unreadable. */
static bool get(uint64_t p, dabtb_solved *r) {
  if (!S.st) return false;
  bool found = false;
  dab_err err;
  if (dabtb_store_get(S.st, p, r, &found, &err)) {
    warn_once("reading the solved store", err.msg);
    return false;
  }
  return found;
}

static bool get_exact(uint64_t p, int *v, int *best) {
  dabtb_solved r;
  if (!get(p, &r) || r.lower != r.upper) return false;
  *v = r.lower;
  if (best) *best = r.best;
  return true;
}

static int open_boxes(uint64_t p) { return dab_ab_open_boxes(&S.g, p); }

size_t solvestore_put_bounds(size_t n, const uint64_t *pos, const int *lower, const int *upper) {
  if (!S.rows || !S.can_write || !n) return 0;
  dabtb_solved *recs = malloc(n * sizeof *recs);
  if (!recs) return 0;
  for (size_t i = 0; i < n; i++) recs[i] = (dabtb_solved){lower[i], upper[i], -1, 0, 0, 0};
  uint64_t before = S.written;
  put(n, pos, recs);
  free(recs);
  return (size_t)(S.written - before);
}

const char *solvestore_path(void) { return S.st ? dabtb_store_path(S.st) : ""; }

/* Appends the JSON string s (escaped) to out. */
static size_t json_str(char *out, size_t len, const char *s) {
  size_t n = 0;
  if (n < len) out[n++] = '"';
  for (; *s && n + 3 < len; s++) {
    if (*s == '"' || *s == '\\') out[n++] = '\\';
    out[n++] = (char)((unsigned char)*s < 32 ? '?' : *s);
  }
  if (n < len) out[n++] = '"';
  if (n < len) out[n] = 0;
  else if (len) out[len - 1] = 0;
  return n;
}

/* ---- Answering from the store --------------------------------------------- */

bool solvestore_answer(uint64_t root, bool value_only, dab_analysis *a, char *extra, size_t extra_len,
                       char *text, size_t text_len) {
  if (!S.st) return false;
  double t0 = now_s();
  int v, best = -1;
  if (!get_exact(root, &v, &best)) return false;
  memset(a, 0, sizeof *a);
  a->value = v;
  if (!value_only) {
    for (uint64_t fr = S.g.all_lines & ~root; fr; fr &= fr - 1) {
      int m = __builtin_ctzll(fr), k = dab64_completes(&S.g, root, m), cv = 0;
      uint64_t c = root | 1ull << m;
      if (open_boxes(c) && !get_exact(c, &cv, NULL)) return false;
      a->move[a->nmoves] = (int16_t)m;
      a->move_value[a->nmoves++] = (int16_t)(k ? k + cv : -cv);
    }
    if (a->nmoves) {
      int mx = a->move_value[0];
      for (int i = 1; i < a->nmoves; i++)
        if (a->move_value[i] > mx) mx = a->move_value[i];
      if (mx != v) {
        fprintf(stderr, "dab solve: warning: stored move values (best %+d) disagree with the stored "
                        "value %+d; searching again\n", mx, v);
        return false;
      }
    }
    dab_analysis_pick_best(a);
  }
  /* A principal variation along the stored best moves. */
  int16_t pv[64];
  int npv = 0;
  uint64_t p = root;
  int m = best >= 0 ? best : (a->nbest ? a->best[0] : -1);
  while (m >= 0 && npv < 64 && !(p >> m & 1) && (p & S.g.all_lines) != S.g.all_lines) {
    pv[npv++] = (int16_t)m;
    p |= 1ull << m;
    int cv;
    m = -1;
    if (open_boxes(p) && !get_exact(p, &cv, &m)) m = -1;
  }
  double secs = now_s() - t0;
  size_t n = (size_t)snprintf(extra, extra_len, "\"source\":\"stored\",\"pv\":[");
  for (int i = 0; i < npv && n < extra_len; i++)
    n += (size_t)snprintf(extra + n, extra_len - n, "%s%d", i ? "," : "", pv[i]);
  if (n < extra_len) n += (size_t)snprintf(extra + n, extra_len - n, "],\"nodes\":0,\"seconds\":%.6f,\"store\":", secs);
  if (n < extra_len) json_str(extra + n, extra_len - n, dabtb_store_path(S.st));
  n = (size_t)snprintf(text, text_len, "pv   ");
  for (int i = 0; i < npv && n < text_len; i++) n += (size_t)snprintf(text + n, text_len - n, " %d", pv[i]);
  if (n < text_len)
    snprintf(text + n, text_len - n, "\nstored: answered from %s in %.3f ms (no search)\n",
             dabtb_store_path(S.st), secs * 1e3);
  return true;
}

/* ---- Searching with the store ---------------------------------------------- */

/*
** Saves the expensive part of the warm table: the entries with the most
** work below them (at most CHECKPOINT_MAX_RECORDS, work >= min_work),
** exact ones only or bounds too.  They are true bounds of positions (the
** table's key is the canonical position itself), so a rerun that seeds
** them skips the subtrees they summarise: this is what makes a resumed
** search cheaper than starting over.  It may run while workers write the
** table: dab_tt_read reports a torn entry as empty.  Entries keyed by
** Strings-and-Coins graph hashes (the default above 8 free lines) are
** skipped: they name no position the store could hold.
*/
static void checkpoint(dab_ab *ab, bool bounds_too, int min_work) {
  if (!S.can_write) return;
  double t0 = now_s();
  const dab_tt *tt = dab_ab_tt(ab);
  uint64_t hist[256] = {0};
  for (int pass = 0; pass < 2; pass++) {
    int threshold = min_work;
    if (pass == 1) { /* the highest-work entries that fit */
      uint64_t n = 0;
      for (threshold = 255; threshold > min_work && n + hist[threshold] <= CHECKPOINT_MAX_RECORDS; threshold--)
        n += hist[threshold];
      if (n + hist[threshold] > CHECKPOINT_MAX_RECORDS) threshold++;
    }
    uint64_t *pos = NULL;
    dabtb_solved *recs = NULL;
    dabtb_shape *shapes = NULL;
    size_t n = 0, nshapes = 0;
    if (pass == 1) {
      pos = malloc(CHECKPOINT_MAX_RECORDS * sizeof *pos);
      recs = malloc(CHECKPOINT_MAX_RECORDS * sizeof *recs);
      shapes = malloc(CHECKPOINT_MAX_RECORDS * sizeof *shapes);
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
      if (work < threshold || (!hashed && (key & ~S.g.all_lines)) || e.lower > e.upper) continue;
      if (e.lower != e.upper && (!bounds_too || (e.lower == -128 && e.upper == 127))) continue;
      if (pass == 0) hist[work]++;
      else if (n + nshapes < CHECKPOINT_MAX_RECORDS) {
        /* Graph-keyed entries (hashes of Strings-and-Coins graphs,
        ** solver/ab.h) name no position: they go to the shapes store. */
        if (hashed) shapes[nshapes++] = (dabtb_shape){key, check, e.lower, e.upper, work};
        else {
          pos[n] = key;
          recs[n++] = (dabtb_solved){e.lower, e.upper, -1, 0, 0, work};
        }
      }
    }
    if (pass == 1) {
      put(n, pos, recs);
      dab_err err;
      if (nshapes && dabtb_shapes_put(S.st, nshapes, shapes, &err)) warn_once("storing shapes", err.msg);
    }
    free(pos);
    free(recs);
    free(shapes);
  }
  S.last_checkpoint = now_s();
  S.checkpoint_cost = S.last_checkpoint - t0;
}

/*
** Seeding a rerun's table from the store.  A whole solve's result (work 0)
** is always pinned.  Checkpoint entries are pinned too while the file
** holds at most twice as many as the table has slots: they are what the
** killed search knew, and pinned they stay through its generation changes.
** A store much larger than the table fills every bucket with pinned
** entries and crowds the search out, so then each comes back at the
** weight it had.  Measured on 2x6 (fresh 14.96 M nodes at 32 MiB), rerun
** with 490 K checkpoint shapes (the crossing is near 4 per slot):
**   table slots  pinned   weighted   fresh
**     262 K      11.3 M    15.4 M    17.2 M
**     131 K      23.7 M    24.3 M    24.8 M
**      65 K     109.1 M    63.8 M    67.2 M
** and at 2 M slots pinned beat weighted 9.2 M to 12.2 M.
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

void solvestore_seed(dab_ab *ab) {
  if (!S.st || S.seeded == ab) return;
  dab_err err;
  uint64_t records = 0, shapes = 0;
  if (dabtb_store_count(S.st, &records, &err) || dabtb_shapes_count(S.st, &shapes, &err))
    warn_once("reading the solved store", err.msg);
  seed_ctx c = {ab, records + shapes <= 2 * dab_tt_capacity(dab_ab_tt(ab))};
  if (dabtb_store_each(S.st, seed_one, &c, &err)) warn_once("reading the solved store", err.msg);
  if (dabtb_shapes_each(S.st, seed_shape, &c, &err)) warn_once("reading the shapes store", err.msg);
  S.seeded = ab;
}

/* Time for a periodic checkpoint (at most 5% of the time on them)?
** $DAB_CHECKPOINT_SECONDS sets a fixed period instead (tests: a kill then
** finds a recent checkpoint whatever the checkpoints cost). */
static bool checkpoint_due(void) {
  static double fixed = -1;
  if (fixed < 0) {
    const char *e = getenv("DAB_CHECKPOINT_SECONDS");
    fixed = e && atof(e) > 0 ? atof(e) : 0;
  }
  double every = 20 * S.checkpoint_cost;
  if (every < CHECKPOINT_EVERY_SECONDS) every = CHECKPOINT_EVERY_SECONDS;
  if (fixed > 0) every = fixed;
  return S.tracking && S.last_checkpoint > 0 && now_s() - S.last_checkpoint >= every;
}

void solvestore_progress(void *ctx, const dab_progress *p) {
  if (ctx) cli_progress(NULL, p);
  /* Inside a long null-window test: save the table now and then, so a
  ** kill loses at most a few minutes.  Runs in worker 0's thread, maybe
  ** while an analysis thread stores a move (solved_child). */
  if (checkpoint_due()) {
    pthread_mutex_lock(&store_lock);
    checkpoint(S.cur_ab, true, 1);
    pthread_mutex_unlock(&store_lock);
  }
}

void solvestore_on_bound(void *ctx, int lower, int upper) {
  (void)ctx;
  if (!S.tracking) return;
  /* A child's intermediate bounds are worth a commit (an fsync) only once
  ** its solve has taken a while; its result is stored in any case. */
  if (!S.eager && now_s() - S.t_base < 1.0) return;
  dab_ab_stats s;
  dab_ab_get_stats(S.cur_ab, &s);
  dabtb_solved r = {lower, upper, -1, S.prior_nodes + (s.nodes - S.node_base),
                    S.prior_seconds + (now_s() - S.t_base), 0};
  put(1, &S.cur, &r);
  /* Long solves: save the expensive table entries now and then, so that
  ** even a kill -9 leaves them (on_bound runs between searches). */
  if (checkpoint_due()) checkpoint(S.cur_ab, true, 1);
}

static dab_status solve_tracked(dab_ab *ab, uint64_t p, bool eager, int *value, int *lower, int *upper,
                                dab_err *err) {
  if (!solvestore_active()) return dab_ab_solve(ab, p, value, lower, upper, err);
  S.eager = eager;
  dabtb_solved prior;
  bool had = get(p, &prior);
  dab_ab_stats s;
  dab_ab_get_stats(ab, &s);
  S.cur_ab = ab;
  S.cur = p;
  S.node_base = s.nodes;
  S.t_base = now_s();
  S.prior_nodes = had ? prior.nodes : 0;
  S.prior_seconds = had ? prior.seconds : 0;
  S.tracking = true;
  if (S.last_checkpoint == 0) S.last_checkpoint = S.t_base;
  int lo = 0, hi = 0;
  dab_status st = dab_ab_solve(ab, p, value, &lo, &hi, err);
  S.tracking = false;
  if (lower) *lower = lo;
  if (upper) *upper = hi;
  if (st == DAB_OK || st == DAB_ECANCELED) {
    dab_ab_get_stats(ab, &s);
    dabtb_solved r = {st ? lo : *value, st ? hi : *value, -1, S.prior_nodes + (s.nodes - S.node_base),
                      S.prior_seconds + (now_s() - S.t_base), 0};
    if (!had || r.lower > prior.lower || r.upper < prior.upper) put(1, &p, &r);
  }
  if (st == DAB_ECANCELED) checkpoint(ab, true, 1); /* resume from here */
  return st;
}

dab_status solvestore_solve(dab_ab *ab, uint64_t p, int *value, int *lower, int *upper, dab_err *err) {
  return solve_tracked(ab, p, true, value, lower, upper, err);
}

/* dab_ab_analyze_moves hooks: a child the store knows exactly is not
** searched; a proved child is stored at once, so an interrupted analysis
** keeps the moves it finished. */
static bool known_child(void *ctx, uint64_t c, int *v) {
  (void)ctx;
  return get_exact(c, v, NULL);
}

static void solved_child(void *ctx, uint64_t c, int v, uint64_t nodes, double seconds) {
  (void)ctx;
  pthread_mutex_lock(&store_lock);
  dabtb_solved prior;
  bool had = get(c, &prior);
  dabtb_solved r = {v, v, -1, (had ? prior.nodes : 0) + nodes, (had ? prior.seconds : 0) + seconds, 0};
  put(1, &c, &r);
  pthread_mutex_unlock(&store_lock);
}

dab_status solvestore_analyze(dab_ab *ab, uint64_t root, int v, dab_analysis *a, dab_err *err) {
  if (!solvestore_active()) return dab_ab_analyze_moves(ab, root, v, NULL, a, err);
  dab_ab_move_hooks hooks = {known_child, solved_child, NULL};
  /* Tracking on: the progress callback checkpoints the table meanwhile. */
  S.cur_ab = ab;
  S.tracking = true;
  dab_status st = dab_ab_analyze_moves(ab, root, v, &hooks, a, err);
  S.tracking = false;
  if (st == DAB_ECANCELED) checkpoint(ab, true, 1); /* resume from here */
  return st;
}

void solvestore_finish(dab_ab *ab, uint64_t root, const dab_analysis *a, bool value_only, int v,
                       const int16_t *pv, int npv, char *extra, size_t extra_len, char *text,
                       size_t text_len) {
  if (!S.rows) return; /* a board the store does not serve */
  const dab_geom *g = &S.g;
  size_t cap = 2 + (size_t)npv + (size_t)g->nlines * (size_t)(g->nlines + 1), n = 0;
  uint64_t *pos = malloc(cap * sizeof *pos);
  dabtb_solved *recs = malloc(cap * sizeof *recs);
  uint64_t *seen = malloc(cap * sizeof *seen);
  if (pos && recs && seen && S.can_write) {
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
        uint64_t key = dab_sym_canon64(S.sym, c, true, NULL);
        bool dup = false;
        for (size_t i = 0; i < nseen && !dup; i++) dup = seen[i] == key;
        if (!dup && nseen < cap) {
          seen[nseen++] = key;
          dab_tt_hit hit;
          if (open_boxes(c) && dab_ab_probe(ab, c, &hit) &&
              hit.lower == hit.upper && n < cap) {
            pos[n] = c;
            recs[n++] = (dabtb_solved){hit.lower, hit.upper, -1, 0, 0, 0};
          }
        }
        if (!f2) break;
      }
    }
    put(n, pos, recs);
  }
  /* A long search: keep its expensive exact results for other queries. */
  dab_ab_stats s;
  dab_ab_get_stats(ab, &s);
  if (s.seconds >= CHECKPOINT_MIN_SEARCH_SECONDS && S.can_write) checkpoint(ab, false, 12);
  free(pos);
  free(recs);
  free(seen);
  uint64_t total = 0;
  dab_err err;
  if (S.st) dabtb_store_count(S.st, &total, &err);
  size_t e = strlen(extra);
  if (e + 12 < extra_len) {
    e += (size_t)snprintf(extra + e, extra_len - e, ",\"store\":");
    if (S.st && S.can_write) json_str(extra + e, extra_len - e, dabtb_store_path(S.st));
    else snprintf(extra + e, extra_len - e, "null");
  }
  size_t t = strlen(text);
  if (S.st && S.can_write)
    snprintf(text + t, text_len - t, "stored: %llu records in %s (%llu written by this run, %.1f ms)\n",
             (unsigned long long)total, dabtb_store_path(S.st), (unsigned long long)S.written,
             S.store_seconds * 1e3);
  else
    snprintf(text + t, text_len - t, "stored: nothing (%s)\n",
             S.no_store ? "--no-store" : S.st ? "the store is read-only here" : "no store");
}
