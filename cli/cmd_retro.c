/*
** cmd_retro.c: `dab retro POS` runs the exhaustive retrograde solver over
** every position below POS and reports counts and timing.
** See Copyright Notice in README.md
*/
#include <string.h>
#include <time.h>
#include "game/clock.h"
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "solver/retro.h"

static const char usage[] =
    "usage: dab retro POS [--threads N] [--plain] [--mem-limit SIZE] [--json]\n\n"
    "Computes the value of every position reachable from POS (2^F positions for\n"
    "F undrawn lines, one byte each; F <= 32) and prints the value of POS, the\n"
    "table size and the time taken.  The memory needed and the expected time\n"
    "are said first; a table above the memory available is refused.\n"
    "  --threads N  worker threads (default: all cores)\n"
    "  --plain      try every move in every position (the baseline; slower)\n"
    "  --mem-limit SIZE  refuse a table above SIZE, e.g. 1G (default: the memory\n"
    "               available)\n";

int dab_cmd_retro(int argc, char **argv) {
  dab_retro_opts opts = {0};
  bool json = false;
  long threads = 0;
  const char *mem = NULL;
  const cli_opt table[] = {{"--plain", CLI_FLAG, &opts.plain, 0},
                           {"--json", CLI_FLAG, &json, 0},
                           {"--threads", CLI_COUNT, &threads, 256},
                           {"--mem-limit", CLI_TEXT, &mem, 0},
                           {NULL, 0, NULL, 0}};
  const char *text;
  int n, rc = cli_parse_args("retro", argc, argv, table, &text, 1, &n, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (n == 0) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  opts.threads = (int)threads;
  if (mem && !(opts.mem_limit = cli_parse_size(mem)))
    return cli_error("retro", DAB_EINPUT, "--mem-limit: expected a size like 1G");
  static dab_parsed p;
  rc = cli_parse_position("retro", text, &p);
  if (rc) return rc;
  if (!dab_geom_fast(&p.geom))
    return cli_error("retro", DAB_EBOARD, "the retrograde solver handles boards with at most 64 lines");
  opts.progress = cli_progress;
  opts.cancel = cli_cancel_on_signal();
  uint64_t root = dab_ls_word(&p.game.lines);
  int nfree = __builtin_popcountll(p.geom.all_lines & ~root);
  if (nfree <= DAB_RETRO_MAX_FREE && dab_retro_bytes(nfree) >= 64ull << 20) { /* else the solver refuses */
    int t = opts.threads ? opts.threads : cli_cores();
    /* --plain: 147 CPU-s on 3x4 (docs/PERFORMANCE.md), 5.3x the capture rule's */
    double e = dab_retro_expected_seconds(nfree) * (opts.plain ? 5.3 : 1);
    cli_note("the retrograde table needs %.0f MiB of memory; expected %.3g to %.3g s of CPU time, %.3g to %.3g s "
             "on %d free core%s", (double)dab_retro_bytes(nfree) / 1048576.0, e * DAB_RETRO_PLAN_LOW,
             e * DAB_RETRO_PLAN_HIGH, e * DAB_RETRO_PLAN_LOW / t, e * DAB_RETRO_PLAN_HIGH / t, t, t > 1 ? "s" : "");
  }
  dab_retro *r;
  dab_err err;
  double t0 = dab_now_s();
  dab_status st = dab_retro_solve(&p.geom, root, &opts, &r, &err);
  double dt = dab_now_s() - t0;
  cli_progress_end();
  if (st) return cli_error("retro", st, err.msg);
  int value = dab_retro_value(r, root);
  if (json)
    printf("{\"rows\":%d,\"cols\":%d,\"value\":%d,\"positions\":%llu,\"bytes\":%llu,\"seconds\":%.3f,"
           "\"plain\":%s}\n",
           p.geom.rows, p.geom.cols, value, (unsigned long long)r->count,
           (unsigned long long)r->count, dt, opts.plain ? "true" : "false");
  else
    printf("value %+d\npositions %llu (%.1f MiB)\ntime %.3f s (%.3g positions/s)\n", value,
           (unsigned long long)r->count, (double)r->count / 1048576.0, dt, (double)r->count / dt);
  dab_retro_free(r);
  return CLI_OK;
}
