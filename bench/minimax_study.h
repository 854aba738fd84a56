/*
** minimax_study.h: the four minimax solvers of the OpenSpiel project's
** minimax study (naive, transposition table, canonical keys, every image).
** See Copyright Notice in README.md
*/
#ifndef DAB_MINIMAX_STUDY_H
#define DAB_MINIMAX_STUDY_H

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "game/clock.h"
#include "game/board.h"
#include "symmetry/sym.h"

/*
** Shared by bench/minimax_study.c and tests/test_players_os.c (header-only:
** bench/ is not a library folder).
**
** Every solver computes the same number: the value of a position in
** dab's convention, the net boxes the player to move gains from there on
** under optimal play by both sides (negamax; a move that completes k
** boxes is worth k plus the value of the same player's next position,
** any other move minus the opponent's value).  That value does not depend
** on the score so far nor on whose turn it is, so a table keyed by the
** drawn lines alone is exact.  (The published solvers stored win/draw/loss
** and keyed their tables by lines, both players' points and the player to
** move; the line key is what makes their Table 2 count 2^lines states.)
**
**   MS_NAIVE   plain recursion, no table: it walks the whole game tree,
**              every ordering of the lines, floor(e * n!) nodes for n
**              lines (12 lines: 1.30e9; 17: 9.7e14; 24: 1.7e24).  A time
**              limit stops it (the result is then marked incomplete).
**   MS_TT      a table keyed by the position.
**   MS_CANON   a table keyed by the least symmetric image (symmetry/sym.h,
**              no border equivalence): one key per symmetry class.
**   MS_ALLSYM  a table keyed by the position; after a position is solved
**              all its images are stored (no canonical form at lookup).
**
** "Nodes expanded" counts the positions whose moves were generated (a
** table hit is not an expansion); "keys" the distinct keys stored; "table
** bytes" the bytes the table allocated (open addressing, 8 bytes a slot,
** load kept at most 1/2).
*/

typedef enum { MS_NAIVE, MS_TT, MS_CANON, MS_ALLSYM, MS_NKINDS } ms_kind;

static const char *const ms_kind_name[MS_NKINDS] = {"naive", "tt", "tt-canonical", "tt-all-images"};

typedef struct ms_result {
  int value;              /* the root's value (valid when complete) */
  bool complete;          /* false: stopped by the time limit or memory */
  bool oom;               /* stopped because the table could not grow */
  double seconds;
  uint64_t nodes, keys, table_bytes;
} ms_result;

typedef struct ms_ctx {
  const dab_geom *g;
  const dab_sym *sym;     /* MS_CANON, MS_ALLSYM */
  ms_kind kind;
  uint64_t *slot;         /* entry: (key + 1) << 8 | (uint8_t)value; 0 = empty */
  uint64_t cap, n;
  int logcap;
  uint64_t nodes;
  double deadline;        /* MS_NAIVE: monotonic seconds, 0 = none */
  bool stop, oom;
} ms_ctx;

static inline double ms_now(void) {
  return dab_now_s();
}

static inline uint64_t ms_hash(uint64_t key, int logcap) {
  return (key * 0x9e3779b97f4a7c15ull) >> (64 - logcap);
}

/* Value stored for key, or false. */
static inline bool ms_get(const ms_ctx *c, uint64_t key, int *v) {
  uint64_t tag = key + 1;
  for (uint64_t i = ms_hash(key, c->logcap);; i = (i + 1) & (c->cap - 1)) {
    uint64_t e = c->slot[i];
    if (!e) return false;
    if (e >> 8 == tag) {
      *v = (int8_t)(e & 0xff);
      return true;
    }
  }
}

/* Doubles the table.  RETURN: false when out of memory. */
static inline bool ms_grow(ms_ctx *c) {
  int logcap = c->logcap + 1;
  uint64_t cap = 1ull << logcap;
  uint64_t *slot = calloc(cap, sizeof *slot);
  if (!slot) return false;
  for (uint64_t j = 0; j < c->cap; j++) {
    uint64_t e = c->slot[j];
    if (!e) continue;
    uint64_t i = ms_hash((e >> 8) - 1, logcap);
    while (slot[i]) i = (i + 1) & (cap - 1);
    slot[i] = e;
  }
  free(c->slot);
  c->slot = slot;
  c->cap = cap;
  c->logcap = logcap;
  return true;
}

/* Stores key -> v (an existing key keeps its value; it is the same). */
static inline void ms_put(ms_ctx *c, uint64_t key, int v) {
  if (2 * (c->n + 1) > c->cap && !ms_grow(c)) {
    c->stop = c->oom = true;
    return;
  }
  uint64_t tag = key + 1;
  uint64_t i = ms_hash(key, c->logcap);
  for (; c->slot[i]; i = (i + 1) & (c->cap - 1))
    if (c->slot[i] >> 8 == tag) return;
  c->slot[i] = tag << 8 | (uint8_t)(int8_t)v;
  c->n++;
}

/* Negamax value of p (see the top).  Returns 0 once c->stop is set. */
static int ms_value(ms_ctx *c, uint64_t p) {
  const dab_geom *g = c->g;
  if (p == g->all_lines) return 0;
  uint64_t key = c->kind == MS_CANON ? dab_sym_canon64(c->sym, p, false, NULL) : p;
  int v;
  if (c->kind != MS_NAIVE && ms_get(c, key, &v)) return v;
  if ((++c->nodes & 0xfffff) == 0 && c->deadline > 0 && ms_now() > c->deadline) c->stop = true;
  if (c->stop) return 0;
  int best = -DAB_MAX_BOXES - 1;
  for (uint64_t u = ~p & g->all_lines; u; u &= u - 1) {
    int m = __builtin_ctzll(u);
    int k = dab64_completes(g, p, m);
    int cv = ms_value(c, p | 1ull << m);
    if (c->stop) return 0;
    cv = k ? k + cv : -cv;
    if (cv > best) best = cv;
  }
  if (c->kind == MS_TT || c->kind == MS_CANON) ms_put(c, key, best);
  else if (c->kind == MS_ALLSYM)
    for (int t = 0; t < c->sym->ntrans; t++) ms_put(c, dab_sym_apply64(c->sym, t, p), best);
  return best;
}

/*
** Solves position p of board g (at most 56 lines) with one of the four
** solvers.  sym is needed by MS_CANON and MS_ALLSYM (may be NULL
** otherwise); time_limit (seconds, 0 = none) bounds MS_NAIVE only.
** RETURN: the result; complete = false when the time limit or memory
** stopped it (value then meaningless).
*/
static inline ms_result ms_solve(const dab_geom *g, const dab_sym *sym, ms_kind kind, uint64_t p,
                                 double time_limit) {
  ms_ctx c;
  memset(&c, 0, sizeof c);
  c.g = g;
  c.sym = sym;
  c.kind = kind;
  ms_result r;
  memset(&r, 0, sizeof r);
  double t0 = ms_now();
  if (kind != MS_NAIVE) {
    c.logcap = 10;
    c.cap = 1ull << c.logcap;
    if (!(c.slot = calloc(c.cap, sizeof *c.slot))) {
      r.oom = true;
      return r;
    }
  } else if (time_limit > 0) {
    c.deadline = t0 + time_limit;
  }
  r.value = ms_value(&c, p);
  r.seconds = ms_now() - t0;
  r.complete = !c.stop;
  r.oom = c.oom;
  r.nodes = c.nodes;
  r.keys = c.n;
  r.table_bytes = c.cap * sizeof(uint64_t);
  free(c.slot);
  return r;
}

#endif
