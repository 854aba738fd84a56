/*
** cmd_play.c: `dab play POS --player SPEC`: the move a player makes.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "game/clock.h"
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "agents/agent.h"
#include "players/player.h"

static const char usage[] =
    "usage: dab play POS [--player SPEC] [--seed S] [--tb DIR] [--oracle-lines N] [--json]\n\n"
    "Prints the line the player (default: perfect where an oracle covers the\n"
    "board, else chain) draws in POS, and the time it took.  When an oracle\n"
    "covers the board, also the position's analysis and the move's value.\n"
    "With --json: {\"rows\",\"cols\",\"player\",\"move\",\"ms\"} plus, when an oracle\n"
    "covers the board, \"value\",\"moves\",\"best\",\"move_value\".\n"
    "--oracle-lines N solves boards of up to N lines in memory (default 24;\n"
    "31 = 3x4, 2 GiB).\n\nplayers:\n";

int dab_cmd_play(int argc, char **argv) {
  static char help[sizeof usage + 4096];
  snprintf(help, sizeof help, "%s%s", usage, dab_player_help);
  const char *text = NULL, *spec = NULL, *tb = NULL, *seed_text = NULL;
  long seed = 1, oracle_lines = 0;
  bool json = false;
  const cli_opt table[] = {{"--player", CLI_TEXT, &spec, 0},
                           {"--seed", CLI_TEXT, &seed_text, 0},
                           {"--tb", CLI_TEXT, &tb, 0},
                           {"--oracle-lines", CLI_COUNT, &oracle_lines, 40},
                           {"--json", CLI_FLAG, &json, 0},
                           {NULL, 0, NULL, 0}};
  int nargs, rc = cli_parse_args("play", argc, argv, table, &text, 1, &nargs, help);
  if (rc) return rc < 0 ? CLI_OK : rc;
  if (seed_text) {
    char *end;
    errno = 0;
    seed = strtol(seed_text, &end, 10);
    if (!*seed_text || *end || errno || seed < 0) {
      fprintf(stderr, "dab play: --seed needs a whole number >= 0, got '%s'\n", seed_text);
      return CLI_USAGE;
    }
  }
  if (!nargs) {
    fputs(help, stderr);
    return CLI_USAGE;
  }
  static dab_parsed p;
  rc = cli_parse_position("play", text, &p);
  if (rc) return rc;
  const dab_geom *g = &p.geom;
  if (dab_game_over(g, &p.game)) {
    fprintf(stderr, "dab play: position '%s' has no moves left\n", text);
    return CLI_USAGE;
  }
  dab_err err;
  dab_player_env *env;
  dab_status st = dab_player_env_new(tb, &env, &err);
  if (!st && (st = dab_agents_register(env, &err))) dab_player_env_free(env);
  if (st) return cli_error("play", st, err.msg);
  if (oracle_lines) dab_player_env_set_build_lines(env, (int)oracle_lines);
  const dab_oracle *o = NULL;
  if (dab_player_env_oracle(env, g->rows, g->cols, &o, NULL)) o = NULL;
  if (!spec) spec = o ? "perfect" : "chain";
  dab_player *pl;
  if ((st = dab_player_new(spec, g, env, &pl, &err))) {
    rc = cli_error("play", st, err.msg);
    dab_player_env_free(env);
    return rc;
  }
  dab_rng rng;
  dab_rng_seed(&rng, (uint64_t)seed);
  double t0 = dab_now_s();
  int m = dab_player_move(pl, &p.game, &rng);
  double ms = (dab_now_s() - t0) * 1e3;
  static dab_analysis a;
  bool have = o && dab_oracle_analyze(o, &p.game.lines, &a, NULL) == DAB_OK;
  int mv = 0;
  for (int i = 0; have && i < a.nmoves; i++)
    if (a.move[i] == m) mv = a.move_value[i];
  if (json) {
    char extra[256];
    snprintf(extra, sizeof extra, "\"player\":\"%s\",\"move\":%d,\"ms\":%.3f", dab_player_name(pl), m, ms);
    if (have) {
      size_t n = strlen(extra);
      snprintf(extra + n, sizeof extra - n, ",\"move_value\":%d", mv);
      cli_print_analysis(stdout, g, &a, true, extra);
    } else {
      printf("{\"rows\":%d,\"cols\":%d,%s}\n", g->rows, g->cols, extra);
    }
  } else {
    printf("%s plays %d  (%.3f ms)\n", dab_player_name(pl), m, ms);
    if (have) {
      printf("move value %+d, best %+d%s\n", mv, a.value, mv == a.value ? "  (optimal)" : "");
      cli_print_analysis(stdout, g, &a, false, NULL);
    }
  }
  dab_player_free(pl);
  dab_player_env_free(env);
  return CLI_OK;
}
