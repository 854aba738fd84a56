/*
** cmd_plot.c: `dab plot LOG.csv -o FILE.png`: learning curves with gnuplot.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli/cliutil.h"
#include "cli/commands.h"

static const char usage[] =
    "usage: dab plot LOG.csv -o FILE.png [--title TEXT] [--logx]\n\n"
    "Draws the learning curves of a `dab train --log` file (or any CSV whose\n"
    "first column is \"games\") with gnuplot (Debian package gnuplot-nox):\n"
    "  panel 1: every win_* column (win rates against random, level1, ...);\n"
    "  panel 2: the oracle metrics: optimal*, opt_*, kept* (share of moves, left\n"
    "           axis), lost* and rmse* (boxes, right axis).\n"
    "Other columns are ignored.  --logx puts games on a log scale.\n";

#define MAX_COLS 64

/* A friendlier title for the columns every kind writes. */
static const char *title_of(const char *c) {
  static const char *names[][2] = {
      {"win_random", "wins vs random"},     {"win_level1", "wins vs level1"},
      {"win_level0", "wins vs level0"},     {"win_level2", "wins vs level2"},
      {"optimal", "optimal-move rate (graded games)"},
      {"kept", "result-keeping rate (graded games)"},
      {"lost", "boxes lost per move (right axis)"},
      {"opt_all", "optimal-move rate (all positions)"},
      {"rmse", "RMSE against exact Q (right axis)"}};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(names[i][0], c)) return names[i][1];
  return c;
}

static bool prefixed(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }



/* Plots the listed columns (1-based numbers) in one panel. */
static void panel(FILE *gp, const char *csv, char cols[][64], const int *idx, int n, bool right_axis) {
  fprintf(gp, "plot ");
  for (int k = 0; k < n; k++) {
    const char *c = cols[idx[k] - 1];
    bool y2 = right_axis && (prefixed(c, "lost") || prefixed(c, "rmse"));
    fprintf(gp, "%s", k ? ", \\\n     " : "");
    cli_gnuplot_quoted(gp, csv);
    fprintf(gp, " skip 1 using 1:%d axes x1%s with linespoints pt 7 ps 0.5 lw 2 title ", idx[k],
            y2 ? "y2" : "y1");
    cli_gnuplot_quoted(gp, title_of(c));
  }
  fprintf(gp, "\n");
}

int dab_cmd_plot(int argc, char **argv) {
  const char *cmd = "plot", *out = NULL, *title = NULL;
  bool logx = false;
  const char *args[1];
  int nargs = 0;
  const cli_opt opts[] = {{"-o", CLI_TEXT, &out, 0},
                          {"--out", CLI_TEXT, &out, 0},
                          {"--title", CLI_TEXT, &title, 0},
                          {"--logx", CLI_FLAG, &logx, 0},
                          {NULL, CLI_FLAG, NULL, 0}};
  int rc = cli_parse_args(cmd, argc, argv, opts, args, 1, &nargs, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (nargs != 1 || !out) {
    fprintf(stderr, "dab plot: needs LOG.csv and -o FILE.png (dab plot --help)\n");
    return CLI_USAGE;
  }
  const char *csv = args[0];
  FILE *f = fopen(csv, "r");
  if (!f) {
    fprintf(stderr, "dab plot: cannot read %s: %s\n", csv, strerror(errno));
    return CLI_USAGE;
  }
  char line[4096];
  bool got = fgets(line, sizeof line, f) != NULL;
  int rows = 0;
  char more[4096];
  while (fgets(more, sizeof more, f)) rows++;
  fclose(f);
  char cols[MAX_COLS][64];
  int ncols = 0;
  if (got) {
    line[strcspn(line, "\r\n")] = 0;
    for (char *tok = strtok(line, ","); tok && ncols < MAX_COLS; tok = strtok(NULL, ","))
      snprintf(cols[ncols++], sizeof cols[0], "%s", tok);
  }
  if (!ncols || strcmp(cols[0], "games") != 0) {
    fprintf(stderr, "dab plot: %s: the first line must be a header starting with \"games\"\n", csv);
    return CLI_USAGE;
  }
  if (!rows) {
    fprintf(stderr, "dab plot: %s has no rows to plot\n", csv);
    return CLI_USAGE;
  }
  int win[MAX_COLS], metric[MAX_COLS], nwin = 0, nmetric = 0;
  bool y2 = false;
  for (int i = 1; i < ncols; i++) {
    const char *c = cols[i];
    if (prefixed(c, "win_")) win[nwin++] = i + 1;
    else if (prefixed(c, "optimal") || prefixed(c, "opt_") || prefixed(c, "kept")) metric[nmetric++] = i + 1;
    else if (prefixed(c, "lost") || prefixed(c, "rmse")) {
      metric[nmetric++] = i + 1;
      y2 = true;
    }
  }
  if (!nwin && !nmetric) {
    fprintf(stderr, "dab plot: %s has no column to plot (win_*, optimal, kept, lost, rmse...)\n", csv);
    return CLI_USAGE;
  }
  if (!cli_on_path("gnuplot")) {
    fprintf(stderr, "dab plot: gnuplot not found; install it: apt-get install gnuplot-nox\n");
    return CLI_FAIL;
  }
  FILE *gp = popen("gnuplot", "w");
  if (!gp) {
    fprintf(stderr, "dab plot: cannot run gnuplot: %s\n", strerror(errno));
    return CLI_FAIL;
  }
  int panels = (nwin > 0) + (nmetric > 0);
  fprintf(gp, "set terminal pngcairo size 900,%d font ',10' noenhanced\nset output ", 460 * panels);
  cli_gnuplot_quoted(gp, out);
  fprintf(gp, "\nset datafile separator ','\nset grid\nset key below maxrows 3\n"
              "set xlabel 'games'\nset lmargin 10\nset rmargin 10\n");
  if (logx) fprintf(gp, "set logscale x\n");
  fprintf(gp, "set multiplot layout %d,1", panels);
  if (title) {
    fprintf(gp, " title ");
    cli_gnuplot_quoted(gp, title);
  }
  fprintf(gp, "\n");
  if (nwin) {
    fprintf(gp, "set ylabel 'win rate'\nset yrange [0:1.02]\n");
    panel(gp, csv, cols, win, nwin, false);
  }
  if (nmetric) {
    fprintf(gp, "set ylabel 'share of moves / positions'\nset yrange [0:1.02]\nset ytics nomirror\n");
    if (y2) fprintf(gp, "set y2label 'boxes'\nset y2range [0:*]\nset y2tics\n");
    panel(gp, csv, cols, metric, nmetric, true);
  }
  fprintf(gp, "unset multiplot\nset output\n");
  int status = pclose(gp);
  struct stat sb;
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || stat(out, &sb) != 0 ||
      sb.st_size == 0) {
    fprintf(stderr, "dab plot: gnuplot failed to write %s\n", out);
    return CLI_FAIL;
  }
  return CLI_OK;
}
