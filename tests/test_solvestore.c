/*
** test_solvestore.c: the solved store of tablebase files: records written,
** read back through every symmetric image, merged, checked, corrupted,
** upgraded from format 1, verified against retrograde values, written
** while other processes read and killed mid-write; and solver seeding.
** See Copyright Notice in README.md
*/
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <lmdb.h>
#include <xxhash.h>
#include "oracle/oracle.h"
#include "solver/ab.h"
#include "solver/retro.h"
#include "tablebase/dabtb.h"
#include "tablebase/tb_internal.h"
#include "tablebase/tb_records.h"
#include "tests/testhelp.h"

static char dir[256];

static uint64_t rng_state = 777;
static uint64_t rng(void) { return th_splitmix64(&rng_state); }

static void path_of(char *out, size_t len, const char *name) { snprintf(out, len, "%s/%s", dir, name); }

static bool file_exists(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0;
}

/* A random position of g with about `density` of its lines drawn. */
static uint64_t random_pos(const dab_geom *g, int per16) {
  uint64_t p = 0;
  for (int m = 0; m < g->nlines; m++)
    if ((int)(rng() % 16) < per16) p |= 1ull << m;
  return p;
}

/* ---- Writing, reading, merging ------------------------------------------- */

static void test_basic(void) {
  char p[512];
  path_of(p, sizeof p, "2x5.dab");
  dab_err err;
  dabtb_store *s = NULL;
  TH_CHECK(dabtb_store_open(p, 2, 5, DABTB_STORE_READ, &s, &err) == DAB_EIO && !s,
           "reading a missing store is DAB_EIO");
  TH_CHECK(!file_exists(p), "a read does not create the file");
  TH_CHECK(dabtb_store_open(p, 2, 5, DABTB_STORE_CREATE, &s, &err) == DAB_OK, "create: %s", err.msg);
  TH_CHECK(file_exists(p), "the solved-only file exists");
  dab_geom g;
  dab_geom_init(&g, 2, 5, NULL);
  dab_sym *sym = dab_sym_new(&g, NULL);

  /* A solved-only file opens as a tablebase without a table. */
  dabtb *tb = NULL;
  TH_CHECK(dabtb_open(p, NULL, &tb, &err) == DAB_OK, "dabtb_open: %s", err.msg);
  if (tb) {
    TH_CHECK(!dabtb_has_table(tb), "no table");
    TH_CHECK(!dabtb_covers(tb, 2, 5, 0), "covers nothing");
    int v;
    TH_CHECK(dabtb_value(tb, 0, &v, &err) == DAB_EBOARD, "a value from a solved-only file is refused");
    dabtb_coverage cov;
    dabtb_get_coverage(tb, &cov);
    TH_CHECK(cov.solved == 0 && cov.format_version == DABTB_FORMAT_VERSION && cov.indexed == 0,
             "coverage of an empty solved-only file");
    dabtb_close(tb);
  }
  TH_CHECK(dabtb_store_open(p, 3, 5, DABTB_STORE_READ, &(dabtb_store *){NULL}, &err) == DAB_EINPUT,
           "a 2x5 file is not a 3x5 store");

  /* Records read back through every symmetric image, moves mapped. */
  uint64_t pos[64];
  dabtb_solved rec[64];
  int n = 0;
  while (n < 40) {
    uint64_t q = random_pos(&g, 7);
    int R = dab_ab_open_boxes(&g, q);
    if (R == 0 || q == g.all_lines) continue;
    bool dup = false;
    for (int i = 0; i < n; i++) dup |= dab_sym_canon64(sym, pos[i], true, NULL) == dab_sym_canon64(sym, q, true, NULL);
    if (dup) continue;
    uint64_t fr = g.all_lines & ~q;
    int best = (int)__builtin_ctzll(fr);
    int lo = -R + (int)(rng() % (unsigned)(R + 1)), hi = lo + (int)(rng() % 4);
    if (hi > R) hi = R;
    if (((lo - R) & 1) && lo + 1 > hi) continue;
    pos[n] = q;
    rec[n++] = (dabtb_solved){lo, hi, best, 1000 + (uint64_t)n, 0.25, 0};
  }
  TH_CHECK(dabtb_store_put(s, (size_t)n, pos, rec, &err) == DAB_OK, "put: %s", err.msg);
  uint64_t cnt = 0;
  dabtb_store_count(s, &cnt, &err);
  TH_CHECK(cnt == (uint64_t)n, "count %llu, want %d", (unsigned long long)cnt, n);
  int bad = 0;
  for (int i = 0; i < n; i++) {
    int R = dab_ab_open_boxes(&g, pos[i]);
    int lo = rec[i].lower + ((rec[i].lower - R) & 1), hi = rec[i].upper - ((rec[i].upper - R) & 1);
    for (int t = 0; t < sym->ntrans; t++) {
      uint64_t img = dab_sym_apply64(sym, t, pos[i]);
      dabtb_solved r;
      bool found = false;
      if (dabtb_store_get(s, img, &r, &found, &err) || !found) {
        bad++;
        continue;
      }
      /* The move named for the image leads to an image of the original child. */
      uint64_t want = dab_sym_canon64(sym, pos[i] | 1ull << rec[i].best, true, NULL);
      bool move_ok = r.best >= 0 && !(img >> r.best & 1) &&
                     dab_sym_canon64(sym, img | 1ull << r.best, true, NULL) == want;
      if (r.lower != lo || r.upper != hi || !move_ok || r.nodes != rec[i].nodes ||
          r.seconds < 0.249 || r.seconds > 0.251)
        bad++;
    }
  }
  TH_CHECK(bad == 0, "%d images read back wrong", bad);

  /* Merging intersects the bounds; an empty intersection is refused. */
  uint64_t q = 0; /* the empty board: 10 boxes, even values */
  TH_CHECK(dabtb_store_put(s, 1, &q, &(dabtb_solved){-6, 3, -1, 50, 1.0, 0}, &err) == DAB_OK, "put");
  TH_CHECK(dabtb_store_put(s, 1, &q, &(dabtb_solved){-3, 8, -1, 20, 2.0, 0}, &err) == DAB_OK, "put");
  dabtb_solved r;
  bool found;
  dabtb_store_get(s, q, &r, &found, &err);
  TH_CHECK(found && r.lower == -2 && r.upper == 2 && r.nodes == 50 && r.seconds > 1.9,
           "merged [%d,%d] nodes %llu, want [-2,2] (parity-rounded) nodes 50", r.lower, r.upper,
           (unsigned long long)r.nodes);
  TH_CHECK(dabtb_store_put(s, 1, &q, &(dabtb_solved){4, 6, -1, 0, 0, 0}, &err) == DAB_EINTERNAL,
           "contradicting bounds are refused");
  dabtb_store_get(s, q, &r, &found, &err);
  TH_CHECK(r.lower == -2 && r.upper == 2, "a refused put changes nothing");
  TH_CHECK(dabtb_store_put(s, 1, &q, &(dabtb_solved){1, 1, -1, 0, 0, 0}, &err) == DAB_EINPUT,
           "a value of the wrong parity is bad input");
  uint64_t beyond = 1ull << 40;
  TH_CHECK(dabtb_store_put(s, 1, &beyond, &(dabtb_solved){0, 0, -1, 0, 0, 0}, &err) == DAB_EINPUT,
           "a position beyond the board is bad input");
  TH_CHECK(dabtb_store_put(s, 1, &q, &(dabtb_solved){-2, 2, 70, 0, 0, 0}, &err) == DAB_EINPUT,
           "a best move beyond the board is bad input");
  /* The work byte: a whole solve's 0 wins a merge, else the larger; it
  ** survives a round trip; beyond 0..63 is bad input. */
  {
    uint64_t w = 1ull << 5 | 1ull << 12;
    TH_CHECK(dabtb_store_put(s, 1, &w, &(dabtb_solved){-8, 8, -1, 0, 0, 7}, &err) == DAB_OK, "put work 7");
    TH_CHECK(dabtb_store_put(s, 1, &w, &(dabtb_solved){-8, 8, -1, 0, 0, 12}, &err) == DAB_OK, "put work 12");
    dabtb_store_get(s, w, &r, &found, &err);
    TH_CHECK(found && r.work == 12, "checkpoint works merge to the larger: %d (want 12)", r.work);
    TH_CHECK(dabtb_store_put(s, 1, &w, &(dabtb_solved){-8, 8, -1, 99, 0, 0}, &err) == DAB_OK, "put work 0");
    TH_CHECK(dabtb_store_put(s, 1, &w, &(dabtb_solved){-8, 8, -1, 0, 0, 30}, &err) == DAB_OK, "put work 30");
    dabtb_store_get(s, w, &r, &found, &err);
    TH_CHECK(found && r.work == 0 && r.nodes == 99, "a whole solve's record stays one: work %d (want 0)", r.work);
    TH_CHECK(dabtb_store_put(s, 1, &w, &(dabtb_solved){-8, 8, -1, 0, 0, 64}, &err) == DAB_EINPUT,
             "work 64 is bad input");
    TH_CHECK(dabtb_store_put(s, 1, &w, &(dabtb_solved){-8, 8, -1, 0, 0, -1}, &err) == DAB_EINPUT,
             "work -1 is bad input");
  }
  /* Two records of one key in one call merge too. */
  uint64_t two[2] = {1ull << 3, 1ull << 1}; /* mirror images on 2x5? merged either way */
  dabtb_solved tr[2] = {{-8, 0, -1, 0, 0, 0}, {-2, 10, -1, 0, 0, 0}};
  bool same = dab_sym_canon64(sym, two[0], true, NULL) == dab_sym_canon64(sym, two[1], true, NULL);
  TH_CHECK(dabtb_store_put(s, 2, two, tr, &err) == DAB_OK, "batch put: %s", err.msg);
  dabtb_store_get(s, two[0], &r, &found, &err);
  TH_CHECK(found && r.lower == (same ? -2 : -8) && r.upper == 0, "batch merge [%d,%d]", r.lower, r.upper);
  dabtb_store_close(s);

  /* Reopened read-only: the same records; writing is refused. */
  TH_CHECK(dabtb_store_open(p, 2, 5, DABTB_STORE_READ, &s, &err) == DAB_OK, "reopen: %s", err.msg);
  if (s) {
    dabtb_store_get(s, pos[0], &r, &found, &err);
    TH_CHECK(found && r.nodes == rec[0].nodes, "a record survives reopening");
    TH_CHECK(dabtb_store_put(s, 1, &q, &(dabtb_solved){-2, 2, -1, 0, 0, 0}, &err) == DAB_EIO,
             "a read-only handle does not write");
    dabtb_store_close(s);
  }
  TH_CHECK(dabtb_open(p, NULL, &tb, &err) == DAB_OK, "reopen as tablebase");
  if (tb) {
    TH_CHECK(dabtb_check(tb, NULL, NULL, NULL, &err) == DAB_OK, "check: %s", err.msg);
    dabtb_coverage cov;
    dabtb_get_coverage(tb, &cov);
    /* the records, q, the work test's record, the batch's one or two */
    TH_CHECK(cov.solved == (uint64_t)n + 2 + (same ? 1 : 2), "solved count %llu", (unsigned long long)cov.solved);
    dabtb_close(tb);
  }
  /* The oracle does not claim the board because of this file. */
  dab_oracle *o = NULL;
  dab_oracle_opts oo = {.tb_dir = dir};
  TH_CHECK(dab_oracle_open(2, 5, &oo, &o, &err) == DAB_EBOARD && !o,
           "the oracle does not cover 2x5 with a solved-only file");
  dab_oracle_close(o);
  dab_sym_free(sym);
}

