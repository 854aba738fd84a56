/*
** test_ab.c: the alpha-beta solver against the exhaustive retrograde
** tables: every position of small boards, random positions of larger ones,
** each exact rule switched on alone, and the known values.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "solver/ab.h"
#include "solver/retro.h"
#include "solver/tt.h"
#include "tests/testhelp.h"

static bool san;

/* xorshift64*: reproducible positions. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ull;
}

static dab_retro *table(const dab_geom *g) {
  dab_retro_opts ro = {.threads = 0};
  dab_retro *r = NULL;
  dab_err err;
  dab_status st = dab_retro_solve(g, 0, &ro, &r, &err);
  TH_CHECK(st == DAB_OK, "retro %dx%d: %s", g->rows, g->cols, err.msg);
  return st ? NULL : r;
}

static dab_ab *solver(const dab_geom *g, const dab_ab_opts *o) {
  dab_err err;
  dab_status st;
  dab_ab *ab = dab_ab_new(g, o, &st, &err);
  TH_CHECK(ab != NULL, "dab_ab_new: %s", err.msg);
  return ab;
}

/* A random position: a uniform subset, a uniform number of random lines,
** or a random game prefix, by turns. */
static uint64_t random_position(const dab_geom *g, int kind) {
  uint64_t all = g->all_lines;
  if (kind == 0) return rnd() & all;
  int n = (int)(rnd() % (uint64_t)(g->nlines + 1));
  uint64_t p = 0;
  /* random play and random subsets of size n are the same draw here: play
  ** n uniformly random undrawn lines (a random game's line set) */
  for (int i = 0; i < n; i++) {
    uint64_t freel = all & ~p;
    int cnt = __builtin_popcountll(freel), k = (int)(rnd() % (uint64_t)cnt);
    while (k--) freel &= freel - 1;
    p |= freel & -freel;
  }
  if (kind == 2) {
    /* random play with greedy captures: players take what is offered
    ** most of the time, which reaches the chain-heavy endgames */
    p = 0;
    while (p != all && __builtin_popcountll(p) < n) {
      uint64_t three = dab64_three_sided(g, p);
      if (three && rnd() % 4) {
        int b = __builtin_ctzll(three);
        p |= g->box_mask[b] & ~p;
        continue;
      }
      uint64_t freel = all & ~p;
      int cnt = __builtin_popcountll(freel), k = (int)(rnd() % (uint64_t)cnt);
      while (k--) freel &= freel - 1;
      p |= freel & -freel;
    }
  }
  return p;
}

/* Compares ab with the table on the given positions (all when count is
** 0); returns mismatches. */
static int compare(const char *label, dab_ab *ab, const dab_retro *r, uint64_t count) {
  const dab_geom *g = dab_ab_geom(ab);
  int bad = 0;
  uint64_t n = count ? count : r->count;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t p = count ? random_position(g, (int)(i % 3)) : i;
    int v = 0;
    dab_err err;
    dab_status st = dab_ab_solve(ab, p, &v, NULL, NULL, &err);
    int want = dab_retro_value(r, p);
    if (st || v != want) {
      if (bad < 5)
        TH_CHECK(0, "%s %dx%d position %#llx: ab %d (%s), retro %d", label, g->rows, g->cols,
                 (unsigned long long)p, v, st ? err.msg : "ok", want);
      bad++;
    }
  }
  TH_CHECK(bad == 0, "%s %dx%d: %d of %llu positions differ", label, g->rows, g->cols, bad,
           (unsigned long long)n);
  printf("  %-28s %dx%d  %8llu positions  %d mismatches\n", label, g->rows, g->cols,
         (unsigned long long)n, bad);
  return bad;
}

typedef struct variant {
  const char *name;
  bool safe, decline, border, sle, sacorder, parity, no_tt, loony;
  dab_tt_policy policy;
  bool graph;                   /* graph keys (from 8 free lines; "only": from 0) */
  bool etc;                     /* the default ETC (cached children) */
} variant;

