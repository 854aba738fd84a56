/*
** ab.c: the alpha-beta solver: negamax search, exact pruning rules, the
** null-window root driver and lazy-SMP threads (contracts in ab.h).
** See Copyright Notice in README.md
*/
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "solver/ab.h"

#include "symmetry/sckey.h"
#include "game/sysmem.h"
#include "theorems/sle.h"
#include "game/clock.h"

#define NEG_INF (-1000)
#define DEFERRED 3000            /* a child another thread is expanding (ABDADA) */
#define BUSY_BITS 16
#define BUSY_MIN_FREE 8        /* only nodes this big are announced as busy */
#define SMP_MIN_FREE 24        /* smaller tests run on one thread (docs/solver.md) */
#define DAB_AB_MAX_THREADS 64

/* Graph-key cache (see position_key): one for all threads, lock-free.
** An entry holds tag = p ^ key ^ check, so a torn entry (words from two
** stores) fails the tag test and reads as a miss.  Sized at 1/16 to 1/8
** of the table's bytes, at least 2^21 entries (48 MiB), at most 2^26
** (1.5 GiB): a bigger cache also lets ETC see more children (it probes
** only the children whose keys are cached).  On a 4x5 proof leaf (one
** null-window test, 850 M nodes) 2^26 entries instead of 2^22 computed 24%
** fewer keys and took 13% less time, and a 2.5 GiB table with that cache
** beat a 4 GiB table with the small one (docs/solver.md, "Key cache"). */
#define KEYCACHE_MIN_BITS 21
#define KEYCACHE_MAX_BITS 26

typedef struct keycache_entry {
  uint64_t tag, key, check;
} keycache_entry;

struct dab_ab {
  dab_geom g;
  dab_sym *sym;
  dab_ab_opts o;
  dab_tt tt;
  int16_t order[64];          /* lines, centre first */
  uint64_t group_of[64];      /* border group of each line (0 = none) */
  pthread_mutex_t stats_lock; /* drivers merge their counts into st under it */
  dab_ab_stats st;
  struct keycache_entry *keycache; /* shared by the workers, kept across tests */
  int keycache_shift;         /* 64 - log2(entries) */
  uint64_t *busy;             /* keys of nodes being expanded (threads > 1, abdada) */
};

/* Flags shared between threads (relaxed atomics: a late read only costs
** a few more nodes). */
static inline int flag_get(const int *f) { return __atomic_load_n(f, __ATOMIC_RELAXED); }
static inline void flag_set(int *f, int v) { __atomic_store_n(f, v, __ATOMIC_RELAXED); }

/* What the progress line shows while an analysis runs (one per analysis;
** only analysis thread 0 reports, so only it touches last). */
typedef struct analysis_progress {
  int done, total;            /* distinct children proved (a flag) / to prove */
  double t0, last;            /* when the search began (the value's solve included); last line */
} analysis_progress;

/* One root driver (a solve, a test, one move of an analysis): its tests'
** control state.  dab_ab_analyze runs several at once on one table. */
typedef struct ab_driver {
  /* Flags other threads read and write: only through flag_get/flag_set. */
  int stop;                   /* a worker finished, or cancel / node limit */
  int stop_reason;            /* 1 = finished, 2 = canceled */
  int threads;                /* workers per test */
  bool report;                /* this driver calls the progress callback */
  bool report_bounds;         /* ... and on_bound (the root of dab_ab_solve only) */
  int *halt;                  /* optional flag: set when a sibling driver failed */
  /* The running test, for helper threads that join it (see help_drivers):
  ** test_id counts the driver's tests; outcome packs the id of the test
  ** whose first finisher wrote it (high half) and its fail-soft result. */
  int test_id;
  uint64_t root;
  int nrem, beta;
  uint64_t outcome;
  int active;                 /* flag: solving a move (helpers may join) */
  double t0, last_progress;
  int lo, hi, testing;        /* for the progress line */
  const char *label;          /* what the progress line says is solved */
  analysis_progress *ap;      /* in an analysis: its progress (else NULL) */
  char what[128];
  dab_ab_stats st;            /* merged into the solver's by driver_merge */
} ab_driver;

typedef struct ab_worker {
  dab_ab *ab;
  ab_driver *drv;
  int id;
  int stop;
  uint64_t nodes, probes, hits, cuts, sle, loony, etc_cuts, etc_dups, deferrals, keys;
  uint64_t node_base;         /* nodes counted before this test (for limits, progress) */
  int test_id;                /* the driver's test this worker searches */
  bool reports;               /* calls the progress callback */
  struct keycache_entry *keycache; /* the solver's graph-key cache, or NULL */
  /* The test this worker runs. */
  uint64_t root;
  int nrem, alpha, beta, result;
} ab_worker;

void dab_ab_default_opts(dab_ab_opts *o) {
  memset(o, 0, sizeof *o);
  o->hash_bytes = 1ull << 30;
  o->tt_policy = DAB_TT_WORK;
  o->threads = 1;
  o->safe_capture = true;
  o->decline_rule = true;
  o->border_equiv = true;
  o->sle = true;
  o->order_sacrifices_last = true;
  o->parity = true;
  o->loony_bound = true;
  o->chain_moves = true;
  o->hard_handouts = true;
  o->junction_chains = true;
  o->graph_keys = true;
  o->graph_min_free = 8;
  o->abdada = true;
  o->smp_rotate = false;
  o->smp_min_free = SMP_MIN_FREE;
  /* ETC on the children whose keys are cached, at 18+ free lines:
  ** -17% nodes and -11% time on 3x5, -8% time on 2x7 (docs/solver.md);
  ** keying every child costs more than the cutoffs save. */
  o->etc = true;
  o->etc_cached_only = true;
  o->etc_min_free = 18;
  /* ... and on every child at 30+ free lines, where a node's subtree is
  ** worth far more than its children's keys: -5% time on 3x5 and 2x7
  ** (2-6%), -7% on 4x4 (docs/solver.md, "Enhanced transposition cutoffs"). */
  o->etc_full_min_free = 30;
}

/* log2 of the graph-key cache's entries for options o. */
static int keycache_bits(const dab_ab_opts *o) {
  if (o->keycache_bits > 0) return o->keycache_bits < 30 ? o->keycache_bits : 30;
  uint64_t want = (o->hash_bytes ? o->hash_bytes : 1ull << 30) / 8 / sizeof(keycache_entry);
  int bits = KEYCACHE_MIN_BITS;
  while (bits < KEYCACHE_MAX_BITS && (1ull << (bits + 1)) <= want) bits++;
  return bits;
}

uint64_t dab_ab_memory(const dab_ab_opts *o) {
  uint64_t tt = o->no_tt ? 64 : o->hash_bytes ? o->hash_bytes : 1ull << 30;
  uint64_t caches = o->graph_keys && !o->no_tt ? sizeof(keycache_entry) << keycache_bits(o) : 0;
  return dab_tt_buckets_for(tt) * sizeof(dab_tt_bucket) + caches;
}

int dab_ab_open_boxes(const dab_geom *g, uint64_t p) {
  int n = 0;
  for (int b = 0; b < g->nboxes; b++)
    if ((p & g->box_mask[b]) != g->box_mask[b]) n++;
  return n;
}

