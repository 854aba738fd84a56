/*
** cliutil.c: shared helpers of the dab subcommands.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/cliutil.h"

int cli_exit_code(dab_status st) {
  if (st == DAB_OK) return CLI_OK;
  return (st == DAB_EINPUT || st == DAB_EBOARD) ? CLI_USAGE : CLI_FAIL;
}

/* Ends an error line with msg, kept on one line ("\n" inside becomes "; "). */
static void cli_error_tail(const char *msg) {
  for (const char *s = msg; *s; s++) {
    if (*s == '\n' && s[1]) fputs("; ", stderr);
    else if (*s != '\n' && *s != '\r') fputc(*s, stderr);
  }
  fputc('\n', stderr);
}

int cli_error(const char *cmd, dab_status st, const char *msg) {
  fprintf(stderr, "dab %s: ", cmd);
  cli_error_tail(msg);
  return cli_exit_code(st);
}

int cli_parse_position(const char *cmd, const char *text, dab_parsed *out) {
  dab_err err;
  dab_status st = dab_parse_position(text, out, &err);
  return st ? cli_error(cmd, st, err.msg) : 0;
}

bool cli_help_requested(int argc, char **argv, const char *usage) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      fputs(usage, stdout);
      return true;
    }
  return false;
}

long cli_parse_count(const char *cmd, const char *opt, const char *text, long max) {
  char *end;
  errno = 0;
  long v = text ? strtol(text, &end, 10) : 0;
  if (!text || errno || *end || v < 1 || v > max) {
    fprintf(stderr, "dab %s: %s needs a whole number from 1 to %ld, got '%s'\n", cmd, opt, max,
            text ? text : "");
    return -1;
  }
  return v;
}

void cli_print_analysis(FILE *f, const dab_geom *g, const dab_analysis *a, bool json,
                        const char *extra_json) {
  if (json) {
    fprintf(f, "{\"rows\":%d,\"cols\":%d,\"value\":%d,\"moves\":[", g->rows, g->cols, a->value);
    for (int i = 0; i < a->nmoves; i++)
      fprintf(f, "%s{\"move\":%d,\"value\":%d}", i ? "," : "", a->move[i], a->move_value[i]);
    fprintf(f, "],\"best\":[");
    for (int i = 0; i < a->nbest; i++) fprintf(f, "%s%d", i ? "," : "", a->best[i]);
    fprintf(f, "]%s%s}\n", extra_json && *extra_json ? "," : "", extra_json ? extra_json : "");
    return;
  }
  fprintf(f, "value %+d  (net boxes the player to move gains from here)\n", a->value);
  if (a->nmoves) {
    fprintf(f, "moves");
    for (int i = 0; i < a->nmoves; i++) fprintf(f, " %d:%+d", a->move[i], a->move_value[i]);
    fprintf(f, "\nbest ");
    for (int i = 0; i < a->nbest; i++) fprintf(f, " %d", a->best[i]);
    fprintf(f, "\n");
  } else {
    fprintf(f, "game over: no moves left\n");
  }
}

static bool progress_drawn;

void cli_progress(void *ctx, const dab_progress *p) {
  (void)ctx;
  if (!isatty(STDERR_FILENO)) return;
  double rate = p->elapsed > 0 ? (double)p->done / p->elapsed : 0;
  if (p->total) {
    double left = rate > 0 ? (double)(p->total - p->done) / rate : 0;
    fprintf(stderr, "\r%s: %5.1f%%  %.3g/s  ETA %.0fs   ", p->what, 100.0 * (double)p->done / (double)p->total,
            rate, left);
  } else {
    fprintf(stderr, "\r%s: %llu  %.3g/s  %.0fs   ", p->what, (unsigned long long)p->done, rate,
            p->elapsed);
  }
  progress_drawn = true;
}

void cli_progress_end(void) {
  if (progress_drawn) fprintf(stderr, "\r\033[K");
  progress_drawn = false;
}

static volatile sig_atomic_t cancel_flag;
static struct timespec first_signal; /* written by on_signal alone */

/* The first SIGINT or SIGTERM asks for a clean stop; one that comes a second
** or more later exits at once.  An earlier one is the same request delivered
** twice: `timeout -s INT` signals its child and then its process group, and
** a handler that ran between the two would otherwise kill a run that was
** writing its checkpoint.  clock_gettime is async-signal-safe. */
static void on_signal(int sig) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (!cancel_flag) {
    first_signal = now;
    cancel_flag = 1;
    return;
  }
  double since = (double)(now.tv_sec - first_signal.tv_sec) + 1e-9 * (double)(now.tv_nsec - first_signal.tv_nsec);
  if (since >= 1.0) _exit(128 + sig);
}

dab_cancel_flag *cli_cancel_on_signal(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  return &cancel_flag;
}

int cli_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

void cli_note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("note: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void cli_announce_memory(const char *cmd, const char *what, unsigned long long bytes) {
  (void)cmd;
  if (bytes >= 64ull << 20) cli_note("%s needs %.0f MiB of memory", what, (double)bytes / 1048576.0);
}

