/*
** sckey.c: canonical Strings-and-Coins graph keys by colour refinement
** and individualisation (contracts in sckey.h).
** See Copyright Notice in README.md
*/
#include <string.h>
#include <xxhash.h>
#include "hashmix.h"
#include "symmetry/sckey.h"

#define ENC_WORDS ((DAB_SCKEY_MAX_COINS + 1) / 2)

/* The graph being keyed: coin i's strings go to nbr[i][0..deg[i]) (coin
** indices in box order) and to the ground ground[i] times. */
typedef struct sc_graph {
  int n;
  uint8_t deg[DAB_SCKEY_MAX_COINS], ground[DAB_SCKEY_MAX_COINS];
  uint8_t nbr[DAB_SCKEY_MAX_COINS][4];
  /* For refinement: all four strings of each coin as indices into the
  ** colour-term array: a coin, n (no string: term 0) or n + 1 (ground). */
  uint8_t slot[DAB_SCKEY_MAX_COINS][4];
  uint8_t box[DAB_SCKEY_MAX_COINS];
} sc_graph;

typedef struct sc_search {
  const sc_graph *gr;
  int leaves;
  int have;
  uint64_t best[ENC_WORDS];
  uint8_t best_order[DAB_SCKEY_MAX_COINS]; /* canonical index -> coin */
} sc_search;

