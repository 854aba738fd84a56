/*
** cmd_dataset.c: `dab dataset RxC --steps S -o DIR`: exact-labelled data
** sets of self-play positions as numpy shards and a manifest.  The work is
** the Python package's (python/dab/_dataset_make.py, run under
** /usr/bin/python3): its labels, observations and players are one call
** each into libdab through the package, and .npz files are numpy's own.
** This file prints the help and starts the interpreter in its place, so
** Ctrl-C, the exit code and stderr are the Python run's.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "agents/agent.h"
#include "players/player.h"

static const char usage[] =
    "usage: dab dataset RxC --steps LIST -o DIR [--count N] [--sampler SPEC] [--explore P]\n"
    "                   [--dedup] [--test-fraction F] [--obs openspiel|planes]\n"
    "                   [--node-limit N] [--hash SIZE] [--jobs N] [--seed S]\n"
    "                   [--shard-size N] [--max-games N] [--tb DIR]\n\n"
    "Plays self-play games of SPEC on RxC (any board of up to 64 lines: 5x5), takes\n"
    "N positions at each step (lines drawn) of LIST, and labels every one with the\n"
    "exact oracle (the board's tablebase, a table solved in memory, or alpha-beta\n"
    "search): the value, every move's value, the optimal moves, win/draw/loss with\n"
    "the moves that keep it, and the observation.  Writes DIR/manifest.json and numpy\n"
    "shards DIR/train-NNNNN.npz, DIR/test-NNNNN.npz; load them in Python with\n"
    "dab.dataset.load(DIR) or dab.dataset.TorchDataset(DIR) (docs/python.md).\n"
    "Values are net boxes the player to move gains from here on; -128 marks a drawn\n"
    "line or a label a node limit left open.\n\n"
    "  --steps LIST        moves played: 22-30, 18,20, 4-8,12, or all (required)\n"
    "  -o DIR              the data set's folder (made when missing; a rerun with the\n"
    "                      same options continues it)\n"
    "  --count N           positions per step (default 100)\n"
    "  --sampler SPEC      the player of both sides (default chain; specs below,\n"
    "                      trained agents too: az:FILE, q:FILE, ...)\n"
    "  --explore P         each move is a uniformly random one with probability P\n"
    "                      (default 0), for samplers that repeat their games\n"
    "  --dedup             keep the first position of each Strings-and-Coins graph key\n"
    "                      (symmetry/sckey.h: board symmetries and every position with\n"
    "                      an isomorphic graph share one); the default keeps repeats\n"
    "  --test-fraction F   the share of games whose positions form the test split\n"
    "                      (default 0.1): whole games, by a hash of the seed and the\n"
    "                      game's number, so no game feeds both splits\n"
    "  --obs LAYOUT        openspiel: [3, (R+1)(C+1), 3] (default); planes: [4, R+1, C+1]\n"
    "  --node-limit N      stop each search after about N nodes: bounds (lower, upper)\n"
    "                      and exact=false there instead of values (default: exact)\n"
    "  --hash SIZE         each job's search table, e.g. 256M (default: the oracle's\n"
    "                      size for the earliest step, at most 2G and half the job's\n"
    "                      share of the available memory)\n"
    "  --jobs N            labelling and sampling processes (default: all cores); the\n"
    "                      plan printed first says the memory, N x (table + process),\n"
    "                      and a plan that does not fit is refused\n"
    "  --seed S            games, split and files follow from S (default 1)\n"
    "  --shard-size N      positions per shard (default 4096 from a table, 256 by search)\n"
    "  --max-games N       stop sampling after N games (default max(1000, 20 x count))\n"
    "  --tb DIR            tablebase directory searched first\n\n"
    "Ctrl-C keeps every finished shard (exit 1); the same command again checks them\n"
    "against the manifest's SHA-256, redoes a damaged or missing one and finishes the\n"
    "rest, writing the files an uninterrupted run writes.  A progress line with the\n"
    "rate and ETA is drawn on a terminal.  Needs /usr/bin/python3 with numpy\n"
    "($DAB_PYTHON names another interpreter).\n\nplayers:\n";

/* The folder that holds the package dab/ with the data set maker: beside
** the program (up to three folders up: a checkout's python/, or the
** lib/python3.X/dist-packages/ of `make install`), else ./python. */
static bool find_package(char *out, size_t cap) {
  char file[PATH_MAX];
  if (cap < PATH_MAX || !dab_python_package_file("_dataset_make.py", file, sizeof file) || !realpath(file, out))
    return false;
  *strrchr(out, '/') = 0; /* .../dab */
  *strrchr(out, '/') = 0; /* .../python or .../dist-packages */
  return true;
}

/* The Python side loads the libdab.so built with this program (the
** folder above bin/, or the prefix's lib/), unless $DAB_LIB names one. */
static void set_library(void) {
  const char *env = getenv("DAB_LIB");
  if (env && *env) return;
  char exe[PATH_MAX], lib[PATH_MAX + 32];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return;
  *slash = 0;
  static const char *const rel[] = {"../libdab.so", "../lib/libdab.so"};
  for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
    snprintf(lib, sizeof lib, "%s/%s", exe, rel[i]);
    char real[PATH_MAX];
    if (access(lib, R_OK) == 0 && realpath(lib, real)) {
      setenv("DAB_LIB", real, 1);
      return;
    }
  }
}

int dab_cmd_dataset(int argc, char **argv) {
  static char help[sizeof usage + 4096];
  snprintf(help, sizeof help, "%s%s", usage, dab_player_help);
  if (cli_help_requested(argc, argv, help)) return CLI_OK;
  char pkg[PATH_MAX + 64];
  if (!find_package(pkg, sizeof pkg))
    return cli_error("dataset", DAB_EIO, "python/dab/_dataset_make.py not found beside the program "
                     "(a checkout's python/, or the package of `make install`)");
  set_library();
  const char *py = getenv("DAB_PYTHON");
  if (!py || !*py) py = "/usr/bin/python3";
  /* -c, not -m: the package is put first on the path, so a dab/ folder in
  ** the working directory cannot stand in for it. */
  static const char boot[] =
      "import sys\n"
      "sys.path.insert(0, sys.argv.pop(1))\n"
      "try:\n"
      "    from dab._dataset_make import main\n"
      "except ImportError as e:\n" /* an interpreter without numpy: one line, exit 1 */
      "    sys.exit('dab dataset: %s' % (str(e).splitlines() or [e])[0])\n"
      "sys.exit(main(sys.argv[1:]))\n";
  char **args = calloc((size_t)argc + 4, sizeof *args);
  if (!args) return cli_error("dataset", DAB_ENOMEM, "out of memory");
  int k = 0;
  /* argv[0] is the interpreter's path: Python takes sys.executable from
  ** it, and the worker processes it starts run sys.executable. */
  args[k++] = (char *)py;
  args[k++] = (char *)"-c";
  args[k++] = (char *)boot;
  args[k++] = pkg;
  for (int i = 1; i < argc; i++) args[k++] = argv[i];
  args[k] = NULL;
  fflush(NULL);
  execv(py, args);
  char msg[PATH_MAX + 128];
  snprintf(msg, sizeof msg, "cannot run %s: %s (install python3 and python3-numpy, or set DAB_PYTHON)", py, strerror(errno));
  free(args);
  return cli_error("dataset", DAB_EIO, msg);
}
