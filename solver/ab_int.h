/*
** ab_int.h: the alpha-beta solver's internals shared by ab.c (the solver
** object, options, seeding), ab_search.c (the search) and ab_root.c (the
** root driver, threads and every move's value).  Not a public header.
** See Copyright Notice in README.md
*/
#ifndef DAB_AB_INT_H
#define DAB_AB_INT_H

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
#include "game/isa.h"


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
** only the children whose keys are cached), and at equal memory cache
** bytes do more than table bytes (measured in docs/solver.md, "Key
** cache"). */
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
  dab_pdb_table *pdbt;        /* the pattern-database search's table (o.pdb set), shared */
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
  int nrem, alpha, beta;       /* the running test's window (alpha = beta-1: null) */
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
  uint64_t nodes, probes, hits, cuts, sle, loony, etc_cuts, etc_dups, deferrals, keys, pdb_leaves, pdb_nodes;
  uint64_t node_base;         /* nodes counted before this test (for limits, progress) */
  int test_id;                /* the driver's test this worker searches */
  bool reports;               /* calls the progress callback */
  struct keycache_entry *keycache; /* the solver's graph-key cache, or NULL */
  /* The test this worker runs. */
  uint64_t root;
  int nrem, alpha, beta, result;
} ab_worker;

/* ---- Position keys (ab_search.c, ab_root.c, ab.c) --------------------- */

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
  return ab->o.tune.graph_keys && dab_popcount64(ab->g.all_lines & ~p) >= ab->o.tune.graph_min_free;
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
    ** often but costs more than it saves (docs/solver.md, "Key cache"). */
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
    k->key = dab_sym_canon64(ab->sym, p, ab->o.tune.border_equiv, &k->tr);
    k->check = 0;
    k->graph = false;
  }
}

/* p's key when it costs no canonicalisation: a symmetric key, or a graph
** key found in the cache.  RETURN: false when p's graph key is not cached. */
static inline bool cheap_key(const dab_ab *ab, keycache_entry *cache, uint64_t p, uint64_t *key, uint32_t *check) {
  if (!graph_keyed(ab, p)) {
    *key = dab_sym_canon64(ab->sym, p, ab->o.tune.border_equiv, NULL);
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

/* ab.c: the driver's set-up and the merge of its counts into ab's. */
void ab_driver_init(ab_driver *d, int threads, bool report, const char *label);
void ab_driver_merge(dab_ab *ab, ab_driver *d);
void ab_stats_merge(dab_ab *ab, dab_ab_stats *s);

/* ab_root.c: DAB_OK, or DAB_EINPUT for a position ab's board cannot hold. */
dab_status ab_check_position(const dab_ab *ab, uint64_t p, dab_err *err);

/* ab_search.c: the null-window search of w->root (w->nrem free lines,
** window alpha..beta) from ply; returns its fail-soft value, or with
** w->stop set an arbitrary one.
** ab_search.c is built twice (game/isa.h, the Makefile's ISA_SRC):
** ab_search_base runs on any x86-64, ab_search_v3 with pext, pdep and
** popcnt compiled in; ab_search picks one per call (a root test, not a
** node), because a runtime check per pext costs the search more
** (docs/PERFORMANCE.md, the build's ISA). */
int ab_search_base(ab_worker *w, uint64_t p, int nrem, int alpha, int beta, int ply, bool excl);
int ab_search_v3(ab_worker *w, uint64_t p, int nrem, int alpha, int beta, int ply, bool excl);
static inline int ab_search(ab_worker *w, uint64_t p, int nrem, int alpha, int beta, int ply, bool excl) {
  return DAB_ISA_CALL(ab_search, w, p, nrem, alpha, beta, ply, excl);
}

/* ab_dfpn.c: the test "value(p) >= beta?" (nrem open boxes) by df-pn on
** the solver's rules and table: beta when it holds, else beta - 1 (with
** w->stop set: arbitrary).  One thread. */
int ab_dfpn_test(ab_worker *w, uint64_t p, int nrem, int beta);

#endif
