/*
** tb_sizing.c: the plan of a layered tablebase build spread over N
** machines (`mpirun -np N dab build RxC --mpi`), on paper: the exact
** indexed entries of every layer (transfer-matrix counts, so also for
** boards whose layers pass 2^32, e.g. 4x5), memory and disk per node,
** network volume per layer and wall time on N nodes.
** Usage: tb_sizing [RxC] [--rate R] [--threads T] [--nodes N,N,...] [--layers]
**   RxC        board (default 4x5)
**   --rate R   entries per second per thread (default 2.06e6: the 4x4
**              build, 6,067,255,234 entries in 2,951 CPU-s)
**   --threads  threads per node (default 16)
**   --nodes    node counts of the time table (default 1,4,16,64)
**   --layers   print every layer (entries, bytes, the memory a rank
**              holds while computing it, network volume)
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/benchutil.h"
#include "game/board.h"
#include "game/postext.h"
#include "tablebase/tb_index.h"

static double gb(double b) { return b / 1e9; }

int main(int argc, char **argv) {
  const char *board = "4x5", *nodes_arg = "1,4,16,64";
  double rate = 2.06e6;
  int threads = 16;
  bool layers = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--rate") && i + 1 < argc) rate = atof(argv[++i]);
    else if (!strcmp(argv[i], "--threads") && i + 1 < argc) threads = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--nodes") && i + 1 < argc) nodes_arg = argv[++i];
    else if (!strcmp(argv[i], "--layers")) layers = true;
    else if (argv[i][0] != '-') board = argv[i];
    else {
      fprintf(stderr, "tb_sizing: unknown option '%s'\n", argv[i]);
      return 2;
    }
  }
  int rows, cols;
  size_t used;
  dab_err err;
  dab_geom g;
  if (dab_parse_board(board, &rows, &cols, &used, &err) || board[used] ||
      dab_geom_init(&g, rows, cols, &err)) {
    fprintf(stderr, "tb_sizing: '%s': expected a board like 4x5\n", board);
    return 2;
  }
  if (rate <= 0 || threads <= 0) {
    fprintf(stderr, "tb_sizing: --rate and --threads must be positive\n");
    return 2;
  }
  uint64_t c[DAB_TBIDX_MAX_LINES + 1];
  double t0 = bench_now();
  if (dab_tbidx_count(&g, true, c, &err)) {
    fprintf(stderr, "tb_sizing: %s\n", err.msg);
    return 1;
  }
  double count_s = bench_now() - t0;
  int L = g.nlines, ntrans = rows == cols ? 8 : 4;
  double total = 0, biggest = 0, above_max = 0;
  int kmax = 0;
  for (int k = 0; k <= L; k++) {
    total += (double)c[k];
    if ((double)c[k] > biggest) biggest = (double)c[k], kmax = k;
  }
  printf("%dx%d: %d lines, %d layers; counted in %.2f s\n", rows, cols, L, L + 1, count_s);
  printf("indexed entries: %.6g (%.1f GB at one byte each); canonical about %.3g (1/%d)\n", total,
         gb(total), total / ntrans, ntrans);
  printf("largest layer: %d, %llu entries (%.1f GB)\n", kmax, (unsigned long long)c[kmax], gb(biggest));
  if (layers) printf("layer  entries            GB      held GB  network GB/node\n");
  double above = 0;
  for (int k = L; k >= 0; k--) {
    /* While layer k is computed a rank holds every finished layer above it
    ** and its slice; rank 0 also the whole layer. */
    double held = above + (double)c[k];
    if (held > above_max) above_max = held;
    if (layers)
      printf("%5d  %17llu  %8.2f  %8.1f  %8.2f\n", k, (unsigned long long)c[k], gb((double)c[k]), gb(held),
             gb((double)c[k]));
    above += (double)c[k];
  }
  printf("memory per node at the peak: %.1f GB (every finished layer, one byte per entry)\n", gb(above_max));
  printf("rank 0 disk: %.1f GB of layers + the file (about %.0f GB at 0.07 bytes per entry, twice while "
         "compacting)\n",
         gb(total), gb(total * 0.07));
  printf("network: each layer's bytes reach every other rank once (broadcast) and come back once "
         "(slices): %.1f GB per node over the build\n",
         gb(total));
  printf("wall time at %.3g entries/s per thread, %d threads per node (computing only):\n", rate, threads);
  char buf[256];
  snprintf(buf, sizeof buf, "%s", nodes_arg);
  for (char *s = strtok(buf, ","); s; s = strtok(NULL, ",")) {
    int n = atoi(s);
    if (n <= 0) continue;
    double secs = total / (rate * threads * n);
    printf("  %5d nodes: %8.1f h (%.1f days); network per node %.1f GB\n", n, secs / 3600, secs / 86400,
           gb(total));
  }
  return 0;
}