dab_ab *dab_ab_new(const dab_geom *g, const dab_ab_opts *opts, dab_status *st, dab_err *err) {
  dab_status dummy;
  if (!st) st = &dummy;
  if (!dab_geom_fast(g)) {
    *st = dab_fail(err, DAB_EBOARD, "the alpha-beta solver needs a board of at most 64 lines; %dx%d has %d",
                   g->rows, g->cols, g->nlines);
    return NULL;
  }
  dab_ab *ab = calloc(1, sizeof *ab);
  if (!ab) {
    *st = dab_fail(err, DAB_ENOMEM, "out of memory for the solver");
    return NULL;
  }
  ab->g = *g;
  if (opts) ab->o = *opts;
  else dab_ab_default_opts(&ab->o);
  if (!ab->o.hash_bytes) ab->o.hash_bytes = 1ull << 30;
  if (ab->o.threads < 1) ab->o.threads = 1;
  uint64_t need = dab_ab_memory(&ab->o), limit = ab->o.mem_limit ? ab->o.mem_limit : dab_mem_available();
  if (limit && need > limit) {
    free(ab);
    *st = dab_fail(err, DAB_ENOMEM,
                   "the search needs %.0f MiB (table and key caches) but only %.0f MiB of memory is "
                   "available: use a smaller --hash",
                   (double)need / 1048576.0, (double)limit / 1048576.0);
    return NULL;
  }
  ab->sym = dab_sym_new(g, err);
  if (!ab->sym) {
    free(ab);
    *st = DAB_ENOMEM;
    return NULL;
  }
  *st = dab_tt_init(&ab->tt, ab->o.no_tt ? 64 : ab->o.hash_bytes, ab->o.tt_policy, err);
  if (*st) {
    dab_sym_free(ab->sym);
    free(ab);
    return NULL;
  }
  /* Centre-out order: by the squared distance of a line's midpoint from
  ** the board centre (in half-box units), ties by id. */
  int n = g->nlines;
  int dist[64];
  for (int m = 0; m < n; m++) {
    int y2, x2; /* doubled coordinates */
    if (m < g->nhoriz) {
      y2 = 2 * (m / g->cols);
      x2 = 2 * (m % g->cols) + 1;
    } else {
      int v = m - g->nhoriz;
      y2 = 2 * (v / (g->cols + 1)) + 1;
      x2 = 2 * (v % (g->cols + 1));
    }
    int dy = y2 - g->rows, dx = x2 - g->cols;
    dist[m] = dy * dy + dx * dx;
    ab->order[m] = (int16_t)m;
  }
  for (int i = 1; i < n; i++) /* insertion sort: n <= 64 */
    for (int j = i; j > 0 && (dist[ab->order[j]] < dist[ab->order[j - 1]]); j--) {
      int16_t t = ab->order[j];
      ab->order[j] = ab->order[j - 1];
      ab->order[j - 1] = t;
    }
  for (int i = 0; i < ab->sym->ngroups; i++)
    for (uint64_t m = ab->sym->group[i]; m; m &= m - 1) ab->group_of[__builtin_ctzll(m)] = ab->sym->group[i];
  pthread_mutex_init(&ab->stats_lock, NULL);
  if (ab->o.threads > 1 && ab->o.abdada && !ab->o.no_tt) {
    ab->busy = calloc((size_t)1 << BUSY_BITS, sizeof *ab->busy);
    if (!ab->busy) {
      dab_ab_free(ab);
      *st = dab_fail(err, DAB_ENOMEM, "out of memory for the busy table");
      return NULL;
    }
  }
  if (ab->o.graph_keys && !ab->o.no_tt) {
    /* probed at random: on huge pages, as the table is */
    ab->keycache_shift = 64 - keycache_bits(&ab->o);
    ab->keycache = dab_huge_map(sizeof(keycache_entry) << (64 - ab->keycache_shift));
    if (!ab->keycache) {
      dab_ab_free(ab);
      *st = dab_fail(err, DAB_ENOMEM, "out of memory for the graph-key cache");
      return NULL;
    }
  }
  *st = DAB_OK;
  return ab;
}

void dab_ab_free(dab_ab *ab) {
  if (!ab) return;
  dab_tt_free(&ab->tt);
  dab_sym_free(ab->sym);
  if (ab->keycache) dab_huge_unmap(ab->keycache, sizeof(keycache_entry) << (64 - ab->keycache_shift));
  free(ab->busy);
  pthread_mutex_destroy(&ab->stats_lock);
  free(ab);
}

const dab_geom *dab_ab_geom(const dab_ab *ab) { return &ab->g; }
const dab_ab_opts *dab_ab_options(const dab_ab *ab) { return &ab->o; }
const dab_tt *dab_ab_tt(const dab_ab *ab) { return &ab->tt; }

void dab_ab_get_stats(const dab_ab *ab, dab_ab_stats *s) { *s = ab->st; }
void dab_ab_reset_stats(dab_ab *ab) { memset(&ab->st, 0, sizeof ab->st); }

static void driver_init(ab_driver *d, int threads, bool report, const char *label) {
  memset(d, 0, sizeof *d);
  d->threads = threads < 1 ? 1 : threads > DAB_AB_MAX_THREADS ? DAB_AB_MAX_THREADS : threads;
  d->report = report;
  d->label = label;
}

/* Adds counts s to the solver's (thread-safe) and zeroes them. */
static void stats_merge(dab_ab *ab, dab_ab_stats *s) {
  pthread_mutex_lock(&ab->stats_lock);
  dab_ab_stats *t = &ab->st;
  t->nodes += s->nodes, t->tt_probes += s->tt_probes, t->tt_hits += s->tt_hits, t->tt_cuts += s->tt_cuts;
  t->sle_leaves += s->sle_leaves, t->loony_skips += s->loony_skips, t->deferrals += s->deferrals;
  t->etc_cuts += s->etc_cuts, t->etc_dups += s->etc_dups, t->graph_keys += s->graph_keys;
  t->tests += s->tests, t->seconds += s->seconds;
  pthread_mutex_unlock(&ab->stats_lock);
  memset(s, 0, sizeof *s);
}

static void driver_merge(dab_ab *ab, ab_driver *d) { stats_merge(ab, &d->st); }

/* ---- The search ------------------------------------------------------- */

/* Every 4096 nodes: cancellation, node limit, progress (worker 0). */
static int poll_worker(ab_worker *w) {
  dab_ab *ab = w->ab;
  ab_driver *d = w->drv;
  if (flag_get(&d->stop)) return w->stop = 1;
  if ((ab->o.cancel && *ab->o.cancel) ||
      (ab->o.node_limit && w->node_base + w->nodes * (uint64_t)d->threads > ab->o.node_limit) ||
      (d->halt && flag_get(d->halt))) {
    flag_set(&d->stop_reason, 2);
    flag_set(&d->stop, 1);
    return w->stop = 1;
  }
  /* a helper still on a test its driver has left */
  if (flag_get(&d->test_id) != w->test_id) return w->stop = 1;
  if (w->reports && ab->o.progress && (w->nodes & 0xffff) == 0) {
    double t = dab_now_s();
    if (d->ap) {
      if (t - d->ap->last >= DAB_PROGRESS_INTERVAL) {
        d->ap->last = t;
        pthread_mutex_lock(&ab->stats_lock); /* nodes of the finished work */
        uint64_t nodes = ab->st.nodes;
        pthread_mutex_unlock(&ab->stats_lock);
        snprintf(d->what, sizeof d->what, "every move %dx%d: %d of %d proved  nodes", ab->g.rows, ab->g.cols,
                 flag_get(&d->ap->done), d->ap->total);
        dab_progress pr = {d->what, nodes + w->nodes, 0, t - d->ap->t0};
        ab->o.progress(ab->o.progress_ctx, &pr);
      }
    } else if (t - d->last_progress >= DAB_PROGRESS_INTERVAL) {
      d->last_progress = t;
      snprintf(d->what, sizeof d->what, "%s %dx%d  value in [%+d,%+d]  testing >= %+d  nodes",
               d->label ? d->label : "solve", ab->g.rows, ab->g.cols, d->lo, d->hi, d->testing);
      dab_progress pr = {d->what, w->node_base + w->nodes * (uint64_t)d->threads, 0, t - d->t0};
      ab->o.progress(ab->o.progress_ctx, &pr);
    }
  }
  return 0;
}

