/*
** pdb_core.c: the pattern database's table: classes by encoding, each
** component's moves and facts made from its graph (contracts in pdb.h).
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "game/hashmix.h"
#include "game/dabassert.h"
#include "pdb/pdb_int.h"
#include "symmetry/sckey.h"
#include "theorems/graphsolve.h"

dab_status dab_pdb_new(dab_pdb **out, dab_err *err) {
  dab_pdb *db = calloc(1, sizeof *db);
  if (!db) return dab_fail(err, DAB_ENOMEM, "pattern database: out of memory");
  *out = db;
  return DAB_OK;
}

void dab_pdb_free(dab_pdb *db) {
  if (!db) return;
  free(db->cls);
  free(db->enc);
  free(db->mv);
  free(db->slot);
  free(db);
}

uint32_t dab_pdb_count(const dab_pdb *db) { return db->n; }
int dab_pdb_max_strings(const dab_pdb *db) { return db->max_strings; }

dab_pdb_info dab_pdb_get(const dab_pdb *db, uint32_t id) {
  DAB_ASSERT(id < db->n);
  const pdb_class *c = &db->cls[id];
  dab_pdb_info i = {c->coins, c->strings, c->nmoves, c->flags, c->nimber, c->value};
  return i;
}

const uint32_t *dab_pdb_encoding(const dab_pdb *db, uint32_t id) { return db->enc + db->cls[id].enc_at; }

dab_pdb_move dab_pdb_get_move(const dab_pdb *db, uint32_t id, int i) {
  DAB_ASSERT(id < db->n && i >= 0 && i < db->cls[id].nmoves);
  const uint32_t *w = pdb_moves(db, id);
  while (i-- > 0) w = pdb_next_move(w);
  dab_pdb_move m = {(uint8_t)MV_CAPTURED(*w), (uint8_t)MV_NCHILD(*w), (uint16_t)MV_CUT(*w), w + 1};
  for (int k = 0; k < m.nchildren; k++) DAB_ASSERT(m.children[k] < db->n); /* every child was built first */
  return m;
}

bool dab_pdb_graph(const dab_pdb *db, uint32_t id, dab_sg *g) {
  const pdb_class *c = &db->cls[id];
  const uint32_t *enc = db->enc + c->enc_at;
  dab_sg h;
  memset(&h, 0, sizeof h);
  h.ncoins = c->coins;
  for (int i = 0; i < c->coins; i++) {
    for (uint32_t k = 0; k < (enc[i] >> 26); k++)
      if (dab_sg_add(&h, i, -1) < 0) return false;
    for (int j = i + 1; j < c->coins; j++)
      if ((enc[i] >> j & 1) && dab_sg_add(&h, i, j) < 0) return false;
  }
  return dab_sg_append(g, &h);
}

uint64_t pdb_enc_hash(const uint32_t *enc, int coins) {
  return XXH3_64bits_withSeed(enc, (size_t)coins * sizeof *enc, 0x9db0u + (uint64_t)coins);
}

int64_t dab_pdb_find(const dab_pdb *db, const uint32_t *enc, int coins) {
  if (!db->nslots) return -1;
  uint64_t mask = db->nslots - 1, h = pdb_enc_hash(enc, coins) & mask;
  for (;; h = (h + 1) & mask) {
    uint32_t s = db->slot[h];
    if (!s) return -1;
    const pdb_class *c = &db->cls[s - 1];
    if (c->coins == coins && !memcmp(db->enc + c->enc_at, enc, (size_t)coins * sizeof *enc)) return s - 1;
  }
}

static bool grow_slots(dab_pdb *db) {
  uint64_t n = db->nslots ? db->nslots * 2 : 1024;
  uint32_t *s = calloc(n, sizeof *s);
  if (!s) return false;
  for (uint32_t id = 0; id < db->n; id++) {
    uint64_t h = pdb_enc_hash(db->enc + db->cls[id].enc_at, db->cls[id].coins) & (n - 1);
    while (s[h]) h = (h + 1) & (n - 1);
    s[h] = id + 1;
  }
  free(db->slot);
  db->slot = s;
  db->nslots = n;
  return true;
}

static bool reserve(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return true;
  size_t n = *cap ? *cap : 1024;
  while (n < need) n *= 2;
  void *q = realloc(*p, n * size);
  if (!q) return false;
  *p = q;
  *cap = n;
  return true;
}

