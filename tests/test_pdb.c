/*
** test_pdb.c: the pattern database: complete, its facts re-derived by the
** theory-free graph solver, its sums searched exactly, its file checked,
** and the board search with it equal to the retrograde tables.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "game/sc.h"
#include "pdb/pdb.h"
#include "solver/ab.h"
#include "solver/retro.h"
#include "symmetry/sckey.h"
#include "tests/testhelp.h"
#include "theorems/graphsolve.h"

static bool san_sizes(void) { return getenv("DAB_TEST_SAN") != NULL; }

/* The class counts by strings, pinned: a change in the enumeration that
** loses or invents components fails here (and in the harvest below). */
static void test_counts(const dab_pdb *db, int n) {
  static const uint32_t want[] = {0, 2, 3, 7, 15, 31, 78, 204, 565, 1606, 4777, 14479, 45041};
  uint32_t got[DAB_PDB_MAX_STRINGS + 1] = {0};
  for (uint32_t id = 0; id < dab_pdb_count(db); id++) got[dab_pdb_get(db, id).strings]++;
  for (int s = 1; s <= n; s++) TH_CHECK(got[s] == want[s], "%d strings: %u components, want %u", s, got[s], want[s]);
  TH_CHECK(dab_pdb_max_strings(db) == n, "max strings %d", dab_pdb_max_strings(db));
}

/* Every component of every position of a board whose components all have
** at most n strings is in the database. */
static void test_harvest(const dab_pdb *db, int rows, int cols, uint64_t samples, uint64_t seed) {
  dab_geom g;
  dab_err err;
  dab_geom_init(&g, rows, cols, &err);
  uint64_t all = samples == 0 ? 1ull << g.nlines : samples, missed = 0, covered = 0;
  for (uint64_t i = 0; i < all; i++) {
    uint64_t p = samples == 0 ? i : th_splitmix64(&seed) & g.all_lines;
    uint32_t ids[DAB_PDB_MAX_COMP];
    dab_lineset ls = dab_ls_from_word(p);
    dab_sc_view v;
    dab_sc_analyze(&g, &ls, &v);
    bool small = v.ncomp <= DAB_PDB_MAX_COMP;
    for (int c = 0; c < v.ncomp; c++) small &= v.comp[c].strings <= dab_pdb_max_strings(db);
    if (!small) continue;
    covered++;
    if (dab_pdb_split(db, &g, p, ids) < 0 && missed++ < 3) fprintf(stderr, "missed: %dx%d position %#llx\n", rows, cols, (unsigned long long)p);
  }
  TH_CHECK(missed == 0, "%dx%d: %llu of %llu positions have a component the database lacks", rows, cols,
           (unsigned long long)missed, (unsigned long long)covered);
  TH_CHECK(covered > 0, "%dx%d: no position tried", rows, cols);
}

/* Sums of random components: the search on ids, and the XOR of nimbers,
** against the graph solver on the disjoint union; and two wrong rules
** (negative controls) that must be caught. */
static void test_sums(const dab_pdb *db, int count, uint64_t seed) {
  dab_pdb_table *t;
  dab_err err;
  TH_CHECK(dab_pdb_table_new(16, &t, &err) == DAB_OK, "table: %s", err.msg);
  int bad_value = 0, bad_nim = 0, tried = 0, additive_wrong = 0, pairs = 0, pair_wrong = 0;
  for (int k = 0; k < count; k++) {
    int n = 1 + (int)(th_splitmix64(&seed) % 4);
    uint32_t ids[8];
    dab_sg g;
    memset(&g, 0, sizeof g);
    int strings = 0, nn = 0;
    bool twin = th_splitmix64(&seed) % 3 == 0;
    for (int i = 0; i < n; i++) {
      uint32_t id = twin && i == 1 ? ids[0] : (uint32_t)(th_splitmix64(&seed) % dab_pdb_count(db));
      dab_pdb_info in = dab_pdb_get(db, id);
      if (strings + in.strings > 16) continue;
      strings += in.strings;
      ids[nn++] = id;
    }
    for (int i = 0; i < nn; i++) dab_pdb_graph(db, ids[i], &g);
    dab_pdb_sort(ids, nn);
    dab_sgs *s;
    if (dab_sgs_new(&g, &s, &err)) continue;
    tried++;
    int want = dab_sgs_value(s, dab_sg_full(&g)), nim = dab_sgs_nimber(s, dab_sg_full(&g));
    dab_sgs_free(s);
    int got = dab_pdb_value(db, t, ids, nn, NULL);
    if (got != want && bad_value++ < 3) fprintf(stderr, "sum of %d: search %d, graph solver %d\n", nn, got, want);
    if (dab_pdb_nimber_sum(db, ids, nn) != nim && bad_nim++ < 3)
      fprintf(stderr, "sum of %d: XOR %d, graph solver %d\n", nn, dab_pdb_nimber_sum(db, ids, nn), nim);
    /* control 1: values add */
    int sum = 0;
    for (int i = 0; i < nn; i++) sum += dab_pdb_get(db, ids[i]).value;
    if (nn > 1 && sum != want) additive_wrong++;
    /* control 2: a pair of equal components cancels (as in Nimstring) */
    for (int i = 0; i + 1 < nn; i++)
      if (ids[i] == ids[i + 1]) {
        uint32_t rest[8];
        int nr = 0;
        for (int j = 0; j < nn; j++)
          if (j != i && j != i + 1) rest[nr++] = ids[j];
        pairs++;
        if (dab_pdb_value(db, t, rest, nr, NULL) != want) pair_wrong++;
        break;
      }
  }
  TH_CHECK(tried > count / 2, "only %d sums tried", tried);
  TH_CHECK(bad_value == 0, "%d of %d sums: the search on ids disagrees with the graph solver", bad_value, tried);
  TH_CHECK(bad_nim == 0, "%d of %d sums: the XOR of nimbers disagrees with the graph solver", bad_nim, tried);
  TH_CHECK(additive_wrong > 0, "control: 'values add' was never caught in %d sums", tried);
  TH_CHECK(pairs == 0 || pair_wrong > 0, "control: 'equal pairs cancel' was never caught in %d pairs", pairs);
  dab_pdb_table_free(t);
}

