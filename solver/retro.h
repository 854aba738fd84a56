/*
** retro.h: exhaustive retrograde solver: the value of every position
** reachable from a root (a whole board when the root is empty).
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_RETRO_H
#define DAB_RETRO_H

#include <stddef.h>
#include "game/board.h"
#include "game/progress.h"
#include "game/analysis.h"

/*
** The table.  Below a root position (the lines already drawn), every
** position is root | some subset of the F free lines.  The subset is the
** index: bit k of the index is the k-th free line in increasing id order
** (pext of the position by free_mask).  One int8_t per index:
**
**    index  0 ............................................. 2^F - 1
**    value [ v(root) | v(root+f0) | v(root+f1) | ... | v(full board) = 0 ]
**
** For the empty root the index is the position itself, so a whole-board
** table reads value[p].  A child always has a larger index than its
** parent, which is why a descending sweep is a valid solving order.
*/
typedef struct dab_retro {
  dab_geom geom;
  uint64_t root;        /* lines drawn at the root */
  uint64_t free_mask;   /* lines undrawn at the root: the index bits */
  int nfree;            /* F */
  int8_t *value;        /* 2^F entries */
  uint64_t count;       /* 2^F */
} dab_retro;

typedef struct dab_retro_opts {
  int threads;                  /* worker threads; 0 = all cores */
  bool plain;                   /* try every move in every position (the
                                   baseline); default uses the capture rule */
  uint64_t mem_limit;           /* refuse plans above this; 0 = MemAvailable */
  dab_progress_fn progress;     /* optional */
  void *progress_ctx;
  dab_cancel_flag *cancel;      /* optional */
} dab_retro_opts;

/* Bytes a table with F free lines needs (2^F). */
static inline uint64_t dab_retro_bytes(int nfree) { return 1ull << nfree; }

/* Expected CPU seconds of dab_retro_solve with F free lines, on the
** reference machine (docs/PERFORMANCE.md's EPYC): 13 ns a position, the
** middle of the measured 10-14 ns (3x4 28-31 CPU-s on one or two threads,
** 2x5 1.4-1.8 s, 3x3 0.2 s; the capture rule's share varies by board),
** so DAB_RETRO_PLAN_LOW to DAB_RETRO_PLAN_HIGH times it. */
static inline double dab_retro_expected_seconds(int nfree) { return 13e-9 * (double)dab_retro_bytes(nfree); }
#define DAB_RETRO_PLAN_LOW 0.67
#define DAB_RETRO_PLAN_HIGH 1.5

/*
** Solves every position at or below root on board g (a fast-path board).
** PARAMETERS: g geometry (copied); root drawn lines; opts may be NULL.
** RETURN: DAB_OK and *out (free with dab_retro_free); DAB_EBOARD when the
** board is over 64 lines or the root has more than DAB_RETRO_MAX_FREE
** undrawn lines; DAB_ENOMEM when 2^F bytes exceed the memory limit (the
** message says how much is needed and available); DAB_ECANCELED.  On
** error *out is NULL and nothing is leaked.
** NOTES: uses opts->threads pthreads; thread-safe (no shared state).
*/
dab_status dab_retro_solve(const dab_geom *g, uint64_t root, const dab_retro_opts *opts,
                           dab_retro **out, dab_err *err);

void dab_retro_free(dab_retro *r);

/* True when p is in the table (p contains the root). */
static inline bool dab_retro_covers(const dab_retro *r, uint64_t p) {
  return (p & r->root) == r->root && (p & ~(r->root | r->free_mask)) == 0;
}

static inline uint64_t dab_retro_index(const dab_retro *r, uint64_t p) {
  return dab_pext64(p, r->free_mask);
}

/* Value of a covered position p (see dab_retro_covers). */
static inline int dab_retro_value(const dab_retro *r, uint64_t p) {
  return r->value[dab_retro_index(r, p)];
}

/*
** Value of p and of each legal move from the table.
** RETURN: DAB_OK, or DAB_EINPUT if p is not covered.
*/
dab_status dab_retro_analyze(const dab_retro *r, uint64_t p, dab_analysis *a, dab_err *err);

#endif
