/*
** ruleteam_ckpt.c: checkpoints of rule-team training runs: the agents, exactly.
** See Copyright Notice in README.md
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agents/ruleteam.h"

/* ---- Params values --------------------------------------------------------- */

bool dab_rt_param_f64(const char *params, const char *key, double *out) {
  char v[96], *end;
  if (!dab_params_get(params, key, v, sizeof v)) return false;
  double x = strtod(v, &end);
  if (!*v || *end) return false;
  *out = x;
  return true;
}

bool dab_rt_param_long(const char *params, const char *key, long *out) {
  char v[64], *end;
  if (!dab_params_get(params, key, v, sizeof v)) return false;
  long x = strtol(v, &end, 10);
  if (!*v || *end) return false;
  *out = x;
  return true;
}

bool dab_rt_param_u64(const char *params, const char *key, uint64_t *out) {
  char v[64], *end;
  if (!dab_params_get(params, key, v, sizeof v) || *v == '-') return false;
  uint64_t x = strtoull(v, &end, 10);
  if (!*v || *end) return false;
  *out = x;
  return true;
}

int dab_rt_param_choice(const char *params, const char *key, const char *choices) {
  char v[64];
  if (!dab_params_get(params, key, v, sizeof v) || !*v) return -1;
  size_t vlen = strlen(v);
  int idx = 0;
  for (const char *c = choices; c; idx++) {
    const char *bar = strchr(c, '|');
    size_t len = bar ? (size_t)(bar - c) : strlen(c);
    if (len == vlen && !strncmp(c, v, len)) return idx;
    c = bar ? bar + 1 : NULL;
  }
  return -1;
}

const char *dab_rt_choice_name(const char *choices, int idx, char *buf, size_t cap) {
  const char *c = choices;
  for (int i = 0; i < idx && c; i++) c = strchr(c, '|'), c = c ? c + 1 : NULL;
  const char *bar = c ? strchr(c, '|') : NULL;
  size_t len = c ? (bar ? (size_t)(bar - c) : strlen(c)) : 0;
  snprintf(buf, cap, "%.*s", (int)len, c ? c : "");
  return buf;
}

void dab_rt_rng_fmt(const dab_rng *r, char *buf, size_t cap) {
  snprintf(buf, cap, "%016" PRIx64 ":%016" PRIx64 ":%016" PRIx64 ":%016" PRIx64, r->s[0], r->s[1], r->s[2],
           r->s[3]);
}

bool dab_rt_rng_parse(const char *params, const char *key, dab_rng *r) {
  char v[96];
  dab_rng x;
  int used = 0;
  if (!dab_params_get(params, key, v, sizeof v) ||
      sscanf(v, "%" SCNx64 ":%" SCNx64 ":%" SCNx64 ":%" SCNx64 "%n", &x.s[0], &x.s[1], &x.s[2], &x.s[3],
             &used) != 4 ||
      v[used] || !(x.s[0] | x.s[1] | x.s[2] | x.s[3]))
    return false;
  *r = x;
  return true;
}

void dab_rt_stats_fmt(const dab_rmatch_stats *s, char *buf, size_t cap) {
  snprintf(buf, cap, "%" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRIu64 ":%" PRIu64,
           s->tests, s->prefiltered, s->searches, s->placements, s->capped, s->capped_found, s->matches);
}

bool dab_rt_stats_parse(const char *params, const char *key, dab_rmatch_stats *s) {
  char v[256];
  dab_rmatch_stats x;
  int used = 0;
  if (!dab_params_get(params, key, v, sizeof v) ||
      sscanf(v, "%" SCNu64 ":%" SCNu64 ":%" SCNu64 ":%" SCNu64 ":%" SCNu64 ":%" SCNu64 ":%" SCNu64 "%n", &x.tests,
             &x.prefiltered, &x.searches, &x.placements, &x.capped, &x.capped_found, &x.matches, &used) != 7 ||
      v[used])
    return false;
  *s = x;
  return true;
}

/* ---- The payload ------------------------------------------------------------- */

#define AGENT_FIXED (5 * 8 + 4 * 8 + 6 + 2)   /* bytes of an agent before its nodes */

static uint8_t *put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) *p++ = (uint8_t)(v >> (8 * i));
  return p;
}

static uint64_t get_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static uint8_t *put_f64(uint8_t *p, double d) {
  uint64_t v;
  memcpy(&v, &d, sizeof v);
  return put_u64(p, v);
}

static double get_f64(const uint8_t *p) {
  uint64_t v = get_u64(p);
  double d;
  memcpy(&d, &v, sizeof d);
  return d;
}

static size_t agent_bytes(const dab_rule *r) { return AGENT_FIXED + 10u * r->nnodes + 2u * r->ntok; }

