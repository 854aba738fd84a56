/*
** pdb_sum.c: alpha-beta over sums of database components: a position is
** its sorted component ids, a move a component's stored move.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "pdb/pdb_int.h"
#include "theorems/sle.h"

/*
** The rules, each exact in any position (the same as the board search's,
** solver/ab.h, stated on the Strings-and-Coins graph):
**   free components  a component every cut of which captures and leaves
**                    free parts is worth its coins to the player to move
**                    (docs/theorems.md); taken off, its coins credited;
**   safe capture     a capture that leaves no coin capturable that was not
**                    is played at once, as the only move;
**   decline rule     otherwise, when coins are capturable: every capture,
**                    and one decline (the first capturable component's);
**   SLE              a quiet sum of chains and loops is valued by the
**                    simple-loony-endgame formula (theorems/sle.h);
**   one component    a quiet position of one component (free ones aside)
**                    is worth its stored value alone;
** and otherwise every move of every component (identical components
** once).  Values have the parity of the coins left.
*/

/* A table entry, lock-free: word = key ^ data, so a torn entry (words from
** two stores) reads as a miss.  data: lower (8 bits), upper (8), work
** (8), best move (12: 1 + component index << 7 | move index; 0 none),
** 28 check bits of the key's second half. */
typedef struct sum_entry {
  uint64_t word, data;
} sum_entry;

struct dab_pdb_table {
  sum_entry *e;
  uint64_t mask;
};

/* One search's state. */
typedef struct sum_ctx {
  const dab_pdb *db;
  dab_pdb_table *t;
  uint64_t nodes;
} sum_ctx;

dab_status dab_pdb_table_new(int table_bits, dab_pdb_table **out, dab_err *err) {
  if (table_bits == 0) table_bits = 20;
  if (table_bits < 4 || table_bits > 32)
    return dab_fail(err, DAB_EINPUT, "pattern database table of 2^%d entries (4..32)", table_bits);
  dab_pdb_table *t = calloc(1, sizeof *t);
  if (!t) return dab_fail(err, DAB_ENOMEM, "pattern database table: out of memory");
  t->e = calloc(1ull << table_bits, sizeof *t->e);
  if (!t->e) {
    free(t);
    return dab_fail(err, DAB_ENOMEM, "pattern database table: out of memory for 2^%d entries", table_bits);
  }
  t->mask = (1ull << table_bits) - 1;
  *out = t;
  return DAB_OK;
}

void dab_pdb_table_free(dab_pdb_table *t) {
  if (!t) return;
  free(t->e);
  free(t);
}

size_t dab_pdb_table_bytes(int table_bits) { return sizeof(sum_entry) << (table_bits ? table_bits : 20); }

/* ids minus its i-th entry plus kids[0..nk) (sorted), into out.  RETURN: count. */
static int apply(const uint32_t *ids, int n, int i, const uint32_t *kids, int nk, uint32_t *out) {
  int a = 0, b = 0, o = 0;
  while (a < n || b < nk) {
    if (a == i) { a++; continue; }
    if (b >= nk || (a < n && ids[a] <= kids[b])) out[o++] = ids[a++];
    else out[o++] = kids[b++];
  }
  return o;
}

static int search(sum_ctx *s, const uint32_t *in, int nin, int alpha, int beta);

/* The value of one move (component i of ids, move header w) for the player
** to move, searched within (alpha, beta). */
static int move_value(sum_ctx *s, const uint32_t *ids, int n, int i, const uint32_t *w, int alpha,
                      int beta) {
  uint32_t child[DAB_PDB_MAX_COMP * 2];
  int nc = apply(ids, n, i, w + 1, (int)MV_NCHILD(*w), child);
  int k = (int)MV_CAPTURED(*w);
  if (k) return k + search(s, child, nc, alpha - k, beta - k);
  return -search(s, child, nc, -beta, -alpha);
}