static const variant variants[] = {
    {"default", true, true, true, true, true, true, false, true, DAB_TT_WORK, true, true},
    {"plain", false, false, false, false, false, false, false, false, DAB_TT_WORK, false, false},
    {"safe-capture only", true, false, false, false, true, true, false, false, DAB_TT_WORK, false, false},
    {"decline only", false, true, false, false, true, true, false, false, DAB_TT_ALWAYS, false, false},
    {"border-equiv only", false, false, true, false, true, false, false, false, DAB_TT_DIRECT, false, false},
    {"sle only", false, false, false, true, false, true, false, false, DAB_TT_WORK, false, false},
    {"loony+chain moves only", false, false, false, false, true, true, false, true, DAB_TT_WORK, false, false},
    {"graph keys only", false, false, false, false, false, true, false, false, DAB_TT_WORK, true, false},
    {"default, no table", true, true, true, true, true, true, true, true, DAB_TT_WORK, true, true},
    {"default, root window", true, true, true, true, true, true, false, true, DAB_TT_WORK, true, true},
    {"default, df-pn tests", true, true, true, true, true, true, false, true, DAB_TT_WORK, true, true},
};

static void make_opts(const variant *v, dab_ab_opts *o, uint64_t hash) {
  dab_ab_default_opts(o);
  o->hash_bytes = hash;
  o->tune.safe_capture = v->safe;
  o->tune.decline_rule = v->decline;
  o->tune.border_equiv = v->border;
  o->tune.sle = v->sle;
  o->tune.order_sacrifices_last = v->sacorder;
  o->tune.parity = v->parity;
  o->tune.no_tt = v->no_tt;
  o->tune.loony_bound = v->loony;
  o->tune.chain_moves = v->loony;
  o->tune.hard_handouts = v->loony;
  o->tune.tt_policy = v->policy;
  o->tune.graph_keys = v->graph;
  if (!strcmp(v->name, "graph keys only")) o->tune.graph_min_free = 0;
  o->tune.root_window = !strcmp(v->name, "default, root window");
  if (!strcmp(v->name, "default, df-pn tests")) {
    /* df-pn down to 4 free lines, on a small table of its own */
    o->tune.dfpn_min_free = 1, o->tune.dfpn_leaf_free = 4, o->tune.dfpn_bits = 12;
    o->tune.dfpn_mobility = true;
  }
  o->tune.etc = v->etc;
  /* the boards here have 6-31 lines: ETC from 4 free lines, so that it
  ** acts at most nodes (the default 18 would spare most of them) */
  o->tune.etc_min_free = 4;
}

/*
** The chain lemma behind chain_moves, loony_bound and junction_chains
** (solver/ab.h), checked against the table with a run-finder of its own:
** in a quiet position, for every run of k >= 3 two-sided coins that is
** not a loop (its ends on the ground or at junctions), opening it at
** either end is worth the same, at least as much as opening it inside,
** and at most -(k-2).  Every position when count is 0, else count random
** ones; returns the number of runs with a junction end that were checked
** (so that a caller can see the test met some).
*/
static uint64_t chain_lemma(const dab_geom *g, const dab_retro *r, uint64_t count) {
  uint64_t n = count ? count : r->count, runs = 0, junction_runs = 0;
  int bad = 0;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t p = count ? random_position(g, (int)(i % 3)) : i;
    if (dab64_three_sided(g, p)) continue;
    uint64_t two = 0;
    for (int b = 0; b < g->nboxes; b++)
      if (dab64_sides(g, p, b) == 2) two |= 1ull << b;
    for (uint64_t todo = two; todo;) {
      /* grow the run from one coin through strings between two-sided coins */
      uint64_t coins = todo & -todo, before;
      do {
        before = coins;
        for (uint64_t c = before; c; c &= c - 1) {
          int b = __builtin_ctzll(c);
          for (int s = 0; s < 4; s++) {
            int l = g->box_line[b][s], o = g->line_box[l][0] == b ? g->line_box[l][1] : g->line_box[l][0];
            if (!(p >> l & 1) && o >= 0 && (two >> o & 1)) coins |= 1ull << o;
          }
        }
      } while (coins != before);
      todo &= ~coins;
      int k = __builtin_popcountll(coins), nends = 0, ends[2] = {-1, -1}, nin = 0, inner[64];
      bool junction = false;
      for (int l = 0; l < g->nlines; l++) {
        if (p >> l & 1) continue;
        int b0 = g->line_box[l][0], b1 = g->line_box[l][1];
        bool in0 = b0 >= 0 && (coins >> b0 & 1), in1 = b1 >= 0 && (coins >> b1 & 1);
        if (in0 && in1) inner[nin++] = l;
        else if (in0 || in1) {
          int o = in0 ? b1 : b0;
          junction |= o >= 0;
          if (nends < 2) ends[nends] = l;
          nends++;
        }
      }
      if (k < 3 || nends != 2) continue; /* short, or an isolated loop */
      runs++;
      junction_runs += junction;
      int e0 = -dab_retro_value(r, p | 1ull << ends[0]), e1 = -dab_retro_value(r, p | 1ull << ends[1]);
      bool ok = e0 == e1 && e0 <= -(k - 2);
      for (int j = 0; j < nin && ok; j++) ok = -dab_retro_value(r, p | 1ull << inner[j]) <= e0;
      if (!ok && bad++ < 5)
        TH_CHECK(0, "chain lemma %dx%d position %#llx: a run of %d coins (%s), ends worth %d and %d",
                 g->rows, g->cols, (unsigned long long)p, k, junction ? "junction" : "isolated", e0, e1);
    }
  }
  TH_CHECK(bad == 0, "chain lemma %dx%d: %d runs break it", g->rows, g->cols, bad);
  printf("  %-28s %dx%d  %8llu positions  %llu runs of >= 3 (%llu at a junction), %d break it\n", "chain lemma",
         g->rows, g->cols, (unsigned long long)n, (unsigned long long)runs, (unsigned long long)junction_runs, bad);
  return junction_runs;
}

