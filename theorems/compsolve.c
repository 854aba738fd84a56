/*
** compsolve.c: alpha-beta with a transposition table over multisets of
** paths and cycles; cuts strings, knows no theory.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "game/hashmix.h"
#include "theorems/compsolve.h"

_Static_assert(DAB_CS_MAX_COINS + 2 * DAB_CS_MAX_COINS <= 128, "key must stay injective");
_Static_assert(63 * 4 + 3 <= 255, "a component code fits a byte");

/*
** Transposition table entry: the 128-bit key and the bounds proved so
** far, lb <= v <= ub.  Open addressing, linear probing; key 0 = empty (a
** stored position is never empty, and every component sets a key bit).
*/
typedef struct tt_entry {
  uint64_t k0, k1;
  int8_t lb, ub;
} tt_entry;

struct dab_cs {
  tt_entry *tab;
  size_t cap, count, max_entries;
  uint64_t nodes;
};

#define VAL_INF 127

dab_cs *dab_cs_new(size_t max_entries) {
  dab_cs *cs = calloc(1, sizeof *cs);
  if (!cs) return NULL;
  cs->max_entries = max_entries ? max_entries : (size_t)64 << 20;
  cs->cap = (size_t)1 << 16;
  cs->tab = calloc(cs->cap, sizeof *cs->tab);
  if (!cs->tab) {
    free(cs);
    return NULL;
  }
  return cs;
}

void dab_cs_free(dab_cs *cs) {
  if (!cs) return;
  free(cs->tab);
  free(cs);
}

size_t dab_cs_entries(const dab_cs *cs) { return cs->count; }
uint64_t dab_cs_nodes(const dab_cs *cs) { return cs->nodes; }


static void make_key(const dab_cs_pos *p, uint64_t *k0, uint64_t *k1) {
  unsigned __int128 k = 0;
  int bit = 0;
  for (int i = 0; i < p->n; i++) {
    int t = dab_cs_type(p->code[i]), n = dab_cs_len(p->code[i]);
    k |= (unsigned __int128)t << bit;
    bit += 2 + n;  /* n-1 zero bits, then a one */
    k |= (unsigned __int128)1 << (bit - 1);
  }
  *k0 = (uint64_t)k;
  *k1 = (uint64_t)(k >> 64);
}

static tt_entry *tt_find(const dab_cs *cs, uint64_t k0, uint64_t k1) {
  size_t mask = cs->cap - 1;
  for (size_t i = dab_mix64(k0 ^ dab_mix64(k1)) & mask;; i = (i + 1) & mask) {
    tt_entry *e = &cs->tab[i];
    if (e->k0 == k0 && e->k1 == k1) return e;
    if (!e->k0 && !e->k1) return e;  /* the empty slot where it would go */
  }
}

static bool tt_grow(dab_cs *cs) {
  size_t ncap = cs->cap * 2;
  tt_entry *nt = calloc(ncap, sizeof *nt);
  if (!nt) return false;
  tt_entry *old = cs->tab;
  size_t ocap = cs->cap;
  cs->tab = nt;
  cs->cap = ncap;
  for (size_t i = 0; i < ocap; i++) {
    if (!old[i].k0 && !old[i].k1) continue;
    *tt_find(cs, old[i].k0, old[i].k1) = old[i];
  }
  free(old);
  return true;
}

/* Stores bounds; when the table cannot grow the entry is dropped (the
** search stays exact, only slower). */
static void tt_store(dab_cs *cs, uint64_t k0, uint64_t k1, int lb, int ub) {
  tt_entry *e = tt_find(cs, k0, k1);
  if (!e->k0 && !e->k1) {
    if ((cs->count + 1) * 10 > cs->cap * 7) {
      if (cs->cap * 7 / 10 >= cs->max_entries || !tt_grow(cs)) return;
      e = tt_find(cs, k0, k1);
    }
    e->k0 = k0;
    e->k1 = k1;
    e->lb = -VAL_INF;
    e->ub = VAL_INF;
    cs->count++;
  }
  if (lb > e->lb) e->lb = (int8_t)lb;
  if (ub < e->ub) e->ub = (int8_t)ub;
}

/* ---- Positions ------------------------------------------------------ */

