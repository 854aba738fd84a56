/*
** cmd_demo.c: `dab demo`, the quick tour: the 3x3 tablebase (built on
** first use), probed for the start position, and one optimal game.
** See Copyright Notice in README.md
*/
#include <string.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "oracle/oracle.h"

static const char usage[] =
    "usage: dab demo [RxC]\n\n"
    "Opens the tablebase of a small board (default 3x3) through the oracle,\n"
    "which builds RxC.dab in the cache on first use (boards up to 3x3), probes the\n"
    "empty board and every first move, then plays one optimal game and draws\n"
    "the final position.\n";

int dab_cmd_demo(int argc, char **argv) {
  const cli_opt none[] = {{NULL, 0, NULL, 0}};
  const char *board = "3x3";
  int n, rc = cli_parse_args("demo", argc, argv, none, &board, 1, &n, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  static dab_parsed p;
  rc = cli_parse_position("demo", board, &p);
  if (rc) return rc;
  const dab_geom *g = &p.geom;
  dab_err err;
  dab_oracle *o;
  dab_status st = dab_oracle_open(g->rows, g->cols, NULL, &o, &err);
  if (st) return cli_error("demo", st, err.msg);
  static dab_analysis a;
  printf("== %dx%d tablebase (%dx%d.dab, built on first use; dab info says where): the start position ==\n",
         g->rows, g->cols, g->rows, g->cols);
  if ((st = dab_oracle_analyze(o, &p.game.lines, &a, &err))) {
    dab_oracle_close(o);
    return cli_error("demo", st, err.msg);
  }
  cli_print_analysis(stdout, g, &a, false, NULL);
  printf("\n== one optimal game (lowest-numbered best move each turn) ==\n");
  dab_game game = p.game;
  while (!dab_game_over(g, &game)) {
    if ((st = dab_oracle_analyze(o, &game.lines, &a, &err))) break;
    printf("%c plays %2d (value %+d)\n", game.to_move ? 'B' : 'A', a.best[0], a.value);
    dab_game_play(g, &game, a.best[0]);
  }
  dab_oracle_close(o);
  if (st) return cli_error("demo", st, err.msg);
  static char buf[16384];
  dab_diagram(g, &game, false, buf, sizeof buf);
  printf("\n%s", buf);
  printf("final score A %d, B %d\n", game.score[0], game.score[1]);
  return CLI_OK;
}
