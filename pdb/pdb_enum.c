/*
** pdb_enum.c: every Strings-and-Coins component of up to N strings that
** occurs on a grid board, grown a string at a time from its embeddings.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "game/clock.h"
#include "game/hashmix.h"
#include "pdb/pdb_int.h"
#include "symmetry/sckey.h"

/*
** An embedding is a component as it lies on a board: its boxes (cells
** at row r, column c, the least row and column 0) and, per box, which of
** its four sides are undrawn (N, S, W, E).  An undrawn side is a string
** to the box beyond it when that box is in the component, else a string
** to the ground: then the box is on the board's edge, so it must be on
** the component's outermost row or column on that side, and no box of
** the component lies beyond it.  Sides toward boxes outside the component
** are drawn (those boxes may be anything).  Every box has an undrawn side.
**
** Completeness.  Every embedding of n + 1 strings comes from one of n by
** adding one string: remove a string whose removal leaves the rest
** connected with every box still having a side (a leaf box's last string
** removes the box; a cycle's string keeps every box), which is again an
** embedding.  So growing every embedding of each size by every string
** that can be added yields every embedding, hence every component class.
** The classes are kept; the embeddings only to grow the next level (a
** class has many: a k-chain lies along any self-avoiding walk).
**
** Adding a string to box x on side d:
**   - the box y beyond d is in the component: a string x - y;
**   - y lies beyond the component's outermost row/column on side d: a
**     string to the ground (x is on the edge), or, when no box of that
**     outermost row/column already has a ground string on side d (no edge
**     there), the new box y with that one string;
**   - otherwise (y inside the component's span, not in it): the new box y.
*/

#define EMB_MAX 25
enum { SIDE_N = 1, SIDE_S = 2, SIDE_W = 4, SIDE_E = 8 };

typedef struct emb {
  uint8_t n;
  uint16_t cell[EMB_MAX];  /* r << 9 | c << 4 | undrawn sides; sorted */
} emb;

static inline int cell_r(uint16_t x) { return x >> 9; }
static inline int cell_c(uint16_t x) { return (x >> 4) & 31; }
static inline int cell_s(uint16_t x) { return x & 15; }
static inline uint16_t make_cell(int r, int c, int s) { return (uint16_t)(r << 9 | c << 4 | s); }

/*
** The embedding's fingerprint, the same for its 8 images (mirrors and
** transposition, after translation): per image, the sum of a strong mix
** of each cell's transformed code (a multiset hash: no sort), two such
** sums for 128 bits; the least over the images.  Two embeddings that are
** not images of each other share it with probability about 2^-128 per
** pair: the later one would then not be grown (one path to its children
** lost, never a wrong fact).  Sorting the 8 images instead cost 3x.
*/
static void emb_fingerprint(const emb *e, uint64_t *lo, uint64_t *hi) {
  int maxr = 0, maxc = 0;
  for (int i = 0; i < e->n; i++) {
    if (cell_r(e->cell[i]) > maxr) maxr = cell_r(e->cell[i]);
    if (cell_c(e->cell[i]) > maxc) maxc = cell_c(e->cell[i]);
  }
  uint64_t h1[8] = {0}, h2[8] = {0};
  for (int i = 0; i < e->n; i++) {
    int r0 = cell_r(e->cell[i]), c0 = cell_c(e->cell[i]), s = cell_s(e->cell[i]);
    for (int t = 0; t < 8; t++) {
      int r = r0, c = c0;
      int n_ = s & SIDE_N, s_ = s & SIDE_S, w_ = s & SIDE_W, e_ = s & SIDE_E;
      if (t & 1) { c = maxc - c; int x = w_; w_ = e_ ? SIDE_W : 0; e_ = x ? SIDE_E : 0; }
      if (t & 2) { r = maxr - r; int x = n_; n_ = s_ ? SIDE_N : 0; s_ = x ? SIDE_S : 0; }
      if (t & 4) {
        int x = r; r = c; c = x;
        int nn = w_ ? SIDE_N : 0, ww = n_ ? SIDE_W : 0, ss = e_ ? SIDE_S : 0, ee = s_ ? SIDE_E : 0;
        n_ = nn, w_ = ww, s_ = ss, e_ = ee;
      }
      uint64_t v = make_cell(r, c, n_ | s_ | w_ | e_);
      h1[t] += dab_mix64(v ^ 0x6a09e667f3bcc909ull);
      h2[t] += dab_mix64(v ^ 0xbb67ae8584caa73bull);
    }
  }
  int best = 0;
  for (int t = 1; t < 8; t++)
    if (h1[t] < h1[best] || (h1[t] == h1[best] && h2[t] < h2[best])) best = t;
  *lo = h1[best], *hi = h2[best];
}

