/*
** bits.h: pext, pdep and popcount on 64-bit words, fast on every x86-64.
** See Copyright Notice in README.md
*/
#ifndef DAB_BITS_H
#define DAB_BITS_H

#include <stdbool.h>
#include <stdint.h>
/* The base object of a file built twice (game/isa.h) runs only where
** BMI2 is missing or slow: the portable code, without the check. */
#if defined(DAB_ISA_BASE) && !defined(__BMI2__) && !defined(DAB_BITS_SOFT)
#define DAB_BITS_SOFT 1
#endif
#ifdef __BMI2__
#include <immintrin.h>
#endif

/*
** The bitboards lean on three instructions: pext (gather the bits of x
** under a mask into the low bits), pdep (its inverse) and popcnt.  Three
** builds pick them differently:
**
**   - compiled for BMI2 (`make ARCH=-march=native` on a BMI2 CPU, or
**     -march=x86-64-v3): the instructions, inlined, nothing checked;
**   - the default build on x86-64 (no -march: it runs on any x86-64 CPU):
**     each call tests the CPU's feature bits (libgcc's __cpu_model, set
**     before main; one predictable branch) and runs the instruction when
**     it is there and fast, else the portable code below.  pext/pdep are
**     microcoded on AMD families 15h-17h (Excavator, Zen 1 and 2: about
**     250 cycles), so those take the portable code too;
**   - any other CPU (aarch64, ...): the portable code.
**
** The portable pext/pdep take one step per run of consecutive mask bits,
** not per bit: the masks the solvers use are runs (a row's horizontal
** lines, the free lines of a position near the start), so a 3x4 side
** mask takes 3 steps.  -DDAB_BITS_SOFT forces the portable pext/pdep,
** to measure what a CPU without fast BMI2 gets (docs/PERFORMANCE.md).
*/

/* Portable pext: the bits of x under mask, packed into the low bits. */
static inline uint64_t dab_pext64_soft(uint64_t x, uint64_t mask) {
  uint64_t r = 0;
  unsigned k = 0;                        /* result bits filled so far */
  while (mask) {
    unsigned lo = (unsigned)__builtin_ctzll(mask);
    uint64_t t = mask + (mask & -mask);  /* the lowest run cleared, the bit above it set */
    r |= ((x & mask & ~t) >> lo) << k;
    if (!(mask &= t)) break;
    k += (unsigned)__builtin_ctzll(t) - lo;
  }
  return r;
}

/* Portable pdep: the low bits of x spread over the bits of mask. */
static inline uint64_t dab_pdep64_soft(uint64_t x, uint64_t mask) {
  uint64_t r = 0;
  while (mask) {
    unsigned lo = (unsigned)__builtin_ctzll(mask);
    uint64_t t = mask + (mask & -mask);
    r |= (x << lo) & mask & ~t;
    if (!(mask &= t)) break;
    x >>= (unsigned)__builtin_ctzll(t) - lo;
  }
  return r;
}

/* Portable popcount (SWAR): no library call on CPUs without popcnt. */
static inline int dab_popcount64_soft(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (int)((x * 0x0101010101010101ull) >> 56);
}

#if defined(__BMI2__) && !defined(DAB_BITS_SOFT)

#define DAB_BITS_PATH "bmi2 (compiled in)"
static inline uint64_t dab_pext64(uint64_t x, uint64_t mask) { return _pext_u64(x, mask); }
static inline uint64_t dab_pdep64(uint64_t x, uint64_t mask) { return _pdep_u64(x, mask); }

#elif defined(__x86_64__) && defined(__GNUC__) && !defined(DAB_BITS_SOFT)

#define DAB_BITS_PATH "bmi2 when the CPU has it fast (chosen at run time)"
/* True when pext/pdep exist and are fast on this CPU. */
static inline bool dab_cpu_fast_bmi2(void) {
  return __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam17h") &&
         !__builtin_cpu_is("amdfam15h");
}

static inline uint64_t dab_pext64(uint64_t x, uint64_t mask) {
  if (dab_cpu_fast_bmi2()) {
    uint64_t r;
    __asm__("pextq %2, %1, %0" : "=r"(r) : "r"(x), "rm"(mask));
    return r;
  }
  return dab_pext64_soft(x, mask);
}

static inline uint64_t dab_pdep64(uint64_t x, uint64_t mask) {
  if (dab_cpu_fast_bmi2()) {
    uint64_t r;
    __asm__("pdepq %2, %1, %0" : "=r"(r) : "r"(x), "rm"(mask));
    return r;
  }
  return dab_pdep64_soft(x, mask);
}

#else

#define DAB_BITS_PATH "portable"
static inline uint64_t dab_pext64(uint64_t x, uint64_t mask) { return dab_pext64_soft(x, mask); }
static inline uint64_t dab_pdep64(uint64_t x, uint64_t mask) { return dab_pdep64_soft(x, mask); }

#endif

/* popcount: the instruction when compiled for it or (x86-64) when the
** CPU has it, else the portable code; other CPUs: the compiler's. */
#if defined(__POPCNT__) || !defined(__x86_64__) || !defined(__GNUC__)
static inline int dab_popcount64(uint64_t x) { return __builtin_popcountll(x); }
#else
static inline int dab_popcount64(uint64_t x) {
  if (__builtin_cpu_supports("popcnt")) {
    uint64_t r;
    __asm__("popcntq %1, %0" : "=r"(r) : "rm"(x));
    return (int)r;
  }
  return dab_popcount64_soft(x);
}
#endif

#endif
