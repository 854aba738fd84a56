/*
** rule_mutate.c: new rules (from a state graph, or random) and the papers' mutations.
** See Copyright Notice in README.md
*/
#include <string.h>
#include "agents/rule.h"

const char *const dab_mut_name[DAB_MUT_COUNT] = {
    "add-node", "remove-node", "add-link", "remove-link", "chain-length",
    "chain-plus", "join", "split", "wildcard"};

/* ---- Graph editing (no validity kept; the caller checks) ------------------ */

static int count_links(const dab_rule *r, int u, int v) {
  int m = 0;
  for (int k = 0; k < r->node[u].deg; k++) m += r->node[u].nb[k] == v;
  return m;
}

static int add_node(dab_rule *r, int sym) {
  if (r->nnodes >= DAB_RULE_MAX_NODES) return -1;
  int v = r->nnodes++;
  memset(&r->node[v], 0, sizeof r->node[v]);
  r->node[v].sym = (uint8_t)sym;
  r->node[v].id = DAB_RULE_ANON;
  return v;
}

static bool link(dab_rule *r, int u, int v) {
  if (u == v || r->node[u].deg >= DAB_RULE_MAX_DEG || r->node[v].deg >= DAB_RULE_MAX_DEG) return false;
  r->node[u].nb[r->node[u].deg++] = (uint8_t)v;
  r->node[v].nb[r->node[v].deg++] = (uint8_t)u;
  return true;
}

static void drop_one(dab_rule_node *n, int v) {
  for (int k = 0; k < n->deg; k++)
    if (n->nb[k] == v) {
      memmove(n->nb + k, n->nb + k + 1, (size_t)(n->deg - k - 1));
      n->deg--;
      return;
    }
}

static void unlink_one(dab_rule *r, int u, int v) {
  drop_one(&r->node[u], v);
  drop_one(&r->node[v], u);
}

/* Deletes node v (its links first); the last node moves into its slot. */
static void del_node(dab_rule *r, int v) {
  while (r->node[v].deg) unlink_one(r, v, r->node[v].nb[0]);
  int last = r->nnodes - 1;
  if (v != last) {
    r->node[v] = r->node[last];
    for (int u = 0; u < r->nnodes; u++)
      for (int k = 0; k < r->node[u].deg; k++)
        if (r->node[u].nb[k] == last) r->node[u].nb[k] = (uint8_t)v;
    if (r->act_a == last) r->act_a = (uint8_t)v;
    if (r->act_b == last) r->act_b = (uint8_t)v;
  }
  r->nnodes--;
}

/* Gives u a fresh w leaf (keeps u's degree when it just lost a link). */
static bool add_w_leaf(dab_rule *r, int u) {
  int w = add_node(r, DAB_RS_W);
  return w >= 0 && link(r, u, w);
}

static bool is_action(const dab_rule *r, int v) { return v == r->act_a || v == r->act_b; }

static bool is_action_link(const dab_rule *r, int u, int v) {
  return (u == r->act_a && v == r->act_b) || (u == r->act_b && v == r->act_a);
}

/* Removes w nodes left without links, except action ends. */
static void drop_bare_w(dab_rule *r) {
  for (int v = r->nnodes - 1; v >= 0; v--)
    if (r->node[v].sym == DAB_RS_W && r->node[v].deg == 0 && !is_action(r, v) && r->nnodes > 1)
      del_node(r, v);
}

/* A random link (u, nb index) into *u, *v; false when there is none. */
static bool random_link(const dab_rule *r, dab_rng *rng, int *u, int *v) {
  int total = 0;
  for (int x = 0; x < r->nnodes; x++) total += r->node[x].deg;
  if (!total) return false;
  int k = dab_rng_below(rng, total);
  for (int x = 0; x < r->nnodes; x++) {
    if (k < r->node[x].deg) {
      *u = x;
      *v = r->node[x].nb[k];
      return true;
    }
    k -= r->node[x].deg;
  }
  return false;
}

/* The fragment (component) of every node. */
static void fragments(const dab_rule *r, int *frag) {
  for (int v = 0; v < r->nnodes; v++) frag[v] = -1;
  int stack[DAB_RULE_MAX_NODES];
  for (int v0 = 0; v0 < r->nnodes; v0++) {
    if (frag[v0] >= 0) continue;
    int sp = 0;
    stack[sp++] = v0;
    frag[v0] = v0;
    while (sp) {
      int u = stack[--sp];
      for (int k = 0; k < r->node[u].deg; k++) {
        int w = r->node[u].nb[k];
        if (frag[w] < 0) {
          frag[w] = v0;
          stack[sp++] = w;
        }
      }
    }
  }
}