/* Every position of a board, under every variant (no-table variant on a
** sample only: it is exponential). */
static void exhaustive(int rows, int cols) {
  dab_geom g;
  dab_geom_init(&g, rows, cols, NULL);
  dab_retro *r = table(&g);
  if (!r) return;
  TH_CHECK(chain_lemma(&g, r, 0) > 0, "chain lemma %dx%d: no run with a junction end was met", rows, cols);
  for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
    dab_ab_opts o;
    /* A small table so replacement is exercised too. */
    make_opts(&variants[i], &o, 1 << 16);
    dab_ab *ab = solver(&g, &o);
    if (!ab) continue;
    /* Variants without the safe-capture rule are exponential on long
    ** chains (1xN): a sample of those. */
    bool sample = variants[i].no_tt || (san && i > 0) || (!variants[i].safe && rows == 1);
    compare(variants[i].name, ab, r, sample ? (rows == 1 ? 300 : 2000) : 0);
    dab_ab_free(ab);
  }
  dab_retro_free(r);
}

/* The default solver on two threads with a 64 MiB table (o gets its
** options); NULL after a failed check. */
static dab_ab *two_threads(const dab_geom *g, dab_ab_opts *o) {
  dab_ab_default_opts(o);
  o->hash_bytes = 64ull << 20;
  o->threads = 2;
  o->tune.smp_min_free = 0; /* threads on the smallest positions too */
  return solver(g, o);
}

/* Two threads agree with the table as well. */
static void smp_compare(int rows, int cols, uint64_t count) {
  dab_geom g;
  dab_geom_init(&g, rows, cols, NULL);
  dab_retro *r = table(&g);
  if (!r) return;
  dab_ab_opts o;
  dab_ab *ab = two_threads(&g, &o);
  if (ab) {
    compare("default, 2 threads", ab, r, count);
    dab_ab_free(ab);
  }
  /* Same move order in both threads: they meet at the same nodes, so
  ** ABDADA defers moves (the path the rotation mostly avoids). */
  o.tune.smp_rotate = false;
  ab = solver(&g, &o);
  if (ab) {
    compare("2 threads, no rotation", ab, r, count);
    dab_ab_free(ab);
  }
  dab_retro_free(r);
}

