/*
** player.h: one interface for every dab player: position in, move out.
** See Copyright Notice in README.md
*/
#ifndef DAB_PLAYER_H
#define DAB_PLAYER_H

#include "game/board.h"
#include "oracle/oracle.h"
#include "game/rng.h"
#include "game/dabapi.h"

/*
** A player is made from a spec string, "NAME[:OPT,OPT=VALUE,...]":
**
**   random                    level 0: a random legal line
**   level1                    takes a box when it can, else random
**   level2                    level1, and never a third side while a safe line exists
**   chain                     good amateur: safe captures, long chain rule,
**                             all-but-two / all-but-four, opens the cheapest part
**   mcts[:sims=N,time=MS,c=X,nodes=N]
**                             UCT with random rollouts
**   mcts-os[:sims=N,c=X,nodes=N]
**                             OpenSpiel's MCTSBot: returns +-1, c = 2, one random
**                             rollout per leaf, proven wins/losses backed up
**                             (MCTS-Solver), most-visited move (sims=1000)
**   mcts-bz[:same,sle=0|1|2]  plus chain-loop macro moves, opening pruning and
**                             exact scores of simple loony endgames
**   sw[:KxL,agg=max|sum|mean|min,border=cut|aware,safe=0|1,value=net|wdl]
**                             sliding window over KxL sub-boards (oracle values);
**                             value=wdl: windows valued by their win/draw/loss
**                             result counting the boxes taken inside them (the
**                             published rule), value=net: by net boxes;
**                             `sw:KxL` alone is the plain version,
**                             `sw+[:KxL]` the improved one (sum, aware, safe)
**   ab[:depth=N,nodes=N]      depth-limited alpha-beta, simple evaluation
**   perfect[:tie=random|boxes|long,solve=F,search=N,hash=MIB]
**                             the oracle's optimal move; ties at random or
**                             by a policy; solve=F: boards without an oracle,
**                             perfect from F undrawn lines on (retrograde);
**                             search=N: ... and wherever N nodes of exact
**                             search prove every move (else chain's move)
**
** Thread safety: a dab_player is used by one thread at a time (it keeps
** scratch memory such as a search tree).  A dab_player_env holds what is
** costly and read-only once built (oracles, window tables); any number of
** players in any number of threads may share one env.  No player keeps
** random state: every move draws from the dab_rng the caller passes.
*/

typedef struct dab_player dab_player;
typedef struct dab_player_env dab_player_env;

/*
** Creates an environment.  tb_dir (may be NULL) is passed to the oracles.
** RETURN: DAB_OK and *out, or DAB_ENOMEM.
*/
DAB_API dab_status dab_player_env_new(const char *tb_dir, dab_player_env **out, dab_err *err);
DAB_API void dab_player_env_free(dab_player_env *env);

/*
** Lets the env's oracles solve boards of up to max_lines lines in memory
** (the oracle's max_build_free; 0 = its default, 24 lines).  31 covers 3x4
** (2 GiB, about 25 s on 2 cores).  Call before the first oracle is opened.
*/
DAB_API void dab_player_env_set_build_lines(dab_player_env *env, int max_lines);

/*
** The oracle for a rows x cols board, opened once per env and shared.
** RETURN: DAB_OK and *out (owned by env), or the oracle's error (e.g.
** DAB_EBOARD when nothing covers the board).  Thread-safe.
*/
DAB_API dab_status dab_player_env_oracle(dab_player_env *env, int rows, int cols, const dab_oracle **out,
                                         dab_err *err);

/*
** Makes the player described by spec for board g.  env may be NULL for
** players that need no oracle (random, level1, level2, chain, mcts,
** mcts-bz, ab).  The first call for a sliding-window size builds its table
** in env (seconds for 3x3), later calls share it.
** RETURN: DAB_OK and *out; DAB_EINPUT with a one-line message for a bad
** spec (unknown name or option, bad value); DAB_EBOARD when the player
** cannot play on g (e.g. perfect without an oracle for the board);
** DAB_ENOMEM.  On error *out is NULL.
*/
DAB_API dab_status dab_player_new(const char *spec, const dab_geom *g, dab_player_env *env,
                                  dab_player **out, dab_err *err);
DAB_API void dab_player_free(dab_player *p);

/*
** Checks the name part of spec (before any ':') against the built-in
** players and the kinds registered in env, without a board: a command can
** refuse an unknown player before it asks for anything else.
** RETURN: DAB_OK when the name is known (its options are checked only by
** dab_player_new); DAB_EINPUT with dab_player_new's one-line message.
*/
DAB_API dab_status dab_player_check_name(const dab_player_env *env, const char *spec, dab_err *err);

/*
** Chooses a move for the player to move in game (on the player's board).
** RETURN: an undrawn line, or -1 when every line is drawn.
** NOTES: uses game->score only where the player cares about winning
** rather than margin (mcts); draws randomness only from rng.
*/
DAB_API int dab_player_move(dab_player *p, const dab_game *game, dab_rng *rng);

/*
** A player whose moves come from the caller: fn(ctx, g, game, rng) must
** return an undrawn line of game.  For learning agents and other players
** the spec language does not know; the arena grades them like any other.
** RETURN: DAB_OK and *out, or DAB_ENOMEM.
** NOTES: the player calls fn from whatever thread calls dab_player_move;
** ctx must then be safe to use from that thread.
*/
typedef int (*dab_move_fn)(void *ctx, const dab_geom *g, const dab_game *game, dab_rng *rng);
DAB_API dab_status dab_player_custom(const char *name, const dab_geom *g, dab_move_fn fn, void *ctx,
                                     dab_player **out, dab_err *err);

/* As dab_player_custom, and the player owns ctx: free_ctx(ctx) runs when
** the player is freed (and on failure here).  free_ctx may be NULL. */
DAB_API dab_status dab_player_custom_owned(const char *name, const dab_geom *g, dab_move_fn fn, void *ctx,
                                           void (*free_ctx)(void *), dab_player **out, dab_err *err);

/*
** Spec kinds from layers above players/ (e.g. trained agents: "q:FILE").
** make(ctx, args, g, env, out, err) builds the player for spec
** "NAME:ARGS" (args is "" when the spec has no colon); its contract is
** dab_player_new's.  dab_player_new consults the env's kinds for a name
** that is not built in.  Add kinds before sharing env between threads.
** RETURN: DAB_OK; DAB_EINPUT for a name that is empty, too long, built in
** or already added; DAB_ENOMEM when the env holds too many kinds.
*/
typedef dab_status (*dab_player_kind_fn)(void *ctx, const char *args, const dab_geom *g,
                                         dab_player_env *env, dab_player **out, dab_err *err);
DAB_API dab_status dab_player_env_add_kind(dab_player_env *env, const char *name, dab_player_kind_fn make,
                                           void *ctx, dab_err *err);

/*
** Lets a long move stop early: while *cancel is non-zero, the searching
** players (mcts, mcts-bz, mcts-os, ab) end their search at once and return
** the best move found so far (always a legal line).  cancel may be NULL
** (the default: never stopped).  The arena sets its cancel flag here.
*/
DAB_API void dab_player_set_cancel(dab_player *p, dab_cancel_flag *cancel);

/* The canonical spec of the player, with every option spelled out
** (e.g. "mcts:sims=80,time=0,c=1.41"). */
DAB_API const char *dab_player_name(const dab_player *p);

/* A short description of every spec, one per line, for --help texts. */
extern DAB_API const char dab_player_help[];

#endif
