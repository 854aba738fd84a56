/*
** tb_records.h: the record codecs of a tablebase file (tb_records.c),
** shared by the probe code and the solved store.  Not part of the public
** API.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_TB_RECORDS_H
#define DAB_TB_RECORDS_H

#include "tablebase/tb_internal.h"

/* A record as stored (best move in the key's frame). */
typedef struct dabtb_raw_rec {
  int lower, upper, best;
  int work; /* byte 3: dabtb_solved.work */
  uint32_t ms;
  uint64_t nodes;
} dabtb_raw_rec;

/* XXH3-64 of meta records "key=value\n" in the given order. */
uint64_t dabtb_meta_digest_kv(const char *const *keys, const char *const *vals, int n);

/* Encodes r for key into the DABTB_SOLVED_REC bytes v (with its XXH3). */
void dabtb_rec_encode(uint8_t *v, uint64_t key, const dabtb_raw_rec *r);

/* Decodes and checks one solved record of a file of format version.
** RETURN: NULL and *key, *r; or why it is bad (a constant string). */
const char *dabtb_rec_decode(const dab_geom *g, const dab_sym *s, int version, const MDB_val *k,
                             const MDB_val *v, uint64_t *key, dabtb_raw_rec *r);

/*
**   shapes record (sub-database DABTB_SHAPES_DB)
**   key   12 bytes: graph key (u64 BE) | check (u32 BE)
**   value 12 bytes: lower (int8) | upper (int8) | work (u8) | 0 |
**                   XXH3-64 of key + the first 4 value bytes (LE)
*/
#define DABTB_SHAPE_KEY_BYTES 12
#define DABTB_SHAPE_REC_BYTES 12

/* Encodes r into key bytes kb and value bytes vb (with its XXH3). */
void dabtb_shape_encode(uint8_t *kb, uint8_t *vb, const dabtb_shape *r);

/* Decodes and checks one shape record.  RETURN: NULL and *r, or why it is bad. */
const char *dabtb_shape_decode(const MDB_val *k, const MDB_val *v, dabtb_shape *r);

/*
** Reads every record of a `solved` database in txn and checks it (size,
** XXH3, bounds within the open boxes, canonical key, best move undrawn).
** RETURN: DAB_OK and *count; DAB_ECORRUPT naming the first bad key;
** DAB_ECANCELED.
*/
dab_status dabtb_solved_scan(const dab_geom *g, const dab_sym *s, int format_version, MDB_txn *txn,
                             MDB_dbi dbi, dab_cancel_flag *cancel, uint64_t *count, dab_err *err);

/*
** Decodes the shapes database of txn in key order and calls fn on each
** record until fn returns nonzero (absent database = no records).
** RETURN: DAB_OK when fn stopped it (returning > 0) or every record was
** seen; DAB_ECANCELED when fn returned < 0; DAB_ECORRUPT naming the first
** bad key or an unreadable cursor; DAB_EIO when the database cannot be
** opened.
*/
dab_status dabtb_shapes_walk(MDB_txn *txn, int (*fn)(void *ctx, const dabtb_shape *rec), void *ctx,
                             dab_err *err);

/* Checks every record of the shapes database in txn (absent = none).
** RETURN: as dabtb_solved_scan. */
dab_status dabtb_shapes_scan(MDB_txn *txn, dab_cancel_flag *cancel, uint64_t *count, dab_err *err);

#endif