bool pdb_reserve_moves(dab_pdb *db, size_t more) {
  return reserve((void **)&db->mv, &db->mv_cap, db->mv_n + more, sizeof *db->mv);
}

int64_t pdb_add_class(dab_pdb *db, const uint32_t *enc, int coins) {
  size_t cap = db->cap;
  if ((db->n + 1) * 2 > db->nslots && !grow_slots(db)) return -1;
  if (!reserve((void **)&db->cls, &cap, db->n + 1, sizeof *db->cls)) return -1;
  db->cap = (uint32_t)cap;
  if (!reserve((void **)&db->enc, &db->enc_cap, db->enc_n + (size_t)coins, sizeof *db->enc)) return -1;
  pdb_class *c = &db->cls[db->n];
  memset(c, 0, sizeof *c);
  c->enc_at = (uint32_t)db->enc_n;
  c->coins = (uint8_t)coins;
  c->safe_move = c->decline_move = -1;
  int ground = 0, half = 0; /* an inner string is counted at both its coins */
  for (int i = 0; i < coins; i++) {
    ground += (int)(enc[i] >> 26), half += __builtin_popcount(enc[i] & DAB_SCKEY_NBR_MASK);
    db->enc[db->enc_n++] = enc[i];
  }
  c->strings = (uint8_t)(ground + half / 2);
  uint64_t mask = db->nslots - 1, h = pdb_enc_hash(enc, coins) & mask;
  while (db->slot[h]) h = (h + 1) & mask;
  db->slot[h] = db->n + 1;
  return db->n++;
}

/* ---- A component's moves ------------------------------------------------ */

/* The graph of a class being expanded: coin i's neighbour set and ground
** strings (canonical indices). */
typedef struct comp_graph {
  int n;
  uint32_t nbr[DAB_SCKEY_COMP_MAX];
  uint8_t ground[DAB_SCKEY_COMP_MAX];
} comp_graph;

static int degree(const comp_graph *g, int i) { return __builtin_popcount(g->nbr[i]) + g->ground[i]; }

/* Splits g (coins with no string left are gone) into components, finds or
** adds each one.  RETURN: number of children written to ids (sorted), or
** -1 on failure. */
static int children_of(dab_pdb *db, const comp_graph *g, uint32_t *ids, dab_pdb_table **table, dab_err *err) {
  uint32_t left = 0;
  for (int i = 0; i < g->n; i++)
    if (degree(g, i)) left |= 1u << i;
  int nch = 0;
  while (left) {
    uint32_t comp = left & -left, before;
    do {
      before = comp;
      for (uint32_t t = comp; t; t &= t - 1) comp |= g->nbr[__builtin_ctz(t)];
    } while (comp != before);
    left &= ~comp;
    int local[DAB_SCKEY_COMP_MAX], k = 0;
    for (uint32_t t = comp; t; t &= t - 1) local[__builtin_ctz(t)] = k++;
    uint32_t code[DAB_SCKEY_COMP_MAX], enc[DAB_SCKEY_COMP_MAX];
    k = 0;
    for (uint32_t t = comp; t; t &= t - 1) {
      int i = __builtin_ctz(t);
      uint32_t c = (uint32_t)g->ground[i] << 26;
      for (uint32_t u = g->nbr[i]; u; u &= u - 1) c |= 1u << local[__builtin_ctz(u)];
      code[k++] = c;
    }
    dab_sckey_canon_component(code, k, enc, NULL);
    int64_t id = pdb_ensure(db, enc, k, table, err);
    if (id < 0) return (int)id;
    int j = nch++;
    while (j > 0 && ids[j - 1] > (uint32_t)id) ids[j] = ids[j - 1], j--;
    ids[j] = (uint32_t)id;
  }
  return nch;
}

/* One cut: string (a, b) of g, b = -1 for a ground string. */
static void cut_string(comp_graph *g, int a, int b) {
  if (b < 0) g->ground[a]--;
  else g->nbr[a] &= ~(1u << b), g->nbr[b] &= ~(1u << a);
}

