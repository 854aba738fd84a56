/*
** cmd_pdb.c: `dab pdb build|info|probe|check|verify`: the pattern
** database of Strings-and-Coins components (pdb/pdb.h, docs/pdb.md).
** See Copyright Notice in README.md
*/
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "game/clock.h"
#include "game/sysmem.h"
#include "pdb/pdb.h"
#include "tablebase/tb_find.h"

static const char usage[] =
    "usage: dab pdb build [--max-strings N] [--plan] [--mem-limit SIZE] [-o FILE] [--tb DIR]\n"
    "       dab pdb info [FILE] [--json]\n"
    "       dab pdb probe POSITION [--pdb FILE] [--json]\n"
    "       dab pdb check [FILE]\n"
    "       dab pdb verify [FILE]\n\n"
    "The pattern database: every connected Strings-and-Coins component of up to N\n"
    "strings that occurs on a grid board, with its Nimstring value, its value played\n"
    "alone and its moves (docs/pdb.md).  The search uses it for positions whose every\n"
    "component it holds with `dab solve --pdb` (exact; measured no faster).\n"
    "  build   grows every component a string at a time (default N = 12, about a\n"
    "          minute of CPU, 0.9 GiB; --plan prints components, memory, disk and\n"
    "          time per N first; a plan above --mem-limit SIZE, default the memory\n"
    "          available, is refused before anything runs).\n"
    "          Written to FILE or " DAB_PDB_FILE " beside the tablebases (the cache).\n"
    "          Ctrl-C saves the components made so far (each one complete) into the\n"
    "          file; a rerun reuses the components of the file it finds (their facts\n"
    "          are not computed again).\n"
    "  info    what a database holds: components by strings, nimbers, size.\n"
    "  probe   POSITION's components with their facts, and its value when the\n"
    "          database holds every component.\n"
    "  check   every checksum; verify also re-derives every value and nimber with\n"
    "          the theory-free graph solver.\n"
    "A database is found as tablebases are: --pdb FILE, --tb DIR, $DAB_TB_PATH, the cache.\n";

/*
** The plan: components per level and embeddings per level, measured up
** to 14 and 13 strings (every level built here; the last level's
** embeddings are never stored), past that extrapolated at the last
** measured ratios (3.2x components, 4.8x embeddings a string).
** Memory at its peak, the last level: the embeddings of the level below
** (52 bytes each), the fingerprint set of the last level (16-byte slots,
** a power of two at most half full, one and a half times that while it
** doubles), the components (40 + 20 N bytes each) and 8 MiB of process.
** Time: 2.3 us of CPU per string of every embedding grown (a larger one
** makes more offers, and its new components have more moves).
** Measured (AMD EPYC, one thread, CPU seconds and peak RSS): 9 strings
** 0.40 s and 15 MB, 10 strings 2.1 s and 42 MB, 11 strings 13.2 s and
** 255 MB, 12 strings 80 s and 0.91 GiB (2026-11-29, beside other jobs;
** 52 s on 2026-11-27); 13 strings 322 s and 3.6 GiB, 14 strings 2,078 s
** (beside another build) and 14.6 GiB.  The model meets each within 1.3x.
*/
static const double plan_comp[] = {0,    2,    3,     7,     15,     31,      78,      204,
                                   565,  1606, 4777, 14479, 45041, 142120, 455140};
static const double plan_emb[] = {0,      2,       6,       18,        63,        242,     1014,
                                  4489,   20497,   95524,   451157,    2151906,   10341831, 50012094};
#define PLAN_SECONDS_PER_STRING 2.3e-6
#define PLAN_EMB_BYTES 52.0
#define PLAN_PROCESS_BYTES (8.0 * 1048576)
/* The spread stated with the time: the machine and its load (measured
** 0.78x to 1.19x of the model on the sizes above). */
#define PLAN_LOW 0.67
#define PLAN_HIGH 1.5
/* The file: 42-54 bytes a component measured (9-12 strings), plus
** LMDB's pages. */
#define PLAN_FILE_PER_COMPONENT 50.0
#define PLAN_FILE_FIXED 32768.0

typedef struct plan_row {
  double comps, comps_total, emb, bytes, seconds;
} plan_row;

static double emb_at(int s) {
  double e = plan_emb[13];
  if (s <= 13) return plan_emb[s];
  for (int k = 14; k <= s; k++) e *= 4.8;
  return e;
}

