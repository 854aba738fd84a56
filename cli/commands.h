/*
** commands.h: the table of dab subcommands.  Each lives in cli/cmd_NAME.c
** as `int dab_cmd_NAME(int argc, char **argv)` (argv[0] is the name) and
** returns the process exit code: 0 ok, 1 failure, 2 bad input.
** See Copyright Notice in README.md
*/
#ifndef DAB_COMMANDS_H
#define DAB_COMMANDS_H

/* X(name, one-line summary) -- keep in the order `dab --help` lists them. */
#define DAB_COMMANDS(X)                                                        \
  X(show, "draw a position as ASCII")

#define DAB_DECLARE(name, summary) int dab_cmd_##name(int argc, char **argv);
DAB_COMMANDS(DAB_DECLARE)
#undef DAB_DECLARE

#endif