int cli_check_tb_dir(const char *cmd, const char *dir) {
  struct stat sb;
  if (!dir || !*dir) {
    fprintf(stderr, "dab %s: --tb needs a directory\n", cmd);
    return CLI_USAGE;
  }
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    fprintf(stderr, "dab %s: --tb %s: %s\n", cmd, dir,
            stat(dir, &sb) != 0 ? "no such directory" : "not a directory");
    return CLI_USAGE;
  }
  return 0;
}

int cli_parse_args(const char *cmd, int argc, char **argv, const cli_opt *opts, const char **args,
                   int max_args, int *nargs, const char *usage) {
  *nargs = 0;
  if (cli_help_requested(argc, argv, usage)) return -1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] == '-' && a[1]) {
      const cli_opt *o = opts;
      while (o->name && strcmp(o->name, a)) o++;
      if (!o->name) {
        fprintf(stderr, "dab %s: unknown option '%s' (dab %s --help)\n", cmd, a, cmd);
        return CLI_USAGE;
      }
      if (o->kind == CLI_FLAG) {
        *(bool *)o->target = true;
        continue;
      }
      const char *val = i + 1 < argc ? argv[++i] : NULL;
      if (o->kind == CLI_TEXT) {
        if (!val) {
          fprintf(stderr, "dab %s: %s needs a value\n", cmd, a);
          return CLI_USAGE;
        }
        *(const char **)o->target = val;
        if (!strcmp(o->name, "--tb") && cli_check_tb_dir(cmd, val)) return CLI_USAGE;
      } else {
        long n = cli_parse_count(cmd, a, val, o->max);
        if (n < 0) return CLI_USAGE;
        *(long *)o->target = n;
      }
    } else if (*nargs < max_args) {
      args[(*nargs)++] = a;
    } else {
      fprintf(stderr, "dab %s: unexpected extra argument '%s' (dab %s --help)\n", cmd, a, cmd);
      return CLI_USAGE;
    }
  }
  return 0;
}

void cli_print_components_json(FILE *f, const dab_sc_view *v) {
  fprintf(f, "\"components\":[");
  for (int i = 0; i < v->ncomp; i++)
    fprintf(f, "%s{\"kind\":\"%s\",\"coins\":%d}", i ? "," : "", dab_sc_kind_name(v->comp[i].kind),
            v->comp[i].coins);
  fprintf(f, "]");
}

uint64_t cli_parse_size(const char *s) {
  if (!s || !*s) return 0;
  char *end;
  double v = strtod(s, &end);
  if (end == s || v <= 0) return 0;
  double mul = 1;
  if (*end == 'k' || *end == 'K') mul = 1024.0, end++;
  else if (*end == 'm' || *end == 'M') mul = 1024.0 * 1024, end++;
  else if (*end == 'g' || *end == 'G') mul = 1024.0 * 1024 * 1024, end++;
  if (*end == 'i' && end[1] == 'B') end += 2;
  else if (*end == 'B') end++;
  if (*end) return 0;
  double b = v * mul;
  return b < 64 || b > 1e13 ? 0 : (uint64_t)b;
}

void cli_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 32) fprintf(f, "\\u%04x", *s);
    else fputc(*s, f);
  }
  fputc('"', f);
}

/* The error object of one batch line, flushed. */
static void batch_error_object(FILE *f, long line, const char *input, const char *msg) {
  fprintf(f, "{\"line\":%ld,\"input\":", line);
  cli_json_string(f, input);
  fputs(",\"error\":", f);
  cli_json_string(f, msg);
  fputs("}\n", f);
  fflush(f);
}

void cli_batch_error(FILE *f, const char *cmd, long line, const char *input, const char *msg) {
  batch_error_object(f, line, input, msg);
  char where[32];
  snprintf(where, sizeof where, "line %ld: ", line);
  fprintf(stderr, "dab %s: %s", cmd, where);
  cli_error_tail(msg);
}

int cli_batch_failure(FILE *f, const char *cmd, long line, const char *input, dab_status st, const char *msg,
                      bool *damage_said) {
  bool damage = st == DAB_ECORRUPT || st == DAB_EIO;
  if (!damage) {
    cli_batch_error(f, cmd, line, input, msg);
    return cli_exit_code(st);
  }
  /* The JSON object for this line; stderr only once: a damaged block can
  ** fail thousands of lines, and the file's name and check are the news. */
  batch_error_object(f, line, input, msg);
  if (!*damage_said) {
    *damage_said = true;
    fprintf(stderr, "dab %s: line %ld: ", cmd, line);
    cli_error_tail(msg);
    fprintf(stderr, "dab %s: going on: lines that need a damaged block get an error object; "
                    "the exit status will be 1\n", cmd);
  }
  return cli_exit_code(st);
}

bool cli_on_path(const char *prog) {
  const char *path = getenv("PATH");
  if (!path) path = "/usr/bin:/bin";
  char buf[4096];
  while (*path) {
    const char *colon = strchr(path, ':');
    size_t len = colon ? (size_t)(colon - path) : strlen(path);
    snprintf(buf, sizeof buf, "%.*s/%s", (int)len, path, prog);
    if (access(buf, X_OK) == 0) return true;
    path += len + (colon ? 1 : 0);
  }
  return false;
}

void cli_gnuplot_quoted(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'') fputc('\'', f);
    fputc(*s, f);
  }
  fputc('\'', f);
}
