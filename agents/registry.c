/*
** registry.c: the table of agent kinds and their player specs (q:FILE...).
** See Copyright Notice in README.md
*/
#include <string.h>
#include "agents/agent.h"

#define DAB_AGENT_ENTRY(name, summary, help) \
  {#name, summary, help, dab_agent_train_##name, dab_agent_player_##name},
const dab_agent_kind dab_agent_kinds[] = {DAB_AGENT_KINDS(DAB_AGENT_ENTRY){NULL, NULL, NULL, NULL,
                                                                          NULL}};
#undef DAB_AGENT_ENTRY

const dab_agent_kind *dab_agent_kind_find(const char *name) {
  for (const dab_agent_kind *k = dab_agent_kinds; k->name; k++)
    if (!strcmp(k->name, name)) return k;
  return NULL;
}

dab_status dab_agents_register(dab_player_env *env, dab_err *err) {
  for (const dab_agent_kind *k = dab_agent_kinds; k->name; k++) {
    dab_status st = dab_player_env_add_kind(env, k->name, k->player, NULL, err);
    if (st) return st;
  }
  return DAB_OK;
}

dab_status dab_agent_player(const char *name, const dab_geom *g, dab_move_fn fn, void *ctx,
                            void (*free_ctx)(void *), dab_player **out, dab_err *err) {
  return dab_player_custom_owned(name, g, fn, ctx, free_ctx, out, err);
}

dab_status dab_agent_args(const char *kind, const char *args, char *path, size_t cap,
                          const char **rest, dab_err *err) {
  const char *comma = strchr(args, ',');
  size_t len = comma ? (size_t)(comma - args) : strlen(args);
  if (len == 0) return dab_fail(err, DAB_EINPUT, "player '%s' needs a model file: %s:FILE", kind, kind);
  if (len >= cap) return dab_fail(err, DAB_EINPUT, "player '%s': model path too long", kind);
  memcpy(path, args, len);
  path[len] = 0;
  *rest = comma ? comma + 1 : "";
  return DAB_OK;
}
