/*
** test_oracle.c: the oracle's exact-search source, against retrograde
** tables: values and every move's value, the node limit, the solved store
** answering first, concurrent queries, and the plain-argument calls.
** See Copyright Notice in README.md
*/
#include <dirent.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capi/abi.h"
#include "oracle/oracle.h"
#include "solver/retro.h"
#include "tablebase/dabtb.h"
#include "tests/testhelp.h"

static uint64_t rng_state = 4242;
static uint64_t rng(void) { return th_splitmix64(&rng_state); }

/* A random position of g: each line drawn with probability per16/16. */
static uint64_t random_pos(const dab_geom *g, int per16) {
  uint64_t p = 0;
  for (int m = 0; m < g->nlines; m++)
    if ((int)(rng() % 16) < per16) p |= 1ull << m;
  return p;
}

static dab_oracle *open_search(int rows, int cols, const char *tb_dir, uint64_t node_limit,
                               int threads) {
  dab_oracle_opts oo = {.tb_dir = tb_dir,
                        .threads = threads,
                        .search = true,
                        .search_hash = 64ull << 20,
                        .search_node_limit = node_limit};
  dab_oracle *o = NULL;
  dab_err err;
  dab_status st = dab_oracle_open(rows, cols, &oo, &o, &err);
  TH_CHECK(st == DAB_OK && o, "open %dx%d with search: %s", rows, cols, st ? err.msg : "");
  return st ? NULL : o;
}

/* ---- Values and move values against the 2x5 table ----------------------- */

static void test_against_table(const dab_retro *table, const dab_geom *g, int threads) {
  dab_oracle *o = open_search(2, 5, NULL, 0, threads);
  if (!o) return;
  TH_CHECK(!strcmp(dab_oracle_source(o), "search"), "source is %s", dab_oracle_source(o));
  int bad = 0, n = 0;
  for (int i = 0; i < 1500; i++) {
    uint64_t p = random_pos(g, (int)(4 + rng() % 12));
    int v = 99;
    dab_err err;
    if (dab_oracle_value64(o, p, &v, &err) || v != dab_retro_value(table, p)) bad++;
    n++;
  }
  TH_CHECK(!bad, "%d of %d values differ from the table (%d threads)", bad, n, threads);
  /* Every move's value, and the best moves, from near the start too. */
  dab_analysis *a = malloc(sizeof *a), *t = malloc(sizeof *t);
  bad = 0;
  for (int i = 0; i < 120; i++) {
    uint64_t p = i == 0 ? 0 : random_pos(g, (int)(2 + rng() % 12));
    dab_lineset s = dab_ls_from_word(p);
    dab_err err;
    bool ok = !dab_oracle_analyze(o, &s, a, &err) && !dab_retro_analyze(table, p, t, &err) &&
              a->value == t->value && a->nmoves == t->nmoves && a->nbest == t->nbest &&
              !memcmp(a->move, t->move, sizeof a->move[0] * (size_t)a->nmoves) &&
              !memcmp(a->move_value, t->move_value, sizeof a->move[0] * (size_t)a->nmoves) &&
              !memcmp(a->best, t->best, sizeof a->best[0] * (size_t)a->nbest);
    if (!ok) bad++;
  }
  TH_CHECK(!bad, "%d of 120 analyses differ from the table (%d threads)", bad, threads);
  int16_t mv[64], val[64];
  int nm = 0;
  dab_err err;
  TH_CHECK(!dab_oracle_move_values(o, 0, mv, val, &nm, &err) && nm == g->nlines,
           "move_values of the empty board: %d moves", nm);
  bad = 0;
  dab_retro_analyze(table, 0, t, &err);
  for (int i = 0; i < nm; i++)
    if (mv[i] != t->move[i] || val[i] != t->move_value[i]) bad++;
  TH_CHECK(!bad, "move_values differ from the table at %d moves", bad);
  free(a);
  free(t);
  dab_oracle_close(o);
}

