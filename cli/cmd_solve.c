/*
** cmd_solve.c: `dab solve POS` prints the value of POS, of every move, and
** the optimal moves: from the oracle when it covers the board, otherwise
** by alpha-beta search (or retrograde with --retro).
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sysmem.h"
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "cli/solveproof.h"
#include "cli/solvestore.h"
#include "oracle/oracle.h"
#include "solver/ab.h"
#include "solver/retro.h"

static const char usage[] =
    "usage: dab solve POS [options]      dab solve - [options]  (one POS per stdin line)\n\n"
    "Prints the value of POS (net boxes the player to move gains from here under\n"
    "optimal play), the value of every legal move, and the optimal moves.\n"
    "Boards the oracle covers (small ones) are answered from it; otherwise POS is\n"
    "solved by alpha-beta search, which also prints a principal variation, nodes,\n"
    "time and table use.  With '-', every stdin line is solved and answered with\n"
    "one JSON object per line (a bad line gets {\"line\":N,\"error\":...}, exit 2).\n"
    "  --json         {\"rows\",\"cols\",\"value\",\"moves\":[{\"move\",\"value\"}],\"best\":[...]}\n"
    "                 a search adds \"source\",\"pv\",\"nodes\",\"seconds\",\"tt\"\n"
    "  --value-only   prove the value of POS only (skip the value of every move)\n"
    "  --search       search even when the oracle covers the board\n"
    "  --retro        solve every position below POS by retrograde (<= 32 undrawn lines)\n"
    "  --hash SIZE    transposition table size, e.g. 512M, 4G (default: by board,\n"
    "                 512M at 36 lines doubling every two, at most 8G or half the memory)\n"
    "  --threads N    search / build threads (default: all cores)\n"
    "  --no-border    do not use the border-line equivalence\n"
    "  --no-decline   try every move when a capture hands over a box\n"
    "  --no-sle       search simple loony endgames instead of using the formula\n"
    "  --proof DIR    a divisible proof recorded in DIR (dab solve --proof DIR --help)\n"
    "  --no-graph     key the table by board symmetry only, not Strings-and-Coins graphs\n"
    "  --tb DIR       tablebase directory searched first (and where results go)\n"
    "  --no-store     never write results to the board's tablebase file\n"
    "  --node-limit N stop the search after N nodes (as Ctrl-C does)\n"
    "  --wdl          also the best win/draw/loss result and the moves that keep it,\n"
    "                 given the score so far (from the RxC@moves history, else 0)\n"
    "  --score D      the score so far for --wdl: mover's boxes minus the opponent's\n"
    "Boards without a table keep what a search proves in RxC.dab on the tablebase\n"
    "path (its solved store): a repeated query is answered from it at once, and a\n"
    "rerun after Ctrl-C or a kill resumes from the bounds proved so far.\n"
    "A progress line (nodes/s, current bounds) is shown on a terminal.  Ctrl-C\n"
    "stops a search and prints the bounds proved so far (exit 1).\n";

typedef struct solve_cfg {
  bool json, value_only, force_search, force_retro;
  int threads;
  uint64_t hash;
  bool border, decline, sle, graph;
  const char *tb_dir;
  bool no_store;
  uint64_t node_limit;
  bool wdl, has_score;      /* --wdl / --score D: win/draw/loss and the moves keeping it */
  int score;
} solve_cfg;

/* The table when --hash is not given: 512 MiB at 36 lines, doubling every
** two lines, at least 16 MiB, at most 8 GiB or half the available memory.
** Measured (22 Nov 2026, docs/solver.md): a search stores one entry
** per ~17 nodes (16 bytes each), so 2x7 (36 lines) fills ~90 MB, 3x5 (38)
** ~550 MB, 4x4 (40) ~600 MB; 3x5 in 1 GiB and 4x4 in 2 GiB were as fast
** as with 4 and 8 GiB, and setting up and releasing 8 GiB cost 5-7 s. */
static uint64_t default_hash(const dab_geom *g) {
  int half_steps = (g->nlines - 36) / 2; /* rounds toward zero: fine below 36 */
  uint64_t bytes = half_steps >= 4 ? 8ull << 30
                   : half_steps >= 0 ? (512ull << 20) << half_steps
                   : half_steps <= -5 ? 16ull << 20
                   : (512ull << 20) >> -half_steps;
  uint64_t avail = dab_mem_available();
  if (avail && bytes > avail / 2) bytes = avail / 2;
  return bytes < (16ull << 20) ? 16ull << 20 : bytes;
}

