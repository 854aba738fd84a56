/*
** cmd_cache.c: `dab cache [list]` says what the user's cache holds;
** `dab cache clear [RxC...]` empties it, or removes the boards named.
** See Copyright Notice in README.md
*/
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "tablebase/dabtb.h"
#include "tablebase/tb_cache.h"

static const char usage[] =
    "usage: dab cache [list] [--json]\n"
    "       dab cache clear [RxC...] [--json]\n\n"
    "The cache ($XDG_CACHE_HOME/dab, else ~/.cache/dab) holds what dab keeps for\n"
    "the next run: what searches proved on boards no table covers (kind search),\n"
    "tables (kind table: `dab build` without -o, --tb or $DAB_TB_PATH; a small\n"
    "board's table built on first use), an interrupted build's layers (build),\n"
    "the pattern database (pdb) and leftovers (a lock file no one uses, ...).\n"
    "  list     (the default) each entry: board, kind, size, how much is exact\n"
    "           (records with lower == upper; a table: every position), the empty\n"
    "           board's value or bounds, when it was last used; then the totals\n"
    "  clear    removes every entry, or those of the boards named; an entry in use\n"
    "           by a running dab is left, and said (exit 1)\n"
    "  --json   one JSON object\n"
    "A search keeps a new file in the cache only once it has run\n"
    "$DAB_CACHE_MIN_SECONDS (default 1 s) and proved more than the trivial bounds,\n"
    "and the table checkpoints of a stopped search only after a minute; the search\n"
    "files together stay within $DAB_CACHE_MAX (default 2G; 0 = no cap): when a\n"
    "search leaves them above it, the least recently used go.  Tables, layers and\n"
    "the pattern database are not counted and only `dab cache clear` removes them.\n"
    "Directories named by --tb or $DAB_TB_PATH are not the cache: nothing there is\n"
    "ever removed, and searches keep everything there.\n";

/* "48.2 MB", "812 KB", "2.0 GB": decimal units, as ls -h --si. */
static void human(uint64_t b, char *buf, size_t len) {
  if (b >= 1000000000ull) snprintf(buf, len, "%.1f GB", (double)b / 1e9);
  else if (b >= 1000000) snprintf(buf, len, "%.1f MB", (double)b / 1e6);
  else if (b >= 1000) snprintf(buf, len, "%.0f KB", (double)b / 1e3);
  else snprintf(buf, len, "%llu B", (unsigned long long)b);
}

/* The share of exact records of e (a table: 1), or -1 when unknown. */
static double exact_share(const dabtb_cache_entry *e) {
  if (e->kind == DABTB_CACHE_TABLE) return 1.0;
  if (e->kind != DABTB_CACHE_SEARCH || !e->details_read) return -1;
  uint64_t n = e->records + e->shapes;
  return n ? (double)(e->exact + e->shapes_exact) / (double)n : 0.0;
}

static void print_entry_json(const dabtb_cache_entry *e, int i) {
  printf("%s{\"name\":", i ? "," : "");
  cli_json_string(stdout, e->name);
  if (e->rows) printf(",\"board\":\"%dx%d\"", e->rows, e->cols);
  else printf(",\"board\":null");
  printf(",\"kind\":\"%s\",\"bytes\":%llu,\"last_used\":%.0f,\"in_use\":%s", dabtb_cache_kind_name(e->kind),
         (unsigned long long)e->bytes, e->last_used, e->in_use ? "true" : "false");
  if (e->details_read) {
    printf(",\"records\":%llu,\"exact\":%llu,\"shapes\":%llu,\"shapes_exact\":%llu",
           (unsigned long long)e->records, (unsigned long long)e->exact, (unsigned long long)e->shapes,
           (unsigned long long)e->shapes_exact);
    double share = exact_share(e);
    if (share >= 0) printf(",\"exact_share\":%.4f", share);
    if (e->root_stored) printf(",\"empty_board\":{\"lower\":%d,\"upper\":%d}", e->root_lower, e->root_upper);
    else printf(",\"empty_board\":null");
  }
  if (e->why[0]) {
    printf(",\"why\":");
    cli_json_string(stdout, e->why);
  }
  putchar('}');
}

