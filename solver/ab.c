/*
** ab.c: the alpha-beta solver: negamax search, exact pruning rules, the
** null-window root driver and lazy-SMP threads (contracts in ab.h).
** See Copyright Notice in README.md
*/
#include <pthread.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "solver/ab.h"

#include "symmetry/sckey.h"
#include "sysmem.h"
#include "theorems/sle.h"

#define NEG_INF (-1000)
#define DEFERRED 3000            /* a child another thread is expanding (ABDADA) */
#define BUSY_BITS 16
#define BUSY_MIN_FREE 8        /* only nodes this big are announced as busy */
#define DAB_AB_MAX_THREADS 64

/* Graph-key cache (see position_key): one for all threads, lock-free.
** An entry holds tag = p ^ key ^ check, so a torn entry (words from two
** stores) fails the tag test and reads as a miss. */
#ifndef KEYCACHE_BITS /* -DKEYCACHE_BITS=24 for experiments: 2x6 keyed 7% fewer */
#define KEYCACHE_BITS 21
#endif

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
  /* Shared by the workers of one test. */
  volatile int stop;          /* a worker finished, or cancel / node limit */
  int stop_reason;            /* 1 = finished, 2 = canceled */
  double t0, last_progress;
  int lo, hi, testing;        /* for the progress line */
  char what[96];
  pthread_mutex_t progress_lock;
  dab_ab_stats st;
  struct keycache_entry *keycache; /* shared by the workers, kept across tests */
  uint64_t *busy;             /* keys of nodes being expanded (threads > 1, abdada) */
};

typedef struct ab_worker {
  dab_ab *ab;
  int id;
  int stop;
  uint64_t nodes, probes, hits, cuts, sle, loony, etc_cuts, etc_dups, deferrals, keys;
  uint64_t node_base;         /* ab->st.nodes at the start of the test */
  struct keycache_entry *keycache; /* the solver's graph-key cache, or NULL */
  /* The test this worker runs. */
  uint64_t root;
  int nrem, alpha, beta, result;
} ab_worker;

static double now_sec(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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
  o->graph_keys = true;
  o->graph_min_free = 8;
  o->abdada = true;
  o->smp_rotate = false;
  /* ETC on the children whose keys are cached, at 18+ free lines:
  ** -17% nodes and -11% time on 3x5, -8% time on 2x7 (docs/solver.md);
  ** keying every child costs more than the cutoffs save. */
  o->etc = true;
  o->etc_cached_only = true;
  o->etc_min_free = 18;
}

