/*
** tb_records.c: the record codecs of a tablebase file: solved records,
** shape records and the meta digest, with the scans that check them all.
** Below both the probe code (tb_probe.c) and the solved store
** (tb_solved.c), which share them.
** See Copyright Notice in README.md
*/
#include <string.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>
#include "tablebase/tb_records.h"

uint64_t dabtb_meta_digest_kv(const char *const *keys, const char *const *vals, int n) {
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  for (int i = 0; i < n; i++) {
    XXH3_64bits_update(&st, keys[i], strlen(keys[i]));
    XXH3_64bits_update(&st, "=", 1);
    XXH3_64bits_update(&st, vals[i], strlen(vals[i]));
    XXH3_64bits_update(&st, "\n", 1);
  }
  return XXH3_64bits_digest(&st);
}

static uint64_t rec_hash(uint64_t key, const uint8_t *v) {
  uint8_t buf[8 + 16];
  dabtb_put_be64(buf, key);
  memcpy(buf + 8, v, 16);
  return XXH3_64bits(buf, sizeof buf);
}

void dabtb_rec_encode(uint8_t *v, uint64_t key, const dabtb_raw_rec *r) {
  v[0] = (uint8_t)(int8_t)r->lower;
  v[1] = (uint8_t)(int8_t)r->upper;
  v[2] = r->best < 0 ? DABTB_SOLVED_NOMOVE : (uint8_t)r->best;
  v[3] = (uint8_t)r->work;
  dabtb_put_le32(v + 4, r->ms);
  dabtb_put_le64(v + 8, r->nodes);
  dabtb_put_le64(v + 16, rec_hash(key, v));
}

/* Decodes and checks one record.  RETURN: NULL, or why it is bad. */
const char *dabtb_rec_decode(const dab_geom *g, const dab_sym *s, int version, const MDB_val *k,
                              const MDB_val *v, uint64_t *key, dabtb_raw_rec *r) {
  if (k->mv_size != 8) return "key is not 8 bytes";
  *key = dabtb_get_be64(k->mv_data);
  const uint8_t *b = v->mv_data;
  if (*key & ~g->all_lines) return "key has lines beyond the board";
  memset(r, 0, sizeof *r);
  r->best = -1;
  if (version == 1 && v->mv_size == 1) { /* format 1 declared exact int8 values */
    r->lower = r->upper = (int8_t)b[0];
  } else {
    if (v->mv_size != DABTB_SOLVED_REC) return "record is not 24 bytes";
    if (dabtb_get_le64(b + 16) != rec_hash(*key, b)) return "checksum mismatch";
    if (b[3] > 63) return "work beyond 63";
    r->lower = (int8_t)b[0];
    r->upper = (int8_t)b[1];
    r->best = b[2] == DABTB_SOLVED_NOMOVE ? -1 : b[2];
    r->work = b[3];
    r->ms = dabtb_get_le32(b + 4);
    r->nodes = dabtb_get_le64(b + 8);
  }
  int R = dabtb_open_boxes(g, *key);
  if (r->lower > r->upper) return "lower bound above the upper bound";
  if (r->lower < -R || r->upper > R) return "bounds beyond the boxes left";
  if (dab_sym_canon64(s, *key, true, NULL) != *key) return "key is not canonical";
  if (r->best >= 0 && (r->best >= g->nlines || (*key >> r->best & 1)))
    return "best move is not an undrawn line";
  return NULL;
}

dab_status dabtb_solved_scan(const dab_geom *g, const dab_sym *s, int format_version, MDB_txn *txn,
                             MDB_dbi dbi, dab_cancel_flag *cancel, uint64_t *count, dab_err *err) {
  MDB_cursor *cur;
  *count = 0;
  int rc = mdb_cursor_open(txn, dbi, &cur);
  if (rc) return dab_fail(err, DAB_EIO, "solved: cannot read (%s)", mdb_strerror(rc));
  MDB_val k, v;
  dab_status st = DAB_OK;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    uint64_t key = 0;
    dabtb_raw_rec r;
    const char *why = dabtb_rec_decode(g, s, format_version, &k, &v, &key, &r);
    if (why) {
      st = dab_fail(err, DAB_ECORRUPT, "solved key 0x%llx: %s", (unsigned long long)key, why);
      break;
    }
    if ((++*count & 4095) == 0 && cancel && *cancel) {
      st = dab_fail(err, DAB_ECANCELED, "check canceled");
      break;
    }
  }
  if (!st && rc != MDB_NOTFOUND)
    st = dab_fail(err, DAB_ECORRUPT, "solved: unreadable (%s)", mdb_strerror(rc));
  mdb_cursor_close(cur);
  return st;
}