static void random_chain_bound(dab_rule_node *n, dab_rng *rng) {
  int k = dab_rng_below(rng, 4);
  n->len = (uint8_t)k; /* 0: any length */
  n->plus = (uint8_t)(k && dab_rng_below(rng, 2));
}

/* ---- The mutations -------------------------------------------------------- */

/* A new node of a random symbol, its links on existing w nodes with room
** (each with probability 1/2) or on fresh w leaves. */
static bool mut_add_node(dab_rule *r, dab_rng *rng, int sym) {
  int v = add_node(r, sym);
  if (v < 0) return false;
  if (sym == DAB_RS_L) random_chain_bound(&r->node[v], rng);
  int need = sym == DAB_RS_W ? dab_rng_below(rng, 2) : dab_rule_sym_degree(sym);
  for (int k = 0; k < need; k++) {
    int ws[DAB_RULE_MAX_NODES], nw = 0;
    for (int u = 0; u < r->nnodes; u++)
      if (u != v && r->node[u].sym == DAB_RS_W && r->node[u].deg < DAB_RULE_MAX_DEG) ws[nw++] = u;
    bool ok = nw && dab_rng_below(rng, 2) ? link(r, v, ws[dab_rng_below(rng, nw)]) : add_w_leaf(r, v);
    if (!ok) return false;
  }
  return true;
}

/* Removes a node; each concrete neighbour gets a w leaf in its place. */
static bool mut_del_node(dab_rule *r, dab_rng *rng) {
  if (r->nnodes < 2) return false;
  int v = dab_rng_below(rng, r->nnodes);
  if (is_action(r, v)) return false;
  int nb[DAB_RULE_MAX_DEG], deg = r->node[v].deg;
  for (int k = 0; k < deg; k++) nb[k] = r->node[v].nb[k];
  bool changed = r->node[v].sym != DAB_RS_W;
  del_node(r, v);
  for (int k = 0; k < deg; k++) {
    int u = nb[k] == r->nnodes ? v : nb[k]; /* the last node moved into v's slot */
    if (r->node[u].sym != DAB_RS_W) {
      if (!add_w_leaf(r, u)) return false;
    } else {
      changed = true;
    }
  }
  drop_bare_w(r);
  return changed;
}

/* Links two nodes; a concrete end gives up one of its w links for it. */
static bool mut_add_link(dab_rule *r, dab_rng *rng) {
  if (r->nnodes < 2) return false;
  int u = dab_rng_below(rng, r->nnodes), v = dab_rng_below(rng, r->nnodes);
  if (u == v) return false;
  int ends[2] = {u, v};
  for (int e = 0; e < 2; e++) {
    int x = ends[e];
    if (r->node[x].sym == DAB_RS_W) continue;
    int y = -1;
    for (int k = 0; k < r->node[x].deg && y < 0; k++) {
      int c = r->node[x].nb[k];
      if (r->node[c].sym == DAB_RS_W && c != ends[1 - e] && !is_action_link(r, x, c)) y = c;
    }
    if (y < 0) return false;
    unlink_one(r, x, y);
  }
  if (!link(r, u, v)) return false;
  drop_bare_w(r);
  return true;
}

/* Cuts a link; each concrete end gets a w leaf instead. */
static bool mut_del_link(dab_rule *r, dab_rng *rng) {
  int u, v;
  if (!random_link(r, rng, &u, &v)) return false;
  if (is_action_link(r, u, v) && count_links(r, u, v) < 2) return false;
  unlink_one(r, u, v);
  if (r->node[u].sym != DAB_RS_W && !add_w_leaf(r, u)) return false;
  if (r->node[v].sym != DAB_RS_W && !add_w_leaf(r, v)) return false;
  drop_bare_w(r);
  return true;
}

static int random_of_sym(const dab_rule *r, dab_rng *rng, int sym, bool want_not) {
  int c[DAB_RULE_MAX_NODES], n = 0;
  for (int v = 0; v < r->nnodes; v++)
    if ((r->node[v].sym == sym) != want_not) c[n++] = v;
  return n ? c[dab_rng_below(rng, n)] : -1;
}

static bool mut_chain_len(dab_rule *r, dab_rng *rng) {
  int v = random_of_sym(r, rng, DAB_RS_L, false);
  if (v < 0) return false;
  dab_rule_node *n = &r->node[v];
  int top = n->len + 2 > 4 ? n->len + 2 : 4;
  int len = dab_rng_below(rng, top + 1); /* 0 = any length */
  if (len == n->len) return false;
  n->len = (uint8_t)len;
  if (!len) n->plus = 0;
  return true;
}