static void random_positions(int rows, int cols, uint64_t full, uint64_t count) {
  dab_geom g;
  dab_geom_init(&g, rows, cols, NULL);
  dab_retro *r = table(&g);
  if (!r) return;
  /* the chain lemma on every position of 3x3, on random ones of bigger boards */
  TH_CHECK(chain_lemma(&g, r, g.nlines <= 24 ? 0 : full) > 0, "chain lemma %dx%d: no run with a junction end was met",
           rows, cols);
  for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
    if (variants[i].no_tt) continue;
    /* Without safe captures random positions of 27+ lines take seconds
    ** each: the single-rule variants run on 3x3 only. */
    if (i > 0 && g.nlines > 24) continue;
    dab_ab_opts o;
    /* the default's 10^6 positions share the default 1 GiB table: with
    ** 64 MiB this suite took 380 s instead of 125 s (positions near the
    ** empty board re-solve what their neighbours solved) */
    make_opts(&variants[i], &o, i == 0 ? 1ull << 30 : 64ull << 20);
    dab_ab *ab = solver(&g, &o);
    if (!ab) continue;
    /* default gets the full count (the 10^6); each single-rule
    ** variant a tenth of the smaller count */
    compare(variants[i].name, ab, r, i == 0 ? full : count / 10);
    dab_ab_free(ab);
  }
  /* The default rules without the border equivalence, without the
  ** decline rule, and without the loony bound, on every board. */
  for (int k = 0; k < 11; k++) {
    dab_ab_opts o;
    make_opts(&variants[0], &o, 64ull << 20);
    if (k == 0) o.tune.border_equiv = false;
    else if (k == 1) {
      if (g.nlines > 27) continue; /* exponential capture orders on 3x4 */
      o.tune.decline_rule = false;
    }
    else if (k == 2) o.tune.loony_bound = false;
    else if (k == 3) o.tune.chain_moves = false;
    else if (k == 4) o.tune.graph_keys = false;
    else if (k == 5) o.tune.etc = true, o.tune.etc_cached_only = false, o.tune.etc_min_free = 0;
    else if (k == 7) o.tune.hard_handouts = false;
    else if (k == 8) o.tune.etc_full_min_free = 14; /* both ETC kinds in one search */
    else if (k == 9) o.tune.keycache_bits = 10;     /* a key cache that thrashes */
    else if (k == 10) o.tune.junction_chains = false;
    else o.tune.etc = false;
    dab_ab *ab = solver(&g, &o);
    if (!ab) continue;
    static const char *const names[] = {"default, no border-equiv", "default, no decline rule",
                                       "default, no loony bound", "default, no chain moves",
                                       "default, symmetric keys only", "default, ETC on every child",
                                       "default, no ETC", "default, no hard-hearted handouts",
                                       "default, ETC on every child from 14 free lines",
                                       "default, a key cache of 1,024 entries",
                                       "default, no junction chains"};
    compare(names[k], ab, r, count / 10);
    dab_ab_free(ab);
  }
  dab_retro_free(r);
  smp_compare(rows, cols, count / 100);
}

/* Every move's value of the empty board against the table. */
static void analysis_matches(int rows, int cols) {
  dab_geom g;
  dab_geom_init(&g, rows, cols, NULL);
  dab_retro *r = table(&g);
  if (!r) return;
  dab_ab *ab = solver(&g, NULL);
  if (ab) {
    static dab_analysis a, b;
    dab_err err;
    TH_CHECK(dab_ab_analyze(ab, 0, &a, &err) == DAB_OK, "analyze: %s", err.msg);
    TH_CHECK(dab_retro_analyze(r, 0, &b, &err) == DAB_OK, "retro analyze: %s", err.msg);
    TH_CHECK(a.value == b.value && a.nmoves == b.nmoves, "%dx%d analysis value %d vs %d", rows, cols,
             a.value, b.value);
    for (int i = 0; i < a.nmoves && i < b.nmoves; i++)
      TH_CHECK(a.move[i] == b.move[i] && a.move_value[i] == b.move_value[i],
               "%dx%d move %d: ab %d, retro %d", rows, cols, a.move[i], a.move_value[i], b.move_value[i]);
    /* The principal variation plays optimal moves to the end. */
    int16_t pv[64];
    int n = dab_ab_pv(ab, 0, pv, 64);
    TH_CHECK(n == g.nlines, "pv has %d moves, board %d lines", n, g.nlines);
    uint64_t p = 0;
    for (int i = 0; i < n; i++) {
      int k = dab64_completes(&g, p, pv[i]);
      int v = dab_retro_value(r, p), c = dab_retro_value(r, p | 1ull << pv[i]);
      TH_CHECK((k ? k + c : -c) == v, "pv move %d (%d) is not optimal", i, pv[i]);
      p |= 1ull << pv[i];
    }
    dab_ab_free(ab);
  }
  dab_retro_free(r);
}

