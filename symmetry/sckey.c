/*
** sckey.c: canonical Strings-and-Coins graph keys by colour refinement
** and individualisation (contracts in sckey.h).
** See Copyright Notice in README.md
*/
#include <stdint.h>
#include <string.h>
/* Inlined: one short hash per key (see tt.c). */
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "game/hashmix.h"
#include "game/isa.h"
#include "game/sc.h"
#include "symmetry/sckey.h"

/* Built twice (game/isa.h, the Makefile's ISA_SRC): a key spends its time
** in pext, pdep and popcount, and the portable object's check per call
** cost 24% (docs/PERFORMANCE.md).  dab_sckey64 (in the base object) calls
** the variant the CPU runs fast. */
void dab_sckey64_base(const dab_geom *g, uint64_t p, dab_sckey *out);
void dab_sckey64_v3(const dab_geom *g, uint64_t p, dab_sckey *out);

#define ENC_WORDS ((DAB_SCKEY_MAX_COINS + 1) / 2)

/* The graph being keyed: coin i's strings go to nbr[i][0..deg[i]) (coin
** indices in box order) and to the ground ground[i] times. */
typedef struct sc_graph {
  int n;
  uint8_t deg[DAB_SCKEY_MAX_COINS], ground[DAB_SCKEY_MAX_COINS];
  uint8_t nbr[DAB_SCKEY_MAX_COINS][4];
  /* For refinement: all four strings of each coin as indices into the
  ** colour-term array: a coin, n (no string: term 0) or n + 1 (ground).
  ** Filled only where they are read (canon_component). */
  uint8_t slot[DAB_SCKEY_MAX_COINS][4];
  uint8_t box[DAB_SCKEY_MAX_COINS];
} sc_graph;

/* The four refinement terms of a coin with d strings to coins (their ends
** in nbr, bytes beyond d ignored) and gd to the ground, for a graph of n
** coins: the d coins, gd times the ground (n + 1), then none (n).  Built
** with byte masks: which of the three a slot takes is random to a branch
** predictor (the ternary form was 8% of a key). */
static inline void fill_slots(uint8_t *slot, const uint8_t *nbr, unsigned d, unsigned gd, int n) {
  uint32_t nb, out;
  memcpy(&nb, nbr, 4);
  uint64_t below_d = (1ull << (8 * d)) - 1, below_g = (1ull << (8 * (d + gd))) - 1;
  out = (uint32_t)((nb & below_d) | (0x01010101ull * (uint64_t)(n + 1) & below_g & ~below_d) |
                   (0x01010101ull * (uint64_t)n & ~below_g));
  memcpy(slot, &out, 4);
}

/* Number of distinct values of c[0..n) (n <= 32): an open-addressed set of
** 256 slots indexed by the top bits, which refinement's colours spread
** evenly (they are products of odd constants); a probe rarely goes past
** its first slot (with 64 slots, collisions cost 2-5% of a key in
** mispredicted branches).  The O(n^2) branch-free count it replaces was a
** fifth of a key's instructions; a vectorised O(n^2) count is slower still. */
static int distinct(const uint64_t *c, int n) {
  uint64_t slot[256], used[4] = {0, 0, 0, 0};
  int d = 0;
  for (int i = 0; i < n; i++) {
    unsigned h = (unsigned)(c[i] >> 56);
    while ((used[h >> 6] >> (h & 63) & 1) && slot[h] != c[i]) h = (h + 1) & 255;
    d += (int)(~used[h >> 6] >> (h & 63) & 1);
    used[h >> 6] |= 1ull << (h & 63);
    slot[h] = c[i];
  }
  return d;
}

/* Colour refinement until the partition is stable.  A neighbour multiset
** is hashed as a sum of mixed colours (order-free), the ground strings as
** a count.  Every step is a function of the graph's isomorphism class and
** the incoming colours, so the result is invariant. */
static void refine(const sc_graph *gr, uint64_t *c, int cells) {
  uint64_t t[DAB_SCKEY_MAX_COINS + 2];
  int n = gr->n;
  t[n] = 0;
  t[n + 1] = 0x2545f4914f6cdd1dull;
  for (;;) {
    for (int i = 0; i < n; i++) t[i] = (c[i] ^ (c[i] >> 29)) * 0xbf58476d1ce4e5b9ull;
    for (int i = 0; i < n; i++) {
      const uint8_t *sl = gr->slot[i];
      uint64_t x = (c[i] * 0x94d049bb133111ebull) ^ (t[sl[0]] + t[sl[1]] + t[sl[2]] + t[sl[3]]);
      c[i] = (x ^ (x >> 31)) * 0x9e3779b97f4a7c15ull;
    }
    int d = distinct(c, n);
    if (d == cells || d == n) return;
    cells = d;
  }
}