/* Bytes of the fingerprint set holding n embeddings, at its peak (as
** pdb_enum.c's fpset_add grows it: from 2^16 slots, doubling). */
static double fpset_peak(double n) {
  double slots = 65536;
  while (slots < 2 * (n + 1)) slots *= 2;
  return 1.5 * slots * 16;
}

static plan_row plan(int n) {
  plan_row r = {0, 0, 0, 0, 0};
  double comps = 0, total = 0, work = 0;
  for (int s = 1; s <= n; s++) {
    comps = s <= 14 ? plan_comp[s] : comps * 3.2;
    total += comps;
    if (s < n) work += emb_at(s) * s;
  }
  r.comps = comps, r.comps_total = total, r.emb = emb_at(n);
  r.bytes = (n > 1 ? emb_at(n - 1) * PLAN_EMB_BYTES : 0) + fpset_peak(emb_at(n)) + total * (40 + 20.0 * n) +
            PLAN_PROCESS_BYTES;
  r.seconds = work * PLAN_SECONDS_PER_STRING;
  return r;
}

/* "74 MiB", "2.07 GiB": small plans stay readable. */
static const char *size_text(double b, char *buf, size_t len) {
  if (b < 1073741824.0) snprintf(buf, len, "%.0f MiB", b / 1048576.0);
  else snprintf(buf, len, "%.2f GiB", b / 1073741824.0);
  return buf;
}

static int cmd_plan(int n) {
  char mem[32];
  printf("%8s %14s %14s %14s %12s %12s\n", "strings", "components", "total", "embeddings", "peak memory",
         "CPU time");
  for (int s = 1; s <= DAB_PDB_MAX_STRINGS; s++) {
    plan_row r = plan(s);
    if (s < 8 && s != n) continue;
    printf("%8d %14.0f %14.0f %14.0f %12s %10.3g s%s%s\n", s, r.comps, r.comps_total, r.emb,
           size_text(r.bytes, mem, sizeof mem), r.seconds, s > 14 ? " (extrapolated)" : "",
           s == n ? "  <- --max-strings" : "");
  }
  plan_row r = plan(n);
  printf("--max-strings %d: peak memory about %s; CPU time about %.3g s (%.3g to %.3g s: one thread, "
         "measured on an AMD EPYC; wall time is longer when other jobs share the core)\n",
         n, size_text(r.bytes, mem, sizeof mem), r.seconds, r.seconds * PLAN_LOW, r.seconds * PLAN_HIGH);
  printf("disk: about %.3g MB (zstd blocks, about %.0f bytes a component)\n",
         (r.comps_total * PLAN_FILE_PER_COMPONENT + PLAN_FILE_FIXED) / 1e6, PLAN_FILE_PER_COMPONENT);
  return CLI_OK;
}

static void on_progress(void *ctx, const dab_progress *p) { cli_progress(ctx, p); }

/* The database file: FILE, else DAB_PDB_FILE on the search path. */
static int find_file(const char *cmd, const char *file, const char *tb_dir, char *path, size_t len) {
  if (file) {
    snprintf(path, len, "%s", file);
    return 0;
  }
  dab_err err;
  if (dabtb_find_file(DAB_PDB_FILE, tb_dir, path, len, &err)) {
    fprintf(stderr, "dab pdb %s: %s; build it with: dab pdb build\n", cmd, err.msg);
    return CLI_USAGE;
  }
  return 0;
}

/* Loads path; a damaged or foreign file is bad input (exit 2). */
static int load(const char *cmd, const char *path, dab_pdb **db) {
  dab_err err;
  dab_status st = dab_pdb_load(path, db, &err);
  if (!st) return 0;
  fprintf(stderr, "dab pdb %s: %s\n", cmd, err.msg);
  return st == DAB_ECORRUPT || st == DAB_EIO ? CLI_USAGE : cli_exit_code(st);
}

