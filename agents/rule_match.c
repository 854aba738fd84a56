/*
** rule_match.c: subgraph matching of rules on state graphs (backtracking, capped, sampled).
** See Copyright Notice in README.md
*/
#include <string.h>
#include "agents/rule.h"

typedef struct search {
  const dab_rule *r;
  const dab_sgraph *sg;
  int16_t map[DAB_RULE_MAX_NODES];     /* state node of each rule node, -1 */
  int16_t owner[DAB_SG_MAX];           /* rule node on each state node, -1 */
  long steps, cap;
  bool capped;
} search;

/* Links between state nodes s and t. */
static int s_links(const dab_sgraph *sg, int s, int t) {
  int m = 0;
  for (int k = 0; k < sg->deg[s]; k++) m += sg->nb[s][k] == t;
  return m;
}

/* Can rule node v go on state node s, given the nodes placed so far? */
static bool fits(const search *S, int v, int s) {
  const dab_rule_node *n = &S->r->node[v];
  const dab_sgraph *sg = S->sg;
  if (S->owner[s] >= 0) return false;
  if (n->sym != DAB_RS_W) {
    if (sg->sym[s] != n->sym) return false;
    if (n->len && (n->plus ? sg->len[s] < n->len : sg->len[s] != n->len)) return false;
  } else if (n->deg > sg->deg[s]) {
    return false;
  }
  for (int k = 0; k < n->deg; k++) {
    int u = n->nb[k];
    if (S->map[u] < 0 || (k > 0 && n->nb[k - 1] == u)) continue;
    int need = 1;
    for (int j = k + 1; j < n->deg; j++) need += n->nb[j] == u;
    for (int j = 0; j < k - 1; j++)
      if (n->nb[j] == u) need = 0; /* counted at its first listing */
    if (need && s_links(sg, s, S->map[u]) < need) return false;
  }
  return true;
}

/* The candidate state nodes of the i-th node in order: neighbours of
** its placed parent, or every node of its symbol. */
static const int16_t *candidates(const search *S, int i, int *count, int16_t *buf) {
  const dab_rule *r = S->r;
  const dab_sgraph *sg = S->sg;
  int p = r->parent[i];
  if (p >= 0) {
    int s = S->map[p], n = 0;
    for (int k = 0; k < sg->deg[s]; k++) {
      int t = sg->nb[s][k];
      bool dup = false;
      for (int j = 0; j < n; j++) dup |= buf[j] == t;
      if (!dup) buf[n++] = (int16_t)t;
    }
    *count = n;
    return buf;
  }
  int sym = r->node[r->order[i]].sym;
  if (sym != DAB_RS_W) {
    *count = sg->nklass[sym];
    return sg->klass[sym];
  }
  for (int t = 0; t < sg->nnodes; t++) buf[t] = (int16_t)t;
  *count = sg->nnodes;
  return buf;
}

static void place(search *S, int v, int s) {
  S->map[v] = (int16_t)s;
  S->owner[s] = (int16_t)v;
}

static void unplace(search *S, int v) {
  S->owner[S->map[v]] = -1;
  S->map[v] = -1;
}

/* Backtracking from the i-th node in order.  Stops at the cap. */
static bool extend(search *S, int i) {
  if (i == S->r->nnodes) return true;
  int16_t buf[DAB_SG_MAX];
  int n;
  const int16_t *c = candidates(S, i, &n, buf);
  int v = S->r->order[i];
  for (int k = 0; k < n; k++) {
    if (++S->steps > S->cap) {
      S->capped = true;
      return false;
    }
    if (!fits(S, v, c[k])) continue;
    place(S, v, c[k]);
    if (extend(S, i + 1)) return true;
    unplace(S, v);
    if (S->capped) return false;
  }
  return false;
}

/* One random descent: each node on a uniformly chosen fitting candidate. */
static bool sample(search *S, dab_rng *rng, uint64_t *steps) {
  const dab_rule *r = S->r;
  int i;
  for (i = 0; i < r->nnodes; i++) {
    int16_t buf[DAB_SG_MAX], ok[DAB_SG_MAX];
    int n, m = 0;
    const int16_t *c = candidates(S, i, &n, buf);
    int v = r->order[i];
    for (int k = 0; k < n; k++)
      if (fits(S, v, c[k])) ok[m++] = c[k];
    *steps += (uint64_t)n;
    if (!m) break;
    place(S, v, ok[dab_rng_below(rng, m)]);
  }
  if (i == r->nnodes) return true;
  while (i-- > 0) unplace(S, r->order[i]);
  return false;
}

