/*
** cmd_solve.c: `dab solve POS` prints the value of POS, of every move, and
** the optimal moves, as the oracle gives them (a table, the solved store,
** or search; a retrograde below POS with --retro), and the plan first.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "cli/solveproof.h"
#include "game/sysmem.h"
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
    "one JSON object per line (a bad line gets {\"line\":N,\"input\":...,\"error\":...}, exit 2).\n"
    "  --json         {\"rows\",\"cols\",\"value\",\"moves\":[{\"move\",\"value\"}],\"best\":[...]}\n"
    "                 a search adds \"source\",\"pv\",\"nodes\",\"seconds\",\"tt\"\n"
    "  --value-only   prove the value of POS only (skip the value of every move)\n"
    "  --search       search even when the oracle covers the board\n"
    "  --retro        solve every position below POS by retrograde (<= 32 undrawn lines)\n"
    "  --hash SIZE    transposition table size, e.g. 512M, 4G (default: by the query,\n"
    "                 512M at 36 free lines doubling every two, at most 8G or half the\n"
    "                 memory, and 16 bytes a node under --node-limit)\n"
    "  --threads N    search / build threads (default: all cores)\n"
    "  --plan         say what the query would do and cost (memory, a range of CPU\n"
    "                 time), and solve nothing; --json for a JSON object\n"
    "  --mem-limit SIZE  refuse a table above SIZE, e.g. 8G (default: the memory\n"
    "                 available); the search's table is sized to fit it\n"
    "  --no-border    do not use the border-line equivalence\n"
    "  --no-decline   try every move when a capture hands over a box\n"
    "  --no-sle       search simple loony endgames instead of using the formula\n"
    "  --proof DIR    a divisible proof recorded in DIR (dab solve --proof DIR --help)\n"
    "  --no-graph     key the table by board symmetry only, not Strings-and-Coins graphs\n"
    "  --pdb          search with the pattern database where it holds every component\n"
    "                 (components.dabpdb, `dab pdb build`; docs/pdb.md: exact, measured\n"
    "                 no faster); --no-pdb (the default) without\n"
    "  --tb DIR       tablebase directory searched first (and where results go)\n"
    "  --no-store     never write results to the board's tablebase file\n"
    "  --node-limit N stop the search after about N nodes (as Ctrl-C does)\n"
    "  --wdl          also the best win/draw/loss result and the moves that keep it,\n"
    "                 given the score so far (from the RxC@moves history, else 0)\n"
    "  --score D      the score so far for --wdl: mover's boxes minus the opponent's\n"
    "Boards without a table keep what a search proves in RxC.dab on the tablebase\n"
    "path (its solved store): a repeated query is answered from it at once, and a\n"
    "rerun after Ctrl-C or a kill resumes from the bounds proved so far.\n"
    "A search first says its plan (memory, expected time, where results go).\n"
    "A progress line (nodes/s, current bounds) is shown on a terminal.  Ctrl-C\n"
    "stops a search and prints the bounds proved so far (exit 1); with --json, also\n"
    "{\"rows\",\"cols\",\"exact\":false,\"lower\",\"upper\"[,\"value\"],\"source\",\"nodes\",\"seconds\"}.\n";

typedef struct solve_cfg {
  bool json, value_only, force_search, force_retro;
  int threads;
  uint64_t hash;
  bool border, decline, sle, graph;
  const char *tb_dir;
  bool no_store;
  uint64_t node_limit;
  bool wdl, has_score;      /* --wdl / --score D: win/draw/loss and the moves keeping it */
  bool pdb;                 /* --pdb: search with the pattern database */
  int score;
  bool plan;                /* --plan: say what the query would cost, and stop */
  uint64_t mem_limit;       /* --mem-limit: refuse tables above it; 0 = MemAvailable */
} solve_cfg;

/* The oracle's warnings (a store that cannot be written, ...). */
static void print_warning(void *ctx, const char *msg) {
  (void)ctx;
  cli_progress_end();
  fprintf(stderr, "warning: %s\n", msg);
}

