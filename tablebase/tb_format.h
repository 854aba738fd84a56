/*
** tb_format.h: the on-disk layout of a dab tablebase file (format 2).
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_TB_FORMAT_H
#define DAB_TB_FORMAT_H

#include <stdint.h>
#include <string.h>

/*
** One LMDB environment in a single file (MDB_NOSUBDIR), e.g. 3x4.dab,
** with three named databases:
**
**   meta    ASCII key -> ASCII value (see DABTB_META_* below; `dab info`
**           prints them all).  "meta_xxh3" is the XXH3-64 (16 hex digits)
**           of every other record as "key=value\n" in key order.
**
**   blocks  key: 8 bytes, big-endian          value: header + zstd frame
**           +--------+--------+               +------+-----+------+------+------+---------+
**           | layer  | block  |               | DBK1 |layer| rsvd |block |  n   |  xxh3   | zstd frame ...
**           | u32 BE | u32 BE |               | 4 B  | 1 B | 3 B  |u32 LE|u32 LE| u64 LE  |
**           +--------+--------+               +------+-----+------+------+------+---------+
**           layer = lines drawn (0..L)         0      4     5      8      12     16 .. 24
**           block = rank / block_entries       n = entries in this block (payload bytes);
**                                              xxh3 = XXH3-64 of the n payload bytes.
**           Big-endian keys sort numerically, so blocks are written with MDB_APPEND.
**
**   solved  canonical key (u64 BE) -> record (24 bytes, format 2): proved
**           bounds from search, for boards or positions the dense table does
**           not cover (tb_solved.c; layout at DABTB_SOLVED_REC below).
**           Format 1 declared int8 values here and always left it empty.
**
** A "solved-only" file (boards without a retrograde table, e.g. 3x5) has
** meta "table" = "none", index "none", no layer records and an empty
** blocks database: only its solved records answer anything.
**
** Payload: one byte per indexed position of the layer (tb_index.h), in
** rank order.  For a canonical position p (p is the least image of itself
** under the board's symmetries and border equivalence) the byte is
**     w = (v + R) / 2        v = value of p, R = boxes of p not yet complete
** (v and R have the same parity, so this halves the alphabet: w is the
** number of the remaining boxes the mover gets).  Every other indexed
** position is "don't care" and holds the byte of the entry before it (0
** at a block start), which compresses to almost nothing.  Probes never
** read those: they canonicalise first.
**
** A layer's checksum in meta ("layer.KK.xxh3_128", 32 hex digits) is the
** XXH3-128 of the layer's block payload checksums as u64 LE, in order.
*/

#define DABTB_MAGIC "dab-tablebase"
#define DABTB_FORMAT_VERSION 2      /* written by this dab */
#define DABTB_FORMAT_MIN_VERSION 1  /* oldest one read (its solved store is empty) */
#define DABTB_BLOCK_MAGIC "DBK1"
#define DABTB_BLOCK_HEADER 24
#define DABTB_KEY_LEN 8

#define DABTB_INDEX_SCHEME "quiet-border-normal-rank-v1"
#define DABTB_VALUE_ENCODING "u8 w=(v+R)/2 canonical; dont-care=previous"

/*
** A solved record (format 2), the value of one `solved` key:
**
**   +-------+-------+------+-------+---------+-----------+-------------+
**   | lower | upper | best | work  | millis  |   nodes   |    xxh3     |
**   |  i8   |  i8   |  u8  |  u8   | u32 LE  |  u64 LE   |   u64 LE    |
**   +-------+-------+------+-------+---------+-----------+-------------+
**   0       1       2      3       4         8           16            24
**
**   lower <= value <= upper: proved bounds on the value of the key's
**          position (Wilson's convention); exact when lower == upper.
**   best   a best move in the key's frame (the key is itself a position:
**          the canonical image), 255 = none.
**   work   0 for the result of a whole solve; 1..63 for bounds a
**          checkpoint saved from a search's table: 1 + floor(log2(nodes
**          below them)): the weight a rerun gives them when the file
**          holds more than its table can keep pinned.  (Format 2
**          files whose solved_encoding reads "u8 0", written before
**          the work byte, hold 0 here: "whole solve".)
**   millis, nodes: search work behind the bounds (saturating).
**   xxh3   XXH3-64 of the 8 key bytes followed by bytes 0..15.
**
** The key is dab_sym_canon64(p, border equivalence on), big-endian, so the
** symmetric and border-equivalent images of a position share one record.
*/
#define DABTB_SOLVED_REC 24
#define DABTB_SOLVED_NOMOVE 255
#define DABTB_SOLVED_ENCODING "v2: canon-border key u64 BE -> i8 lower,i8 upper,u8 best,u8 work,u32 ms,u64 nodes,u64 xxh3"

static inline void dabtb_put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline uint32_t dabtb_get_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void dabtb_put_le32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t dabtb_get_le32(const uint8_t *p) {
  return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}
static inline void dabtb_put_le64(uint8_t *p, uint64_t v) {
  dabtb_put_le32(p, (uint32_t)v);
  dabtb_put_le32(p + 4, (uint32_t)(v >> 32));
}
static inline uint64_t dabtb_get_le64(const uint8_t *p) {
  return (uint64_t)dabtb_get_le32(p) | (uint64_t)dabtb_get_le32(p + 4) << 32;
}
static inline void dabtb_put_be64(uint8_t *p, uint64_t v) {
  dabtb_put_be32(p, (uint32_t)(v >> 32));
  dabtb_put_be32(p + 4, (uint32_t)v);
}
static inline uint64_t dabtb_get_be64(const uint8_t *p) {
  return (uint64_t)dabtb_get_be32(p) << 32 | dabtb_get_be32(p + 4);
}

#endif
