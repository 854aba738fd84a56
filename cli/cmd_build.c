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
  const char *board = NULL, *out = NULL, *tb_dir = NULL;
  long threads = 0, level = 0, block_entries = 0;
  bool fill_true = false;
  const cli_opt table[] = {{"-o", CLI_TEXT, &out, 0},
                           {"--tb", CLI_TEXT, &tb_dir, 0},
                           {"--threads", CLI_COUNT, &threads, 256},
                           {"--level", CLI_COUNT, &level, 22},
                           {"--block-entries", CLI_COUNT, &block_entries, 1l << 30},
                           {"--fill-true", CLI_FLAG, &fill_true, 0},
                           {NULL, 0, NULL, 0}};
  int n, rc = cli_parse_args("build", argc, argv, table, &board, 1, &n, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (n == 0) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  dabtb_build_opts bo = {0};
  bo.threads = (int)threads;
  bo.zstd_level = (int)level;
  bo.block_entries = (uint32_t)block_entries;
  bo.fill_true = fill_true;
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
