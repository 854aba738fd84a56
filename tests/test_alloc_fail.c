/*
** test_alloc_fail.c: every allocation of a scenario made to fail in turn
** (tests/failalloc.h): each ends right, or in DAB_ENOMEM with its message.
** See Copyright Notice in README.md
*/
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "agents/agent.h"
#include "agents/az_int.h"
#include "agents/matrix.h"
#include "agents/nn.h"
#include "agents/q.h"
#include "oracle/oracle.h"
#include "capi/vec.h"
#include "pdb/pdb.h"
#include "players/arena.h"
#include "players/player.h"
#include "proof/prover.h"
#include "solver/ab.h"
#include "solver/proof.h"
#include "solver/retro.h"
#include "tablebase/dabtb.h"
#include "tablebase/tb_store.h"
#include "tests/failalloc.h"
#include "tests/testhelp.h"
#include "theorems/graphsolve.h"
#include "verify/tb_verify.h"
#include "verify/thm_check.h"

/* Weak, so the plain build links: present under ASan/LSan only. */
int __lsan_do_recoverable_leak_check(void) __attribute__((weak));
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

static char dir[256];
static const char *cur_name = "";
static uint64_t cur_n;
static uint64_t total_points;
static int nscenarios;
static dab_retro *truth23, *truth22; /* every position's value, the reference */
static dab_retro *truth25;          /* 2x5 below STORE_ROOT */
#define STORE_ROOT 0x1d7a5b3ull     /* 16 of 2x5's 27 lines */
static dab_pdb *small_pdb;          /* components of up to 4 strings, for the search */

/* A crash inside a sweep names the scenario and the allocation failed. */
static void on_death(void) {
  fprintf(stderr, "alloc-fail: died in scenario %s, allocation %llu failed\n", cur_name,
          (unsigned long long)cur_n);
}

static void path_in(char *buf, size_t len, const char *name) { snprintf(buf, len, "%s/%s", dir, name); }

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* rm -rf path, in process (a sweep calls it thousands of times). */
static void rm_rf(const char *path) {
  if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0 && errno != ENOENT)
    fprintf(stderr, "cannot remove %s: %s\n", path, strerror(errno));
}

/* A writer's leftovers in d and the folders in it: names with .tmp or
** .compact. in them. */
static int temp_files_in(const char *d, int depth) {
  DIR *dd = opendir(d);
  if (!dd) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(dd));) {
    if (e->d_name[0] == '.') continue;
    char p[600];
    snprintf(p, sizeof p, "%s/%s", d, e->d_name);
    if (strstr(e->d_name, ".tmp") || strstr(e->d_name, ".compact.")) {
      if (n++ == 0) fprintf(stderr, "left behind: %s\n", p);
    } else if (depth > 0 && e->d_type == DT_DIR) {
      int k = temp_files_in(p, depth - 1);
      if (k > 0) n += k;
    }
  }
  closedir(dd);
  return n;
}
static int temp_files(void) { return temp_files_in(dir, 1); }

/* Where the program is loaded: addresses become offsets addr2line reads. */
static uintptr_t exe_offset(void *a) {
  Dl_info di;
  return dladdr(a, &di) ? (uintptr_t)a - (uintptr_t)di.dli_fbase : (uintptr_t)a;
}

typedef struct scenario {
  const char *name;
  const char *skip;                 /* why it is not swept by default (NULL: it is) */
  void (*setup)(void);              /* unarmed, before each run (may be NULL) */
  dab_status (*run)(dab_err *err);  /* frees all it made, whatever happens */
  bool (*file_ok)(void);            /* unarmed, after each run: what it wrote is
                                       absent or whole (may be NULL) */
} scenario;

/* How many of a site's calls a sweep fails (DAB_ALLOC_FAIL_ALL=1: all):
** a loop that allocates at one site thousands of times would otherwise
** make the sweep as long, for the same code on each failure. */
enum { PER_SITE = 4 };

/*
** Runs s once with nothing failed (it must succeed), recording the site
** of each allocation; then again with the nth allocation failing, for
** each n whose site has been failed fewer than PER_SITE times.  Each such
** run must succeed (a fallback that still answers right: run checks its
** own answers) or fail with DAB_ENOMEM and a one-line message; nothing
** may be left half-written, and nothing may leak.
*/
static void sweep(const scenario *s) {
  enum { MAX_SITES = 4096 };
  static struct site_count {
    void *site, *before; /* a site, and the one of the allocation before it */
    int n;
  } seen[MAX_SITES];
  int nseen = 0, per_site = getenv("DAB_ALLOC_FAIL_ALL") ? INT_MAX : PER_SITE;
  bool verbose = getenv("DAB_ALLOC_FAIL_VERBOSE") != NULL;
  cur_name = s->name;
  if (s->setup) s->setup();
  dab_err err = {.msg = ""};
  fa_record(true);
  dab_status st = s->run(&err);
  fa_record(false);
  TH_CHECK(st == DAB_OK, "%s: unfailed run: %s (%s)", s->name, dab_status_name(st), err.msg);
  if (s->file_ok) TH_CHECK(s->file_ok(), "%s: unfailed run: a damaged file", s->name);
  void *const *rec;
  size_t calls = fa_recorded(&rec);
  TH_CHECK(calls > 0, "%s: no allocation counted", s->name);
  void **site = calls ? malloc(calls * sizeof *site) : NULL;
  if (calls && !site) {
    TH_CHECK(false, "%s: out of memory for the record of %zu calls", s->name, calls);
    return;
  }
  if (calls) memcpy(site, rec, calls * sizeof *site);
  uint64_t points = 0, fallbacks = 0, enomem = 0;
  for (uint64_t n = 1; n <= calls; n++) {
    void *before = n > 1 ? site[n - 2] : NULL;
    int k = 0;
    while (k < nseen && (seen[k].site != site[n - 1] || seen[k].before != before)) k++;
    if (k == nseen && nseen < MAX_SITES) seen[nseen++] = (struct site_count){site[n - 1], before, 0};
    if (k < MAX_SITES && seen[k].n++ >= per_site) continue;
    if (s->setup) s->setup();
    err.msg[0] = 0;
    cur_n = n;
    fa_arm(n);
    st = s->run(&err);
    bool fired = fa_fired();
    fa_arm(0);
    cur_n = 0;
    if (!fired) { /* fewer calls than recorded (threads): nothing failed */
      TH_CHECK(st == DAB_OK, "%s: run %llu, nothing failed: %s (%s)", s->name, (unsigned long long)n,
               dab_status_name(st), err.msg);
      continue;
    }
    points++;
    if (verbose) /* the call's own address: its return address less one */
      fprintf(stderr, "%s %llu %d site %#lx\n", s->name, (unsigned long long)n, (int)st,
              (unsigned long)(exe_offset(fa_last_site()) - 1));
    if (st == DAB_OK) {
      fallbacks++;
    } else {
      enomem++;
      TH_CHECK(st == DAB_ENOMEM && err.msg[0] && !strchr(err.msg, '\n'), "%s: allocation %llu: status %s, message '%s'",
               s->name, (unsigned long long)n, dab_status_name(st), err.msg);
    }
    int left = temp_files();
    TH_CHECK(left == 0, "%s: allocation %llu: %d temporary files left", s->name, (unsigned long long)n, left);
    if (s->file_ok) TH_CHECK(s->file_ok(), "%s: allocation %llu: a damaged file left", s->name, (unsigned long long)n);
    if (left) break;
  }
  free(site);
  total_points += points;
  if (__lsan_do_recoverable_leak_check)
    TH_CHECK(__lsan_do_recoverable_leak_check() == 0, "%s: a failure path leaks (LeakSanitizer's report above)",
             s->name);
  if (verbose)
    fprintf(stderr, "%s: %zu allocations, %llu failed: %llu fallbacks, %llu ENOMEM\n", s->name, calls,
            (unsigned long long)points, (unsigned long long)fallbacks, (unsigned long long)enomem);
  nscenarios++;
  cur_name = "";
}