/* Encoding of the graph under order[] (canonical index -> coin): per
** coin, the set of its neighbours' canonical indices as bits 0..25 and its
** ground strings in bits 26..28; two coins per word. */
static void encode(const sc_graph *gr, const uint8_t *order, uint64_t *enc) {
  uint8_t pos[DAB_SCKEY_MAX_COINS];
  for (int i = 0; i < gr->n; i++) pos[order[i]] = (uint8_t)i;
  memset(enc, 0, (size_t)(gr->n + 1) / 2 * sizeof *enc);
  for (int i = 0; i < gr->n; i++) {
    int v = order[i];
    uint64_t code = (uint64_t)gr->ground[v] << 26;
    for (int j = 0; j < gr->deg[v]; j++) code |= 1ull << pos[gr->nbr[v][j]];
    enc[i / 2] |= code << (32 * (i % 2));
  }
}

/*
** Canonical order of gr's coins into order[] (canonical index -> coin):
** refine; while colours tie, individualise the first coin of the first
** tied cell and refine again.
**
** Only the first coin is tried, not every coin of the cell (the exact
** individualisation-refinement scheme keeps the least encoding over all
** choices): colour refinement leaves coins tied almost only when an
** automorphism maps one to the other, and then every choice gives the
** same encoding.  Trying each cost 15% more time and merged no more
** positions, on the 3x4 and 2x6 searches and on every 2x3, 3x2 and 1x6
** position (tests/test_sckey.c).  Where a tie is not a symmetry, the
** position still gets a valid key, which may only miss transpositions.
*/
static void canonical_order(const sc_graph *gr, uint64_t *c, uint8_t *order) {
  int n = gr->n, cells = 1;
  for (;;) {
    refine(gr, c, cells);
    /* Order coins by colour.  The sort runs on colour-with-index words
    ** (low 5 bits replaced by the coin): ties are then runs of equal high
    ** bits, and only a tied run's inner order depends on the labelling. */
    int64_t w[DAB_SCKEY_MAX_COINS];
    uint64_t sorted[DAB_SCKEY_MAX_COINS];
    /* Signed words (top bit flipped) order as the unsigned ones, and the
    ** words are padded to a fixed 32 with the largest, which no coin's rank
    ** counts: the counting loop then vectorises (AVX2 64-bit compares,
    ** which are signed); it was about 9% of a 4x5 key. */
    for (int i = 0; i < DAB_SCKEY_MAX_COINS; i++)
      w[i] = i < n ? (int64_t)(((c[i] & ~31ull) | (uint64_t)i) ^ (1ull << 63)) : INT64_MAX;
    for (int i = 0; i < n; i++) { /* rank by counting: branch-free */
      int64_t r = 0;
      for (int j = 0; j < DAB_SCKEY_MAX_COINS; j++) r += w[j] < w[i];
      sorted[r] = (uint64_t)w[i] ^ (1ull << 63);
    }
    int tied = -1;
    for (int i = 0; i < n; i++) {
      order[i] = (uint8_t)(sorted[i] & 31);
      if (tied < 0 && i > 0 && (sorted[i] >> 5) == (sorted[i - 1] >> 5)) tied = order[i - 1];
    }
    if (tied < 0) return;
    cells = distinct(c, n) + 1;
    c[tied] = dab_mix64(c[tied] ^ 0xd6e8feb86659fd93ull);
  }
}

/* One connected component (coins joined by strings; the ground does not
** join), canonicalised on its own. */
typedef struct sc_component {
  int size;
  uint64_t enc[ENC_WORDS];                 /* its encoding, local indices */
  uint8_t order[DAB_SCKEY_MAX_COINS];      /* canonical order, global coins */
} sc_component;

static int component_cmp(const sc_component *x, const sc_component *y) {
  if (x->size != y->size) return x->size < y->size ? -1 : 1;
  return memcmp(x->enc, y->enc, (size_t)(x->size + 1) / 2 * sizeof x->enc[0]);
}