static int find_cell(const emb *e, int r, int c) {
  for (int i = 0; i < e->n; i++)
    if (cell_r(e->cell[i]) == r && cell_c(e->cell[i]) == c) return i;
  return -1;
}

/* The component's graph: coin i = cell i. */
static void emb_code(const emb *e, uint32_t *code) {
  static const int dr[4] = {-1, 1, 0, 0}, dc[4] = {0, 0, -1, 1};
  for (int i = 0; i < e->n; i++) {
    uint32_t c = 0;
    int r = cell_r(e->cell[i]), col = cell_c(e->cell[i]), s = cell_s(e->cell[i]);
    for (int d = 0; d < 4; d++) {
      if (!(s >> d & 1)) continue;
      int j = find_cell(e, r + dr[d], col + dc[d]);
      c += j >= 0 ? 1u << j : 1u << 26;
    }
    code[i] = c;
  }
}

/* A set of 128-bit fingerprints (embeddings already met this level). */
typedef struct fpset {
  uint64_t *w;   /* pairs */
  uint64_t nslots, n;
} fpset;

static int fpset_add(fpset *s, const emb *e) {
  if ((s->n + 1) * 2 > s->nslots) {
    uint64_t ns = s->nslots ? s->nslots * 2 : 1 << 16;
    uint64_t *w = calloc(ns * 2, sizeof *w);
    if (!w) return -1;
    for (uint64_t i = 0; i < s->nslots; i++) {
      if (!s->w[2 * i] && !s->w[2 * i + 1]) continue;
      uint64_t h = s->w[2 * i] & (ns - 1);
      while (w[2 * h] || w[2 * h + 1]) h = (h + 1) & (ns - 1);
      w[2 * h] = s->w[2 * i], w[2 * h + 1] = s->w[2 * i + 1];
    }
    free(s->w);
    s->w = w, s->nslots = ns;
  }
  XXH128_hash_t h;
  emb_fingerprint(e, &h.low64, &h.high64);
  if (!h.low64 && !h.high64) h.low64 = 1;
  uint64_t i = h.low64 & (s->nslots - 1);
  for (;; i = (i + 1) & (s->nslots - 1)) {
    if (s->w[2 * i] == h.low64 && s->w[2 * i + 1] == h.high64) return 0;
    if (!s->w[2 * i] && !s->w[2 * i + 1]) break;
  }
  s->w[2 * i] = h.low64, s->w[2 * i + 1] = h.high64;
  s->n++;
  return 1;
}

typedef struct emb_list {
  emb *e;
  size_t n, cap;
} emb_list;

static bool list_push(emb_list *l, const emb *e) {
  if (l->n == l->cap) {
    size_t nc = l->cap ? l->cap * 2 : 4096;
    emb *x = realloc(l->e, nc * sizeof *x);
    if (!x) return false;
    l->e = x, l->cap = nc;
  }
  l->e[l->n++] = *e;
  return true;
}

typedef struct grow_ctx {
  dab_pdb *db;
  dab_pdb_table *table;
  fpset seen;
  emb_list next;
  dab_err *err;
  dab_status st;        /* why offer or grow failed */
  bool last_level;      /* the embeddings made are not grown: not kept */
} grow_ctx;

/* A new embedding of the next level: keep it when not met yet; its class
** is added (with moves and facts) when new.  RETURN: false on failure. */
static bool offer(grow_ctx *g, emb *e) {
  int r = fpset_add(&g->seen, e);
  if (r < 0) return g->st = dab_fail(g->err, DAB_ENOMEM, "pattern database: out of memory for embeddings"), false;
  if (r == 0) return true;
  uint32_t code[EMB_MAX], enc[EMB_MAX];
  emb_code(e, code);
  dab_sckey_canon_component(code, e->n, enc, NULL);
  int64_t id = pdb_ensure(g->db, enc, e->n, &g->table, g->err);
  if (id < 0) return g->st = (dab_status)-id, false;
  if (!g->last_level && !list_push(&g->next, e))
    return g->st = dab_fail(g->err, DAB_ENOMEM, "pattern database: out of memory for embeddings"), false;
  return true;
}