/* dab_ab_analyze_moves on two threads, with hooks: every move of random
** positions against the table; a child the known hook answers is never
** reported as solved, every other distinct child is, once. */
typedef struct hook_state {
  const dab_retro *r;
  uint64_t known_mask_seed; /* children "known" when a hash bit says so */
  int known_calls, solved_calls, wrong;
} hook_state;

static bool hook_known(void *ctx, uint64_t c, int *v) {
  hook_state *h = ctx;
  h->known_calls++;
  if (((c * 0x9e3779b97f4a7c15ull) ^ h->known_mask_seed) >> 63) return false;
  *v = dab_retro_value(h->r, c);
  return true;
}

static void hook_solved(void *ctx, uint64_t c, int v, uint64_t nodes, double seconds) {
  hook_state *h = ctx;
  (void)nodes, (void)seconds;
  h->solved_calls++;
  if (v != dab_retro_value(h->r, c)) h->wrong++;
}

static void threaded_analysis(int rows, int cols, int count) {
  dab_geom g;
  dab_geom_init(&g, rows, cols, NULL);
  dab_retro *r = table(&g);
  if (!r) return;
  dab_ab_opts o;
  dab_ab *ab = two_threads(&g, &o);
  uint64_t x = 0x5eed;
  int bad = 0, failed = 0, hook_bad = 0;
  for (int i = 0; ab && i < count; i++) {
    /* random play from the empty board, 0..nlines-1 moves */
    uint64_t p = 0;
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    int len = (int)((x >> 33) % (uint64_t)g.nlines);
    for (int m = 0; m < len; m++) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      uint64_t fr = g.all_lines & ~p;
      int k = (int)((x >> 33) % (uint64_t)__builtin_popcountll(fr));
      while (k--) fr &= fr - 1;
      p |= fr & -fr;
    }
    static dab_analysis a, b;
    dab_err err;
    hook_state h = {r, x, 0, 0, 0};
    dab_ab_move_hooks hooks = {hook_known, hook_solved, &h};
    int v = dab_retro_value(r, p);
    if (dab_ab_analyze_moves(ab, p, v, (i & 1) ? &hooks : NULL, &a, &err) != DAB_OK ||
        dab_retro_analyze(r, p, &b, &err) != DAB_OK) {
      failed++;
      continue;
    }
    bool same = a.value == b.value && a.nmoves == b.nmoves && a.nbest == b.nbest;
    for (int j = 0; same && j < a.nmoves; j++) same = a.move[j] == b.move[j] && a.move_value[j] == b.move_value[j];
    bad += !same;
    hook_bad += h.wrong || h.solved_calls > h.known_calls;
  }
  TH_CHECK(failed == 0, "%dx%d threaded analysis: %d failed", rows, cols, failed);
  TH_CHECK(bad == 0, "%dx%d threaded analysis: %d of %d positions disagree with the table", rows, cols, bad, count);
  TH_CHECK(hook_bad == 0, "%dx%d threaded analysis: %d positions with wrong hook calls", rows, cols, hook_bad);
  dab_ab_free(ab);
  dab_retro_free(r);
}

