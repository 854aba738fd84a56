/*
** cmd_matrix.c: `dab matrix`: the benchmark matrix games of seed paper 004
** (or a user's bimatrix), their exact Nash equilibria, Q-learning runs and
** the replicator-dynamics field with learning trajectories (gnuplot).
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "agents/matrix.h"
#include "cli/cliutil.h"
#include "cli/commands.h"

static const char usage[] =
    "usage: dab matrix GAME | --payoff FILE  [--nash] [--learn egreedy|lenient]\n"
    "                  [--episodes N] [--kappa K] [--runs N] [--seed S]\n"
    "                  [--log FILE.csv] [--every N] [--plot FILE.png]\n\n"
    "Two-player matrix games, row player first.  GAME is one of the benchmark\n"
    "games of the KU Leuven report (seed paper 004), payoffs as published:\n"
    "  dispersion, bos (battle-of-the-sexes), pd (prisoners-dilemma),\n"
    "  rps (biased-rps: biased rock-paper-scissors, zero-sum)\n"
    "--payoff FILE reads a bimatrix instead (format: dab matrix --help-format).\n"
    "Prints the payoff table, then (default, or --nash) every Nash equilibrium,\n"
    "exactly, with Pareto optimality and, for a benchmark game, one line per\n"
    "published claim saying whether it holds.\n\n"
    "  --learn KIND    two independent stateless Q-learners, alpha 0.05, gamma 0.1:\n"
    "                  egreedy: eps_k = 0.01 + 0.99 exp(-0.001 k)\n"
    "                  lenient: Boltzmann, T_k = max(0.01, 80 - 0.01 k), leniency kappa\n"
    "  --episodes N    episodes per run (default 10000)\n"
    "  --kappa K       leniency: rewards collected per update (default 5)\n"
    "  --runs N        learner pairs, each from its own random Q-table in [-4,4]\n"
    "                  (default 1; 5 with --plot)\n"
    "  --seed S        runs are repeatable from S (default 1)\n"
    "  --log FILE.csv  run,episode,row_<action>...,col_<action>... every --every\n"
    "                  episodes (default 1)\n"
    "  --plot FILE.png replicator-dynamics field with the runs' trajectories:\n"
    "                  2x2 games on the unit square, symmetric 3x3 games on the\n"
    "                  simplex (needs gnuplot; default learner lenient)\n";

static const char format_help[] =
    "Payoff file format (dab matrix --payoff FILE):\n"
    "  # comment              anywhere; blank lines are skipped\n"
    "  name TEXT              optional\n"
    "  rows NAME NAME ...     optional action names (default r1 r2 ...)\n"
    "  cols NAME NAME ...     optional (default c1 c2 ...)\n"
    "  zerosum                optional, before the payoffs: one number per cell\n"
    "  a,b  a,b  ...          one line per row action, a cell per column action:\n"
    "                         row player's payoff, column player's payoff\n"
    "Numbers: integers, decimals (exact: 0.05 is 1/20) or fractions p/q.\n"
    "At most 8 actions per player.  Example (stag hunt):\n"
    "  rows S H\n  cols S H\n  4,4  0,3\n  3,0  3,3\n";

/* A payoff as an exact decimal when it has one (at most 9 digits after the
** point), else as a fraction. */
static void fmt_num(dab_rat r, char *buf, size_t size) {
  int64_t d = r.den, p10 = 1;
  int digits = 0;
  while (d % 2 == 0 || d % 5 == 0) {
    d /= d % 2 == 0 ? 2 : 5;
  }
  if (d != 1 || r.den > 1000000000) {
    dab_rat_format(r, buf, (int)size);
    return;
  }
  while (p10 % r.den) p10 *= 10, digits++;
  __int128 scaled = (__int128)r.num * (p10 / r.den);
  bool neg = scaled < 0;
  if (neg) scaled = -scaled;
  long long ip = (long long)(scaled / p10), fp = (long long)(scaled % p10);
  char frac[12] = "";
  for (int i = digits - 1; i >= 0; i--, fp /= 10) frac[i] = (char)('0' + fp % 10);
  frac[digits] = 0;
  snprintf(buf, size, "%s%lld%s%s", neg ? "-" : "", ip, digits ? "." : "", frac);
}