static void sort_codes(uint8_t *a, int n) {
  for (int i = 1; i < n; i++) {
    uint8_t x = a[i];
    int j = i - 1;
    while (j >= 0 && a[j] > x) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
}

static inline bool is_free(uint8_t c) {
  return c == dab_cs_code(1, DAB_CS_GF) || c == dab_cs_code(2, DAB_CS_FF) ||
         c == dab_cs_code(3, DAB_CS_FF);
}

int dab_cs_normalize(dab_cs_pos *p) {
  int w = 0, m = 0;
  for (int i = 0; i < p->n; i++) {
    if (is_free(p->code[i])) w += dab_cs_len(p->code[i]);
    else p->code[m++] = p->code[i];
  }
  p->n = m;
  sort_codes(p->code, m);
  return w;
}

int dab_cs_coins(const dab_cs_pos *p) {
  int n = 0;
  for (int i = 0; i < p->n; i++) n += dab_cs_len(p->code[i]);
  return n;
}

bool dab_cs_from_sle(const dab_sle *G, dab_cs_pos *out) {
  if (G->nchains + G->nloops > DAB_CS_MAX_COMP || dab_sle_size(G) > DAB_CS_MAX_COINS) return false;
  out->n = 0;
  for (int i = 0; i < G->nchains; i++) out->code[out->n++] = dab_cs_code(G->chain[i], DAB_CS_GG);
  for (int i = 0; i < G->nloops; i++) out->code[out->n++] = dab_cs_code(G->loop[i], DAB_CS_CYCLE);
  sort_codes(out->code, out->n);
  return true;
}

/* A piece of n coins with ends a, b (0 ground, 1 free) left by a cut:
** appended to child, or captured when it is one coin with no string. */
static void add_piece(dab_cs_pos *child, int *captured, int n, int a, int b) {
  if (n == 1 && a && b) {
    (*captured)++;
    return;
  }
  int type = a + b;  /* 0 GG, 1 GF, 2 FF */
  child->code[child->n++] = dab_cs_code(n, type);
}

static void emit(const dab_cs_pos *p, int j, int cut, int n1, int a1, int b1, int n2, int a2,
                 int b2, dab_cs_move *m) {
  m->comp = j;
  m->cut = cut;
  m->captured = 0;
  dab_cs_pos *c = &m->child;
  c->n = 0;
  for (int i = 0; i < p->n; i++)
    if (i != j) c->code[c->n++] = p->code[i];
  if (n1) add_piece(c, &m->captured, n1, a1, b1);
  if (n2) add_piece(c, &m->captured, n2, a2, b2);
  m->free = dab_cs_normalize(c);
}

int dab_cs_moves(const dab_cs_pos *p, dab_cs_move *moves) {
  int k = 0;
  for (int j = 0; j < p->n; j++) {
    if (j && p->code[j] == p->code[j - 1]) continue;  /* identical component */
    int n = dab_cs_len(p->code[j]);
    switch (dab_cs_type(p->code[j])) {
    case DAB_CS_GG:  /* G-c1-...-cn-G: left ground, internal i <= n/2 */
      emit(p, j, 0, n, 1, 0, 0, 0, 0, &moves[k++]);
      for (int i = 1; i <= n / 2; i++) emit(p, j, i, i, 0, 1, n - i, 1, 0, &moves[k++]);
      break;
    case DAB_CS_GF:  /* G-c1-...-cn: left ground, every internal */
      emit(p, j, 0, n, 1, 1, 0, 0, 0, &moves[k++]);
      for (int i = 1; i < n; i++) emit(p, j, i, i, 0, 1, n - i, 1, 1, &moves[k++]);
      break;
    case DAB_CS_FF:  /* c1-...-cn: internal i <= n/2 */
      for (int i = 1; i <= n / 2; i++) emit(p, j, i, i, 1, 1, n - i, 1, 1, &moves[k++]);
      break;
    default:         /* cycle: every cut alike */
      emit(p, j, 0, n, 1, 1, 0, 0, 0, &moves[k++]);
      break;
    }
  }
  return k;
}

/* ---- Search --------------------------------------------------------- */

#define MAX_MOVES (2 * DAB_CS_MAX_COINS + DAB_CS_MAX_COMP)

/* Order: captures first (all of them are usually right), then the rest
** by a cheap guess from the table; the order only changes speed. */
static int move_guess(dab_cs *cs, const dab_cs_move *m) {
  if (m->captured) return 1000 + m->captured;
  uint64_t k0, k1;
  make_key(&m->child, &k0, &k1);
  tt_entry *e = tt_find(cs, k0, k1);
  if (e->k0 || e->k1) {
    int mid = (e->lb + e->ub) / 2;
    if (e->lb > -VAL_INF && e->ub < VAL_INF) return -(m->free + mid);
    if (e->lb > -VAL_INF) return -(m->free + e->lb);
    if (e->ub < VAL_INF) return -(m->free + e->ub);
  }
  return -m->free - 50;
}

static int search(dab_cs *cs, const dab_cs_pos *p, int alpha, int beta) {
  if (p->n == 0) return 0;
  cs->nodes++;
  uint64_t k0, k1;
  make_key(p, &k0, &k1);
  int lb = -VAL_INF, ub = VAL_INF;
  tt_entry *e = tt_find(cs, k0, k1);
  if (e->k0 || e->k1) {
    lb = e->lb;
    ub = e->ub;
    if (lb >= beta) return lb;
    if (ub <= alpha) return ub;
    if (lb == ub) return lb;
  }
  int a = alpha > lb ? alpha : lb, b = beta < ub ? beta : ub;
  int a0 = a, b0 = b;
  dab_cs_move moves[MAX_MOVES];
  int score[MAX_MOVES];
  int nm = dab_cs_moves(p, moves);
  for (int i = 0; i < nm; i++) score[i] = move_guess(cs, &moves[i]);
  int best = -VAL_INF;
  for (int done = 0; done < nm; done++) {
    int bi = done;
    for (int i = done + 1; i < nm; i++)
      if (score[i] > score[bi]) bi = i;
    if (bi != done) {
      dab_cs_move t = moves[bi];
      moves[bi] = moves[done];
      moves[done] = t;
      int s = score[bi];
      score[bi] = score[done];
      score[done] = s;
    }
    const dab_cs_move *m = &moves[done];
    int v;
    if (m->captured) {
      int off = m->captured + m->free;
      v = off + search(cs, &m->child, a - off, b - off);
    } else {
      int off = m->free;
      v = -(off + search(cs, &m->child, -b - off, -a - off));
    }
    if (v > best) best = v;
    if (best > a) a = best;
    if (a >= b) break;
  }
  if (best <= a0) tt_store(cs, k0, k1, -VAL_INF, best);
  else if (best >= b0) tt_store(cs, k0, k1, best, VAL_INF);
  else tt_store(cs, k0, k1, best, best);
  return best;
}

int dab_cs_search(dab_cs *cs, const dab_cs_pos *p, int alpha, int beta) {
  return search(cs, p, alpha, beta);
}

int dab_cs_value(dab_cs *cs, const dab_cs_pos *p, int guess) {
  /* Values have the parity of the coins, so (guess-2, guess+2) pins the
  ** value to guess when the search lands inside. */
  int v = search(cs, p, guess - 2, guess + 2);
  if (v > guess - 2 && v < guess + 2) return v;
  return search(cs, p, -VAL_INF, VAL_INF);
}

int dab_cs_move_value(dab_cs *cs, const dab_cs_move *m, int guess) {
  if (m->captured) {
    int off = m->captured + m->free;
    return off + dab_cs_value(cs, &m->child, guess - off);
  }
  return -(m->free + dab_cs_value(cs, &m->child, -guess - m->free));
}

char *dab_cs_format(const dab_cs_pos *p, char *buf, size_t len) {
  static const char *suffix[4] = {"", "GF", "FF", ""};
  size_t at = 0;
  if (len) buf[0] = 0;
  if (!p->n && len > 1) {
    buf[0] = '0';
    buf[1] = 0;
  }
  for (int i = 0; i < p->n && at < len; i++) {
    int t = dab_cs_type(p->code[i]);
    int w = snprintf(buf + at, len - at, "%s%s%d%s", i ? "+" : "", t == DAB_CS_CYCLE ? "L" : "",
                     dab_cs_len(p->code[i]), suffix[t]);
    if (w < 0) break;
    at += (size_t)w;
  }
  return buf;
}
