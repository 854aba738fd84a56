/*
** test_oracle_sources.c: the oracle's sources and options: below-root
** retrograde, search only, the solved store read and written through the
** oracle, the plan, and the search table sized by the query.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "oracle/oracle.h"
#include "game/postext.h"
#include "solver/ab.h"
#include "solver/retro.h"
#include "tests/testhelp.h"

static int warnings;
static void count_warning(void *ctx, const char *msg) {
  (void)ctx, (void)msg;
  warnings++;
}

static dab_lineset parse(const char *text) {
  dab_parsed p;
  dab_parse_position(text, &p, NULL);
  return p.game.lines;
}

/* Same value and move values as the retrograde below pos. */
static bool same_as_retro(const dab_geom *g, uint64_t pos, const dab_analysis *a) {
  dab_retro *r;
  dab_analysis b;
  dab_retro_opts ro = {.threads = 1};
  if (dab_retro_solve(g, pos, &ro, &r, NULL)) return false;
  bool ok = !dab_retro_analyze(r, pos, &b, NULL) && a->value == b.value && a->nmoves == b.nmoves &&
            !memcmp(a->move_value, b.move_value, sizeof a->move_value[0] * (size_t)b.nmoves);
  dab_retro_free(r);
  return ok;
}

static void test_hash_sizing(void) {
  const uint64_t M = 1ull << 20, big = 64ull << 30;
  TH_CHECK(dab_oracle_search_hash(60, 100000, big) == 16 * M, "a 100,000-node query gets 16 MiB");
  TH_CHECK(dab_oracle_search_hash(60, 0, big) == 8192 * M, "60 free lines, no limit: 8 GiB");
  TH_CHECK(dab_oracle_search_hash(40, 0, big) == 2048 * M, "40 free lines: 2 GiB");
  TH_CHECK(dab_oracle_search_hash(32, 0, big) == 128 * M, "32 free lines: 128 MiB");
  TH_CHECK(dab_oracle_search_hash(40, 0, 1024 * M) == 512 * M, "a 1 GiB budget halves to 512 MiB");
  TH_CHECK(dab_oracle_search_hash(40, 10000000, big) == 256 * M, "10^7 nodes: 256 MiB");
  TH_CHECK(dab_oracle_expected_seconds(40) > 10 && dab_oracle_expected_seconds(60) > 1e9 &&
               dab_oracle_expected_seconds(31) < dab_oracle_expected_seconds(37),
           "expected scale grows with the free lines");
}

static void test_below_root(void) {
  dab_oracle *o = NULL;
  dab_err err;
  dab_oracle_opts oo = {.threads = 1, .retro_free = 24, .tb_dir = "/nonexistent"};
  dab_status st = dab_oracle_open(2, 5, &oo, &o, &err);
  TH_CHECK(!st && o && !strcmp(dab_oracle_source(o), "retro"), "2x5 with retro_free opens: %s",
           st ? err.msg : dab_oracle_source(o));
  if (!o) return;
  dab_lineset p = parse("2x5@7,2,6"), empty = parse("2x5");
  dab_analysis a;
  dab_oracle_info info;
  dab_oracle_plan plan;
  TH_CHECK(!dab_oracle_plan_query(o, &p, &plan, NULL) && plan.source && !strcmp(plan.source, "retro") &&
               plan.new_bytes == dab_retro_bytes(24),
           "plan: a 24-line retrograde of 16 MiB");
  st = dab_oracle_query(o, &p, 0, &a, &info, &err);
  TH_CHECK(!st && !strcmp(info.source, "retro") && same_as_retro(dab_oracle_geom(o), dab_ls_word(&p), &a),
           "below-root answer equals the retrograde: %s", st ? err.msg : "");
  TH_CHECK(!dab_oracle_plan_query(o, &p, &plan, NULL) && plan.new_bytes == 0, "then the table is held");
  st = dab_oracle_query(o, &empty, 0, &a, &info, &err);
  TH_CHECK(st == DAB_EBOARD, "27 free lines without search: DAB_EBOARD (%d)", st);
  dab_oracle_close(o);
}