static void print_table(const dab_matrix_game *g) {
  printf("%s (%dx%d; cells: row player's payoff, column player's)\n", g->name, g->rows, g->cols);
  int w = 0;
  char cell[DAB_MATRIX_MAX][DAB_MATRIX_MAX][72];
  for (int i = 0; i < g->rows; i++)
    for (int j = 0; j < g->cols; j++) {
      char a[32], b[32];
      fmt_num(g->pay[0][i][j], a, sizeof a);
      fmt_num(g->pay[1][i][j], b, sizeof b);
      snprintf(cell[i][j], sizeof cell[i][j], "%s, %s", a, b);
      int l = (int)strlen(cell[i][j]);
      if (l > w) w = l;
    }
  int nw = 1;
  for (int i = 0; i < g->rows; i++)
    if ((int)strlen(g->row_name[i]) > nw) nw = (int)strlen(g->row_name[i]);
  printf("  %*s", nw, "");
  for (int j = 0; j < g->cols; j++) printf("  %*s", w, g->col_name[j]);
  printf("\n");
  for (int i = 0; i < g->rows; i++) {
    printf("  %*s", nw, g->row_name[i]);
    for (int j = 0; j < g->cols; j++) printf("  %*s", w, cell[i][j]);
    printf("\n");
  }
}

/* "(1/2, 1/2)" */
static void fmt_probs(const dab_matrix_vertex *v, int n, char *buf, size_t size) {
  size_t len = (size_t)snprintf(buf, size, "(");
  for (int i = 0; i < n && len < size; i++) {
    char t[32];
    dab_rat_format(v->p[i], t, sizeof t);
    len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", t);
  }
  if (len < size) snprintf(buf + len, size - len, ")");
}

/* Describes equilibrium k: "(O,O)" or "row (3/5, 2/5) col (2/5, 3/5)". */
static void fmt_eq(const dab_matrix_game *g, const dab_matrix_nash *ne, int k, char *buf,
                   size_t size) {
  const dab_matrix_eq *e = &ne->eq[k];
  if (e->pure) {
    snprintf(buf, size, "(%s,%s)", g->row_name[__builtin_ctz(ne->xv[e->x].support)],
             g->col_name[__builtin_ctz(ne->yv[e->y].support)]);
    return;
  }
  char x[200], y[200];
  fmt_probs(&ne->xv[e->x], g->rows, x, sizeof x);
  fmt_probs(&ne->yv[e->y], g->cols, y, sizeof y);
  snprintf(buf, size, "row %s col %s", x, y);
}

static void print_nash(const dab_matrix_game *g, const dab_matrix_nash *ne) {
  printf("\nNash equilibria (exact): %d%s\n", ne->neq,
         ne->degenerate ? " extreme equilibria" : "");
  for (int k = 0; k < ne->neq; k++) {
    const dab_matrix_eq *e = &ne->eq[k];
    char d[440], a[32], b[32];
    fmt_eq(g, ne, k, d, sizeof d);
    fmt_num(e->value[0], a, sizeof a);
    fmt_num(e->value[1], b, sizeof b);
    printf("  %d. %-5s %-36s payoffs (%s, %s)  %s%s\n", k + 1, e->pure ? "pure" : "mixed", d, a,
           b, e->pareto ? "Pareto optimal" : "not Pareto optimal",
           e->pareto ? "" : e->pareto_ne ? " (undominated among the NEs)"
                                         : " (dominated by another NE)");
  }
  if (!ne->degenerate) {
    printf("The game is nondegenerate: these are all its equilibria.\n");
    return;
  }
  printf("The game is degenerate (a strategy has more pure best replies than actions\n"
         "played), so equilibria can form continua; every equilibrium lies in one of\n"
         "these maximal Nash subsets or is one of the points above:\n");
  for (int c = 0; c < ne->ncomp; c++) {
    printf("  any mix of row strategies {");
    bool first = true;
    for (int a = 0; a < ne->nxv && a < 64; a++)
      if (ne->comp[c].xmask >> a & 1) {
        char t[200];
        fmt_probs(&ne->xv[a], g->rows, t, sizeof t);
        printf("%s%s", first ? "" : ", ", t);
        first = false;
      }
    printf("} with any mix of column strategies {");
    first = true;
    for (int b = 0; b < ne->nyv && b < 64; b++)
      if (ne->comp[c].ymask >> b & 1) {
        char t[200];
        fmt_probs(&ne->yv[b], g->cols, t, sizeof t);
        printf("%s%s", first ? "" : ", ", t);
        first = false;
      }
    printf("}\n");
  }
  if (!ne->ncomp) printf("  (none: the equilibria above are isolated)\n");
  if (ne->comp_truncated) printf("  (more subsets exist than dab lists)\n");
}