/* ---- the scenarios ---------------------------------------------------- */

/* The answer a scenario checks, when it succeeds. */
static dab_status wrong(dab_err *err, const char *what, int got, int want) {
  return dab_fail(err, DAB_EINTERNAL, "%s: %d, want %d", what, got, want);
}

/* The retrograde solver of 2x3 from a position, and one analysis. */
static dab_status run_retro(dab_err *err) {
  dab_geom g;
  dab_status st = dab_geom_init(&g, 2, 3, err);
  if (st) return st;
  dab_retro_opts o = {.threads = 1};
  dab_retro *r = NULL;
  uint64_t root = 0x421;
  st = dab_retro_solve(&g, root, &o, &r, err);
  if (st) return st;
  dab_analysis a;
  st = dab_retro_analyze(r, root, &a, err);
  if (!st && a.value != dab_retro_value(truth23, root)) st = wrong(err, "retro value", a.value, dab_retro_value(truth23, root));
  dab_retro_free(r);
  return st;
}

/* Alpha-beta with its table: a solve, an analysis, a PV. */
static dab_status run_ab(dab_err *err) {
  dab_geom g;
  dab_status st = dab_geom_init(&g, 2, 3, err);
  if (st) return st;
  dab_ab_opts o;
  dab_ab_default_opts(&o);
  o.hash_bytes = 1 << 20;
  o.threads = 1;
  o.pdb = small_pdb;
  o.pdb_table_bits = 10;
  dab_ab *ab = dab_ab_new(&g, &o, &st, err);
  if (!ab) return st;
  int v, lo, hi;
  st = dab_ab_solve(ab, 0, &v, &lo, &hi, err);
  if (!st && v != dab_retro_value(truth23, 0)) st = wrong(err, "ab value", v, dab_retro_value(truth23, 0));
  dab_analysis a;
  if (!st) st = dab_ab_analyze(ab, 0x10, &a, err);
  if (!st && a.value != dab_retro_value(truth23, 0x10))
    st = wrong(err, "ab analysis", a.value, dab_retro_value(truth23, 0x10));
  int16_t pv[32];
  if (!st) (void)dab_ab_pv(ab, 0, pv, 32);
  dab_ab_free(ab);
  if (st) return st;
  o.threads = 2; /* made, not run: a threaded search's allocations come in no fixed order */
  o.pdb = NULL;
  ab = dab_ab_new(&g, &o, &st, err);
  dab_ab_free(ab);
  return st;
}

/* The theory-free graph solver on a 2x3 position (theorems/). */
static dab_status run_graph(dab_err *err) {
  dab_geom g;
  dab_status st = dab_geom_init(&g, 2, 3, err);
  if (st) return st;
  uint64_t p = 0x21;
  dab_lineset ls = dab_ls_from_word(p);
  dab_sg sg;
  st = dab_sg_from_board(&g, &ls, &sg, NULL, err);
  dab_sgs *sgs = NULL;
  if (!st) st = dab_sgs_new(&sg, &sgs, err);
  if (!st) {
    int v = dab_sgs_value(sgs, (1u << sg.nstrings) - 1);
    if (v != dab_retro_value(truth23, p)) st = wrong(err, "graph value", v, dab_retro_value(truth23, p));
  }
  dab_sgs_free(sgs);
  return st;
}

/* The pattern database: built, saved, loaded and probed. */
static void setup_pdb(void) {
  char p[300];
  path_in(p, sizeof p, "s.dabpdb");
  unlink(p);
}

static dab_status run_pdb(dab_err *err) {
  char p[300];
  path_in(p, sizeof p, "s.dabpdb");
  dab_pdb *db = NULL, *back = NULL;
  dab_status st = dab_pdb_new(&db, err);
  if (!st) st = dab_pdb_build(db, 4, NULL, NULL, NULL, err);
  if (!st) st = dab_pdb_save(db, p, err);
  if (!st) st = dab_pdb_load(p, &back, err);
  if (!st && dab_pdb_count(back) != dab_pdb_count(db))
    st = wrong(err, "pdb components after load", (int)dab_pdb_count(back), (int)dab_pdb_count(db));
  dab_pdb_probe_result pr;
  if (!st) st = dab_pdb_probe(back, "2x3@0,5,10", &pr, err);
  dab_pdb_table *t = NULL;
  if (!st) st = dab_pdb_table_new(10, &t, err);
  dab_pdb_table_free(t);
  dab_pdb_free(back);
  dab_pdb_free(db);
  return st;
}

/* The saved database is absent or loads whole. */
static bool pdb_file_ok(void) {
  char p[300];
  path_in(p, sizeof p, "s.dabpdb");
  if (access(p, F_OK) != 0) return true;
  dab_pdb *db = NULL;
  dab_err err;
  bool ok = dab_pdb_load(p, &db, &err) == DAB_OK && dab_pdb_max_strings(db) == 4;
  dab_pdb_free(db);
  return ok;
}

