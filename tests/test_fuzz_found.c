/*
** test_fuzz_found.c: regressions of what the fuzzers (tests/fuzz/) found,
** each as a plain check that runs in every test pass (the crashing inputs
** also sit in the seed corpora, which bench/fuzz.sh replays first).
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agents/rule.h"
#include "game/postext.h"
#include "players/player.h"
#include "solver/retro.h"
#include "tablebase/dabtb.h"
#include "theorems/sle.h"
#include "tests/testhelp.h"

/* Error messages echo the input: a newline in it once made them two lines. */
static void test_one_line_messages(void) {
  static dab_parsed p;
  dab_err err;
  TH_CHECK(dab_parse_position("2\nx2@0,2,6,7\xff", &p, &err) && !strchr(err.msg, '\n'), "position: '%s'",
           err.msg);
  dab_sle s;
  TH_CHECK(dab_sle_parse("<\001" "32\n32+", false, &s, &err) && !strchr(err.msg, '\n') && !strchr(err.msg, 1),
           "sle: '%s'", err.msg);
}

/* A player's canonical name is a spec that makes the same player
** ("mcts:sims=1000,time=0,..." was refused: time had to be >= 1). */
static void test_canonical_names(void) {
  dab_geom g;
  dab_geom_init(&g, 2, 2, NULL);
  static const char *specs[] = {"mcts", "mcts:time=5", "mcts-bz", "mcts-bz:time=3,sle=1", "mcts-os", "ab", "chain",
                                "random", "level1", "level2"};
  for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
    dab_player *p = NULL, *q = NULL;
    dab_err err;
    if (dab_player_new(specs[i], &g, NULL, &p, &err)) {
      TH_CHECK(0, "%s: %s", specs[i], err.msg);
      continue;
    }
    char name[200];
    snprintf(name, sizeof name, "%s", dab_player_name(p));
    dab_status st = dab_player_new(name, &g, NULL, &q, &err);
    TH_CHECK(!st && !strcmp(dab_player_name(q), name), "%s: canonical '%s' %s", specs[i], name, st ? err.msg : "renamed");
    dab_player_free(p);
    dab_player_free(q);
  }
  dab_player *p = NULL;
  dab_err err;
  TH_CHECK(dab_player_new("mcts:sims=0", &g, NULL, &p, &err) == DAB_EINPUT && !p, "sims=0 without time refused");
}

/* A long number in a rule text overflowed an int (UBSan). */
static void test_rule_numbers(void) {
  static dab_rule r;
  dab_err err;
  char text[200] = "x0n1 : n1l0(";
  for (int i = 0; i < 60; i++) strcat(text, "1");
  strcat(text, ")");
  TH_CHECK(dab_rule_parse(text, true, &r, &err) == DAB_EINPUT, "long number refused");
}

/* Builds a 2x2 tablebase, writes len bytes of bytes at offset off of both
** LMDB meta pages (pages 0 and 1, 4 KiB each) and opens it: returns the
** status, with err filled (the file and its lock are removed). */
static dab_status open_with_patched_metas(long off, const void *bytes, size_t len, dab_err *err) {
  char path[] = "/tmp/dab-test-fuzz-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return DAB_EIO;
  close(fd);
  dabtb_build_opts bo = {.threads = 1};
  TH_CHECK(dabtb_build(2, 2, path, &bo, NULL, err) == DAB_OK, "build 2x2: %s", err->msg);
  FILE *f = fopen(path, "r+b");
  for (int page = 0; page < 2 && f; page++) {
    fseek(f, page * 4096 + off, SEEK_SET);
    fwrite(bytes, 1, len, f);
  }
  if (f) fclose(f);
  dabtb *tb = NULL;
  dab_status st = dabtb_open(path, NULL, &tb, err);
  TH_CHECK(st || tb, "opened without a handle");
  if (st) TH_CHECK(!tb, "refused file left a handle");
  if (tb) dabtb_close(tb);
  unlink(path);
  char lock[64];
  snprintf(lock, sizeof lock, "%s-lock", path);
  unlink(lock);
  return st;
}

/* An LMDB meta page with page size 0 made mdb_env_open divide by zero. */
static void test_tb_meta(void) {
  uint8_t zero[4] = {0};
  dab_err err;
  dab_status st = open_with_patched_metas(40, zero, sizeof zero, &err); /* page size at 16 + 24 */
  TH_CHECK(st == DAB_EINPUT && strstr(err.msg, "meta"), "zero page size: %s", err.msg);
}

/* Seen reading a fuzz report: with 4 KiB pages a meta page's last_pgno of
** 2^52 makes (last + 1) * psize wrap to 4096, small enough for a size
** check made as a product.  LMDB refuses it at open (it compares page
** counts), and so do dab's own checks now: refused as damaged (the meta
** pages are otherwise good), in one line. */
static void test_tb_last_pgno_wrap(void) {
  uint64_t last = 1ull << 52;
  dab_err err;
  dab_status st = open_with_patched_metas(136, &last, sizeof last, &err); /* 16 + 4+4+8+8 + 2*48 */
  TH_CHECK(st == DAB_ECORRUPT && !strchr(err.msg, '\n'), "last_pgno 2^52: status %d, %s", st, err.msg);
}

int main(void) {
  test_one_line_messages();
  test_canonical_names();
  test_rule_numbers();
  test_tb_meta();
  test_tb_last_pgno_wrap();
  return TH_REPORT("test_fuzz_found");
}