static void print_claims(const dab_matrix_game *g, const dab_matrix_nash *ne) {
  dab_matrix_claim cl[DAB_MATRIX_MAX_CLAIMS];
  int n = dab_matrix_claims(g, ne, cl, DAB_MATRIX_MAX_CLAIMS);
  if (!n) return;
  printf("\nPublished claims (seed paper 004, section):\n");
  for (int i = 0; i < n; i++)
    printf("  %-13s %s: \"%s\"; %s\n", cl[i].holds ? "holds" : "DOES NOT HOLD", cl[i].where,
           cl[i].claim, cl[i].why);
}

/* ---- Learning ------------------------------------------------------------ */

typedef struct learn_ctx {
  const dab_matrix_game *g;
  FILE *log;
  int every, run, episodes;
  int avg_from, avg_n;            /* mean policy over episodes >= avg_from */
  double avg[2][DAB_MATRIX_MAX];
  int plot_every, npts;           /* trajectory points kept for the plot */
  double (*pts)[2][DAB_MATRIX_MAX];
} learn_ctx;

static int on_policy(void *vctx, int k, const double *row, const double *col) {
  learn_ctx *c = vctx;
  const dab_matrix_game *g = c->g;
  if (c->log && (k % c->every == 0 || k == c->episodes)) {
    fprintf(c->log, "%d,%d", c->run, k);
    for (int i = 0; i < g->rows; i++) fprintf(c->log, ",%.6f", row[i]);
    for (int j = 0; j < g->cols; j++) fprintf(c->log, ",%.6f", col[j]);
    fputc('\n', c->log);
  }
  if (k >= c->avg_from) {
    for (int i = 0; i < g->rows; i++) c->avg[0][i] += row[i];
    for (int j = 0; j < g->cols; j++) c->avg[1][j] += col[j];
    c->avg_n++;
  }
  if (c->pts && (k % c->plot_every == 0 || k == c->episodes)) {
    memcpy(c->pts[c->npts][0], row, sizeof(double) * (size_t)g->rows);
    memcpy(c->pts[c->npts][1], col, sizeof(double) * (size_t)g->cols);
    c->npts++;
  }
  return 0;
}

/* The extreme equilibrium nearest to (row, col) in the largest difference
** of one probability; its distance in *dist. */
static int nearest_eq(const dab_matrix_game *g, const dab_matrix_nash *ne, const double *row,
                      const double *col, double *dist) {
  int best = -1;
  *dist = INFINITY;
  for (int k = 0; k < ne->neq; k++) {
    double d = 0;
    for (int i = 0; i < g->rows; i++)
      d = fmax(d, fabs(row[i] - dab_rat_to_double(ne->xv[ne->eq[k].x].p[i])));
    for (int j = 0; j < g->cols; j++)
      d = fmax(d, fabs(col[j] - dab_rat_to_double(ne->yv[ne->eq[k].y].p[j])));
    if (d < *dist) *dist = d, best = k;
  }
  return best;
}

static void fmt_policy(const double *p, int n, char *buf, size_t size) {
  size_t len = (size_t)snprintf(buf, size, "(");
  for (int i = 0; i < n && len < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "%s%.3f", i ? ", " : "", p[i]);
  if (len < size) snprintf(buf + len, size - len, ")");
}