/*
** The chain rules of the board search (solver/ab.h: chain_moves,
** hard_handouts, junction_chains, loony_bound; the lemma and its proof
** in docs/solver.md), on a quiet component.  A run is a maximal path of
** coins with two strings each; walked from string (a, b), both of whose
** coin ends have two strings (b = -1: the ground).
** RETURN: 1 an isolated chain, 2 an isolated loop (the whole
** component), 3 a chain with a junction at an end; *len its coins, *set
** their mask, (*ea, *eb) an end string, a ground one when there is one.
*/
static int run_of(const comp_graph *g, int a, int b, int *len, uint32_t *set, int *ea, int *eb) {
  int k = 0, end_a[2], end_b[2];
  bool junction[2] = {false, false};
  uint32_t seen = 0;
  int start[2] = {a, b}, from[2] = {b, a};
  for (int side = 0; side < 2; side++) {
    int x = start[side], prev = from[side];
    bool via_ground = prev < 0;
    end_a[side] = a, end_b[side] = b;
    while (x >= 0) {
      if (seen >> x & 1) { /* walked round: an isolated loop */
        *len = k, *set = seen, *ea = a, *eb = b;
        return 2;
      }
      k++;
      seen |= 1u << x;
      /* x's other string: to a coin other than prev, else to the ground */
      uint32_t others = g->nbr[x] & ~(via_ground ? 0u : 1u << prev);
      int y = others ? __builtin_ctz(others) : -1;
      if (y < 0 || degree(g, y) != 2) {
        end_a[side] = x, end_b[side] = y, junction[side] = y >= 0;
        break;
      }
      prev = x, via_ground = false, x = y;
    }
  }
  *len = k, *set = seen;
  int e = junction[0] ? 1 : 0;
  *ea = end_a[e], *eb = end_b[e];
  return junction[0] || junction[1] ? 3 : 1;
}

/* Nimstring: does the player to move win the sum ids + *h?  A sum of
** non-loony components is worth the XOR of their nimbers; a loony one
** (the mover can take or decline as suits) wins for the mover. */
static bool sum_wins(const dab_pdb *db, const uint32_t *ids, int n, int h) {
  int x = dab_pdb_nimber_sum(db, ids, n);
  return x == DAB_PDB_LOONY || (x ^ h) != 0;
}

void dab_pdb_sort(uint32_t *ids, int n) {
  for (int i = 1; i < n; i++) /* insertion sort: sums are a few ids */
    for (int j = i; j > 0 && ids[j - 1] > ids[j]; j--) {
      uint32_t t = ids[j];
      ids[j] = ids[j - 1], ids[j - 1] = t;
    }
}

int dab_pdb_nimber_sum(const dab_pdb *db, const uint32_t *ids, int n) {
  int x = 0;
  for (int i = 0; i < n; i++) {
    int v = db->cls[ids[i]].nimber;
    if (v == DAB_PDB_LOONY) return DAB_PDB_LOONY;
    x ^= v;
  }
  return x;
}

