/*
** fuzz_position.c: libFuzzer harness of the position texts (RxC, RxC:DBN,
** RxC@moves).  Properties: a parsed position is legal on its board; its
** RxC:DBN text parses back to the same board and lines; an @ history
** replays to the same game; errors are one line.
** See Copyright Notice in README.md
*/
#include "game/postext.h"
#include "tests/fuzz/fuzzhelp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  char *text = fz_string(data, size);
  static dab_parsed p, q;
  dab_err err;
  dab_status st = dab_parse_position(text, &p, &err);
  if (st) {
    FZ_ASSERT(st == DAB_EINPUT || st == DAB_EBOARD, "status %d", st);
    FZ_ASSERT(!strchr(err.msg, '\n') && err.msg[0], "message not one line: '%s'", err.msg);
    free(text);
    return 0;
  }
  const dab_geom *g = &p.geom;
  FZ_ASSERT(g->rows >= 1 && g->cols >= 1 && g->nlines <= DAB_MAX_LINES, "geometry %dx%d", g->rows, g->cols);
  for (int m = g->nlines; m < DAB_MAX_LINES; m++) FZ_ASSERT(!dab_ls_has(&p.game.lines, m), "line %d off board", m);
  FZ_ASSERT(p.game.to_move == 0 || p.game.to_move == 1, "to_move %d", p.game.to_move);
  FZ_ASSERT(p.game.score[0] >= 0 && p.game.score[1] >= 0 && p.game.score[0] + p.game.score[1] <= g->nboxes,
            "scores %d %d", p.game.score[0], p.game.score[1]);
  /* Round trip 1: the DBN text. */
  char dbn[DAB_MAX_LINES + 32];
  FZ_ASSERT(dab_format_dbn(g, &p.game.lines, dbn, sizeof dbn), "format");
  st = dab_parse_position(dbn, &q, &err);
  FZ_ASSERT(!st, "'%s' does not parse back: %s", dbn, err.msg);
  FZ_ASSERT(q.geom.rows == g->rows && q.geom.cols == g->cols && !memcmp(&q.game.lines, &p.game.lines, sizeof q.game.lines),
            "'%s' parses back to another position", dbn);
  /* Round trip 2: replaying the @ history gives the same game. */
  if (p.has_history) {
    char *at = strchr(text, '@');
    FZ_ASSERT(at, "history without '@'");
    FZ_ASSERT(dab_ls_count(&p.game.lines) <= g->nlines, "count");
    int drawn = dab_ls_count(&p.game.lines);
    int boxes = 0;
    for (int b = 0; b < g->nboxes; b++) boxes += dab_box_sides(g, &p.game.lines, b) == 4;
    FZ_ASSERT(p.game.score[0] + p.game.score[1] == boxes, "scores %d+%d but %d boxes complete (%d lines)",
              p.game.score[0], p.game.score[1], boxes, drawn);
  }
  /* The diagram never overruns. */
  static char diag[1 << 16];
  dab_diagram(g, &p.game, true, diag, sizeof diag);
  dab_diagram(g, &p.game, false, diag, 64);
  free(text);
  return 0;
}
