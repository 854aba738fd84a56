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
    "then each layer's XXH3-128 and the meta checksum, and every solved record's\n"
    "XXH3-64 and sanity (bounds, canonical key).  Exit 0 when all match,\n"
    "1 naming the first bad block, 2 when FILE is missing or not a tablebase.\n"
    "(`dab verify` goes further: it re-derives every value from its successors.)\n";

/* A pattern database file (*.dabpdb) is checked by `dab pdb check`. */
static bool is_pdb_file(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    size_t l = strlen(argv[i]);
    if (argv[i][0] != '-' && l > 7 && !strcmp(argv[i] + l - 7, ".dabpdb")) return true;
  }
  return false;
}

int dab_cmd_check(int argc, char **argv) {
  if (is_pdb_file(argc, argv)) {
    char *sub[8] = {"pdb", "check"};
    int n = 2;
    for (int i = 1; i < argc && n < 8; i++) sub[n++] = argv[i];
    return dab_cmd_pdb(n, sub);
  }
  const char *file = NULL, *tb_dir = NULL;
  const cli_opt table[] = {{"--tb", CLI_TEXT, &tb_dir, 0},
                           {NULL, 0, NULL, 0}};
  int n, rc = cli_parse_args("check", argc, argv, table, &file, 1, &n, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (n == 0) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  dabtb *tb;
  rc = tbcli_open("check", file, tb_dir, &tb);
  if (rc) return rc;
  dab_err err;
  dab_status st = dabtb_check(tb, cli_progress, NULL, cli_cancel_on_signal(), &err);
  cli_progress_end();
  dabtb_coverage cov;
  dabtb_get_coverage(tb, &cov);
  if (st) {
    tbcli_file_error("check", file, dabtb_path(tb), st, err.msg);
    dabtb_close(tb);
    return CLI_FAIL;
  }
  dabtb_close(tb);
  if (cov.indexed)
    printf("%s: ok (%dx%d, %d layers, %llu entries, %llu solved records: every checksum matches)\n",
           file, cov.rows, cov.cols, cov.nlines + 1, (unsigned long long)cov.indexed,
           (unsigned long long)cov.solved);
  else
    printf("%s: ok (%dx%d solved-only file, %llu solved records: every checksum matches)\n", file,
           cov.rows, cov.cols, (unsigned long long)cov.solved);
  return CLI_OK;
}
