/*
** ab.c: the alpha-beta solver object: options, memory, accessors and
** seeding from stored results (contracts in ab.h; the search is in
** ab_search.c, the root driver and threads in ab_root.c).
** See Copyright Notice in README.md
*/
#include "solver/ab_int.h"

void dab_ab_default_opts(dab_ab_opts *o) {
  memset(o, 0, sizeof *o);
  o->hash_bytes = 1ull << 30;
  o->tune.tt_policy = DAB_TT_WORK;
  o->threads = 1;
  o->tune.safe_capture = true;
  o->tune.decline_rule = true;
  o->tune.border_equiv = true;
  o->tune.sle = true;
  o->tune.order_sacrifices_last = true;
  o->tune.parity = true;
  o->tune.loony_bound = true;
  o->tune.chain_moves = true;
  o->tune.hard_handouts = true;
  o->tune.junction_chains = true;
  o->tune.graph_keys = true;
  o->tune.graph_min_free = 8;
  o->tune.abdada = true;
  o->tune.smp_rotate = false;
  o->tune.smp_min_free = SMP_MIN_FREE;
  /* ETC on the children whose keys are cached, at 18+ free lines:
  ** -17% nodes and -11% time on 3x5, -8% time on 2x7 (docs/solver.md);
  ** keying every child costs more than the cutoffs save. */
  o->tune.etc = true;
  o->tune.etc_cached_only = true;
  o->tune.etc_min_free = 18;
  o->tune.dfpn_leaf_free = 16;
  o->tune.dfpn_eps_pct = 25;
  /* ... and on every child at 30+ free lines, where a node's subtree is
  ** worth far more than its children's keys: -5% time on 3x5 and 2x7
  ** (2-6%), -7% on 4x4 (docs/solver.md, "Enhanced transposition cutoffs"). */
  o->tune.etc_full_min_free = 30;
}

/* log2 of the graph-key cache's entries for options o. */
static int keycache_bits(const dab_ab_opts *o) {
  if (o->tune.keycache_bits > 0) return o->tune.keycache_bits < 30 ? o->tune.keycache_bits : 30;
  uint64_t want = (o->hash_bytes ? o->hash_bytes : 1ull << 30) / 8 / sizeof(keycache_entry);
  int bits = KEYCACHE_MIN_BITS;
  while (bits < KEYCACHE_MAX_BITS && (1ull << (bits + 1)) <= want) bits++;
  return bits;
}

uint64_t dab_ab_memory(const dab_ab_opts *o) {
  uint64_t tt = o->tune.no_tt ? 64 : o->hash_bytes ? o->hash_bytes : 1ull << 30;
  uint64_t caches = o->tune.graph_keys && !o->tune.no_tt ? sizeof(keycache_entry) << keycache_bits(o) : 0;
  uint64_t pdb = o->pdb ? dab_pdb_table_bytes(o->pdb_table_bits ? o->pdb_table_bits : 22) : 0;
  return dab_tt_buckets_for(tt) * sizeof(dab_tt_bucket) + caches + pdb;
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
  *st = dab_tt_init(&ab->tt, ab->o.tune.no_tt ? 64 : ab->o.hash_bytes, ab->o.tune.tt_policy, err);
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
  if (ab->o.threads > 1 && ab->o.tune.abdada && !ab->o.tune.no_tt) {
    ab->busy = calloc((size_t)1 << BUSY_BITS, sizeof *ab->busy);
    if (!ab->busy) {
      dab_ab_free(ab);
      *st = dab_fail(err, DAB_ENOMEM, "out of memory for the busy table");
      return NULL;
    }
  }
  if (ab->o.tune.graph_keys && !ab->o.tune.no_tt) {
    /* probed at random: on huge pages, as the table is */
    ab->keycache_shift = 64 - keycache_bits(&ab->o);
    ab->keycache = dab_huge_map(sizeof(keycache_entry) << (64 - ab->keycache_shift));
    if (!ab->keycache) {
      dab_ab_free(ab);
      *st = dab_fail(err, DAB_ENOMEM, "out of memory for the graph-key cache");
      return NULL;
    }
  }
  if (ab->o.pdb) {
    dab_status s2 = dab_pdb_table_new(ab->o.pdb_table_bits ? ab->o.pdb_table_bits : 22, &ab->pdbt, err);
    if (s2) {
      dab_ab_free(ab);
      *st = s2;
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
  dab_pdb_table_free(ab->pdbt);
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

void ab_driver_init(ab_driver *d, int threads, bool report, const char *label) {
  memset(d, 0, sizeof *d);
  d->threads = threads < 1 ? 1 : threads > DAB_AB_MAX_THREADS ? DAB_AB_MAX_THREADS : threads;
  d->report = report;
  d->label = label;
}

/* Adds counts s to the solver's (thread-safe) and zeroes them. */
void ab_stats_merge(dab_ab *ab, dab_ab_stats *s) {
  pthread_mutex_lock(&ab->stats_lock);
  dab_ab_stats *t = &ab->st;
  t->nodes += s->nodes, t->tt_probes += s->tt_probes, t->tt_hits += s->tt_hits, t->tt_cuts += s->tt_cuts;
  t->sle_leaves += s->sle_leaves, t->loony_skips += s->loony_skips, t->deferrals += s->deferrals;
  t->etc_cuts += s->etc_cuts, t->etc_dups += s->etc_dups, t->graph_keys += s->graph_keys;
  t->tests += s->tests, t->seconds += s->seconds;
  t->pdb_leaves += s->pdb_leaves, t->pdb_nodes += s->pdb_nodes;
  pthread_mutex_unlock(&ab->stats_lock);
  memset(s, 0, sizeof *s);
}

void ab_driver_merge(dab_ab *ab, ab_driver *d) { ab_stats_merge(ab, &d->st); }

/* ---- Seeding from stored results ------------------------------------------ */

bool dab_ab_probe(const dab_ab *ab, uint64_t p, dab_tt_hit *hit) {
  if (ab->o.tune.no_tt || dab64_three_sided(&ab->g, p)) return false;
  pos_key pk;
  position_key(ab, NULL, p, &pk);
  return dab_tt_probe_checked(&ab->tt, pk.key, pk.check, hit);
}

dab_status dab_ab_seed(dab_ab *ab, uint64_t p, int lower, int upper, int work, dab_err *err) {
  dab_status st = ab_check_position(ab, p, err);
  if (st) return st;
  if (work < 0 || work > 63) return dab_fail(err, DAB_EINPUT, "seed work %d is not 0..63", work);
  if (ab->o.tune.no_tt) return DAB_OK;
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
  if (ab->o.tune.no_tt) return DAB_OK;
  if (lower > upper || work < 0 || work > 63) return DAB_EINPUT;
  dab_tt_store_checked(&ab->tt, key, check, lower, upper, -1, work);
  return DAB_OK;
}