static bool mut_chain_plus(dab_rule *r, dab_rng *rng) {
  int v = random_of_sym(r, rng, DAB_RS_L, false);
  if (v < 0) return false;
  dab_rule_node *n = &r->node[v];
  if (!n->len) n->len = 1;
  n->plus ^= 1;
  return true;
}

/* Merges two w nodes of different fragments into one. */
static bool mut_join(dab_rule *r, dab_rng *rng) {
  int frag[DAB_RULE_MAX_NODES];
  fragments(r, frag);
  int u = random_of_sym(r, rng, DAB_RS_W, false), v = random_of_sym(r, rng, DAB_RS_W, false);
  if (u < 0 || v < 0 || frag[u] == frag[v]) return false;
  if (r->node[u].deg + r->node[v].deg > DAB_RULE_MAX_DEG) return false;
  if (is_action(r, v)) {
    int t = u;
    u = v;
    v = t;
    if (is_action(r, v)) return false;
  }
  while (r->node[v].deg) {
    int x = r->node[v].nb[0];
    unlink_one(r, v, x);
    if (!link(r, u, x)) return false;
  }
  del_node(r, v);
  return true;
}

/* Splits a w node's links between it and a new w node. */
static bool mut_split(dab_rule *r, dab_rng *rng) {
  int c[DAB_RULE_MAX_NODES], n = 0;
  for (int v = 0; v < r->nnodes; v++)
    if (r->node[v].sym == DAB_RS_W && r->node[v].deg >= 2) c[n++] = v;
  if (!n) return false;
  int v = c[dab_rng_below(rng, n)];
  int w = add_node(r, DAB_RS_W);
  if (w < 0) return false;
  int move = 1 + dab_rng_below(rng, r->node[v].deg - 1);
  for (int k = 0; k < move; k++) {
    int x = r->node[v].nb[r->node[v].deg - 1];
    if (is_action_link(r, v, x)) return false;
    unlink_one(r, v, x);
    if (!link(r, w, x)) return false;
  }
  return true;
}

static bool mut_wild(dab_rule *r, dab_rng *rng) {
  int v = random_of_sym(r, rng, DAB_RS_W, true);
  if (v < 0) return false;
  r->node[v].sym = DAB_RS_W;
  r->node[v].len = r->node[v].plus = 0;
  return true;
}

bool dab_rule_mutate_one(dab_rule *r, int kind, dab_rng *rng) {
  dab_rule before = *r;
  bool ok;
  switch (kind) {
  case DAB_MUT_ADD_NODE: ok = mut_add_node(r, rng, dab_rng_below(rng, DAB_RS_COUNT)); break;
  case DAB_MUT_DEL_NODE: ok = mut_del_node(r, rng); break;
  case DAB_MUT_ADD_LINK: ok = mut_add_link(r, rng); break;
  case DAB_MUT_DEL_LINK: ok = mut_del_link(r, rng); break;
  case DAB_MUT_CHAIN_LEN: ok = mut_chain_len(r, rng); break;
  case DAB_MUT_CHAIN_PLUS: ok = mut_chain_plus(r, rng); break;
  case DAB_MUT_JOIN: ok = mut_join(r, rng); break;
  case DAB_MUT_SPLIT: ok = mut_split(r, rng); break;
  case DAB_MUT_WILD: ok = mut_wild(r, rng); break;
  default: ok = false;
  }
  if (ok) {
    dab_rule_relayout(r);
    ok = dab_rule_check(r, NULL, 0);
  }
  if (!ok) *r = before;
  return ok;
}

int dab_rule_mutate(dab_rule *r, double p_repeat, dab_rng *rng) {
  int kept = 0;
  for (int i = 0; i < 32; i++) {
    kept += dab_rule_mutate_one(r, dab_rng_below(rng, DAB_MUT_COUNT), rng);
    if (dab_rng_unit(rng) >= p_repeat) break;
  }
  return kept;
}

/* ---- New rules ------------------------------------------------------------ */