static inline int other_box(const dab_geom *g, int line, int b) {
  return g->line_box[line][0] == b ? g->line_box[line][1] : g->line_box[line][0];
}

/*
** Runs of two-sided coins in a quiet position.  A run is a maximal path
** of coins with exactly two strings each; each of its two end strings
** goes to the ground or to a junction (a coin with three or more
** strings), unless the path closes on itself (an isolated loop).
**
**        ground or junction  c1    c2          ck  ground or junction
**              A  ----s0---- o --s1-- o -- ... -- o ----sk----  B
**
** chain_of walks the run through undrawn line m, whose coins must all be
** two-sided (m is s0..sk of some run, or a loop string).
** RETURN: 1 an isolated chain (A and B both the ground), 2 an isolated
** loop, 3 a chain with a junction at one end or both; *len its coins,
** *boxes their mask, *end an end string (a ground one when there is one).
*/
static int chain_of(const dab_geom *g, uint64_t p, int m, int *len, uint64_t *boxes, int *end) {
  int k = 0, ends[2] = {m, m};
  bool junction[2] = {false, false};
  uint64_t set = 0;
  for (int side = 0; side < 2; side++) {
    int x = g->line_box[m][side], from = m;
    while (x >= 0) {                /* x is two-sided */
      if (set >> x & 1) {           /* walked round: a loop */
        *len = k, *boxes = set, *end = m;
        return 2;
      }
      k++;
      set |= 1ull << x;
      int next = __builtin_ctzll(g->box_mask[x] & ~p & ~(1ull << from));
      int y = other_box(g, next, x);
      if (y < 0 || dab64_sides(g, p, y) != 2) {
        ends[side] = next, junction[side] = y >= 0;
        break;
      }
      from = next;
      x = y;
    }
  }
  *len = k, *boxes = set;
  *end = junction[0] ? ends[1] : ends[0];
  return junction[0] || junction[1] ? 3 : 1;
}

/*
** The one opening of a run that chain_moves searches, given chain_of's
** answer: any string of a loop (all are alike), an end string of a chain
** of >= 3 coins (isolated, or with junction_chains ending at a junction:
** the opponent's options after any other opening include take-all and
** all-but-two, which are all it needs after an end opening; see ab.h)
** and, with hard_handouts, the middle string of an isolated 2-chain.  A
** 2-chain opened at an end (half-hearted) lets the opponent choose
** between taking both coins (what the middle opening forces, as the
** capture is then safe) and declining them with the far end, so it is
** never better.
** RETURN: that line, or -1 when every opening of the run is searched.
*/
static inline int chain_opening(const dab_ab *ab, int kind, int len, uint64_t boxes, int end) {
  if (kind == 2) return end;
  if (kind == 3 && !ab->o.junction_chains) return -1;
  if (len >= 3) return end;
  if (kind == 1 && len == 2 && ab->o.hard_handouts) {
    const dab_geom *g = &ab->g;
    int b0 = __builtin_ctzll(boxes), b1 = __builtin_ctzll(boxes & (boxes - 1));
    return __builtin_ctzll(g->box_mask[b0] & g->box_mask[b1]);
  }
  return -1;
}

/*
** The loony bound.  Let m open a run of k >= 3 coins of a quiet position
** (a string of the run or one of its end strings; with junction_chains a
** chain may end at a junction) or an isolated loop of k coins.  After m
** the opponent can take every coin of it and move on (k + x, x = the
** value of the rest for the mover there), or take all but two (a loop:
** all but four) and hand over the rest (k - 4 - x; loop k - 8 - x).  The
** better of the two is at least k - 2 (loop: k - 4), so m is worth at
** most -(k-2) (loop -(k-4)).
** RETURN: that upper bound for chain_of's answer, or 1000 when there is
** none.
*/
static inline int loony_upper(const dab_ab *ab, int kind, int k) {
  if (kind == 1 && k >= 3) return -(k - 2);
  if (kind == 3 && k >= 3 && ab->o.junction_chains) return -(k - 2);
  if (kind == 2 && k >= 4) return -(k - 4);
  return 1000;
}

static inline int log2_work(uint64_t n) { return n ? 64 - __builtin_clzll(n) : 0; }

/*
** A position's table key: the Strings-and-Coins graph key (sckey.h) when
** graph keys are on and the position has at least graph_min_free free
** lines, else the canonical position over the board symmetries.  Every
** position always gets the same kind of key (isomorphic graphs have the
** same number of free lines), so the two kinds never need to meet.
**
** A graph key costs about half a microsecond, so each worker keeps a
** direct-mapped cache position -> (key, check); the canonical labelling,
** needed only to translate a best move, is recomputed on demand.
*/

typedef struct pos_key {
  uint64_t key;
  uint32_t check;
  bool graph, labelled;
  int tr;
  dab_sckey sk;
} pos_key;

/* The key-cache entry of raw position p. */
static inline keycache_entry *keycache_slot(const dab_ab *ab, keycache_entry *cache, uint64_t p) {
  return &cache[(p * 0x9e3779b97f4a7c15ull) >> ab->keycache_shift];
}

/* True when p's table key is its graph key (else its symmetric key). */
static inline bool graph_keyed(const dab_ab *ab, uint64_t p) {
  return ab->o.graph_keys && dab_popcount64(ab->g.all_lines & ~p) >= ab->o.graph_min_free;
}

/* p's graph key from the cache.  RETURN: false when the entry holds
** another position (a zeroed entry has check 0, never a graph key's). */
static inline bool keycache_get(const dab_ab *ab, keycache_entry *cache, uint64_t p, uint64_t *key,
                                uint32_t *check) {
  keycache_entry *e = keycache_slot(ab, cache, p);
  uint64_t k = __atomic_load_n(&e->key, __ATOMIC_RELAXED), c = __atomic_load_n(&e->check, __ATOMIC_RELAXED);
  if (!c || (__atomic_load_n(&e->tag, __ATOMIC_RELAXED) ^ k ^ c) != p) return false;
  *key = k;
  *check = (uint32_t)c;
  return true;
}

static inline void position_key(const dab_ab *ab, keycache_entry *cache, uint64_t p, pos_key *k) {
  k->labelled = false;
  if (graph_keyed(ab, p)) {
    k->graph = true;
    k->tr = 0;
    /* Keyed by the raw position: a symmetric canonical key would hit more
    ** often but costs more than it saves (measured: 3-18% slower). */
    if (cache && keycache_get(ab, cache, p, &k->key, &k->check)) return;
    dab_sckey64(&ab->g, p, &k->sk);
    k->labelled = true;
    k->key = k->sk.key;
    k->check = ((uint32_t)k->sk.check & (DAB_TT_CHECK_HASHED - 1)) | DAB_TT_CHECK_HASHED;
    if (cache) {
      keycache_entry *e = keycache_slot(ab, cache, p);
      __atomic_store_n(&e->key, k->key, __ATOMIC_RELAXED);
      __atomic_store_n(&e->check, (uint64_t)k->check, __ATOMIC_RELAXED);
      __atomic_store_n(&e->tag, p ^ k->key ^ k->check, __ATOMIC_RELAXED);
    }
  } else {
    k->key = dab_sym_canon64(ab->sym, p, ab->o.border_equiv, &k->tr);
    k->check = 0;
    k->graph = false;
  }
}

