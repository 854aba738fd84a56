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