/* One solver and one oracle per board, reused across stdin lines (keeps
** the table warm, builds the oracle once). */
static dab_ab *solver;
static dab_oracle *oracle;

static dab_ab *get_solver(const dab_geom *g, const solve_cfg *c, dab_err *err, dab_status *st) {
  if (solver) {
    const dab_geom *sg = dab_ab_geom(solver);
    if (sg->rows == g->rows && sg->cols == g->cols) return solver;
    dab_ab_free(solver);
    solver = NULL;
  }
  dab_ab_opts o;
  dab_ab_default_opts(&o);
  o.hash_bytes = c->hash ? c->hash : default_hash(g);
  o.threads = c->threads ? c->threads : cli_cores();
  o.border_equiv = c->border;
  o.decline_rule = c->decline;
  if (!c->sle) o.sle = false;
  o.cancel = cli_cancel_on_signal();
  o.node_limit = c->node_limit;
  o.on_bound = solvestore_on_bound; /* stores root bounds as they are proved */
  o.progress = solvestore_progress; /* the progress line, and checkpoints */
  o.progress_ctx = c->json ? NULL : (void *)1;
  if (!c->graph) o.graph_keys = false;
  if (!c->json) cli_announce_memory("solve", "the search (table and key caches)", dab_ab_memory(&o));
  solver = dab_ab_new(g, &o, st, err);
  return solver;
}

/* An empty board whose divisible proof is kept in data/proofs/ (under the
** current directory, as the README's commands run; docs/proofs.md) is better
** resumed there than searched whole: say so once, before a search that may
** take hours. */
static void mention_proof(const dab_geom *g, uint64_t root) {
  static bool said;
  if (said || root) return;
  char dir[64], spec[80];
  snprintf(dir, sizeof dir, "data/proofs/%dx%d", g->rows, g->cols);
  snprintf(spec, sizeof spec, "%s/proof.txt", dir);
  if (access(spec, R_OK) != 0) return;
  said = true;
  fprintf(stderr,
          "dab solve: %s holds a divisible proof of this board (docs/proofs.md): `dab solve %dx%d --proof %s`\n"
          "  resumes it and `... --verify` shows its state; this command searches the whole board at once\n",
          dir, g->rows, g->cols, dir);
}

