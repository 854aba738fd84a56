/*
** isa.h: hot loops built twice, for any x86-64 and for x86-64-v3, one
** chosen at run time.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_ISA_H
#define DAB_ISA_H

#include <stdbool.h>

/*
** The default build runs on any x86-64 (no -march).  A few files spend
** their time in pext/pdep/popcnt (the retrograde sweep, the search, the
** graph keys, the probe's capture rule): they are listed in the
** Makefile's ISA_SRC and compiled twice, once as the rest of the library
** and once with -march=x86-64-v3 -DDAB_ISA_V3 (x86-64 only).  Such a file
** names each outer function DAB_ISA_FN(name): name_v3 in the second
** object, name_base in the first (which also takes the portable pext/pdep
** of game/bits.h, as it runs only where BMI2 is missing or slow).  The
** caller picks one with dab_isa_v3(): once per job where it can (the
** sweep, a root test), else once per call of a function that does
** thousands of instructions' work (a graph key, a probe).
**
** DAB_ISA_HAVE_V3 is 1 where the Makefile builds the v3 objects;
** -DDAB_ISA_HAVE_V3=0 (with -DDAB_BITS_SOFT) measures what a CPU without
** x86-64-v3 gets.
*/
#ifdef DAB_ISA_HAVE_V3
#elif defined(__x86_64__) && defined(__GNUC__)
#define DAB_ISA_HAVE_V3 1
#else
#define DAB_ISA_HAVE_V3 0
#endif

#ifdef DAB_ISA_V3
#define DAB_ISA_FN(name) name##_v3
#else
#define DAB_ISA_FN(name) name##_base
#endif

/* True when this CPU runs the x86-64-v3 variants, and runs them fast:
** AVX2, BMI1/2, popcnt, lzcnt, movbe, FMA present, and pext/pdep not
** microcoded (AMD families 15h and 17h: Excavator, Zen 1 and 2). */
static inline bool dab_isa_v3(void) {
#if DAB_ISA_HAVE_V3
  return __builtin_cpu_supports("x86-64-v3") && !__builtin_cpu_is("amdfam17h") &&
         !__builtin_cpu_is("amdfam15h");
#else
  return false;
#endif
}

/* True when this CPU runs the x86-64-v3 variants of float loops (AVX2,
** no pext/pdep: the az net's forward pass): every x86-64-v3 CPU, Zen 1
** and 2 included, whose microcoded pext does not matter there. */
static inline bool dab_isa_v3_float(void) {
#if DAB_ISA_HAVE_V3
  return __builtin_cpu_supports("x86-64-v3");
#else
  return false;
#endif
}

/* The call fn_v3(...) or fn_base(...), as dab_isa_v3() picks: for the
** exported entry of a file built twice (its caller, in the base object or
** elsewhere).  Without v3 objects fn_v3 is not even named. */
#if DAB_ISA_HAVE_V3
#define DAB_ISA_CALL(fn, ...) (dab_isa_v3() ? fn##_v3(__VA_ARGS__) : fn##_base(__VA_ARGS__))
#else
#define DAB_ISA_CALL(fn, ...) fn##_base(__VA_ARGS__)
#endif

#endif