/* Tablebase builds, layered and full-array, into a fresh directory. */
static void setup_tb_build(void) {
  char p[300];
  path_in(p, sizeof p, "2x2.dab");
  unlink(p);
  path_in(p, sizeof p, "2x2.dab.layers");
  rm_rf(p);
  path_in(p, sizeof p, "2x2.dab.lock");
  unlink(p);
}

static dab_status tb_build(bool full_array, dab_err *err) {
  char p[300];
  path_in(p, sizeof p, "2x2.dab");
  dabtb_build_opts bo = {.threads = 1, .full_array = full_array};
  dabtb_plan plan;
  dab_status st = dabtb_build_plan(2, 2, p, &bo, &plan, err);
  dabtb_lview *lv = NULL;
  if (!st && !full_array) st = dabtb_lview_new(2, 2, 1, &lv, err);
  dabtb_lview_free(lv);
  dabtb_build_report rep;
  if (!st) st = dabtb_build(2, 2, p, &bo, &rep, err);
  return st;
}
static dab_status run_tb_build(dab_err *err) { return tb_build(false, err); }
static dab_status run_tb_build_array(dab_err *err) { return tb_build(true, err); }

static bool tb_file_ok(void) {
  char p[300];
  path_in(p, sizeof p, "2x2.dab");
  if (access(p, F_OK) != 0) return true;
  dabtb *tb = NULL;
  dab_err err;
  int v = 99;
  bool ok = dabtb_open(p, NULL, &tb, &err) == DAB_OK && dabtb_value(tb, 0, &v, &err) == DAB_OK &&
            v == dab_retro_value(truth22, 0);
  dabtb_close(tb);
  return ok;
}

static void count_meta(void *ctx, const char *key, const char *value) {
  (void)key, (void)value;
  ++*(int *)ctx;
}

/* A build over a solved-only file of the same board: the search results
** in it go into the new file (tb_build.c: "a build never loses search
** results"), or the build fails and the old file stays. */
#define REBUILD_RECS 5
static const uint64_t rebuild_pos[REBUILD_RECS] = {0x3, 0x5, 0x9, 0x30, 0x101};

static void setup_tb_rebuild(void) {
  char p[300];
  path_in(p, sizeof p, "r/2x2.dab");
  char d[300];
  path_in(d, sizeof d, "r");
  rm_rf(d);
  mkdir(d, 0700);
  dabtb_store *st = NULL;
  dab_err err;
  dabtb_solved recs[REBUILD_RECS];
  for (int i = 0; i < REBUILD_RECS; i++) {
    int v = dab_retro_value(truth22, rebuild_pos[i]);
    recs[i] = (dabtb_solved){v, v, -1, 1000, 0.5, 0};
  }
  if (dabtb_store_open(p, 2, 2, DABTB_STORE_CREATE, &st, &err) ||
      dabtb_store_put(st, REBUILD_RECS, rebuild_pos, recs, &err))
    fprintf(stderr, "FAIL: a 2x2 solved-only file: %s\n", err.msg), th_failed++;
  dabtb_store_close(st);
}

/* How many of the records the file at r/2x2.dab holds (-1: it opens not). */
static int rebuild_kept(void) {
  char p[300];
  path_in(p, sizeof p, "r/2x2.dab");
  dabtb_store *st = NULL;
  dab_err err;
  if (dabtb_store_open(p, 2, 2, DABTB_STORE_READ, &st, &err)) return -1;
  int kept = 0;
  for (int i = 0; i < REBUILD_RECS; i++) {
    dabtb_solved r;
    bool found = false;
    kept += dabtb_store_get(st, rebuild_pos[i], &r, &found, &err) == DAB_OK && found;
  }
  dabtb_store_close(st);
  return kept;
}

static dab_status run_tb_rebuild(dab_err *err) {
  char p[300];
  path_in(p, sizeof p, "r/2x2.dab");
  dabtb_build_opts bo = {.threads = 1, .full_array = true};
  return dabtb_build(2, 2, p, &bo, NULL, err);
}

/* Failed or not, the file holds every record (checked unarmed). */
static bool tb_rebuild_ok(void) {
  int kept = rebuild_kept();
  if (kept != REBUILD_RECS) fprintf(stderr, "%d of %d solved records kept\n", kept, REBUILD_RECS);
  return kept == REBUILD_RECS;
}

/* A 2x3 tablebase (made once, unarmed) opened and probed: with its
** block cache, and with none (every probe decodes a private copy). */
static dab_status tb_probe(size_t cache_bytes, dab_err *err) {
  char p[300];
  path_in(p, sizeof p, "2x3.dab");
  dabtb *tb = NULL;
  dabtb_opts to = {.cache_bytes = cache_bytes};
  dab_status st = dabtb_open(p, &to, &tb, err);
  if (st) return st;
  uint64_t pos[3] = {0, 0x21, 0x4242};
  for (int i = 0; i < 3 && !st; i++) {
    int v;
    st = dabtb_value(tb, pos[i], &v, err);
    if (!st && v != dab_retro_value(truth23, pos[i])) st = wrong(err, "tb value", v, dab_retro_value(truth23, pos[i]));
  }
  dab_analysis a;
  if (!st) st = dabtb_analyze(tb, 0x8, &a, err);
  if (!st && a.value != dab_retro_value(truth23, 0x8)) st = wrong(err, "tb analysis", a.value, dab_retro_value(truth23, 0x8));
  int16_t best[64];
  int nbest;
  if (!st) st = dabtb_best_moves(tb, 0x8, best, &nbest, err);
  if (!st && nbest != a.nbest) st = wrong(err, "tb best moves", nbest, a.nbest);
  uint64_t parsed;
  if (!st) st = dabtb_parse(tb, "2x3@0,5", &parsed, err);
  int nmeta = 0;
  if (!st) st = dabtb_meta_each(tb, count_meta, &nmeta, err);
  if (!st && nmeta == 0) st = wrong(err, "tb meta records", nmeta, 1);
  dabtb_close(tb);
  return st;
}

static dab_status run_tb_probe(dab_err *err) {
  dab_status st = tb_probe(0, err);
  if (!st) st = tb_probe(1, err);
  return st;
}

