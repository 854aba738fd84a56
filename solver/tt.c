/*
** tt.c: the solver's lock-free transposition table (layout in tt.h).
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
/* Inlined: the table hashes one 8-byte key per probe, where a call into
** the shared library costs as much as the hash. */
#define XXH_INLINE_ALL
#include <xxhash.h>
#include "solver/tt.h"
#include "game/dabassert.h"
#include "game/sysmem.h"

#define LO_SHIFT 0
#define HI_SHIFT 8
#define MV_SHIFT 16
#define WK_SHIFT 26
#define GEN_SHIFT 32
#define CK_SHIFT 40
#define CK_MASK ((1u << DAB_TT_CHECK_BITS) - 1)

_Static_assert(CK_SHIFT + DAB_TT_CHECK_BITS == 64, "the data word is full");

static inline uint64_t pack(int lower, int upper, int move, int work, uint8_t gen, uint32_t check) {
  if (work > 63) work = 63;
  return (uint64_t)(uint8_t)(lower + 128) << LO_SHIFT | (uint64_t)(uint8_t)(upper + 128) << HI_SHIFT |
         (uint64_t)(move < 0 ? DAB_TT_NOMOVE : move & DAB_TT_NOMOVE) << MV_SHIFT |
         (uint64_t)work << WK_SHIFT | (uint64_t)gen << GEN_SHIFT | (uint64_t)(check & CK_MASK) << CK_SHIFT;
}
static inline int d_lower(uint64_t d) { return (int)((d >> LO_SHIFT) & 0xff) - 128; }
static inline int d_upper(uint64_t d) { return (int)((d >> HI_SHIFT) & 0xff) - 128; }
static inline int d_move(uint64_t d) {
  int m = (int)((d >> MV_SHIFT) & DAB_TT_NOMOVE);
  return m == DAB_TT_NOMOVE ? -1 : m;
}
static inline int d_work(uint64_t d) { return (int)((d >> WK_SHIFT) & 63); }
static inline uint8_t d_gen(uint64_t d) { return (uint8_t)(d >> GEN_SHIFT); }
/* The entry holds (key, check) when check ^ data == key and its check
** bits match. */
static inline bool d_match(uint64_t chk, uint64_t d, uint64_t key, uint32_t check) {
  return (chk ^ d) == key && (uint32_t)(d >> CK_SHIFT) == (check & CK_MASK);
}

/* The bucket of hash h: the high half of h * nbuckets (multiply-shift
** range reduction), so any number of buckets works, not only powers of
** two (a 12 GiB --hash gets 12 GiB), for one multiply instead of a mask.
** It reads h's high bits, so DAB_TT_DIRECT picks its way from the low
** ones. */
static inline uint64_t bucket_of(const dab_tt *tt, uint64_t h) {
  return (uint64_t)(((unsigned __int128)h * tt->nbuckets) >> 64);
}
static inline int direct_way(uint64_t h) { return (int)(h & (DAB_TT_WAYS - 1)); }