/* ---- Corruption ------------------------------------------------------------ */

static long find_bytes(const uint8_t *buf, long n, const uint8_t *pat, int len) {
  for (long i = 0; i + len <= n; i++)
    if (!memcmp(buf + i, pat, (size_t)len)) return i;
  return -1;
}

/* Raw LMDB put of one solved record (bypassing the store's checks). */
static void raw_put(const char *p, uint64_t key, const void *val, size_t len) {
  MDB_env *env;
  MDB_txn *txn;
  MDB_dbi dbi;
  uint8_t kb[8];
  dabtb_put_be64(kb, key);
  mdb_env_create(&env);
  mdb_env_set_maxdbs(env, 4);
  mdb_env_open(env, p, MDB_NOSUBDIR | MDB_NOLOCK, 0644);
  mdb_txn_begin(env, NULL, 0, &txn);
  mdb_dbi_open(txn, "solved", 0, &dbi);
  MDB_val k = {8, kb}, v = {len, (void *)val};
  mdb_put(txn, dbi, &k, &v, 0);
  mdb_txn_commit(txn);
  mdb_env_close(env);
}

static dab_status check_file(const char *p, dab_err *err) {
  dabtb *tb;
  dab_status st = dabtb_open(p, NULL, &tb, err);
  if (st) return st;
  st = dabtb_check(tb, NULL, NULL, NULL, err);
  dabtb_close(tb);
  return st;
}