/* The oracle: from the 2x3 tablebase, then by search (no table). */
static dab_status run_oracle(dab_err *err) {
  /* No in-memory table in place of the file (max_build_free 1): a file
  ** that cannot be opened is then the oracle's error. */
  dab_oracle_opts oo = {.tb_dir = dir, .threads = 1, .max_build_free = 1};
  dab_oracle *o = NULL;
  dab_status st = dab_oracle_open(2, 3, &oo, &o, err);
  if (st) return st;
  int v;
  int16_t mv[64], val[64];
  int n;
  st = dab_oracle_value64(o, 0x30, &v, err);
  if (!st && v != dab_retro_value(truth23, 0x30)) st = wrong(err, "oracle value", v, dab_retro_value(truth23, 0x30));
  if (!st) st = dab_oracle_move_values(o, 0x30, mv, val, &n, err);
  dab_analysis a;
  dab_lineset ls = dab_ls_from_word(0x30);
  if (!st) st = dab_oracle_analyze(o, &ls, &a, err);
  if (!st && a.nmoves != n) st = wrong(err, "oracle analysis moves", a.nmoves, n);
  int result, nkeep, lo, hi;
  if (!st) st = dab_oracle_result(o, 0x30, 0, &result, mv, &nkeep, err);
  if (!st) st = dab_oracle_bounds64(o, 0x30, &lo, &hi, err);
  if (!st && (lo != v || hi != v)) st = wrong(err, "oracle bounds", lo, v);
  uint64_t pos;
  if (!st) st = dab_oracle_parse(o, "2x3@4,5", &pos, err);
  dab_vec *vec = NULL;
  if (!st) st = dab_vec_new(2, 3, &vec, err);
  uint64_t lines[2] = {0x30, 0x101};
  int8_t vlo[2], vhi[2];
  if (!st) st = dab_vec_values(o, vec, 2, lines, vlo, vhi, err);
  if (!st && vlo[1] != dab_retro_value(truth23, 0x101)) st = wrong(err, "vec value", vlo[1], dab_retro_value(truth23, 0x101));
  dab_vec_free(vec);
  dab_oracle_close(o);
  if (st) return st;
  dab_oracle_opts so = {.search = true, .only = DAB_ORACLE_ONLY_SEARCH, .store = DAB_ORACLE_STORE_NONE,
                        .threads = 1, .search_hash = 1 << 20};
  st = dab_oracle_open(2, 3, &so, &o, err);
  if (st) return st;
  dab_oracle_plan plan;
  dab_lineset pl = dab_ls_from_word(0x101);
  st = dab_oracle_plan_query(o, &pl, &plan, err);
  if (!st) st = dab_oracle_move_values(o, 0x101, mv, val, &n, err);
  if (!st) st = dab_oracle_value64(o, 0x101, &v, err);
  if (!st && v != dab_retro_value(truth23, 0x101))
    st = wrong(err, "oracle search value", v, dab_retro_value(truth23, 0x101));
  dab_oracle_close(o);
  return st;
}

/* A proof of 2x2's value, created in a directory and run to the end. */
static void setup_proof(void) {
  char p[300];
  path_in(p, sizeof p, "proof");
  rm_rf(p);
}

static dab_status prove_in(const char *p, dab_err *err) {
  int v = dab_retro_value(truth22, 0);
  dab_proof_spec want = {.rows = 2, .cols = 2, .has_ge = true, .ge_bound = v, .has_le = true, .le_bound = v,
                         .depth = 2};
  dab_proof *pf = NULL;
  dab_proof_load_info li;
  dab_status st = dab_prover_open(p, &want, true, 2, true, &pf, &li, err);
  if (st) return st;
  dab_prover_opts po = {0};
  dab_prover *pr = NULL;
  dab_ab *ab = NULL;
  st = dab_prover_new(pf, &po, p, NULL, &pr, err);
  if (!st) {
    dab_ab_opts o;
    dab_ab_default_opts(&o);
    o.hash_bytes = 1 << 20;
    o.threads = 1;
    dab_prover_hook(pr, &o);
    ab = dab_ab_new(dab_proof_geom(pf), &o, &st, err);
  }
  dab_prover_result r;
  if (ab) st = dab_prover_run(pr, ab, &r, err);
  if (!st && dab_prover_summary(pr)->state != DAB_PROOF_PROVED)
    st = wrong(err, "proof state", dab_prover_summary(pr)->state, DAB_PROOF_PROVED);
  if (!st) { /* an estimate with less to go on, never an error */
    size_t n;
    dab_prover_subtrees est;
    dab_prover_subtrees_estimate(pf, &n, &est);
  }
  dab_prover_recheck_result rr;
  if (!st) st = dab_prover_recheck(pf, ab, 3, 7, NULL, NULL, NULL, NULL, &rr, err);
  if (!st && (rr.wrong || !rr.checked)) st = wrong(err, "records rechecked wrong", rr.wrong, 0);
  dab_ab_free(ab);
  dab_prover_free(pr);
  dab_proof_free(pf);
  return st;
}

static dab_status run_proof(dab_err *err) {
  char p[300];
  path_in(p, sizeof p, "proof");
  return prove_in(p, err);
}

/* Model files: an nn net and an az net, saved (unarmed) and loaded. */
static dab_status run_models(dab_err *err) {
  dab_geom g;
  dab_status st = dab_geom_init(&g, 2, 2, err);
  if (st) return st;
  char p[300];
  path_in(p, sizeof p, "n.model");
  dab_nn nn;
  dab_model_header h;
  st = dab_nn_load(p, &g, &nn, &h, err);
  if (st) return st;
  dab_player *pl = NULL;
  st = dab_nn_player(&nn, "nn", &g, false, &pl, err);
  dab_player_free(pl);
  dab_nn_free(&nn);
  if (st) return st;
  path_in(p, sizeof p, "a.model");
  dab_az_model *m = NULL;
  st = dab_az_model_load(p, &g, &m, err);
  dab_az_model_free(m);
  if (st) return st;
  path_in(p, sizeof p, "q.model");
  dab_q *q = NULL;
  st = dab_q_load(p, &g, &q, err);
  dab_q_free(q);
  return st;
}

/* A small board's tablebase built on first use (2x2, in a fresh folder:
** dabtb_open_board; no oracle writes one), then an oracle answering from
** it (max_build_free 1: no in-memory table instead). */
static void setup_oracle_build(void) {
  char p[300];
  path_in(p, sizeof p, "b");
  rm_rf(p);
  mkdir(p, 0700);
}

