/*
** tbcli.c: opening tablebase arguments for the CLI.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "cli/cliutil.h"
#include "cli/tbcli.h"

int tbcli_open(const char *cmd, const char *file, const char *tb_dir, dabtb **out) {
  dab_err err;
  struct stat sb;
  dab_status st;
  *out = NULL;
  if (stat(file, &sb) != 0 && !strchr(file, '/')) {
    int rows, cols;
    size_t used;
    if (dab_parse_board(file, &rows, &cols, &used, NULL) == DAB_OK &&
        (!file[used] || !strcmp(file + used, ".dab"))) {
      st = dabtb_open_board(rows, cols, tb_dir, out, &err);
      if (st == DAB_EIO) st = DAB_EINPUT; /* not found: a bad argument */
      return st ? cli_error(cmd, st, err.msg) : 0;
    }
  }
  st = dabtb_open(file, NULL, out, &err);
  if (st == DAB_EINPUT) { /* dab's other files: say what they are and what reads them */
    char head[8] = {0};
    FILE *f = fopen(file, "rb");
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f) fclose(f);
    const char *kind = NULL;
    if (got == 8 && !memcmp(head, "DABMODEL", 8))
      kind = "a trained agent's model (dab train), not a tablebase: it plays as KIND:FILE, e.g. "
             "dab arena --p1 q:FILE (docs/agents.md)";
    else if (got == 8 && !memcmp(head, "DABRULES", 8))
      kind = "a rule file (dab train erl or econ), not a tablebase: it plays as erl:FILE or econ:FILE "
             "(docs/agents.md)";
    if (kind) {
      char line[DAB_ERR_LEN + 4200];
      snprintf(line, sizeof line, "%.4096s: %s", file, kind);
      return cli_error(cmd, st, line);
    }
  }
  return st ? cli_error(cmd, st, err.msg) : 0;
}

/* True when msg starts with "NAME:". */
static bool names(const char *msg, const char *name) {
  size_t n = name ? strlen(name) : 0;
  return n && !strncmp(msg, name, n) && msg[n] == ':';
}

int tbcli_file_error(const char *cmd, const char *file, const char *path, dab_status st,
                     const char *msg) {
  char line[DAB_ERR_LEN + 4200];
  if (names(msg, file) || names(msg, path)) snprintf(line, sizeof line, "%s", msg);
  else snprintf(line, sizeof line, "%.4096s: %s", file, msg);
  cli_error(cmd, st, line);
  return CLI_FAIL;
}