/* Says where a policy pair is relative to the equilibria. */
static void print_where(const dab_matrix_game *g, const dab_matrix_nash *ne, const char *what,
                        const double *row, const double *col) {
  char r[120], c[120], e[440];
  fmt_policy(row, g->rows, r, sizeof r);
  fmt_policy(col, g->cols, c, sizeof c);
  double d;
  int k = nearest_eq(g, ne, row, col, &d);
  if (k < 0) {
    printf("    %s row %s col %s\n", what, r, c);
    return;
  }
  fmt_eq(g, ne, k, e, sizeof e);
  printf("    %s row %s col %s: %s NE %s (distance %.3f)\n", what, r, c,
         d <= 0.05 ? "at" : "not at an NE; nearest", e, d);
}



static const char *colors[] = {"#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd",
                               "#8c564b", "#e377c2", "#17becf"};

/* Plot coordinates of a strategy: (P(first row action), P(first column
** action)) on the square, or the barycentric point of the row strategy on
** the triangle R (0,0), P (1,0), S (1/2, sqrt(3)/2). */
static void to_xy(bool simplex, const double *x, const double *y, double *px, double *py) {
  if (simplex) {
    *px = x[1] + 0.5 * x[2];
    *py = x[2] * sqrt(3.0) / 2;
  } else {
    *px = x[0];
    *py = y[0];
  }
}