bool dab_rule_match(const dab_rule *r, const dab_sgraph *sg, const dab_rmatch_opts *opts,
                    dab_rng *rng, dab_rmatch_stats *stats, int16_t *map, int *line) {
  dab_rmatch_stats dummy;
  if (!stats) {
    memset(&dummy, 0, sizeof dummy);
    stats = &dummy;
  }
  stats->tests++;
  if (!dab_rule_key_fits(dab_rule_key_of(r), sg) || r->minchain > sg->maxchain || r->nnodes > sg->nnodes)
    goto filtered;

  stats->searches++;
  search S;
  S.r = r;
  S.sg = sg;
  S.steps = 0;
  S.cap = opts && opts->cap > 0 ? opts->cap : DAB_RMATCH_CAP;
  S.capped = false;
  memset(S.map, 0xff, sizeof S.map);
  memset(S.owner, 0xff, sizeof S.owner[0] * (size_t)sg->nnodes);
  bool found = extend(&S, 0);
  stats->placements += (uint64_t)(S.steps > S.cap ? S.cap : S.steps);
  if (S.capped) {
    stats->capped++;
    for (int i = 0; i < r->nnodes; i++)
      if (S.map[i] >= 0) unplace(&S, i);
    int samples = opts && opts->samples > 0 ? opts->samples : DAB_RMATCH_SAMPLES;
    for (int k = 0; k < samples && !found && rng; k++) found = sample(&S, rng, &stats->placements);
    if (found) stats->capped_found++;
  }
  if (!found) return false;
  stats->matches++;
  if (map) memcpy(map, S.map, sizeof S.map[0] * (size_t)r->nnodes);
  if (line) *line = dab_rule_action_line(r, sg, S.map);
  return true;
filtered:
  stats->prefiltered++;
  return false;
}

bool dab_rule_map_ok(const dab_rule *r, const dab_sgraph *sg, const int16_t *map) {
  for (int i = 0; i < r->nnodes; i++) {
    const dab_rule_node *n = &r->node[i];
    int s = map[i];
    if (s < 0 || s >= sg->nnodes) return false;
    for (int j = 0; j < i; j++)
      if (map[j] == s) return false;
    if (n->sym != DAB_RS_W && sg->sym[s] != n->sym) return false;
    if (n->sym != DAB_RS_W && n->len && (n->plus ? sg->len[s] < n->len : sg->len[s] != n->len))
      return false;
    for (int k = 0; k < n->deg; k++) {
      int u = n->nb[k], need = 0;
      for (int j = 0; j < n->deg; j++) need += n->nb[j] == u;
      if (s_links(sg, s, map[u]) < need) return false;
    }
  }
  return true;
}

int dab_rule_action_line(const dab_rule *r, const dab_sgraph *sg, const int16_t *map) {
  if (!sg->has_lines || r->act_a == r->act_b) return -1;
  int a = map[r->act_a], b = map[r->act_b];
  int pos = r->act_pos < 0 ? 0 : r->act_pos;
  /* The chain end: where the rule put the position, else whichever state
  ** node is a chain (a w can stand for one). */
  int c = -1, o = -1;
  if (r->act_pos >= 0) {
    c = r->act_pos_b ? b : a;
    o = r->act_pos_b ? a : b;
  } else if (sg->sym[a] == DAB_RS_L) {
    c = a, o = b;
  } else if (sg->sym[b] == DAB_RS_L) {
    c = b, o = a;
  }
  if (c >= 0 && sg->sym[c] == DAB_RS_L && sg->chain_at[c] >= 0) {
    int k = sg->nb[c][0] == o ? 0 : 1;
    int L = sg->len[c];
    if (pos > L) pos = L;
    return sg->chain_lines[sg->chain_at[c] + (k == 0 ? pos : L - pos)];
  }
  for (int k = 0; k < sg->deg[a]; k++)
    if (sg->nb[a][k] == b) return sg->line[a][k];
  return -1;
}
