/*
** plenv.h: the players' shared environment, its oracles, window tables and
** added kinds (not a public header).
** See Copyright Notice in README.md
*/
#ifndef DAB_PL_ENV_H
#define DAB_PL_ENV_H

#include <pthread.h>
#include "players/player.h"
#include "solver/retro.h"

/* ---- Environment ------------------------------------------------------ */

#define ENV_MAX 32

typedef struct env_oracle {
  int rows, cols;
  dab_oracle *o;
  dab_status st;           /* the open's result, remembered */
  char msg[DAB_ERR_LEN];
} env_oracle;

typedef struct env_table {
  int rows, cols;
  dab_retro *table;
} env_table;

typedef struct env_kind {
  char name[32];
  dab_player_kind_fn make;
  void *ctx;
} env_kind;

struct dab_player_env {
  pthread_mutex_t lock;
  char *tb_dir;
  int build_lines;
  int noracle, ntable, nkind;
  env_oracle oracle[ENV_MAX];
  env_table table[ENV_MAX];
  env_kind kind[ENV_MAX];
};

/* Largest window table: 2^PL_MAX_WINDOW_LINES bytes (3x3 has 24 lines);
** bigger windows are read through the oracle, one call per value. */
#define PL_MAX_WINDOW_LINES 26

/*
** Sliding-window tables: the value of every position of a KxL board, one
** int8_t per position indexed by its line bits.  Built once per env (the
** window board's retrograde table) and then read-only.  RETURN: DAB_OK and
** *out (owned by env); DAB_EBOARD above PL_MAX_WINDOW_LINES lines.
*/
dab_status pl_env_window_table(dab_player_env *env, int rows, int cols, const int8_t **out,
                               dab_err *err);

#endif
