/*
** ab_dfpn.c: depth-first proof-number search (df-pn) for one null-window
** test "value(p) >= t?", on the alpha-beta solver's rules and table.
** See Copyright Notice in README.md
*/
#include "solver/ab_moves.h"

/*
** Every node asks "does the player to move get at least t?".  A move that
** completes k boxes leaves the same player to move with the question
** t - k; any other move hands over, and the opponent's question is
** 1 - t, whose disproof is this node's proof.  So in negamax form
** (Nagai 2002) a node's proof number is the least of its children's
** (same player: proof, opponent: disproof) numbers and its disproof
** number their sum.  Thresholds follow Kishimoto and Mueller, with the
** 1 + epsilon trick of Pawlewicz and Lew for the best child's.
**
** The rules are the search's: safe captures are taken at once (they
** shift t), a capturable box with no safe capture gives every capture
** and one decline, quiet runs get one opening, moves whose loony bound
** cannot reach t are not tried, and simple loony endgames are leaves.
** Nodes with fewer than dfpn_leaf_free free lines are answered by the
** alpha-beta search itself.  A settled node is stored in the solver's
** table as a bound (proved: lower t; disproved: upper t - 1), so the two
** searches share their results; unsettled proof and disproof numbers
** live in a table of their own, keyed by position and t.
*/

#define PN_INF (1u << 30)

typedef struct dfpn_entry {
  uint64_t key;
  uint32_t check;
  int32_t t;                  /* INT32_MIN: empty */
  uint32_t pn, dn;
} dfpn_entry;

typedef struct dfpn {
  ab_worker *w;
  dab_ab *ab;
  dfpn_entry *table;
  int shift;
  double eps;
  int leaf_free;
  uint64_t mids;
} dfpn;

/* A child: its position after the move and its safe captures, the
** question its player to move is asked, and its numbers. */
typedef struct dfpn_kid {
  uint64_t p, key;
  uint32_t check, pn, dn;
  int16_t t;
  int8_t nrem;
  bool same;                  /* the same player is to move there */
  bool keyed;                 /* key/check hold its table key */
} dfpn_kid;

static inline dfpn_entry *slot(dfpn *s, uint64_t key, uint32_t check, int t) {
  uint64_t h = (key ^ check ^ (uint64_t)(t + 256) * 0xc2b2ae3d27d4eb4full) * 0x9e3779b97f4a7c15ull;
  return &s->table[h >> s->shift];
}

/* Takes p's safe captures as the search does; *nrem and *gain count them. */
static uint64_t take_safe(const dab_ab *ab, uint64_t p, int *nrem, int *gain) {
  const dab_geom *g = &ab->g;
  if (!ab->o.tune.safe_capture) return p;
  for (;;) {
    uint64_t three = dab64_three_sided(g, p);
    bool took = false;
    for (uint64_t t = three; t && !took; t &= t - 1) {
      int b = __builtin_ctzll(t);
      int l = __builtin_ctzll(g->box_mask[b] & ~p);
      int o = other_box(g, l, b);
      int os = o >= 0 ? dab64_sides(g, p, o) : -1;
      if (os != 2) {
        int k = os == 3 ? 2 : 1;
        p |= 1ull << l;
        *nrem -= k, *gain += k;
        took = true;
      }
    }
    if (!took) return p;
  }
}

/* The numbers of a child met now: settled by its open boxes or by the
** table, else the table's working numbers, else 1 and 1. */
static void kid_init(dfpn *s, dfpn_kid *c) {
  dab_ab *ab = s->ab;
  const int nfree = dab_popcount64(ab->g.all_lines & ~c->p);
  c->keyed = false;
  /* a proof needs one move, a disproof every move (with dfpn_mobility) */
  c->pn = 1, c->dn = ab->o.tune.dfpn_mobility ? (uint32_t)(nfree > 1 ? nfree : 1) : 1;
  if (c->t <= -c->nrem) { c->pn = 0, c->dn = PN_INF; return; }
  if (c->t > c->nrem) { c->pn = PN_INF, c->dn = 0; return; }
  if (ab->o.tune.no_tt || nfree < ab->o.tune.tt_min_free) return;
  pos_key k;
  position_key(ab, s->w->keycache, c->p, &k);
  s->w->keys += k.labelled;
  c->key = k.key, c->check = k.check, c->keyed = true;
  dab_tt_hit hit;
  s->w->probes++;
  if (dab_tt_probe_checked(&ab->tt, k.key, k.check, &hit)) {
    s->w->hits++;
    if (hit.lower >= c->t) { c->pn = 0, c->dn = PN_INF; return; }
    if (hit.upper < c->t) { c->pn = PN_INF, c->dn = 0; return; }
  }
  if (nfree < s->leaf_free) return;
  dfpn_entry *e = slot(s, k.key, k.check, c->t);
  if (e->t == c->t && e->key == k.key && e->check == k.check) c->pn = e->pn, c->dn = e->dn;
}