/* p's key when it costs no canonicalisation: a symmetric key, or a graph
** key found in the cache.  RETURN: false when p's graph key is not cached. */
static inline bool cheap_key(const dab_ab *ab, keycache_entry *cache, uint64_t p, uint64_t *key, uint32_t *check) {
  if (!graph_keyed(ab, p)) {
    *key = dab_sym_canon64(ab->sym, p, ab->o.border_equiv, NULL);
    *check = 0;
    return true;
  }
  return cache && keycache_get(ab, cache, p, key, check);
}

static inline void label(const dab_ab *ab, uint64_t p, pos_key *k) {
  if (k->graph && !k->labelled) {
    dab_sckey64(&ab->g, p, &k->sk);
    k->labelled = true;
  }
}

/* The table's move code for move m of p, and back (-1: none / stale). */
static inline int move_code(const dab_ab *ab, uint64_t p, pos_key *k, int m) {
  if (m < 0) return -1;
  if (!k->graph) return ab->sym->perm[k->tr][m];
  label(ab, p, k);
  return dab_sckey_edge(&ab->g, &k->sk, m);
}
static inline int code_move(const dab_ab *ab, uint64_t p, pos_key *k, int code) {
  if (code < 0) return -1;
  if (k->graph) {
    label(ab, p, k);
    return dab_sckey_line(&ab->g, &k->sk, p, code);
  }
  int m = ab->sym->inv[k->tr][code];
  if (p >> m & 1) {
    uint64_t alt = ab->group_of[m] & ~p;
    m = alt ? __builtin_ctzll(alt) : -1;
  }
  return m;
}