static int cmd_build(int argc, char **argv) {
  const char *out = NULL, *tb_dir = NULL, *maxs = NULL, *mem_limit = NULL;
  bool want_plan = false;
  const cli_opt table[] = {{"--max-strings", CLI_TEXT, &maxs, 0}, {"--plan", CLI_FLAG, &want_plan, 0},
                           {"-o", CLI_TEXT, &out, 0},            {"--tb", CLI_TEXT, &tb_dir, 0},
                           {"--mem-limit", CLI_TEXT, &mem_limit, 0}, {NULL, 0, NULL, 0}};
  int n, rc = cli_parse_args("pdb build", argc, argv, table, NULL, 0, &n, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  long maxn = 12;
  if (maxs) {
    char *end;
    maxn = strtol(maxs, &end, 10);
    if (*end || maxn < 1 || maxn > DAB_PDB_MAX_STRINGS) {
      fprintf(stderr, "dab pdb build: --max-strings %s: give a number of strings from 1 to %d\n", maxs,
              DAB_PDB_MAX_STRINGS);
      return CLI_USAGE;
    }
  }
  uint64_t limit = 0;
  if (mem_limit && !(limit = cli_parse_size(mem_limit))) {
    fprintf(stderr, "dab pdb build: --mem-limit %s: expected a size like 8G\n", mem_limit);
    return CLI_USAGE;
  }
  if (want_plan) return cmd_plan((int)maxn);
  plan_row r = plan((int)maxn);
  uint64_t avail = limit ? limit : dab_mem_available();
  if (avail && r.bytes > (double)avail) {
    fprintf(stderr,
            "dab pdb build: --max-strings %ld needs about %.2f GiB, more than the %.2f GiB %s "
            "(dab pdb build --plan lists each size)\n",
            maxn, r.bytes / (1u << 30), (double)avail / (1u << 30), limit ? "of --mem-limit" : "available");
    return CLI_USAGE;
  }
  char path[PATH_MAX];
  dab_err err;
  if (out) snprintf(path, sizeof path, "%s", out);
  else if (dabtb_default_file(DAB_PDB_FILE, tb_dir, path, sizeof path, &err))
    return cli_error("pdb build", DAB_EIO, err.msg);
  char mem[32];
  cli_note("pdb build: components of up to %ld strings -> %s (plan: %.0f components, %s of memory, %.3g to %.3g "
           "CPU-s)", maxn, path, r.comps_total, size_text(r.bytes, mem, sizeof mem), r.seconds * PLAN_LOW,
           r.seconds * PLAN_HIGH);
  dab_pdb *db = NULL;
  struct stat sb;
  if (stat(path, &sb) == 0) { /* resume: reuse what the old file holds */
    if (dab_pdb_load(path, &db, &err)) {
      fprintf(stderr, "dab pdb build: not reusing %s: %s\n", path, err.msg);
      db = NULL;
    } else {
      fprintf(stderr, "dab pdb build: reusing the %u components of %s (up to %d strings)\n", dab_pdb_count(db),
              path, dab_pdb_max_strings(db));
    }
  }
  if (!db && dab_pdb_new(&db, &err)) return cli_error("pdb build", DAB_ENOMEM, err.msg);
  uint32_t reused = dab_pdb_count(db);
  double t0 = dab_now_s();
  dab_status st = dab_pdb_build(db, (int)maxn, on_progress, NULL, cli_cancel_on_signal(), &err);
  cli_progress_end();
  if (st == DAB_ECANCELED && dab_pdb_count(db) > reused) {
    /* keep what was made: complete components, which a rerun reuses */
    dab_err serr;
    if (dab_pdb_save(db, path, &serr) == DAB_OK)
      fprintf(stderr, "dab pdb build: canceled; %s keeps %u components (complete up to %d strings): run it again "
              "to go on\n", path, dab_pdb_count(db), dab_pdb_max_strings(db));
    else
      fprintf(stderr, "dab pdb build: canceled; %s left as it was (%s)\n", path, serr.msg);
    dab_pdb_free(db);
    return CLI_FAIL;
  }
  if (st) {
    int code = cli_error("pdb build", st, err.msg);
    if (st == DAB_ECANCELED) fprintf(stderr, "dab pdb build: %s left as it was\n", path);
    dab_pdb_free(db);
    return code;
  }
  double tb = dab_now_s() - t0;
  st = dab_pdb_save(db, path, &err);
  if (st) {
    dab_pdb_free(db);
    return cli_error("pdb build", st, err.msg);
  }
  stat(path, &sb);
  printf("%s: %u components of up to %d strings, %.1f MB, built in %.1f s\n", path, dab_pdb_count(db),
         dab_pdb_max_strings(db), (double)sb.st_size / 1e6, tb);
  dab_pdb_free(db);
  return CLI_OK;
}

static int cmd_info(int argc, char **argv) {
  const char *file = NULL, *tb_dir = NULL;
  bool json = false;
  const cli_opt table[] = {{"--tb", CLI_TEXT, &tb_dir, 0}, {"--json", CLI_FLAG, &json, 0}, {NULL, 0, NULL, 0}};
  int n, rc = cli_parse_args("pdb info", argc, argv, table, &file, 1, &n, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  char path[PATH_MAX];
  if ((rc = find_file("info", n ? file : NULL, tb_dir, path, sizeof path))) return rc;
  dab_pdb *db;
  if ((rc = load("info", path, &db))) return rc;
  struct stat sb;
  stat(path, &sb);
  uint64_t by_strings[DAB_PDB_MAX_STRINGS + 1] = {0}, nim[9] = {0}, moves = 0;
  for (uint32_t id = 0; id < dab_pdb_count(db); id++) {
    dab_pdb_info in = dab_pdb_get(db, id);
    by_strings[in.strings]++;
    nim[in.nimber == DAB_PDB_LOONY ? 8 : in.nimber]++;
    moves += in.nmoves;
  }
  int ms = dab_pdb_max_strings(db);
  if (json) {
    printf("{\"file\":\"%s\",\"bytes\":%lld,\"max_strings\":%d,\"components\":%u,\"moves\":%llu,\"by_strings\":[",
           path, (long long)sb.st_size, ms, dab_pdb_count(db), (unsigned long long)moves);
    for (int s = 1; s <= DAB_PDB_MAX_STRINGS && (s <= ms || by_strings[s]); s++)
      printf("%s%llu", s > 1 ? "," : "", (unsigned long long)by_strings[s]);
    printf("],\"nimbers\":{");
    for (int v = 0; v < 8; v++) printf("\"%d\":%llu,", v, (unsigned long long)nim[v]);
    printf("\"loony\":%llu}}\n", (unsigned long long)nim[8]);
  } else {
    printf("file         %s (%.1f MB)\n", path, (double)sb.st_size / 1e6);
    printf("components   %u of up to %d strings, %llu moves\n", dab_pdb_count(db), ms, (unsigned long long)moves);
    printf("by strings  ");
    for (int s = 1; s <= DAB_PDB_MAX_STRINGS && (s <= ms || by_strings[s]); s++)
      printf(" %d:%llu", s, (unsigned long long)by_strings[s]);
    printf("\nnimbers     ");
    for (int v = 0; v < 8; v++)
      if (nim[v]) printf(" *%d:%llu", v, (unsigned long long)nim[v]);
    printf(" loony:%llu\n", (unsigned long long)nim[8]);
  }
  dab_pdb_free(db);
  return CLI_OK;
}

static int cmd_probe(int argc, char **argv) {
  const char *args[1], *file = NULL, *tb_dir = NULL;
  bool json = false;
  const cli_opt table[] = {{"--pdb", CLI_TEXT, &file, 0}, {"--tb", CLI_TEXT, &tb_dir, 0},
                           {"--json", CLI_FLAG, &json, 0}, {NULL, 0, NULL, 0}};
  int n, rc = cli_parse_args("pdb probe", argc, argv, table, args, 1, &n, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (n != 1) {
    fputs(usage, stderr);
    return CLI_USAGE;
  }
  static dab_parsed ps; /* the position first: bad text is named before any file is read */
  if ((rc = cli_parse_position("pdb probe", args[0], &ps))) return rc;
  char path[PATH_MAX];
  if ((rc = find_file("probe", file, tb_dir, path, sizeof path))) return rc;
  dab_pdb *db;
  if ((rc = load("probe", path, &db))) return rc;
  static dab_pdb_probe_result r;
  dab_err err;
  dab_status st = dab_pdb_probe(db, args[0], &r, &err);
  if (st) {
    dab_pdb_free(db);
    return cli_error("pdb probe", st, err.msg);
  }
  if (json) printf("{\"position\":\"%s\",\"max_strings\":%d,\"components\":[", args[0], dab_pdb_max_strings(db));
  else printf("%s: %d components (database: up to %d strings)\n", args[0], r.ncomp, dab_pdb_max_strings(db));
  for (int c = 0; c < r.ncomp && c < DAB_PDB_MAX_COMP; c++) {
    const dab_pdb_probe_comp *pc = &r.comp[c];
    if (json) printf("%s{\"first_box\":%d,\"coins\":%d,\"strings\":%d", c ? "," : "", pc->first_box, pc->coins,
                     pc->strings);
    else printf("  box %2d: %2d coins %2d strings  ", pc->first_box, pc->coins, pc->strings);
    if (pc->id < 0) {
      if (json) printf(",\"id\":null}");
      else printf("not in the database\n");
      continue;
    }
    const char *kind = pc->flags & DAB_PDB_CHAIN ? "chain" : pc->flags & DAB_PDB_LOOP ? "loop" : "other";
    char nimb[16];
    if (pc->nimber == DAB_PDB_LOONY) snprintf(nimb, sizeof nimb, json ? "\"loony\"" : "loony");
    else snprintf(nimb, sizeof nimb, json ? "%d" : "*%d", pc->nimber);
    bool free_comp = pc->flags & DAB_PDB_FREE;
    if (json)
      printf(",\"id\":%lld,\"kind\":\"%s\",\"nimber\":%s,\"value\":%d,\"free\":%s}", (long long)pc->id, kind, nimb,
             pc->value, free_comp ? "true" : "false");
    else
      printf("id %-9lld %-5s nimber %-6s value alone %+d%s\n", (long long)pc->id, kind, nimb, pc->value,
             free_comp ? "  (free: worth its coins to the mover anywhere)" : "");
  }
  if (r.covered) {
    char nimb[16];
    if (r.nimber == DAB_PDB_LOONY) snprintf(nimb, sizeof nimb, json ? "\"loony\"" : "loony");
    else snprintf(nimb, sizeof nimb, json ? "%d" : "*%d", r.nimber);
    if (json) {
      printf("],\"covered\":true,\"nimber\":%s,\"value\":%d,\"nodes\":%llu}\n", nimb, r.value,
             (unsigned long long)r.nodes);
    } else {
      printf("Nimstring: %s (the player to move %s Nimstring)\n", nimb,
             r.nimber == 0 ? "loses" : "wins");
      printf("value %+d for the player to move (searched on component ids, %llu nodes)\n", r.value,
             (unsigned long long)r.nodes);
    }
  } else if (json) {
    printf("],\"covered\":false}\n");
  } else {
    printf("not every component is in the database: no value from it\n");
  }
  dab_pdb_free(db);
  return CLI_OK;
}

static int cmd_check_verify(int argc, char **argv, bool verify) {
  const char *file = NULL, *tb_dir = NULL;
  const cli_opt table[] = {{"--tb", CLI_TEXT, &tb_dir, 0}, {NULL, 0, NULL, 0}};
  const char *cmd = verify ? "verify" : "check";
  int n, rc = cli_parse_args(verify ? "pdb verify" : "pdb check", argc, argv, table, &file, 1, &n, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  char path[PATH_MAX];
  if ((rc = find_file(cmd, n ? file : NULL, tb_dir, path, sizeof path))) return rc;
  dab_pdb *db;
  if ((rc = load(cmd, path, &db))) return rc;
  if (!verify) {
    printf("%s: ok (%u components of up to %d strings: every checksum matches)\n", path, dab_pdb_count(db),
           dab_pdb_max_strings(db));
    dab_pdb_free(db);
    return CLI_OK;
  }
  uint64_t checked = 0, bad = 0;
  dab_err err;
  double t0 = dab_now_s();
  dab_status st = dab_pdb_verify(db, &checked, &bad, on_progress, NULL, cli_cancel_on_signal(), &err);
  cli_progress_end();
  dab_pdb_free(db);
  if (st) return cli_error("pdb verify", st, err.msg);
  if (bad) {
    fprintf(stderr, "dab pdb verify: %s: %llu of %llu components disagree; first: %s\n", path,
            (unsigned long long)bad, (unsigned long long)checked, err.msg);
    return CLI_FAIL;
  }
  printf("%s: ok (%llu components: every value and nimber re-derived by the graph solver, %.1f s)\n", path,
         (unsigned long long)checked, dab_now_s() - t0);
  return CLI_OK;
}

int dab_cmd_pdb(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? CLI_USAGE : CLI_OK;
  }
  const char *sub = argv[1];
  if (!strcmp(sub, "build")) return cmd_build(argc - 1, argv + 1);
  if (!strcmp(sub, "info")) return cmd_info(argc - 1, argv + 1);
  if (!strcmp(sub, "probe")) return cmd_probe(argc - 1, argv + 1);
  if (!strcmp(sub, "check")) return cmd_check_verify(argc - 1, argv + 1, false);
  if (!strcmp(sub, "verify")) return cmd_check_verify(argc - 1, argv + 1, true);
  fprintf(stderr, "dab pdb: unknown subcommand '%s' (build, info, probe, check, verify)\n", sub);
  return CLI_USAGE;
}
