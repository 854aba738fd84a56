/*
** cmd_rules.c: `dab rules show FILE [--oracle]`: the rules of an econ or erl team, graded.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agents/ruleteam.h"
#include "cli/cliutil.h"
#include "cli/commands.h"

static const char usage[] =
    "usage: dab rules show FILE [--oracle] [--games N] [--top N] [--min-fired N] [--threads N]\n"
    "       dab rules grade [--board RxC] [--games N] RULE...\n"
    "\n"
    "Lists the rules of a rule file (dab train econ / erl), most used first:\n"
    "Q and f (erl) or bid and wealth (econ), firings, and the oracle's grade\n"
    "of its moves: the share that were optimal and the mean boxes lost.\n"
    "Without --oracle the grades stored at the end of training are shown;\n"
    "with it every rule is graded afresh over --games greedy games of the\n"
    "team against chain (default 2000, colours alternating).  Then the best\n"
    "and worst rules among those fired at least --min-fired times (20).\n"
    "  --top N   list the N most used rules (default 30; 0 = all)\n"
    "  --threads N   play the graded games on N threads (default 1; the\n"
    "            grades are the same for every N)\n"
    "\n"
    "grade: each rule text alone, on every position of --games games of\n"
    "random play (default 2000) that it matches: its firings, the share of\n"
    "its moves that are optimal and the mean boxes they lose.\n";

static int grade_texts(const char *const *texts, int n, const char *board, long games) {
  int rows = 3, cols = 3;
  if (board && sscanf(board, "%dx%d", &rows, &cols) != 2) {
    fprintf(stderr, "dab rules: bad --board '%s'\n", board);
    return CLI_USAGE;
  }
  dab_ragent *a = calloc((size_t)n, sizeof *a);
  if (!a) return cli_error("rules", DAB_ENOMEM, "out of memory");
  dab_err err;
  dab_status st = DAB_OK;
  for (int i = 0; i < n && !st; i++) {
    st = dab_rule_parse(texts[i], false, &a[i].rule, &err);
    char why[96];
    if (!st && !dab_rule_check(&a[i].rule, why, sizeof why))
      st = dab_fail(&err, DAB_EINPUT, "'%s' is not a valid rule: %s", texts[i], why);
  }
  dab_geom g;
  dab_player_env *env = NULL;
  const dab_oracle *oracle;
  if (!st && !(st = dab_geom_init(&g, rows, cols, &err)) && !(st = dab_player_env_new(NULL, &env, &err)) &&
      !(st = dab_player_env_oracle(env, rows, cols, &oracle, &err)))
    st = dab_rt_grade_alone(&g, a, n, oracle, (int)games, 1, &err);
  dab_player_env_free(env);
  if (st) {
    free(a);
    return cli_error("rules", st, err.msg);
  }
  printf("each rule alone on the positions of %ld random-play games, %dx%d, graded by the oracle\n", games, rows, cols);
  printf("%8s %8s %8s  %s\n", "fired", "optimal", "lost", "rule");
  for (int i = 0; i < n; i++)
    printf("%8ld %8.4f %8.4f  %s\n", a[i].fired, a[i].graded ? (double)a[i].optimal / (double)a[i].graded : 0,
           a[i].graded ? a[i].lost / (double)a[i].graded : 0, texts[i]);
  free(a);
  return CLI_OK;
}

static const dab_ragent *sort_base;

static int by_fired(const void *x, const void *y) {
  const dab_ragent *a = &sort_base[*(const int *)x], *b = &sort_base[*(const int *)y];
  return a->fired < b->fired ? 1 : a->fired > b->fired ? -1 : 0;
}

static double opt_rate(const dab_ragent *a) { return a->graded ? (double)a->optimal / (double)a->graded : 0; }
static double mean_lost(const dab_ragent *a) { return a->graded ? a->lost / (double)a->graded : 0; }

static int by_best(const void *x, const void *y) {
  const dab_ragent *a = &sort_base[*(const int *)x], *b = &sort_base[*(const int *)y];
  if (opt_rate(a) != opt_rate(b)) return opt_rate(a) < opt_rate(b) ? 1 : -1;
  if (mean_lost(a) != mean_lost(b)) return mean_lost(a) > mean_lost(b) ? 1 : -1;
  return by_fired(x, y);
}

static int by_worst(const void *x, const void *y) {
  const dab_ragent *a = &sort_base[*(const int *)x], *b = &sort_base[*(const int *)y];
  if (mean_lost(a) != mean_lost(b)) return mean_lost(a) < mean_lost(b) ? 1 : -1;
  return by_fired(x, y);
}

static void print_rule(const dab_ragent *a, int i, bool erl) {
  char text[DAB_RULE_TEXT];
  dab_rule_print(&a->rule, text, sizeof text);
  if (erl) printf("%5d %8.3f %8.3f", i, a->q, a->f);
  else printf("%5d %8.3f %8.3f", i, a->bid, a->wealth);
  printf(" %7ld %7.3f %6.3f  %s\n", a->fired, opt_rate(a), mean_lost(a), text);
}

static void header(bool erl) {
  printf("%5s %8s %8s %7s %7s %6s  %s\n", "rule", erl ? "Q" : "bid", erl ? "f" : "wealth", "fired", "optimal",
         "lost", "text");
}

int dab_cmd_rules(int argc, char **argv) {
  bool oracle_on = false;
  long games = 2000, top = 30, min_fired = 20, threads = 1;
  const char *words[64];
  const char *board = NULL;
  int nw = 0;
  cli_opt opts[] = {{"--oracle", CLI_FLAG, &oracle_on, 0},
                    {"--games", CLI_COUNT, &games, 100000000},
                    {"--top", CLI_COUNT, &top, 100000000},
                    {"--min-fired", CLI_COUNT, &min_fired, 100000000},
                    {"--threads", CLI_COUNT, &threads, 256},
                    {"--board", CLI_TEXT, &board, 0},
                    {NULL, CLI_FLAG, NULL, 0}};
  int rc = cli_parse_args("rules", argc, argv, opts, words, 64, &nw, usage);
  if (rc) return rc < 0 ? 0 : rc;
  if (nw >= 2 && !strcmp(words[0], "grade")) return grade_texts(words + 1, nw - 1, board, games);
  if (nw != 2 || strcmp(words[0], "show")) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  dab_err err;
  dab_model_header h;
  dab_ragent *a;
  int n;
  dab_status st = dab_rules_read(words[1], NULL, &h, &a, &n, &err);
  if (st) return cli_error("rules", st, err.msg);
  bool erl = !strcmp(h.kind, "erl");
  dab_player_env *env = NULL;
  if (oracle_on) {
    dab_geom g;
    const dab_oracle *oracle;
    if (!(st = dab_geom_init(&g, h.rows, h.cols, &err)) && !(st = dab_player_env_new(NULL, &env, &err)) &&
        !(st = dab_player_env_oracle(env, h.rows, h.cols, &oracle, &err)))
      st = dab_rt_grade_rules(&g, a, n, erl, oracle, (int)games, 0, 1, (int)threads, &err);
    dab_player_env_free(env);
    if (st) {
      free(a);
      return cli_error("rules", st, err.msg);
    }
  }
  printf("%s: %d %s rules, %dx%d; %s\n", words[1], n, h.kind, h.rows, h.cols, h.params);
  if (oracle_on) printf("graded by the oracle over %ld greedy games against chain\n", games);
  int *idx = malloc(sizeof *idx * (size_t)(n ? n : 1));
  if (!idx) {
    free(a);
    return cli_error("rules", DAB_ENOMEM, "out of memory");
  }
  for (int i = 0; i < n; i++) idx[i] = i;
  sort_base = a;
  qsort(idx, (size_t)n, sizeof *idx, by_fired);
  header(erl);
  long shown = top && top < n ? top : n;
  for (long i = 0; i < shown; i++) print_rule(&a[idx[i]], idx[i], erl);
  /* Best (most optimal, then least lost) and worst (most lost) of the used. */
  int *used = malloc(sizeof *used * (size_t)(n ? n : 1)), nu = 0;
  for (int i = 0; used && i < n; i++)
    if (a[i].graded >= min_fired) used[nu++] = i;
  int best[5], worst[5], nb = nu < 5 ? nu : 5, nwst = nb;
  if (used) {
    qsort(used, (size_t)nu, sizeof *used, by_best);
    memcpy(best, used, sizeof *best * (size_t)nb);
    qsort(used, (size_t)nu, sizeof *used, by_worst);
    memcpy(worst, used, sizeof *worst * (size_t)nwst);
    free(used);
  }
  printf("\nbest rules (fired >= %ld):\n", min_fired);
  header(erl);
  for (int i = 0; i < nb; i++) print_rule(&a[best[i]], best[i], erl);
  printf("\nworst rules (fired >= %ld):\n", min_fired);
  header(erl);
  for (int i = 0; i < nwst; i++) print_rule(&a[worst[i]], worst[i], erl);
  free(idx);
  free(a);
  return CLI_OK;
}
