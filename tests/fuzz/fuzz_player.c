/*
** fuzz_player.c: libFuzzer harness of player spec strings
** ("mcts:sims=80,c=1.4").  A spec is made on a 2x2 board without an
** environment.  Properties: a spec is refused with a one-line message and
** no player, or made, and its canonical name is itself a spec that makes
** a player of the same name; a made player plays a legal line.
** See Copyright Notice in README.md
*/
#include "players/player.h"
#include "tests/fuzz/fuzzhelp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 512) return 0;
  char *spec = fz_string(data, size);
  /* Budgets the fuzzer could raise to minutes or gigabytes: not this
  ** harness's subject (the option ranges are checked in tests). */
  if (strstr(spec, "sims") || strstr(spec, "time") || strstr(spec, "nodes") || strstr(spec, "depth") ||
      strstr(spec, "solve") || strstr(spec, "search") || strstr(spec, "hash")) {
    free(spec);
    return 0;
  }
  static dab_geom g;
  static bool init;
  if (!init) {
    dab_geom_init(&g, 2, 2, NULL);
    init = true;
  }
  dab_player *p = (dab_player *)1;
  dab_err err;
  dab_status st = dab_player_new(spec, &g, NULL, &p, &err);
  free(spec);
  if (st) {
    FZ_ASSERT(p == NULL, "refused spec left a player");
    FZ_ASSERT(st == DAB_EINPUT || st == DAB_EBOARD || st == DAB_ENOMEM, "status %d", st);
    FZ_ASSERT(!strchr(err.msg, '\n') && err.msg[0], "message not one line: '%s'", err.msg);
    return 0;
  }
  char name[200];
  snprintf(name, sizeof name, "%s", dab_player_name(p));
  dab_game game;
  dab_game_init(&g, &game);
  dab_rng rng;
  dab_rng_seed2(&rng, 1, 2);
  int m = dab_player_move(p, &game, &rng);
  FZ_ASSERT(m >= 0 && m < g.nlines, "'%s' played line %d", name, m);
  dab_player_free(p);
  dab_player *q = NULL;
  st = dab_player_new(name, &g, NULL, &q, &err);
  FZ_ASSERT(!st, "canonical name '%s' refused: %s", name, err.msg);
  FZ_ASSERT(!strcmp(dab_player_name(q), name), "'%s' renamed '%s'", name, dab_player_name(q));
  dab_player_free(q);
  return 0;
}