/* Canonicalises gr (its slots filled) into out; coins map back through
** glob (NULL: gr's own numbering). */
static void canon_graph(const sc_graph *gr, const uint8_t *glob, sc_component *out) {
  int k = gr->n;
  uint64_t c[DAB_SCKEY_MAX_COINS];
  uint8_t order[DAB_SCKEY_MAX_COINS];
  for (int i = 0; i < k; i++) c[i] = (uint64_t)(gr->deg[i] * 8 + gr->ground[i]);
  canonical_order(gr, c, order);
  encode(gr, order, out->enc);
  for (int i = 0; i < k; i++) out->order[i] = glob ? glob[order[i]] : order[i];
}

/*
** A chain or a loop of coins (no coin with more than two neighbours: the
** common components after the first moves) needs no refinement: walked
** from one end (a loop: from any coin, either way round) it is the
** sequence of its coins' ground strings, and the least of those walks is
** canonical (it depends on the graph only; tied walks are automorphic and
** encode alike).  Colour refinement would need about k/2 rounds for it.
** RETURN: false (out untouched) when the component is not one.
*/
static bool canon_chain(const sc_graph *gr, const uint8_t *mem, int k, sc_component *out) {
  int start = -1, edges2 = 0;
  for (int i = 0; i < k; i++) {
    int d = gr->deg[mem[i]];
    if (d > 2) return false;
    edges2 += d;
    if (d < 2 && start < 0) start = mem[i];
  }
  bool loop = edges2 == 2 * k; /* connected: k edges with all degrees 2 */
  if (!loop && edges2 != 2 * (k - 1)) return false;
  if (loop) start = mem[0];
  uint8_t walk[DAB_SCKEY_MAX_COINS], g[DAB_SCKEY_MAX_COINS];
  for (int i = 0, prev = -1, cur = start; i < k; i++) {
    walk[i] = (uint8_t)cur;
    g[i] = gr->ground[cur];
    int next = gr->deg[cur] == 2 && gr->nbr[cur][0] == prev ? gr->nbr[cur][1] : gr->nbr[cur][0];
    prev = cur, cur = next;
  }
  /* the least ground sequence over the walks: a chain has two (from
  ** either end), a loop 2k (from any coin, either way round) */
  int best_start = 0, best_dir = 1;
  for (int s = 0; s < (loop ? k : 1); s++)
    for (int dir = -1; dir <= 1; dir += 2) {
      int s0 = loop ? s : dir == 1 ? 0 : k - 1, cmp = 0;
      for (int i = 0; i < k && !cmp; i++)
        cmp = g[(s0 + dir * i + k) % k] - g[(best_start + best_dir * i + k) % k];
      if (cmp < 0) best_start = s0, best_dir = dir;
    }
  memset(out->enc, 0, (size_t)(k + 1) / 2 * sizeof out->enc[0]);
  for (int i = 0; i < k; i++) {
    int v = walk[(best_start + best_dir * i + k) % k];
    out->order[i] = (uint8_t)v;
    uint64_t code = (uint64_t)gr->ground[v] << 26;
    if (i > 0 || loop) code |= 1ull << (i > 0 ? i - 1 : k - 1);
    if (i < k - 1 || loop) code |= 1ull << (i < k - 1 ? i + 1 : 0);
    out->enc[i / 2] |= code << (32 * (i % 2));
  }
  return true;
}

/* Canonicalises the component made of global coins mem[0..k) (increasing). */
static void canon_component(sc_graph *gr, const uint8_t *mem, int k, sc_component *out) {
  out->size = k;
  if (k == 1) { /* a lone coin: only its ground strings */
    out->enc[0] = (uint64_t)gr->ground[mem[0]] << 26;
    out->order[0] = mem[0];
    return;
  }
  if (canon_chain(gr, mem, k, out)) return;
  if (k == gr->n) { /* the whole graph: no copy; its slots are filled only
                       here, the one case that reads them */
    for (int i = 0; i < k; i++) fill_slots(gr->slot[i], gr->nbr[i], gr->deg[i], gr->ground[i], k);
    canon_graph(gr, NULL, out);
    return;
  }
  sc_graph lg;
  uint8_t local[DAB_SCKEY_MAX_COINS];
  for (int i = 0; i < k; i++) local[mem[i]] = (uint8_t)i;
  lg.n = k;
  for (int i = 0; i < k; i++) {
    int v = mem[i], d = gr->deg[v];
    lg.deg[i] = (uint8_t)d;
    lg.ground[i] = gr->ground[v];
    for (int j = 0; j < d; j++) lg.nbr[i][j] = local[gr->nbr[v][j]];
    fill_slots(lg.slot[i], lg.nbr[i], (unsigned)d, lg.ground[i], k);
  }
  canon_graph(&lg, mem, out);
}

