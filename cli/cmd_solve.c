/*
** cmd_solve.c: `dab solve POS` prints the value of POS, of every move, and
** the optimal moves.
** See Copyright Notice in README.md
*/
#include <string.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "oracle/oracle.h"
#include "solver/retro.h"

static const char usage[] =
    "usage: dab solve POS [--json] [--threads N]\n\n"
    "Prints the value of POS (net boxes the player to move gains from here under\n"
    "optimal play), the value of every legal move, and the optimal moves.\n"
    "Small boards come from the oracle; otherwise every position below POS is\n"
    "solved by retrograde analysis (POS needs at most 32 undrawn lines).\n"
    "  --json       {\"rows\",\"cols\",\"value\",\"moves\":[{\"move\",\"value\"}],\"best\":[...]}\n"
    "  --threads N  worker threads (default: all cores)\n";

int dab_cmd_solve(int argc, char **argv) {
  if (cli_help_requested(argc, argv, usage)) return CLI_OK;
  const char *text = NULL;
  bool json = false;
  int threads = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = true;
    else if (!strcmp(argv[i], "--threads")) {
      long n = cli_parse_count("solve", "--threads", i + 1 < argc ? argv[++i] : NULL, 256);
      if (n < 0) return CLI_USAGE;
      threads = (int)n;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "dab solve: unknown option '%s' (dab solve --help)\n", argv[i]);
      return CLI_USAGE;
    } else if (text) {
      fprintf(stderr, "dab solve: one position expected, got a second: '%s'\n", argv[i]);
      return CLI_USAGE;
    } else text = argv[i];
  }
  if (!text) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  static dab_parsed p;
  int rc = cli_parse_position("solve", text, &p);
  if (rc) return rc;
  const dab_geom *g = &p.geom;
  static dab_analysis a;
  dab_err err;
  dab_oracle_opts oo = {.threads = threads};
  dab_oracle *o;
  dab_status st = dab_oracle_open(g->rows, g->cols, &oo, &o, &err);
  if (st == DAB_OK) {
    st = dab_oracle_analyze(o, &p.game.lines, &a, &err);
    dab_oracle_close(o);
  } else if (st == DAB_EBOARD) {
    if (!dab_geom_fast(g))
      return cli_error("solve", DAB_EBOARD, "boards over 64 lines cannot be solved exactly");
    uint64_t root = dab_ls_word(&p.game.lines);
    dab_retro_opts ro = {.threads = threads, .progress = cli_progress,
                         .cancel = cli_cancel_on_signal()};
    cli_announce_memory("solve", "the retrograde table", dab_retro_bytes(__builtin_popcountll(g->all_lines & ~root)));
    dab_retro *r;
    st = dab_retro_solve(g, root, &ro, &r, &err);
    cli_progress_end();
    if (st == DAB_OK) {
      st = dab_retro_analyze(r, root, &a, &err);
      dab_retro_free(r);
    }
  }
  if (st) return cli_error("solve", st, err.msg);
  cli_print_analysis(stdout, g, &a, json, NULL);
  return CLI_OK;
}
