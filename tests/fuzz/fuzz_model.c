/*
** fuzz_model.c: libFuzzer harness of model files (agents/agent.h).
** Input byte 0 picks the mode:
**   even: the rest is a model file, read by dab_model_read (header, length
**         fields, checksum) and, when it reads, loaded as its kind's player;
**   odd:  the rest is a payload and params written as a well-formed model of
**         the kind byte 1 picks (so the checksum passes), then loaded as a
**         player: the kinds' payload parsers see arbitrary bytes.
** Properties: a refused file leaves no payload and a one-line message; a
** loaded player plays a legal line on its board.
** See Copyright Notice in README.md
*/
#include "agents/agent.h"
#include "tests/fuzz/fuzzhelp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static dab_player_env *env;

/* Makes KIND:path a player and plays one move from the empty board. */
static void play(const char *kind, const char *path, int rows, int cols) {
  dab_geom g;
  if (dab_geom_init(&g, rows, cols, NULL) || g.nlines > 64) return;
  char spec[600];
  snprintf(spec, sizeof spec, "%s:%s", kind, path);
  dab_player *p = NULL;
  dab_err err;
  dab_status st = dab_player_new(spec, &g, env, &p, &err);
  if (st) {
    FZ_ASSERT(!p, "refused model left a player");
    FZ_ASSERT(!strchr(err.msg, '\n'), "message not one line: '%s'", err.msg);
    return;
  }
  dab_game game;
  dab_game_init(&g, &game);
  dab_rng rng;
  dab_rng_seed2(&rng, 3, 4);
  for (int k = 0; k < 3 && !dab_game_over(&g, &game); k++) {
    int m = dab_player_move(p, &game, &rng);
    FZ_ASSERT(m >= 0 && m < g.nlines && !dab_ls_has(&game.lines, m), "%s played line %d", spec, m);
    dab_game_play(&g, &game, m);
  }
  dab_player_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 3 || size > (1 << 16)) return 0;
  if (!env) {
    dab_err err;
    if (dab_player_env_new(NULL, &env, &err) || dab_agents_register(env, &err)) abort();
  }
  int nkinds = 0;
  while (dab_agent_kinds[nkinds].name) nkinds++;
  dab_model_header h;
  void *payload = (void *)1;
  size_t n = 0;
  dab_err err;
  if (!(data[0] & 1)) {
    const char *path = fz_file("model", data + 1, size - 1);
    dab_status st = dab_model_read(path, NULL, &h, &payload, &n, &err);
    if (st) {
      FZ_ASSERT(payload == NULL, "refused model left a payload");
      FZ_ASSERT(!strchr(err.msg, '\n') && strstr(err.msg, path), "message: '%s'", err.msg);
      return 0;
    }
    free(payload);
    if (h.rows >= 1 && h.cols >= 1 && h.rows <= 4 && h.cols <= 4 && dab_agent_kind_find(h.kind))
      play(h.kind, path, h.rows, h.cols);
    unlink(path);
    return 0;
  }
  /* Odd: a well-formed model around arbitrary payload bytes. */
  const dab_agent_kind *k = &dab_agent_kinds[data[1] % nkinds];
  memset(&h, 0, sizeof h);
  h.rows = 1 + (data[1] >> 4) % 3;
  h.cols = 1 + (data[1] >> 6) % 3;
  snprintf(h.kind, sizeof h.kind, "%s", k->name);
  size_t plen = size > 2 ? data[2] % 64 : 0;
  if (plen > size - 3) plen = size - 3;
  for (size_t i = 0; i < plen && i + 1 < sizeof h.params; i++) h.params[i] = data[3 + i] ? (char)data[3 + i] : 'x';
  const char *path = fz_file("model", NULL, 0);
  if (dab_model_write(path, &h, data + 3 + plen, size - 3 - plen, &err) == DAB_OK)
    play(k->name, path, h.rows, h.cols);
  unlink(path);
  return 0;
}