static void test_corruption(void) {
  char p[512];
  path_of(p, sizeof p, "1x8.dab");
  dab_err err;
  dabtb_store *s;
  TH_CHECK(dabtb_store_open(p, 1, 8, DABTB_STORE_CREATE, &s, &err) == DAB_OK, "create 1x8: %s", err.msg);
  if (!s) return;
  uint64_t key = dabtb_store_key(s, 0x155); /* a distinctive key */
  TH_CHECK(dabtb_store_put(s, 1, &key, &(dabtb_solved){-3, 1, -1, 12345, 0, 0}, &err) == DAB_OK, "put");
  dabtb_store_close(s);
  TH_CHECK(check_file(p, &err) == DAB_OK, "a fresh store checks: %s", err.msg);

  /* Flip one bit of the record's bounds in the file. */
  FILE *f = fopen(p, "r+b");
  static uint8_t buf[1 << 20];
  long n = f ? (long)fread(buf, 1, sizeof buf, f) : 0;
  uint8_t kb[8];
  dabtb_put_be64(kb, key);
  long off = find_bytes(buf, n, kb, 8);
  TH_CHECK(off >= 0, "the key is in the file");
  if (f && off >= 0) {
    fseek(f, off + 8 + 1, SEEK_SET); /* the upper bound */
    fputc(buf[off + 8 + 1] ^ 0x02, f);
  }
  if (f) fclose(f);
  TH_CHECK(check_file(p, &err) == DAB_ECORRUPT && strstr(err.msg, "checksum"),
           "a flipped bound fails the check (%s)", err.msg);
  TH_CHECK(dabtb_store_open(p, 1, 8, DABTB_STORE_READ, &s, &err) == DAB_OK, "open");
  if (s) {
    dabtb_solved r;
    bool found;
    TH_CHECK(dabtb_store_get(s, key, &r, &found, &err) == DAB_ECORRUPT, "a corrupt record is not returned");
    dabtb_store_close(s);
  }

  /* Records with a valid checksum but impossible content. */
  path_of(p, sizeof p, "1x7.dab");
  TH_CHECK(dabtb_store_open(p, 1, 7, DABTB_STORE_CREATE, &s, &err) == DAB_OK, "create 1x7");
  dabtb_store_close(s);
  TH_CHECK(check_file(p, &err) == DAB_OK, "empty store checks");
  raw_put(p, 0, "\x01", 1);
  TH_CHECK(check_file(p, &err) == DAB_ECORRUPT, "a 1-byte record in a format-2 file is refused");
  /* lower > upper with a correct XXH3 */
  uint8_t rec[24] = {3, 1, 255, 0};
  uint8_t hb[24];
  dabtb_put_be64(hb, 0);
  memcpy(hb + 8, rec, 16);
  dabtb_put_le64(rec + 16, XXH3_64bits(hb, 24));
  raw_put(p, 0, rec, 24);
  TH_CHECK(check_file(p, &err) == DAB_ECORRUPT && strstr(err.msg, "lower bound above"),
           "inverted bounds are refused (%s)", err.msg);
  /* a key that is not canonical (a smaller image exists) */
  dab_geom g;
  dab_sym *sym;
  uint64_t nk;
  path_of(p, sizeof p, "1x6.dab");
  TH_CHECK(dabtb_store_open(p, 1, 6, DABTB_STORE_CREATE, &s, &err) == DAB_OK, "create 1x6");
  dabtb_store_close(s);
  dab_geom_init(&g, 1, 6, NULL);
  sym = dab_sym_new(&g, NULL);
  nk = 0;
  for (uint64_t c = 1; c < 64 && !nk; c++)
    if (dab_sym_canon64(sym, c, true, NULL) != c) nk = c;
  dabtb_put_be64(hb, nk);
  uint8_t rec3[24] = {(uint8_t)-6, 6, 255, 0};
  memcpy(hb + 8, rec3, 16);
  dabtb_put_le64(rec3 + 16, XXH3_64bits(hb, 24));
  raw_put(p, nk, rec3, 24);
  TH_CHECK(check_file(p, &err) == DAB_ECORRUPT && strstr(err.msg, "canonical"),
           "a non-canonical key is refused (%s)", err.msg);
  dab_sym_free(sym);
}