/* Opens the oracle that answers for the board of g: every source in turn,
** search with the board's solved store last (--search: search only,
** --retro: a retrograde table below each position). */
static dab_status open_oracle(const dab_geom *g, const solve_cfg *c, dab_oracle **out, dab_err *err) {
  dab_ab_opts ao;
  dab_ab_default_opts(&ao);
  ao.tune.border_equiv = c->border;
  ao.tune.decline_rule = c->decline;
  if (!c->sle) ao.tune.sle = false;
  if (!c->graph) ao.tune.graph_keys = false;
  const char *every = getenv("DAB_CHECKPOINT_SECONDS"); /* tests: a fixed checkpoint period */
  dab_oracle_opts oo = {.tb_dir = c->tb_dir,
                        .threads = c->threads ? c->threads : cli_cores(),
                        .search = !c->force_retro,
                        .search_hash = c->hash,
                        .search_node_limit = c->node_limit,
                        .only = c->force_retro ? DAB_ORACLE_ONLY_RETRO
                                : c->force_search ? DAB_ORACLE_ONLY_SEARCH
                                                  : DAB_ORACLE_ANY,
                        .store = c->no_store ? DAB_ORACLE_STORE_READ : DAB_ORACLE_STORE_WRITE,
                        .checkpoint_seconds = every && atof(every) > 0 ? atof(every) : 0,
                        .search_opts = &ao,
                        .progress = c->json ? NULL : cli_progress,
                        .warn = print_warning,
                        .cancel = cli_cancel_on_signal(),
                        .pdb = c->pdb ? DAB_ORACLE_PDB_ON : DAB_ORACLE_PDB_OFF,
                        .mem_limit = c->mem_limit,
                        /* --plan writes nothing: no table built on first use, no store */
                        .read_only = c->plan};
  return dab_oracle_open(g->rows, g->cols, &oo, out, err);
}

/* One oracle per board, reused across stdin lines (keeps the search
** table warm, builds a table once). */
static dab_oracle *oracle;

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

/* "3.2 min", "5 days", "2e+05 years": a duration at the scale it lives on. */
static void format_duration(double s, char *buf, size_t len) {
  static const struct { double secs; const char *unit; } u[] = {
      {365.25 * 86400, "years"}, {86400, "days"}, {3600, "h"}, {60, "min"}, {1, "s"}};
  for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
    if (s >= u[i].secs || i + 1 == sizeof u / sizeof u[0]) {
      double v = s / u[i].secs;
      snprintf(buf, len, v >= 1e4 ? "%.0e %s" : v >= 10 ? "%.0f %s" : "%.1f %s", v, u[i].unit);
      return;
    }
}

/* What a query will cost: CPU seconds lo..hi (a range: oracle.h,
** solver/retro.h), the same on the given threads' free cores, and whether
** its new memory fits the limit. */
typedef struct cost {
  double lo, hi, wall_lo, wall_hi;
  uint64_t limit;
  bool fits;
} cost;

static cost plan_cost(const dab_oracle_plan *plan, const solve_cfg *c) {
  cost k = {0, 0, 0, 0, 0, true};
  double threads = c->threads ? c->threads : cli_cores();
  const char *source = plan->source ? plan->source : "";
  if (!strcmp(source, "retro")) {
    k.lo = plan->expected_seconds * DAB_RETRO_PLAN_LOW;
    k.hi = plan->expected_seconds * DAB_RETRO_PLAN_HIGH;
    k.wall_lo = k.lo / threads, k.wall_hi = k.hi / threads; /* the sweep divides evenly */
  } else if (!strcmp(source, "search")) {
    double moves = c->value_only ? 1 : DAB_ORACLE_PLAN_MOVES;
    k.lo = plan->expected_seconds * DAB_ORACLE_PLAN_LOW * moves;
    k.hi = plan->expected_seconds * DAB_ORACLE_PLAN_HIGH * moves;
    double speedup = threads > 1 ? DAB_ORACLE_PLAN_SMP * threads : 1; /* lazy SMP (oracle.h) */
    k.wall_lo = k.lo / speedup, k.wall_hi = k.hi / speedup;
  }
  k.limit = c->mem_limit ? c->mem_limit : dab_mem_available();
  k.fits = !k.limit || plan->new_bytes <= k.limit;
  return k;
}