/* Solves one parsed position into a and the extra JSON / text lines.
** RETURN: status; on DAB_ECANCELED `extra` holds the bounds message. */
static dab_status solve_one(const dab_parsed *p, const solve_cfg *c, dab_analysis *a, char *extra,
                            size_t extra_len, char *text_extra, size_t text_len, dab_err *err) {
  const dab_geom *g = &p->geom;
  extra[0] = text_extra[0] = 0;
  dab_status st = DAB_EBOARD;
  if (!c->force_search && !c->force_retro) {
    if (oracle) {
      const dab_geom *og = dab_oracle_geom(oracle);
      if (og->rows != g->rows || og->cols != g->cols) {
        dab_oracle_close(oracle);
        oracle = NULL;
      }
    }
    st = DAB_OK;
    if (!oracle) {
      dab_oracle_opts oo = {.tb_dir = c->tb_dir, .threads = c->threads};
      st = dab_oracle_open(g->rows, g->cols, &oo, &oracle, err);
    }
    if (st == DAB_OK) /* the oracle's answer keeps exactly the stable keys */
      return dab_oracle_analyze(oracle, &p->game.lines, a, err);
    oracle = NULL;
    if (st != DAB_EBOARD) return st;
  }
  if (!dab_geom_fast(g))
    return dab_fail(err, DAB_EBOARD, "boards over 64 lines cannot be solved exactly (%dx%d has %d)",
                    g->rows, g->cols, g->nlines);
  uint64_t root = dab_ls_word(&p->game.lines);
  if (c->force_retro) {
    dab_retro_opts ro = {.threads = c->threads, .progress = c->json ? NULL : cli_progress,
                         .cancel = cli_cancel_on_signal()};
    cli_announce_memory("solve", "the retrograde table",
                        dab_retro_bytes(__builtin_popcountll(g->all_lines & ~root)));
    dab_retro *r;
    st = dab_retro_solve(g, root, &ro, &r, err);
    cli_progress_end();
    if (st == DAB_OK) {
      st = dab_retro_analyze(r, root, a, err);
      dab_retro_free(r);
    }
    return st;
  }
  if (!c->force_search || !solvestore_board_covered(g, c->tb_dir)) {
    solvestore_select(g, c->tb_dir, c->no_store);
    if (solvestore_answer(root, c->value_only, a, extra, extra_len, text_extra, text_len)) return DAB_OK;
  } else {
    solvestore_close();
  }
  dab_ab *ab = get_solver(g, c, err, &st);
  if (!ab) return st;
  if (!c->json) mention_proof(g, root);
  dab_ab_reset_stats(ab);
  solvestore_seed(ab);
  int v = 0, lo = 0, hi = 0;
  st = solvestore_solve(ab, root, &v, &lo, &hi, err);
  if (st == DAB_ECANCELED) {
    cli_progress_end();
    return dab_fail(err, st, "interrupted: the value of this position is proved to lie in [%+d,%+d]", lo, hi);
  }
  if (st) return st;
  if (c->value_only) {
    memset(a, 0, sizeof *a);
    a->value = v;
    a->nmoves = 0;
  } else {
    st = solvestore_analyze(ab, root, v, a, err);
    if (st == DAB_ECANCELED) {
      cli_progress_end();
      return dab_fail(err, st, "interrupted after proving the value %+d (move values unfinished)", v);
    }
    if (st) return st;
    if (a->value != v) return dab_fail(err, DAB_EINTERNAL, "move values disagree with the value: solver bug");
  }
  int16_t pv[64];
  int npv = dab_ab_pv(ab, root, pv, 64);
  cli_progress_end();
  dab_ab_stats s;
  dab_ab_get_stats(ab, &s);
  const dab_tt *tt = dab_ab_tt(ab);
  uint64_t used = dab_tt_used(tt), cap = dab_tt_capacity(tt);
  size_t n = (size_t)snprintf(extra, extra_len, "\"source\":\"search\",\"pv\":[");
  for (int i = 0; i < npv && n < extra_len; i++) n += (size_t)snprintf(extra + n, extra_len - n, "%s%d", i ? "," : "", pv[i]);
  if (n < extra_len)
    snprintf(extra + n, extra_len - n,
             "],\"nodes\":%llu,\"seconds\":%.3f,\"tt\":{\"capacity\":%llu,\"used\":%llu,\"probes\":%llu,\"hits\":%llu}",
             (unsigned long long)s.nodes, s.seconds, (unsigned long long)cap, (unsigned long long)used,
             (unsigned long long)s.tt_probes, (unsigned long long)s.tt_hits);
  n = (size_t)snprintf(text_extra, text_len, "pv   ");
  for (int i = 0; i < npv && n < text_len; i++) n += (size_t)snprintf(text_extra + n, text_len - n, " %d", pv[i]);
  if (n < text_len)
    snprintf(text_extra + n, text_len - n,
             "\nsearch: %llu nodes in %.2f s (%.2f M nodes/s), table %.0f%% of %llu entries used, %.0f%% probe hits\n",
             (unsigned long long)s.nodes, s.seconds, s.seconds > 0 ? (double)s.nodes / s.seconds / 1e6 : 0.0,
             cap ? 100.0 * (double)used / (double)cap : 0.0, (unsigned long long)cap,
             s.tt_probes ? 100.0 * (double)s.tt_hits / (double)s.tt_probes : 0.0);
  solvestore_finish(ab, root, a, c->value_only, v, pv, npv, extra, extra_len, text_extra, text_len);
  return DAB_OK;
}

