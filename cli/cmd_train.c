/*
** cmd_train.c: `dab train KIND`: one front end for every learning agent.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agents/agent.h"
#include "agents/az.h"
#include "cli/cliutil.h"
#include "cli/commands.h"

static const char usage[] =
    "usage: dab train KIND --out FILE [--board RxC] [--games N | --generations N]\n"
    "                 [--seed S] [--threads N] [--log FILE.csv] [--snapshot N]\n"
    "                 [--grade-games N] [--resume FILE] [--checkpoint FILE]\n"
    "                 [--stop-at N] [--tb DIR] [--oracle-lines N] [--KEY[=]VALUE ...]\n"
    "       dab train az --export CKPT --out FILE\n\n"
    "Trains an agent of KIND and writes its model file to --out (a player:\n"
    "KIND:FILE in dab arena and dab play).  Every snapshot (--snapshot N games or\n"
    "generations; default: the kind's) is graded against the oracle and appended\n"
    "to --log as one CSV row: win rates against random and level1 (--grade-games\n"
    "games each, default 300, both colours), the optimal-move rate, the result-\n"
    "keeping rate and the boxes lost per move (draw it with dab plot).\n\n"
    "  --board RxC        default 3x3\n"
    "  --seed S           default 1; with --threads 1 a run is reproducible exactly\n"
    "  --threads N        default 1\n"
    "  Ctrl-C             writes the training state to --checkpoint (default\n"
    "                     OUT.ckpt); --resume FILE continues from it, and with one\n"
    "                     thread ends with the same model as an uninterrupted run\n"
    "  --stop-at N        the same after N games (generations), then exit 0\n"
    "  --export CKPT      az: write the model a stopped run's checkpoint holds to\n"
    "                     --out, without its training state (kilobytes, for az:FILE);\n"
    "                     it takes no other option: the checkpoint holds them\n"
    "  --KEY=VALUE        options of the kind (below; --KEY VALUE too)\n\n"
    "kinds:\n";

static void print_usage(FILE *f) {
  fputs(usage, f);
  for (const dab_agent_kind *k = dab_agent_kinds; k->name; k++)
    fprintf(f, "  %-6s %s\n%s", k->name, k->summary, k->help);
}

/* The directory of path can take a new file, and path (if present) is
** writable.  RETURN: true, or false with errno set. */
static bool writable(const char *path) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  const char *dir = dirname(buf);
  if (access(dir, W_OK | X_OK) != 0) return false;
  if (access(path, F_OK) == 0 && access(path, W_OK) != 0) return false;
  return true;
}

/* Value of option `name` at argv[*i]: "--name=V" or "--name V". */
static const char *opt_value(int argc, char **argv, int *i, const char *name, bool *matched) {
  size_t n = strlen(name);
  const char *a = argv[*i];
  *matched = false;
  if (strncmp(a, name, n) != 0) return NULL;
  if (a[n] == '=') {
    *matched = true;
    return a + n + 1;
  }
  if (a[n] != 0) return NULL;
  *matched = true;
  if (*i + 1 >= argc) return NULL;
  return argv[++*i];
}