static int sle_value(const dab_pdb *db, const uint32_t *ids, int n, bool *ok) {
  int16_t chains[DAB_PDB_MAX_COMP], loops[DAB_PDB_MAX_COMP];
  int nch = 0, nlp = 0;
  for (int i = 0; i < n; i++) {
    const pdb_class *c = &db->cls[ids[i]];
    if (c->flags & DAB_PDB_CHAIN) chains[nch++] = c->coins;
    else if (c->flags & DAB_PDB_LOOP) loops[nlp++] = c->coins;
    else {
      *ok = false;
      return 0;
    }
  }
  /* the formula wants each kind sorted ascending */
  for (int i = 1; i < nch; i++)
    for (int j = i; j > 0 && chains[j - 1] > chains[j]; j--) {
      int16_t t = chains[j];
      chains[j] = chains[j - 1], chains[j - 1] = t;
    }
  for (int i = 1; i < nlp; i++)
    for (int j = i; j > 0 && loops[j - 1] > loops[j]; j--) {
      int16_t t = loops[j];
      loops[j] = loops[j - 1], loops[j - 1] = t;
    }
  int v = dab_sle_value(chains, nch, loops, nlp);
  *ok = v != DAB_SLE_BAD;
  return -v;
}

static int search(sum_ctx *s, const uint32_t *in, int nin, int alpha, int beta) {
  const dab_pdb *db = s->db;
  /* free components: worth their coins to the mover, wherever they are */
  uint32_t ids[DAB_PDB_MAX_COMP * 2];
  int n = 0, bonus = 0, coins = 0;
  for (int i = 0; i < nin; i++) {
    const pdb_class *c = &db->cls[in[i]];
    if (c->flags & DAB_PDB_FREE) bonus += c->coins;
    else ids[n++] = in[i], coins += c->coins;
  }
  alpha -= bonus, beta -= bonus;
  s->nodes++;
  if (n == 0) return bonus;
  if (alpha >= coins) return bonus + coins;
  if (beta <= -coins) return bonus - coins;

  /* captures: a safe one alone; else every capture and one decline */
  int first_cap = -1;
  for (int i = 0; i < n; i++) {
    const pdb_class *c = &db->cls[ids[i]];
    if (!(c->flags & DAB_PDB_CAPTURABLE)) continue;
    if (c->safe_move >= 0) {
      const uint32_t *w = pdb_moves(db, ids[i]);
      for (int m = 0; m < c->safe_move; m++) w = pdb_next_move(w);
      return bonus + move_value(s, ids, n, i, w, alpha, beta);
    }
    if (first_cap < 0) first_cap = i;
  }
  if (first_cap >= 0) {
    int best = -1000;
    for (int i = first_cap; i < n; i++) {
      const pdb_class *c = &db->cls[ids[i]];
      if (!(c->flags & DAB_PDB_CAPTURABLE) || (i > first_cap && ids[i] == ids[i - 1])) continue;
      const uint32_t *w = pdb_moves(db, ids[i]);
      for (int m = 0; m < c->nmoves; m++, w = pdb_next_move(w)) {
        if (!MV_CAPTURED(*w) && !(i == first_cap && m == c->decline_move)) continue;
        int a = alpha > best ? alpha : best;
        int v = move_value(s, ids, n, i, w, a, beta);
        if (v > best) {
          best = v;
          if (v >= beta) return bonus + best;
        }
      }
    }
    return bonus + best;
  }

  /* one component left: its value alone, stored */
  if (n == 1) return bonus + db->cls[ids[0]].value;
  bool sle = true;
  int sv = sle_value(db, ids, n, &sle);
  if (sle) return bonus + sv;

  /* the table: keyed by the sorted ids */
  XXH128_hash_t h = XXH3_128bits(ids, (size_t)n * sizeof ids[0]);
  sum_entry *e = &s->t->e[h.low64 & s->t->mask];
  uint64_t check = h.high64 >> 36;
  uint64_t ew = __atomic_load_n(&e->word, __ATOMIC_RELAXED), ed = __atomic_load_n(&e->data, __ATOMIC_RELAXED);
  bool hit = (ew ^ ed) == h.low64 && (ed >> 36) == check;
  int elower = (int8_t)(ed & 255), eupper = (int8_t)(ed >> 8 & 255), ework = (int)(ed >> 16 & 255);
  int ttmove = hit ? (int)(ed >> 24 & 4095) - 1 : -1;
  if (hit) {
    if (elower >= beta) return bonus + elower;
    if (eupper <= alpha) return bonus + eupper;
    if (elower == eupper) return bonus + elower;
    if (elower > alpha) alpha = elower;
    if (eupper < beta) beta = eupper;
  }
  uint64_t nodes0 = s->nodes;
  int alpha0 = alpha, best = -1000, skipped = -1000, bestcode = -1;
  /* the table's move first */
  if (ttmove >= 0 && (ttmove >> 7) < n && (ttmove & 127) < db->cls[ids[ttmove >> 7]].nmoves) {
    const uint32_t *w = pdb_moves(db, ids[ttmove >> 7]);
    for (int m = 0; m < (ttmove & 127); m++) w = pdb_next_move(w);
    best = move_value(s, ids, n, ttmove >> 7, w, alpha, beta);
    bestcode = ttmove;
  } else {
    ttmove = -1;
  }
  /* quiet moves that give nothing first, then sacrifices; one opening
  ** per run, and none whose loony bound cannot beat alpha (that bound
  ** still counts when every move fails low) */
  for (int pass = 0; pass < 2 && best < beta; pass++)
    for (int i = n - 1; i >= 0 && best < beta; i--) { /* larger components (later ids) first */
      if (i > 0 && ids[i] == ids[i - 1]) continue;
      const pdb_class *c = &db->cls[ids[i]];
      const uint32_t *w = pdb_moves(db, ids[i]);
      for (int m = 0; m < c->nmoves; m++, w = pdb_next_move(w)) {
        if ((int)MV_SACRIFICE(*w) != pass || MV_REDUNDANT(*w) || (i << 7 | m) == ttmove) continue;
        int a = alpha > best ? alpha : best;
        int u = MV_LOONY(*w);
        if (u != MV_NO_LOONY && u <= a) {
          if (u > skipped) skipped = u;
          continue;
        }
        int v = move_value(s, ids, n, i, w, a, beta);
        if (v > best) {
          best = v;
          bestcode = i << 7 | m;
          if (v >= beta) break;
        }
      }
    }
  if (skipped > best) best = skipped, bestcode = -1;
  int lower = -128, upper = 127;
  if (best <= alpha0) upper = best;
  else if (best >= beta) lower = best;
  else lower = upper = best;
  uint64_t work = s->nodes - nodes0;
  int wk = work ? 64 - __builtin_clzll(work) : 0;
  if (hit || wk >= ework) {
    if (hit) {
      if (elower > lower) lower = elower;
      if (eupper < upper) upper = eupper;
    }
    uint64_t mv = best > alpha0 && bestcode >= 0 ? (uint64_t)(bestcode + 1) : 0;
    uint64_t d = (uint64_t)(uint8_t)lower | (uint64_t)(uint8_t)upper << 8 | (uint64_t)wk << 16 | mv << 24 | check << 36;
    __atomic_store_n(&e->data, d, __ATOMIC_RELAXED);
    __atomic_store_n(&e->word, h.low64 ^ d, __ATOMIC_RELAXED);
  }
  return bonus + best;
}

int dab_pdb_search(const dab_pdb *db, dab_pdb_table *t, const uint32_t *ids, int n, int alpha, int beta,
                   uint64_t *nodes) {
  sum_ctx c = {db, t, 0};
  int v = search(&c, ids, n, alpha, beta);
  if (nodes) *nodes += c.nodes;
  return v;
}

int pdb_value_by_moves(const dab_pdb *db, dab_pdb_table *t, uint32_t id) {
  sum_ctx c = {db, t, 0};
  int best = -1000;
  const uint32_t *w = pdb_moves(db, id);
  for (int m = 0; m < db->cls[id].nmoves; m++, w = pdb_next_move(w)) {
    int v = move_value(&c, &id, 1, 0, w, -1000, 1000);
    if (v > best) best = v;
  }
  return db->cls[id].nmoves ? best : 0;
}

int dab_pdb_value(const dab_pdb *db, dab_pdb_table *t, const uint32_t *ids, int n, uint64_t *nodes) {
  return dab_pdb_search(db, t, ids, n, -1000, 1000, nodes);
}