/* The score difference --wdl judges by: --score, else the @ history's. */
static int score_so_far(const dab_parsed *p, const solve_cfg *c) {
  if (c->has_score || !p->has_history) return c->score;
  int me = p->game.to_move;
  return p->game.score[me] - p->game.score[1 - me];
}

/* Appends the win/draw/loss keys to extra (JSON) and a line to text. */
static void add_wdl(const dab_parsed *p, const dab_analysis *a, const solve_cfg *c, char *extra,
                    size_t extra_len, char *text, size_t text_len) {
  static dab_wdl w;
  int diff = score_so_far(p, c);
  dab_analysis_wdl(a, diff, &w);
  size_t n = strlen(extra), t = strlen(text);
  n += (size_t)snprintf(extra + n, n < extra_len ? extra_len - n : 0, "%s\"score_diff\":%d,\"result\":\"%s\"",
                        n ? "," : "", diff, dab_result_name(w.result));
  t += (size_t)snprintf(text + t, t < text_len ? text_len - t : 0, "result %s  (score so far %+d)", dab_result_name(w.result),
                        diff);
  if (c->value_only) {
    if (t < text_len) snprintf(text + t, text_len - t, "\n");
    return;
  }
  n += (size_t)snprintf(extra + n, n < extra_len ? extra_len - n : 0, ",\"keep\":[");
  t += (size_t)snprintf(text + t, t < text_len ? text_len - t : 0, "\nkeep ");
  for (int i = 0; i < w.nkeep; i++) {
    n += (size_t)snprintf(extra + n, n < extra_len ? extra_len - n : 0, "%s%d", i ? "," : "", w.keep[i]);
    t += (size_t)snprintf(text + t, t < text_len ? text_len - t : 0, " %d", w.keep[i]);
  }
  if (n < extra_len) snprintf(extra + n, extra_len - n, "]");
  if (t < text_len) snprintf(text + t, text_len - t, "\n");
}

static void print_result(const dab_parsed *p, const dab_analysis *a, const solve_cfg *c, char *extra,
                         size_t extra_len, char *text_extra, size_t text_len) {
  if (c->wdl) add_wdl(p, a, c, extra, extra_len, text_extra, text_len);
  if (c->json) {
    cli_print_analysis(stdout, &p->geom, a, true, extra);
  } else {
    if (c->value_only) printf("value %+d  (net boxes the player to move gains from here)\n", a->value);
    else cli_print_analysis(stdout, &p->geom, a, false, NULL);
    fputs(text_extra, stdout);
  }
  fflush(stdout);
}

static int solve_stdin(solve_cfg *c) {
  c->json = true;
  static char line[8192], extra[4096], text_extra[4096];
  static dab_parsed p;
  static dab_analysis a;
  int rc = CLI_OK;
  long lineno = 0;
  while (fgets(line, sizeof line, stdin)) {
    lineno++;
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    if (!len) continue;
    dab_err err;
    dab_status st = dab_parse_position(line, &p, &err);
    if (!st) st = solve_one(&p, c, &a, extra, sizeof extra, text_extra, sizeof text_extra, &err);
    if (st) {
      fprintf(stderr, "dab solve: line %ld: %s\n", lineno, err.msg);
      printf("{\"line\":%ld,\"error\":\"", lineno);
      for (const char *s = err.msg; *s; s++) {
        if (*s == '"' || *s == '\\') putchar('\\');
        putchar(*s);
      }
      printf("\"}\n");
      fflush(stdout);
      int e = cli_exit_code(st);
      if (e > rc) rc = e;
      if (st == DAB_ECANCELED) break;
      continue;
    }
    print_result(&p, &a, c, extra, sizeof extra, text_extra, sizeof text_extra);
  }
  return rc;
}

