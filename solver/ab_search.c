/*
** ab_search.c: the alpha-beta search: negamax with the exact pruning
** rules, position keys and the key cache, move ordering (ab_int.h).
** See Copyright Notice in README.md
*/
#include "solver/ab_moves.h"
#include "game/dabassert.h"

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

/*
** True when every component of quiet position p has at most max strings
** (so the pattern database holds it): a flood fill in box space per
** component, its strings the free lines of its boxes (a string lies in
** one component, or joins one to the ground).
*/
static inline bool components_within(const dab_geom *g, uint64_t p, uint64_t freel, int max) {
  if (dab_popcount64(freel) <= max) return true;
  dab64_sides4 v = dab64_side_vectors(g, p);
  const uint64_t open = ~dab64_complete_v(v) & dab64_all_boxes(g);
  uint64_t joined[4];
  dab64_joined(g, v, open, joined);
  for (uint64_t left = open; left;) {
    uint64_t x = dab64_flood(g, left & -left, joined);
    left &= ~x;
    if (dab_popcount64(freel & dab64_lines_of_boxes(g, x)) > max) return false;
  }
  return true;
}

/* The pattern database is tried at p: free lines within the options'
** range and every component small enough. */
static inline bool pdb_covers(const dab_ab *ab, uint64_t p) {
  const uint64_t freel = ab->g.all_lines & ~p;
  const int nfree = dab_popcount64(freel);
  return (!ab->o.pdb_max_free || nfree <= ab->o.pdb_max_free) && nfree >= ab->o.pdb_min_free &&
         components_within(&ab->g, p, freel, dab_pdb_max_strings(ab->o.pdb));
}

static inline int log2_work(uint64_t n) { return n ? 64 - __builtin_clzll(n) : 0; }

static int search(ab_worker *w, uint64_t p, int nrem, int alpha, int beta, int ply, bool excl) {
  dab_ab *ab = w->ab;
  const dab_geom *g = &ab->g;
  /* A non-empty window, and nrem the boxes still open: every cutoff and
  ** table bound below leans on both. */
  DAB_ASSERT(alpha < beta);
  DAB_ASSERT(nrem == __builtin_popcountll(dab64_all_boxes(g) & ~dab64_complete_v(dab64_side_vectors(g, p))));
  w->nodes++;
  if ((w->nodes & 4095) == 0 && poll_worker(w)) return 0;
  if (w->stop) return 0;
  if (nrem == 0) return 0;
  if (alpha >= nrem) return nrem;
  if (beta <= -nrem) return -nrem;

  uint64_t three = dab64_three_sided(g, p);
  if (three && (ab->o.tune.safe_capture || ab->o.tune.decline_rule)) {
    int db = -1, dline = -1, dother = -1;
    for (uint64_t t = three; t; t &= t - 1) {
      int b = __builtin_ctzll(t);
      int l = __builtin_ctzll(g->box_mask[b] & ~p);
      int o = other_box(g, l, b);
      int os = o >= 0 ? dab64_sides(g, p, o) : -1;
      if (os != 2) {
        if (ab->o.tune.safe_capture) {
          int k = os == 3 ? 2 : 1;
          return k + search(w, p | 1ull << l, nrem - k, alpha - k, beta - k, ply + 1, false);
        }
      } else if (db < 0) {
        db = b, dline = l, dother = o;
      }
    }
    if (db >= 0 && ab->o.tune.decline_rule) {
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
  if (ab->o.on_node) ab->o.on_node(ab->o.node_ctx, p);
  const bool use_tt = !ab->o.tune.no_tt && dab_popcount64(g->all_lines & ~p) >= ab->o.tune.tt_min_free;
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
  /* Every component in the pattern database: searched on their ids (after
  ** the table, whose key cache makes a known position cost nothing). */
  if (ab->o.pdb && pdb_covers(ab, p)) {
    uint32_t ids[DAB_PDB_MAX_COMP];
    int nc = dab_pdb_split(ab->o.pdb, g, p, ids);
    if (nc >= 0) {
      w->pdb_leaves++;
      uint64_t before = w->pdb_nodes, old = w->nodes;
      int v = dab_pdb_search(ab->o.pdb, ab->pdbt, ids, nc, alpha, beta, &w->pdb_nodes);
      /* its positions count as the search's (node limits, progress) */
      w->nodes += w->pdb_nodes - before;
      if ((old >> 12) != (w->nodes >> 12) && poll_worker(w)) return 0;
      if (use_tt) {
        int lower = v > alpha ? v : -128, upper = v < beta ? v : 127;
        dab_tt_store_checked(&ab->tt, pk.key, pk.check, lower, upper, -1, 1);
      }
      return v;
    }
  }
  /* Box classes as bit masks, for the SLE test and the move list. */
  const dab64_sides4 sides = dab64_side_vectors(g, p);
  const uint64_t two = dab64_two_sided_v(sides);
  int sle;
  if (ab->o.tune.sle && !three && ab_sle_leaf(ab, p, sides, &sle)) {
    w->sle++;
    if (use_tt) dab_tt_store_checked(&ab->tt, pk.key, pk.check, sle, sle, -1, 1);
    return sle;
  }

  /* Moves: TT move, then non-sacrifices centre-out, then sacrifices
  ** (one box given before two), one opening per run (ab_moves.h). */
  uint64_t freel = g->all_lines & ~p;
  ab_moves ml;
  ttmove = ab_move_list(ab, p, three, two, ttmove, &ml);
  int16_t *mv = ml.mv;
  int n = ml.n, nsac1 = ml.nsac1, nsac2 = ml.nsac2;
  const uint64_t loony_lines = ml.loony_lines;
  const int8_t *loony = ml.loony;
  /* Enhanced transposition cutoffs: a child the table already proves good
  ** enough ends the node before any search; one proved too poor is
  ** dropped (its bound still counts in a fail-low result); a child with
  ** the same key as an earlier one (an automorphism of the graph maps one
  ** move to the other) is dropped as a duplicate.  With etc_cached_only
  ** (the default) only children whose key costs nothing are looked at:
  ** symmetric keys, and graph keys already in the key cache. */
  int etc_skipped = NEG_INF;
  if (use_tt && ab->o.tune.etc && !three && dab_popcount64(freel) >= ab->o.tune.etc_min_free) {
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
      if (ab->o.tune.etc_cached_only && (!ab->o.tune.etc_full_min_free || dab_popcount64(freel) < ab->o.tune.etc_full_min_free)) {
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
  if (ab->o.tune.smp_rotate && w->id > 0 && ply < 4 && n > 2) {
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

/* The exported entry (ab_int.h); the recursion stays on the static search,
** which libdab.so calls directly rather than through the PLT. */
int DAB_ISA_FN(ab_search)(ab_worker *w, uint64_t p, int nrem, int alpha, int beta, int ply, bool excl) {
  int v = search(w, p, nrem, alpha, beta, ply, excl);
  DAB_ASSERT(w->stop || (v >= -nrem && v <= nrem)); /* no more than the open boxes */
  return v;
}
