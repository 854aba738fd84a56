/*
** cmd_build.c: `dab build RxC` solves a board and writes its tablebase.
** See Copyright Notice in README.md
*/
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "game/postext.h"
#include "service/mpi_build.h"
#include "tablebase/dabtb.h"

static const char usage[] =
    "usage: dab build RxC [-o FILE] [--tb DIR] [--threads N] [--plan] [--restart]\n"
    "                     [--mem-limit SIZE] [--full-array] [--level L] [--block-entries N]\n"
    "       mpirun -np N dab build RxC -o FILE --mpi [--threads T]\n\n"
    "Solves every position of the RxC board and writes its tablebase (LMDB + zstd,\n"
    "see docs/formats.md).  The layered builder computes the quiet positions layer\n"
    "by layer from the full board down, one byte per indexed position in memory\n"
    "(3x5: 1.9 GB, 4x4: 6.1 GB); finished layers go to FILE.layers/, so a killed\n"
    "or interrupted (Ctrl-C) build resumes where it stopped when run again.  The\n"
    "file is written to a temporary name, synced, compacted and renamed, so an\n"
    "interrupted build never leaves a half-written tablebase.\n"
    "  -o FILE             output file (default: RxC.dab in --tb DIR, else the first\n"
    "                      directory of $DAB_TB_PATH, else ~/.cache/dab; dab info)\n"
    "  --threads N         worker threads (default: all cores)\n"
    "  --plan              print entries per layer, peak memory, temporary disk and\n"
    "                      the estimated time, and build nothing\n"
    "  --restart           discard finished layers of an earlier run\n"
    "  --mpi               one build over the ranks of an MPI job (make MPI=1): each\n"
    "                      rank computes a slice of every layer, rank 0 writes the\n"
    "                      file (byte-identical to one process; docs/formats.md)\n"
    "  --mem-limit SIZE    refuse a plan above SIZE (e.g. 8G; default: MemAvailable)\n"
    "  --full-array        solve with the 2^L-byte retrograde table (<= 32 lines)\n"
    "  --level L           zstd level 1..22 (default 12)\n"
    "  --block-entries N   positions per compressed block (default 1048576)\n"
    "  --fill-true         store true values in don't-care entries (for measurement;\n"
    "                      implies --full-array)\n";

static double gib(uint64_t b) { return (double)b / 1073741824.0; }

/* After an interrupted build: the command that resumes it, which is this
** one with its options (the output file above all), less --restart, which
** would throw the kept layers away.  argv[0] is "build". */
static void print_resume(int argc, char **argv, bool mpi) {
  fputs("dab build: to resume, run: ", stderr);
  if (mpi) fputs("mpirun -np N ", stderr);
  fputs("dab", stderr);
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--restart")) continue;
    const char *a = argv[i];
    bool plain = *a != 0;
    for (const char *c = a; *c; c++)
      if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", *c)) plain = false;
    if (plain) fprintf(stderr, " %s", a);
    else { /* single-quoted for the shell, ' as '\'' */
      fputs(" '", stderr);
      for (const char *c = a; *c; c++) fputs(*c == '\'' ? "'\\''" : (char[2]){*c, 0}, stderr);
      fputc('\'', stderr);
    }
  }
  fputc('\n', stderr);
}

static void print_time(const char *label, double s) {
  if (s < 10) printf("%s%.2g s", label, s);
  else if (s < 120) printf("%s%.0f s", label, s);
  else if (s < 7200) printf("%s%.1f min", label, s / 60);
  else printf("%s%.2f h", label, s / 3600);
}

/* "74 MiB", "2.07 GiB": small plans stay readable. */
static const char *size_text(uint64_t b, char *buf, size_t len) {
  if (b < (1ull << 30)) snprintf(buf, len, "%.0f MiB", (double)b / 1048576.0);
  else snprintf(buf, len, "%.2f GiB", gib(b));
  return buf;
}

static int print_plan(const char *path, const dabtb_plan *p) {
  char peak[32], limit[32], disk[32];
  printf("plan: dab build %dx%d -> %s\n", p->rows, p->cols, path);
  printf("builder: %s, %d threads, %d symmetries with border equivalence\n",
         p->full_array ? "full-array retrograde table" : "layered (quiet positions only)", p->threads,
         p->ntrans);
  printf("layer  entries          est. time\n");
  for (int k = p->nlines; k >= 0; k--) {
    printf("%5d  %15llu  ", k, (unsigned long long)p->entries[k]);
    print_time("", p->layer_seconds[k]);
    printf("%s\n", p->layers_done > p->nlines - k ? "   (done)" : "");
  }
  printf("indexed entries: %llu (of 2^%d positions)\n", (unsigned long long)p->indexed, p->nlines);
  printf("peak memory: %s (%s); limit %s: %s\n", size_text(p->peak_bytes, peak, sizeof peak),
         p->full_array ? "retrograde table" : "every layer, one byte per entry, plus blocks",
         size_text(p->mem_limit, limit, sizeof limit), p->fits ? "fits" : "DOES NOT FIT: the build is refused");
  printf("temporary disk: %s (%s); file about %.3g MB\n", size_text(p->disk_bytes, disk, sizeof disk),
         p->full_array ? "the file twice" : "the layers, plus the file twice",
         (double)p->file_bytes / 1e6);
  if (p->full_array)
    printf("estimated time: not estimated for the full-array builder\n");
  else {
    /* CPU time is what the estimate is of; wall time follows from it only
    ** when the threads have their cores to themselves */
    double cpu = p->seconds * p->threads;
    print_time("estimated time: ", cpu * DABTB_PLAN_LOW);
    print_time(" to ", cpu * DABTB_PLAN_HIGH);
    printf(" of CPU time (timed sample: %.3g entries/s per thread);\n", p->sample_rate);
    print_time("  wall time ", p->seconds * DABTB_PLAN_LOW);
    print_time(" to ", p->seconds * DABTB_PLAN_HIGH);
    printf(" on %d free cores, longer when other jobs share them\n", p->threads);
  }
  if (p->layers_done) printf("resume: %d finished layers on disk\n", p->layers_done);
  return p->fits ? CLI_OK : CLI_FAIL;
}