/* Every embedding one string larger than e. */
static bool grow(grow_ctx *g, const emb *e) {
  static const int dr[4] = {-1, 1, 0, 0}, dc[4] = {0, 0, -1, 1};
  static const int opp[4] = {SIDE_S, SIDE_N, SIDE_E, SIDE_W};
  int minr = 0, maxr = 0, minc = 0, maxc = 0;
  for (int i = 0; i < e->n; i++) {
    if (cell_r(e->cell[i]) > maxr) maxr = cell_r(e->cell[i]);
    if (cell_c(e->cell[i]) > maxc) maxc = cell_c(e->cell[i]);
  }
  /* an edge on side d: a box of the outermost row/column there has a
  ** ground string on d */
  bool edge[4] = {false, false, false, false};
  for (int i = 0; i < e->n; i++) {
    int r = cell_r(e->cell[i]), c = cell_c(e->cell[i]), s = cell_s(e->cell[i]);
    for (int d = 0; d < 4; d++)
      if ((s >> d & 1) && find_cell(e, r + dr[d], c + dc[d]) < 0) edge[d] = true;
  }
  for (int i = 0; i < e->n; i++) {
    int r = cell_r(e->cell[i]), c = cell_c(e->cell[i]), s = cell_s(e->cell[i]);
    for (int d = 0; d < 4; d++) {
      if (s >> d & 1) continue;
      int r2 = r + dr[d], c2 = c + dc[d];
      int j = find_cell(e, r2, c2);
      emb x = *e;
      if (j >= 0) { /* a string between two of its boxes */
        x.cell[i] = make_cell(r, c, s | 1 << d);
        x.cell[j] = make_cell(r2, c2, cell_s(e->cell[j]) | opp[d]);
        if (!offer(g, &x)) return false;
        continue;
      }
      bool outside = r2 < minr || r2 > maxr || c2 < minc || c2 > maxc;
      if (outside) { /* the ground: x lies on the board's edge */
        x.cell[i] = make_cell(r, c, s | 1 << d);
        if (!offer(g, &x)) return false;
        if (edge[d]) continue;
      }
      if (e->n >= EMB_MAX) continue;
      /* a new box beyond d, joined by that one string */
      x = *e;
      x.cell[i] = make_cell(r, c, s | 1 << d);
      int shr = r2 < 0 ? 1 : 0, shc = c2 < 0 ? 1 : 0;
      if (r2 > 31 || c2 > 31) continue;
      for (int k = 0; k < x.n; k++)
        x.cell[k] = make_cell(cell_r(x.cell[k]) + shr, cell_c(x.cell[k]) + shc, cell_s(x.cell[k]));
      x.cell[x.n++] = make_cell(r2 + shr, c2 + shc, opp[d]);
      if (!offer(g, &x)) return false;
    }
  }
  return true;
}

dab_status dab_pdb_build(dab_pdb *db, int max_strings, dab_progress_fn progress, void *progress_ctx,
                         dab_cancel_flag *cancel, dab_err *err) {
  if (max_strings < 1 || max_strings > DAB_PDB_MAX_STRINGS)
    return dab_fail(err, DAB_EINPUT, "pattern database: --max-strings %d is not in 1..%d", max_strings,
                    DAB_PDB_MAX_STRINGS);
  grow_ctx g;
  memset(&g, 0, sizeof g);
  g.db = db;
  g.err = err;
  dab_status st = DAB_OK;
  emb_list cur = {0};
  /* one string: a box with a ground string; two boxes joined */
  emb a = {.n = 1, .cell = {make_cell(0, 0, SIDE_N)}};
  emb b = {.n = 2, .cell = {make_cell(0, 0, SIDE_E), make_cell(0, 1, SIDE_W)}};
  if (!offer(&g, &a) || !offer(&g, &b)) goto fail;
  double t0 = dab_now_s(), last = 0;
  for (int level = 1; level < max_strings; level++) {
    cur = g.next;
    memset(&g.next, 0, sizeof g.next);
    free(g.seen.w);
    memset(&g.seen, 0, sizeof g.seen);
    g.last_level = level + 1 == max_strings;
    for (size_t i = 0; i < cur.n; i++) {
      if (!grow(&g, &cur.e[i])) goto fail;
      if ((i & 1023) == 0) {
        if (cancel && *cancel) {
          st = dab_fail(err, DAB_ECANCELED, "pattern database: canceled at %d strings", level + 1);
          goto out;
        }
        double t = dab_now_s();
        if (progress && t - last >= DAB_PROGRESS_INTERVAL) {
          char what[96];
          snprintf(what, sizeof what, "pdb: %d strings, %u components; embeddings of %d strings", level + 1,
                   db->n, level);
          dab_progress p = {what, i, cur.n, t - t0};
          progress(progress_ctx, &p);
          last = t;
        }
      }
    }
    free(cur.e);
    memset(&cur, 0, sizeof cur);
    if (db->max_strings < level + 1) db->max_strings = level + 1;
  }
  if (db->max_strings < 1) db->max_strings = 1;
  goto out;
fail:
  st = g.st;
out:
  free(cur.e);
  free(g.next.e);
  free(g.seen.w);
  dab_pdb_table_free(g.table);
  return st;
}
