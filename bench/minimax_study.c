/*
** minimax_study.c: the OpenSpiel project's minimax study (its Table 2 and
** Figure 5) on 1x1..3x3, with dab's retrograde solver as a fifth line.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench/minimax_study.h"
#include "oracle/oracle.h"
#include "solver/retro.h"

/*
** Usage: minimax_study [--boards 1x1,1x2,2x2,2x3,3x3] [--naive-limit S]
**                      [--csv FILE]
**
** For each board: the oracle's value of the empty board, then each solver
** (minimax_study.h) from the empty board, checked against it, and dab's
** retrograde solver (solver/retro.h, one thread: every position valued
** once, one byte each).  The naive solver runs only where its tree has at
** most 2e9 inner nodes (up to 12 lines, i.e. 2x2) and stops at the time limit
** (default 120 s); on bigger boards it is reported as not run, with the
** size of its tree.  Prints a table; --csv also writes one row per
** (board, solver).  Exit status 1 when a solver disagrees with the oracle.
*/

/* Inner nodes of the full game tree (every ordering of n lines):
** floor(e * n!) nodes, of which n! are leaves. */
static double tree_nodes(int n) {
  double f = 1;
  for (int i = 2; i <= n; i++) f *= i;
  return floor(M_E * f) - f;
}

int main(int argc, char **argv) {
  const char *boards = "1x1,1x2,2x2,2x3,3x3", *csv_path = NULL;
  double naive_limit = 120;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--boards") && i + 1 < argc) boards = argv[++i];
    else if (!strcmp(argv[i], "--naive-limit") && i + 1 < argc) naive_limit = atof(argv[++i]);
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
    else {
      fprintf(stderr, "usage: minimax_study [--boards RxC,...] [--naive-limit S] [--csv FILE]\n");
      return 2;
    }
  }
  FILE *csv = NULL;
  if (csv_path && !(csv = fopen(csv_path, "w"))) {
    perror(csv_path);
    return 2;
  }
  if (csv)
    fprintf(csv, "board,lines,states,solver,status,value,oracle_value,seconds,nodes,table_bytes,keys\n");
  printf("%-5s %5s %10s  %-14s %-10s %5s %6s %10s %14s %14s %12s\n", "board", "lines", "states",
         "solver", "status", "value", "oracle", "seconds", "nodes", "table_bytes", "keys");
  int bad = 0;
  char list[256];
  snprintf(list, sizeof list, "%s", boards);
  for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int R, C;
    dab_geom g;
    dab_err err;
    if (sscanf(tok, "%dx%d", &R, &C) != 2 || dab_geom_init(&g, R, C, &err) || g.nlines > 30) {
      fprintf(stderr, "minimax_study: bad or too big board '%s'\n", tok);
      return 2;
    }
    dab_oracle *o;
    dab_oracle_opts oo = {.threads = 1};
    int ov;
    if (dab_oracle_open(R, C, &oo, &o, &err) || dab_oracle_value64(o, 0, &ov, &err)) {
      fprintf(stderr, "minimax_study: oracle %s: %s\n", tok, err.msg);
      return 1;
    }
    dab_oracle_close(o);
    dab_sym *sym = dab_sym_new(&g, &err);
    if (!sym) {
      fprintf(stderr, "minimax_study: %s\n", err.msg);
      return 1;
    }
    double states = ldexp(1.0, g.nlines);
    for (int k = 0; k <= MS_NKINDS; k++) {
      const char *name = k < MS_NKINDS ? ms_kind_name[k] : "dab-retro";
      const char *status;
      ms_result r;
      memset(&r, 0, sizeof r);
      if (k == MS_NAIVE && tree_nodes(g.nlines) > 2e9) {
        status = "not-run";
      } else if (k < MS_NKINDS) {
        r = ms_solve(&g, sym, (ms_kind)k, 0, k == MS_NAIVE ? naive_limit : 0);
        status = r.complete ? "ok" : r.oom ? "no-memory" : "time-limit";
      } else {
        dab_retro *rt;
        dab_retro_opts ro = {.threads = 1};
        double t0 = ms_now();
        if (dab_retro_solve(&g, 0, &ro, &rt, &err)) {
          fprintf(stderr, "minimax_study: retro %s: %s\n", tok, err.msg);
          return 1;
        }
        r.seconds = ms_now() - t0;
        r.value = dab_retro_value(rt, 0);
        r.complete = true;
        r.nodes = r.keys = rt->count;
        r.table_bytes = dab_retro_bytes(rt->nfree);
        dab_retro_free(rt);
        status = "ok";
      }
      if (r.complete && r.value != ov) {
        status = "WRONG";
        bad++;
      }
      bool ran = r.complete;
      char val[16] = "-", secs[32] = "-", nodes[32];
      if (!strcmp(status, "not-run")) snprintf(nodes, sizeof nodes, "%.3g", tree_nodes(g.nlines));
      else snprintf(nodes, sizeof nodes, "%llu", (unsigned long long)r.nodes);
      if (ran) snprintf(val, sizeof val, "%d", r.value);
      if (ran || !strcmp(status, "time-limit")) snprintf(secs, sizeof secs, "%.3g", r.seconds);
      printf("%-5s %5d %10.0f  %-14s %-10s %5s %6d %10s %14s %14llu %12llu%s\n", tok, g.nlines,
             states, name, status, val, ov, secs, nodes,
             (unsigned long long)r.table_bytes, (unsigned long long)r.keys,
             !strcmp(status, "not-run")  ? "  (nodes: inner nodes of the whole tree)"
             : k == MS_NAIVE && !ran     ? "  (nodes: expanded before the limit)"
                                         : "");
      if (csv)
        fprintf(csv, "%s,%d,%.0f,%s,%s,%s,%d,%s,%s,%llu,%llu\n", tok, g.nlines, states, name, status,
                ran ? val : "", ov, ran ? secs : "", nodes,
                (unsigned long long)r.table_bytes, (unsigned long long)r.keys);
      fflush(stdout);
    }
    dab_sym_free(sym);
  }
  if (csv) fclose(csv);
  if (bad) fprintf(stderr, "minimax_study: %d solver(s) disagree with the oracle\n", bad);
  return bad ? 1 : 0;
}