/*
** Expands class id: its moves (one per distinct result), flags, nimber
** and value.  Children are made first (pdb_ensure), so every id a move
** names is complete when this returns.
*/
static dab_status expand(dab_pdb *db, uint32_t id, dab_pdb_table **table, dab_err *err) {
  comp_graph g;
  g.n = db->cls[id].coins;
  for (int i = 0; i < g.n; i++) {
    uint32_t e = db->enc[db->cls[id].enc_at + (uint32_t)i];
    g.nbr[i] = e & DAB_SCKEY_NBR_MASK;
    g.ground[i] = (uint8_t)(e >> 26);
  }
  /* every string once: (a, b) with a < b, and one ground string per coin
  ** (a coin's ground strings are alike) */
  int sa[128], sb[128], ns = 0;
  for (int a = 0; a < g.n; a++) {
    if (g.ground[a]) sa[ns] = a, sb[ns++] = -1;
    for (uint32_t t = g.nbr[a] >> (a + 1) << (a + 1); t; t &= t - 1) sa[ns] = a, sb[ns++] = __builtin_ctz(t);
  }
  /* the chain rules, per string (quiet components only) */
  bool redundant[128];
  int loony[128];
  for (int i = 0; i < ns; i++) redundant[i] = false, loony[i] = MV_NO_LOONY;
  bool quiet = true;
  for (int i = 0; i < g.n; i++) quiet &= degree(&g, i) != 1;
  uint32_t done = 0; /* coins whose run is walked */
  for (int i = 0; i < ns && quiet; i++) {
    int a = sa[i], b = sb[i];
    if (degree(&g, a) != 2 || (b >= 0 && degree(&g, b) != 2) || (done >> a & 1)) continue;
    int len, ea, eb;
    uint32_t set;
    int kind = run_of(&g, a, b, &len, &set, &ea, &eb);
    done |= set;
    int one_a = -2, one_b = -2, u = MV_NO_LOONY;
    if (kind == 2) one_a = a, one_b = b;
    else if (len >= 3) one_a = ea, one_b = eb;
    else if (kind == 1 && len == 2) { /* a 2-chain: the middle string */
      int c0 = __builtin_ctz(set), c1 = __builtin_ctz(set & (set - 1));
      one_a = c0, one_b = c1;
    }
    if ((kind == 1 || kind == 3) && len >= 3) u = -(len - 2);
    if (kind == 2 && len >= 4) u = -(len - 4);
    for (int j = 0; j < ns; j++) {
      int x = sa[j], y = sb[j];
      if (!(set >> x & 1) && !(y >= 0 && (set >> y & 1))) continue;
      loony[j] = u;
      if (one_a == -2) continue;
      bool is_one = (x == one_a && y == one_b) || (y == one_a && x == one_b);
      redundant[j] = !is_one;
    }
  }
  uint32_t mvbuf[128 * (DAB_SCKEY_COMP_MAX + 1)];
  size_t nw = 0;
  int nmoves = 0, safe = -1, decline = -1;
  bool all_capture = true, children_free = true, capturable = false;
  int first_capturable = -1;
  for (int i = 0; i < g.n; i++)
    if (degree(&g, i) == 1) {
      capturable = true;
      if (first_capturable < 0) first_capturable = i;
    }
  /* the decline: the first capturable coin's string leads to a coin d
  ** with two strings; cutting d's other string hands both coins over */
  int dec_a = -2, dec_b = -2;
  if (first_capturable >= 0) {
    int c = first_capturable;
    if (!g.ground[c]) {
      int d = __builtin_ctz(g.nbr[c]);
      if (degree(&g, d) == 2) {
        dec_a = d;
        uint32_t other = g.nbr[d] & ~(1u << c);
        dec_b = other ? __builtin_ctz(other) : -1;
      }
    }
  }
  for (int s = 0; s < ns; s++) {
    comp_graph ch = g;
    int a = sa[s], b = sb[s];
    int da = degree(&g, a), db_ = b >= 0 ? degree(&g, b) : -1;
    cut_string(&ch, a, b);
    int captured = (degree(&ch, a) == 0) + (b >= 0 && degree(&ch, b) == 0);
    uint32_t kids[DAB_SCKEY_COMP_MAX];
    int nk = children_of(db, &ch, kids, table, err);
    if (nk < 0) return (dab_status)-nk;
    /* a capture is safe when the coin beyond the captured one is the
    ** ground or does not drop to one string (board: no third side) */
    bool is_safe = false;
    if (captured) {
      int other_deg = da == 1 ? db_ : da;   /* degree of the far end, -1 ground */
      is_safe = other_deg != 2;
    }
    bool is_decline = (a == dec_a && b == dec_b) || (b == dec_a && a == dec_b && dec_b >= 0);
    bool sac = false;
    for (int k = 0; k < nk; k++) {
      if (db->cls[kids[k]].flags & DAB_PDB_CAPTURABLE) sac = true;
      if (!(db->cls[kids[k]].flags & DAB_PDB_FREE)) children_free = false;
    }
    if (!captured) all_capture = false;
    /* the same result as an earlier move: one of them is enough */
    size_t at = 0;
    int dup = -1;
    for (int m = 0; m < nmoves && dup < 0; m++) {
      uint32_t w = mvbuf[at];
      if ((int)MV_CAPTURED(w) == captured && (int)MV_NCHILD(w) == nk &&
          !memcmp(mvbuf + at + 1, kids, (size_t)nk * sizeof *kids))
        dup = m;
      at += 1 + MV_NCHILD(w);
    }
    if (dup >= 0) {
      if (is_safe && safe < 0) safe = dup;
      if (is_decline) decline = dup;
      /* equal results are worth the same: either string's rules apply */
      size_t d = 0;
      for (int m = 0; m < dup; m++) d += 1 + MV_NCHILD(mvbuf[d]);
      uint32_t w = mvbuf[d];
      int u = MV_LOONY(w) < loony[s] ? MV_LOONY(w) : loony[s];
      bool red = MV_REDUNDANT(w) && redundant[s];
      mvbuf[d] = MV_HEADER(MV_CAPTURED(w), MV_NCHILD(w), MV_SACRIFICE(w), MV_CUT(w), red, u);
      continue;
    }
    int cut = b < 0 ? a * 32 + 31 : a * 32 + b;
    mvbuf[nw++] = MV_HEADER(captured, nk, sac, cut, redundant[s], loony[s]);
    memcpy(mvbuf + nw, kids, (size_t)nk * sizeof *kids);
    nw += (size_t)nk;
    if (is_safe && safe < 0) safe = nmoves;
    if (is_decline) decline = nmoves;
    nmoves++;
  }
  if (!pdb_reserve_moves(db, nw)) return dab_fail(err, DAB_ENOMEM, "pattern database: out of memory for moves");
  pdb_class *c = &db->cls[id];
  c->mv_at = (uint32_t)db->mv_n;
  memcpy(db->mv + db->mv_n, mvbuf, nw * sizeof *mvbuf);
  db->mv_n += nw;
  c->nmoves = (uint8_t)nmoves;
  c->safe_move = (int8_t)safe;
  c->decline_move = (int8_t)(safe < 0 && capturable ? decline : -1);
  uint8_t flags = 0;
  if (capturable) flags |= DAB_PDB_CAPTURABLE;
  if (all_capture && children_free) flags |= DAB_PDB_FREE;
  bool all_two = true;
  int ground = 0;
  for (int i = 0; i < g.n; i++) all_two &= degree(&g, i) == 2, ground += g.ground[i];
  if (all_two && ground == 2) flags |= DAB_PDB_CHAIN;
  if (all_two && ground == 0) flags |= DAB_PDB_LOOP;
  c->flags = flags;
  /* Nimstring: the heap h with (this + *h) lost for the mover; a move
  ** that captures keeps the turn, a heap move is a plain move. */
  bool win[8];
  int nim = DAB_PDB_LOONY, losses = 0;
  for (int h = 0; h < 8; h++) {
    bool w = false;
    for (int k = 0; k < h && !w; k++) w = !win[k];
    const uint32_t *mw = pdb_moves(db, id);
    for (int m = 0; m < nmoves && !w; m++, mw = pdb_next_move(mw)) {
      bool child = sum_wins(db, mw + 1, (int)MV_NCHILD(*mw), h);
      w = MV_CAPTURED(*mw) ? child : !child;
    }
    win[h] = w;
    if (!w) nim = h, losses++;
  }
  if (losses > 1) return dab_fail(err, DAB_EINTERNAL, "pattern database: component %u has two nimbers", id);
  db->cls[id].nimber = (int8_t)nim;
  /* its value alone: searched on its children's ids */
  dab_status st;
  if (!*table && (st = dab_pdb_table_new(20, table, err))) return st;
  db->cls[id].value = (int8_t)pdb_value_by_moves(db, *table, id);
  return DAB_OK;
}

