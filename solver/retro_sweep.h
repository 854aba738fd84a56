/*
** retro_sweep.h: the retrograde solver's inner loop (solver/retro.c's
** workers), built for any x86-64 and for x86-64-v3 (game/isa.h).
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_RETRO_SWEEP_H
#define DAB_RETRO_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include "game/board.h"
#include "game/isa.h"

/* What the sweep reads: the table below root, indexed by the free lines. */
typedef struct dab_retro_sweep {
  const dab_geom *g;
  uint64_t root, free_mask, index_mask;
  bool plain;             /* every move everywhere (no capture rule) */
  int8_t *value;          /* 2^F entries */
} dab_retro_sweep;

/*
** Solves the indices base | i for i = count - 1 down to 0 (base a
** multiple of count, a power of two) into s->value; every child of them
** (a larger index) must be solved already.  Never fails.  Call through
** dab_retro_sweep_pick().
*/
void dab_retro_sweep_base(const dab_retro_sweep *s, uint64_t base, uint64_t count);
#if DAB_ISA_HAVE_V3 || defined(DAB_ISA_V3)
void dab_retro_sweep_v3(const dab_retro_sweep *s, uint64_t base, uint64_t count);
#endif

typedef void (*dab_retro_sweep_fn)(const dab_retro_sweep *s, uint64_t base, uint64_t count);

/* The variant for this CPU. */
static inline dab_retro_sweep_fn dab_retro_sweep_pick(void) {
#if DAB_ISA_HAVE_V3
  if (dab_isa_v3()) return dab_retro_sweep_v3;
#endif
  return dab_retro_sweep_base;
}

#endif