/* Adds the child reached by drawing line m of p (nrem open boxes), where
** the player to move is asked for at least t. */
static void add_kid(dfpn *s, uint64_t p, int nrem, int t, int m, dfpn_kid *c) {
  int k = dab64_completes(&s->ab->g, p, m), gain = 0;
  nrem -= k;
  c->same = k > 0;
  c->p = take_safe(s->ab, p | 1ull << m, &nrem, &gain);
  c->nrem = (int8_t)nrem;
  /* same player: k + gain + v >= t; the opponent: gain + v >= 1 - t */
  c->t = (int16_t)(c->same ? t - k - gain : 1 - t - gain);
  kid_init(s, c);
}

static inline uint32_t sat_add(uint32_t a, uint32_t b) {
  uint64_t x = (uint64_t)a + b;
  return x >= PN_INF ? (a >= PN_INF || b >= PN_INF ? PN_INF : PN_INF - 1) : (uint32_t)x;
}

/* Cancellation and the node limit, every 4096 nodes. */
static bool stopped(dfpn *s) {
  ab_worker *w = s->w;
  if (w->stop) return true;
  if ((++w->nodes & 4095) == 0) {
    dab_ab *ab = s->ab;
    if ((ab->o.cancel && *ab->o.cancel) ||
        (ab->o.node_limit && w->node_base + w->nodes * (uint64_t)w->drv->threads > ab->o.node_limit) ||
        flag_get(&w->drv->stop)) {
      flag_set(&w->drv->stop_reason, 2);
      flag_set(&w->drv->stop, 1);
      w->stop = 1;
    }
  }
  return w->stop;
}