dab_status dab_rt_ckpt_write(const char *path, const dab_geom *g, const char *kind, const char *params,
                             const dab_ragent *a, int n, dab_err *err) {
  size_t len = 4;
  for (int i = 0; i < n; i++) len += agent_bytes(&a[i].rule);
  uint8_t *buf = malloc(len), *p = buf;
  if (!buf) return dab_fail(err, DAB_ENOMEM, "%s: out of memory for the checkpoint", path);
  for (int i = 0; i < 4; i++) *p++ = (uint8_t)((uint32_t)n >> (8 * i));
  for (int i = 0; i < n; i++) {
    const dab_ragent *x = &a[i];
    const dab_rule *r = &x->rule;
    p = put_f64(p, x->q), p = put_f64(p, x->f), p = put_f64(p, x->bid), p = put_f64(p, x->wealth);
    p = put_f64(p, x->lost);
    p = put_u64(p, (uint64_t)x->fired), p = put_u64(p, (uint64_t)x->graded);
    p = put_u64(p, (uint64_t)x->optimal), p = put_u64(p, (uint64_t)x->born);
    *p++ = r->nnodes, *p++ = r->act_a, *p++ = r->act_b, *p++ = (uint8_t)r->act_pos, *p++ = r->act_pos_b;
    *p++ = r->act_prop;
    *p++ = (uint8_t)(r->ntok & 0xff), *p++ = (uint8_t)(r->ntok >> 8);
    for (int v = 0; v < r->nnodes; v++) {
      const dab_rule_node *nd = &r->node[v];
      *p++ = nd->sym, *p++ = nd->deg, *p++ = nd->len, *p++ = nd->plus;
      *p++ = (uint8_t)(nd->id & 0xff), *p++ = (uint8_t)(nd->id >> 8);
      memcpy(p, nd->nb, 4);
      p += 4;
    }
    for (int k = 0; k < r->ntok; k++) *p++ = r->tok[k].node, *p++ = r->tok[k].flags;
  }
  dab_model_header h;
  memset(&h, 0, sizeof h);
  h.rows = g->rows;
  h.cols = g->cols;
  snprintf(h.kind, sizeof h.kind, "%s", kind);
  dab_status st = DAB_OK;
  if (strlen(params) > DAB_MODEL_PARAMS) st = dab_fail(err, DAB_EINPUT, "%s: checkpoint params too long", path);
  else snprintf(h.params, sizeof h.params, "%s", params);
  if (!st) st = dab_model_write(path, &h, buf, len, err);
  free(buf);
  return st;
}

/* Decodes one agent at *p (end: the payload's end) into x.  RETURN: false
** when it runs past end or holds an out-of-range or invalid rule. */
static bool get_agent(const uint8_t **pp, const uint8_t *end, dab_ragent *x) {
  const uint8_t *p = *pp;
  if ((size_t)(end - p) < AGENT_FIXED) return false;
  memset(x, 0, sizeof *x);
  x->q = get_f64(p), x->f = get_f64(p + 8), x->bid = get_f64(p + 16), x->wealth = get_f64(p + 24);
  x->lost = get_f64(p + 32);
  p += 40;
  x->fired = (long)get_u64(p), x->graded = (long)get_u64(p + 8), x->optimal = (long)get_u64(p + 16);
  x->born = (long)get_u64(p + 24);
  p += 32;
  dab_rule *r = &x->rule;
  r->nnodes = p[0], r->act_a = p[1], r->act_b = p[2], r->act_pos = (int8_t)p[3], r->act_pos_b = p[4];
  r->act_prop = p[5];
  r->ntok = (uint16_t)(p[6] | p[7] << 8);
  p += 8;
  if (!r->nnodes || r->nnodes > DAB_RULE_MAX_NODES || r->ntok > DAB_RULE_MAX_TOKENS ||
      (size_t)(end - p) < 10u * r->nnodes + 2u * r->ntok || r->act_a >= r->nnodes || r->act_b >= r->nnodes)
    return false;
  for (int v = 0; v < r->nnodes; v++) {
    dab_rule_node *nd = &r->node[v];
    nd->sym = p[0], nd->deg = p[1], nd->len = p[2], nd->plus = p[3];
    nd->id = (uint16_t)(p[4] | p[5] << 8);
    memcpy(nd->nb, p + 6, 4);
    p += 10;
    if (nd->sym >= DAB_RS_COUNT || nd->deg > DAB_RULE_MAX_DEG || nd->plus > 1) return false;
    for (int k = 0; k < nd->deg; k++)
      if (nd->nb[k] >= r->nnodes) return false;
  }
  for (int k = 0; k < r->ntok; k++) {
    r->tok[k].node = p[0], r->tok[k].flags = p[1];
    p += 2;
    if (r->tok[k].node >= r->nnodes) return false;
  }
  dab_rule_finish(r);
  if (!dab_rule_check(r, NULL, 0)) return false;
  *pp = p;
  return true;
}

dab_status dab_rt_ckpt_read(const char *path, const dab_geom *g, const char *kind, dab_model_header *h,
                            dab_ragent *a, int cap, int *n, dab_err *err) {
  *n = 0;
  void *payload;
  size_t len;
  dab_status st = dab_model_read(path, kind, h, &payload, &len, err);
  if (st) return st;
  char v[8];
  st = dab_model_check_board(path, h, g, err);
  if (!st && !dab_params_get(h->params, "checkpoint", v, sizeof v)) {
    st = dab_fail(err, DAB_EINPUT, "%s: not a %s checkpoint", path, kind);
  } else if (!st) {
    const uint8_t *p = payload, *end = p + len;
    uint32_t count = len >= 4 ? (uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24) : 0;
    p += len >= 4 ? 4 : 0;
    if (len < 4 || count > (uint32_t)cap) {
      st = dab_fail(err, DAB_ECORRUPT, "%s: damaged checkpoint (%u agents for a population of %d)", path,
                    (unsigned)count, cap);
    } else {
      int i = 0;
      while (i < (int)count && get_agent(&p, end, &a[i])) i++;
      if (i < (int)count || p != end)
        st = dab_fail(err, DAB_ECORRUPT, "%s: damaged checkpoint (agent %d of %u)", path, i, (unsigned)count);
      else *n = i;
    }
  }
  free(payload);
  return st;
}