static dab_status run_oracle_build(dab_err *err) {
  char p[300];
  path_in(p, sizeof p, "b");
  dabtb *tb = NULL;
  dab_status st = dabtb_open_board(2, 2, p, &tb, err);
  dabtb_close(tb);
  if (st) return st;
  dab_oracle_opts oo = {.tb_dir = p, .threads = 1, .max_build_free = 1};
  dab_oracle *o = NULL;
  st = dab_oracle_open(2, 2, &oo, &o, err);
  if (st) return st;
  int v;
  st = dab_oracle_value64(o, 0x5, &v, err);
  if (!st && v != dab_retro_value(truth22, 0x5)) st = wrong(err, "built table's value", v, dab_retro_value(truth22, 0x5));
  dab_oracle_close(o);
  return st;
}

static bool oracle_build_ok(void) {
  char p[300];
  path_in(p, sizeof p, "b/2x2.dab");
  if (access(p, F_OK) != 0) return true;
  dabtb *tb = NULL;
  dab_err err;
  bool ok = dabtb_open(p, NULL, &tb, &err) == DAB_OK;
  dabtb_close(tb);
  return ok;
}

/* The theorem checks (dab verify theorems), levels 2 to 5 at tiny sizes:
** a run that succeeds must have checked as many cases, claim by claim,
** as the first run (the unfailed one): a check skipped for want of memory
** would otherwise pass unseen. */
static dab_status run_thm(dab_err *err) {
  static thm_report rep, ref;
  static bool have_ref;
  dab_status st = DAB_OK;
  for (int level = 2; level <= 5 && !st; level++) {
    thm_opts o;
    thm_opts_default(&o);
    o.level = level;
    o.max_strings2 = 6, o.graphs2 = 4, o.max_board_lines = 12, o.constructed3 = 2, o.games4 = 2;
    o.pdb_strings = 4, o.pdb_sums = 8, o.threads = 1, o.seed = 5;
    thm_report *r = &rep;
    memset(r, 0, sizeof *r);
    st = thm_check_run(&o, r, err);
    if (!st && !thm_report_ok(r)) st = dab_fail(err, DAB_EINTERNAL, "level %d: a claim fails", level);
    thm_report *want = &ref;
    if (!st && !have_ref) memcpy(&ref.c[ref.n], r->c, sizeof r->c[0] * (size_t)r->n), ref.n += r->n;
    else if (!st) {
      int at = 0;
      while (at < want->n && want->c[at].level != level) at++;
      for (int i = 0; i < r->n && !st; i++)
        if (at + i >= want->n || r->c[i].cases != want->c[at + i].cases)
          st = dab_fail(err, DAB_EINTERNAL, "level %d claim %s %s: %llu cases, the unfailed run %llu", level,
                        r->c[i].id, r->c[i].part, (unsigned long long)r->c[i].cases,
                        at + i < want->n ? (unsigned long long)want->c[at + i].cases : 0ull);
    }
  }
  if (!st) have_ref = true;
  return st;
}

/* Players made from specs and moved on rows x cols; a move is always a
** legal line (a player has no error to return: one whose search cannot
** allocate falls back to a simpler move).  agents: the learning agents'
** kinds too (nn:FILE, az:FILE, q:FILE). */
static dab_status play_specs(int rows, int cols, const char *const *specs, size_t nspecs, bool agents,
                             dab_err *err) {
  dab_geom g;
  dab_status st = dab_geom_init(&g, rows, cols, err);
  dab_player_env *env = NULL;
  if (!st) st = dab_player_env_new(dir, &env, err);
  if (!st && agents) st = dab_agents_register(env, err);
  for (size_t i = 0; i < nspecs && !st; i++) {
    dab_player *pl = NULL;
    st = dab_player_new(specs[i], &g, env, &pl, err);
    dab_game game;
    dab_game_init(&g, &game);
    dab_rng rng;
    dab_rng_seed(&rng, 1);
    for (int k = 0; k < 3 && !st; k++) {
      int m = dab_player_move(pl, &game, &rng);
      if (m < 0 || dab_game_play(&g, &game, m) < 0)
        st = dab_fail(err, DAB_EINTERNAL, "%s: move %d is not a legal line", specs[i], m);
    }
    dab_player_free(pl);
  }
  dab_player_env_free(env);
  return st;
}

/* Self-play (az_play_games): games in flight, their searches and samples.
** Four 2x2 backward games from a zero net (uniform prior, value 0) on one
** thread, 3 in flight: the samples of az_ref_outs, or DAB_ENOMEM. */
enum { AZ_REF_GAMES = 4 };
static dab_az_net *az_zero_net;
static az_game_out az_ref_outs[AZ_REF_GAMES];

static dab_status play_az(az_game_out *outs, dab_err *err) {
  dab_geom g;
  dab_status st = dab_geom_init(&g, 2, 2, err);
  if (st) return st;
  az_opts o;
  az_opts_default(&o);
  o.sims = 12;
  o.backward = true;
  o.eval_batch = 3;
  az_play play = {&g, &o, az_zero_net, 5, 1, 8};
  memset(outs, 0, AZ_REF_GAMES * sizeof *outs);
  return az_play_games(&play, AZ_REF_GAMES, 1, NULL, outs, err);
}

static dab_status run_az_selfplay(dab_err *err) {
  az_game_out outs[AZ_REF_GAMES];
  dab_status st = play_az(outs, err);
  for (int i = 0; i < AZ_REF_GAMES; i++) {
    const az_game_out *a = &outs[i], *r = &az_ref_outs[i];
    if (!st && (a->n != r->n || a->npos != r->npos)) st = wrong(err, "az self-play samples", a->n, r->n);
    for (int j = 0; !st && j < a->n; j++)
      if (a->s[j].lines != r->s[j].lines || a->s[j].z != r->s[j].z || memcmp(a->s[j].pi, r->s[j].pi, sizeof a->s[j].pi))
        st = wrong(err, "az self-play sample", j, i);
    free(outs[i].s);
  }
  return st;
}

static dab_status run_players(dab_err *err) {
  static const char *const specs[] = {"random", "level1", "level2", "chain", "mcts:sims=30",
                                      "mcts-bz:sims=30", "mcts-os:sims=30", "ab:depth=2", "sw:2x2",
                                      "perfect"};
  return play_specs(2, 3, specs, sizeof specs / sizeof *specs, false, err);
}