static void print_entry_text(const dabtb_cache_entry *e) {
  char board[16], size[32], exact[64], root[32], when[32];
  if (e->rows) snprintf(board, sizeof board, "%dx%d", e->rows, e->cols);
  else snprintf(board, sizeof board, "-");
  human(e->bytes, size, sizeof size);
  double share = exact_share(e);
  if (e->kind == DABTB_CACHE_TABLE) snprintf(exact, sizeof exact, "every position");
  else if (share >= 0)
    snprintf(exact, sizeof exact, "%.1f%% of %llu", 100 * share, (unsigned long long)(e->records + e->shapes));
  else snprintf(exact, sizeof exact, "-");
  if (!e->root_stored) snprintf(root, sizeof root, "-");
  else if (e->root_lower == e->root_upper) snprintf(root, sizeof root, "%+d", e->root_lower);
  else snprintf(root, sizeof root, "[%+d,%+d]", e->root_lower, e->root_upper);
  time_t t = (time_t)e->last_used;
  struct tm tmv;
  if (t > 0 && localtime_r(&t, &tmv)) strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tmv);
  else snprintf(when, sizeof when, "-");
  printf("%-6s %-8s %9s  %-22s %-10s %-16s %s%s\n", board, dabtb_cache_kind_name(e->kind), size, exact, root,
         when, e->name, e->in_use ? " (in use)" : "");
  if (e->why[0]) printf("       %s\n", e->why);
}

static int list(const char *dir, const dabtb_cache_policy *pol, bool json) {
  dabtb_cache_entry *v = NULL;
  size_t n = 0;
  dab_err err;
  struct stat sb;
  if (dabtb_cache_list(dir, true, &v, &n, &err)) {
    if (stat(dir, &sb) == 0) return cli_error("cache", DAB_EIO, err.msg);
    n = 0; /* a cache never made is an empty one */
  }
  uint64_t search = 0, all = 0;
  for (size_t i = 0; i < n; i++) {
    all += v[i].bytes;
    if (v[i].kind == DABTB_CACHE_SEARCH) search += v[i].bytes;
  }
  if (json) {
    printf("{\"dir\":");
    cli_json_string(stdout, dir);
    printf(",\"cap\":%llu,\"min_seconds\":%g,\"search_bytes\":%llu,\"bytes\":%llu,\"entries\":[",
           (unsigned long long)pol->max_bytes, pol->min_seconds, (unsigned long long)search,
           (unsigned long long)all);
    for (size_t i = 0; i < n; i++) print_entry_json(&v[i], (int)i);
    printf("]}\n");
  } else {
    char a[32], b[32], cap[48];
    human(search, a, sizeof a);
    human(all, b, sizeof b);
    if (pol->max_bytes) snprintf(cap, sizeof cap, "%.1f GiB", (double)pol->max_bytes / 1073741824.0);
    else snprintf(cap, sizeof cap, "no");
    printf("cache %s: %s in all; search results %s of the %s cap (DAB_CACHE_MAX)\n", dir, b, a, cap);
    if (!n) printf("(empty)\n");
    else {
      printf("%-6s %-8s %9s  %-22s %-10s %-16s %s\n", "board", "kind", "size", "exact", "empty", "last used",
             "file");
      for (size_t i = 0; i < n; i++) print_entry_text(&v[i]);
    }
  }
  free(v);
  return CLI_OK;
}

/* True when entry name belongs to board RxC: RxC.dab and what goes with
** it (RxC.dab-lock, RxC.dab.layers, RxC.dab.new.PID). */
static bool of_board(const char *name, int rows, int cols) {
  char stem[32];
  int k = snprintf(stem, sizeof stem, "%dx%d.dab", rows, cols);
  return !strncmp(name, stem, (size_t)k) && (!name[k] || name[k] == '.' || name[k] == '-');
}