/* ---- Format 1 files ---------------------------------------------------------- */

/* Rewrites the meta of a built file as format 1 (no solved_encoding),
** with its checksum, and adds a legacy int8 solved record. */
static void make_v1(const char *p, uint64_t legacy_key, int8_t legacy_value, const char *version) {
  MDB_env *env;
  MDB_txn *txn;
  MDB_dbi dm, ds;
  mdb_env_create(&env);
  mdb_env_set_maxdbs(env, 4);
  mdb_env_set_mapsize(env, 64 << 20);
  mdb_env_open(env, p, MDB_NOSUBDIR | MDB_NOLOCK, 0644);
  mdb_txn_begin(env, NULL, 0, &txn);
  mdb_dbi_open(txn, "meta", 0, &dm);
  mdb_dbi_open(txn, "solved", 0, &ds);
  MDB_val k = {15, (void *)"solved_encoding"};
  mdb_del(txn, dm, &k, NULL);
  k = (MDB_val){14, (void *)"format_version"};
  MDB_val v = {strlen(version), (void *)version};
  mdb_put(txn, dm, &k, &v, 0);
  static char keys[256][64], vals[256][256];
  const char *ks[256], *vs[256];
  int n = 0;
  MDB_cursor *cur;
  mdb_cursor_open(txn, dm, &cur);
  for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
    if (k.mv_size == 9 && !memcmp(k.mv_data, "meta_xxh3", 9)) continue;
    memcpy(keys[n], k.mv_data, k.mv_size);
    keys[n][k.mv_size] = 0;
    memcpy(vals[n], v.mv_data, v.mv_size);
    vals[n][v.mv_size] = 0;
    ks[n] = keys[n], vs[n] = vals[n];
    n++;
  }
  mdb_cursor_close(cur);
  char hex[24];
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)dabtb_meta_digest_kv(ks, vs, n));
  k = (MDB_val){9, (void *)"meta_xxh3"};
  v = (MDB_val){16, hex};
  mdb_put(txn, dm, &k, &v, 0);
  uint8_t kb[8];
  dabtb_put_be64(kb, legacy_key);
  k = (MDB_val){8, kb};
  v = (MDB_val){1, &legacy_value};
  mdb_put(txn, ds, &k, &v, 0);
  mdb_txn_commit(txn);
  mdb_env_close(env);
}

