/*
** cmd_check.c: `dab check FILE` verifies every checksum of a tablebase.
** See Copyright Notice in README.md
*/
#include <string.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "cli/tbcli.h"

static const char usage[] =
    "usage: dab check FILE [--tb DIR]\n\n"
    "Integrity check: reads every block, decompresses it and compares its XXH3-64,\n"
    "then each layer's XXH3-128 and the meta checksum.  Exit 0 when all match,\n"
    "1 naming the first bad block, 2 when FILE is missing or not a tablebase.\n"
    "(`dab verify` goes further: it re-derives every value from its successors.)\n";

int dab_cmd_check(int argc, char **argv) {
  if (cli_help_requested(argc, argv, usage)) return CLI_OK;
  const char *file = NULL, *tb_dir = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--tb") && i + 1 < argc) tb_dir = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "dab check: unknown option '%s' (dab check --help)\n", argv[i]);
      return CLI_USAGE;
    } else if (file) {
      fprintf(stderr, "dab check: one file expected, got a second: '%s'\n", argv[i]);
      return CLI_USAGE;
    } else file = argv[i];
  }
  if (!file) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  dabtb *tb;
  int rc = tbcli_open("check", file, tb_dir, &tb);
  if (rc) return rc;
  dab_err err;
  dab_status st = dabtb_check(tb, cli_progress, NULL, cli_cancel_on_signal(), &err);
  cli_progress_end();
  dabtb_coverage cov;
  dabtb_get_coverage(tb, &cov);
  dabtb_close(tb);
  if (st) {
    fprintf(stderr, "dab check: %s: %s\n", file, err.msg);
    return CLI_FAIL;
  }
  printf("%s: ok (%dx%d, %d layers, %llu entries: every block and layer checksum matches)\n", file,
         cov.rows, cov.cols, cov.nlines + 1, (unsigned long long)cov.indexed);
  return CLI_OK;
}
