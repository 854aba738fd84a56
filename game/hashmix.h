/*
** hashmix.h: one 64-bit finaliser (MurmurHash3's fmix64) for the places
** that hash small keys in memory: solver caches, canonical-form colours.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_HASHMIX_H
#define DAB_HASHMIX_H

#include <stdint.h>

/* A bijection of 64-bit words with full avalanche; not for files (the
** on-disk formats use XXH3). */
static inline uint64_t dab_mix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

#endif