static void known_values(void) {
  /* 3x4 = 0 from the empty board, and the middle vertical lines 18, 23,
  ** 28 hold the tie while 0 (an edge line) loses 2 (known-values.md). */
  dab_geom g;
  dab_geom_init(&g, 3, 4, NULL);
  dab_ab *ab = solver(&g, NULL);
  if (!ab) return;
  int v = 99;
  dab_err err;
  TH_CHECK(dab_ab_solve(ab, 0, &v, NULL, NULL, &err) == DAB_OK && v == 0, "3x4 empty: %d", v);
  int c = 99;
  TH_CHECK(dab_ab_solve(ab, 1ull << 23, &c, NULL, NULL, &err) == DAB_OK && -c == 0, "3x4 move 23: %d", -c);
  TH_CHECK(dab_ab_solve(ab, 1ull << 0, &c, NULL, NULL, &err) == DAB_OK && -c == -2, "3x4 move 0: %d", -c);
  /* Bounds and cancellation: a one-node budget stops with valid bounds. */
  dab_ab_opts o;
  dab_ab_default_opts(&o);
  o.node_limit = 1000;
  o.hash_bytes = 1 << 20;
  dab_ab *small = solver(&g, &o);
  if (small) {
    int lo = 0, hi = 0;
    dab_status st = dab_ab_solve(small, 0, &v, &lo, &hi, &err);
    TH_CHECK(st == DAB_ECANCELED && lo <= 0 && hi >= 0 && lo >= -12 && hi <= 12,
             "node limit: status %d bounds [%d,%d]", st, lo, hi);
    dab_ab_free(small);
  }
  dab_ab_free(ab);
}

/* Random-position counts scale with DAB_AB_TEST_SCALE (default 1: 10^6
** positions of each of 3x3, 2x5 and 3x4 with the default solver, fewer
** with each variant; about two minutes on a quiet 2-core machine, 3 GiB peak).
** DAB_AB_EXACT runs only the default solver (bench/ab_exact.sh). */
/* Fail-soft null-window tests: each result is a true bound of the table's
** value, on the side the test says. */
static void failsoft_tests(int rows, int cols, int count) {
  dab_geom g;
  dab_geom_init(&g, rows, cols, NULL);
  dab_retro *r = table(&g);
  if (!r) return;
  dab_ab_opts o;
  dab_ab_default_opts(&o);
  o.hash_bytes = 24ull << 20; /* not a power of two of buckets */
  dab_ab *ab = solver(&g, &o);
  int bad = 0, decided_more = 0;
  for (int i = 0; ab && i < count; i++) {
    uint64_t p = random_position(&g, i % 3);
    int n = dab_ab_open_boxes(&g, p), v = r->value[p];
    int b = -n + (int)(rnd() % (uint64_t)(2 * n + 1));
    int fs;
    dab_err err;
    if (dab_ab_test_failsoft(ab, p, b, &fs, &err)) {
      bad++;
      continue;
    }
    if (fs >= b ? v < fs : v > fs) bad++;
    if (fs != b && fs != b - 1) decided_more++;
  }
  TH_CHECK(bad == 0, "%dx%d: %d fail-soft results that are not bounds", rows, cols, bad);
  TH_CHECK(decided_more > 0, "%dx%d: no fail-soft result went past its bound", rows, cols);
  dab_ab_free(ab);
  dab_retro_free(r);
}

