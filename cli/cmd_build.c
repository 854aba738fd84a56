/*
** cmd_build.c: `dab build RxC` solves a board and writes its tablebase.
** See Copyright Notice in README.md
*/
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "game/postext.h"
#include "solver/retro.h"
#include "tablebase/dabtb.h"

static const char usage[] =
    "usage: dab build RxC [-o FILE] [--tb DIR] [--threads N] [--level L] [--block-entries N]\n\n"
    "Solves every position of the RxC board by retrograde analysis and writes its\n"
    "tablebase (LMDB + zstd, see docs/formats.md).  The file is written to a\n"
    "temporary name, synced, compacted and renamed, so an interrupted build never\n"
    "leaves a half-written tablebase; running it again just works.\n"
    "  -o FILE             output file (default: RxC.dab in --tb DIR, else the first\n"
    "                      directory of $DAB_TB_PATH, else data/tb/ of the project)\n"
    "  --threads N         worker threads (default: all cores)\n"
    "  --level L           zstd level 1..22 (default 12)\n"
    "  --block-entries N   positions per compressed block (default 1048576)\n"
    "  --fill-true         store true values in don't-care entries (for measurement)\n";

int dab_cmd_build(int argc, char **argv) {
  if (cli_help_requested(argc, argv, usage)) return CLI_OK;
  const char *board = NULL, *out = NULL, *tb_dir = NULL;
  dabtb_build_opts bo = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-o") || !strcmp(a, "--tb")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "dab build: %s needs a value\n", a);
        return CLI_USAGE;
      }
      if (!strcmp(a, "-o")) out = argv[++i];
      else tb_dir = argv[++i];
    } else if (!strcmp(a, "--threads")) {
      long n = cli_parse_count("build", a, i + 1 < argc ? argv[++i] : NULL, 256);
      if (n < 0) return CLI_USAGE;
      bo.threads = (int)n;
    } else if (!strcmp(a, "--level")) {
      long n = cli_parse_count("build", a, i + 1 < argc ? argv[++i] : NULL, 22);
      if (n < 0) return CLI_USAGE;
      bo.zstd_level = (int)n;
    } else if (!strcmp(a, "--block-entries")) {
      long n = cli_parse_count("build", a, i + 1 < argc ? argv[++i] : NULL, 1l << 30);
      if (n < 0) return CLI_USAGE;
      bo.block_entries = (uint32_t)n;
    } else if (!strcmp(a, "--fill-true")) {
      bo.fill_true = true;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "dab build: unknown option '%s' (dab build --help)\n", a);
      return CLI_USAGE;
    } else if (board) {
      fprintf(stderr, "dab build: one board expected, got a second: '%s'\n", a);
      return CLI_USAGE;
    } else board = a;
  }
  if (!board) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  int rows, cols;
  size_t used;
  dab_err err;
  dab_status st = dab_parse_board(board, &rows, &cols, &used, &err);
  if (!st && board[used])
    st = dab_fail(&err, DAB_EINPUT, "'%s': expected a board like 3x4, nothing after it", board);
  if (st) return cli_error("build", st, err.msg);
  dab_geom g;
  st = dab_geom_init(&g, rows, cols, &err);
  if (st) return cli_error("build", st, err.msg);
  if (g.nlines > DAB_RETRO_MAX_FREE)
    return cli_error("build", DAB_EBOARD, "tablebases cover boards of at most 32 lines (3x4, 2x6...)");
  char path[PATH_MAX + 64];
  if (out) {
    snprintf(path, sizeof path, "%s", out);
  } else {
    st = dabtb_default_path(rows, cols, tb_dir, path, sizeof path, &err);
    if (st) return cli_error("build", st, err.msg);
  }
  cli_announce_memory("build", "the retrograde table", dab_retro_bytes(g.nlines));
  bo.progress = cli_progress;
  bo.cancel = cli_cancel_on_signal();
  dabtb_build_report rep;
  st = dabtb_build(rows, cols, path, &bo, &rep, &err);
  cli_progress_end();
  if (st) return cli_error("build", st, err.msg);
  printf("%s: %dx%d, %llu bytes, %llu blocks, %llu indexed / %llu canonical positions, value %+d\n",
         path, rows, cols, (unsigned long long)rep.file_bytes, (unsigned long long)rep.blocks,
         (unsigned long long)rep.indexed, (unsigned long long)rep.canonical, rep.value);
  printf("time: retrograde %.2f s, encode %.2f s, write %.2f s, total %.2f s\n", rep.retro_seconds,
         rep.encode_seconds, rep.write_seconds, rep.total_seconds);
  return CLI_OK;
}