void DAB_ISA_FN(dab_sckey64)(const dab_geom *g, uint64_t p, dab_sckey *out) {
  sc_graph gr;
  /* Box-space bit vectors (board.h): a box is a coin while a side is
  ** free; across a free side lies the box delta[s] away, or the ground
  ** when that side is on the edge.  Branch-free: which sides are free is
  ** random to the predictor. */
  dab64_sides4 v = dab64_side_vectors(g, p);
  const uint64_t open = ~dab64_complete_v(v) & dab64_all_boxes(g);
  const uint64_t free_side[4] = {~v.top & open, ~v.bottom & open, ~v.left & open, ~v.right & open};
  const int delta[4] = {-g->cols, g->cols, -1, 1};
  uint8_t idx[64];
  memset(idx, 0, sizeof idx);
  int n = 0;
  for (uint64_t t = open; t; t &= t - 1) {
    int b = __builtin_ctzll(t);
    idx[b] = (uint8_t)n;
    gr.box[n++] = (uint8_t)b;
  }
  gr.n = n;
  for (int i = 0; i < n; i++) {
    int b = gr.box[i];
    unsigned d = 0, gd = 0;
    for (int s = 0; s < 4; s++) {
      unsigned f = (unsigned)(free_side[s] >> b) & 1, e = (unsigned)(g->edge_boxes[s] >> b) & 1;
      unsigned inner = f & ~e;
      uint8_t o = idx[(b + delta[s]) & 63];
      gd += f & e;
      gr.nbr[i][d] = o; /* kept only when inner: d advances */
      d += inner;
    }
    gr.deg[i] = (uint8_t)d;
    gr.ground[i] = (uint8_t)gd;
  }
  out->ncoins = n;
  memset(out->index_of, -1, sizeof out->index_of);
  if (n == 0) {
    out->key = 0x5ca1ab1e;
    out->check = 0;
    return;
  }
  /* Components, each canonicalised alone, then sorted: identical
  ** components (common: lone coins, short chains) cost nothing extra,
  ** where one search over the whole graph would try their permutations. */
  sc_component comp[DAB_SCKEY_MAX_COINS];
  sc_component *sorted[DAB_SCKEY_MAX_COINS];
  int ncomp = 0;
  /* a string between two coins, by the side it leaves from */
  uint64_t joined[4];
  dab64_joined(g, v, open, joined);
  uint64_t left = open;
  while (left) {
    /* flood fill in box space from the lowest box left (a walk of coin
    ** adjacency lists cost a branch per coin) */
    uint64_t x = dab64_flood(g, left & -left, joined);
    left &= ~x;
    uint32_t cm = (uint32_t)dab_pext64(x, open);
    uint8_t mem[DAB_SCKEY_MAX_COINS];
    int k = 0;
    for (uint32_t t = cm; t; t &= t - 1) mem[k++] = (uint8_t)__builtin_ctz(t);
    canon_component(&gr, mem, k, &comp[ncomp]);
    sorted[ncomp] = &comp[ncomp];
    for (int j = ncomp; j > 0 && component_cmp(sorted[j], sorted[j - 1]) < 0; j--) {
      sc_component *t = sorted[j];
      sorted[j] = sorted[j - 1];
      sorted[j - 1] = t;
    }
    ncomp++;
  }
  /* The hashed description: the component sizes in sorted order (a byte
  ** each), then each component's own encoding.  It fixes the graph up to
  ** isomorphism as the whole graph's encoding would, without encoding
  ** the graph a second time. */
  uint64_t desc[DAB_SCKEY_MAX_COINS / 8 + DAB_SCKEY_MAX_COINS];
  uint8_t *sizes = (uint8_t *)desc;
  size_t words = (size_t)(ncomp + 7) / 8;
  memset(desc, 0, words * sizeof desc[0]);
  int at = 0;
  for (int i = 0; i < ncomp; i++) {
    const sc_component *c = sorted[i];
    sizes[i] = (uint8_t)c->size;
    size_t w = (size_t)(c->size + 1) / 2;
    memcpy(desc + words, c->enc, w * sizeof desc[0]);
    words += w;
    for (int j = 0; j < c->size; j++) {
      int b = gr.box[c->order[j]];
      out->box_of[at] = (uint8_t)b;
      out->index_of[b] = (int8_t)at++;
    }
  }
  XXH128_hash_t h = XXH3_128bits_withSeed(desc, words * sizeof desc[0], DAB_SCKEY_VERSION);
  out->key = h.low64;
  out->check = h.high64;
}

