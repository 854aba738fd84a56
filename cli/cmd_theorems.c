/*
** cmd_theorems.c: `dab theorems check|value|explain`: the endgame theorem
** checker and the SLE evaluation tools.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "game/sc.h"
#include "solver/retro.h"
#include "theorems/compsolve.h"
#include "theorems/graphsolve.h"
#include "theorems/sle.h"
#include "verify/thm_check.h"

static const char usage[] =
    "usage: dab theorems check [--level L] [--max-boxes N] [--json] [options]\n"
    "       dab theorems value G [--exact] [--json]      e.g. G = 3+3+L4\n"
    "       dab theorems explain POS [--json]\n\n"
    "check    verifies the endgame theorems of docs/theorems.md against exact\n"
    "         solvers that know no theory; exit 1 if a claim expected to hold\n"
    "         fails.  Negative controls must fail (\"failed as expected\").\n"
    "         Each level's rows print as it ends; Ctrl-C prints the summary of\n"
    "         what was settled and exits 1.\n"
    "  --level L          only level L (0 arithmetic, 1 string-level game,\n"
    "                     2 Nimstring, 3 real boards, 4 turn identity,\n"
    "                     5 the pattern database's rules: docs/pdb.md)\n"
    "  --max-boxes N      level 0 size (default 30; level 1 uses min(N, 24))\n"
    "  --max-boxes-ext N  level 0 size for SLEs with 1-/2-chains (default min(N, 26))\n"
    "  --max-boxes1 N     level 1 size (default 24)\n"
    "  --max-boxes-l3 N   level 1 3-loop control size (default min(level 1, 16))\n"
    "  --max-strings N    level 2 size (default 16, at most 24)\n"
    "  --graphs N         level 2 random graphs (default 200)\n"
    "  --max-lines N      level 3/4 boards up to N lines (default 24 = 3x3; 31 = 3x4)\n"
    "  --constructed N    level 3 constructed 4x4/5x5 SLE positions (default 200)\n"
    "  --games N          games per board and kind (default 200)\n"
    "  --pdb-strings N    level 5 components up to N strings (default 9, at most 14)\n"
    "  --pdb-sums N       level 5 random sums (default 1000)\n"
    "  --threads N --seed N\n"
    "value    v (controller's margin, opener to move), c, fcv, tb, the optimal\n"
    "         opening (Allcock's rule, or hand out a 1-/2-chain) and the best\n"
    "         reply.  Chains are numbers, loops L+length; 1-/2-chains allowed.\n"
    "         --exact also solves the string game (theory-free, <= 42 coins).\n"
    "explain  a position's components, who has control by the long chain rule,\n"
    "         and the theorem's prediction against the exact value.\n";

/* on_claim: each row is printed and flushed the moment the checker settles
** it, so a pipe sees results while later levels run and a Ctrl-C loses
** none of them.  The progress line is cleared first so the row (stdout and
** stderr on one terminal) starts at the margin; the next progress call
** draws it again. */
static void print_settled(void *ctx, const thm_report *rep, int i) {
  cli_progress_end();
  thm_print_claim(stdout, rep, i, *(const bool *)ctx);
  fflush(stdout);
}

