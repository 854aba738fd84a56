/*
** cmd_serve.c: `dab serve`: the oracle and the players over HTTP/JSON, and
** the web analysis board, until Ctrl-C or SIGTERM.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "service/service.h"

static const char usage[] =
    "usage: dab serve [--port 8080] [--bind 127.0.0.1] [--tb DIR] [--threads N]\n"
    "                 [--search-node-limit N] [--no-search] [--max-body SIZE] [--max-batch N]\n"
    "                 [--max-connections N] [--timeout S] [--web DIR]\n\n"
    "Serves the oracle and the players over HTTP/JSON under /api/v1/ (analyze,\n"
    "play, boards, health; docs/API.md) and the web analysis board at /.\n"
    "Prints its URL; Ctrl-C or SIGTERM stops it.\n"
    "  --port N               port (default 8080; 0 = any free port)\n"
    "  --bind ADDR            address to listen on (default 127.0.0.1, loopback only)\n"
    "  --tb DIR               tablebase directory searched first\n"
    "  --threads N            threads of one search (default 1: the other cores\n"
    "                         keep answering table probes)\n"
    "  --search-node-limit N  search nodes one request may spend (default 2000000);\n"
    "                         past it the answer has \"exact\": false and the bounds proved\n"
    "  --no-search            answer only boards a table covers\n"
    "  --max-body SIZE        largest POST body (default 1M)\n"
    "  --max-batch N          most positions in one POST /analyze (default 1000)\n"
    "  --max-connections N    connections at once (default 1000)\n"
    "  --timeout S            seconds a connection may stay idle (default 10)\n"
    "  --web DIR              the web board's files (default: service/web beside\n"
    "                         the dab binary's checkout)\n";

/* The web board's folder: service/web of the checkout the binary was
** built in (bin/dab, or BUILD/bin/dab), else of the current directory. */
static bool find_web_dir(char *out, size_t len) {
  char exe[PATH_MAX / 2];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  const char *up[] = {"/..", "/../..", "/../share/dab"};
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    for (size_t i = 0; i < sizeof up / sizeof up[0]; i++) {
      snprintf(out, len, "%s%s/%s/index.html", exe, up[i], i == 2 ? "web" : "service/web");
      if (access(out, R_OK) == 0) {
        *strrchr(out, '/') = 0;
        return true;
      }
    }
  }
  snprintf(out, len, "service/web");
  return access("service/web/index.html", R_OK) == 0;
}

/* Parses a count option of at most max.  RETURN: true when good. */
static bool parse_u64(const char *s, unsigned long long max, unsigned long long *v) {
  if (!s || *s < '0' || *s > '9') return false;
  char *end;
  errno = 0;
  *v = strtoull(s, &end, 10);
  return !errno && !*end && *v <= max;
}

int dab_cmd_serve(int argc, char **argv) {
  dab_service_opts o = {.port = 8080};
  const char *port = NULL, *threads = NULL, *limit = NULL, *body = NULL, *batch = NULL, *conns = NULL,
             *timeout = NULL, *web = NULL;
  bool no_search = false;
  const cli_opt table[] = {{"--port", CLI_TEXT, &port, 0},
                           {"--bind", CLI_TEXT, &o.bind, 0},
                           {"--tb", CLI_TEXT, &o.tb_dir, 0},
                           {"--threads", CLI_TEXT, &threads, 0},
                           {"--search-node-limit", CLI_TEXT, &limit, 0},
                           {"--no-search", CLI_FLAG, &no_search, 0},
                           {"--max-body", CLI_TEXT, &body, 0},
                           {"--max-batch", CLI_TEXT, &batch, 0},
                           {"--max-connections", CLI_TEXT, &conns, 0},
                           {"--timeout", CLI_TEXT, &timeout, 0},
                           {"--web", CLI_TEXT, &web, 0},
                           {NULL, 0, NULL, 0}};
  int nargs, rc = cli_parse_args("serve", argc, argv, table, NULL, 0, &nargs, usage);
  if (rc) return rc < 0 ? CLI_OK : rc;
  o.no_search = no_search;
  unsigned long long v;
  struct { const char *text, *name; unsigned long long min, max; } nums[] = {
      {port, "--port", 0, 65535}, {threads, "--threads", 1, 256}, {limit, "--search-node-limit", 1, ULLONG_MAX},
      {batch, "--max-batch", 1, 1000000}, {conns, "--max-connections", 1, 100000}, {timeout, "--timeout", 1, 86400}};
  for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
    if (nums[i].text && (!parse_u64(nums[i].text, nums[i].max, &v) || v < nums[i].min)) {
      fprintf(stderr, "dab serve: %s needs a whole number %llu..%llu, got '%s'\n", nums[i].name, nums[i].min,
              nums[i].max, nums[i].text);
      return CLI_USAGE;
    }
  if (port) o.port = atoi(port);
  if (threads) o.search_threads = atoi(threads);
  if (limit) o.search_node_limit = strtoull(limit, NULL, 10);
  if (batch) o.max_batch = atoi(batch);
  if (conns) o.max_connections = atoi(conns);
  if (timeout) o.timeout = (unsigned)atoi(timeout);
  if (body && !(o.max_body = (size_t)cli_parse_size(body))) {
    fprintf(stderr, "dab serve: --max-body needs a size such as 64k or 1M, got '%s'\n", body);
    return CLI_USAGE;
  }
  static char web_dir[PATH_MAX];
  if (web) snprintf(web_dir, sizeof web_dir, "%s", web);
  else if (!find_web_dir(web_dir, sizeof web_dir)) {
    fprintf(stderr, "dab serve: cannot find the web board (service/web/index.html beside the dab binary's "
                    "checkout); give --web DIR\n");
    return CLI_FAIL;
  }
  o.web_dir = web_dir;
  signal(SIGPIPE, SIG_IGN);
  dab_cancel_flag *stop = cli_cancel_on_signal();
  dab_err err;
  dab_service *s;
  dab_status st = dab_service_new(&o, &s, &err);
  if (!st && (st = dab_service_start(s, &err))) dab_service_free(s);
  if (st) return cli_error("serve", st, err.msg);
  const char *host = o.bind ? o.bind : "127.0.0.1";
  bool v6 = strchr(host, ':') != NULL;
  printf("dab serve: listening on http://%s%s%s:%d/  (API: /api/v1/analyze, play, boards, health; Ctrl-C stops)\n",
         v6 ? "[" : "", host, v6 ? "]" : "", dab_service_port(s));
  fflush(stdout);
  struct timespec tick = {0, 100 * 1000 * 1000};
  while (!*stop) nanosleep(&tick, NULL);
  uint64_t requests, errors;
  dab_service_counts(s, &requests, &errors);
  dab_service_free(s);
  cli_note("dab serve stopped after %llu request%s (%llu answered 4xx/5xx)", (unsigned long long)requests,
           requests == 1 ? "" : "s", (unsigned long long)errors);
  return CLI_OK;
}