/* The table takes any size, not only a power of two of buckets: every
** bucket is reachable, stored keys come back with their bounds, and a
** table walk finds each exactly once. */
static void table_any_size(void) {
  const uint64_t nb = 3000; /* buckets: not a power of two */
  const dab_tt_policy policies[] = {DAB_TT_WORK, DAB_TT_DIRECT};
  for (int pi = 0; pi < 2; pi++) {
    dab_tt tt;
    dab_err err;
    if (dab_tt_init(&tt, nb * sizeof(dab_tt_bucket) + 63, policies[pi], &err)) {
      TH_CHECK(0, "dab_tt_init: %s", err.msg);
      return;
    }
    TH_CHECK(tt.nbuckets == nb && dab_tt_capacity(&tt) == nb * DAB_TT_WAYS, "policy %d: %llu buckets, want %llu",
             pi, (unsigned long long)tt.nbuckets, (unsigned long long)nb);
    uint64_t lo = nb, hi = 0, state = 7;
    for (int i = 0; i < 100000; i++) {
      uint64_t b = dab_tt_index(&tt, th_splitmix64(&state));
      if (b < lo) lo = b;
      if (b > hi) hi = b;
    }
    TH_CHECK(lo < 10 && hi >= nb - 10 && hi < nb, "policy %d: buckets %llu..%llu of %llu", pi,
             (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)nb);
    const int n = 600;
    state = 11;
    for (int i = 0; i < n; i++) {
      uint64_t k = th_splitmix64(&state);
      dab_tt_store(&tt, k, (int)(k % 50) - 25, (int)(k % 50) - 20, -1, 1);
    }
    int found = 0, wrong = 0, walked = 0;
    state = 11;
    for (int i = 0; i < n; i++) {
      uint64_t k = th_splitmix64(&state);
      dab_tt_hit h;
      if (!dab_tt_probe(&tt, k, &h)) continue;
      found++;
      wrong += h.lower != (int)(k % 50) - 25 || h.upper != (int)(k % 50) - 20;
    }
    for (uint64_t slot = 0; slot < dab_tt_capacity(&tt); slot++) {
      uint64_t k;
      uint32_t check;
      dab_tt_hit h;
      int work;
      walked += dab_tt_read(&tt, slot, &k, &check, &h, &work);
    }
    /* 600 keys in 3000 4-way buckets: none overflows (a bucket holding 5
    ** has odds of 10^-5 here); one way per key (DIRECT) loses the keys
    ** that collide, about 2.5% */
    TH_CHECK(wrong == 0 && (pi == 0 ? found == n : found > n * 4 / 5) && walked == found,
             "policy %d: %d of %d keys found, %d with wrong bounds, %d walked", pi, found, n, wrong, walked);
    dab_tt_free(&tt);
  }
}

/* DAB_AB_EXACT="2x5=1000000,3x4=1000000": only the default solver on that
** many random positions of each board (bench/ab_exact.sh), instead of the
** suite.  Returns false when the variable is unset. */
static bool exact_only(void) {
  const char *spec = getenv("DAB_AB_EXACT");
  if (!spec || !*spec) return false;
  for (const char *s = spec; *s;) {
    int rows = 0, cols = 0;
    unsigned long long count = 0;
    int used = 0;
    if (sscanf(s, "%dx%d=%llu%n", &rows, &cols, &count, &used) != 3) {
      TH_CHECK(0, "DAB_AB_EXACT: bad entry at \"%s\" (want RxC=COUNT,...)", s);
      break;
    }
    dab_geom g;
    dab_geom_init(&g, rows, cols, NULL);
    dab_retro *r = table(&g);
    dab_ab *ab = r ? solver(&g, NULL) : NULL;
    if (ab) compare("default", ab, r, count);
    dab_ab_free(ab);
    dab_retro_free(r);
    s += used;
    if (*s == ',') s++;
  }
  return true;
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  san = getenv("DAB_TEST_SAN") && atoi(getenv("DAB_TEST_SAN"));
  if (exact_only()) return TH_REPORT("test_ab");
  if (getenv("DAB_TEST_TSAN") && atoi(getenv("DAB_TEST_TSAN"))) {
    /* Under ThreadSanitizer (tests/run.sh --tsan): only what runs threads,
    ** small: lazy SMP on one test, and the analysis threads with helpers. */
    threaded_analysis(2, 4, 30);
    threaded_analysis(3, 3, 10);
    smp_compare(3, 3, 300);
    return TH_REPORT("test_ab");
  }
  double scale = getenv("DAB_AB_TEST_SCALE") ? atof(getenv("DAB_AB_TEST_SCALE")) : 1.0;
  if (san) scale /= 20;
  table_any_size();
  exhaustive(2, 3);
  if (!san) exhaustive(1, 6);
  /* 10^6 random positions of each board with the default solver: about
  ** 45 s, most of it 3x4 (the table build included). */
  uint64_t full = (uint64_t)(1000000 * scale);
  random_positions(3, 3, full, (uint64_t)(100000 * scale));
  analysis_matches(3, 3);
  threaded_analysis(3, 3, san ? 20 : 400);
  threaded_analysis(2, 4, san ? 20 : 400);
  failsoft_tests(3, 3, san ? 200 : 5000);
  if (!san) {
    random_positions(2, 5, full, (uint64_t)(50000 * scale));
    random_positions(3, 4, full, (uint64_t)(2000 * scale));
    known_values();
  }
  return TH_REPORT("test_ab");
}