static void test_versions(void) {
  char p[512];
  path_of(p, sizeof p, "2x2.dab");
  dab_err err;
  dabtb_build_opts bo = {.threads = 1};
  TH_CHECK(dabtb_build(2, 2, p, &bo, NULL, &err) == DAB_OK, "build 2x2: %s", err.msg);
  dabtb *tb;
  TH_CHECK(dabtb_open(p, NULL, &tb, &err) == DAB_OK, "open 2x2");
  if (!tb) return;
  dabtb_coverage cov;
  dabtb_get_coverage(tb, &cov);
  TH_CHECK(cov.format_version == 2 && dabtb_has_table(tb), "new builds are format 2 with a table");
  int v0;
  dabtb_value(tb, 0, &v0, &err);
  dabtb_close(tb);

  make_v1(p, 0, (int8_t)v0, "1");
  TH_CHECK(dabtb_open(p, NULL, &tb, &err) == DAB_OK, "a format-1 file opens: %s", err.msg);
  if (tb) {
    dabtb_get_coverage(tb, &cov);
    TH_CHECK(cov.format_version == 1 && cov.solved == 1, "format 1, one legacy record");
    TH_CHECK(dabtb_check(tb, NULL, NULL, NULL, &err) == DAB_OK, "format-1 check: %s", err.msg);
    dabtb_close(tb);
  }
  dabtb_store *s;
  TH_CHECK(dabtb_store_open(p, 2, 2, DABTB_STORE_READ, &s, &err) == DAB_OK, "read a format-1 store");
  if (s) {
    dabtb_solved r;
    bool found = false;
    dabtb_store_get(s, 0, &r, &found, &err);
    TH_CHECK(found && r.lower == v0 && r.upper == v0, "the legacy record reads as exact");
    dabtb_store_close(s);
  }
  TH_CHECK(dabtb_store_open(p, 2, 2, DABTB_STORE_WRITE, &s, &err) == DAB_OK, "write opens: %s", err.msg);
  if (s) {
    uint64_t q = 1;
    TH_CHECK(dabtb_store_put(s, 1, &q, &(dabtb_solved){-4, 4, -1, 1, 0, 0}, &err) == DAB_OK, "put");
    dabtb_store_close(s);
  }
  TH_CHECK(dabtb_open(p, NULL, &tb, &err) == DAB_OK, "upgraded file opens: %s", err.msg);
  if (tb) {
    dabtb_get_coverage(tb, &cov);
    TH_CHECK(cov.format_version == 2 && cov.solved == 2, "upgraded to format 2 (%d), 2 records",
             cov.format_version);
    TH_CHECK(dabtb_check(tb, NULL, NULL, NULL, &err) == DAB_OK, "upgraded check: %s", err.msg);
    int v;
    TH_CHECK(dabtb_value(tb, 0, &v, &err) == DAB_OK && v == v0, "the table still answers");
    dabtb_close(tb);
  }
  TH_CHECK(dabtb_store_open(p, 2, 2, DABTB_STORE_READ, &s, &err) == DAB_OK, "read upgraded");
  if (s) {
    dabtb_solved r;
    bool found = false;
    dabtb_store_get(s, 0, &r, &found, &err);
    TH_CHECK(found && r.lower == v0 && r.upper == v0, "the legacy record was converted");
    dabtb_store_close(s);
  }
  make_v1(p, 0, 0, "3");
  TH_CHECK(dabtb_open(p, NULL, &tb, &err) == DAB_EINPUT && strstr(err.msg, "version"),
           "a future format is refused (%s)", err.msg);
  TH_CHECK(dabtb_store_open(p, 2, 2, DABTB_STORE_WRITE, &s, &err) == DAB_EINPUT,
           "and not written either");
}

/* A build over a solved-only file keeps its records. */
static void test_build_keeps(void) {
  char p[512];
  path_of(p, sizeof p, "2x3.dab");
  dab_err err;
  dabtb_store *s;
  TH_CHECK(dabtb_store_open(p, 2, 3, DABTB_STORE_CREATE, &s, &err) == DAB_OK, "create 2x3");
  if (!s) return;
  uint64_t q = 1ull << 2;
  TH_CHECK(dabtb_store_put(s, 1, &q, &(dabtb_solved){-6, 6, 5, 777, 1.5, 0}, &err) == DAB_OK, "put");
  dabtb_store_close(s);
  dabtb_build_opts bo = {.threads = 1};
  TH_CHECK(dabtb_build(2, 3, p, &bo, NULL, &err) == DAB_OK, "build over it: %s", err.msg);
  dabtb *tb;
  TH_CHECK(dabtb_open(p, NULL, &tb, &err) == DAB_OK, "open the built file");
  if (tb) {
    dabtb_coverage cov;
    dabtb_get_coverage(tb, &cov);
    TH_CHECK(dabtb_has_table(tb) && cov.solved == 1, "a table now, and the record kept");
    TH_CHECK(dabtb_check(tb, NULL, NULL, NULL, &err) == DAB_OK, "check: %s", err.msg);
    dabtb_close(tb);
  }
  TH_CHECK(dabtb_store_open(p, 2, 3, DABTB_STORE_READ, &s, &err) == DAB_OK, "read");
  if (s) {
    dabtb_solved r;
    bool found = false;
    dabtb_store_get(s, q, &r, &found, &err);
    TH_CHECK(found && r.nodes == 777 && r.best == 5, "the record is intact");
    dabtb_store_close(s);
  }
}

/* ---- Verify against retrograde values ---------------------------------------- */