int64_t pdb_ensure(dab_pdb *db, const uint32_t *enc, int coins, dab_pdb_table **table, dab_err *err) {
  int64_t id = dab_pdb_find(db, enc, coins);
  if (id >= 0) return id;
  id = pdb_add_class(db, enc, coins);
  if (id < 0) return -(int64_t)dab_fail(err, DAB_ENOMEM, "pattern database: out of memory for components");
  dab_status st = expand(db, (uint32_t)id, table, err);
  return st ? -(int64_t)st : id;
}

int dab_pdb_split(const dab_pdb *db, const dab_geom *g, uint64_t p, uint32_t *ids) {
  uint32_t code[64], enc[DAB_SCKEY_COMP_MAX];
  uint8_t box_of[64];
  int start[65];
  int8_t comp_of[64];
  int n = dab_sckey_split64(g, p, code, box_of, start, comp_of);
  if (n > DAB_PDB_MAX_COMP) return -1;
  for (int c = 0; c < n; c++) {
    int k = start[c + 1] - start[c];
    if (k > DAB_SCKEY_COMP_MAX) return -1;
    dab_sckey_canon_component(code + start[c], k, enc, NULL);
    int64_t id = dab_pdb_find(db, enc, k);
    if (id < 0) return -1;
    int j = c;
    while (j > 0 && ids[j - 1] > (uint32_t)id) ids[j] = ids[j - 1], j--;
    ids[j] = (uint32_t)id;
  }
  return n;
}
