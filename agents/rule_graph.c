/*
** rule_graph.c: the state graph of a position (boxes by degree, chains collapsed, ground lines).
** See Copyright Notice in README.md
*/
#include <string.h>
#include "agents/rule.h"
#include "game/sc.h"

/* Class lists, the longest chain and the prefilter bits, from the nodes. */
static void sgraph_finish(dab_sgraph *sg) {
  memset(sg->nklass, 0, sizeof sg->nklass);
  sg->maxchain = 0;
  sg->sig = 0;
  for (int v = 0; v < sg->nnodes; v++) {
    int s = sg->sym[v];
    sg->klass[s][sg->nklass[s]++] = (int16_t)v;
    if (s == DAB_RS_L && sg->len[v] > sg->maxchain) sg->maxchain = sg->len[v];
    int ns[4];
    for (int k = 0; k < sg->deg[v]; k++) ns[k] = sg->sym[sg->nb[v][k]];
    sg->sig |= dab_rule_node_sig(s, ns, sg->deg[v], true);
  }
  uint64_t c = 0;
  for (int k = 0; k < 5; k++) c |= (uint64_t)(sg->nklass[k] > 127 ? 127 : sg->nklass[k]) << (8 * k);
  c |= (uint64_t)(sg->maxchain > 127 ? 127 : sg->maxchain) << 40;
  c |= (uint64_t)(sg->nnodes > 127 ? 127 : sg->nnodes) << 48;
  sg->counts = c;
}

static int new_node(dab_sgraph *sg, int sym, int len) {
  int v = sg->nnodes++;
  sg->sym[v] = (uint8_t)sym;
  sg->deg[v] = 0;
  sg->len[v] = (int16_t)len;
  sg->chain_at[v] = -1;
  return v;
}

static void push_link(dab_sgraph *sg, int v, int u, int line) {
  int k = sg->deg[v]++;
  sg->nb[v][k] = (int16_t)u;
  sg->line[v][k] = (int16_t)line;
}

/* The undrawn line of box b other than `from`, for a degree-2 box. */
static int other_line(const dab_geom *g, const dab_lineset *s, int b, int from) {
  for (int k = 0; k < 4; k++) {
    int m = g->box_line[b][k];
    if (m != from && !dab_ls_has(s, m)) return m;
  }
  return -1;
}

void dab_sgraph_build(const dab_geom *g, const dab_lineset *s, dab_sgraph *sg) {
  dab_sc_view v;
  dab_sc_analyze(g, s, &v);
  int16_t node_of[DAB_MAX_BOXES];
  int16_t seg_of_node[DAB_SG_MAX];
  sg->nnodes = 0;
  sg->has_lines = true;
  int nlines_used = 0;
  for (int b = 0; b < g->nboxes; b++) {
    node_of[b] = -1;
    int d = v.degree[b];
    if (d == 1 || d >= 3) node_of[b] = (int16_t)new_node(sg, d == 1 ? DAB_RS_X : d == 3 ? DAB_RS_T : DAB_RS_Q, 1);
  }
  /* Chains: one node per segment, its lines walked from end 0. */
  for (int i = 0; i < v.nseg; i++) {
    const dab_sc_segment *seg = &v.seg[i];
    int c = new_node(sg, DAB_RS_L, seg->length);
    seg_of_node[c] = (int16_t)i;
    sg->chain_at[c] = nlines_used;
    int16_t *out = sg->chain_lines + nlines_used;
    int n = 0, cur = seg->box[0], from = seg->end_line[0];
    out[n++] = (int16_t)from;
    node_of[cur] = (int16_t)c;
    for (int step = 0; step < seg->length; step++) {
      int m = other_line(g, s, cur, from);
      if (seg->end[0] == DAB_END_NONE && step == seg->length - 1) break; /* loop closed */
      out[n++] = (int16_t)m;
      if (step == seg->length - 1) break;
      cur = dab_sc_across(g, cur, m);
      from = m;
      node_of[cur] = (int16_t)c;
    }
    nlines_used += n;
  }
  /* Links of the chains, then of the other boxes; ground lines get n nodes. */
  for (int c = 0; c < sg->nnodes; c++) {
    if (sg->sym[c] != DAB_RS_L) continue;
    const int16_t *cl = sg->chain_lines + sg->chain_at[c];
    int L = sg->len[c];
    const dab_sc_segment *seg = &v.seg[seg_of_node[c]];
    for (int e = 0; e < 2; e++) {
      int line = e == 0 ? cl[0] : (seg->end[0] == DAB_END_NONE ? cl[L - 1] : cl[L]);
      if (seg->end[e] == DAB_END_NONE) {
        push_link(sg, c, c, line);
      } else if (seg->end_box[e] < 0) {
        int n = new_node(sg, DAB_RS_N, 1);
        push_link(sg, n, c, line);
        push_link(sg, c, n, line);
      } else {
        push_link(sg, c, node_of[seg->end_box[e]], line);
      }
    }
  }
  for (int b = 0; b < g->nboxes; b++) {
    int d = v.degree[b];
    if (d == 0 || d == 2) continue;
    int me = node_of[b];
    for (int k = 0; k < 4; k++) {
      int m = g->box_line[b][k];
      if (dab_ls_has(s, m)) continue;
      int o = dab_sc_across(g, b, m);
      if (o < 0) {
        int n = new_node(sg, DAB_RS_N, 1);
        push_link(sg, n, me, m);
        push_link(sg, me, n, m);
      } else {
        push_link(sg, me, node_of[o], m);
      }
    }
  }
  sgraph_finish(sg);
}

dab_status dab_sgraph_from_rule(const dab_rule *r, dab_sgraph *sg, dab_err *err) {
  sg->nnodes = r->nnodes;
  sg->has_lines = false;
  for (int v = 0; v < r->nnodes; v++) {
    const dab_rule_node *n = &r->node[v];
    if (n->sym == DAB_RS_W) return dab_fail(err, DAB_EINPUT, "a state graph has no wildcard (node %d)", v);
    if (n->deg != dab_rule_sym_degree(n->sym))
      return dab_fail(err, DAB_EINPUT, "state node %d has %d links, its symbol %d", v, n->deg,
                      dab_rule_sym_degree(n->sym));
    sg->sym[v] = n->sym;
    sg->deg[v] = n->deg;
    sg->len[v] = (int16_t)(n->len ? n->len : 1);
    sg->chain_at[v] = -1;
    for (int k = 0; k < n->deg; k++) {
      sg->nb[v][k] = n->nb[k];
      sg->line[v][k] = -1;
    }
  }
  sgraph_finish(sg);
  return DAB_OK;
}