static void test_search_and_store(const char *dir) {
  dab_oracle *o = NULL;
  dab_err err;
  warnings = 0;
  dab_oracle_opts oo = {.tb_dir = dir, .threads = 1, .search = true, .search_hash = 32ull << 20,
                        .store = DAB_ORACLE_STORE_WRITE, .warn = count_warning};
  dab_status st = dab_oracle_open(2, 5, &oo, &o, &err);
  TH_CHECK(!st && o && !strcmp(dab_oracle_source(o), "search"), "2x5 with search opens: %s", st ? err.msg : "");
  if (!o) return;
  dab_lineset p = parse("2x5@7,2,6");
  dab_analysis a, b;
  dab_oracle_info info;
  dab_oracle_plan plan;
  TH_CHECK(!dab_oracle_plan_query(o, &p, &plan, NULL) && !strcmp(plan.source, "search") && plan.new_bytes > 0 &&
               plan.table_bytes == 32ull << 20 && plan.store_write,
           "plan: a search with a 32 MiB table, written to the store");
  st = dab_oracle_query(o, &p, DAB_ORACLE_PV, &a, &info, &err);
  TH_CHECK(!st && !strcmp(info.source, "search") && info.nodes > 0 && info.npv > 0 && info.store_writable &&
               info.store_written > 0,
           "first query searches and stores: %s", st ? err.msg : "");
  TH_CHECK(same_as_retro(dab_oracle_geom(o), dab_ls_word(&p), &a), "search answer equals the retrograde");
  st = dab_oracle_query(o, &p, DAB_ORACLE_PV, &b, &info, &err);
  TH_CHECK(!st && !strcmp(info.source, "stored") && b.value == a.value && b.nmoves == a.nmoves,
           "second query answered from the store");
  dab_oracle_close(o);
  /* A new oracle reads what the first stored (read-only, the default). */
  dab_oracle_opts ro = {.tb_dir = dir, .threads = 1, .search = true, .search_hash = 32ull << 20};
  st = dab_oracle_open(2, 5, &ro, &o, &err);
  if (!st) {
    st = dab_oracle_query(o, &p, 0, &b, &info, &err);
    TH_CHECK(!st && !strcmp(info.source, "stored") && b.value == a.value && !info.store_writable,
             "a read-only oracle answers from the file");
    dab_oracle_close(o);
  }
  TH_CHECK(warnings == 0, "no warnings (%d)", warnings);
  /* A node limit: stopped with bounds, and a table sized by the limit. */
  dab_oracle_opts lim = {.tb_dir = dir, .threads = 1, .search = true, .search_node_limit = 1000,
                         .store = DAB_ORACLE_STORE_NONE};
  st = dab_oracle_open(2, 5, &lim, &o, &err);
  if (!st) {
    dab_lineset e = parse("2x5");
    TH_CHECK(!dab_oracle_plan_query(o, &e, &plan, NULL) && plan.table_bytes == 16ull << 20 &&
                 plan.new_bytes < (32ull << 20),
             "a 1000-node limit plans a 16 MiB table (%llu bytes in all)", (unsigned long long)plan.new_bytes);
    st = dab_oracle_query(o, &e, 0, &a, &info, &err);
    TH_CHECK(st == DAB_ECANCELED && info.lower <= info.upper && strstr(err.msg, "node limit"),
             "the limit stops the query with bounds: %s", err.msg);
    dab_oracle_close(o);
  }
}

int main(void) {
  char dir[] = "/tmp/dab-oracle-sources-XXXXXX";
  setenv("DAB_TB_NO_PROJECT", "1", 1);
  test_hash_sizing();
  test_below_root();
  if (mkdtemp(dir)) {
    test_search_and_store(dir);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  }
  return TH_REPORT("test_oracle_sources");
}