/* True when a and b hold the same components, facts and moves. */
static bool same_db(const dab_pdb *a, const dab_pdb *b) {
  bool same = dab_pdb_count(a) == dab_pdb_count(b) && dab_pdb_max_strings(a) == dab_pdb_max_strings(b);
  for (uint32_t id = 0; same && id < dab_pdb_count(a); id++) {
    dab_pdb_info x = dab_pdb_get(a, id), y = dab_pdb_get(b, id);
    same = !memcmp(&x, &y, sizeof x) && !memcmp(dab_pdb_encoding(a, id), dab_pdb_encoding(b, id), 4 * x.coins);
    for (int m = 0; same && m < x.nmoves; m++) {
      dab_pdb_move u = dab_pdb_get_move(a, id, m), v = dab_pdb_get_move(b, id, m);
      same = u.captured == v.captured && u.nchildren == v.nchildren && u.cut == v.cut &&
             !memcmp(u.children, v.children, 4 * u.nchildren);
    }
  }
  return same;
}

/* The board search with the database against the retrograde table. */
static void test_search(const dab_pdb *db, int rows, int cols, uint64_t samples, uint64_t seed, int threads) {
  dab_geom g;
  dab_err err;
  dab_geom_init(&g, rows, cols, &err);
  dab_retro_opts ro = {.threads = 0};
  dab_retro *r = NULL;
  if (dab_retro_solve(&g, 0, &ro, &r, &err)) {
    TH_CHECK(0, "retro %dx%d: %s", rows, cols, err.msg);
    return;
  }
  dab_ab_opts o;
  dab_ab_default_opts(&o);
  o.hash_bytes = 16u << 20;
  o.pdb = db;
  o.pdb_table_bits = 16;
  o.threads = threads;
  o.tune.smp_min_free = 0; /* small positions on every thread too: they share the database's table */
  dab_status st;
  dab_ab *ab = dab_ab_new(&g, &o, &st, &err);
  if (!ab) {
    TH_CHECK(0, "solver: %s", err.msg);
    dab_retro_free(r);
    return;
  }
  uint64_t all = samples == 0 ? 1ull << g.nlines : samples, bad = 0;
  for (uint64_t i = 0; i < all; i++) {
    uint64_t p = samples == 0 ? i : th_splitmix64(&seed) & g.all_lines;
    int v = 0;
    dab_ab_solve(ab, p, &v, NULL, NULL, &err);
    if (v != dab_retro_value(r, p) && bad++ < 3)
      fprintf(stderr, "%dx%d %#llx: search with pdb %d, table %d\n", rows, cols, (unsigned long long)p, v,
              dab_retro_value(r, p));
  }
  dab_ab_stats s;
  dab_ab_get_stats(ab, &s);
  TH_CHECK(bad == 0, "%dx%d: %llu of %llu positions differ from the table with the database", rows, cols,
           (unsigned long long)bad, (unsigned long long)all);
  TH_CHECK(s.pdb_leaves > 0, "%dx%d: the database was never used", rows, cols);
  dab_ab_free(ab);
  dab_retro_free(r);
}