static int clear(const char *dir, const char **boards, int nb, bool json) {
  int rows[64], cols[64];
  for (int i = 0; i < nb; i++) {
    char tail;
    if (sscanf(boards[i], "%3dx%3d%c", &rows[i], &cols[i], &tail) != 2 || rows[i] < 1 || cols[i] < 1) {
      fprintf(stderr, "dab cache: '%s' is not a board (RxC, such as 2x7)\n", boards[i]);
      return CLI_USAGE;
    }
  }
  dabtb_cache_entry *v = NULL;
  size_t n = 0;
  dab_err err;
  if (dabtb_cache_list(dir, false, &v, &n, &err)) n = 0; /* no cache: nothing to clear */
  bool *busy = calloc(n ? n : 1, sizeof *busy);
  if (!busy) {
    free(v);
    return cli_error("cache", DAB_ENOMEM, "out of memory");
  }
  uint64_t freed = 0;
  int removed = 0, nbusy = 0, rc = CLI_OK;
  if (json) {
    printf("{\"dir\":");
    cli_json_string(stdout, dir);
    printf(",\"removed\":[");
  }
  for (size_t i = 0; i < n; i++) {
    bool want = nb == 0;
    for (int j = 0; j < nb && !want; j++) want = of_board(v[i].name, rows[j], cols[j]);
    if (!want) continue;
    if (dabtb_cache_remove(dir, &v[i], &busy[i], &err)) {
      fflush(stdout);
      fprintf(stderr, "dab cache: %s\n", err.msg);
      rc = CLI_FAIL;
      continue;
    }
    if (busy[i]) {
      nbusy++;
      if (!json) printf("kept %s: in use by a running dab\n", v[i].name);
      continue;
    }
    freed += v[i].bytes;
    if (json) {
      printf("%s{\"name\":", removed ? "," : "");
      cli_json_string(stdout, v[i].name);
      printf(",\"bytes\":%llu}", (unsigned long long)v[i].bytes);
    } else {
      char size[32];
      human(v[i].bytes, size, sizeof size);
      printf("removed %s (%s)\n", v[i].name, size);
    }
    removed++;
  }
  if (json) {
    printf("],\"in_use\":[");
    for (size_t i = 0, k = 0; i < n; i++)
      if (busy[i]) {
        printf("%s", k++ ? "," : "");
        cli_json_string(stdout, v[i].name);
      }
    printf("],\"freed\":%llu}\n", (unsigned long long)freed);
  } else {
    char size[32];
    human(freed, size, sizeof size);
    if (!removed && !nbusy) printf("nothing to remove in %s\n", dir);
    else printf("%d removed, %s freed%s\n", removed, size, nbusy ? "; entries in use were left" : "");
  }
  free(busy);
  free(v);
  return nbusy && rc == CLI_OK ? CLI_FAIL : rc;
}

int dab_cmd_cache(int argc, char **argv) {
  bool json = false;
  const char *args[66];
  int nargs;
  const cli_opt table[] = {{"--json", CLI_FLAG, &json, 0}, {NULL, 0, NULL, 0}};
  int prc = cli_parse_args("cache", argc, argv, table, args, 66, &nargs, usage);
  if (prc) return prc < 0 ? CLI_OK : prc;
  const char *sub = nargs ? args[0] : "list";
  if (strcmp(sub, "list") && strcmp(sub, "clear")) {
    fprintf(stderr, "dab cache: unknown subcommand '%s' (list or clear; dab cache --help)\n", sub);
    return CLI_USAGE;
  }
  if (!strcmp(sub, "list") && nargs > 1) {
    fprintf(stderr, "dab cache: list takes no boards, got '%s'\n", args[1]);
    return CLI_USAGE;
  }
  dabtb_cache_policy pol;
  dab_err err;
  if (dabtb_cache_policy_get(&pol, &err)) return cli_error("cache", DAB_EINPUT, err.msg);
  char dir[PATH_MAX];
  if (!dabtb_cache_dir(dir, sizeof dir))
    return cli_error("cache", DAB_EINPUT,
                     "no cache directory: $XDG_CACHE_HOME and $HOME are not set (or DAB_TB_NO_PROJECT=1 leaves "
                     "the cache out)");
  if (!strcmp(sub, "list")) return list(dir, &pol, json);
  if (dabtb_readonly())
    return cli_error("cache", DAB_EINPUT, "read-only mode (DAB_READONLY=1): not removing anything");
  return clear(dir, args + 1, nargs - 1, json);
}