/* ---- Errors, limits, parsing ---------------------------------------------- */

static void test_limits(void) {
  dab_oracle *o = NULL;
  dab_err err;
  dab_oracle_opts off = {0};
  dab_status st = dab_oracle_open(4, 4, &off, &o, &err);
  TH_CHECK(st == DAB_EBOARD && !o && strstr(err.msg, "search"),
           "4x4 without search: not covered, and the message names search (%d: %s)", st, err.msg);
  dab_oracle_opts big = {.search = true};
  st = dab_oracle_open(6, 6, &big, &o, &err);
  TH_CHECK(st == DAB_EBOARD && !o, "6x6 (84 lines) is beyond search (%d)", st);

  o = open_search(4, 4, NULL, 1000000, 1);
  if (!o) return;
  int v = 0;
  st = dab_oracle_value64(o, 0, &v, &err);
  TH_CHECK(st == DAB_ECANCELED && strstr(err.msg, "node limit (1000000)") && strstr(err.msg, "4x4:"),
           "the empty 4x4 board stops at the node limit (%d: %s)", st, err.msg);
  /* The limit is per query: middle games of 26 free lines, together far
  ** beyond it, each answer (a shared count would stop them). */
  int answered = 0;
  for (int i = 0; i < 40; i++) {
    uint64_t p = 0;
    for (int drawn = 0; drawn < 14;) {
      int m = (int)(rng() % 40);
      if (!(p >> m & 1)) p |= 1ull << m, drawn++;
    }
    answered += dab_oracle_value64(o, p, &v, &err) == DAB_OK;
  }
  TH_CHECK(answered == 40, "%d of 40 4x4 middle games answered after a stopped query", answered);
  dab_analysis *a = malloc(sizeof *a);
  dab_lineset s = dab_ls_from_word(0);
  st = dab_oracle_analyze(o, &s, a, &err);
  TH_CHECK(st == DAB_ECANCELED, "analysing the empty 4x4 board stops at the limit (%d)", st);
  free(a);
  /* Plain-argument calls: text, and lines beyond the board. */
  uint64_t q = 0;
  TH_CHECK(!dab_oracle_parse(o, "4x4@0,1,39", &q, &err) && q == (1ull | 2ull | 1ull << 39),
           "parse 4x4@0,1,39 gives lines 0, 1 and 39");
  st = dab_oracle_parse(o, "3x3@0", &q, &err);
  TH_CHECK(st == DAB_EINPUT && strstr(err.msg, "3x3"), "a 3x3 text on a 4x4 oracle: %d %s", st,
           err.msg);
  st = dab_oracle_value64(o, 1ull << 40, &v, &err);
  TH_CHECK(st == DAB_EINPUT, "line 40 is beyond 4x4 (%d)", st);
  dab_oracle_close(o);
}

/* ---- The solved store answers before the search ---------------------------- */