static int plot(const char *out, const dab_matrix_game *g, const dab_matrix_nash *ne,
                const char *learner, learn_ctx *runs, int nruns) {
  bool simplex = g->rows == 3;
  if (!cli_on_path("gnuplot")) {
    fprintf(stderr, "dab matrix: gnuplot not found; install it: apt-get install gnuplot-nox\n");
    return CLI_FAIL;
  }
  signal(SIGPIPE, SIG_IGN);
  FILE *gp = popen("gnuplot", "w");
  if (!gp) {
    fprintf(stderr, "dab matrix: cannot run gnuplot: %s\n", strerror(errno));
    return CLI_FAIL;
  }
  fprintf(gp, "set terminal pngcairo size 900,%d font ',11' noenhanced\nset output ",
          simplex ? 860 : 900);
  cli_gnuplot_quoted(gp, out);
  fprintf(gp, "\n$field << EOD\n");
  /* The field: arrows of one length, coloured by speed. */
  if (simplex) {
    const int n = 16;
    for (int i = 0; i <= n; i++)
      for (int j = 0; i + j <= n; j++) {
        double x[3] = {(double)i / n, (double)j / n, (double)(n - i - j) / n}, dx[3], dy[3];
        if (x[0] == 1 || x[1] == 1 || x[2] == 1) continue;
        dab_matrix_replicator(g, x, x, dx, dy);
        double px, py, vx = dx[1] + 0.5 * dx[2], vy = dx[2] * sqrt(3.0) / 2;
        to_xy(true, x, x, &px, &py);
        double s = hypot(vx, vy);
        if (s < 1e-12) continue;
        double len = 0.6 / n;
        fprintf(gp, "%.5f %.5f %.5f %.5f %.6g\n", px - 0.5 * len * vx / s, py - 0.5 * len * vy / s,
                len * vx / s, len * vy / s, s);
      }
  } else {
    const int n = 20;
    for (int i = 0; i <= n; i++)
      for (int j = 0; j <= n; j++) {
        double x[2] = {(i + 0.5) / (n + 1), 0}, y[2] = {(j + 0.5) / (n + 1), 0}, dx[2], dy[2];
        x[1] = 1 - x[0];
        y[1] = 1 - y[0];
        dab_matrix_replicator(g, x, y, dx, dy);
        double s = hypot(dx[0], dy[0]);
        if (s < 1e-12) continue;
        double len = 0.65 / (n + 1);
        fprintf(gp, "%.5f %.5f %.5f %.5f %.6g\n", x[0] - 0.5 * len * dx[0] / s,
                y[0] - 0.5 * len * dy[0] / s, len * dx[0] / s, len * dy[0] / s, s);
      }
  }
  fprintf(gp, "EOD\n");
  for (int r = 0; r < nruns; r++) {
    fprintf(gp, "$run%d << EOD\n", r);
    for (int k = 0; k < runs[r].npts; k++) {
      double px, py;
      to_xy(simplex, runs[r].pts[k][0], runs[r].pts[k][1], &px, &py);
      fprintf(gp, "%.5f %.5f\n", px, py);
    }
    fprintf(gp, "EOD\n");
  }
  fprintf(gp, "$ne << EOD\n");
  for (int k = 0; k < ne->neq; k++) {
    double x[DAB_MATRIX_MAX], y[DAB_MATRIX_MAX], px, py;
    for (int i = 0; i < g->rows; i++) x[i] = dab_rat_to_double(ne->xv[ne->eq[k].x].p[i]);
    for (int j = 0; j < g->cols; j++) y[j] = dab_rat_to_double(ne->yv[ne->eq[k].y].p[j]);
    to_xy(simplex, x, y, &px, &py);
    fprintf(gp, "%.5f %.5f\n", px, py);
  }
  fprintf(gp, "EOD\n");
  fprintf(gp, "set title ");
  char title[200];
  snprintf(title, sizeof title, "%s: replicator dynamics and %s Q-learning (%d run%s)", g->name,
           learner, nruns, nruns == 1 ? "" : "s");
  cli_gnuplot_quoted(gp, title);
  fprintf(gp, "\nset palette defined (0 '#d0d0d0', 1 '#404040')\nunset colorbox\n"
              "set key outside bottom center horizontal\nset size ratio -1\n");
  if (simplex) {
    fprintf(gp, "unset border\nunset xtics\nunset ytics\nset xrange [-0.08:1.08]\n"
                "set yrange [-0.06:0.93]\n");
    fprintf(gp, "set label 1 'R (rock)' at 0,-0.035 center\nset label 2 'P (paper)' at 1,-0.035 "
                "center\nset label 3 'S (scissors)' at 0.5,0.9 center\n");
    fprintf(gp, "set label 4 'row player''s policy' at 1.05,0.84 right\n");
    fprintf(gp, "$tri << EOD\n0 0\n1 0\n0.5 %.6f\n0 0\nEOD\n", sqrt(3.0) / 2);
  } else {
    fprintf(gp, "set xrange [0:1]\nset yrange [0:1]\nset grid\n");
    fprintf(gp, "set xlabel ");
    char lab[96];
    snprintf(lab, sizeof lab, "P(row player plays %s)", g->row_name[0]);
    cli_gnuplot_quoted(gp, lab);
    fprintf(gp, "\nset ylabel ");
    snprintf(lab, sizeof lab, "P(column player plays %s)", g->col_name[0]);
    cli_gnuplot_quoted(gp, lab);
    fprintf(gp, "\n");
  }
  fprintf(gp, "plot $field using 1:2:3:4:5 with vectors head filled size %s lc palette "
              "notitle",
          simplex ? "0.012,25" : "0.011,25");
  if (simplex) fprintf(gp, ", $tri using 1:2 with lines lc rgb 'black' lw 1.5 notitle");
  for (int r = 0; r < nruns; r++) {
    const char *col = colors[r % (int)(sizeof colors / sizeof *colors)];
    fprintf(gp, ", $run%d using 1:2 with lines lw %s lc rgb '%s' title 'run %d'", r,
            simplex ? "1.5" : "2", col, r + 1);
    fprintf(gp, ", $run%d every ::0::0 using 1:2 with points pt 6 ps 1.8 lw 2 lc rgb '%s' notitle",
            r, col);
    fprintf(gp, ", $run%d every ::%d::%d using 1:2 with points pt 7 ps 1.8 lc rgb '%s' notitle", r,
            runs[r].npts - 1, runs[r].npts - 1, col);
  }
  fprintf(gp, ", NaN with points pt 6 ps 1.8 lw 2 lc rgb 'black' title 'start'"
              ", NaN with points pt 7 ps 1.8 lc rgb 'black' title 'end'");
  fprintf(gp, ", $ne using 1:2 with points pt 12 ps 3 lw 2.5 lc rgb 'black' "
              "title 'Nash equilibrium'\n");
  fprintf(gp, "set output\n");
  int status = pclose(gp);
  struct stat sb;
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || stat(out, &sb) != 0 ||
      sb.st_size == 0) {
    fprintf(stderr, "dab matrix: gnuplot failed to write %s\n", out);
    return CLI_FAIL;
  }
  return CLI_OK;
}