/* "12 to 47 s": a range of durations. */
static void format_range(double lo, double hi, char *buf, size_t len) {
  char a[24], b[24];
  format_duration(lo, a, sizeof a);
  format_duration(hi, b, sizeof b);
  snprintf(buf, len, "%s to %s", a, b);
}

/* --plan: what the query would do, printed instead of doing it.
** RETURN: the exit code (1 when its memory does not fit). */
static int print_plan_only(const dab_parsed *p, const solve_cfg *c) {
  dab_oracle_plan plan;
  dab_err err;
  dab_status st = dab_oracle_plan_query(oracle, &p->game.lines, &plan, &err);
  if (st) return cli_error("solve", st, err.msg);
  const char *source = plan.source ? plan.source : "none";
  cost k = plan_cost(&plan, c);
  int threads = c->threads ? c->threads : cli_cores();
  if (c->json) {
    printf("{\"rows\":%d,\"cols\":%d,\"source\":\"%s\",\"free_lines\":%d,\"memory_bytes\":%llu,"
           "\"table_bytes\":%llu,\"value_only\":%s,\"cpu_seconds\":[%.3g,%.3g],\"threads\":%d,"
           "\"wall_seconds\":[%.3g,%.3g],\"mem_limit\":%llu,\"fits\":%s}\n",
           p->geom.rows, p->geom.cols, source, plan.free_lines, (unsigned long long)plan.new_bytes,
           (unsigned long long)plan.table_bytes, c->value_only ? "true" : "false", k.lo, k.hi, threads,
           k.wall_lo, k.wall_hi, (unsigned long long)k.limit, k.fits ? "true" : "false");
    return k.fits ? CLI_OK : CLI_FAIL;
  }
  static const struct { const char *source, *what; } said[] = {
      {"tablebase", "answered from the board's tablebase file"},
      {"memory", "answered from the board's table, solved in memory"},
      {"stored", "answered from what an earlier search stored"},
      {"retro", "solved by retrograde analysis below the position"},
      {"search", "solved by exact alpha-beta search"},
      {"none", "not covered by any source"}};
  const char *what = "";
  for (size_t i = 0; i < sizeof said / sizeof said[0]; i++)
    if (!strcmp(said[i].source, source)) what = said[i].what;
  printf("plan: dab solve %dx%d from %d free lines: %s\n", p->geom.rows, p->geom.cols, plan.free_lines, what);
  char range[64];
  if (plan.table_bytes)
    printf("memory: %.0f MiB (table %.0f MiB and key cache)", (double)plan.new_bytes / 1048576.0,
           (double)plan.table_bytes / 1048576.0);
  else
    printf("memory: %.0f MiB%s", (double)plan.new_bytes / 1048576.0,
           !strcmp(source, "retro") ? " (one byte a position below it)" : "");
  printf("; limit %.2f GiB: %s\n", (double)k.limit / 1073741824.0, k.fits ? "fits" : "DOES NOT FIT: refused");
  if (k.hi > 0) {
    format_range(k.lo, k.hi, range, sizeof range);
    printf("time: %s of CPU time%s", range,
           strcmp(source, "search") ? "" : c->value_only ? " for the value" : " for every move's value");
    format_range(k.wall_lo, k.wall_hi, range, sizeof range);
    printf("; %s on %d free core%s (measured on an AMD EPYC; longer when other jobs share them)\n", range,
           threads, threads > 1 ? "s" : "");
  } else
    printf("time: well under a second\n");
  return k.fits ? CLI_OK : CLI_FAIL;
}