static void test_store_first(const dab_retro *table, const dab_geom *g) {
  char dir[] = "/tmp/dab_test_oracle_XXXXXX";
  if (!mkdtemp(dir)) {
    TH_CHECK(0, "mkdtemp");
    return;
  }
  char path[512];
  snprintf(path, sizeof path, "%s/2x5.dab", dir);
  dabtb_store *st = NULL;
  dab_err err;
  /* A record the search would contradict (true value + 2, same parity):
  ** seeing it come back proves the oracle asked the store first. */
  uint64_t p = 0;
  for (int i = 0; i < 1000 && !p; i++) {
    uint64_t c = random_pos(g, 10);
    int v = dab_retro_value(table, c), open = 0;
    for (int b = 0; b < g->nboxes; b++) open += dab64_sides(g, c, b) < 4;
    if (v + 2 <= open) p = c;
  }
  int truth = dab_retro_value(table, p);
  dabtb_solved rec = {truth + 2, truth + 2, -1, 1, 0, 0};
  dab_status s = dabtb_store_open(path, 2, 5, DABTB_STORE_CREATE, &st, &err);
  if (!s) s = dabtb_store_put(st, 1, &p, &rec, &err);
  dabtb_store_close(st);
  TH_CHECK(!s, "writing a 2x5 solved-only store: %s", s ? err.msg : "");
  dab_oracle *o = open_search(2, 5, dir, 0, 1);
  if (o) {
    int v = 0;
    TH_CHECK(!dab_oracle_value64(o, p, &v, &err) && v == truth + 2,
             "the stored record answers (%d, stored %d, true %d)", v, truth + 2, truth);
    /* ... and children found in the store are not searched either. */
    int16_t mv[64], val[64];
    int n = 0;
    uint64_t parent = 0;
    int line = -1;
    for (int m = 0; m < g->nlines && line < 0; m++)
      if ((p >> m) & 1) {
        uint64_t q = p & ~(1ull << m);
        if (!dab64_completes(g, q, m)) {
          parent = q;
          line = m;
        }
      }
    bool seen = false;
    if (line >= 0 && !dab_oracle_move_values(o, parent, mv, val, &n, &err))
      for (int i = 0; i < n; i++)
        if (mv[i] == line) seen = val[i] == -(truth + 2);
    TH_CHECK(line < 0 || seen, "a parent's analysis takes its child's value from the store");
    dab_oracle_close(o);
  }
  unlink(path);
  snprintf(path, sizeof path, "%s/2x5.dab-lock", dir);
  unlink(path);
  rmdir(dir);
}

/* ---- A read-only oracle writes nothing, whatever the environment ------------ */

/* The number of entries of dir other than . and .. */
static int dir_entries(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  if (!d) return -1;
  for (struct dirent *e; (e = readdir(d));)
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

/* Empties dir (files only) and removes it. */
static void remove_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (d) {
    char path[600];
    for (struct dirent *e; (e = readdir(d));)
      if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
      }
    closedir(d);
  }
  rmdir(dir);
}

/* Opens rows x cols on dir (store: DAB_ORACLE_STORE_*, search on for 2x5),
** asks the empty board's children, closes; the source it answered from. */
static const char *query_on(int rows, int cols, const char *dir, bool read_only, int store) {
  dab_oracle_opts oo = {.tb_dir = dir, .threads = 1, .search = true, .search_hash = 16ull << 20,
                        .store = store, .read_only = read_only};
  dab_oracle *o = NULL;
  dab_err err;
  if (dab_oracle_open(rows, cols, &oo, &o, &err)) {
    TH_CHECK(0, "open %dx%d read_only=%d: %s", rows, cols, read_only, err.msg);
    return "none";
  }
  static char source[32];
  snprintf(source, sizeof source, "%s", dab_oracle_source(o));
  int16_t mv[64], val[64];
  int n = 0;
  uint64_t pos = (1ull << 3) | (1ull << 9) | (1ull << 20) | (1ull << 12) | (1ull << 6); /* a few lines */
  if (rows * (cols + 1) + (rows + 1) * cols <= 20) pos = 1;
  TH_CHECK(!dab_oracle_move_values(o, pos, mv, val, &n, &err) && n > 0, "%dx%d query: %s", rows, cols, err.msg);
  dab_oracle_close(o);
  return source;
}