/* ---- The command --------------------------------------------------------- */

static int learn(const dab_matrix_game *g, const dab_matrix_nash *ne, const dab_mlearn_params *p,
                 uint64_t seed, int nruns, int every, const char *log_path, const char *plot_path) {
  const char *name = p->kind == DAB_MLEARN_EGREEDY ? "epsilon-greedy" : "lenient Boltzmann";
  printf("\nLearning: %s Q-learning, two independent stateless learners, %d run%s of %d "
         "episodes,\n  seed %llu, alpha %g, gamma %g (discounts max Q of the one state, which is "
         "also the next)\n",
         name, nruns, nruns == 1 ? "" : "s", p->episodes, (unsigned long long)seed, p->alpha,
         p->gamma);
  if (p->kind == DAB_MLEARN_EGREEDY)
    printf("  eps_k = %g + %g exp(-%g k); the report prints exp(+0.001 k), which grows without "
           "bound\n",
           p->eps_min, p->eps_max - p->eps_min, p->eps_decay);
  else
    printf("  T_k = max(%g, %g - %g k); leniency kappa = %d (the report gives no kappa)\n",
           p->t_min, p->t_max, p->t_step, p->kappa);
  printf("  initial Q-values uniform in [%g, %g]\n", p->q0_lo, p->q0_hi);
  FILE *log = NULL;
  if (log_path) {
    log = fopen(log_path, "w");
    if (!log) {
      fprintf(stderr, "dab matrix: cannot write %s: %s\n", log_path, strerror(errno));
      return CLI_FAIL;
    }
    fprintf(log, "run,episode");
    for (int i = 0; i < g->rows; i++) fprintf(log, ",row_%s", g->row_name[i]);
    for (int j = 0; j < g->cols; j++) fprintf(log, ",col_%s", g->col_name[j]);
    fputc('\n', log);
  }
  learn_ctx *runs = calloc((size_t)nruns, sizeof *runs);
  if (!runs) return cli_error("matrix", DAB_ENOMEM, "out of memory");
  int rc = CLI_OK, at_ne = 0;
  for (int r = 0; r < nruns && rc == CLI_OK; r++) {
    learn_ctx *c = &runs[r];
    c->g = g;
    c->log = log;
    c->every = every;
    c->run = r + 1;
    c->episodes = p->episodes;
    c->avg_from = p->episodes - p->episodes / 10;
    if (plot_path) {
      int points = g->rows == 3 ? 500 : 2000; /* fewer on the simplex, where policies jump */
      c->plot_every = p->episodes / points > 0 ? p->episodes / points : 1;
      c->pts = malloc(sizeof *c->pts * (size_t)(p->episodes / c->plot_every + 2));
      if (!c->pts) {
        rc = cli_error("matrix", DAB_ENOMEM, "out of memory");
        break;
      }
    }
    double fr[DAB_MATRIX_MAX], fc[DAB_MATRIX_MAX];
    dab_err err;
    dab_status st = dab_mlearn_run(g, p, seed, (uint64_t)r, 1, on_policy, c, fr, fc, &err);
    if (st) {
      rc = cli_error("matrix", st, err.msg);
      break;
    }
    printf("  run %d:\n", r + 1);
    print_where(g, ne, "ends at", fr, fc);
    double d;
    nearest_eq(g, ne, fr, fc, &d);
    at_ne += d <= 0.05;
    for (int i = 0; i < g->rows; i++) c->avg[0][i] /= c->avg_n;
    for (int j = 0; j < g->cols; j++) c->avg[1][j] /= c->avg_n;
    print_where(g, ne, "mean of the last 10%:", c->avg[0], c->avg[1]);
  }
  if (rc == CLI_OK)
    printf("  %d of %d runs end within 0.05 of a Nash equilibrium\n", at_ne, nruns);
  if (log && fclose(log) != 0 && rc == CLI_OK) {
    fprintf(stderr, "dab matrix: cannot write %s\n", log_path);
    rc = CLI_FAIL;
  }
  if (rc == CLI_OK && plot_path) {
    rc = plot(plot_path, g, ne, p->kind == DAB_MLEARN_EGREEDY ? "epsilon-greedy" : "lenient",
              runs, nruns);
    if (rc == CLI_OK) printf("  plot written to %s\n", plot_path);
  }
  for (int r = 0; r < nruns; r++) free(runs[r].pts);
  free(runs);
  return rc;
}

