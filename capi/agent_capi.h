/*
** agent_capi.h: any player spec (built in or a trained agent) behind
** plain-argument calls, for bindings such as python/dab.
** See Copyright Notice in README.md
*/
#ifndef DAB_AGENT_CAPI_H
#define DAB_AGENT_CAPI_H

#include <stdint.h>
#include "game/board.h"
#include "game/dabapi.h"

/*
** A dab_capi_player owns everything a player needs: its board, a player
** env with every agent kind registered (agents/agent.h: "q:FILE",
** "nn:FILE", "az:FILE", "econ:FILE", "erl:FILE", ...), the player made
** from the spec (players/player.h lists the built-in specs) and its own
** random generator.  Used by one thread at a time.
*/
typedef struct dab_capi_player dab_capi_player;

/*
** Makes the player of spec for a rows x cols board (at most 64 lines).
** tb_dir (may be NULL) goes to the env's oracles; seed seeds the player's
** generator (one seed, one sequence of moves).
** RETURN: DAB_OK and *out; DAB_EINPUT for a bad spec; DAB_EBOARD when the
** board has more than 64 lines or the player cannot play it (perfect
** without an oracle, a model trained on another board...); DAB_EIO for a
** model file that cannot be read; DAB_ENOMEM.  On error *out is NULL.
*/
DAB_API dab_status dab_capi_player_new(const char *spec, int rows, int cols, const char *tb_dir, uint64_t seed,
                                       dab_capi_player **out, dab_err *err);
DAB_API void dab_capi_player_free(dab_capi_player *p);

/* The canonical spec, every option spelled out (dab_player_name). */
DAB_API const char *dab_capi_player_name(const dab_capi_player *p);

/*
** Chooses a move in the position lines (bit m = line m drawn) with
** score0/score1 boxes taken so far by players 0 and 1 and to_move (0 or
** 1) to play.  The owners of completed boxes are unknown to the player.
** RETURN: DAB_OK and *move (an undrawn line); DAB_EINPUT for lines beyond
** the board, a full board, a to_move other than 0 or 1, or scores that
** are negative or exceed the completed boxes; DAB_EINTERNAL when the
** player returns an illegal line.
*/
DAB_API dab_status dab_capi_player_move(dab_capi_player *p, uint64_t lines, int score0, int score1, int to_move,
                                        int *move, dab_err *err);

#endif