static void on_layer(void *ctx, int layer, uint64_t entries, uint64_t canonical, double seconds) {
  (void)ctx;
  if (!isatty(STDERR_FILENO) && seconds < 1.0) return;
  cli_progress_end();
  fprintf(stderr, "layer %2d: %llu entries, %llu canonical, %.2f s (%.3g entries/s)\n", layer,
          (unsigned long long)entries, (unsigned long long)canonical, seconds,
          seconds > 0 ? (double)entries / seconds : 0.0);
}

int dab_cmd_build(int argc, char **argv) {
  const char *board = NULL, *out = NULL, *tb_dir = NULL, *mem = NULL;
  long threads = 0, level = 0, block_entries = 0;
  bool fill_true = false, plan = false, restart = false, full_array = false, mpi = false;
  const cli_opt table[] = {{"-o", CLI_TEXT, &out, 0},
                           {"--tb", CLI_TEXT, &tb_dir, 0},
                           {"--threads", CLI_COUNT, &threads, 256},
                           {"--plan", CLI_FLAG, &plan, 0},
                           {"--restart", CLI_FLAG, &restart, 0},
                           {"--mpi", CLI_FLAG, &mpi, 0},
                           {"--mem-limit", CLI_TEXT, &mem, 0},
                           {"--full-array", CLI_FLAG, &full_array, 0},
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
  bo.full_array = full_array || fill_true;
  bo.restart = restart;
  if (mem && !(bo.mem_limit = cli_parse_size(mem)))
    return cli_error("build", DAB_EINPUT, "--mem-limit: expected a size like 8G");
  int rows, cols;
  size_t used;
  dab_err err;
  dab_status st = dab_parse_board(board, &rows, &cols, &used, &err);
  if (!st && board[used])
    st = dab_fail(&err, DAB_EINPUT, "'%s': expected a board like 3x4, nothing after it", board);
  if (st) return cli_error("build", st, err.msg);
  st = dabtb_buildable(rows, cols, &err);
  if (st) return cli_error("build", st, err.msg);
  char path[PATH_MAX + 64];
  if (out) {
    snprintf(path, sizeof path, "%s", out);
    /* -o into a directory that is not there: a bad argument (exit 2);
    ** --plan writes nothing and only says what a build would need. */
    char dir[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s", out);
    char *slash = strrchr(dir, '/');
    struct stat sb;
    if (slash && !plan) {
      slash[slash == dir] = 0;
      if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "dab build: cannot write %s: no such directory %s\n", out, dir);
        return CLI_USAGE;
      }
    }
  } else {
    st = dabtb_default_path(rows, cols, tb_dir, path, sizeof path, &err);
    if (st) return cli_error("build", st, err.msg);
  }
  if (mpi && (plan || full_array || fill_true))
    return cli_error("build", DAB_EINPUT, "--mpi builds with the layered builder; it takes no --plan, "
                     "--full-array or --fill-true");
  if (mpi && !dab_mpi_build_available())
    return cli_error("build", DAB_EINPUT, "--mpi: this dab was built without MPI (build it with `make MPI=1`)");
  if (plan) {
    dabtb_plan p;
    st = dabtb_build_plan(rows, cols, path, &bo, &p, &err);
    if (st) return cli_error("build", st, err.msg);
    return print_plan(path, &p);
  }
  bo.progress = cli_progress;
  bo.layer_done = on_layer;
  bo.cancel = cli_cancel_on_signal();
  dabtb_build_report rep;
  int rank = 0;
  if (mpi) {
    bo.progress = NULL; /* one line per layer (on_layer) from rank 0 */
    st = dab_mpi_build(rows, cols, path, &bo, &rep, &rank, &err);
  } else
    st = dabtb_build(rows, cols, path, &bo, &rep, &err);
  cli_progress_end();
  if (st && rank > 0) fprintf(stderr, "dab build: rank %d: %s\n", rank, err.msg);
  if (st && rank > 0) return CLI_FAIL;
  if (st) {
    rc = cli_error("build", st, err.msg);
    if (st == DAB_ECANCELED) print_resume(argc, argv, mpi);
    return rc;
  }
  if (rank > 0) return CLI_OK;
  printf("%s: %dx%d, %llu bytes, %llu blocks, %llu indexed / %llu canonical positions, value %+d\n",
         path, rows, cols, (unsigned long long)rep.file_bytes, (unsigned long long)rep.blocks,
         (unsigned long long)rep.indexed, (unsigned long long)rep.canonical, rep.value);
  if (rep.layers_resumed) printf("resumed: %d finished layers reused\n", rep.layers_resumed);
  printf("time: %s %.2f s, encode %.2f s, write %.2f s, total %.2f s\n",
         rep.layered ? "layers" : "retrograde", rep.retro_seconds, rep.encode_seconds,
         rep.write_seconds, rep.total_seconds);
  return CLI_OK;
}
