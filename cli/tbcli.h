/*
** tbcli.h: what the tablebase subcommands (probe, info, check, verify)
** share: opening a FILE argument that may also name a board.
** See Copyright Notice in README.md
*/
#ifndef DAB_TBCLI_H
#define DAB_TBCLI_H

#include "tablebase/dabtb.h"

/*
** Opens the tablebase FILE for subcommand cmd.  FILE is a path; when no
** such file exists and FILE is "RxC" or "RxC.dab", the board's file is
** looked up on the search path (tb_dir, $DAB_TB_PATH, data/tb/), and
** boards up to 3x3 are built on first use.
** RETURN: 0 and *out, or the exit code after printing a one-line error
** (2 for a missing file or one that is not a tablebase).
*/
int tbcli_open(const char *cmd, const char *file, const char *tb_dir, dabtb **out);

/*
** Prints a failure of the open file FILE (resolved to path, may be NULL):
** "dab CMD: FILE: MSG" on one line, naming the file once (not again when
** msg already starts with FILE or path).  RETURN: 1 (CLI_FAIL).
*/
int tbcli_file_error(const char *cmd, const char *file, const char *path, dab_status st,
                     const char *msg);

#endif