static void test_verify(void) {
  dab_geom g;
  dab_geom_init(&g, 1, 4, NULL);
  dab_err err;
  dab_retro *rt;
  dab_retro_opts ro = {.threads = 1};
  if (dab_retro_solve(&g, 0, &ro, &rt, &err)) {
    TH_CHECK(0, "retro 1x4: %s", err.msg);
    return;
  }
  char p[512];
  path_of(p, sizeof p, "1x4.dab");
  dabtb_store *s;
  TH_CHECK(dabtb_store_open(p, 1, 4, DABTB_STORE_CREATE, &s, &err) == DAB_OK, "create 1x4");
  if (!s) {
    dab_retro_free(rt);
    return;
  }
  /* Every position, exact, from the retrograde solver. */
  size_t n = (size_t)1 << g.nlines;
  uint64_t *pos = malloc(n * sizeof *pos);
  dabtb_solved *recs = malloc(n * sizeof *recs);
  for (size_t i = 0; i < n; i++) {
    int v = dab_retro_value(rt, i);
    pos[i] = i;
    recs[i] = (dabtb_solved){v, v, -1, 0, 0, 0};
  }
  TH_CHECK(dabtb_store_put(s, n, pos, recs, &err) == DAB_OK, "put all: %s", err.msg);
  uint64_t records, checked;
  TH_CHECK(dabtb_store_verify(s, NULL, &records, &checked, &err) == DAB_OK, "verify: %s", err.msg);
  TH_CHECK(records > 100 && checked + 1 >= records, "%llu records, %llu checked", (unsigned long long)records,
           (unsigned long long)checked);
  dabtb_store_close(s);
  /* One wrong value (in a fresh file: the store refuses contradictions). */
  unlink(p);
  TH_CHECK(dabtb_store_open(p, 1, 4, DABTB_STORE_CREATE, &s, &err) == DAB_OK, "recreate 1x4");
  /* Only canonical positions (one record per key), one of them wrong. */
  uint64_t victim = 0;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (dabtb_store_key(s, i) != i) continue;
    if (dab_ab_open_boxes(&g, i) == 4 && __builtin_popcountll(i) >= 3) victim = i;
    pos[m] = i, recs[m++] = recs[i];
  }
  for (size_t i = 0; i < m; i++)
    if (pos[i] == victim) recs[i].lower = recs[i].upper = recs[i].lower + 2 <= 4 ? recs[i].lower + 2 : recs[i].lower - 2;
  TH_CHECK(victim && dabtb_store_put(s, m, pos, recs, &err) == DAB_OK, "put canonical: %s", err.msg);
  TH_CHECK(dabtb_store_verify(s, NULL, &records, &checked, &err) == DAB_ECORRUPT,
           "a wrong value is found by verify");
  dabtb_store_close(s);
  free(pos);
  free(recs);
  dab_retro_free(rt);
}

/* ---- Processes: readers while writing; kill -9 mid-write ---------------------- */

static void writer_loop(const char *p, int rounds) {
  dab_err err;
  dabtb_store *s;
  if (dabtb_store_open(p, 2, 5, DABTB_STORE_WRITE, &s, &err)) _exit(3);
  dab_geom g;
  dab_geom_init(&g, 2, 5, NULL);
  for (int i = 0; rounds == 0 || i < rounds; i++) {
    uint64_t pos[64];
    dabtb_solved rec[64];
    for (int j = 0; j < 64; j++) {
      pos[j] = random_pos(&g, 8);
      int R = dab_ab_open_boxes(&g, pos[j]);
      rec[j] = (dabtb_solved){-R, R, -1, (uint64_t)i, 0, 0};
    }
    if (dabtb_store_put(s, 64, pos, rec, &err)) _exit(4);
  }
  dabtb_store_close(s);
  _exit(0);
}

static void test_processes(bool san) {
  char p[512];
  path_of(p, sizeof p, "2x5.dab");
  dab_err err;
  int rounds = san ? 40 : 200;
  pid_t w = fork();
  if (w == 0) {
    rng_state = 99;
    writer_loop(p, rounds);
  }
  /* Read while it writes: every read is a consistent snapshot. */
  int bad = 0, reads = 0;
  for (int k = 0; k < (san ? 20 : 60); k++) {
    dabtb_store *s;
    if (dabtb_store_open(p, 2, 5, DABTB_STORE_READ, &s, &err)) {
      bad++;
      continue;
    }
    uint64_t records, checked;
    if (dabtb_store_verify(s, NULL, &records, &checked, &err)) bad++;
    reads++;
    dabtb_store_close(s);
    dabtb *tb;
    if (dabtb_open(p, NULL, &tb, &err)) bad++;
    else {
      if (dabtb_check(tb, NULL, NULL, NULL, &err)) bad++;
      dabtb_close(tb);
    }
  }
  int status;
  waitpid(w, &status, 0);
  TH_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer finished (status %d)", status);
  TH_CHECK(bad == 0 && reads > 0, "%d of %d concurrent reads failed: %s", bad, reads, bad ? err.msg : "");

  /* kill -9 writers at random moments: the file stays usable. */
  int unusable = 0;
  for (int k = 0; k < (san ? 3 : 8); k++) {
    pid_t c = fork();
    if (c == 0) {
      rng_state = 1000 + (uint64_t)k;
      writer_loop(p, 0);
    }
    struct timespec ts = {0, 20000000 + 7000000 * k};
    nanosleep(&ts, NULL);
    kill(c, SIGKILL);
    waitpid(c, &status, 0);
    if (check_file(p, &err)) unusable++;
  }
  TH_CHECK(unusable == 0, "%d files unusable after kill -9: %s", unusable, unusable ? err.msg : "");
  dabtb_store *s;
  TH_CHECK(dabtb_store_open(p, 2, 5, DABTB_STORE_WRITE, &s, &err) == DAB_OK,
           "writable again after kill -9: %s", err.msg);
  if (s) {
    uint64_t q = 0;
    TH_CHECK(dabtb_store_put(s, 1, &q, &(dabtb_solved){-2, -2, -1, 0, 0, 0}, &err) == DAB_OK,
             "a write after kill -9: %s", err.msg);
    dabtb_store_close(s);
  }
}

/* ---- Read-only places ----------------------------------------------------------- */