int dab_cmd_solve(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--proof")) return dab_solve_proof(argc, argv); /* docs/proofs.md */
  if (cli_help_requested(argc, argv, usage)) return CLI_OK;
  const char *text = NULL;
  solve_cfg c = {.hash = 0, .border = true, .decline = true, .sle = true, .graph = true};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--json")) c.json = true;
    else if (!strcmp(a, "--value-only")) c.value_only = true;
    else if (!strcmp(a, "--search")) c.force_search = true;
    else if (!strcmp(a, "--retro")) c.force_retro = true;
    else if (!strcmp(a, "--no-border")) c.border = false;
    else if (!strcmp(a, "--no-decline")) c.decline = false;
    else if (!strcmp(a, "--no-sle")) c.sle = false;
    else if (!strcmp(a, "--no-graph")) c.graph = false;
    else if (!strcmp(a, "--no-store")) c.no_store = true;
    else if (!strcmp(a, "--wdl")) c.wdl = true;
    else if (!strcmp(a, "--score")) {
      const char *s = i + 1 < argc ? argv[++i] : NULL;
      char *end = NULL;
      long d = s && *s ? strtol(s, &end, 10) : 0;
      if (!s || !*s || *end || d < -DAB_MAX_BOXES || d > DAB_MAX_BOXES) {
        fprintf(stderr, "dab solve: --score needs the mover's boxes minus the opponent's so far, got '%s'\n",
                s ? s : "");
        return CLI_USAGE;
      }
      c.score = (int)d;
      c.has_score = c.wdl = true;
    }
    else if (!strcmp(a, "--tb")) {
      c.tb_dir = i + 1 < argc ? argv[++i] : NULL;
      if (!c.tb_dir || !*c.tb_dir) {
        fprintf(stderr, "dab solve: --tb needs a directory\n");
        return CLI_USAGE;
      }
    } else if (!strcmp(a, "--node-limit")) {
      const char *s = i + 1 < argc ? argv[++i] : NULL;
      char *end = NULL;
      unsigned long long n = s && *s >= '0' && *s <= '9' ? strtoull(s, &end, 10) : 0;
      if (!n || *end) {
        fprintf(stderr, "dab solve: --node-limit needs a positive count, got '%s'\n", s ? s : "");
        return CLI_USAGE;
      }
      c.node_limit = n;
    }
    else if (!strcmp(a, "--threads")) {
      long n = cli_parse_count("solve", "--threads", i + 1 < argc ? argv[++i] : NULL, 64);
      if (n < 0) return CLI_USAGE;
      c.threads = (int)n;
    } else if (!strcmp(a, "--hash")) {
      const char *s = i + 1 < argc ? argv[++i] : NULL;
      c.hash = cli_parse_size(s);
      if (!c.hash) {
        fprintf(stderr, "dab solve: --hash needs a size such as 512M or 4G, got '%s'\n", s ? s : "");
        return CLI_USAGE;
      }
    } else if (!strcmp(a, "-") && !text) text = a;
    else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "dab solve: unknown option '%s' (dab solve --help)\n", a);
      return CLI_USAGE;
    } else if (text) {
      fprintf(stderr, "dab solve: one position expected, got a second: '%s'\n", a);
      return CLI_USAGE;
    } else text = a;
  }
  if (!text) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  if (c.force_retro && c.force_search) {
    fprintf(stderr, "dab solve: --retro and --search exclude each other\n");
    return CLI_USAGE;
  }
  int rc;
  if (!strcmp(text, "-")) {
    rc = solve_stdin(&c);
  } else {
    static dab_parsed p;
    rc = cli_parse_position("solve", text, &p);
    if (rc) return rc;
    static dab_analysis a;
    static char extra[4096], text_extra[4096];
    dab_err err;
    dab_status st = solve_one(&p, &c, &a, extra, sizeof extra, text_extra, sizeof text_extra, &err);
    if (st) rc = cli_error("solve", st, err.msg);
    else print_result(&p, &a, &c, extra, sizeof extra, text_extra, sizeof text_extra);
  }
  dab_ab_free(solver);
  solver = NULL;
  solvestore_close();
  if (oracle) dab_oracle_close(oracle);
  oracle = NULL;
  return rc;
}
