/*
** pint.h: internals shared by the player modules (not a public header).
** See Copyright Notice in README.md
*/
#ifndef DAB_PINT_H
#define DAB_PINT_H

#include <stdio.h>
#include "players/player.h"
#include "players/plenv.h"
#include "players/plopts.h"
#include "players/tactics.h"

typedef struct pl_ops {
  int (*move)(dab_player *p, const dab_game *game, dab_rng *rng);
  void (*free_impl)(void *impl);
} pl_ops;

struct dab_player {
  const pl_ops *ops;
  dab_geom geom;
  dab_player_env *env;
  void *impl;                 /* the kind's own state */
  int kind;                   /* one of the PL_* codes below */
  char name[160];
  dab_cancel_flag *cancel;    /* dab_player_set_cancel; NULL: none */
};

enum { PL_RANDOM, PL_LEVEL1, PL_LEVEL2, PL_CHAIN, PL_MCTS, PL_MCTS_BZ, PL_SW, PL_AB, PL_PERFECT,
       PL_CUSTOM, PL_MCTS_OS };

/* Each kind's constructor fills p->ops, p->impl and p->name; it must mark
** every option it understands as used (the caller rejects the rest). */
dab_status pl_new_simple(dab_player *p, pl_opts *o, dab_err *err);
dab_status pl_new_mcts(dab_player *p, pl_opts *o, dab_err *err);
dab_status pl_new_mcts_os(dab_player *p, pl_opts *o, dab_err *err);
dab_status pl_new_sw(dab_player *p, pl_opts *o, const char *size, dab_err *err);
dab_status pl_new_ab(dab_player *p, pl_opts *o, dab_err *err);
dab_status pl_new_perfect(dab_player *p, pl_opts *o, dab_err *err);

/* Simulations per second of one search from game (benchmarks; mcts only). */
double pl_mcts_rate(dab_player *p, const dab_game *game, dab_rng *rng);

#endif
