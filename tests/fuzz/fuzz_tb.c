/*
** fuzz_tb.c: libFuzzer harness of tablebase files (tablebase/dabtb.h).
** The input is a whole .dab file (the seeds, corpus/tb/seed-2x2 and seed-2x3, are real files;
** the fuzzer mutates their bytes).  It is opened, probed (value, move
** values, analysis, batch) and checked.  Properties:
**   - no probe returns a value outside [-boxes, +boxes];
**   - on a 2x2 or 2x3 file every value a probe returns equals the exact
**     value (a retrograde solve made at start-up): a damaged block is
**     refused (DAB_ECORRUPT), never read as a wrong value;
**   - every error is one line.
** See Copyright Notice in README.md
*/
#include <sys/prctl.h>
#include "solver/retro.h"
#include "tablebase/dabtb.h"
#include "tests/fuzz/fuzzhelp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static dab_retro *truth[2];   /* 2x2, 2x3 */

static void init(void) {
  /* Every input opens a file, whose buffers are fresh mappings under ASan:
  ** with transparent huge pages each first touch zeroed 2 MiB, which was
  ** most of an input's time. */
  prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
  static const int cols[2] = {2, 3};
  for (int i = 0; i < 2; i++) {
    dab_geom g;
    dab_err err;
    dab_retro_opts ro = {.threads = 1};
    if (dab_geom_init(&g, 2, cols[i], &err) || dab_retro_solve(&g, 0, &ro, &truth[i], &err)) abort();
  }
}

static void one_line(const dab_err *err) { FZ_ASSERT(!strchr(err->msg, '\n') && err->msg[0], "message '%s'", err->msg); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1 << 20)) return 0;
  if (!truth[0]) init();
  const char *path = fz_file("tb", data, size);
  dabtb_opts o = {.cache_bytes = 1 << 20};
  dabtb *tb = NULL;
  dab_err err;
  dab_status st = dabtb_open(path, &o, &tb, &err);
  if (st) {
    FZ_ASSERT(!tb, "refused file left a handle");
    one_line(&err);
    unlink(path);
    return 0;
  }
  const dab_geom *g = dabtb_geom(tb);
  const dab_retro *t = NULL;
  if (g->rows == 2 && (g->cols == 2 || g->cols == 3)) t = truth[g->cols - 2];
  uint64_t all = g->nlines >= 64 ? ~0ull : (1ull << g->nlines) - 1;
  /* Probe positions: the empty board, then a fixed walk over the board. */
  uint64_t s = 0x9e3779b97f4a7c15ull ^ size;
  uint64_t pos[40];
  int8_t vals[40];
  for (int i = 0; i < 40; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    pos[i] = i ? (s >> 11) & all : 0;
  }
  static dab_analysis a;
  for (int i = 0; i < 40; i++) {
    int v;
    st = dabtb_value(tb, pos[i], &v, &err);
    if (st) {
      one_line(&err);
      continue;
    }
    FZ_ASSERT(v >= -g->nboxes && v <= g->nboxes, "value %d outside the %dx%d range", v, g->rows, g->cols);
    if (t) FZ_ASSERT(v == dab_retro_value(t, pos[i]), "position %llx: %d, exact %d", (unsigned long long)pos[i], v,
                     dab_retro_value(t, pos[i]));
    if (i % 8) continue;
    st = dabtb_analyze(tb, pos[i], &a, &err);
    if (st) {
      one_line(&err);
      continue;
    }
    FZ_ASSERT(a.value == v, "analysis %d, value %d", a.value, v);
    for (int k = 0; k < a.nmoves; k++) {
      FZ_ASSERT(a.move_value[k] >= -g->nboxes && a.move_value[k] <= g->nboxes, "move value %d", a.move_value[k]);
      FZ_ASSERT(a.move_value[k] <= a.value, "a move worth %d above the value %d", a.move_value[k], a.value);
    }
  }
  st = dabtb_value_batch(tb, pos, 40, vals, &err);
  if (!st && t)
    for (int i = 0; i < 40; i++) FZ_ASSERT(vals[i] == dab_retro_value(t, pos[i]), "batch value %d wrong", i);
  if (st) one_line(&err);
  st = dabtb_check(tb, NULL, NULL, NULL, &err);
  if (st) one_line(&err);
  dabtb_close(tb);
  unlink(path);
  return 0;
}