/* Says what a query will cost before it starts: the memory of a table
** built for it and the expected time, a range; for a search also where
** the results go; a search the machine cannot be expected to finish says
** so. */
static void print_plan(const dab_parsed *p, const solve_cfg *c) {
  dab_oracle_plan plan;
  if (dab_oracle_plan_query(oracle, &p->game.lines, &plan, NULL) || !plan.source) return;
  cost k = plan_cost(&plan, c);
  char range[64], wall[64];
  format_range(k.lo, k.hi, range, sizeof range);
  format_range(k.wall_lo, k.wall_hi, wall, sizeof wall);
  int threads = c->threads ? c->threads : cli_cores();
  if (!strcmp(plan.source, "retro")) {
    if (plan.new_bytes >= 64ull << 20)
      cli_note("the retrograde table needs %.0f MiB of memory; expected %s of CPU time, %s on %d free core%s",
               (double)plan.new_bytes / 1048576.0, range, wall, threads, threads > 1 ? "s" : "");
    return;
  }
  if (strcmp(plan.source, "search")) return;
  const dab_geom *g = &p->geom;
  bool long_one = k.wall_hi >= 20;   /* worth the plan's detail */
  if (c->json && k.wall_lo < 600) return;
  if (!long_one) {
    cli_announce_memory("solve", "the search (table and key caches)", plan.new_bytes);
    return;
  }
  char mem[48];
  if (plan.new_bytes) snprintf(mem, sizeof mem, "%.0f MiB", (double)plan.new_bytes / 1048576.0);
  else snprintf(mem, sizeof mem, "the table held");
  cli_note("plan: exact search of %dx%d from %d free lines, %s (table %.0f MiB and key cache)", g->rows, g->cols,
           plan.free_lines, mem, (double)plan.table_bytes / 1048576.0);
  cli_note("expected: %s of CPU time for %s, %s on %d free core%s (longer when other jobs share them)", range,
           c->value_only ? "the value" : "every move's value", wall, threads, threads > 1 ? "s" : "");
  if (plan.store_write && plan.store_min_seconds > 0)
    cli_note("results are kept in the cache once the search has run %g s (DAB_CACHE_MIN_SECONDS): Ctrl-C "
             "stops, a rerun resumes", plan.store_min_seconds);
  else if (plan.store_write)
    cli_note("results are kept in %s as they are proved: Ctrl-C stops, a rerun resumes",
             plan.store[0] ? plan.store : "the board's tablebase file (created on the tablebase path)");
  if (k.wall_lo >= 30 * 86400.0 && !c->node_limit)
    cli_note("this search will not finish on this machine; --node-limit N bounds it, and a divisible proof "
             "(dab solve --proof) splits it over machines");
}

/* Appends the JSON string s (escaped) to out. */
static size_t json_str(char *out, size_t len, const char *s) {
  size_t n = 0;
  if (n < len) out[n++] = '"';
  for (; *s && n + 3 < len; s++) {
    if (*s == '"' || *s == '\\') out[n++] = '\\';
    out[n++] = (char)((unsigned char)*s < 32 ? '?' : *s);
  }
  if (n < len) out[n++] = '"';
  if (n < len) out[n] = 0;
  else if (len) out[len - 1] = 0;
  return n;
}