static void test_read_only(void) {
  char d1[] = "/tmp/dab_test_ro_XXXXXX", d2[] = "/tmp/dab_test_ro_XXXXXX";
  if (!mkdtemp(d1) || !mkdtemp(d2)) {
    TH_CHECK(0, "mkdtemp");
    return;
  }
  unsetenv("DAB_READONLY");
  /* A small board's table: no oracle writes it (it is solved in memory);
  ** dabtb_open_board builds it, unless read-only. */
  const char *src = query_on(2, 2, d1, true, DAB_ORACLE_STORE_READ);
  TH_CHECK(!strcmp(src, "memory") && dir_entries(d1) == 0,
           "a read-only 2x2 oracle solves in memory and writes nothing (%s, %d files)", src, dir_entries(d1));
  dabtb *tb = NULL;
  dab_err err;
  dab_status st = dabtb_open_board_mode(2, 2, d1, true, &tb, &err);
  TH_CHECK(st == DAB_EIO && !tb && strstr(err.msg, "read-only handle") && dir_entries(d1) == 0,
           "a read-only open of a missing 2x2.dab refuses to build: %s", err.msg);
  src = query_on(2, 2, d1, false, DAB_ORACLE_STORE_READ);
  TH_CHECK(!strcmp(src, "memory") && dir_entries(d1) == 0,
           "a writing 2x2 oracle solves in memory and writes nothing either (%s, %d files)", src,
           dir_entries(d1));
  st = dabtb_open_board_mode(2, 2, d1, false, &tb, &err);
  TH_CHECK(st == DAB_OK && tb && dir_entries(d1) == 1,
           "a writing open builds 2x2.dab, and no lock file (%d files): %s", dir_entries(d1), st ? err.msg : "");
  dabtb_close(tb);
  src = query_on(2, 2, d1, false, DAB_ORACLE_STORE_READ);
  TH_CHECK(!strcmp(src, "tablebase"), "an oracle then answers from that file (%s)", src);
  st = dabtb_open_board_mode(2, 2, d1, true, &tb, &err);
  TH_CHECK(st == DAB_OK && tb, "a read-only open finds the table built: %s", st ? err.msg : "");
  dabtb_close(tb);
  /* The solved store of a search: kept only by a handle that may write. */
  query_on(2, 5, d2, true, DAB_ORACLE_STORE_WRITE);
  TH_CHECK(dir_entries(d2) == 0, "a read-only search with store=write writes no store (%d files)",
           dir_entries(d2));
  query_on(2, 5, d2, false, DAB_ORACLE_STORE_WRITE);
  TH_CHECK(dir_entries(d2) >= 1, "a writing search keeps its store (%d files)", dir_entries(d2));
  remove_dir(d1);
  remove_dir(d2);
  /* DAB_READONLY=1 stays the process default for handles that do not say. */
  char d3[] = "/tmp/dab_test_ro_XXXXXX";
  if (mkdtemp(d3)) {
    setenv("DAB_READONLY", "1", 1);
    src = query_on(2, 2, d3, false, DAB_ORACLE_STORE_READ);
    TH_CHECK(!strcmp(src, "memory") && dir_entries(d3) == 0,
             "DAB_READONLY=1: a 2x2 oracle writes nothing (%s, %d files)", src, dir_entries(d3));
    query_on(2, 5, d3, false, DAB_ORACLE_STORE_WRITE);
    TH_CHECK(dir_entries(d3) == 0, "DAB_READONLY=1: a search with store=write writes nothing (%d files)",
             dir_entries(d3));
    unsetenv("DAB_READONLY");
    remove_dir(d3);
  }
}

/* ---- Threads querying one oracle at once ---------------------------------- */

typedef struct {
  dab_oracle *o;
  const dab_retro *table;
  uint64_t seed;
  int bad;
} worker;

static void *query_worker(void *arg) {
  worker *w = arg;
  uint64_t x = w->seed;
  for (int i = 0; i < 300; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t p = (x >> 11) & (x >> 5) & ((1ull << 27) - 1);
    int v;
    dab_err err;
    if (dab_oracle_value64(w->o, p, &v, &err) || v != dab_retro_value(w->table, p)) w->bad++;
  }
  return NULL;
}

static void test_threads(const dab_retro *table) {
  dab_oracle *o = open_search(2, 5, NULL, 0, 1);
  if (!o) return;
  worker w[3];
  pthread_t th[3];
  for (int i = 0; i < 3; i++) {
    w[i] = (worker){o, table, 17u + (uint64_t)i, 0};
    pthread_create(&th[i], NULL, query_worker, &w[i]);
  }
  int bad = 0;
  for (int i = 0; i < 3; i++) {
    pthread_join(th[i], NULL);
    bad += w[i].bad;
  }
  TH_CHECK(!bad, "three threads on one oracle: %d of 900 answers wrong", bad);
  dab_oracle_close(o);
}