static int search(ab_worker *w, uint64_t p, int nrem, int alpha, int beta, int ply, bool excl) {
  dab_ab *ab = w->ab;
  const dab_geom *g = &ab->g;
  w->nodes++;
  if ((w->nodes & 4095) == 0 && poll_worker(w)) return 0;
  if (w->stop) return 0;
  if (nrem == 0) return 0;
  if (alpha >= nrem) return nrem;
  if (beta <= -nrem) return -nrem;

  uint64_t three = dab64_three_sided(g, p);
  if (three && (ab->o.safe_capture || ab->o.decline_rule)) {
    int db = -1, dline = -1, dother = -1;
    for (uint64_t t = three; t; t &= t - 1) {
      int b = __builtin_ctzll(t);
      int l = __builtin_ctzll(g->box_mask[b] & ~p);
      int o = other_box(g, l, b);
      int os = o >= 0 ? dab64_sides(g, p, o) : -1;
      if (os != 2) {
        if (ab->o.safe_capture) {
          int k = os == 3 ? 2 : 1;
          return k + search(w, p | 1ull << l, nrem - k, alpha - k, beta - k, ply + 1, false);
        }
      } else if (db < 0) {
        db = b, dline = l, dother = o;
      }
    }
    if (db >= 0 && ab->o.decline_rule) {
      /* No safe capture: every capture, then the decline of the first
      ** such box (the retrograde's rule; see ab.h). */
      int best = NEG_INF;
      for (uint64_t t = three; t; t &= t - 1) {
        int b = __builtin_ctzll(t);
        int l = __builtin_ctzll(g->box_mask[b] & ~p);
        int a = alpha > best ? alpha : best;
        int k = dab64_completes(g, p, l); /* 2 only when safe_capture is off */
        int v = k + search(w, p | 1ull << l, nrem - k, a - k, beta - k, ply + 1, false);
        if (w->stop) return 0;
        if (v > best) {
          best = v;
          if (v >= beta) return v;
        }
      }
      uint64_t dbit = g->box_mask[dother] & ~p & ~(1ull << dline);
      int d = __builtin_ctzll(dbit);
      int k = dab64_completes(g, p, d);
      int a2 = alpha > best ? alpha : best;
      int v2 = k ? k + search(w, p | dbit, nrem - k, a2 - k, beta - k, ply + 1, false)
                 : -search(w, p | dbit, nrem, -beta, -a2, ply + 1, false);
      if (w->stop) return 0;
      return v2 > best ? v2 : best;
    }
  }

  /* A general node: table, then every move. */
  const bool use_tt = !ab->o.no_tt && dab_popcount64(g->all_lines & ~p) >= ab->o.tt_min_free;
  pos_key pk;
  int ttmove = -1;
  if (use_tt) {
    position_key(ab, w->keycache, p, &pk);
    w->keys += pk.labelled;
    dab_tt_hit hit;
    w->probes++;
    if (dab_tt_probe_checked(&ab->tt, pk.key, pk.check, &hit)) {
      w->hits++;
      if (hit.lower >= beta) { w->cuts++; return hit.lower; }
      if (hit.upper <= alpha) { w->cuts++; return hit.upper; }
      if (hit.lower == hit.upper) { w->cuts++; return hit.lower; }
      if (hit.lower > alpha) alpha = hit.lower;
      if (hit.upper < beta) beta = hit.upper;
      ttmove = code_move(ab, p, &pk, hit.move);
    }
  }
  /* Box classes as bit masks, for the SLE test and the move list. */
  const dab64_sides4 sides = dab64_side_vectors(g, p);
  const uint64_t two = dab64_two_sided_v(sides);
  if (ab->o.sle && !three && (two | dab64_complete_v(sides)) == dab64_all_boxes(g)) {
    int16_t chains[DAB_MAX_BOXES], loops[DAB_MAX_BOXES];
    int nch = 0, nlp = 0;
    dab_lineset ls = dab_ls_from_word(p);
    int sv;
    if (dab_sle_from_position(g, &ls, true, chains, &nch, loops, &nlp) &&
        (sv = dab_sle_value(chains, nch, loops, nlp)) != DAB_SLE_BAD) {
      w->sle++;
      if (use_tt) dab_tt_store_checked(&ab->tt, pk.key, pk.check, -sv, -sv, -1, 1);
      return -sv;
    }
  }

  /* Moves: TT move, then non-sacrifices centre-out, then sacrifices
  ** (one box given before two).  Of the undrawn edge lines of one corner
  ** box only the first is tried (border equivalence). */
  int16_t mv[64];
  int n = 0, nsac1 = 0, nsac2 = 0;
  int16_t sac1[64], sac2[64];
  uint64_t seen_groups = 0;
  uint64_t freel = g->all_lines & ~p;
  const bool chain_moves = ab->o.chain_moves && !three;
  /* Lines that give one box or two; lines whose every box is two-sided
  ** (the strings of runs and loops: chain_of). */
  const uint64_t gives_some = freel & dab64_lines_of_boxes(g, two);
  const uint64_t gives_two = freel & dab64_lines_between(g, two);
  const uint64_t chain_lines =
      !three && (chain_moves || ab->o.loony_bound) ? freel & ~dab64_lines_of_boxes(g, dab64_all_boxes(g) & ~two) : 0;
  /* Each run walked once.  run_lines: every opening of a run that
  ** chain_moves reduces to one, opening_of[] that one (handouts: a
  ** hard-hearted handout, which gives two boxes); loony_lines: every
  ** opening with a loony bound, loony[] the bound. */
  uint64_t run_lines = 0, handouts = 0, loony_lines = 0, opened = 0;
  int8_t opening_of[64], loony[64];
  for (uint64_t todo = chain_lines; todo;) {
    int len, end;
    uint64_t boxes;
    int kind = chain_of(g, p, __builtin_ctzll(todo), &len, &boxes, &end);
    const uint64_t lines = freel & dab64_lines_of_boxes(g, boxes);
    todo &= ~lines;
    const int u = ab->o.loony_bound ? loony_upper(ab, kind, len) : 1000;
    const int one = chain_moves ? chain_opening(ab, kind, len, boxes, end) : -1;
    if (u < 1000) loony_lines |= lines;
    if (one >= 0) {
      run_lines |= lines;
      if (kind == 1 && len == 2) handouts |= 1ull << one;
    }
    for (uint64_t t = lines; t && (u < 1000 || one >= 0); t &= t - 1) {
      loony[__builtin_ctzll(t)] = (int8_t)(u < 1000 ? u : 0);
      opening_of[__builtin_ctzll(t)] = (int8_t)one;
    }
  }
  if (ttmove >= 0 && (run_lines >> ttmove & 1)) ttmove = opening_of[ttmove];
  if (ttmove >= 0) mv[n++] = (int16_t)ttmove;
  for (int i = 0; i < g->nlines; i++) {
    int m = ab->order[i];
    if (!(freel >> m & 1)) continue;
    if (run_lines >> m & 1) {
      /* One opening per run, where the run is first met in the order:
      ** an end string gives one box, a hard-hearted handout two. */
      int one = opening_of[m];
      if ((opened >> one & 1) || one == ttmove) continue;
      opened |= 1ull << one;
      if (!ab->o.order_sacrifices_last) mv[n++] = (int16_t)one;
      else if (handouts >> one & 1) sac2[nsac2++] = (int16_t)one;
      else sac1[nsac1++] = (int16_t)one;
      continue;
    }
    if (ab->o.border_equiv && ab->group_of[m]) {
      if (seen_groups & ab->group_of[m]) continue;
      seen_groups |= ab->group_of[m];
      if (ttmove >= 0 && (ab->group_of[m] >> ttmove & 1)) continue;
    }
    if (m == ttmove) continue;
    if (ab->o.order_sacrifices_last && (gives_some >> m & 1)) {
      if (gives_two >> m & 1) sac2[nsac2++] = (int16_t)m;
      else sac1[nsac1++] = (int16_t)m;
      continue;
    }
    mv[n++] = (int16_t)m;
  }
  for (int i = 0; i < nsac1; i++) mv[n++] = sac1[i];
  for (int i = 0; i < nsac2; i++) mv[n++] = sac2[i];
  /* Enhanced transposition cutoffs: a child the table already proves good
  ** enough ends the node before any search; one proved too poor is
  ** dropped (its bound still counts in a fail-low result); a child with
  ** the same key as an earlier one (an automorphism of the graph maps one
  ** move to the other) is dropped as a duplicate.  With etc_cached_only
  ** (the default) only children whose key costs nothing are looked at:
  ** symmetric keys, and graph keys already in the key cache. */
  int etc_skipped = NEG_INF;
  if (use_tt && ab->o.etc && !three && dab_popcount64(freel) >= ab->o.etc_min_free) {
    /* Three passes so the children's cache misses overlap instead of
    ** queueing: prefetch every child's key-cache entry, then get every
    ** key and prefetch its table bucket, then read the table. */
    int keep = 0, nkeys = 0;
    uint64_t keys[64], ckey[64], keyed = 0; /* keyed: bit i when child i has ckey/ccheck */
    uint32_t checks[64], ccheck[64];
    if (w->keycache)
      for (int i = 0; i < n; i++) __builtin_prefetch(keycache_slot(ab, w->keycache, p | 1ull << mv[i]));
    for (int i = 0; i < n; i++) {
      uint64_t c = p | 1ull << mv[i];
      if (dab64_three_sided(g, c)) continue; /* not stored */
      if (ab->o.etc_cached_only && (!ab->o.etc_full_min_free || dab_popcount64(freel) < ab->o.etc_full_min_free)) {
        if (!cheap_key(ab, w->keycache, c, &ckey[i], &ccheck[i])) continue;
      } else {
        pos_key ck;
        position_key(ab, w->keycache, c, &ck);
        ckey[i] = ck.key, ccheck[i] = ck.check;
      }
      keyed |= 1ull << i;
      dab_tt_prefetch(&ab->tt, ckey[i]);
    }
    for (int i = 0; i < n; i++) {
      int m = mv[i];
      if (!(keyed >> i & 1)) { mv[keep++] = (int16_t)m; continue; }
      uint32_t check = ccheck[i];
      dab_tt_hit ch;
      int dup = 0;
      for (int j = 0; j < nkeys && !dup; j++) dup = keys[j] == ckey[i] && checks[j] == check;
      if (dup) {
        w->etc_dups++;
        if (i >= n - nsac1 - nsac2) nsac1 > 0 ? nsac1-- : nsac2--;
        continue;
      }
      keys[nkeys] = ckey[i], checks[nkeys++] = check;
      if (dab_tt_probe_checked(&ab->tt, ckey[i], check, &ch)) {
        if (-ch.upper >= beta) {
          w->etc_cuts++;
          dab_tt_store_checked(&ab->tt, pk.key, pk.check, -ch.upper, 127, move_code(ab, p, &pk, m), 1);
          return -ch.upper;
        }
        if (-ch.lower <= alpha) {
          if (-ch.lower > etc_skipped) etc_skipped = -ch.lower;
          if (i >= n - nsac1 - nsac2) nsac1 > 0 ? nsac1-- : nsac2--;
          continue;
        }
      }
      mv[keep++] = (int16_t)m;
    }
    n = keep;
  }
  /* Lazy SMP: helpers vary the order near the root so threads diverge. */
  if (ab->o.smp_rotate && w->id > 0 && ply < 4 && n > 2) {
    int first = ttmove >= 0 ? 1 : 0, span = n - first;
    int rot = (w->id * 7 + ply) % span;
    int16_t tmp[64];
    for (int i = 0; i < span; i++) tmp[i] = mv[first + (i + rot) % span];
    memcpy(mv + first, tmp, (size_t)span * sizeof mv[0]);
  }

  /* ABDADA: a big node another thread is expanding is put off when a
  ** sibling may still decide the parent (excl); the node announces itself
  ** while it expands, and its parent searches the deferred moves last. */
  uint64_t *busy = NULL;
  if (ab->busy && use_tt && dab_popcount64(freel) >= BUSY_MIN_FREE) {
    busy = &ab->busy[pk.key & ((1u << BUSY_BITS) - 1)];
    if (excl && __atomic_load_n(busy, __ATOMIC_RELAXED) == pk.key) return DEFERRED;
    __atomic_store_n(busy, pk.key, __ATOMIC_RELAXED);
  }
  int alpha0 = alpha, best = NEG_INF, bestm = -1, skipped = NEG_INF;
  uint64_t nodes0 = w->nodes;
  int16_t deferred[64];
  int ndeferred = 0;
  for (int i = 0; i < n + ndeferred; i++) {
    const bool first_pass = i < n;
    int m = first_pass ? mv[i] : deferred[i - n];
    int a = alpha > best ? alpha : best;
    if ((loony_lines >> m & 1) && first_pass) {
      int u = loony[m];
      if (u <= a) {
        w->loony++;
        if (u > skipped) skipped = u;
        continue;
      }
    }
    int k = three ? dab64_completes(g, p, m) : 0;
    int v;
    if (k) v = k + search(w, p | 1ull << m, nrem - k, a - k, beta - k, ply + 1, false);
    else {
      bool child_excl = ab->busy && first_pass && i > 0;
      int r = search(w, p | 1ull << m, nrem, -beta, -a, ply + 1, child_excl);
      if (child_excl && r == DEFERRED) {
        deferred[ndeferred++] = (int16_t)m;
        w->deferrals++;
        continue;
      }
      v = -r;
    }
    if (w->stop) {
      if (busy && __atomic_load_n(busy, __ATOMIC_RELAXED) == pk.key) __atomic_store_n(busy, 0, __ATOMIC_RELAXED);
      return 0;
    }
    if (v > best) {
      best = v;
      bestm = m;
      if (v >= beta) break;
    }
  }
  if (busy && __atomic_load_n(busy, __ATOMIC_RELAXED) == pk.key) __atomic_store_n(busy, 0, __ATOMIC_RELAXED);
  /* A skipped move's bound is at most the window's alpha then, so it can
  ** only matter as a fail-low upper bound (see loony_upper). */
  if (skipped > best) best = skipped, bestm = -1;
  if (etc_skipped > best) best = etc_skipped, bestm = -1;
  if (use_tt) {
    int lower = -128, upper = 127;
    if (best <= alpha0) upper = best;
    else if (best >= beta) lower = best;
    else lower = upper = best;
    dab_tt_store_checked(&ab->tt, pk.key, pk.check, lower, upper, best > alpha0 ? move_code(ab, p, &pk, bestm) : -1,
                         log2_work(w->nodes - nodes0));
  }
  return best;
}