/* A match of two players on 2x3, every move scored by the oracle: a
** move the oracle could not score stays unscored (scored < moves). */
static dab_status run_match(dab_err *err) {
  dab_geom g;
  dab_status st = dab_geom_init(&g, 2, 3, err);
  dab_player_env *env = NULL;
  if (!st) st = dab_player_env_new(dir, &env, err);
  const dab_oracle *o = NULL;
  if (!st) st = dab_player_env_oracle(env, 2, 3, &o, err);
  dab_game_record rec[2];
  dab_match_opts mo = {.g = &g, .player = {{.spec = "level1"}, {.spec = "mcts:sims=20"}}, .env = env, .oracle = o,
                       .games = 2, .threads = 1, .seed = 9};
  if (!st) st = dab_match_run(&mo, rec, err);
  for (int i = 0; i < 2 && !st; i++)
    if (!rec[i].done || rec[i].score[0] + rec[i].score[1] != g.nboxes)
      st = wrong(err, "match game boxes", rec[i].score[0] + rec[i].score[1], g.nboxes);
  dab_player_env_free(env);
  return st;
}

static dab_status run_agent_players(dab_err *err) {
  static char specs[3][320];
  static const char *const names[3] = {"nn", "az", "q"};
  const char *sp[3];
  for (int i = 0; i < 3; i++) {
    snprintf(specs[i], sizeof specs[i], "%s:%s/%c.model", names[i], dir, names[i][0]);
    sp[i] = specs[i];
  }
  return play_specs(2, 2, sp, 3, true, err);
}

/* The oracle's search writing what it proves to the solved store of a
** fresh folder (2x5.dab, created on first write: smaller boards get a
** table, not a store), then a second oracle answering from it.  A store
** that cannot be written is a warning, not an error: the answer stands. */
static void setup_store(void) {
  char p[300];
  path_in(p, sizeof p, "store");
  rm_rf(p);
  mkdir(p, 0700);
}

static dab_status run_store(dab_err *err) {
  char p[300];
  path_in(p, sizeof p, "store");
  dab_status st = DAB_OK;
  for (int pass = 0; pass < 2 && !st; pass++) {
    dab_oracle_opts so = {.tb_dir = p, .search = true, .only = DAB_ORACLE_ONLY_SEARCH,
                          .store = pass ? DAB_ORACLE_STORE_READ : DAB_ORACLE_STORE_WRITE, .threads = 1,
                          .search_hash = 1 << 20, .checkpoint_seconds = 1e-9 /* checkpoints too */};
    dab_oracle *o = NULL;
    st = dab_oracle_open(2, 5, &so, &o, err);
    if (st) return st;
    int v;
    int16_t mv[64], val[64];
    int n;
    st = dab_oracle_move_values(o, STORE_ROOT, mv, val, &n, err);
    if (!st) st = dab_oracle_value64(o, STORE_ROOT, &v, err);
    if (!st && v != dab_retro_value(truth25, STORE_ROOT))
      st = wrong(err, "stored search value", v, dab_retro_value(truth25, STORE_ROOT));
    dab_oracle_close(o);
  }
  return st;
}

/* The store is absent, or opens and passes its check. */
static bool store_file_ok(void) {
  char p[300];
  path_in(p, sizeof p, "store/2x5.dab");
  if (access(p, F_OK) != 0) return true;
  dabtb *tb = NULL;
  dab_err err;
  bool ok = dabtb_open(p, NULL, &tb, &err) == DAB_OK && dabtb_check(tb, NULL, NULL, NULL, &err) == DAB_OK;
  if (!ok) fprintf(stderr, "%s: %s\n", p, err.msg);
  dabtb_close(tb);
  return ok;
}

/* The 2x3 tablebase checked whole and re-derived (dab check, dab verify). */
static dab_status run_tb_verify(dab_err *err) {
  char p[300];
  path_in(p, sizeof p, "2x3.dab");
  dabtb *tb = NULL;
  dab_status st = dabtb_open(p, NULL, &tb, err);
  if (st) return st;
  st = dabtb_check(tb, NULL, NULL, NULL, err);
  dab_tbv_report rep;
  if (!st) st = dab_tb_verify(tb, 1, NULL, NULL, NULL, &rep, err);
  dabtb_close(tb);
  return st;
}

/* A finished proof (run once, unarmed) read back from its folder. */
static dab_status run_proof_load(dab_err *err) {
  char p[300];
  path_in(p, sizeof p, "proof-done");
  dab_proof *pf = NULL;
  dab_proof_load_info li;
  dab_proof_spec want = {.rows = 2, .cols = 2};
  dab_status st = dab_prover_open(p, &want, false, -1, false, &pf, &li, err);
  if (st) return st;
  dab_prover_opts po = {0};
  dab_prover *pr = NULL;
  st = dab_prover_new(pf, &po, NULL, NULL, &pr, err);
  dab_prover_task t;
  bool have = true;
  if (!st) st = dab_prover_next(pr, NULL, 0, 0, &t, &have, err);
  if (!st && (have || dab_prover_summary(pr)->state != DAB_PROOF_PROVED))
    st = wrong(err, "loaded proof state", dab_prover_summary(pr)->state, DAB_PROOF_PROVED);
  dab_prover_free(pr);
  dab_proof_free(pf);
  return st;
}

/* Learning agents' own machinery: a Q-learner's episodes and its exact
** table from the oracle, and a matrix game's equilibria. */
static dab_status run_learn(dab_err *err) {
  dab_geom g;
  dab_status st = dab_geom_init(&g, 1, 2, err);
  if (st) return st;
  dab_q_opts qo;
  dab_q_opts_default(&qo);
  qo.episodes = 20;
  dab_q_learner *ql = NULL;
  st = dab_q_learner_new(&g, &qo, 1, &ql, err);
  if (!st) dab_q_learner_run(ql, 20, NULL);
  dab_oracle *o = NULL;
  int8_t *ex = NULL;
  dab_oracle_opts oo = {.only = DAB_ORACLE_ONLY_RETRO, .threads = 1}; /* in memory: no file */
  if (!st) st = dab_oracle_open(1, 2, &oo, &o, err);
  if (!st) st = dab_q_exact(&g, o, &ex, err);
  free(ex);
  dab_oracle_close(o);
  dab_q_learner_free(ql);
  if (st) return st;
  dab_matrix_game mg;
  dab_matrix_nash *nash = malloc(sizeof *nash); /* the test's own allocation is swept too */
  if (!nash) return dab_fail(err, DAB_ENOMEM, "out of memory for the equilibria");
  st = dab_matrix_builtin("rps", &mg, err);
  if (!st) st = dab_matrix_solve(&mg, nash, err);
  if (!st && nash->neq != 1) st = wrong(err, "biased rock-paper-scissors equilibria", nash->neq, 1);
  free(nash);
  return st;
}

