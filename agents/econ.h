/*
** econ.h: the artificial economy of rule agents (seed paper 000): auctions, wealth, curriculum.
** Internal to libdab: not installed (the public API is capi/dab.h).
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
**
** The oracle as teacher (pay): besides or instead of the published win
** reward, every rule move of the game is graded by the oracle and pays
** its agent oracle_pay when it was optimal, or costs oracle_pay per box
** it lost.  That money is created (or destroyed) like the reward and is
** booked as rewards.  The game's graded moves (dab_rt_game.oracle) are
** required then.
*/
/*
** The auction's memo.  Bids never change, and a search that stops short
** of its cap (DAB_RMATCH_CAP) gives the same answer on the same position
** every time, so an auction held on a position is remembered (its winner's
** bid, slot and line, and a clock of the population's changes).  Held
** again, an agent ranked above that bid and slot is tested only if it
** came into its slot since: the others failed then and fail now.  The
** winner, if still in its slot, wins again without a search; if it is
** gone, the auction goes on below it as usual.  An auction in
** which any search reached its cap is not remembered (sampling draws from
** the run's stream), nor one that no agent matched (a new agent is made),
** so the memo changes no result and no random draw: it saves matcher
** searches only.
*/
typedef struct dab_econ_memo {
  dab_lineset lines;
  uint64_t clock;        /* the population's clock when held; 0: empty */
  double bid;            /* the winner's bid, */
  int32_t slot, line;    /* its slot and its line */
} dab_econ_memo;

#define DAB_ECON_MEMO_BITS 18

enum { DAB_ECON_PAY_WIN = 0, DAB_ECON_PAY_ORACLE = 1, DAB_ECON_PAY_BOTH = 2 };

typedef struct dab_econ_opts {
  int pop;               /* 1000 */
  double reward;         /* 1 per won game */
  double w_init;         /* 1: a new agent's wealth (made from nothing) */
  double b_init;         /* 0.1: a new agent's bid */
  double w_spawn;        /* 4 */
  double w_child;        /* 1, from the parent */
  double outbid;         /* 0.01: a child's bid above its parent's */
  double p_graph;        /* 0.1: share of new agents that are random graphs */
  int pay;               /* DAB_ECON_PAY_*: the published win reward (default) */
  double oracle_pay;     /* 0.1: an optimal move's pay, a lost box's cost */
} dab_econ_opts;

void dab_econ_opts_default(dab_econ_opts *o);

typedef struct dab_econ {
  dab_econ_opts o;
  dab_ragent *a;
  dab_rule_key *key;     /* each rule's prefilter key, a[i].rule's */
  int *rank;             /* a[0 .. n) by bid, highest first (dab_rt_rank) ... */
  bool ranked;           /* ... when true; false after an agent came or went */
  uint64_t *stamp;       /* the clock when each slot's agent came into it */
  uint64_t clock;        /* counts the agents that came into a slot, from 1 */
  dab_econ_memo *memo;   /* 2^DAB_ECON_MEMO_BITS auctions, by position hash */
  int n;
  int owner;             /* the world's owner in the game being played, -1: environment */
  uint8_t *in_game;      /* owned the world in this game */
  int fire[DAB_RT_MAX_FIRE];  /* the agent of each auction won in this game, in order
                                 (kept up to date when agents move slots) */
  int nfire;
  long games, born, died;
  /* Bookkeeping: sum of wealth = created + rewards - paid_out - buried. */
  double created, rewards, paid_out, buried;
  bool greedy;
  bool memo_off;         /* every auction searched in full (tests, measuring) */
  dab_rmatch_stats stats;
} dab_econ;

dab_status dab_econ_new(const dab_econ_opts *o, dab_econ **out, dab_err *err);
void dab_econ_free(dab_econ *e);

/* The auction (a dab_rt_choose; sys is the dab_econ).  Call
** dab_econ_start_game before each game. */
int dab_econ_choose(void *sys, const dab_sgraph *sg, const dab_game *game, dab_rng *rng, int *line);
void dab_econ_start_game(dab_econ *e);

/* Pays the reward (and the oracle's pay), then spawns and buries (above).
** gm: the game just played (its fire grades line up with e->fire). */
void dab_econ_end_game(dab_econ *e, const dab_rt_game *gm, dab_rng *rng);

/* Sum of every agent's wealth. */
double dab_econ_wealth(const dab_econ *e);

#endif
