/*
** dabconf.h: every compile-time limit and tunable of dab in one place.
** See Copyright Notice in README.md
*/
#ifndef DABCONF_H
#define DABCONF_H

/* Largest board side, in boxes.  Play works up to 16x16; the solvers use
** the 64-bit fast path and so only reach boards with <= 64 lines. */
#define DAB_MAX_SIDE 16
#define DAB_MAX_BOXES (DAB_MAX_SIDE * DAB_MAX_SIDE)
#define DAB_MAX_LINES (2 * DAB_MAX_SIDE * (DAB_MAX_SIDE + 1))
#define DAB_LINE_WORDS ((DAB_MAX_LINES + 63) / 64)

/* The fast path keeps a whole position in one uint64_t. */
#define DAB_FAST_MAX_LINES 64

/* Retrograde: one int8_t per position of the sub-DAG below the root, so
** at most 2^32 entries (4 GiB) for a root with 32 undrawn lines. */
#define DAB_RETRO_MAX_FREE 32

/* Retrograde work unit: the top DAB_RETRO_SPLIT_BITS free lines split the
** index space into blocks that threads take one at a time.  256 blocks
** keep two threads within 1% of perfect balance on 3x4. */
#define DAB_RETRO_SPLIT_BITS 8

/* Error messages are returned in a fixed buffer of this size. */
#define DAB_ERR_LEN 256

#endif
