/*
** main.c: the dab command-line tool; dispatches to cli/cmd_*.c.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/commands.h"

typedef struct command {
  const char *name, *summary;
  int (*run)(int argc, char **argv);
} command;

#define DAB_ENTRY(name, summary) {#name, summary, dab_cmd_##name},
static const command commands[] = {DAB_COMMANDS(DAB_ENTRY)};
#undef DAB_ENTRY

static void usage(FILE *f) {
  fprintf(f,
          "dab: Dots-and-Boxes solver and tablebase\n\n"
          "usage: dab COMMAND [ARGS...]      dab COMMAND --help for details\n\n"
          "Positions are RxC (empty board), RxC:DBN (one 0/1 per line, OpenSpiel ids)\n"
          "or RxC@m1,m2,... (lines played from the empty board).\n"
          "dab --read-only COMMAND (or DAB_READONLY=1): no query creates or changes a file.\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv) {
  /* dab --read-only COMMAND ...: no query creates or changes a file. */
  if (argc >= 2 && !strcmp(argv[1], "--read-only")) {
    setenv("DAB_READONLY", "1", 1);
    argv[1] = argv[0];
    argc--, argv++;
  }
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    usage(stdout);
    return 0;
  }
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (!strcmp(argv[1], commands[i].name)) return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "dab: unknown command '%s' (dab --help lists them)\n", argv[1]);
  return 2;
}
