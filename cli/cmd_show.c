/*
** cmd_show.c: `dab show POS` draws a position.
** See Copyright Notice in README.md
*/
#include <string.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "game/sc.h"

static const char usage[] =
    "usage: dab show POS [--ids] [--json]\n\n"
    "Draws POS with '+' dots, drawn lines, and box owners (A = first player,\n"
    "B = second, # = complete but owner unknown).  --ids labels every undrawn\n"
    "line with its id.  Below the drawing: the Strings-and-Coins components.\n";

int dab_cmd_show(int argc, char **argv) {
  bool ids = false, json = false;
  const cli_opt opts[] = {{"--ids", CLI_FLAG, &ids, 0}, {"--json", CLI_FLAG, &json, 0}, {NULL, 0, NULL, 0}};
  const char *text;
  int n, rc = cli_parse_args("show", argc, argv, opts, &text, 1, &n, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (n == 0) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  static dab_parsed p;
  rc = cli_parse_position("show", text, &p);
  if (rc) return rc;
  const dab_geom *g = &p.geom;
  static char buf[64 * 1024];
  dab_diagram(g, &p.game, ids, buf, sizeof buf);
  static dab_sc_view v;
  dab_sc_analyze(g, &p.game.lines, &v);
  static char dbn[DAB_MAX_LINES + 16];
  dab_format_dbn(g, &p.game.lines, dbn, sizeof dbn);
  if (json) {
    printf("{\"rows\":%d,\"cols\":%d,\"dbn\":\"%s\",\"lines_drawn\":%d", g->rows, g->cols, dbn,
           dab_ls_count(&p.game.lines));
    if (p.has_history)
      printf(",\"to_move\":%d,\"score\":[%d,%d]", p.game.to_move, p.game.score[0], p.game.score[1]);
    printf(",");
    cli_print_components_json(stdout, &v);
    printf("}\n");
    return CLI_OK;
  }
  fputs(buf, stdout);
  printf("%s\n", dbn);
  if (p.has_history)
    printf("to move: %c   score A %d, B %d\n", p.game.to_move ? 'B' : 'A', p.game.score[0],
           p.game.score[1]);
  printf("components:");
  for (int i = 0; i < v.ncomp; i++) {
    const dab_sc_component *c = &v.comp[i];
    if (c->kind == DAB_SC_CHAIN) printf(" chain %d", c->coins);
    else if (c->kind == DAB_SC_LOOP) printf(" loop %d", c->coins);
    else printf(" other(%d coins)", c->coins);
  }
  printf("%s\n", v.ncomp ? "" : " none");
  return CLI_OK;
}
