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
    "capture rule), as Syzygy's verifier does.  Exit 0 when all agree, 1 with the\n"
    "first mismatch, 2 when FILE is missing or not a tablebase.\n"
    "  --threads N   worker threads (default: all cores)\n";

int dab_cmd_verify(int argc, char **argv) {
  if (cli_help_requested(argc, argv, usage)) return CLI_OK;
  const char *file = NULL, *tb_dir = NULL;
  int threads = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--tb") && i + 1 < argc) tb_dir = argv[++i];
    else if (!strcmp(argv[i], "--threads")) {
      long n = cli_parse_count("verify", "--threads", i + 1 < argc ? argv[++i] : NULL, 64);
      if (n < 0) return CLI_USAGE;
      threads = (int)n;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "dab verify: unknown option '%s' (dab verify --help)\n", argv[i]);
      return CLI_USAGE;
    } else if (file) {
      fprintf(stderr, "dab verify: one file expected, got a second: '%s'\n", argv[i]);
      return CLI_USAGE;
    } else file = argv[i];
  }
  if (!file) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  dabtb *tb;
  int rc = tbcli_open("verify", file, tb_dir, &tb);
  if (rc) return rc;
  dab_err err;
  dab_tbv_report rep;
  dab_status st = dab_tb_verify(tb, threads, cli_progress, NULL, cli_cancel_on_signal(), &rep, &err);
  cli_progress_end();
  dabtb_close(tb);
  if (st) {
    fprintf(stderr, "dab verify: %s: %s\n", file, err.msg);
    return st == DAB_ECANCELED ? CLI_FAIL : CLI_FAIL;
  }
  printf("%s: verified: %llu stored values agree with their successors (%llu entries walked, %.2f s)\n",
         file, (unsigned long long)rep.checked, (unsigned long long)rep.entries, rep.seconds);
  return CLI_OK;
}