/* Training runs, tiny: Q-learning and a GA of nn nets on 2x2, each
** writing its model (a file left must load). */
static void setup_train(void) {
  char p[300];
  path_in(p, sizeof p, "train");
  rm_rf(p);
  mkdir(p, 0700);
}

static dab_status train_kind(const char *kind, const char *const (*kv)[2], int nkv, dab_err *err) {
  dab_geom g;
  dab_status st = dab_geom_init(&g, 2, 2, err);
  if (st) return st;
  char out[300], ck[320];
  snprintf(out, sizeof out, "%s/train/%s.model", dir, kind);
  snprintf(ck, sizeof ck, "%s.ckpt", out);
  dab_player_env *env = NULL;
  st = dab_player_env_new(dir, &env, err);
  dab_kopts k;
  memset(&k, 0, sizeof k);
  for (int i = 0; i < nkv; i++) {
    k.key[k.n] = kv[i][0];
    k.val[k.n++] = kv[i][1];
  }
  /* one snapshot (graded games against the levels) at the end */
  dab_train_ctx t = {.g = &g, .seed = 3, .threads = 1, .games = 60, .generations = 2, .grade_games = 2,
                     .snapshot_every = strcmp(kind, "q") ? 2 : 60, .out = out, .checkpoint = ck, .env = env,
                     .kopts = &k};
  if (!st) st = dab_agent_kind_find(kind)->train(&t, err);
  dab_player_env_free(env);
  return st;
}

static dab_status run_train(dab_err *err) {
  static const char *const q[][2] = {{"policy", "lenient"}};
  static const char *const nn[][2] = {{"method", "direct"}, {"population", "6"}};
  dab_status st = train_kind("q", q, 1, err);
  if (!st) st = train_kind("nn", nn, 2, err);
  return st;
}

/* The rule-graph agents' training runs, tiny. */
static dab_status run_train_rules(dab_err *err) {
  static const char *const econ[][2] = {{"pop", "10"}, {"grade", "0"}, {"snap-games", "20"}};
  static const char *const erl[][2] = {{"pop", "10"}, {"grade", "0"}, {"snap-games", "20"}, {"eval-games", "4"}};
  dab_status st = train_kind("econ", econ, 3, err);
  if (!st) st = train_kind("erl", erl, 4, err);
  return st;
}

/* ---- the numerator: distinct source lines failed ---------------------- */

/* The distinct file:line of the sites failed (an inlined function's call
** counts once however often it was inlined), by addr2line; with
** print, each on stderr.  -1 when addr2line cannot be run. */
static int source_lines_failed(bool print) {
  enum { MAX = 4096 };
  static void *site[MAX];
  static char line[MAX][160];
  int n = fa_site_list(site, MAX), nl = 0;
  char cwd[300], tmp[300];
  if (!getcwd(cwd, sizeof cwd)) return -1;
  path_in(tmp, sizeof tmp, "sites");
  FILE *f = fopen(tmp, "w");
  if (!f) return -1;
  for (int i = 0; i < n; i++) fprintf(f, "%#lx\n", (unsigned long)(exe_offset(site[i]) - 1));
  fclose(f);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "addr2line -e /proc/%d/exe < '%s' 2>/dev/null", (int)getpid(), tmp);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  char buf[400];
  while (fgets(buf, sizeof buf, p)) {
    buf[strcspn(buf, " \n")] = 0;
    if (!buf[0] || buf[0] == '?' || strstr(buf, "/tests/")) continue; /* the library's sites only */
    const char *rel = buf;
    if (!strncmp(buf, cwd, strlen(cwd)) && buf[strlen(cwd)] == '/') rel = buf + strlen(cwd) + 1;
    int k = 0;
    while (k < nl && strcmp(line[k], rel)) k++;
    if (k == nl && nl < MAX) snprintf(line[nl++], sizeof line[0], "%.159s", rel);
  }
  if (pclose(p) != 0 || nl == 0) return -1;
  if (print)
    for (int k = 0; k < nl; k++) fprintf(stderr, "failed: %s\n", line[k]);
  return nl;
}

/* ---- the denominator: allocation calls in the library's source -------- */

/* Counts calls of malloc, calloc, realloc and strdup, and lines mapping
** anonymous memory, in the .c files of the library folders (run from the
** repository root); -1 elsewhere. */
static int source_sites(void) {
  static const char *const dirs[] = {"game", "symmetry", "theorems", "pdb", "solver", "tablebase",
                                     "oracle", "proof", "verify", "players", "agents"};
  static const char *const fns[] = {"malloc(", "calloc(", "realloc(", "strdup("};
  int total = 0;
  for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
    DIR *dd = opendir(dirs[d]);
    if (!dd) return -1;
    for (struct dirent *e; (e = readdir(dd));) {
      size_t len = strlen(e->d_name);
      if (len < 3 || strcmp(e->d_name + len - 2, ".c")) continue;
      char p[600];
      snprintf(p, sizeof p, "%s/%s", dirs[d], e->d_name);
      FILE *f = fopen(p, "r");
      if (!f) continue;
      char line[4096];
      while (fgets(line, sizeof line, f)) {
        total += strstr(line, "mmap(") && strstr(line, "MAP_ANONYMOUS");
        for (size_t k = 0; k < sizeof fns / sizeof *fns; k++)
          for (const char *q = line; (q = strstr(q, fns[k])); q++)
            if (q == line || !(q[-1] == '_' || (q[-1] >= 'a' && q[-1] <= 'z') || (q[-1] >= 'A' && q[-1] <= 'Z')))
              total++;
      }
      fclose(f);
    }
    closedir(dd);
  }
  return total;
}

