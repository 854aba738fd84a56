/*
** cmd_info.c: `dab info FILE` prints what a tablebase holds.
** See Copyright Notice in README.md
*/
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "cli/tbcli.h"

static const char usage[] =
    "usage: dab info [FILE] [--tb DIR] [--layers] [--json]\n\n"
    "Prints what a tablebase covers (board, positions, solved records, file size),\n"
    "then its meta records (index scheme, encoding, generator and build date).\n"
    "  --layers   also each layer's entries, blocks and XXH3-128 checksum\n"
    "             (--json always has them)\n"
    "FILE may also be a board (3x3 or 3x3.dab), found on the search path.\n"
    "Without FILE: where tables are looked up, in order, and where a table built\n"
    "on demand would be written ($XDG_CACHE_HOME/dab or ~/.cache/dab unless --tb\n"
    "or $DAB_TB_PATH says otherwise; nowhere when DAB_READONLY=1).\n";

typedef struct info_ctx {
  bool json, layers;
  int n;
  int layer_keys;     /* layer.* keys left out of the text output */
} info_ctx;

static void print_meta(void *ctx, const char *key, const char *value) {
  info_ctx *c = ctx;
  if (c->json) {
    printf("%s", c->n++ ? "," : "");
    cli_json_string(stdout, key);
    putchar(':');
    cli_json_string(stdout, value);
  } else if (!c->layers && !strncmp(key, "layer.", 6)) {
    c->layer_keys++;
  } else {
    printf("%-24s %s\n", key, value);
  }
}

int dab_cmd_info(int argc, char **argv) {
  const char *file = NULL, *tb_dir = NULL;
  info_ctx c = {false, false, 0, 0};
  const cli_opt table[] = {{"--tb", CLI_TEXT, &tb_dir, 0},
                           {"--json", CLI_FLAG, &c.json, 0},
                           {"--layers", CLI_FLAG, &c.layers, 0},
                           {NULL, 0, NULL, 0}};
  int n, rc = cli_parse_args("info", argc, argv, table, &file, 1, &n, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (n == 0) { /* where tables live */
    char look[4096], write[PATH_MAX + 128];
    dabtb_where(tb_dir, look, sizeof look, write, sizeof write);
    if (c.json) {
      printf("{\"lookup\":[");
      int k = 0;
      for (char *save = NULL, *d = strtok_r(look, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        printf("%s", k++ ? "," : "");
        cli_json_string(stdout, d);
      }
      printf("],\"write\":");
      cli_json_string(stdout, write);
      printf(",\"read_only\":%s}\n", dabtb_readonly() ? "true" : "false");
    } else {
      printf("%-24s %s\n", "tables looked up in", *look ? "" : "(no directory)");
      for (char *save = NULL, *d = strtok_r(look, ":", &save); d; d = strtok_r(NULL, ":", &save))
        printf("  %s\n", d);
      printf("%-24s %s\n", "new tables written to", write);
      printf("%-24s %s\n", "read-only mode", dabtb_readonly() ? "on (DAB_READONLY)" : "off");
    }
    return CLI_OK;
  }
  dabtb *tb;
  rc = tbcli_open("info", file, tb_dir, &tb);
  if (rc) return rc;
  dabtb_coverage cov;
  dabtb_get_coverage(tb, &cov);
  struct stat sb;
  const char *path = dabtb_path(tb); /* FILE may be a board name, found on the path */
  long long size = stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
  dab_err err;
  dab_status st = DAB_OK;
  if (c.json) {
    printf("{\"meta\":{");
    st = dabtb_meta_each(tb, print_meta, &c, &err);
    printf("},\"rows\":%d,\"cols\":%d,\"positions\":%llu,\"indexed\":%llu,\"canonical\":%llu,"
           "\"solved\":%llu,\"shapes\":%llu,\"table\":%s,\"file_bytes\":%lld}\n",
           cov.rows, cov.cols, (unsigned long long)cov.positions, (unsigned long long)cov.indexed,
           (unsigned long long)cov.canonical, (unsigned long long)cov.solved, (unsigned long long)cov.shapes,
           dabtb_has_table(tb) ? "true" : "false", size);
  } else { /* the summary first: what a reader asks; the meta records after */
    printf("%-24s %s\n", "file", path);
    if (dabtb_has_table(tb))
      printf("%-24s every position of the %dx%d board (%llu), from %llu stored values\n", "covers",
             cov.rows, cov.cols, (unsigned long long)cov.positions, (unsigned long long)cov.canonical);
    else
      printf("%-24s no table: a solved-only file of the %dx%d board (results of search)\n", "covers",
             cov.rows, cov.cols);
    printf("%-24s %llu records (bounds proved by search; docs/persistence.md)\n", "solved",
           (unsigned long long)cov.solved);
    if (cov.shapes)
      printf("%-24s %llu records (graph-keyed bounds a checkpoint saved, to seed a rerun)\n", "shapes",
             (unsigned long long)cov.shapes);
    if (size >= 0) printf("%-24s %lld\n", "file_bytes", size);
    putchar('\n');
    st = dabtb_meta_each(tb, print_meta, &c, &err);
    if (!st && c.layer_keys)
      printf("(%d per-layer records, entries and checksums: dab info FILE --layers)\n", c.layer_keys);
  }
  dabtb_close(tb);
  return st ? cli_error("info", st, err.msg) : CLI_OK;
}
