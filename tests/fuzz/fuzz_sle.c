/*
** fuzz_sle.c: libFuzzer harness of the SLE / component text ("3+3+L4").
** Properties: a parsed SLE prints back to a text that parses to the same
** multiset; its value (closed form, when small enough the recursion too)
** is bounded by its coin count; errors are one line.
** See Copyright Notice in README.md
*/
#include "theorems/sle.h"
#include "tests/fuzz/fuzzhelp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 2048) return 0;
  char *text = fz_string(data, size);
  static dab_sle a, b;
  dab_err err;
  bool three = size && (data[0] & 1);
  dab_status st = dab_sle_parse(text, three, &a, &err);
  free(text);
  if (st) {
    FZ_ASSERT(st == DAB_EINPUT, "status %d", st);
    FZ_ASSERT(!strchr(err.msg, '\n') && err.msg[0], "message not one line");
    return 0;
  }
  char buf[8192];
  FZ_ASSERT(dab_sle_format(&a, buf, sizeof buf), "format");
  st = dab_sle_parse(buf, three, &b, &err);
  FZ_ASSERT(!st, "'%s' does not parse back: %s", buf, err.msg);
  bool same = a.nchains == b.nchains && a.nloops == b.nloops &&
              !memcmp(a.chain, b.chain, (size_t)a.nchains * sizeof a.chain[0]) &&
              !memcmp(a.loop, b.loop, (size_t)a.nloops * sizeof a.loop[0]);
  FZ_ASSERT(same, "'%s' parses back to another SLE", buf);
  int coins = dab_sle_size(&a);
  FZ_ASSERT(coins >= 0, "size %d", coins);
  if (coins <= 40 && !three) {
    int v = dab_sle_v(&a);
    FZ_ASSERT(v >= -coins && v <= coins, "v = %d for %d coins", v, coins);
    if (coins <= 14) FZ_ASSERT(v == dab_sle_v_rec(&a), "closed form %d != recursion %d", v, dab_sle_v_rec(&a));
  }
  return 0;
}