uint64_t dab_ab_memory(const dab_ab_opts *o) {
  uint64_t tt = o->no_tt ? 64 : o->hash_bytes ? o->hash_bytes : 1ull << 30;
  uint64_t bucket = 64, n = 1;
  while (n * 2 * bucket <= tt) n *= 2; /* dab_tt_init's rounding */
  uint64_t caches = o->graph_keys && !o->no_tt ? sizeof(keycache_entry) << KEYCACHE_BITS : 0;
  return n * bucket + caches;
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
  pthread_mutex_init(&ab->progress_lock, NULL);
  if (ab->o.threads > 1 && ab->o.abdada && !ab->o.no_tt) {
    ab->busy = calloc((size_t)1 << BUSY_BITS, sizeof *ab->busy);
    if (!ab->busy) {
      dab_ab_free(ab);
      *st = dab_fail(err, DAB_ENOMEM, "out of memory for the busy table");
      return NULL;
    }
  }
  if (ab->o.graph_keys && !ab->o.no_tt) {
    /* 48 MiB probed at random: on huge pages, as the table is */
    ab->keycache = dab_huge_map(sizeof(keycache_entry) << KEYCACHE_BITS);
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
  dab_huge_unmap(ab->keycache, sizeof(keycache_entry) << KEYCACHE_BITS);
  free(ab->busy);
  pthread_mutex_destroy(&ab->progress_lock);
  free(ab);
}

const dab_geom *dab_ab_geom(const dab_ab *ab) { return &ab->g; }
const dab_ab_opts *dab_ab_options(const dab_ab *ab) { return &ab->o; }
const dab_tt *dab_ab_tt(const dab_ab *ab) { return &ab->tt; }

void dab_ab_get_stats(const dab_ab *ab, dab_ab_stats *s) { *s = ab->st; }
void dab_ab_reset_stats(dab_ab *ab) { memset(&ab->st, 0, sizeof ab->st); }

/* ---- The search ------------------------------------------------------- */

/* Every 4096 nodes: cancellation, node limit, progress (worker 0). */
static int poll_worker(ab_worker *w) {
  dab_ab *ab = w->ab;
  if (ab->stop) return w->stop = 1;
  if (ab->o.cancel && *ab->o.cancel) {
    ab->stop_reason = 2;
    ab->stop = 1;
    return w->stop = 1;
  }
  if (ab->o.node_limit && w->node_base + w->nodes * (uint64_t)ab->o.threads > ab->o.node_limit) {
    ab->stop_reason = 2;
    ab->stop = 1;
    return w->stop = 1;
  }
  if (w->id == 0 && ab->o.progress && (w->nodes & 0xffff) == 0) {
    double t = now_sec();
    if (t - ab->last_progress >= DAB_PROGRESS_INTERVAL) {
      ab->last_progress = t;
      snprintf(ab->what, sizeof ab->what, "solve %dx%d  value in [%+d,%+d]  testing >= %+d  nodes",
               ab->g.rows, ab->g.cols, ab->lo, ab->hi, ab->testing);
      dab_progress pr = {ab->what, w->node_base + w->nodes * (uint64_t)ab->o.threads, 0, t - ab->t0};
      ab->o.progress(ab->o.progress_ctx, &pr);
    }
  }
  return 0;
}

static inline int other_box(const dab_geom *g, int line, int b) {
  return g->line_box[line][0] == b ? g->line_box[line][1] : g->line_box[line][0];
}

/*
** Isolated chains and loops of a quiet position.  chain_of finds whether
** undrawn line m lies in an isolated chain (both ends on the ground, every
** coin with two sides drawn) or an isolated loop.
** RETURN: 1 chain, 2 loop, 0 neither; *len the coins, *boxes their mask,
** *end a ground string at one end of a chain.  On 0, *boxes holds the
** two-sided coins walked before a junction was met: every string touching
** them is in the same non-isolated run, so callers need not walk again.
*/
static int chain_of(const dab_geom *g, uint64_t p, int m, int *len, uint64_t *boxes, int *end) {
  int b0 = g->line_box[m][0], b1 = g->line_box[m][1];
  int k = 0;
  uint64_t set = 0;
  *end = m;
  *boxes = 0;
  for (int side = 0; side < 2; side++) {
    int x = side ? b1 : b0, from = m;
    if (x < 0) continue;            /* m is this end's ground string */
    if (dab64_sides(g, p, x) != 2) return *boxes = set, 0;
    while (x >= 0) {
      if (set >> x & 1) {           /* walked round: a loop */
        *len = k, *boxes = set;
        return 2;
      }
      k++;
      set |= 1ull << x;
      int next = __builtin_ctzll(g->box_mask[x] & ~p & ~(1ull << from));
      int y = other_box(g, next, x);
      if (y >= 0 && dab64_sides(g, p, y) != 2) return *boxes = set, 0; /* a junction */
      if (y < 0) *end = next;
      from = next;
      x = y;
    }
  }
  *len = k, *boxes = set;
  return 1;
}

/*
** The loony bound.  Let m be a move of a quiet position that lies in an
** isolated chain of k >= 3 coins or in an isolated loop of k coins.  After
** m the opponent can take every coin of it and move on (k + x, x = value
** of the rest for the mover there), or take all but two (a loop: all but
** four) and hand over the rest (k - 4 - x; loop k - 8 - x).  The better of
** the two is at least k - 2 (loop: k - 4), so m is worth at most -(k-2)
** (loop -(k-4)).
** RETURN: that upper bound, or a large number when m is not such a move.
*/
static int loony_upper(const dab_geom *g, uint64_t p, int m) {
  int k = 0, end;
  uint64_t boxes;
  int kind = chain_of(g, p, m, &k, &boxes, &end);
  if (kind == 1 && k >= 3) return -(k - 2);
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
static inline keycache_entry *keycache_slot(keycache_entry *cache, uint64_t p) {
  return &cache[(p * 0x9e3779b97f4a7c15ull) >> (64 - KEYCACHE_BITS)];
}

/* True when p's table key is its graph key (else its symmetric key). */
static inline bool graph_keyed(const dab_ab *ab, uint64_t p) {
  return ab->o.graph_keys && __builtin_popcountll(ab->g.all_lines & ~p) >= ab->o.graph_min_free;
}

/* p's graph key from the cache.  RETURN: false when the entry holds
** another position (a zeroed entry has check 0, never a graph key's). */
static inline bool keycache_get(keycache_entry *cache, uint64_t p, uint64_t *key, uint32_t *check) {
  keycache_entry *e = keycache_slot(cache, p);
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
    if (cache && keycache_get(cache, p, &k->key, &k->check)) return;
    dab_sckey64(&ab->g, p, &k->sk);
    k->labelled = true;
    k->key = k->sk.key;
    k->check = ((uint32_t)k->sk.check & (DAB_TT_CHECK_HASHED - 1)) | DAB_TT_CHECK_HASHED;
    if (cache) {
      keycache_entry *e = keycache_slot(cache, p);
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
  return cache && keycache_get(cache, p, key, check);
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
  const bool use_tt = !ab->o.no_tt && __builtin_popcountll(g->all_lines & ~p) >= ab->o.tt_min_free;
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
  uint64_t seen_groups = 0, seen_chains = 0, not_isolated = 0;
  uint64_t freel = g->all_lines & ~p;
  const bool chain_moves = ab->o.chain_moves && !three;
  /* Lines that give one box or two; lines whose every box is two-sided
  ** (only those can lie in an isolated chain or loop: chain_of). */
  const uint64_t gives_some = freel & dab64_lines_of_boxes(g, two);
  const uint64_t gives_two = freel & dab64_lines_between(g, two);
  const uint64_t chain_lines =
      !three && (chain_moves || ab->o.loony_bound) ? freel & ~dab64_lines_of_boxes(g, dab64_all_boxes(g) & ~two) : 0;
  if (ttmove >= 0 && chain_moves) {
    int len, end;
    uint64_t boxes;
    int kind = chain_of(g, p, ttmove, &len, &boxes, &end);
    if ((kind == 1 && len >= 3) || kind == 2) {
      seen_chains |= boxes;
      if (kind == 1) ttmove = end;
    }
  }
  if (ttmove >= 0) mv[n++] = (int16_t)ttmove;
  for (int i = 0; i < g->nlines; i++) {
    int m = ab->order[i];
    if (!(freel >> m & 1)) continue;
    if (chain_moves && (chain_lines >> m & 1)) {
      /* One opening per isolated loop (all are alike) and per isolated
      ** chain of >= 3 coins (an end string: the opponent's options after
      ** any other opening include those after it). */
      int b0 = g->line_box[m][0], b1 = g->line_box[m][1];
      if ((b0 >= 0 && (seen_chains >> b0 & 1)) || (b1 >= 0 && (seen_chains >> b1 & 1))) continue;
      int len, end, kind = 0;
      uint64_t boxes = 0;
      if (!((b0 >= 0 && (not_isolated >> b0 & 1)) || (b1 >= 0 && (not_isolated >> b1 & 1)))) {
        kind = chain_of(g, p, m, &len, &boxes, &end);
        if (!kind) not_isolated |= boxes;
      }
      if ((kind == 1 && len >= 3) || kind == 2) {
        seen_chains |= boxes;
        if (kind == 1) m = end;
        if (m == ttmove) continue;
        /* an end string gives one box: a sacrifice of one */
        if (ab->o.order_sacrifices_last) sac1[nsac1++] = (int16_t)m;
        else mv[n++] = (int16_t)m;
        continue;
      }
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
  if (use_tt && ab->o.etc && !three && __builtin_popcountll(freel) >= ab->o.etc_min_free) {
    /* Three passes so the children's cache misses overlap instead of
    ** queueing: prefetch every child's key-cache entry, then get every
    ** key and prefetch its table bucket, then read the table. */
    int keep = 0, nkeys = 0;
    uint64_t keys[64], ckey[64], keyed = 0; /* keyed: bit i when child i has ckey/ccheck */
    uint32_t checks[64], ccheck[64];
    if (w->keycache)
      for (int i = 0; i < n; i++) __builtin_prefetch(keycache_slot(w->keycache, p | 1ull << mv[i]));
    for (int i = 0; i < n; i++) {
      uint64_t c = p | 1ull << mv[i];
      if (dab64_three_sided(g, c)) continue; /* not stored */
      if (ab->o.etc_cached_only) {
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
  if (ab->busy && use_tt && __builtin_popcountll(freel) >= BUSY_MIN_FREE) {
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
    if (ab->o.loony_bound && (chain_lines >> m & 1) && first_pass && i >= n - nsac1 - nsac2 &&
        !((g->line_box[m][0] >= 0 && (not_isolated >> g->line_box[m][0] & 1)) ||
          (g->line_box[m][1] >= 0 && (not_isolated >> g->line_box[m][1] & 1)))) {
      int u = loony_upper(g, p, m);
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
    /* First to finish wins; the others stop. */
    dab_ab *ab = w->ab;
    if (!ab->stop) ab->stop_reason = 1;
    ab->stop = 1;
  }
  return NULL;
}

/* One null-window search of p on (beta-1, beta) with every thread.
** RETURN: DAB_OK and *result (fail-soft), or DAB_ECANCELED. */
static dab_status run_test(dab_ab *ab, uint64_t p, int nrem, int beta, int *result) {
  int nt = ab->o.threads;
  ab_worker ws[DAB_AB_MAX_THREADS];
  if (nt > DAB_AB_MAX_THREADS) nt = DAB_AB_MAX_THREADS;
  ab->stop = 0;
  ab->stop_reason = 0;
  ab->testing = beta;
  ab->tt.generation++;
  if (!ab->tt.generation) ab->tt.generation = 1;
  for (int i = 0; i < nt; i++) {
    memset(&ws[i], 0, sizeof ws[i]);
    ws[i].ab = ab;
    ws[i].id = i;
    ws[i].node_base = ab->st.nodes;
    ws[i].keycache = ab->keycache;
    ws[i].root = p;
    ws[i].nrem = nrem;
    ws[i].alpha = beta - 1;
    ws[i].beta = beta;
  }
  int winner = -1;
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
  for (int i = 0; i < nt; i++) {
    ab->st.nodes += ws[i].nodes;
    ab->st.tt_probes += ws[i].probes;
    ab->st.tt_hits += ws[i].hits;
    ab->st.tt_cuts += ws[i].cuts;
    ab->st.sle_leaves += ws[i].sle;
    ab->st.loony_skips += ws[i].loony;
    ab->st.deferrals += ws[i].deferrals;
    ab->st.etc_cuts += ws[i].etc_cuts;
    ab->st.etc_dups += ws[i].etc_dups;
    ab->st.graph_keys += ws[i].keys;
    if (winner < 0 && !ws[i].stop) winner = i;
  }
  ab->st.tests++;
  if (winner < 0) return DAB_ECANCELED;
  *result = ws[winner].result;
  return DAB_OK;
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
  double t0 = now_sec();
  ab->t0 = t0;
  int nrem = dab_ab_open_boxes(&ab->g, p), r = 0;
  ab->lo = -nrem, ab->hi = nrem;
  st = run_test(ab, p, nrem, bound, &r);
  ab->st.seconds += now_sec() - t0;
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
static dab_status solve_from(dab_ab *ab, uint64_t p, int guess0, int lo0, int hi0, int *value, int *lower,
                             int *upper, dab_err *err) {
  dab_status st = check_position(ab, p, err);
  if (st) return st;
  double t0 = now_sec();
  ab->t0 = t0;
  ab->last_progress = t0;
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
    ab->lo = lo, ab->hi = hi;
    /* Test value >= b with b in (lo, hi], MTD(f)-style near the guess. */
    int b = guess;
    if (b < lo + step) b = lo + step;
    if (b > hi) b = hi;
    int r;
    st = run_test(ab, p, nrem, b, &r);
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
    if (ab->o.on_bound) ab->o.on_bound(ab->o.bound_ctx, lo, hi);
  }
  ab->st.seconds += now_sec() - t0;
  if (lower) *lower = lo;
  if (upper) *upper = hi;
  if (st == DAB_EINTERNAL) return dab_fail(err, st, "inconsistent bounds [%d,%d]: solver bug", lo, hi);
  if (st) return dab_fail(err, st, "search stopped with the value in [%+d,%+d]", lo, hi);
  *value = lo;
  return DAB_OK;
}

dab_status dab_ab_solve(dab_ab *ab, uint64_t p, int *value, int *lower, int *upper, dab_err *err) {
  return solve_from(ab, p, 0, INT_MIN, INT_MAX, value, lower, upper, err);
}

dab_status dab_ab_analyze(dab_ab *ab, uint64_t p, dab_analysis *a, dab_err *err) {
  dab_status st = check_position(ab, p, err);
  if (st) return st;
  const dab_geom *g = &ab->g;
  memset(a, 0, sizeof *a);
  uint64_t keys[64];
  int vals[64], nk = 0, pv = 0;
  /* The position's value first: each child's search then starts at the
  ** value an optimal move would have. */
  st = dab_ab_solve(ab, p, &pv, NULL, NULL, err);
  if (st) return st;
  for (int m = 0; m < g->nlines; m++) {
    if (p >> m & 1) continue;
    uint64_t c = p | 1ull << m;
    int k = dab64_completes(g, p, m);
    uint64_t key = dab_sym_canon64(ab->sym, c, ab->o.border_equiv, NULL);
    int v = 0, found = 0;
    for (int i = 0; i < nk; i++)
      if (keys[i] == key) { v = vals[i]; found = 1; break; }
    if (!found) {
      /* No move is worth more than pv: a quiet move's child is worth at
      ** least -pv, a capture's at most pv - k.  That half needs no test
      ** (a cold table would spend one on it). */
      int cv;
      st = k ? solve_from(ab, c, pv - k, INT_MIN, pv - k, &cv, NULL, NULL, err)
             : solve_from(ab, c, -pv, -pv, INT_MAX, &cv, NULL, NULL, err);
      if (st) return st;
      v = k ? k + cv : -cv;
      keys[nk] = key, vals[nk] = v, nk++;
    }
    a->move[a->nmoves] = (int16_t)m;
    a->move_value[a->nmoves] = (int16_t)v;
    a->nmoves++;
  }
  dab_analysis_from_moves(a);
  return DAB_OK;
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

dab_status dab_ab_seed(dab_ab *ab, uint64_t p, int lower, int upper, dab_err *err) {
  dab_status st = check_position(ab, p, err);
  if (st) return st;
  if (ab->o.no_tt) return DAB_OK;
  int n = dab_ab_open_boxes(&ab->g, p);
  if (lower < -n) lower = -n;
  if (upper > n) upper = n;
  if (lower > upper)
    return dab_fail(err, DAB_EINPUT, "seed bounds [%d,%d] leave no value for %d open boxes", lower, upper, n);
  pos_key pk;
  position_key(ab, NULL, p, &pk);
  /* Work 60: as if 2^59 nodes stood behind it, so the replacement policy
  ** keeps it over anything a search stores. */
  dab_tt_store_checked(&ab->tt, pk.key, pk.check, lower, upper, -1, 60);
  return DAB_OK;
}

dab_status dab_ab_seed_key(dab_ab *ab, uint64_t key, uint32_t check, int lower, int upper) {
  if (ab->o.no_tt) return DAB_OK;
  if (lower > upper) return DAB_EINPUT;
  dab_tt_store_checked(&ab->tt, key, check, lower, upper, -1, 60);
  return DAB_OK;
}