static void test_readonly(void) {
  if (geteuid() == 0) return; /* root writes anywhere */
  char d[512], p[600];
  path_of(d, sizeof d, "ro");
  mkdir(d, 0755);
  snprintf(p, sizeof p, "%s/3x5.dab", d);
  chmod(d, 0555);
  dab_err err;
  dabtb_store *s = NULL;
  TH_CHECK(dabtb_store_open(p, 3, 5, DABTB_STORE_CREATE, &s, &err) == DAB_EIO && !s,
           "no file in a read-only directory");
  chmod(d, 0755);
}

/* ---- Seeding the solver ------------------------------------------------------------ */

static void test_seed(void) {
  dab_geom g;
  dab_geom_init(&g, 2, 3, NULL);
  dab_ab_opts o;
  dab_ab_default_opts(&o);
  o.hash_bytes = 1 << 20;
  dab_err err;
  dab_ab *ab = dab_ab_new(&g, &o, NULL, &err);
  int v, lo, hi;
  dab_ab_solve(ab, 0, &v, &lo, &hi, &err);
  dab_ab_stats s0;
  dab_ab_get_stats(ab, &s0);
  dab_ab_free(ab);
  /* A fresh solver seeded with the root's value proves nothing more. */
  ab = dab_ab_new(&g, &o, NULL, &err);
  TH_CHECK(dab_ab_seed(ab, 0, v, v, DAB_AB_SEED_KEEP, &err) == DAB_OK, "seed");
  TH_CHECK(dab_ab_seed(ab, 1ull << 40, 0, 0, DAB_AB_SEED_KEEP, &err) == DAB_EINPUT, "a position beyond the board");
  TH_CHECK(dab_ab_seed(ab, 0, 7, 9, DAB_AB_SEED_KEEP, &err) == DAB_EINPUT, "bounds beyond the boxes");
  TH_CHECK(dab_ab_seed(ab, 0, v, v, 64, &err) == DAB_EINPUT, "seed work beyond 63");
  TH_CHECK(dab_ab_seed_key(ab, 1, DAB_TT_CHECK_HASHED, 0, 0, -1) == DAB_EINPUT, "seed_key work below 0");
  int v2;
  dab_ab_reset_stats(ab);
  dab_ab_solve(ab, 0, &v2, NULL, NULL, &err);
  dab_ab_stats s1;
  dab_ab_get_stats(ab, &s1);
  TH_CHECK(v2 == v && s1.nodes < s0.nodes && s0.nodes > 100, "seeded: value %d (want %d), %llu nodes (fresh %llu)",
           v2, v, (unsigned long long)s1.nodes, (unsigned long long)s0.nodes);
  /* A seeded bound narrows the driver's window: fewer tests. */
  dab_ab_free(ab);
  ab = dab_ab_new(&g, &o, NULL, &err);
  dab_ab_seed(ab, 0, v - 2, v + 2, DAB_AB_SEED_KEEP, &err);
  dab_ab_reset_stats(ab);
  int v3;
  dab_ab_solve(ab, 0, &v3, NULL, NULL, &err);
  TH_CHECK(v3 == v, "a seeded interval gives the same value");
  dab_ab_free(ab);
}

/* Shapes: graph-keyed bounds from a search table, stored and re-seeded. */
static int collect_shape(void *ctx, const dabtb_shape *r) {
  dabtb_shape *got = ctx;
  if (r->key == got[0].key) got[1] = *r;
  got[2].work++; /* count */
  return 0;
}

static int seed_shape(void *ctx, const dabtb_shape *r) {
  return dab_ab_seed_key(ctx, r->key, r->check, r->lower, r->upper, r->work) != DAB_OK;
}

