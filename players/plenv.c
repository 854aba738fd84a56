/*
** plenv.c: the players' shared environment (player.h's dab_player_env_*).
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "players/plenv.h"

dab_status dab_player_env_new(const char *tb_dir, dab_player_env **out, dab_err *err) {
  *out = NULL;
  dab_player_env *e = calloc(1, sizeof *e);
  if (!e) return dab_fail(err, DAB_ENOMEM, "out of memory for the player environment");
  if (tb_dir && !(e->tb_dir = strdup(tb_dir))) {
    free(e);
    return dab_fail(err, DAB_ENOMEM, "out of memory for the player environment");
  }
  pthread_mutex_init(&e->lock, NULL);
  *out = e;
  return DAB_OK;
}

void dab_player_env_free(dab_player_env *env) {
  if (!env) return;
  for (int i = 0; i < env->noracle; i++)
    if (env->oracle[i].o) dab_oracle_close(env->oracle[i].o);
  for (int i = 0; i < env->ntable; i++) dab_retro_free(env->table[i].table);
  pthread_mutex_destroy(&env->lock);
  free(env->tb_dir);
  free(env);
}

void dab_player_env_set_build_lines(dab_player_env *env, int max_lines) {
  pthread_mutex_lock(&env->lock);
  env->build_lines = max_lines;
  pthread_mutex_unlock(&env->lock);
}

/* Caller holds env->lock. */
static dab_status env_oracle_locked(dab_player_env *env, int rows, int cols, const dab_oracle **out,
                                    dab_err *err) {
  for (int i = 0; i < env->noracle; i++) {
    env_oracle *eo = &env->oracle[i];
    if (eo->rows == rows && eo->cols == cols) {
      if (eo->st) return dab_fail(err, eo->st, "%s", eo->msg);
      *out = eo->o;
      return DAB_OK;
    }
  }
  if (env->noracle == ENV_MAX) return dab_fail(err, DAB_ENOMEM, "too many oracles in one environment");
  env_oracle *eo = &env->oracle[env->noracle++];
  eo->rows = rows;
  eo->cols = cols;
  dab_oracle_opts opts = {.tb_dir = env->tb_dir, .max_build_free = env->build_lines, .threads = 0};
  dab_err e2;
  eo->st = dab_oracle_open(rows, cols, &opts, &eo->o, &e2);
  if (eo->st) {
    eo->o = NULL;
    snprintf(eo->msg, sizeof eo->msg, "%s", e2.msg);
    return dab_fail(err, eo->st, "%s", eo->msg);
  }
  *out = eo->o;
  return DAB_OK;
}

dab_status dab_player_env_oracle(dab_player_env *env, int rows, int cols, const dab_oracle **out,
                                 dab_err *err) {
  pthread_mutex_lock(&env->lock);
  dab_status st = env_oracle_locked(env, rows, cols, out, err);
  pthread_mutex_unlock(&env->lock);
  return st;
}


dab_status pl_env_window_table(dab_player_env *env, int rows, int cols, const int8_t **out,
                               dab_err *err) {
  dab_status st = DAB_OK;
  pthread_mutex_lock(&env->lock);
  for (int i = 0; i < env->ntable; i++)
    if (env->table[i].rows == rows && env->table[i].cols == cols) {
      *out = env->table[i].table->value;
      goto done;
    }
  dab_geom wg;
  if ((st = dab_geom_init(&wg, rows, cols, err))) goto done;
  if (wg.nlines > PL_MAX_WINDOW_LINES) {
    st = dab_fail(err, DAB_EBOARD, "window %dx%d has %d lines; window tables hold at most %d", rows,
                  cols, wg.nlines, PL_MAX_WINDOW_LINES);
    goto done;
  }
  if (env->ntable == ENV_MAX) {
    st = dab_fail(err, DAB_ENOMEM, "too many window tables in one environment");
    goto done;
  }
  /* The exact values of every window position, indexed by its line bits:
  ** the retrograde table of the whole window board is exactly that (for
  ** the empty root its index is the position), and solving it (0.1 s for
  ** 3x3) is faster than reading 2^24 values out of a tablebase. */
  dab_retro *r;
  dab_retro_opts ro = {.threads = 0};
  if ((st = dab_retro_solve(&wg, 0, &ro, &r, err))) goto done;
  env->table[env->ntable].rows = rows;
  env->table[env->ntable].cols = cols;
  env->table[env->ntable++].table = r;
  *out = r->value;
done:
  pthread_mutex_unlock(&env->lock);
  return st;
}

