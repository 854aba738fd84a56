/*
** econ.h: the artificial economy of rule agents (seed paper 000): auctions, wealth, curriculum.
** See Copyright Notice in README.md
*/
#ifndef DAB_ECON_H
#define DAB_ECON_H

#include "agents/ruleteam.h"

/*
** Each agent has a rule, a fixed bid and a wealth.  At each of the team's
** moves every matching agent bids; the highest bidder pays its bid to the
** world's owner (the environment at the start of a game: that money leaves
** the economy), plays its action and becomes the owner.  With no match a
** random move is played and a new agent is made (the state graph with
** that random action, or with probability p_graph a random rule graph),
** with wealth w_init and bid b_init.  A won game pays `reward` to the
** final owner; nothing else pays.  After a game, an agent with wealth
** above w_spawn gives w_child to a mutated child bidding `outbid` more
** than itself; an agent with wealth <= 0 dies.  A full population makes
** room by dropping its poorest agent that is not in the game's chain of
** owners.
*/
typedef struct dab_econ_opts {
  int pop;               /* 1000 */
  double reward;         /* 1 per won game */
  double w_init;         /* 1: a new agent's wealth (made from nothing) */
  double b_init;         /* 0.1: a new agent's bid */
  double w_spawn;        /* 4 */
  double w_child;        /* 1, from the parent */
  double outbid;         /* 0.01: a child's bid above its parent's */
  double p_graph;        /* 0.1: share of new agents that are random graphs */
} dab_econ_opts;

void dab_econ_opts_default(dab_econ_opts *o);

typedef struct dab_econ {
  dab_econ_opts o;
  dab_ragent *a;
  dab_rule_key *key;     /* each rule's prefilter key, a[i].rule's */
  int n;
  int owner;             /* the world's owner in the game being played, -1: environment */
  uint8_t *in_game;      /* owned the world in this game */
  long games, born, died;
  /* Bookkeeping: sum of wealth = created + rewards - paid_out - buried. */
  double created, rewards, paid_out, buried;
  bool greedy;
  dab_rmatch_stats stats;
} dab_econ;

dab_status dab_econ_new(const dab_econ_opts *o, dab_econ **out, dab_err *err);
void dab_econ_free(dab_econ *e);

/* The auction (a dab_rt_choose; sys is the dab_econ).  Call
** dab_econ_start_game before each game. */
int dab_econ_choose(void *sys, const dab_sgraph *sg, const dab_game *game, dab_rng *rng, int *line);
void dab_econ_start_game(dab_econ *e);

/* Pays the reward, then spawns and buries (above). */
void dab_econ_end_game(dab_econ *e, const dab_rt_game *gm, dab_rng *rng);

/* Sum of every agent's wealth. */
double dab_econ_wealth(const dab_econ *e);

#endif
