/*
** erl.h: concept-accessibility evolutionary RL (seed paper 003) on rule graphs.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_ERL_H
#define DAB_ERL_H

#include "agents/ruleteam.h"

/*
** Each rule has a quality Q and an accessibility f.  After a game with
** score difference r (the team's boxes minus the opponent's):
**
**   every rule that acted:  Q <- alpha r + (1 - alpha) Q
**   every rule:             f <- d + (1 - alpha) f     (d = 1 if it acted)
**
** At most `pop` rules; a new one replaces the lowest f.  A move: the ten
** matching rules of highest Q, one drawn with P ~ exp(beta Q).  When at
** most `few` rules match, a new rule (the state graph, a random action)
** is added with probability p_few (always when none match), with Q = the
** average reward so far and f = 1.  Every 10 games 4 parents drawn by the
** same distribution (over the whole population) have mutated children.
**
** Controls (paper 003, section V): q-only trims the population by Q
** instead of f; combined also updates every rule's Q <- d alpha r +
** (1 - alpha) Q and trims by it.
*/
/* Beta schedules: the paper's three, and const20 (to20's last beta from the
** first game: a control of the ramp). */
enum { DAB_ERL_CONST10 = 0, DAB_ERL_TO20 = 1, DAB_ERL_TO10 = 2, DAB_ERL_CONST20 = 3 };
enum { DAB_ERL_CTRL_NONE = 0, DAB_ERL_CTRL_QONLY = 1, DAB_ERL_CTRL_COMBINED = 2 };
/* Rewards: the published score difference r; the oracle as teacher, r_n
** = minus the mean boxes rule n's moves lost in the game (0 when every one
** was optimal); or both, r - lost_n.  The oracle kinds need graded games. */
enum { DAB_ERL_REWARD_SCORE = 0, DAB_ERL_REWARD_ORACLE = 1, DAB_ERL_REWARD_BOTH = 2 };
#define DAB_ERL_TOP 10

typedef struct dab_erl_opts {
  int schedule;          /* beta: const 10; 0.1 + 0.2 per 1e4 games to 20; 0.1 + 0.1 per 1e4 games to 10;
                            const 20 */
  int control;           /* DAB_ERL_CTRL_* */
  double alpha;          /* 0.1 (the paper gives none) */
  int pop;               /* 1000 */
  int few;               /* 2: "few" matching rules */
  double p_few;          /* 0.2: chance of a new rule when few (not none) match */
  double reward_rate;    /* 0.001: the average reward is an exponential mean */
  int reward;            /* DAB_ERL_REWARD_*: what Q learns */
} dab_erl_opts;

void dab_erl_opts_default(dab_erl_opts *o);

/* Beta after `games` games under o's schedule. */
double dab_erl_beta(const dab_erl_opts *o, long games);

typedef struct dab_erl {
  dab_erl_opts o;
  dab_ragent *a;
  dab_rule_key *key;     /* each rule's prefilter key, a[i].rule's */         /* the rules, a[0 .. n) */
  int n;
  uint8_t *fired_now;    /* acted in the game being played */
  double beta, avg_reward;
  long games, added;
  bool greedy;           /* choose the best Q, add nothing (evaluation) */
  dab_rmatch_stats stats;
} dab_erl;

/* RETURN: DAB_OK and *out (no rules yet), or DAB_ENOMEM. */
dab_status dab_erl_new(const dab_erl_opts *o, dab_erl **out, dab_err *err);
void dab_erl_free(dab_erl *e);

/* The team's choice (a dab_rt_choose; sys is the dab_erl). */
int dab_erl_choose(void *sys, const dab_sgraph *sg, const dab_game *game, dab_rng *rng, int *line);

/* The updates after game gm (above), then reproduction every 10 games. */
void dab_erl_end_game(dab_erl *e, const dab_rt_game *gm, dab_rng *rng);

#endif