int main(void) {
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_death);
  /* In memory where there is a tmpfs: the writers' fsyncs then cost
  ** nothing, and a sweep makes thousands. */
  const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(dir, sizeof dir, "%s/dab_alloc_fail_%d", base, (int)getpid());
  if (mkdir(dir, 0700) != 0) {
    perror(dir);
    return 1;
  }
  /* Tablebases are looked up and built in dir only (no cache, no data/tb/). */
  char cache[300];
  path_in(cache, sizeof cache, "cache");
  setenv("XDG_CACHE_HOME", cache, 1);
  setenv("DAB_TB_NO_PROJECT", "1", 1);
  unsetenv("DAB_TB_PATH");
  dab_err err;
  dab_geom g23, g22;
  dab_geom_init(&g23, 2, 3, &err);
  dab_geom_init(&g22, 2, 2, &err);
  dab_retro_opts ro = {.threads = 1};
  TH_CHECK(dab_retro_solve(&g23, 0, &ro, &truth23, &err) == DAB_OK, "reference 2x3: %s", err.msg);
  TH_CHECK(dab_retro_solve(&g22, 0, &ro, &truth22, &err) == DAB_OK, "reference 2x2: %s", err.msg);
  dab_geom g25;
  dab_geom_init(&g25, 2, 5, &err);
  TH_CHECK(dab_retro_solve(&g25, STORE_ROOT, &ro, &truth25, &err) == DAB_OK, "reference 2x5: %s", err.msg);
  TH_CHECK(dab_pdb_new(&small_pdb, &err) == DAB_OK && dab_pdb_build(small_pdb, 4, NULL, NULL, NULL, &err) == DAB_OK,
           "pattern database: %s", err.msg);
  char p[300];
  path_in(p, sizeof p, "2x3.dab");
  dabtb_build_opts bo = {.threads = 1};
  TH_CHECK(dabtb_build(2, 3, p, &bo, NULL, &err) == DAB_OK, "2x3 tablebase: %s", err.msg);
  dab_nn nn;
  TH_CHECK(dab_nn_init(&nn, &g22, &err) == DAB_OK, "nn: %s", err.msg);
  path_in(p, sizeof p, "n.model");
  TH_CHECK(dab_nn_save(p, &nn, &g22, "", &err) == DAB_OK, "nn save: %s", err.msg);
  dab_nn_free(&nn);
  size_t nw = dab_az_net_size(2, 2, 1, 4, 8, 1);
  float *w = calloc(nw, sizeof *w);
  dab_az_net *net = NULL;
  TH_CHECK(w && dab_az_net_new(2, 2, 1, 4, 8, 1, w, nw, &net, &err) == DAB_OK, "az net: %s", err.msg);
  dab_az_search_opts so = {.sims = 8, .c_puct = 2};
  path_in(p, sizeof p, "a.model");
  TH_CHECK(net && dab_az_model_save(p, net, &so, "", NULL, 0, &err) == DAB_OK, "az save: %s", err.msg);
  az_zero_net = net;
  long az_ref_n = 0;
  TH_CHECK(net && play_az(az_ref_outs, &err) == DAB_OK, "az self-play: %s", err.msg);
  for (int i = 0; i < AZ_REF_GAMES; i++) az_ref_n += az_ref_outs[i].n;
  TH_CHECK(az_ref_n >= AZ_REF_GAMES, "az self-play: %ld samples", az_ref_n);
  free(w);
  dab_q_opts qo;
  dab_q_opts_default(&qo);
  dab_q_learner *ql = NULL;
  path_in(p, sizeof p, "q.model");
  TH_CHECK(dab_q_learner_new(&g22, &qo, 1, &ql, &err) == DAB_OK &&
               dab_q_save(p, dab_q_learner_table(ql), "", &err) == DAB_OK,
           "q model: %s", err.msg);
  dab_q_learner_free(ql);
  path_in(p, sizeof p, "proof-done");
  TH_CHECK(prove_in(p, &err) == DAB_OK, "proof: %s", err.msg);
  if (th_failed) return TH_REPORT("test_alloc_fail");

  static const scenario all[] = {
      {"retro", NULL, NULL, run_retro, NULL},
      {"ab", NULL, NULL, run_ab, NULL},
      {"graph", NULL, NULL, run_graph, NULL},
      {"theorems", NULL, NULL, run_thm, NULL},
      {"pdb", NULL, setup_pdb, run_pdb, pdb_file_ok},
      {"tb-build", NULL, setup_tb_build, run_tb_build, tb_file_ok},
      {"tb-build-array", NULL, setup_tb_build, run_tb_build_array, tb_file_ok},
      {"tb-rebuild", NULL, setup_tb_rebuild, run_tb_rebuild, tb_rebuild_ok},
      {"tb-probe", NULL, NULL, run_tb_probe, NULL},
      {"tb-verify", NULL, NULL, run_tb_verify, NULL},
      {"oracle", NULL, NULL, run_oracle, NULL},
      {"store", NULL, setup_store, run_store, store_file_ok},
      {"oracle-build", NULL, setup_oracle_build, run_oracle_build, oracle_build_ok},
      {"proof", NULL, setup_proof, run_proof, NULL},
      /* Loading a proof's records (proof/records.c): a failed allocation
      ** is DAB_ENOMEM, never a records file skipped (the proof would read
      ** as open) or an i/o error. */
      {"proof-load", NULL, NULL, run_proof_load, NULL},
      {"models", NULL, NULL, run_models, NULL},
      {"players", NULL, NULL, run_players, NULL},
      {"agent-players", NULL, NULL, run_agent_players, NULL},
      {"match", NULL, NULL, run_match, NULL},
      {"learn", NULL, NULL, run_learn, NULL},
      {"train", NULL, setup_train, run_train, NULL},
      {"train-rules", NULL, setup_train, run_train_rules, NULL},
      {"az-selfplay", NULL, NULL, run_az_selfplay, NULL},
  };
  const char *only = getenv("DAB_ALLOC_FAIL_ONLY");
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
    if (only ? strcmp(only, all[i].name) != 0 : all[i].skip != NULL) {
      if (!only) printf("alloc-fail: %s skipped: %s\n", all[i].name, all[i].skip);
      continue;
    }
    sweep(&all[i]);
  }
  for (int i = 0; i < AZ_REF_GAMES; i++) free(az_ref_outs[i].s);
  dab_az_net_free(az_zero_net);
  dab_retro_free(truth23);
  dab_retro_free(truth22);
  dab_retro_free(truth25);
  dab_pdb_free(small_pdb);
  int src = source_sites(), lines = source_lines_failed(getenv("DAB_ALLOC_FAIL_VERBOSE") != NULL);
  printf("alloc-fail: %d scenarios, %llu failure points, %d distinct sites swept of %d in the source%s\n",
         nscenarios, (unsigned long long)total_points, lines > 0 ? lines : fa_sites(), src,
         lines > 0 ? "" : " (return addresses: no addr2line)");
  TH_CHECK(src > 0, "no allocation call counted in the library's source (not run from the repository root?)");
  rm_rf(dir);
  int rc = TH_REPORT("test_alloc_fail");
  fflush(stdout); /* before LeakSanitizer's check at exit, which ends the process without it */
  return rc;
}