static void test_file(const dab_pdb *db) {
  char dir[] = "/tmp/dab-test-pdb-XXXXXX";
  if (!mkdtemp(dir)) {
    TH_CHECK(0, "mkdtemp");
    return;
  }
  char path[256], other[256];
  snprintf(path, sizeof path, "%s/%s", dir, DAB_PDB_FILE);
  dab_err err;
  TH_CHECK(dab_pdb_save(db, path, &err) == DAB_OK, "save: %s", err.msg);
  dab_pdb *back = NULL;
  TH_CHECK(dab_pdb_load(path, &back, &err) == DAB_OK, "load: %s", err.msg);
  if (back) {
    TH_CHECK(same_db(db, back), "the file does not give back the database");
    uint64_t checked, bad;
    TH_CHECK(dab_pdb_verify(back, &checked, &bad, NULL, NULL, NULL, &err) == DAB_OK && bad == 0 &&
                 checked == dab_pdb_count(db),
             "verify: %llu bad of %llu: %s", (unsigned long long)bad, (unsigned long long)checked, err.msg);
    dab_pdb_free(back);
  }
  /* damage: every 997th byte past the first page flipped in turn, one at a time */
  FILE *f = fopen(path, "rb");
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  unsigned char *bytes = malloc((size_t)size);
  fseek(f, 0, SEEK_SET);
  size_t got = fread(bytes, 1, (size_t)size, f);
  fclose(f);
  int damaged = 0, caught = 0, wrong = 0;
  snprintf(other, sizeof other, "%s/damaged.dabpdb", dir);
  for (long at = 4096; got == (size_t)size && at < size; at += 997) {
    bytes[at] ^= 0x40;
    FILE *w = fopen(other, "wb");
    fwrite(bytes, 1, (size_t)size, w);
    fclose(w);
    bytes[at] ^= 0x40;
    damaged++;
    dab_pdb *d = NULL;
    dab_status st = dab_pdb_load(other, &d, &err);
    if (st) {
      caught += st == DAB_ECORRUPT || st == DAB_EIO;
      continue;
    }
    /* a flip LMDB and the checksums both miss must be in unused bytes */
    if (!same_db(db, d)) wrong++;
    dab_pdb_free(d);
  }
  free(bytes);
  TH_CHECK(damaged > 0 && wrong == 0, "%d damaged files loaded with wrong contents (%d caught of %d)", wrong, caught,
           damaged);
  /* foreign and missing files */
  FILE *w = fopen(other, "wb");
  fputs("not a database at all, just text\n", w);
  fclose(w);
  dab_pdb *d = NULL;
  TH_CHECK(dab_pdb_load(other, &d, &err) == DAB_ECORRUPT, "a text file loaded");
  snprintf(other, sizeof other, "%s/missing.dabpdb", dir);
  TH_CHECK(dab_pdb_load(other, &d, &err) == DAB_EIO, "a missing file loaded");
  unlink(path);
  snprintf(other, sizeof other, "%s/damaged.dabpdb", dir);
  unlink(other);
  rmdir(dir);
}

int main(void) {
  int n = san_sizes() || getenv("DAB_TEST_TSAN") ? 8 : 10;
  dab_pdb *db;
  dab_err err;
  TH_CHECK(dab_pdb_new(&db, &err) == DAB_OK, "new");
  TH_CHECK(dab_pdb_build(db, 0, NULL, NULL, NULL, &err) == DAB_EINPUT, "--max-strings 0 accepted");
  TH_CHECK(dab_pdb_build(db, DAB_PDB_MAX_STRINGS + 1, NULL, NULL, NULL, &err) == DAB_EINPUT, "too many strings accepted");
  dab_status st = dab_pdb_build(db, n, NULL, NULL, NULL, &err);
  TH_CHECK(st == DAB_OK, "build: %s", err.msg);
  if (st) return TH_REPORT("test_pdb");
  test_counts(db, n);
  uint64_t checked = 0, bad = 0;
  TH_CHECK(dab_pdb_verify(db, &checked, &bad, NULL, NULL, NULL, &err) == DAB_OK && bad == 0,
           "verify: %llu of %llu components wrong: %s", (unsigned long long)bad, (unsigned long long)checked,
           err.msg);
  test_harvest(db, 2, 3, 0, 0);
  test_harvest(db, 1, 6, 0, 0);
  test_harvest(db, 3, 3, 0, 0);
  test_harvest(db, 4, 4, san_sizes() ? 20000 : 200000, 7);
  test_harvest(db, 5, 5, san_sizes() ? 20000 : 200000, 8);
  test_sums(db, san_sizes() ? 300 : 3000, 11);
  if (getenv("DAB_TEST_TSAN")) { /* the threaded check alone (tests/run.sh --tsan) */
    test_search(db, 3, 3, 2000, 9, 2);
    dab_pdb_free(db);
    return TH_REPORT("test_pdb");
  }
  test_search(db, 2, 3, 0, 0, 1);
  test_search(db, 3, 3, san_sizes() ? 3000 : 30000, 5, 1);
  test_search(db, 3, 3, san_sizes() ? 500 : 3000, 9, 2);
  if (!san_sizes()) test_search(db, 2, 5, 20000, 6, 1);
  test_file(db);
  dab_pdb_free(db);
  return TH_REPORT("test_pdb");
}