dab_status dab_rule_from_state(const dab_sgraph *sg, int line, dab_rng *rng, dab_rule *r,
                               dab_err *err) {
  if (!sg->has_lines) return dab_fail(err, DAB_EBOARD, "the state graph has no lines");
  int16_t idx[DAB_SG_MAX];
  memset(r, 0, sizeof *r);
  r->act_pos = -1;
  for (int v = 0; v < sg->nnodes; v++) {
    bool loop = sg->sym[v] == DAB_RS_L && sg->nb[v][0] == v;
    idx[v] = -1;
    if (loop) continue;
    if (r->nnodes >= DAB_RULE_MAX_NODES)
      return dab_fail(err, DAB_EBOARD, "the state graph has more than %d nodes", DAB_RULE_MAX_NODES);
    idx[v] = (int16_t)add_node(r, sg->sym[v]);
    if (sg->sym[v] == DAB_RS_L) r->node[idx[v]].len = (uint8_t)(sg->len[v] > 255 ? 255 : sg->len[v]);
  }
  /* Links (each once, from its lower end), and the nameable lines. */
  int16_t cand_a[DAB_MAX_LINES], cand_b[DAB_MAX_LINES], cand_pos[DAB_MAX_LINES], cand_line[DAB_MAX_LINES];
  int ncand = 0;
  for (int v = 0; v < sg->nnodes; v++) {
    if (idx[v] < 0) continue;
    for (int k = 0; k < sg->deg[v]; k++) {
      int u = sg->nb[v][k];
      if (u <= v) continue;
      link(r, idx[v], idx[u]);
      if (sg->sym[v] == DAB_RS_L || sg->sym[u] == DAB_RS_L) continue;
      cand_a[ncand] = idx[v], cand_b[ncand] = idx[u], cand_pos[ncand] = -1;
      cand_line[ncand++] = sg->line[v][k];
    }
    if (sg->sym[v] == DAB_RS_L) {
      /* Every line of the chain: position p from end 0's neighbour; the
      ** far half counted from end 1's. */
      int L = sg->len[v];
      const int16_t *cl = sg->chain_lines + sg->chain_at[v];
      for (int p = 0; p <= L; p++) {
        int e = 2 * p > L && sg->nb[v][0] != sg->nb[v][1];
        cand_a[ncand] = idx[v];
        cand_b[ncand] = idx[sg->nb[v][e]];
        cand_pos[ncand] = (int16_t)(e ? L - p : p);
        cand_line[ncand++] = cl[p];
      }
    }
  }
  if (!ncand) return dab_fail(err, DAB_EBOARD, "no line the rule graph can name");
  int pick = -1;
  if (line < 0) {
    pick = dab_rng_below(rng, ncand);
  } else {
    for (int i = 0; i < ncand && pick < 0; i++)
      if (cand_line[i] == line) pick = i;
    if (pick < 0) return dab_fail(err, DAB_EINPUT, "line %d is not a link of the state graph", line);
  }
  r->act_a = (uint8_t)cand_a[pick];
  r->act_b = (uint8_t)cand_b[pick];
  if (cand_pos[pick] >= 0) {
    r->act_pos = (int8_t)(cand_pos[pick] > 127 ? 127 : cand_pos[pick]);
    r->act_pos_b = 0;
  }
  dab_rule_relayout(r);
  char why[96];
  if (!dab_rule_check(r, why, sizeof why))
    return dab_fail(err, DAB_EINTERNAL, "rule from state graph invalid: %s", why);
  return DAB_OK;
}

void dab_rule_random(dab_rule *r, dab_rng *rng) {
  static const uint8_t concrete[] = {DAB_RS_Q, DAB_RS_T, DAB_RS_L, DAB_RS_X, DAB_RS_N};
  for (;;) {
    memset(r, 0, sizeof *r);
    r->act_pos = -1;
    int k = 1 + dab_rng_below(rng, 3);
    for (int i = 0; i < k; i++) mut_add_node(r, rng, concrete[dab_rng_below(rng, 5)]);
    for (int i = dab_rng_below(rng, 3); i > 0; i--) {
      dab_rule save = *r;
      if (!(dab_rng_below(rng, 2) ? mut_join(r, rng) : mut_add_link(r, rng))) *r = save;
    }
    int u, v;
    if (!random_link(r, rng, &u, &v)) continue;
    if (r->node[v].sym == DAB_RS_L && r->node[u].sym != DAB_RS_L) {
      int t = u;
      u = v;
      v = t;
    }
    r->act_a = (uint8_t)u;
    r->act_b = (uint8_t)v;
    if (r->node[u].sym == DAB_RS_L) {
      int top = r->node[u].len ? r->node[u].len : 1;
      r->act_pos = (int8_t)dab_rng_below(rng, top + 1);
    }
    dab_rule_relayout(r);
    if (dab_rule_check(r, NULL, 0)) return;
  }
}