static int cmd_check(int argc, char **argv) {
  thm_opts o;
  thm_opts_default(&o);
  bool json = false;
  long max0 = -1, maxext = -1, max1 = -1, maxl3 = -1, strings = o.max_strings2, graphs = o.graphs2,
       lines = o.max_board_lines, cons = o.constructed3, games = o.games4, threads = 0,
       seed = (long)o.seed, pdb_strings = 9, pdb_sums = 1000;
  const char *level = NULL;
  const cli_opt table[] = {{"--json", CLI_FLAG, &json, 0},
                           {"--level", CLI_TEXT, &level, 0},
                           {"--max-boxes", CLI_COUNT, &max0, 60},
                           {"--max-boxes-ext", CLI_COUNT, &maxext, 60},
                           {"--max-boxes1", CLI_COUNT, &max1, DAB_CS_MAX_COINS},
                           {"--max-boxes-l3", CLI_COUNT, &maxl3, DAB_CS_MAX_COINS},
                           {"--max-strings", CLI_COUNT, &strings, DAB_SG_MAX_STRINGS},
                           {"--graphs", CLI_COUNT, &graphs, 1000000},
                           {"--max-lines", CLI_COUNT, &lines, DAB_RETRO_MAX_FREE},
                           {"--constructed", CLI_COUNT, &cons, 1000000},
                           {"--games", CLI_COUNT, &games, 10000000},
                           {"--threads", CLI_COUNT, &threads, 256},
                           {"--seed", CLI_COUNT, &seed, 1L << 30},
                           {"--pdb-strings", CLI_COUNT, &pdb_strings, 14},
                           {"--pdb-sums", CLI_COUNT, &pdb_sums, 10000000},
                           {NULL, 0, NULL, 0}};
  const char *args[1];
  int nargs, rc = cli_parse_args("theorems check", argc, argv, table, args, 0, &nargs, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (level) {
    if (strlen(level) != 1 || level[0] < '0' || level[0] > '5') {
      fprintf(stderr, "dab theorems check: --level needs 0, 1, 2, 3, 4 or 5, got '%s'\n", level);
      return CLI_USAGE;
    }
    o.level = level[0] - '0';
  }
  if (max0 > 0) o.max_boxes0 = (int)max0;
  o.max_boxes1 = max1 > 0 ? (int)max1 : o.max_boxes0 < o.max_boxes1 ? o.max_boxes0 : o.max_boxes1;
  o.max_boxes0_ext = maxext > 0 ? (int)maxext : o.max_boxes0 < 26 ? o.max_boxes0 : 26;
  if (maxl3 > 0) o.max_boxes1_l3 = (int)maxl3;
  o.max_strings2 = (int)strings;
  o.graphs2 = (int)graphs;
  o.max_board_lines = (int)lines;
  o.constructed3 = (int)cons;
  o.games4 = (int)games;
  o.threads = (int)threads;
  o.seed = (uint64_t)seed;
  o.pdb_strings = (int)pdb_strings;
  o.pdb_sums = (int)pdb_sums;
  if (o.max_strings2 < 4 || o.max_board_lines < 4) {
    fprintf(stderr, "dab theorems check: --max-strings and --max-lines must be at least 4\n");
    return CLI_USAGE;
  }
  if (o.level < 0 || o.level >= 3)
    cli_announce_memory("theorems", "the largest retrograde table",
                        dab_retro_bytes(o.max_board_lines >= 31 ? 31 : o.max_board_lines));
  o.progress = cli_progress;
  o.cancel = cli_cancel_on_signal();
  o.on_claim = print_settled;
  o.claim_ctx = &json;
  static thm_report rep;
  dab_err err;
  thm_print_begin(stdout, json);
  fflush(stdout);
  dab_status st = thm_check_run(&o, &rep, &err);
  cli_progress_end();
  /* A stopped run (Ctrl-C, or an error such as out of memory) still ends
  ** its table or JSON object, saying where it stopped: the rows above it
  ** are final.  An error also gets its one line on stderr. */
  thm_print_end(stdout, &rep, json);
  fflush(stdout);
  if (st == DAB_ECANCELED) return CLI_FAIL;
  if (st != DAB_OK) return cli_error("theorems", st, err.msg);
  return thm_report_ok(&rep) ? CLI_OK : CLI_FAIL;
}

static const char *comp_text(dab_sle_comp X, char *buf) {
  snprintf(buf, 16, "%s%d", X.kind == DAB_SLE_LOOP ? "L" : "", X.len);
  return buf;
}

static int cmd_value(int argc, char **argv) {
  bool json = false, exact = false;
  const cli_opt table[] = {{"--json", CLI_FLAG, &json, 0},
                           {"--exact", CLI_FLAG, &exact, 0},
                           {NULL, 0, NULL, 0}};
  const char *text;
  int nargs, rc = cli_parse_args("theorems value", argc, argv, table, &text, 1, &nargs, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (nargs == 0) {
    fprintf(stderr, "dab theorems value: an SLE is needed, e.g. 3+3+L4\n");
    return CLI_USAGE;
  }
  static dab_sle G;
  dab_err err;
  dab_status st = dab_sle_parse(text, true, &G, &err);
  if (st != DAB_OK) return cli_error("theorems", st, err.msg);
  char gtxt[2048], b1[16];
  dab_sle_format(&G, gtxt, sizeof gtxt);
  bool l3 = G.nloops && G.loop[0] == 3;
  int v = dab_sle_v(&G);
  int c = dab_sle_c(&G), fcv = dab_sle_fcv(&G), tb = dab_sle_tb(&G);
  bool empty = !G.nchains && !G.nloops;
  /* The opening: Allcock's rule on strict SLEs, the BoxesZero hand-out
  ** when there are 1-/2-chains; every optimal opening is listed too. */
  dab_sle_comp X = {0, 0};
  const char *why = "";
  int rule = 0;
  bool has_short = false;
  if (!empty) {
    X = dab_sle_bz_open(&G, &has_short);
    if (has_short) why = "BoxesZero: hand out 1-chains, then 2-chains";
    else if (dab_sle_is_strict(&G)) {
      X = dab_sle_allcock(&G, &rule);
      why = "Allcock's rule";
    } else {
      /* 3-loops: no rule; take an opening the recursion calls optimal. */
      why = "no rule covers 3-loops: best by the recursion";
      for (int kind = 0; kind < 2; kind++) {
        int n = kind ? G.nloops : G.nchains;
        const int16_t *len = kind ? G.loop : G.chain;
        for (int i = n - 1; i >= 0; i--) {
          dab_sle_comp Y = {(int8_t)kind, len[i]};
          dab_sle R;
          dab_sle_remove(&G, kind, len[i], &R);
          if (dab_sle_open_value(Y, dab_sle_v(&R)) == v) X = Y;
        }
      }
    }
  }
  int v_rest = 0;
  bool keep = false;
  if (!empty) {
    dab_sle R;
    dab_sle_remove(&G, X.kind, X.len, &R);
    v_rest = dab_sle_v(&R);
    keep = dab_sle_keep_control(X, v_rest);
  }
  const char *reply = empty ? "" : (X.kind == DAB_SLE_CHAIN && X.len < 3) ? "take it (no decline)"
                                   : keep ? (X.kind == DAB_SLE_LOOP ? "keep control: all but four"
                                                                    : "keep control: all but two")
                                          : "take all";
  int game_v = 0;
  bool have_game = false;
  if (exact) {
    dab_cs_pos p;
    if (!dab_cs_from_sle(&G, &p))
      return cli_error("theorems", DAB_EBOARD, "--exact takes at most 42 coins and 48 components");
    dab_cs *cs = dab_cs_new(0);
    if (!cs) return cli_error("theorems", DAB_ENOMEM, "out of memory");
    int w = dab_cs_normalize(&p);
    game_v = -(w + dab_cs_value(cs, &p, -v - w));
    dab_cs_free(cs);
    have_game = true;
  }
  int cf = dab_sle_is_strict(&G) ? dab_sle_closed_form(&G, NULL) : l3 ? DAB_SLE_BAD
                                                                      : dab_sle_value_closed(&G);
  if (json) {
    printf("{\"G\":\"%s\",\"v\":%d,\"c\":%d,\"fcv\":%d,\"tb\":%d,\"board_value\":%d", gtxt, v, c,
           fcv, tb, -v);
    if (!empty) {
      printf(",\"open\":\"%s\",\"open_rule\":\"%s\"", comp_text(X, b1), why);
      if (rule) printf(",\"allcock_rule\":%d", rule);
      printf(",\"open_optimal\":%s,\"v_rest\":%d,\"reply\":\"%s\",\"keep_control\":%s",
             dab_sle_open_value(X, v_rest) == v ? "true" : "false", v_rest, reply,
             keep ? "true" : "false");
      printf(",\"optimal_openings\":[");
      int k = 0;
      for (int kind = 0; kind < 2; kind++) {
        int n = kind ? G.nloops : G.nchains;
        const int16_t *len = kind ? G.loop : G.chain;
        for (int i = 0; i < n; i++) {
          if (i && len[i] == len[i - 1]) continue;
          dab_sle_comp Y = {(int8_t)kind, len[i]};
          dab_sle R;
          dab_sle_remove(&G, kind, len[i], &R);
          if (dab_sle_open_value(Y, dab_sle_v(&R)) == v) printf("%s\"%s\"", k++ ? "," : "", comp_text(Y, b1));
        }
      }
      printf("]");
    }
    if (cf != DAB_SLE_BAD) printf(",\"closed_form\":%d", cf);
    printf(",\"nimber\":%d", dab_sle_nimber(&G));
    if (have_game) printf(",\"game_v\":%d", game_v);
    if (l3) printf(",\"warning\":\"3-loops: the recursion is not the game value\"");
    printf("}\n");
    return CLI_OK;
  }
  printf("G = %s  (%d boxes, %d chains, %d loops)\n", gtxt, dab_sle_size(&G), G.nchains, G.nloops);
  printf("v   = %d   controller's net margin, opener to move (board value %+d)\n", v, -v);
  printf("c   = %d   (fcv %d + tb %d)%s\n", c, fcv, tb, c >= 2 ? "  c >= 2, so v = c (Buzzard-Ciere)" : "");
  if (cf != DAB_SLE_BAD) printf("closed form %d\n", cf);
  if (!empty) {
    printf("open  %s   (%s%s%s)\n", comp_text(X, b1), why, rule ? ", rule " : "",
           rule ? (rule == 1 ? "1" : rule == 2 ? "2" : rule == 3 ? "3" : "4") : "");
    if (dab_sle_open_value(X, v_rest) != v)
      printf("      (not optimal here: worth %d, not %d; odd loops are outside the rule)\n",
             dab_sle_open_value(X, v_rest), v);
    printf("reply %s   (v of the rest = %d)\n", reply, v_rest);
  }
  printf("nimber *%d (Nimstring: the mover %s)\n", dab_sle_nimber(&G),
         dab_sle_nimber(&G) ? "wins" : "loses");
  if (have_game) printf("string game (theory-free): v = %d%s\n", game_v, game_v == v ? "" : "  DIFFERS");
  if (l3) printf("warning: 3-loops break the recursion; use --exact for the game value\n");
  return CLI_OK;
}

static int cmd_explain(int argc, char **argv) {
  bool json = false;
  const cli_opt table[] = {{"--json", CLI_FLAG, &json, 0}, {NULL, 0, NULL, 0}};
  const char *text;
  int nargs, rc = cli_parse_args("theorems explain", argc, argv, table, &text, 1, &nargs, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (nargs == 0) {
    fprintf(stderr, "dab theorems explain: a position is needed\n");
    return CLI_USAGE;
  }
  static dab_parsed p;
  rc = cli_parse_position("theorems", text, &p);
  if (rc) return rc;
  const dab_geom *g = &p.geom;
  static dab_sc_view view;
  dab_sc_analyze(g, &p.game.lines, &view);
  static int16_t ch[DAB_MAX_BOXES], lp[DAB_MAX_BOXES];
  int nc = 0, nl = 0;
  bool sle = dab_sle_from_position(g, &p.game.lines, true, ch, &nc, lp, &nl);
  bool strict = sle;
  for (int i = 0; i < nc; i++) strict &= ch[i] >= 3;
  int dots = (g->rows + 1) * (g->cols + 1);
  /* Doublecrosses so far (only known for the @ form): replay. */
  int dx = -1;
  if (p.has_history) {
    dx = 0;
    static dab_game gm;
    dab_game_init(g, &gm);
    /* Re-parse to get the move list: the game already holds the lines,
    ** so replay the @ list from the text. */
    const char *at = strchr(text, '@');
    while (at && *at) {
      at++;
      if (*at < '0' || *at > '9') break;
      int m = atoi(at);
      if (dab_completes(g, &gm.lines, m) == 2) dx++;
      dab_game_play(g, &gm, m);
      at = strchr(at, ',');
    }
  }
  int v = sle ? dab_sle_value(ch, nc, lp, nl) : 0;
  dab_sle G;
  dab_sle_make(&G, ch, nc, lp, nl);
  char gtxt[2048];
  dab_sle_format(&G, gtxt, sizeof gtxt);
  int c = dab_sle_c(&G);
  int nfree = g->nlines - dab_ls_count(&p.game.lines);
  bool have_exact = false;
  int exact = 0;
  if (dab_geom_fast(g) && nfree <= 26) {
    dab_retro *r;
    dab_retro_opts ro = {.cancel = cli_cancel_on_signal()};
    if (dab_retro_solve(g, dab_ls_word(&p.game.lines), &ro, &r, NULL) == DAB_OK) {
      exact = dab_retro_value(r, dab_ls_word(&p.game.lines));
      have_exact = true;
      dab_retro_free(r);
    }
  }
  /* Long chain rule (from the empty board): first player controls iff
  ** Dots + #long chains (+ doublecrosses so far) is even. */
  int rule_sum = dots + nc + (dx > 0 ? dx : 0);
  const char *controller = rule_sum % 2 == 0 ? "first player (A)" : "second player (B)";
  if (json) {
    printf("{\"rows\":%d,\"cols\":%d,\"sle\":%s,\"strict\":%s", g->rows, g->cols,
           sle ? "true" : "false", strict ? "true" : "false");
    printf(",");
    cli_print_components_json(stdout, &view);
    if (sle)
      printf(",\"G\":\"%s\",\"v\":%d,\"c\":%d,\"predicted_value\":%d,\"controller\":\"%s\"", gtxt, v,
             c, -v, controller);
    if (dx >= 0) printf(",\"doublecrosses\":%d", dx);
    if (have_exact) printf(",\"value\":%d", exact);
    if (sle && have_exact) printf(",\"agrees\":%s", exact == -v ? "true" : "false");
    printf("}\n");
    return CLI_OK;
  }
  printf("components:");
  for (int i = 0; i < view.ncomp; i++) {
    const dab_sc_component *cp = &view.comp[i];
    if (cp->kind == DAB_SC_CHAIN) printf(" chain %d", cp->coins);
    else if (cp->kind == DAB_SC_LOOP) printf(" loop %d", cp->coins);
    else printf(" other(%d coins, %d junctions, %d capturable)", cp->coins, cp->junctions, cp->capturable);
  }
  printf("%s\n", view.ncomp ? "" : " none");
  if (!sle) {
    printf("not a simple loony endgame (%s): the SLE theorems do not apply\n",
           view.ncapturable ? "a box can be taken" : "a component has a junction");
  } else {
    printf("SLE G = %s%s\n", gtxt, strict ? "" : " (extended: has 1-/2-chains)");
    printf("c(G) = %d, v(G) = %d: the player to move (the opener) is predicted %+d\n", c, v, -v);
    if (strict)
      printf("long chain rule: Dots %d + %d long chains%s = %d, so the %s has control\n", dots, nc,
             dx > 0 ? " + doublecrosses so far" : "", rule_sum, controller);
    if (p.has_history) {
      bool mover_first = p.game.to_move == 0;
      printf("to move: %s, so the controller is the %s player\n", mover_first ? "A" : "B",
             mover_first ? "second (B)" : "first (A)");
    }
  }
  if (have_exact) {
    printf("exact value (retrograde): %+d", exact);
    if (sle) printf("  %s\n", exact == -v ? "= theorem's prediction" : "DIFFERS from the prediction");
    else printf("\n");
  } else if (nfree > 26) {
    printf("exact value: not computed (%d undrawn lines; explain solves up to 26)\n", nfree);
  }
  return CLI_OK;
}

int dab_cmd_theorems(int argc, char **argv) {
  if (cli_help_requested(argc, argv, usage)) return CLI_OK;
  if (argc < 2) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  if (!strcmp(argv[1], "check")) return cmd_check(argc - 1, argv + 1);
  if (!strcmp(argv[1], "value")) return cmd_value(argc - 1, argv + 1);
  if (!strcmp(argv[1], "explain")) return cmd_explain(argc - 1, argv + 1);
  fprintf(stderr, "dab theorems: unknown action '%s' (check, value or explain)\n", argv[1]);
  return CLI_USAGE;
}