/* The binding layout tables (abi.h): every mirrored struct's field list
** names fields that exist, in increasing offsets without overlap, and
** leaves no more unaccounted bytes than alignment padding (a field added
** in C but not to the table shows up as a gap of its size). */
static void test_abi(void) {
  const char *types[] = {"dab_err", "dabtb_coverage", "dab_oracle_opts", "dab_pdb_probe_comp",
                         "dab_pdb_probe_result"};
  for (int t = 0; t < 5; t++) {
    const char *list = dab_abi_fields(types[t]);
    long size = dab_abi_sizeof(types[t]);
    TH_CHECK(list && size > 0, "abi: %s is listed", types[t]);
    if (!list) continue;
    char names[256];
    snprintf(names, sizeof names, "%s", list);
    long end = 0, maxfield = 1;
    int nfields = 0;
    for (char *save = NULL, *f = strtok_r(names, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
      long off = dab_abi_offsetof(types[t], f), fsize = dab_abi_fieldsize(types[t], f);
      TH_CHECK(off >= 0 && fsize > 0, "abi: %s.%s has an offset and a size", types[t], f);
      TH_CHECK(off >= end && off - end < 8, "abi: %s.%s at %ld follows the previous field (ends %ld) "
               "with at most padding", types[t], f, off, end);
      end = off + fsize;
      if (fsize > maxfield) maxfield = fsize;
      nfields++;
    }
    long align = maxfield >= 8 ? 8 : maxfield;
    TH_CHECK(nfields > 0 && (end + align - 1) / align * align == size,
             "abi: %s's %d fields end at %ld, its size %ld is that rounded to %ld", types[t], nfields,
             end, size, align);
  }
  TH_CHECK(dab_abi_sizeof("dabtb_coverage") == (long)sizeof(dabtb_coverage) &&
               dab_abi_offsetof("dabtb_coverage", "shapes") == (long)offsetof(dabtb_coverage, shapes),
           "abi: the table agrees with the compiler");
  TH_CHECK(dab_abi_sizeof("nope") == -1 && dab_abi_offsetof("dab_err", "nope") == -1 &&
               dab_abi_fieldsize(NULL, "msg") == -1 && dab_abi_fields("nope") == NULL,
           "abi: unknown names answer -1 / NULL");
}

/* ---- Win/draw/loss against a brute-force outcome search ---------------- */

typedef struct wdl_brute {
  const dab_geom *g;
  int8_t *memo;             /* [pos][d + nboxes]: 0 unknown, else result + 2 */
} wdl_brute;

/* The best result the mover reaches from p with score difference d, by a
** plain search over outcomes (no margins, no oracle). */
static int brute_wdl(wdl_brute *b, uint64_t p, int d) {
  const dab_geom *g = b->g;
  int left = g->nboxes - __builtin_popcountll(dab64_complete_v(dab64_side_vectors(g, p)));
  if (d > left || d < -left || p == g->all_lines) return d > 0 ? 1 : d < 0 ? -1 : 0;
  int8_t *slot = &b->memo[p * (uint64_t)(2 * g->nboxes + 1) + (uint64_t)(d + g->nboxes)];
  if (*slot) return *slot - 2;
  int best = -2;
  for (int m = 0; m < g->nlines; m++) {
    if (p >> m & 1) continue;
    int k = dab64_completes(g, p, m);
    int r = k ? brute_wdl(b, p | 1ull << m, d + k) : -brute_wdl(b, p | 1ull << m, -d);
    if (r > best) best = r;
  }
  *slot = (int8_t)(best + 2);
  return best;
}

/* Every position of a board (all of them, or a stride through them), every
** score difference: dab_oracle_result's result and kept moves equal the
** brute force's. */
static void test_wdl_board(int rows, int cols, uint64_t stride) {
  dab_geom g;
  dab_err err;
  dab_oracle *o = NULL;
  dab_oracle_opts oo = {.threads = 1};
  if (dab_geom_init(&g, rows, cols, &err) || dab_oracle_open(rows, cols, &oo, &o, &err)) {
    TH_CHECK(0, "wdl %dx%d: %s", rows, cols, err.msg);
    return;
  }
  wdl_brute b = {&g, calloc((size_t)(1ull << g.nlines) * (size_t)(2 * g.nboxes + 1), 1)};
  long bad = 0, checked = 0, kept_suboptimal = 0;
  for (uint64_t p = 0; p >> g.nlines == 0 && b.memo; p += stride) {
    for (int d = -g.nboxes; d <= g.nboxes; d++) {
      int result = 9, nkeep = 0;
      int16_t keep[64];
      if (dab_oracle_result(o, p, d, &result, keep, &nkeep, &err)) {
        bad++;
        continue;
      }
      int want = brute_wdl(&b, p, d), ki = 0;
      bool ok = result == want;
      for (int m = 0; m < g.nlines && ok; m++) {
        if (p >> m & 1) continue;
        int k = dab64_completes(&g, p, m);
        int r = k ? brute_wdl(&b, p | 1ull << m, d + k) : -brute_wdl(&b, p | 1ull << m, -d);
        bool listed = ki < nkeep && keep[ki] == m;
        if (listed) ki++;
        ok = listed == (r == want);
      }
      ok = ok && ki == nkeep;
      bad += !ok;
      checked++;
      if (ok && nkeep > 0) {
        /* Count positions where keeping the result allows a margin loss. */
        int16_t mv[64], val[64];
        int n = 0;
        if (!dab_oracle_move_values(o, p, mv, val, &n, &err)) {
          int best = -99;
          for (int i = 0; i < n; i++) best = val[i] > best ? val[i] : best;
          for (int i = 0, j = 0; i < n && j < nkeep; i++)
            if (mv[i] == keep[j]) {
              kept_suboptimal += val[i] < best;
              j++;
            }
        }
      }
    }
  }
  TH_CHECK(b.memo && checked > 1000 && bad == 0,
           "wdl %dx%d: %ld (position, score) pairs match brute force, %ld differ", rows, cols, checked, bad);
  TH_CHECK(kept_suboptimal > 0, "wdl %dx%d: some result-keeping moves are margin-suboptimal (%ld)", rows, cols,
           kept_suboptimal);
  free(b.memo);
  dab_oracle_close(o);
}

int main(void) {
  /* The user's own tablebases stay out: 2x5 must be answered by search. */
  setenv("DAB_TB_NO_PROJECT", "1", 1);
  unsetenv("DAB_TB_PATH");
  dab_geom g;
  dab_err err;
  dab_retro *table = NULL;
  dab_retro_opts ro = {.threads = 0};
  if (dab_geom_init(&g, 2, 5, &err) || dab_retro_solve(&g, 0, &ro, &table, &err)) {
    TH_CHECK(0, "2x5 table: %s", err.msg);
    return TH_REPORT("test_oracle");
  }
  /* Under ThreadSanitizer (tests/run.sh --tsan) only what runs threads. */
  bool tsan_only = getenv("DAB_TEST_TSAN") != NULL;
  if (!tsan_only) test_abi();
  if (!tsan_only) test_wdl_board(2, 2, 1);
  if (!tsan_only) test_wdl_board(2, 3, getenv("DAB_TEST_SAN") ? 7 : 1);
  if (!tsan_only) test_against_table(table, &g, 1);
  test_against_table(table, &g, 2);
  if (!tsan_only) {
    test_limits();
    test_store_first(table, &g);
    test_read_only();
  }
  test_threads(table);
  dab_retro_free(table);
  return TH_REPORT("test_oracle");
}