/* ---- Threads and the root driver --------------------------------------- */

static void *worker_main(void *arg) {
  ab_worker *w = arg;
  w->result = search(w, w->root, w->nrem, w->alpha, w->beta, 0, false);
  if (!w->stop) {
    /* First to finish wins; the others stop.  A helper still finishing
    ** an earlier test overwrites nothing of this one's. */
    ab_driver *d = w->drv;
    uint64_t mine = (uint64_t)(uint32_t)w->test_id << 32 | (uint32_t)w->result;
    uint64_t cur = __atomic_load_n(&d->outcome, __ATOMIC_ACQUIRE);
    while ((int)(cur >> 32) != w->test_id &&
           !__atomic_compare_exchange_n(&d->outcome, &cur, mine, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
    if (flag_get(&d->test_id) == w->test_id) {
      if (!flag_get(&d->stop)) flag_set(&d->stop_reason, 1);
      flag_set(&d->stop, 1);
    }
  }
  return NULL;
}

/* Adds a worker's counts to s. */
static void worker_stats_add(dab_ab_stats *s, const ab_worker *w) {
  s->nodes += w->nodes;
  s->tt_probes += w->probes;
  s->tt_hits += w->hits;
  s->tt_cuts += w->cuts;
  s->sle_leaves += w->sle;
  s->loony_skips += w->loony;
  s->deferrals += w->deferrals;
  s->etc_cuts += w->etc_cuts;
  s->etc_dups += w->etc_dups;
  s->graph_keys += w->keys;
}

/* One null-window search of p on (beta-1, beta) with every thread.
** RETURN: DAB_OK and *result (fail-soft), or DAB_ECANCELED. */
static dab_status run_test_once(dab_ab *ab, ab_driver *d, uint64_t p, int nrem, int beta, int *result) {
  int nt = d->threads;
  if (dab_popcount64(ab->g.all_lines & ~p) < ab->o.smp_min_free) nt = 1;
  ab_worker ws[DAB_AB_MAX_THREADS];
  flag_set(&d->stop, 0);
  flag_set(&d->stop_reason, 0);
  d->testing = beta;
  __atomic_store_n(&d->root, p, __ATOMIC_RELAXED);
  __atomic_store_n(&d->nrem, nrem, __ATOMIC_RELAXED);
  __atomic_store_n(&d->beta, beta, __ATOMIC_RELAXED);
  int id = d->test_id + 1;
  __atomic_store_n(&d->test_id, id, __ATOMIC_RELEASE); /* helpers may join from here */
  /* a new generation per test (drivers running at once may share one) */
  if (!__atomic_add_fetch(&ab->tt.generation, 1, __ATOMIC_RELAXED))
    __atomic_store_n(&ab->tt.generation, 1, __ATOMIC_RELAXED);
  pthread_mutex_lock(&ab->stats_lock); /* other drivers merge into st */
  uint64_t before = ab->st.nodes + d->st.nodes;
  pthread_mutex_unlock(&ab->stats_lock);
  for (int i = 0; i < nt; i++) {
    memset(&ws[i], 0, sizeof ws[i]);
    ws[i].ab = ab;
    ws[i].drv = d;
    ws[i].id = i;
    ws[i].node_base = before;
    ws[i].test_id = id;
    ws[i].reports = i == 0 && d->report;
    ws[i].keycache = ab->keycache;
    ws[i].root = p;
    ws[i].nrem = nrem;
    ws[i].alpha = beta - 1;
    ws[i].beta = beta;
  }
  if (nt == 1) {
    worker_main(&ws[0]);
  } else {
    pthread_t th[DAB_AB_MAX_THREADS];
    int started = 0;
    for (int i = 1; i < nt; i++) {
      if (pthread_create(&th[i], NULL, worker_main, &ws[i])) break;
      started = i;
    }
    worker_main(&ws[0]);
    for (int i = 1; i <= started; i++) pthread_join(th[i], NULL);
  }
  for (int i = 0; i < nt; i++) worker_stats_add(&d->st, &ws[i]);
  d->st.tests++;
  /* The winner may be a helper (help_drivers), so the result is read from
  ** the outcome the first finisher of this test wrote. */
  uint64_t out = __atomic_load_n(&d->outcome, __ATOMIC_ACQUIRE);
  if ((int)(out >> 32) != id) return DAB_ECANCELED;
  *result = (int)(int32_t)(uint32_t)out;
  return DAB_OK;
}

/* One null-window search of p on (beta-1, beta) with every thread.
** RETURN: DAB_OK and *result (fail-soft), or DAB_ECANCELED. */
static dab_status run_test(dab_ab *ab, ab_driver *d, uint64_t p, int nrem, int beta, int *result) {
  for (;;) {
    dab_status st = run_test_once(ab, d, p, nrem, beta, result);
    /* A helper finishing the previous test just as this one began can
    ** stop it: no result and no reason to stop.  Run it again (the table
    ** keeps what it proved). */
    if (st == DAB_ECANCELED && flag_get(&d->stop_reason) != 2 && !(d->halt && flag_get(d->halt))) continue;
    return st;
  }
}

/* Rounds x to the value parity of n open boxes, up or down. */
static int parity_up(int x, int n) { return ((x - n) & 1) ? x + 1 : x; }
static int parity_down(int x, int n) { return ((x - n) & 1) ? x - 1 : x; }

static dab_status check_position(const dab_ab *ab, uint64_t p, dab_err *err) {
  if (p & ~ab->g.all_lines)
    return dab_fail(err, DAB_EINPUT, "position has lines outside the %dx%d board", ab->g.rows, ab->g.cols);
  return DAB_OK;
}

dab_status dab_ab_test_failsoft(dab_ab *ab, uint64_t p, int bound, int *failsoft, dab_err *err) {
  dab_status st = check_position(ab, p, err);
  if (st) return st;
  ab_driver d;
  driver_init(&d, ab->o.threads, true, "test");
  /* last_progress 0: the first poll calls the progress callback, where a
  ** caller's budget is checked (a proof's --budget stops short tests) */
  d.t0 = dab_now_s();
  int nrem = dab_ab_open_boxes(&ab->g, p), r = 0;
  d.lo = -nrem, d.hi = nrem;
  st = run_test(ab, &d, p, nrem, bound, &r);
  d.st.seconds = dab_now_s() - d.t0;
  driver_merge(ab, &d);
  if (st) return dab_fail(err, st, "search canceled");
  /* the result is a true bound; clip it to what the boxes allow */
  *failsoft = r < -nrem ? -nrem : r > nrem ? nrem : r;
  return DAB_OK;
}

dab_status dab_ab_test(dab_ab *ab, uint64_t p, int bound, bool *result, dab_err *err) {
  int r;
  dab_status st = dab_ab_test_failsoft(ab, p, bound, &r, err);
  if (!st) *result = r >= bound;
  return st;
}

/* The root driver, starting its tests near guess0, inside bounds already
** known to hold (lo0, hi0; INT_MIN, INT_MAX when none). */
static dab_status solve_from(dab_ab *ab, ab_driver *d, uint64_t p, int guess0, int lo0, int hi0, int *value,
                             int *lower, int *upper, dab_err *err) {
  dab_status st = check_position(ab, p, err);
  if (st) return st;
  double t0 = dab_now_s();
  d->t0 = t0;
  d->last_progress = t0;
  int nrem = dab_ab_open_boxes(&ab->g, p);
  int lo = lo0 > -nrem ? lo0 : -nrem, hi = hi0 < nrem ? hi0 : nrem;
  int step = ab->o.parity ? 2 : 1;
  int guess = ab->o.parity ? parity_down(guess0, nrem) : guess0;
  /* A warm table may already know the root. */
  if (!ab->o.no_tt) {
    dab_tt_hit hit;
    pos_key pk;
    position_key(ab, NULL, p, &pk);
    if (dab_tt_probe_checked(&ab->tt, pk.key, pk.check, &hit)) {
      if (hit.lower > lo) lo = hit.lower;
      if (hit.upper < hi) hi = hit.upper;
      if (guess < lo) guess = lo;
      if (guess > hi) guess = hi;
    }
  }
  while (lo < hi) {
    d->lo = lo, d->hi = hi;
    /* Test value >= b with b in (lo, hi], MTD(f)-style near the guess. */
    int b = guess;
    if (b < lo + step) b = lo + step;
    if (b > hi) b = hi;
    int r;
    st = run_test(ab, d, p, nrem, b, &r);
    if (st) break;
    if (r >= b) {
      int nl = ab->o.parity ? parity_up(r, nrem) : r;
      if (nl > lo) lo = nl;
      guess = lo;
    } else {
      int nh = ab->o.parity ? parity_down(r, nrem) : r;
      if (nh < hi) hi = nh;
      guess = hi;
    }
    if (lo > hi) { /* cannot happen: the bounds are proofs */
      st = DAB_EINTERNAL;
      break;
    }
    if (ab->o.on_bound && d->report_bounds) ab->o.on_bound(ab->o.bound_ctx, lo, hi);
  }
  if (!d->ap) d->st.seconds += dab_now_s() - t0; /* an analysis counts its wall time once */
  if (lower) *lower = lo;
  if (upper) *upper = hi;
  if (st == DAB_EINTERNAL) return dab_fail(err, st, "inconsistent bounds [%d,%d]: solver bug", lo, hi);
  if (st) return dab_fail(err, st, "search stopped with the value in [%+d,%+d]", lo, hi);
  *value = lo;
  return DAB_OK;
}

dab_status dab_ab_solve(dab_ab *ab, uint64_t p, int *value, int *lower, int *upper, dab_err *err) {
  ab_driver d;
  driver_init(&d, ab->o.threads, true, "solve");
  d.report_bounds = true;
  dab_status st = solve_from(ab, &d, p, 0, INT_MIN, INT_MAX, value, lower, upper, err);
  driver_merge(ab, &d);
  return st;
}

/* ---- Every move's value ------------------------------------------------- */

/* The distinct moves of one analysis, shared by its threads. */
typedef struct analysis_job {
  dab_ab *ab;
  const dab_ab_move_hooks *hooks;
  int value;                  /* the position's value */
  int n;                      /* distinct children */
  uint64_t child[64];
  int k[64];                  /* boxes the move completes */
  int child_value[64];
  int todo[64], ntodo;        /* the children to solve (the rest are known) */
  int next;                   /* next todo entry to take (atomic) */
  int halt;                   /* flag: a child failed, the others stop */
  dab_status st;              /* the first failure, and its message */
  dab_err err;
  pthread_mutex_t lock;       /* st/err and the solved hook */
  int nthreads;
  ab_driver drv[DAB_AB_MAX_THREADS]; /* thread i's driver (helpers read them) */
  analysis_progress progress;
} analysis_job;

typedef struct analysis_thread {
  analysis_job *job;
  int id;
} analysis_thread;

/*
** A thread with no move left to take helps the others: it joins a running
** driver's current test as one more lazy-SMP worker (the helper's result
** counts if it finishes first), and the next test after that, until no
** driver is solving a move.  So the last, often longest, moves of an
** analysis still use every thread.
*/
static void help_drivers(analysis_job *j, int self) {
  dab_ab *ab = j->ab;
  dab_ab_stats st = {0}; /* this thread's helping */
  int turn = self;
  while (!flag_get(&j->halt)) {
    ab_driver *d = NULL;
    for (int i = 1; i <= j->nthreads && !d; i++) {
      ab_driver *c = &j->drv[(turn + i) % j->nthreads];
      if (c != &j->drv[self] && __atomic_load_n(&c->active, __ATOMIC_ACQUIRE)) d = c;
    }
    if (!d) break;
    turn++;
    int id = __atomic_load_n(&d->test_id, __ATOMIC_ACQUIRE);
    ab_worker w;
    memset(&w, 0, sizeof w);
    w.root = __atomic_load_n(&d->root, __ATOMIC_RELAXED);
    w.nrem = __atomic_load_n(&d->nrem, __ATOMIC_RELAXED);
    w.beta = __atomic_load_n(&d->beta, __ATOMIC_RELAXED);
    if (flag_get(&d->stop) || __atomic_load_n(&d->test_id, __ATOMIC_ACQUIRE) != id) {
      sched_yield(); /* between two tests */
      continue;
    }
    w.alpha = w.beta - 1;
    w.ab = ab, w.drv = d, w.id = 1 + self, w.test_id = id;
    w.reports = self == 0; /* the progress line goes on while thread 0 helps */
    w.keycache = ab->keycache;
    worker_main(&w);
    worker_stats_add(&st, &w);
  }
  stats_merge(ab, &st);
}

/* Takes children until none is left: each is one driver on one thread,
** so the threads split the moves instead of splitting each search. */
static void *analysis_main(void *arg) {
  analysis_thread *t = arg;
  analysis_job *j = t->job;
  dab_ab *ab = j->ab;
  for (;;) {
    int t_i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
    if (t_i >= j->ntodo || flag_get(&j->halt)) break;
    int i = j->todo[t_i];
    /* The driver lives as long as the job (helpers may still look at it
    ** after its move is done), so it is set up once, not per move. */
    ab_driver *dp = &j->drv[t->id];
    __atomic_store_n(&dp->active, 1, __ATOMIC_RELEASE);
    /* No move is worth more than the value: a quiet move's child is
    ** worth at least -value, a capture's at most value - k.  That half
    ** needs no test (a cold table would spend one on it). */
    uint64_t c = j->child[i];
    int k = j->k[i], cv = 0;
    dab_err err;
    double t0 = dab_now_s();
    dab_status st = k ? solve_from(ab, dp, c, j->value - k, INT_MIN, j->value - k, &cv, NULL, NULL, &err)
                      : solve_from(ab, dp, c, -j->value, -j->value, INT_MAX, &cv, NULL, NULL, &err);
    __atomic_store_n(&dp->active, 0, __ATOMIC_RELEASE);
    uint64_t nodes = dp->st.nodes;
    driver_merge(ab, dp);
    pthread_mutex_lock(&j->lock);
    if (st) {
      if (!j->st) j->st = st, j->err = err;
      flag_set(&j->halt, 1);
    } else {
      j->child_value[i] = cv;
      flag_set(&j->progress.done, flag_get(&j->progress.done) + 1);
      if (j->hooks && j->hooks->solved) j->hooks->solved(j->hooks->ctx, c, cv, nodes, dab_now_s() - t0);
    }
    pthread_mutex_unlock(&j->lock);
    if (st) break;
  }
  help_drivers(j, t->id);
  return NULL;
}

dab_status dab_ab_analyze_moves(dab_ab *ab, uint64_t p, int value, const dab_ab_move_hooks *hooks,
                                dab_analysis *a, dab_err *err) {
  dab_status st = check_position(ab, p, err);
  if (st) return st;
  const dab_geom *g = &ab->g;
  memset(a, 0, sizeof *a);
  analysis_job *j = calloc(1, sizeof *j);
  if (!j) return dab_fail(err, DAB_ENOMEM, "out of memory for the analysis");
  j->ab = ab, j->hooks = hooks, j->value = value;
  pthread_mutex_init(&j->lock, NULL);
  /* Distinct children: moves completing as many boxes whose children
  ** have the same table key (a board symmetry or a graph isomorphism
  ** maps one to the other) have the same value. */
  uint64_t keys[64];
  uint32_t checks[64];
  int of_move[64], known[64];
  bool is_known[64];
  for (int m = 0; m < g->nlines; m++) {
    of_move[m] = -1;
    if (p >> m & 1) continue;
    uint64_t c = p | 1ull << m;
    int k = dab64_completes(g, p, m);
    if (!dab_ab_open_boxes(g, c)) {
      of_move[m] = -2; /* the last move: worth k */
      continue;
    }
    pos_key pk;
    position_key(ab, NULL, c, &pk);
    int found = -1;
    for (int i = 0; i < j->n && found < 0; i++)
      if (keys[i] == pk.key && checks[i] == pk.check && j->k[i] == k) found = i;
    if (found < 0) {
      found = j->n++;
      keys[found] = pk.key, checks[found] = pk.check;
      j->child[found] = c, j->k[found] = k;
      is_known[found] = hooks && hooks->known && hooks->known(hooks->ctx, c, &known[found]);
    }
    of_move[m] = found;
  }
  for (int i = 0; i < j->n; i++) {
    if (is_known[i]) j->child_value[i] = known[i];
    else j->todo[j->ntodo++] = i;
  }
  int nt = ab->o.threads < j->ntodo ? ab->o.threads : j->ntodo;
  if (nt > DAB_AB_MAX_THREADS) nt = DAB_AB_MAX_THREADS;
  double t0 = dab_now_s(), seconds0 = ab->st.seconds;
  j->progress = (analysis_progress){0, j->ntodo, t0 - seconds0, 0};
  analysis_thread th[DAB_AB_MAX_THREADS];
  pthread_t tid[DAB_AB_MAX_THREADS];
  int started = 0;
  j->nthreads = nt > 0 ? nt : 1;
  for (int i = 0; i < j->nthreads; i++) {
    th[i] = (analysis_thread){j, i};
    driver_init(&j->drv[i], 1, i == 0, NULL);
    j->drv[i].halt = &j->halt;
    j->drv[i].ap = &j->progress;
  }
  for (int i = 1; i < nt; i++) {
    if (pthread_create(&tid[i], NULL, analysis_main, &th[i])) break;
    started = i;
  }
  analysis_main(&th[0]);
  for (int i = 1; i <= started; i++) pthread_join(tid[i], NULL);
  pthread_mutex_lock(&ab->stats_lock);
  ab->st.seconds = seconds0 + (dab_now_s() - t0);
  pthread_mutex_unlock(&ab->stats_lock);
  st = j->st;
  if (st) dab_fail(err, st, "%s", j->err.msg);
  else {
    for (int m = 0; m < g->nlines; m++) {
      if (of_move[m] == -1) continue;
      int k = dab64_completes(g, p, m);
      int cv = of_move[m] >= 0 ? j->child_value[of_move[m]] : 0;
      a->move[a->nmoves] = (int16_t)m;
      a->move_value[a->nmoves++] = (int16_t)(k ? k + cv : -cv);
    }
    dab_analysis_from_moves(a);
  }
  pthread_mutex_destroy(&j->lock);
  free(j);
  return st;
}

dab_status dab_ab_analyze(dab_ab *ab, uint64_t p, dab_analysis *a, dab_err *err) {
  int v = 0;
  /* The position's value first: each child's search then starts at the
  ** value an optimal move would have. */
  dab_status st = check_position(ab, p, err);
  if (!st) st = dab_ab_solve(ab, p, &v, NULL, NULL, err);
  if (!st) st = dab_ab_analyze_moves(ab, p, v, NULL, a, err);
  return st;
}

int dab_ab_pv(dab_ab *ab, uint64_t p, int16_t *pv, int max) {
  const dab_geom *g = &ab->g;
  int len = 0, v;
  dab_err err;
  if (dab_ab_solve(ab, p, &v, NULL, NULL, &err)) return 0;
  while (len < max && (p & g->all_lines) != g->all_lines) {
    /* Try the table's move first, then the rest in order. */
    int first = -1;
    dab_tt_hit hit;
    pos_key pk;
    position_key(ab, NULL, p, &pk);
    if (dab_tt_probe_checked(&ab->tt, pk.key, pk.check, &hit)) first = code_move(ab, p, &pk, hit.move);
    int found = -1, childv = 0;
    for (int i = -1; i < g->nlines && found < 0; i++) {
      int m = i < 0 ? first : i;
      if (m < 0 || (i >= 0 && m == first) || (p >> m & 1)) continue;
      int k = dab64_completes(g, p, m), cv;
      if (dab_ab_solve(ab, p | 1ull << m, &cv, NULL, NULL, &err)) return len;
      if ((k ? k + cv : -cv) == v) found = m, childv = cv;
    }
    if (found < 0) break; /* cannot happen */
    pv[len++] = (int16_t)found;
    p |= 1ull << found;
    v = childv;
  }
  return len;
}

/* ---- Seeding from stored results ------------------------------------------ */

bool dab_ab_probe(const dab_ab *ab, uint64_t p, dab_tt_hit *hit) {
  if (ab->o.no_tt || dab64_three_sided(&ab->g, p)) return false;
  pos_key pk;
  position_key(ab, NULL, p, &pk);
  return dab_tt_probe_checked(&ab->tt, pk.key, pk.check, hit);
}

dab_status dab_ab_seed(dab_ab *ab, uint64_t p, int lower, int upper, int work, dab_err *err) {
  dab_status st = check_position(ab, p, err);
  if (st) return st;
  if (work < 0 || work > 63) return dab_fail(err, DAB_EINPUT, "seed work %d is not 0..63", work);
  if (ab->o.no_tt) return DAB_OK;
  int n = dab_ab_open_boxes(&ab->g, p);
  if (lower < -n) lower = -n;
  if (upper > n) upper = n;
  if (lower > upper)
    return dab_fail(err, DAB_EINPUT, "seed bounds [%d,%d] leave no value for %d open boxes", lower, upper, n);
  pos_key pk;
  position_key(ab, NULL, p, &pk);
  /* DAB_AB_SEED_KEEP (60): as if 2^59 nodes stood behind it, so the
  ** replacement policy keeps it over anything a search stores. */
  dab_tt_store_checked(&ab->tt, pk.key, pk.check, lower, upper, -1, work);
  return DAB_OK;
}

dab_status dab_ab_seed_key(dab_ab *ab, uint64_t key, uint32_t check, int lower, int upper, int work) {
  if (ab->o.no_tt) return DAB_OK;
  if (lower > upper || work < 0 || work > 63) return DAB_EINPUT;
  dab_tt_store_checked(&ab->tt, key, check, lower, upper, -1, work);
  return DAB_OK;
}