static uint64_t shape_hash(const uint8_t *kb, const uint8_t *vb) {
  uint8_t buf[DABTB_SHAPE_KEY_BYTES + 4];
  memcpy(buf, kb, DABTB_SHAPE_KEY_BYTES);
  memcpy(buf + DABTB_SHAPE_KEY_BYTES, vb, 4);
  return XXH3_64bits(buf, sizeof buf);
}

void dabtb_shape_encode(uint8_t *kb, uint8_t *vb, const dabtb_shape *r) {
  dabtb_put_be64(kb, r->key);
  uint8_t c[8];
  dabtb_put_be64(c, r->check);
  memcpy(kb + 8, c + 4, 4);
  vb[0] = (uint8_t)(int8_t)r->lower;
  vb[1] = (uint8_t)(int8_t)r->upper;
  vb[2] = (uint8_t)(r->work < 0 ? 0 : r->work > 255 ? 255 : r->work);
  vb[3] = 0;
  dabtb_put_le64(vb + 4, shape_hash(kb, vb));
}

/* Decodes and checks one shape record.  RETURN: NULL, or why it is bad. */
const char *dabtb_shape_decode(const MDB_val *k, const MDB_val *v, dabtb_shape *r) {
  if (k->mv_size != DABTB_SHAPE_KEY_BYTES || v->mv_size != DABTB_SHAPE_REC_BYTES) return "bad record size";
  const uint8_t *kb = k->mv_data, *vb = v->mv_data;
  r->key = dabtb_get_be64(kb);
  r->check = (uint32_t)kb[8] << 24 | (uint32_t)kb[9] << 16 | (uint32_t)kb[10] << 8 | kb[11];
  r->lower = (int8_t)vb[0];
  r->upper = (int8_t)vb[1];
  r->work = vb[2];
  if (dabtb_get_le64(vb + 4) != shape_hash(kb, vb)) return "checksum mismatch";
  if (r->lower > r->upper) return "lower bound above upper bound";
  return NULL;
}

dab_status dabtb_shapes_walk(MDB_txn *txn, int (*fn)(void *ctx, const dabtb_shape *rec), void *ctx,
                             dab_err *err) {
  MDB_dbi dbi;
  MDB_cursor *cur;
  int rc = mdb_dbi_open(txn, DABTB_SHAPES_DB, 0, &dbi);
  if (rc == MDB_NOTFOUND) return DAB_OK; /* no shapes stored yet */
  if (!rc) rc = mdb_cursor_open(txn, dbi, &cur);
  if (rc) return dab_fail(err, DAB_EIO, "shapes: cannot read (%s)", mdb_strerror(rc));
  MDB_val k, v;
  dab_status st = DAB_OK;
  for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    dabtb_shape r;
    const char *why = dabtb_shape_decode(&k, &v, &r);
    if (why) {
      st = dab_fail(err, DAB_ECORRUPT, "shape key 0x%llx: %s", (unsigned long long)r.key, why);
      break;
    }
    int stop = fn(ctx, &r);
    if (stop) {
      if (stop < 0) st = dab_fail(err, DAB_ECANCELED, "canceled");
      break;
    }
  }
  if (!st && rc && rc != MDB_NOTFOUND) st = dab_fail(err, DAB_ECORRUPT, "shapes: unreadable (%s)", mdb_strerror(rc));
  mdb_cursor_close(cur);
  return st;
}

typedef struct shape_count {
  dab_cancel_flag *cancel;
  uint64_t *count;
} shape_count;

static int count_shape(void *ctx, const dabtb_shape *rec) {
  (void)rec;
  shape_count *c = ctx;
  return (++*c->count & 4095) == 0 && c->cancel && *c->cancel ? -1 : 0;
}

dab_status dabtb_shapes_scan(MDB_txn *txn, dab_cancel_flag *cancel, uint64_t *count, dab_err *err) {
  shape_count c = {cancel, count};
  *count = 0;
  return dabtb_shapes_walk(txn, count_shape, &c, err);
}