static inline uint64_t ld(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void st(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }

dab_status dab_tt_init(dab_tt *tt, uint64_t bytes, dab_tt_policy policy, dab_err *err) {
  memset(tt, 0, sizeof *tt);
  uint64_t n = dab_tt_buckets_for(bytes);
  /* zeroed by the OS, on huge pages (sysmem.h): no memset */
  tt->bucket = dab_huge_map(n * sizeof(dab_tt_bucket));
  if (!tt->bucket)
    return dab_fail(err, DAB_ENOMEM, "out of memory for a %llu MiB transposition table",
                    (unsigned long long)((n * sizeof(dab_tt_bucket)) >> 20));
  tt->nbuckets = n;
  tt->policy = policy;
  tt->generation = 1;
  return DAB_OK;
}

void dab_tt_free(dab_tt *tt) {
  dab_huge_unmap(tt->bucket, tt->nbuckets * sizeof(dab_tt_bucket));
  tt->bucket = NULL;
}

/* Dropping the pages zeroes them (lazily) and returns the memory; a
** memset would write every byte of a table of gigabytes. */
void dab_tt_clear(dab_tt *tt) {
  if (madvise(tt->bucket, tt->nbuckets * sizeof(dab_tt_bucket), MADV_DONTNEED) != 0)
    memset(tt->bucket, 0, tt->nbuckets * sizeof(dab_tt_bucket));
}

/* Keys hash evenly over the buckets, so the first 1,024 are as fair a
** sample as any: read in a row they cost 64 KiB of one or two pages.
** (A sample strided over the whole table cost a cache miss, and on a
** fresh table a page fault, per bucket: ~200 us, more than a small
** oracle query's search.) */
uint64_t dab_tt_used(const dab_tt *tt) {
  uint64_t sample = tt->nbuckets < 1024 ? tt->nbuckets : 1024, used = 0;
  for (uint64_t i = 0; i < sample; i++)
    for (int w = 0; w < DAB_TT_WAYS; w++)
      if (ld(&tt->bucket[i].e[w].data)) used++;
  return sample ? used * tt->nbuckets / sample : 0;
}

bool dab_tt_read(const dab_tt *tt, uint64_t slot, uint64_t *key, uint32_t *check, dab_tt_hit *hit, int *work) {
  if (slot >= dab_tt_capacity(tt)) return false;
  const dab_tt_entry *e = &tt->bucket[slot / DAB_TT_WAYS].e[slot % DAB_TT_WAYS];
  uint64_t d = ld(&e->data);
  if (!d) return false;
  uint64_t k = ld(&e->check) ^ d;
  /* re-read: a store between the two loads shows as a changed data word */
  if (ld(&e->data) != d) return false;
  /* the bucket must be the key's own, else the pair is torn */
  if (bucket_of(tt, XXH3_64bits(&k, sizeof k)) != slot / DAB_TT_WAYS) return false;
  *key = k;
  *check = (uint32_t)(d >> CK_SHIFT);
  hit->lower = d_lower(d);
  hit->upper = d_upper(d);
  hit->move = d_move(d);
  *work = d_work(d);
  return true;
}

uint64_t dab_tt_index(const dab_tt *tt, uint64_t key) { return bucket_of(tt, XXH3_64bits(&key, sizeof key)); }

bool dab_tt_probe_checked(const dab_tt *tt, uint64_t key, uint32_t check, dab_tt_hit *hit) {
  uint64_t h = XXH3_64bits(&key, sizeof key);
  const dab_tt_bucket *b = &tt->bucket[bucket_of(tt, h)];
  int w0 = 0, w1 = DAB_TT_WAYS;
  if (tt->policy == DAB_TT_DIRECT) {
    w0 = direct_way(h);
    w1 = w0 + 1;
  }
  for (int w = w0; w < w1; w++) {
    uint64_t d = ld(&b->e[w].data);
    if (d && d_match(ld(&b->e[w].check), d, key, check)) {
      hit->lower = d_lower(d);
      hit->upper = d_upper(d);
      hit->move = d_move(d);
      return true;
    }
  }
  return false;
}

void dab_tt_store_checked(dab_tt *tt, uint64_t key, uint32_t check, int lower, int upper, int move, int work) {
  DAB_ASSERT(lower <= upper);  /* a bound pair that proves nothing would poison the table */
  uint64_t h = XXH3_64bits(&key, sizeof key);
  dab_tt_bucket *b = &tt->bucket[bucket_of(tt, h)];
  uint8_t gen = __atomic_load_n(&tt->generation, __ATOMIC_RELAXED); /* bumped by running drivers */
  if (tt->policy == DAB_TT_DIRECT) {
    dab_tt_entry *e = &b->e[direct_way(h)];
    uint64_t d = ld(&e->data);
    if (d && d_match(ld(&e->check), d, key, check)) {
      if (d_lower(d) > lower) lower = d_lower(d);
      if (d_upper(d) < upper) upper = d_upper(d);
      if (move < 0) move = d_move(d);
      if (d_work(d) > work) work = d_work(d);
    }
    uint64_t nd = pack(lower, upper, move, work, gen, check);
    st(&e->data, nd);
    st(&e->check, key ^ nd);
    return;
  }
  int victim = -1, vscore = 1 << 30;
  for (int w = 0; w < DAB_TT_WAYS; w++) {
    uint64_t d = ld(&b->e[w].data);
    if (!d) {
      if (victim < 0 || vscore > -1) victim = w, vscore = -1;
      continue;
    }
    if (d_match(ld(&b->e[w].check), d, key, check)) {
      /* Same position: merge the proofs. */
      if (d_lower(d) > lower) lower = d_lower(d);
      if (d_upper(d) < upper) upper = d_upper(d);
      if (move < 0) move = d_move(d);
      if (d_work(d) > work) work = d_work(d);
      victim = w;
      break;
    }
    if (tt->policy == DAB_TT_WORK) {
      /* Entries from older searches count as less work. */
      int s = d_work(d) - (d_gen(d) != gen ? 16 : 0);
      if (s < vscore) victim = w, vscore = s;
    } else if (victim < 0) {
      victim = 0, vscore = 0;
    }
  }
  if (lower > upper) lower = upper; /* cannot happen with exact proofs; keep sane */
  uint64_t nd = pack(lower, upper, move, work, gen, check);
  st(&b->e[victim].data, nd);
  st(&b->e[victim].check, key ^ nd);
}