/* Number of distinct values of c[0..n): c[i] counts when no earlier c[j]
** equals it.  O(n^2) but branch-free (n <= 25): cheaper here than a sort
** or a hash set, whose branches mispredict on random colours. */
static int distinct(const uint64_t *c, int n) {
  int d = 0;
  for (int i = 0; i < n; i++) {
    int dup = 0;
    for (int j = 0; j < i; j++) dup |= c[j] == c[i];
    d += !dup;
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
  memset(enc, 0, ENC_WORDS * sizeof *enc);
  for (int i = 0; i < gr->n; i++) {
    int v = order[i];
    uint64_t code = (uint64_t)gr->ground[v] << 26;
    for (int j = 0; j < gr->deg[v]; j++) code |= 1ull << pos[gr->nbr[v][j]];
    enc[i / 2] |= code << (32 * (i % 2));
  }
}

static void search_canon(sc_search *s, uint64_t *c, int cells) {
  const sc_graph *gr = s->gr;
  int n = gr->n;
  refine(gr, c, cells);
  /* Order coins by colour; find the first tied cell.  The sort runs on
  ** colour-with-index words (low 5 bits replaced by the coin): ties are
  ** then cells of equal high bits, and only a tied cell's inner order
  ** depends on the labelling, which the individualisation below makes
  ** irrelevant by trying every member. */
  uint64_t w[DAB_SCKEY_MAX_COINS], sorted[DAB_SCKEY_MAX_COINS];
  for (int i = 0; i < n; i++) w[i] = (c[i] & ~31ull) | (uint64_t)i;
  for (int i = 0; i < n; i++) { /* rank by counting: branch-free */
    int r = 0;
    for (int j = 0; j < n; j++) r += w[j] < w[i];
    sorted[r] = w[i];
  }
  memcpy(w, sorted, (size_t)n * sizeof *w);
  uint8_t order[DAB_SCKEY_MAX_COINS];
  for (int i = 0; i < n; i++) order[i] = (uint8_t)(w[i] & 31);
  int cell = -1, cell_len = 0;
  for (int i = 0; i < n;) {
    int j = i + 1;
    while (j < n && (w[j] >> 5) == (w[i] >> 5)) j++;
    if (j - i > 1) {
      cell = i, cell_len = j - i;
      break;
    }
    i = j;
  }
  if (cell < 0) {
    uint64_t enc[ENC_WORDS];
    encode(gr, order, enc);
    s->leaves++;
    if (!s->have || memcmp(enc, s->best, sizeof enc) < 0) {
      /* memcmp on little-endian words is not numeric order, but it is a
      ** fixed total order on encodings: all the scheme needs */
      memcpy(s->best, enc, sizeof enc);
      memcpy(s->best_order, order, (size_t)n);
      s->have = 1;
    }
    return;
  }
  int d = distinct(c, n);
  for (int k = 0; k < cell_len; k++) {
    if (s->leaves >= DAB_SCKEY_MAX_LEAVES) return;
    uint64_t c2[DAB_SCKEY_MAX_COINS];
    memcpy(c2, c, (size_t)n * sizeof *c2);
    int v = order[cell + k];
    c2[v] = dab_mix64(c2[v] ^ 0xd6e8feb86659fd93ull);
    search_canon(s, c2, d + 1);
  }
}

/* One connected component (coins joined by strings; the ground does not
** join), canonicalised on its own. */
typedef struct sc_component {
  int size;
  int truncated;
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
  for (int i = 0; i < k; i++) c[i] = (uint64_t)(gr->deg[i] * 8 + gr->ground[i]);
  sc_search s;
  s.gr = gr;
  s.leaves = 0;
  s.have = 0;
  search_canon(&s, c, 1);
  out->truncated = s.leaves >= DAB_SCKEY_MAX_LEAVES;
  memcpy(out->enc, s.best, (size_t)(k + 1) / 2 * sizeof out->enc[0]);
  for (int i = 0; i < k; i++) out->order[i] = glob ? glob[s.best_order[i]] : s.best_order[i];
}

/* Canonicalises the component made of global coins mem[0..k) (increasing). */
static void canon_component(const sc_graph *gr, const uint8_t *mem, int k, sc_component *out) {
  out->size = k;
  out->truncated = 0;
  if (k == 1) { /* a lone coin: only its ground strings */
    out->enc[0] = (uint64_t)gr->ground[mem[0]] << 26;
    out->order[0] = mem[0];
    return;
  }
  if (k == gr->n) { /* the whole graph: no copy */
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
    for (int j = 0; j < 4; j++)
      lg.slot[i][j] = (uint8_t)(j < d ? lg.nbr[i][j] : j < d + lg.ground[i] ? k + 1 : k);
  }
  canon_graph(&lg, mem, out);
}

void dab_sckey64(const dab_geom *g, uint64_t p, dab_sckey *out) {
  sc_graph gr;
  int8_t idx[64];
  uint32_t adj[DAB_SCKEY_MAX_COINS];
  int n = 0;
  for (int b = 0; b < g->nboxes; b++) {
    if ((p & g->box_mask[b]) == g->box_mask[b]) {
      idx[b] = -1;
      continue;
    }
    idx[b] = (int8_t)n;
    gr.box[n] = (uint8_t)b;
    n++;
  }
  gr.n = n;
  for (int i = 0; i < n; i++) {
    int b = gr.box[i], d = 0, gd = 0;
    uint32_t a = 0;
    for (uint64_t u = g->box_mask[b] & ~p; u; u &= u - 1) {
      int m = __builtin_ctzll(u);
      int o = g->line_box[m][0] + g->line_box[m][1] - b; /* the other side; -1 = ground */
      if (o < 0) gd++;
      else {
        gr.nbr[i][d++] = (uint8_t)idx[o];
        a |= 1u << idx[o];
      }
    }
    adj[i] = a;
    gr.deg[i] = (uint8_t)d;
    gr.ground[i] = (uint8_t)gd;
    for (int s = 0; s < 4; s++)
      gr.slot[i][s] = (uint8_t)(s < d ? gr.nbr[i][s] : s < d + gd ? n + 1 : n);
  }
  out->ncoins = n;
  out->truncated = 0;
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
  uint32_t left = n == 32 ? ~0u : (1u << n) - 1;
  while (left) {
    /* flood fill from the lowest coin left, on adjacency bit masks */
    uint32_t cm = left & -left, grow = cm;
    while (grow) {
      uint32_t next = 0;
      for (uint32_t t = grow; t; t &= t - 1) next |= adj[__builtin_ctz(t)];
      grow = next & ~cm;
      cm |= next;
    }
    left &= ~cm;
    uint8_t mem[DAB_SCKEY_MAX_COINS];
    int k = 0;
    for (uint32_t t = cm; t; t &= t - 1) mem[k++] = (uint8_t)__builtin_ctz(t);
    canon_component(&gr, mem, k, &comp[ncomp]);
    out->truncated |= comp[ncomp].truncated;
    sorted[ncomp] = &comp[ncomp];
    for (int j = ncomp; j > 0 && component_cmp(sorted[j], sorted[j - 1]) < 0; j--) {
      sc_component *t = sorted[j];
      sorted[j] = sorted[j - 1];
      sorted[j - 1] = t;
    }
    ncomp++;
  }
  uint8_t order[DAB_SCKEY_MAX_COINS];
  int at = 0;
  for (int i = 0; i < ncomp; i++)
    for (int j = 0; j < sorted[i]->size; j++) order[at++] = sorted[i]->order[j];
  uint64_t enc[ENC_WORDS];
  encode(&gr, order, enc);
  XXH128_hash_t h = XXH3_128bits_withSeed(enc, (size_t)(n + 1) / 2 * sizeof enc[0], DAB_SCKEY_VERSION);
  out->key = h.low64;
  out->check = h.high64;
  for (int i = 0; i < n; i++) {
    int b = gr.box[order[i]];
    out->box_of[i] = (uint8_t)b;
    out->index_of[b] = (int8_t)i;
  }
}

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
