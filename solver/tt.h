/*
** tt.h: the transposition table of the alpha-beta solver: proved lower and
** upper bounds plus a best move, keyed by canonical position.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_TT_H
#define DAB_TT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "game/err.h"

/*
** Layout.  The table is an array of n buckets of DAB_TT_WAYS entries;
** one bucket is one 64-byte cache line.  The bucket of a key is the high
** half of XXH3_64(key) * n, so n need not be a power of two.  Every entry
** holds the WHOLE key (positions have <= 64 lines), so a hit is never a
** false hit.
**
**   entry (16 bytes)
**   +------------------------+------------------------------------------+
**   | check = key ^ data     | data                                     |
**   +------------------------+------------------------------------------+
**   data bits:  0..7  lower bound + 128     (int8 value, -128 = none)
**               8..15 upper bound + 128
**              16..25 best move, 1023 = none: a line in the canonical
**                     frame (symmetric keys) or a canonical edge code
**                     (graph keys, symmetry/sckey.h)
**              26..31 work: floor(log2(nodes searched below)) + 1, max 63
**              32..39 generation (search number, for aging)
**              40..63 check: 24 more key bits.  Keys that are whole
**                     positions (board-symmetry keys) use 0; graph keys
**                     (hashes) set bit 63 and 23 bits of a second hash,
**                     so a table walk can tell the two kinds apart
**
** Threads share the table without locks (lazy SMP).  A torn write (key
** from one store, data from another) fails the check = key ^ data test
** and reads as a miss, so a reader never trusts a mixed entry.
**
** All bounds a search proves here are TRUE bounds of the position's exact
** value (the search has no depth limit), so two entries for one key can
** always be merged by intersecting their intervals.
*/

#define DAB_TT_WAYS 4
#define DAB_TT_NOMOVE 1023
#define DAB_TT_CHECK_BITS 24
#define DAB_TT_CHECK_HASHED (1u << 23) /* in a check: the key is a hash, not a position */

typedef struct dab_tt_entry {
  uint64_t check;
  uint64_t data;
} dab_tt_entry;

typedef struct dab_tt_bucket {
  dab_tt_entry e[DAB_TT_WAYS];
} dab_tt_bucket;

_Static_assert(sizeof(dab_tt_bucket) == 64, "one bucket per cache line");

/* Replacement policies, measured in docs/solver.md. */
typedef enum dab_tt_policy {
  DAB_TT_WORK = 0,    /* same key, else empty, else least work (older first) */
  DAB_TT_ALWAYS = 1,  /* same key, else empty, else the first way (no bookkeeping) */
  DAB_TT_DIRECT = 2   /* one way per key (a direct-mapped table) */
} dab_tt_policy;

typedef struct dab_tt {
  dab_tt_bucket *bucket;
  uint64_t nbuckets;
  dab_tt_policy policy;
  uint8_t generation;
} dab_tt;

/* A probe's answer. */
typedef struct dab_tt_hit {
  int lower, upper;       /* proved bounds (lower <= value <= upper) */
  int move;               /* canonical-frame best move, or -1 */
} dab_tt_hit;

/*
** Allocates a table of at most `bytes` bytes (rounded down to whole
** 64-byte buckets, at least one bucket).
** RETURN: DAB_OK, or DAB_ENOMEM with a message (nothing allocated).
** NOTES: the memory is an anonymous mapping zeroed by the OS, its pages
** faulted in once here, in order (not cleared by a memset).
*/
dab_status dab_tt_init(dab_tt *tt, uint64_t bytes, dab_tt_policy policy, dab_err *err);
/* The buckets dab_tt_init allocates for `bytes` (for memory plans). */
static inline uint64_t dab_tt_buckets_for(uint64_t bytes) {
  return bytes / sizeof(dab_tt_bucket) > 0 ? bytes / sizeof(dab_tt_bucket) : 1;
}
void dab_tt_free(dab_tt *tt);

/* Forgets every entry. */
void dab_tt_clear(dab_tt *tt);

/* Number of entries in use, estimated from the first 1,024 buckets
** (a few microseconds: cheap enough to report after every query). */
uint64_t dab_tt_used(const dab_tt *tt);

/* Capacity in entries. */
static inline uint64_t dab_tt_capacity(const dab_tt *tt) { return tt->nbuckets * DAB_TT_WAYS; }

/* Bucket of a key (XXH3 of its 8 bytes). */
uint64_t dab_tt_index(const dab_tt *tt, uint64_t key);

/* Starts loading key's bucket into the cache, so that a probe issued a
** little later finds it there (a hint only: no effect on any result). */
static inline void dab_tt_prefetch(const dab_tt *tt, uint64_t key) {
  __builtin_prefetch(&tt->bucket[dab_tt_index(tt, key)]);
}

/*
** Looks up key, whose 24 extra check bits are `check` (0 for keys that are
** whole positions).  RETURN: true and *hit filled when present.
** NOTES: thread-safe against concurrent stores (see the layout note).
*/
bool dab_tt_probe_checked(const dab_tt *tt, uint64_t key, uint32_t check, dab_tt_hit *hit);

/*
** Records lower <= value(key) <= upper (use -128/127 for "none") and a best
** move (-1 = none); work is log2 of the nodes the proof took; check as in
** dab_tt_probe_checked.  An entry for the same key is merged (bounds
** intersected).
** NOTES: thread-safe (lock-free, see the layout note).
*/
void dab_tt_store_checked(dab_tt *tt, uint64_t key, uint32_t check, int lower, int upper, int move, int work);

/*
** Reads entry number `slot` (0 .. capacity-1) for a table walk.
** RETURN: true and the key, check, bounds/move and work when the slot holds
** an entry.  NOTES: safe while other threads store; a torn entry is
** reported as empty.  An entry whose check has DAB_TT_CHECK_HASHED set is
** keyed by a hash, not by a position.
*/
bool dab_tt_read(const dab_tt *tt, uint64_t slot, uint64_t *key, uint32_t *check, dab_tt_hit *hit, int *work);

/* The same for keys that are whole positions (check 0). */
static inline bool dab_tt_probe(const dab_tt *tt, uint64_t key, dab_tt_hit *hit) {
  return dab_tt_probe_checked(tt, key, 0, hit);
}
static inline void dab_tt_store(dab_tt *tt, uint64_t key, int lower, int upper, int move, int work) {
  dab_tt_store_checked(tt, key, 0, lower, upper, move, work);
}

#endif
