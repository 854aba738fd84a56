/*
** cliutil.h: what every dab subcommand shares: position arguments, error
** reporting and exit codes, result printing, progress lines, Ctrl-C.
** See Copyright Notice in README.md
*/
#ifndef DAB_CLIUTIL_H
#define DAB_CLIUTIL_H

#include <stdbool.h>
#include <stdio.h>
#include "game/postext.h"
#include "game/progress.h"
#include "game/sc.h"
#include "game/analysis.h"

/* Exit codes of the dab command. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Maps a library status to an exit code: bad input or board -> 2, else 1. */
int cli_exit_code(dab_status st);

/* Prints "dab CMD: MESSAGE" on stderr, on one line (a newline inside MESSAGE
** becomes "; "), and returns cli_exit_code(st). */
int cli_error(const char *cmd, dab_status st, const char *msg);

/* --tb DIR must name an existing directory (cli_parse_args checks every
** "--tb" option).  RETURN: 0, or CLI_USAGE after a one-line error. */
int cli_check_tb_dir(const char *cmd, const char *dir);

/* Parses a position argument.  RETURN: 0, or the exit code after printing
** a one-line error naming the problem. */
int cli_parse_position(const char *cmd, const char *text, dab_parsed *out);

/* True if argv holds --help or -h; then prints usage on stdout. */
bool cli_help_requested(int argc, char **argv, const char *usage);

/* One option of a subcommand, for cli_parse_args. */
typedef enum { CLI_FLAG, CLI_COUNT, CLI_TEXT } cli_opt_kind;
typedef struct cli_opt {
  const char *name;      /* "--json" */
  cli_opt_kind kind;     /* FLAG sets *(bool *)target; COUNT parses 1..max
                            into *(long *)target; TEXT stores the next word
                            in *(const char **)target */
  void *target;
  long max;
} cli_opt;

/*
** Parses argv[1..] against opts (terminated by a {NULL} entry): options
** anywhere, and up to max_args plain words into args[] (count in *nargs).
** "--help"/"-h" prints usage and returns -1 (the caller exits 0).
** RETURN: 0, -1 for help, or CLI_USAGE after printing a one-line error
** (unknown option, missing or bad value, too many words).
*/
int cli_parse_args(const char *cmd, int argc, char **argv, const cli_opt *opts, const char **args,
                   int max_args, int *nargs, const char *usage);

/* Parses a positive integer option value; prints an error and returns -1
** when it is not one. */
long cli_parse_count(const char *cmd, const char *opt, const char *text, long max);

/*
** Prints an analysis: text for humans, or one JSON object
**   {"rows","cols","value","moves":[{"move","value"}...],"best":[...]}
** followed by extra_json (already formatted `"key":value` pairs, or NULL)
** before the closing brace.
*/
void cli_print_analysis(FILE *f, const dab_geom *g, const dab_analysis *a, bool json,
                        const char *extra_json);

/* Prints `"components":[{"kind","coins"}...]` (no leading comma) for the
** Strings-and-Coins components of a view. */
void cli_print_components_json(FILE *f, const dab_sc_view *v);

/* Writes s to f as a JSON string: quoted, with '"', '\\' and control
** characters escaped (other bytes, UTF-8 included, as they are). */
void cli_json_string(FILE *f, const char *s);

/*
** A bad line of a batch mode (`dab solve -`, `dab probe FILE -`): writes
** {"line":N,"input":"...","error":"..."} on f (the one shape of every batch
** mode; N counts stdin lines from 1) and "dab CMD: line N: MESSAGE" on stderr.
*/
void cli_batch_error(FILE *f, const char *cmd, long line, const char *input, const char *msg);

/*
** The result of one failed batch line, by its status st: writes the error
** object on f as cli_batch_error does.  A damaged file (DAB_ECORRUPT,
** DAB_EIO) is said on stderr the first time only (*damage_said, false at
** the start of the batch, becomes true), with a note that the batch goes
** on; any other failure is said on every line.
** RETURN: the line's exit status (cli_exit_code(st)): the batch exits with
** the largest.
*/
int cli_batch_failure(FILE *f, const char *cmd, long line, const char *input, dab_status st, const char *msg,
                      bool *damage_said);

/* A dab_progress_fn that draws one updating line on stderr when stderr is
** a terminal (rate and ETA), and prints nothing otherwise. */
void cli_progress(void *ctx, const dab_progress *p);

/* Ends the progress line, if one was drawn. */
void cli_progress_end(void);

/* Installs SIGINT/SIGTERM handlers that raise the returned flag; a second
** Ctrl-C exits at once. */
dab_cancel_flag *cli_cancel_on_signal(void);

/* Says on stderr how much memory a plan needs, when it is large enough to
** matter (>= 64 MiB), before the work starts: a note (cli_note), not an
** error.  cmd is kept for the callers; notes carry no command prefix. */
void cli_announce_memory(const char *cmd, const char *what, unsigned long long bytes);

/* A note on stderr, "note: TEXT": what a successful run wants the user to
** know (memory, where results went).  Errors alone start "dab CMD: ", so
** a script can tell them apart by the first word. */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses a size: 512M, 4G, 64k, 1048576 (an optional "iB" or "B" after
** the unit).  RETURN: bytes, or 0 when s is not a size of 64 bytes to
** 10^13. */
uint64_t cli_parse_size(const char *s);

/* True when an executable prog is on $PATH (e.g. "gnuplot"). */
bool cli_on_path(const char *prog);

/* Writes s to f as a gnuplot single-quoted string ('' for a quote). */
void cli_gnuplot_quoted(FILE *f, const char *s);

/* Processor count, for default --threads. */
int cli_cores(void);

#endif