/* The JSON / text extras of a stored or searched answer. */
static void format_extras(const dab_oracle_info *in, const solve_cfg *c, char *extra, size_t extra_len,
                          char *text, size_t text_len) {
  bool stored = !strcmp(in->source, "stored");
  size_t n = (size_t)snprintf(extra, extra_len, "\"source\":\"%s\",\"pv\":[", in->source);
  for (int i = 0; i < in->npv && n < extra_len; i++)
    n += (size_t)snprintf(extra + n, extra_len - n, "%s%d", i ? "," : "", in->pv[i]);
  size_t t = (size_t)snprintf(text, text_len, "pv   ");
  for (int i = 0; i < in->npv && t < text_len; i++) t += (size_t)snprintf(text + t, text_len - t, " %d", in->pv[i]);
  if (stored) {
    if (n < extra_len) n += (size_t)snprintf(extra + n, extra_len - n, "],\"nodes\":0,\"seconds\":%.6f,\"store\":", in->seconds);
    if (n < extra_len) json_str(extra + n, extra_len - n, in->store);
    if (t < text_len)
      snprintf(text + t, text_len - t, "\nstored: answered from %.2000s in %.3f ms (no search)\n", in->store,
               in->seconds * 1e3);
    return;
  }
  if (n < extra_len)
    n += (size_t)snprintf(extra + n, extra_len - n,
             "],\"nodes\":%llu,\"seconds\":%.3f,\"tt\":{\"capacity\":%llu,\"used\":%llu,\"probes\":%llu,\"hits\":%llu}",
             (unsigned long long)in->nodes, in->seconds, (unsigned long long)in->tt_capacity,
             (unsigned long long)in->tt_used, (unsigned long long)in->tt_probes, (unsigned long long)in->tt_hits);
  if (t < text_len)
    t += (size_t)snprintf(text + t, text_len - t,
             "\nsearch: %llu nodes in %.2f s (%.2f M nodes/s), table %.0f%% of %llu entries used, %.0f%% probe hits\n",
             (unsigned long long)in->nodes, in->seconds, in->seconds > 0 ? (double)in->nodes / in->seconds / 1e6 : 0.0,
             in->tt_capacity ? 100.0 * (double)in->tt_used / (double)in->tt_capacity : 0.0,
             (unsigned long long)in->tt_capacity,
             in->tt_probes ? 100.0 * (double)in->tt_hits / (double)in->tt_probes : 0.0);
  if (!in->store_serves) return; /* a board a table covers keeps no store */
  if (n + 12 < extra_len) {
    n += (size_t)snprintf(extra + n, extra_len - n, ",\"store\":");
    if (in->store_writable) json_str(extra + n, extra_len - n, in->store);
    else snprintf(extra + n, extra_len - n, "null");
  }
  if (t >= text_len) return;
  if (in->store_writable)
    snprintf(text + t, text_len - t, "stored: %llu records in %.2000s (%llu written by this run, %.1f ms)\n",
             (unsigned long long)in->store_records, in->store, (unsigned long long)in->store_written,
             in->store_seconds * 1e3);
  else if (in->store_dropped && !c->no_store)
    snprintf(text + t, text_len - t, "stored: nothing (a search under %g s: the cache keeps longer ones, "
             "DAB_CACHE_MIN_SECONDS)\n", in->store_min_seconds);
  else
    snprintf(text + t, text_len - t, "stored: nothing (%s)\n",
             c->no_store ? "--no-store" : in->store_open ? "the store is read-only here" : "no store");
}

/* The last query's details; stopped: it was a search stopped (Ctrl-C or
** --node-limit) with the bounds proved in lower / upper. */
static dab_oracle_info info;
static bool stopped;

/* A stopped search's JSON: what it proved, "exact": false. */
static void print_stopped_json(const dab_parsed *p) {
  printf("{\"rows\":%d,\"cols\":%d,\"exact\":false,\"lower\":%d,\"upper\":%d", p->geom.rows,
         p->geom.cols, info.lower, info.upper);
  if (info.value_proved) printf(",\"value\":%d", info.lower);
  printf(",\"source\":\"search\",\"nodes\":%llu,\"seconds\":%.3f}\n", (unsigned long long)info.nodes,
         info.seconds);
  fflush(stdout);
}