/*
** Multiple-iterative deepening at node n (a position past its safe
** captures, nrem open boxes, question t), until its proof number reaches
** thpn or its disproof number thdn.  n->pn, n->dn: its numbers on entry
** (from its parent's look-up), updated on return.
*/
static void mid(dfpn *s, dfpn_kid *n, uint32_t thpn, uint32_t thdn, int ply) {
  dab_ab *ab = s->ab;
  const dab_geom *g = &ab->g;
  ab_worker *w = s->w;
  if (stopped(s)) return;
  s->mids++;
  const uint64_t p = n->p, nodes0 = w->nodes;
  const int t = n->t, nrem = n->nrem;
  const int nfree = dab_popcount64(g->all_lines & ~p);
  if (nfree < s->leaf_free) {
    /* a small node: one null-window search (it stores its own bounds) */
    int v = ab_search(w, p, nrem, t - 1, t, ply, false);
    if (w->stop) return;
    n->pn = v >= t ? 0 : PN_INF, n->dn = v >= t ? PN_INF : 0;
    return;
  }
  uint64_t three = dab64_three_sided(g, p);
  const dab64_sides4 sides = dab64_side_vectors(g, p);
  int sle;
  if (!three && ab->o.tune.sle && ab_sle_leaf(ab, p, sides, &sle)) {
    w->sle++;
    n->pn = sle >= t ? 0 : PN_INF, n->dn = sle >= t ? PN_INF : 0;
    if (n->keyed) dab_tt_store_checked(&ab->tt, n->key, n->check, sle, sle, -1, 1);
    return;
  }
  dfpn_kid kid[64];
  int nk = 0;
  if (three) {
    /* no safe capture (take_safe took them): every capture, then the
    ** decline of the first capturable box, as the search does */
    int dline = -1, dother = -1;
    for (uint64_t b3 = three; b3; b3 &= b3 - 1) {
      int b = __builtin_ctzll(b3);
      int l = __builtin_ctzll(g->box_mask[b] & ~p);
      if (dline < 0) dline = l, dother = other_box(g, l, b);
      add_kid(s, p, nrem, t, l, &kid[nk++]);
    }
    if (ab->o.tune.decline_rule && dother >= 0) {
      int d = __builtin_ctzll(g->box_mask[dother] & ~p & ~(1ull << dline));
      add_kid(s, p, nrem, t, d, &kid[nk++]);
    }
  } else {
    ab_moves ml;
    ab_move_list(ab, p, 0, dab64_two_sided_v(sides), -1, &ml);
    for (int i = 0; i < ml.n; i++) {
      int m = ml.mv[i];
      /* a loony opening worth at most u < t cannot prove this node */
      if ((ml.loony_lines >> m & 1) && ml.loony[m] < t) {
        w->loony++;
        continue;
      }
      add_kid(s, p, nrem, t, m, &kid[nk++]);
    }
  }
  uint32_t pn, dn;
  for (;;) {
    /* this node's numbers; the child with the least proof contribution
    ** and the runner-up's */
    int best = -1;
    uint32_t a1 = PN_INF, a2 = PN_INF;
    pn = PN_INF, dn = 0;
    for (int i = 0; i < nk; i++) {
      uint32_t a = kid[i].same ? kid[i].pn : kid[i].dn, b = kid[i].same ? kid[i].dn : kid[i].pn;
      dn = sat_add(dn, b);
      if (a < a1) a2 = a1, a1 = a, best = i;
      else if (a < a2) a2 = a;
    }
    pn = a1;
    if (pn == 0 || dn == 0 || pn >= thpn || dn >= thdn) break;
    dfpn_kid *c = &kid[best];
    const uint32_t b = c->same ? c->dn : c->pn;
    uint64_t cpn = (uint64_t)(a2 >= PN_INF ? PN_INF : a2 * (1.0 + s->eps) + 1);
    if (cpn > thpn) cpn = thpn;
    uint64_t cdn = (uint64_t)thdn - dn + b;
    if (cdn > PN_INF) cdn = PN_INF;
    if (c->same) mid(s, c, (uint32_t)cpn, (uint32_t)cdn, ply + 1);
    else mid(s, c, (uint32_t)cdn, (uint32_t)cpn, ply + 1);
    if (w->stop) return;
  }
  n->pn = pn, n->dn = dn;
  if (!n->keyed) return;
  if (pn == 0 || dn == 0) {
    int work = 64 - __builtin_clzll((w->nodes - nodes0) | 1);
    if (pn == 0) dab_tt_store_checked(&ab->tt, n->key, n->check, t, 127, -1, work);
    else dab_tt_store_checked(&ab->tt, n->key, n->check, -128, t - 1, -1, work);
  } else {
    dfpn_entry *e = slot(s, n->key, n->check, t);
    e->key = n->key, e->check = n->check, e->t = t, e->pn = pn, e->dn = dn;
  }
}

int ab_dfpn_test(ab_worker *w, uint64_t p, int nrem, int beta) {
  dab_ab *ab = w->ab;
  const int bits = ab->o.tune.dfpn_bits ? ab->o.tune.dfpn_bits : 22;
  dfpn s = {.w = w, .ab = ab, .shift = 64 - bits, .eps = ab->o.tune.dfpn_eps_pct / 100.0,
            .leaf_free = ab->o.tune.dfpn_leaf_free};
  s.table = malloc(sizeof *s.table << bits);
  if (!s.table) return ab_search(w, p, nrem, beta - 1, beta, 0, false);
  for (size_t i = 0; i < (size_t)1 << bits; i++) s.table[i].t = INT32_MIN;
  int gain = 0;
  dfpn_kid root = {0};
  root.p = take_safe(ab, p, &nrem, &gain);
  root.nrem = (int8_t)nrem;
  root.t = (int16_t)(beta - gain);
  kid_init(&s, &root);
  if (root.pn && root.dn) mid(&s, &root, PN_INF, PN_INF, 0);
  free(s.table);
  return root.pn == 0 ? beta : beta - 1;
}