#ifndef DAB_ISA_V3 /* the rest once, in the base object */
void dab_sckey64(const dab_geom *g, uint64_t p, dab_sckey *out) { DAB_ISA_CALL(dab_sckey64, g, p, out); }

int dab_sckey_edge(const dab_geom *g, const dab_sckey *k, int m) {
  int b0 = g->line_box[m][0], b1 = g->line_box[m][1];
  int a = b0 >= 0 ? k->index_of[b0] : DAB_SCKEY_GROUND;
  int b = b1 >= 0 ? k->index_of[b1] : DAB_SCKEY_GROUND;
  if (a > b) {
    int t = a;
    a = b;
    b = t;
  }
  return a * 32 + b;
}

void dab_sckey_canon_component(const uint32_t *code, int n, uint32_t *enc, uint8_t *order) {
  sc_graph gr;
  gr.n = n;
  for (int i = 0; i < n; i++) {
    uint32_t set = code[i] & DAB_SCKEY_NBR_MASK;
    int d = 0;
    for (uint32_t t = set; t && d < 4; t &= t - 1) gr.nbr[i][d++] = (uint8_t)__builtin_ctz(t);
    gr.deg[i] = (uint8_t)d;
    gr.ground[i] = (uint8_t)(code[i] >> 26);
    gr.box[i] = (uint8_t)i;
  }
  uint8_t mem[DAB_SCKEY_MAX_COINS];
  for (int i = 0; i < DAB_SCKEY_MAX_COINS; i++) mem[i] = (uint8_t)i;
  sc_component out;
  canon_component(&gr, mem, n, &out);
  for (int i = 0; i < n; i++) enc[i] = (uint32_t)(out.enc[i / 2] >> (32 * (i % 2)));
  if (order)
    for (int i = 0; i < n; i++) order[i] = out.order[i];
}

int dab_sckey_split64(const dab_geom *g, uint64_t p, uint32_t *code, uint8_t *box_of, int *start,
                      int8_t *comp_of) {
  int8_t idx[64];
  int ncomp = 0, at = 0;
  for (int b = 0; b < g->nboxes; b++) comp_of[b] = -1;
  for (int b0 = 0; b0 < g->nboxes; b0++) {
    if (comp_of[b0] >= 0 || dab64_sides(g, p, b0) == 4) continue;
    /* breadth-first from b0: coins in the order met */
    int head = at;
    start[ncomp] = at;
    comp_of[b0] = (int8_t)ncomp;
    idx[b0] = (int8_t)(at - start[ncomp]);
    box_of[at++] = (uint8_t)b0;
    while (head < at) {
      int b = box_of[head++];
      for (int k = 0; k < 4; k++) {
        int m = g->box_line[b][k];
        if (p >> m & 1) continue;
        int o = dab_sc_across(g, b, m);
        if (o < 0 || comp_of[o] >= 0) continue;
        comp_of[o] = (int8_t)ncomp;
        idx[o] = (int8_t)(at - start[ncomp]);
        box_of[at++] = (uint8_t)o;
      }
    }
    for (int i = start[ncomp]; i < at; i++) {
      int b = box_of[i];
      uint32_t c = 0;
      for (int k = 0; k < 4; k++) {
        int m = g->box_line[b][k];
        if (p >> m & 1) continue;
        int o = dab_sc_across(g, b, m);
        c += o < 0 ? 1u << 26 : 1u << idx[o];
      }
      code[i] = c;
    }
    ncomp++;
  }
  start[ncomp] = at;
  return ncomp;
}

int dab_sckey_line(const dab_geom *g, const dab_sckey *k, uint64_t p, int code) {
  int a = code / 32, b = code % 32;
  if (a >= k->ncoins) return -1;
  int box = k->box_of[a];
  for (int s = 0; s < 4; s++) {
    int m = g->box_line[box][s];
    if (p >> m & 1) continue;
    int o = g->line_box[m][0] == box ? g->line_box[m][1] : g->line_box[m][0];
    int ob = o < 0 ? DAB_SCKEY_GROUND : k->index_of[o];
    if (ob == b) return m;
  }
  return -1;
}
#endif