int dab_cmd_train(int argc, char **argv) {
  const char *cmd = "train";
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      print_usage(stdout);
      return CLI_OK;
    }
  if (argc < 2 || argv[1][0] == '-') {
    print_usage(stderr);
    return CLI_USAGE;
  }
  const dab_agent_kind *kind = dab_agent_kind_find(argv[1]);
  if (!kind) {
    char names[256] = "";
    for (const dab_agent_kind *k = dab_agent_kinds; k->name; k++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", names[0] ? ", " : "",
               k->name);
    fprintf(stderr, "dab train: unknown kind '%s' (kinds: %s)\n", argv[1], names);
    return CLI_USAGE;
  }
  const char *board = "3x3", *out = NULL, *log = NULL, *resume = NULL, *ckpt = NULL, *tb = NULL,
             *export_from = NULL;
  long games = 0, gens = 0, threads = 1, snap = 0, grade_games = 0, stop_at = 0, oracle_lines = 0;
  uint64_t seed = 1;
  const char *first_other = NULL; /* the first option besides --out and --export */
  dab_kopts kopts;
  memset(&kopts, 0, sizeof kopts);
  static const struct {
    const char *name;
    int text;  /* 1: text, 0: count */
  } known[] = {{"--board", 1}, {"--out", 1},       {"--log", 1},        {"--resume", 1},
               {"--checkpoint", 1}, {"--tb", 1},   {"--export", 1},     {"--seed", 1},  {"--games", 0},
               {"--generations", 0}, {"--threads", 0}, {"--snapshot", 0}, {"--grade-games", 0},
               {"--stop-at", 0}, {"--oracle-lines", 0}};
  const char **text_target[] = {&board, &out, &log, &resume, &ckpt, &tb, &export_from};
  long *count_target[] = {&games, &gens, &threads, &snap, &grade_games, &stop_at, &oracle_lines};
  for (int i = 2; i < argc; i++) {
    bool done = false;
    for (size_t k = 0; k < sizeof known / sizeof *known && !done; k++) {
      bool matched;
      const char *v = opt_value(argc, argv, &i, known[k].name, &matched);
      if (!matched) continue;
      done = true;
      if (!first_other && strcmp(known[k].name, "--out") && strcmp(known[k].name, "--export"))
        first_other = known[k].name;
      if (!v) {
        fprintf(stderr, "dab train: %s needs a value\n", known[k].name);
        return CLI_USAGE;
      }
      if (!strcmp(known[k].name, "--seed")) {
        char *end;
        errno = 0;
        seed = strtoull(v, &end, 10);
        if (!*v || *end || errno || *v == '-') {
          fprintf(stderr, "dab train: --seed needs a whole number >= 0, got '%s'\n", v);
          return CLI_USAGE;
        }
      } else if (known[k].text) {
        *text_target[k] = v;
        if (!strcmp(known[k].name, "--tb") && cli_check_tb_dir(cmd, v)) return CLI_USAGE;
      } else {
        long x = cli_parse_count(cmd, known[k].name, v, 2000000000L);
        if (x < 0) return CLI_USAGE;
        *count_target[k - 8] = x;
      }
    }
    if (done) continue;
    const char *a = argv[i];
    if (strncmp(a, "--", 2) != 0 || !a[2]) {
      fprintf(stderr, "dab train: unexpected argument '%s' (dab train --help)\n", a);
      return CLI_USAGE;
    }
    if (kopts.n == DAB_KOPTS_MAX) {
      fprintf(stderr, "dab train: too many options\n");
      return CLI_USAGE;
    }
    /* --KEY=VALUE or --KEY VALUE for the kind (the command takes no
    ** argument after KIND that is not an option, so a word that does not
    ** start with "--" is the value); the key points into argv, cut at '='. */
    char *eq = strchr(argv[i], '=');
    if (eq) *eq = 0;
    if (!first_other) first_other = argv[i];
    kopts.key[kopts.n] = argv[i] + 2;
    if (!eq && i + 1 < argc && strncmp(argv[i + 1], "--", 2)) kopts.val[kopts.n++] = argv[++i];
    else kopts.val[kopts.n++] = eq ? eq + 1 : "";
  }
  if (!out) {
    fprintf(stderr, "dab train: --out FILE is required\n");
    return CLI_USAGE;
  }
  if (export_from) {
    if (strcmp(kind->name, "az") != 0) {
      fprintf(stderr, "dab train: --export takes an az checkpoint, not %s\n", kind->name);
      return CLI_USAGE;
    }
    /* the model's settings all come from the checkpoint: an option that
    ** would be ignored is refused rather than silently dropped */
    if (first_other) {
      fprintf(stderr, "dab train: --export takes only --out (the checkpoint holds the rest), not %s\n",
              first_other);
      return CLI_USAGE;
    }
    if (!writable(out)) {
      fprintf(stderr, "dab train: cannot write %s: %s\n", out, strerror(errno));
      return CLI_USAGE;
    }
    dab_err err;
    dab_status st = dab_az_ckpt_export(export_from, out, &err);
    if (st) return cli_error(cmd, st, err.msg);
    printf("az: wrote %s from %s\n", out, export_from);
    return CLI_OK;
  }
  if (threads > 256) {
    fprintf(stderr, "dab train: --threads must be at most 256\n");
    return CLI_USAGE;
  }
  dab_parsed pos;
  int rc = cli_parse_position(cmd, board, &pos);
  if (rc) return rc;
  if (dab_ls_count(&pos.game.lines)) {
    fprintf(stderr, "dab train: --board takes an empty board RxC, not a position\n");
    return CLI_USAGE;
  }
  char ckpt_buf[4096];
  if (!ckpt) {
    snprintf(ckpt_buf, sizeof ckpt_buf, "%s.ckpt", out);
    ckpt = ckpt_buf;
  }
  const char *paths[] = {out, ckpt, log};
  for (int k = 0; k < 3; k++)
    if (paths[k] && !writable(paths[k])) {
      fprintf(stderr, "dab train: cannot write %s: %s\n", paths[k], strerror(errno));
      return CLI_USAGE;
    }
  if (resume && access(resume, R_OK) != 0) {
    fprintf(stderr, "dab train: cannot read %s: %s\n", resume, strerror(errno));
    return CLI_USAGE;
  }
  dab_err err;
  dab_player_env *env;
  dab_status st = dab_player_env_new(tb, &env, &err);
  if (!st) {
    if (oracle_lines) dab_player_env_set_build_lines(env, (int)oracle_lines);
    st = dab_agents_register(env, &err);
  }
  if (st) {
    dab_player_env_free(env);
    return cli_error(cmd, st, err.msg);
  }
  FILE *lf = NULL;
  if (log) {
    lf = fopen(log, resume ? "a" : "w");
    if (!lf || fseek(lf, 0, SEEK_END) != 0) {
      fprintf(stderr, "dab train: cannot write %s: %s\n", log, strerror(errno));
      if (lf) fclose(lf);
      dab_player_env_free(env);
      return CLI_USAGE;
    }
  }
  dab_train_ctx t = {
      .g = &pos.geom, .seed = seed, .threads = (int)threads, .games = games, .generations = gens,
      .snapshot_every = snap, .grade_games = (int)grade_games, .out = out, .checkpoint = ckpt,
      .resume = resume, .stop_at = stop_at, .log = lf, .env = env, .kopts = &kopts,
      .progress = cli_progress, .cancel = cli_cancel_on_signal(),
  };
  if (grade_games % 2) {
    fprintf(stderr, "dab train: --grade-games must be even (both colours)\n");
    rc = CLI_USAGE;
    goto done;
  }
  st = kind->train(&t, &err);
  cli_progress_end();
  if (st == DAB_ECANCELED && (stop_at || *t.cancel)) {
    fprintf(stderr, "dab train: %s; continue with --resume %s\n", err.msg, ckpt);
    rc = *t.cancel ? 130 : CLI_OK;
  } else if (st) {
    rc = cli_error(cmd, st, err.msg);
  } else {
    printf("%s %dx%d: wrote %s\n", kind->name, pos.geom.rows, pos.geom.cols, out);
    rc = CLI_OK;
  }
done:
  if (lf && fclose(lf) != 0 && rc == CLI_OK) {
    fprintf(stderr, "dab train: cannot write %s: %s\n", log, strerror(errno));
    rc = CLI_FAIL;
  }
  dab_player_env_free(env);
  return rc;
}
