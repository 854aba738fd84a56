/*
** agent_capi.c: player specs with plain arguments (agent_capi.h).
** See Copyright Notice in README.md
*/
#include "capi/agent_capi.h"

#include <stdlib.h>
#include "agents/agent.h"
#include "players/player.h"
#include "game/rng.h"

struct dab_capi_player {
  dab_geom g;
  dab_player_env *env;
  dab_player *pl;
  dab_rng rng;
};

void dab_capi_player_free(dab_capi_player *p) {
  if (!p) return;
  dab_player_free(p->pl);
  dab_player_env_free(p->env);
  free(p);
}

dab_status dab_capi_player_new(const char *spec, int rows, int cols, const char *tb_dir, uint64_t seed,
                               dab_capi_player **out, dab_err *err) {
  *out = NULL;
  if (!spec || !*spec) return dab_fail(err, DAB_EINPUT, "empty player spec");
  dab_capi_player *p = calloc(1, sizeof *p);
  if (!p) return dab_fail(err, DAB_ENOMEM, "out of memory");
  dab_status st = dab_geom_init(&p->g, rows, cols, err);
  if (!st && !dab_geom_fast(&p->g))
    st = dab_fail(err, DAB_EBOARD, "%dx%d has %d lines; players from bindings take boards of at most %d",
                  rows, cols, p->g.nlines, DAB_FAST_MAX_LINES);
  if (!st) st = dab_player_env_new(tb_dir, &p->env, err);
  if (!st) st = dab_agents_register(p->env, err);
  if (!st) st = dab_player_new(spec, &p->g, p->env, &p->pl, err);
  if (st) {
    dab_capi_player_free(p);
    return st;
  }
  dab_rng_seed(&p->rng, seed);
  *out = p;
  return DAB_OK;
}

const char *dab_capi_player_name(const dab_capi_player *p) { return dab_player_name(p->pl); }

dab_status dab_capi_player_move(dab_capi_player *p, uint64_t lines, int score0, int score1, int to_move,
                                int *move, dab_err *err) {
  const dab_geom *g = &p->g;
  if (lines & ~g->all_lines)
    return dab_fail(err, DAB_EINPUT, "position has lines beyond the %d lines of %dx%d", g->nlines, g->rows,
                    g->cols);
  if (lines == g->all_lines) return dab_fail(err, DAB_EINPUT, "every line is drawn: no move to make");
  if (to_move != 0 && to_move != 1) return dab_fail(err, DAB_EINPUT, "to_move %d: expected 0 or 1", to_move);
  dab_game game;
  dab_game_init(g, &game);
  game.lines = dab_ls_from_word(lines);
  int done = 0;
  for (int b = 0; b < g->nboxes; b++) {
    bool full = (lines & g->box_mask[b]) == g->box_mask[b];
    game.owner[b] = (int8_t)(full ? -2 : -1);
    done += full;
  }
  if (score0 < 0 || score1 < 0 || score0 + score1 > done)
    return dab_fail(err, DAB_EINPUT, "score %d-%d: the position has %d completed boxes", score0, score1, done);
  game.score[0] = (int16_t)score0;
  game.score[1] = (int16_t)score1;
  game.to_move = (uint8_t)to_move;
  game.nmoves = (int16_t)__builtin_popcountll(lines);
  int m = dab_player_move(p->pl, &game, &p->rng);
  if (m < 0 || m >= g->nlines || (lines >> m & 1))
    return dab_fail(err, DAB_EINTERNAL, "player %s chose line %d, which is not legal", dab_player_name(p->pl), m);
  *move = m;
  return DAB_OK;
}