/* Solves one parsed position into a and the extra JSON / text lines.
** RETURN: status; on DAB_ECANCELED err holds the bounds message. */
static dab_status solve_one(const dab_parsed *p, const solve_cfg *c, dab_analysis *a, char *extra,
                            size_t extra_len, char *text_extra, size_t text_len, dab_err *err) {
  const dab_geom *g = &p->geom;
  extra[0] = text_extra[0] = 0;
  if (oracle) {
    const dab_geom *og = dab_oracle_geom(oracle);
    if (og->rows != g->rows || og->cols != g->cols) {
      dab_oracle_close(oracle);
      oracle = NULL;
    }
  }
  dab_status st = DAB_OK;
  if (!oracle && (st = open_oracle(g, c, &oracle, err))) {
    oracle = NULL;
    return st;
  }
  if (c->plan) return DAB_OK; /* the caller prints the plan */
  print_plan(p, c);
  const char *source = dab_oracle_source(oracle);
  if (!c->json && !strcmp(source, "search")) mention_proof(g, dab_ls_word(&p->game.lines));
  stopped = false;
  memset(&info, 0, sizeof info);
  int flags = DAB_ORACLE_PV | (c->value_only ? DAB_ORACLE_VALUE_ONLY : 0);
  st = dab_oracle_query(oracle, &p->game.lines, flags, a, &info, err);
  cli_progress_end();
  if (st == DAB_ECANCELED && info.source && !strcmp(info.source, "search")) {
    stopped = true;
    if (info.value_proved)
      return dab_fail(err, st, "interrupted after proving the value %+d (move values unfinished)", info.lower);
    return dab_fail(err, st, "interrupted: the value of this position is proved to lie in [%+d,%+d]",
                    info.lower, info.upper);
  }
  if (st) return st;
  if (!strcmp(info.source, "stored") || !strcmp(info.source, "search"))
    format_extras(&info, c, extra, extra_len, text_extra, text_len);
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
  bool damage_said = false;
  long lineno = 0;
  while (fgets(line, sizeof line, stdin)) {
    lineno++;
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
    if (!len) continue;
    dab_err err;
    stopped = false;
    dab_status st = dab_parse_position(line, &p, &err);
    if (!st) st = solve_one(&p, c, &a, extra, sizeof extra, text_extra, sizeof text_extra, &err);
    if (st && stopped) { /* the bounds object (exact:false); a node limit goes on, Ctrl-C ends */
      bool signalled = *cli_cancel_on_signal();
      fprintf(stderr, "dab solve: line %ld: %s\n", lineno, err.msg);
      print_stopped_json(&p);
      if (rc < CLI_FAIL) rc = CLI_FAIL;
      if (signalled) break;
      continue;
    }
    if (st) {
      int e = cli_batch_failure(stdout, "solve", lineno, line, st, err.msg, &damage_said);
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
    else if (!strcmp(a, "--no-pdb")) c.pdb = false;
    else if (!strcmp(a, "--pdb")) c.pdb = true;
    else if (!strcmp(a, "--no-store")) c.no_store = true;
    else if (!strcmp(a, "--wdl")) c.wdl = true;
    else if (!strcmp(a, "--plan")) c.plan = true;
    else if (!strcmp(a, "--mem-limit")) {
      const char *s = i + 1 < argc ? argv[++i] : NULL;
      if (!(c.mem_limit = cli_parse_size(s))) {
        fprintf(stderr, "dab solve: --mem-limit needs a size such as 512M or 8G, got '%s'\n", s ? s : "");
        return CLI_USAGE;
      }
    }
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
      if (cli_check_tb_dir("solve", c.tb_dir)) return CLI_USAGE;
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
  if (c.plan && !strcmp(text, "-")) {
    fprintf(stderr, "dab solve: --plan takes one position, not '-'\n");
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
    if (st && stopped && c.json) print_stopped_json(&p);
    if (!st && c.plan) rc = print_plan_only(&p, &c);
    else if (!st) print_result(&p, &a, &c, extra, sizeof extra, text_extra, sizeof text_extra);
  }
  if (oracle) dab_oracle_close(oracle);
  oracle = NULL;
  return rc;
}