int dab_cmd_matrix(int argc, char **argv) {
  const char *payoff = NULL, *learner = NULL, *seed_text = NULL, *log_path = NULL,
             *plot_path = NULL, *game_name = NULL;
  bool nash = false, help_format = false;
  long episodes = 10000, kappa = 5, runs = 0, every = 1;
  const cli_opt table[] = {{"--payoff", CLI_TEXT, &payoff, 0},
                           {"--nash", CLI_FLAG, &nash, 0},
                           {"--learn", CLI_TEXT, &learner, 0},
                           {"--episodes", CLI_COUNT, &episodes, 100000000},
                           {"--kappa", CLI_COUNT, &kappa, 1000},
                           {"--runs", CLI_COUNT, &runs, 8},
                           {"--seed", CLI_TEXT, &seed_text, 0},
                           {"--log", CLI_TEXT, &log_path, 0},
                           {"--every", CLI_COUNT, &every, 100000000},
                           {"--plot", CLI_TEXT, &plot_path, 0},
                           {"--help-format", CLI_FLAG, &help_format, 0},
                           {NULL, 0, NULL, 0}};
  int nargs, rc = cli_parse_args("matrix", argc, argv, table, &game_name, 1, &nargs, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (help_format) {
    fputs(format_help, stdout);
    return CLI_OK;
  }
  if (!!nargs == !!payoff) {
    fprintf(stderr, "dab matrix: give a GAME (%s) or --payoff FILE, not both\n",
            dab_matrix_builtin_help);
    return CLI_USAGE;
  }
  unsigned long long seed = 1;
  if (seed_text) {
    char *end;
    errno = 0;
    seed = strtoull(seed_text, &end, 10);
    if (!*seed_text || *end || errno || *seed_text == '-') {
      fprintf(stderr, "dab matrix: --seed needs a whole number >= 0, got '%s'\n", seed_text);
      return CLI_USAGE;
    }
  }
  dab_mlearn_kind kind = DAB_MLEARN_LENIENT;
  if (learner && !dab_mlearn_kind_parse(learner, &kind)) {
    fprintf(stderr, "dab matrix: --learn takes egreedy or lenient, got '%s'\n", learner);
    return CLI_USAGE;
  }
  if (log_path && !learner && !plot_path) {
    fprintf(stderr, "dab matrix: --log needs --learn (or --plot)\n");
    return CLI_USAGE;
  }
  dab_matrix_game g;
  dab_err err;
  dab_status st = payoff ? dab_matrix_load(payoff, &g, &err)
                         : dab_matrix_builtin(game_name, &g, &err);
  if (st) return cli_error("matrix", st, err.msg);
  if (plot_path && !(g.rows == 2 && g.cols == 2) && !(g.rows == 3 && dab_matrix_symmetric(&g))) {
    fprintf(stderr, "dab matrix: --plot draws 2x2 games and symmetric 3x3 games; this one is "
                    "%dx%d%s\n",
            g.rows, g.cols, g.rows == 3 && g.cols == 3 ? " and not symmetric" : "");
    return CLI_USAGE;
  }
  static dab_matrix_nash ne;
  if ((st = dab_matrix_solve(&g, &ne, &err))) return cli_error("matrix", st, err.msg);
  print_table(&g);
  bool do_learn = learner || plot_path;
  if (nash || !do_learn) {
    print_nash(&g, &ne);
    print_claims(&g, &ne);
  }
  if (!do_learn) return CLI_OK;
  dab_mlearn_params p;
  dab_mlearn_defaults(kind, &p);
  p.episodes = (int)episodes;
  p.kappa = (int)kappa;
  if (!runs) runs = plot_path ? 5 : 1;
  rc = learn(&g, &ne, &p, seed, (int)runs, (int)every, log_path, plot_path);
  fflush(stdout);
  return rc;
}