static void test_shapes(void) {
  char p[512];
  path_of(p, sizeof p, "2x4.dab");
  dab_err err;
  dabtb_store *s;
  TH_CHECK(dabtb_store_open(p, 2, 4, DABTB_STORE_CREATE, &s, &err) == DAB_OK, "create 2x4: %s", err.msg);
  if (!s) return;
  uint64_t none = 1;
  TH_CHECK(dabtb_shapes_count(s, &none, &err) == DAB_OK && none == 0, "no shapes yet: count %llu",
           (unsigned long long)none);
  dabtb_shape a = {0x1234567890abcdefull, DAB_TT_CHECK_HASHED | 77, -4, 2, 9};
  dabtb_shape b = {0x0fedcba987654321ull, DAB_TT_CHECK_HASHED | 5, 1, 1, 3};
  TH_CHECK(dabtb_shapes_put(s, 2, (dabtb_shape[]){a, b}, &err) == DAB_OK, "shapes put: %s", err.msg);
  dabtb_shape narrower = a;
  narrower.lower = 0, narrower.upper = 6, narrower.work = 4;
  TH_CHECK(dabtb_shapes_put(s, 1, &narrower, &err) == DAB_OK, "merge: %s", err.msg);
  dabtb_shape got[3] = {a, {0}, {0}};
  TH_CHECK(dabtb_shapes_each(s, collect_shape, got, &err) == DAB_OK, "each: %s", err.msg);
  TH_CHECK(got[2].work == 2, "two shapes stored, %d read", got[2].work);
  uint64_t nshapes = 0;
  TH_CHECK(dabtb_shapes_count(s, &nshapes, &err) == DAB_OK && nshapes == 2, "shapes_count %llu (want 2)",
           (unsigned long long)nshapes);
  TH_CHECK(got[1].lower == 0 && got[1].upper == 2 && got[1].work == 9 && got[1].check == a.check,
           "merged shape [%d,%d] work %d (want [0,2] work 9)", got[1].lower, got[1].upper, got[1].work);
  dabtb_shape wrong = a;
  wrong.lower = 4, wrong.upper = 4;
  TH_CHECK(dabtb_shapes_put(s, 1, &wrong, &err) == DAB_EINTERNAL, "a contradiction is refused");
  got[2].work = 0;
  dabtb_shapes_each(s, collect_shape, got, &err);
  TH_CHECK(got[1].lower == 0 && got[1].upper == 2, "nothing written by the refused put");
  dabtb_store_close(s);
  TH_CHECK(check_file(p, &err) == DAB_OK, "a file with shapes checks: %s", err.msg);
  dabtb *tb;
  if (dabtb_open(p, NULL, &tb, &err) == DAB_OK) {
    dabtb_coverage cov;
    dabtb_get_coverage(tb, &cov);
    TH_CHECK(cov.shapes == 2, "coverage counts %llu shapes (want 2)", (unsigned long long)cov.shapes);
    dabtb_close(tb);
  } else {
    TH_CHECK(false, "open with shapes: %s", err.msg);
  }
  /* A shape record with a bad checksum is found by the check. */
  {
    MDB_env *env;
    MDB_txn *txn;
    MDB_dbi dbi;
    uint8_t kb[12] = {1, 2, 3, 4, 5, 6, 7, 8, 0x80, 0, 0, 1}, vb[12] = {0xfe, 2, 1, 0, 9, 9, 9, 9, 9, 9, 9, 9};
    mdb_env_create(&env);
    mdb_env_set_maxdbs(env, 4);
    mdb_env_open(env, p, MDB_NOSUBDIR | MDB_NOLOCK, 0644);
    mdb_txn_begin(env, NULL, 0, &txn);
    mdb_dbi_open(txn, DABTB_SHAPES_DB, 0, &dbi);
    MDB_val k = {12, kb}, v = {12, vb};
    mdb_put(txn, dbi, &k, &v, 0);
    mdb_txn_commit(txn);
    mdb_env_close(env);
  }
  TH_CHECK(check_file(p, &err) == DAB_ECORRUPT, "a bad shape record is corruption");

  /* A search's graph-keyed entries, stored and seeded into a fresh
  ** solver, give the same value for less work. */
  dab_geom g;
  dab_geom_init(&g, 2, 4, NULL);
  dab_ab_opts o;
  dab_ab_default_opts(&o);
  o.hash_bytes = 1 << 22;
  o.tune.graph_min_free = 0;
  dab_ab *ab = dab_ab_new(&g, &o, NULL, &err);
  if (!ab) return;
  int v0;
  dab_ab_solve(ab, 0, &v0, NULL, NULL, &err);
  dab_ab_stats s0;
  dab_ab_get_stats(ab, &s0);
  const dab_tt *tt = dab_ab_tt(ab);
  size_t n = 0, cap = (size_t)dab_tt_capacity(tt);
  dabtb_shape *shapes = malloc(cap * sizeof *shapes);
  for (uint64_t slot = 0; shapes && slot < cap; slot++) {
    uint64_t key;
    uint32_t check;
    dab_tt_hit e;
    int work;
    if (dab_tt_read(tt, slot, &key, &check, &e, &work) && (check & DAB_TT_CHECK_HASHED))
      shapes[n++] = (dabtb_shape){key, check, e.lower, e.upper, work};
  }
  dab_ab_free(ab);
  TH_CHECK(n > 100, "the search left %zu graph-keyed entries", n);
  path_of(p, sizeof p, "2x4b.dab");
  TH_CHECK(dabtb_store_open(p, 2, 4, DABTB_STORE_CREATE, &s, &err) == DAB_OK, "create: %s", err.msg);
  if (s && shapes) {
    TH_CHECK(dabtb_shapes_put(s, n, shapes, &err) == DAB_OK, "store the shapes: %s", err.msg);
    ab = dab_ab_new(&g, &o, NULL, &err);
    TH_CHECK(dabtb_shapes_each(s, seed_shape, ab, &err) == DAB_OK, "seed: %s", err.msg);
    int v1;
    dab_ab_solve(ab, 0, &v1, NULL, NULL, &err);
    dab_ab_stats s1;
    dab_ab_get_stats(ab, &s1);
    TH_CHECK(v1 == v0 && s1.nodes * 2 < s0.nodes, "seeded from shapes: value %d (want %d), %llu nodes (fresh %llu)",
             v1, v0, (unsigned long long)s1.nodes, (unsigned long long)s0.nodes);
    dab_ab_free(ab);
  }
  dabtb_store_close(s);
  free(shapes);
}

int main(void) {
  bool san = getenv("DAB_TEST_SAN") != NULL;
  snprintf(dir, sizeof dir, "/tmp/dab-solvestore-XXXXXX");
  if (!mkdtemp(dir)) return 1;
  test_basic();
  test_corruption();
  test_versions();
  test_build_keeps();
  test_verify();
  test_processes(san);
  test_readonly();
  test_seed();
  test_shapes();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return TH_REPORT("test_solvestore");
}
