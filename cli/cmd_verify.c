/*
** cmd_verify.c: `dab verify FILE` re-derives every stored value of a
** tablebase from its successors.
** See Copyright Notice in README.md
*/
#include <string.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "cli/tbcli.h"
#include "verify/tb_verify.h"

static const char usage[] =
    "usage: dab verify FILE [--threads N] [--tb DIR]\n\n"
    "Re-derives every stored value of the tablebase from its successors, layer by\n"
    "layer from the full board down (positions with captures are resolved by the\n"
    "capture rule), as Syzygy's verifier does.  Solved records (results of search)\n"
    "are checked against the records of their children.  Exit 0 when all agree, 1 with the\n"
    "first mismatch, 2 when FILE is missing or not a tablebase.\n"
    "  --threads N   worker threads (default: all cores)\n";

/* A pattern database file (*.dabpdb) is checked by `dab pdb verify`. */
static bool is_pdb_file(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    size_t l = strlen(argv[i]);
    if (argv[i][0] != '-' && l > 7 && !strcmp(argv[i] + l - 7, ".dabpdb")) return true;
  }
  return false;
}

int dab_cmd_verify(int argc, char **argv) {
  if (is_pdb_file(argc, argv)) {
    char *sub[8] = {"pdb", "verify"};
    int n = 2;
    for (int i = 1; i < argc && n < 8; i++) sub[n++] = argv[i];
    return dab_cmd_pdb(n, sub);
  }
  const char *file = NULL, *tb_dir = NULL;
  long threads = 0;
  const cli_opt table[] = {{"--tb", CLI_TEXT, &tb_dir, 0},
                           {"--threads", CLI_COUNT, &threads, 64},
                           {NULL, 0, NULL, 0}};
  int n, rc = cli_parse_args("verify", argc, argv, table, &file, 1, &n, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (n == 0) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  dabtb *tb;
  rc = tbcli_open("verify", file, tb_dir, &tb);
  if (rc) return rc;
  dab_err err;
  dab_tbv_report rep;
  dab_status st = DAB_OK;
  bool has_table = dabtb_has_table(tb);
  if (has_table) st = dab_tb_verify(tb, (int)threads, cli_progress, NULL, cli_cancel_on_signal(), &rep, &err);
  cli_progress_end();
  dabtb_coverage cov;
  dabtb_get_coverage(tb, &cov);
  uint64_t records = 0, checked = 0;
  if (!st && cov.solved) { /* solved records: re-checked against their stored children */
    dabtb_store *s;
    st = dabtb_store_open(dabtb_path(tb), cov.rows, cov.cols, DABTB_STORE_READ, &s, &err);
    if (!st) st = dabtb_store_verify(s, cli_cancel_on_signal(), &records, &checked, &err);
    dabtb_store_close(s);
  }
  if (st) {
    tbcli_file_error("verify", file, dabtb_path(tb), st, err.msg);
    dabtb_close(tb);
    return CLI_FAIL;
  }
  dabtb_close(tb);
  if (has_table)
    printf("%s: verified: %llu stored values agree with their successors (%llu entries walked, %.2f s)\n",
           file, (unsigned long long)rep.checked, (unsigned long long)rep.entries, rep.seconds);
  else
    printf("%s: solved-only file (no table to re-derive)\n", file);
  if (cov.solved)
    printf("%s: %llu solved records sound; %llu of them agree with their stored children\n", file,
           (unsigned long long)records, (unsigned long long)checked);
  return CLI_OK;
}
