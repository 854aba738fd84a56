/*
** rule_parse.c: the rule language's text: parse, print, canonical layout, validity.
** See Copyright Notice in README.md
*/
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "agents/rule.h"

static const char sym_chars[DAB_RS_COUNT + 1] = "qtlxnw";
static const int8_t sym_deg[DAB_RS_COUNT] = {4, 3, 2, 1, 1, -1};

int dab_rule_sym_degree(int sym) { return sym >= 0 && sym < DAB_RS_COUNT ? sym_deg[sym] : -1; }
char dab_rule_sym_char(int sym) { return sym >= 0 && sym < DAB_RS_COUNT ? sym_chars[sym] : '?'; }

static int sym_of(char c) {
  const char *p = c ? strchr(sym_chars, c) : NULL;
  return p ? (int)(p - sym_chars) : -1;
}

/* ---- Parsing ------------------------------------------------------------- */

typedef struct ptok {
  int sym;
  int id;          /* -1: unnumbered */
  int len, plus;   /* len -1: no "(...)" */
  int pos;         /* -1: no "[...]" */
  int col;         /* 1-based column of the token */
} ptok;

typedef struct parser {
  const char *s;
  size_t i;
  dab_err *err;
  dab_rule *r;
  uint8_t listed[DAB_RULE_MAX_NODES][DAB_RULE_MAX_NODES];  /* u's entry lists v n times */
  int node_col[DAB_RULE_MAX_NODES];
  bool headed[DAB_RULE_MAX_NODES];
  bool prop_given[DAB_RULE_MAX_NODES];
} parser;

static int col(const parser *p) { return (int)p->i + 1; }

static dab_status perr(parser *p, int c, const char *what) {
  return dab_fail(p->err, DAB_EINPUT, "column %d: %s", c, what);
}

/* Skips whitespace; returns true when any was skipped. */
static bool skip_ws(parser *p) {
  size_t i0 = p->i;
  while (p->s[p->i] && isspace((unsigned char)p->s[p->i])) p->i++;
  return p->i != i0;
}

/* Reads a decimal number of at most 4 digits into *v; false if none. */
static bool read_num(parser *p, int *v, bool *too_long) {
  int n = 0, k = 0;
  *too_long = false;
  while (isdigit((unsigned char)p->s[p->i])) {
    if (k >= 4) *too_long = true;  /* stop accumulating: no overflow */
    else n = n * 10 + (p->s[p->i] - '0');
    k++;
    p->i++;
  }
  *v = n;
  return k > 0;
}

/* Reads one token at p->i (which must start with a symbol letter).
** allow_pos: an action end, which may carry "[k]". */
static dab_status read_tok(parser *p, bool allow_pos, ptok *t) {
  bool tl;
  t->col = col(p);
  t->sym = sym_of(p->s[p->i]);
  t->id = -1;
  t->len = -1;
  t->plus = 0;
  t->pos = -1;
  if (t->sym < 0) {
    if (!p->s[p->i]) return perr(p, t->col, "expected a node (q, t, l, x, n or w), found the end");
    char m[64];
    snprintf(m, sizeof m, "expected a node (q, t, l, x, n or w), found '%c'", p->s[p->i]);
    return perr(p, t->col, m);
  }
  p->i++;
  int v;
  if (read_num(p, &v, &tl)) {
    if (tl || v > DAB_RULE_MAX_ID) return perr(p, t->col, "node number above 9999");
    t->id = v;
  }
  if (p->s[p->i] == '(') {
    int c = col(p);
    if (t->sym != DAB_RS_L) return perr(p, c, "only a chain (l) has a length");
    p->i++;
    if (!read_num(p, &v, &tl)) return perr(p, col(p), "expected the chain's length");
    if (tl || v < 1 || v > 255) return perr(p, c + 1, "chain length must be 1..255");
    t->len = v;
    if (p->s[p->i] == '+') {
      t->plus = 1;
      p->i++;
    }
    if (p->s[p->i] != ')') return perr(p, col(p), "expected ')'");
    p->i++;
  }
  if (p->s[p->i] == '[') {
    int c = col(p);
    if (!allow_pos) return perr(p, c, "a position [k] belongs to an action's chain end");
    if (t->sym != DAB_RS_L) return perr(p, c, "only a chain (l) has a position [k]");
    p->i++;
    if (!read_num(p, &v, &tl) || tl || v > 127) return perr(p, col(p), "expected a position 0..127");
    t->pos = v;
    if (p->s[p->i] != ']') return perr(p, col(p), "expected ']'");
    p->i++;
  }
  return DAB_OK;
}

static int find_id(const dab_rule *r, int id) {
  for (int v = 0; v < r->nnodes; v++)
    if (r->node[v].id == id) return v;
  return -1;
}

/* The node a graph token names (made when new). */
static dab_status tok_node(parser *p, const ptok *t, int *out) {
  dab_rule *r = p->r;
  int v = t->id >= 0 ? find_id(r, t->id) : -1;
  if (v >= 0) {
    dab_rule_node *n = &r->node[v];
    if (n->sym != t->sym) {
      char m[96];
      snprintf(m, sizeof m, "node %d is '%c' at column %d, not '%c'", t->id, sym_chars[n->sym],
               p->node_col[v], sym_chars[t->sym]);
      return perr(p, t->col, m);
    }
  } else {
    if (r->nnodes >= DAB_RULE_MAX_NODES) return perr(p, t->col, "more than 40 nodes");
    v = r->nnodes++;
    memset(&r->node[v], 0, sizeof r->node[v]);
    r->node[v].sym = (uint8_t)t->sym;
    r->node[v].id = t->id >= 0 ? (uint16_t)t->id : DAB_RULE_ANON;
    p->node_col[v] = t->col;
  }
  if (t->len >= 0) {
    dab_rule_node *n = &r->node[v];
    if (p->prop_given[v] && (n->len != t->len || n->plus != t->plus))
      return perr(p, t->col, "chain length differs from the node's earlier one");
    n->len = (uint8_t)t->len;
    n->plus = (uint8_t)t->plus;
    p->prop_given[v] = true;
  }
  *out = v;
  return DAB_OK;
}

static dab_status add_tok(parser *p, int v, uint8_t flags, int c) {
  dab_rule *r = p->r;
  if (r->ntok >= DAB_RULE_MAX_TOKENS) return perr(p, c, "too many tokens");
  r->tok[r->ntok].node = (uint8_t)v;
  r->tok[r->ntok].flags = flags;
  r->ntok++;
  return DAB_OK;
}

/* Entries up to "=>" or the end. */
static dab_status parse_graph(parser *p) {
  dab_status st;
  for (;;) {
    skip_ws(p);
    ptok t;
    int head, v;
    if ((st = read_tok(p, false, &t))) return st;
    if ((st = tok_node(p, &t, &head))) return st;
    if (t.id >= 0 && p->headed[head]) return perr(p, t.col, "node listed as an entry twice");
    p->headed[head] = true;
    if ((st = add_tok(p, head, (uint8_t)(DAB_TOK_HEAD | (t.len >= 0 ? DAB_TOK_PROP : 0)), t.col)))
      return st;
    int listed = 0;
    for (;;) {
      bool sp = skip_ws(p);
      char c = p->s[p->i];
      if (!c || c == ':' || c == '=') break;
      if ((st = read_tok(p, false, &t))) return st;
      if ((st = tok_node(p, &t, &v))) return st;
      if (v == head) return perr(p, t.col, "a node linked to itself");
      if (++p->listed[head][v] > 4 || ++listed > 4) return perr(p, t.col, "more than 4 links on a node");
      uint8_t f = (uint8_t)((t.len >= 0 ? DAB_TOK_PROP : 0) | (sp ? DAB_TOK_SPACE : 0));
      if ((st = add_tok(p, v, f, t.col))) return st;
    }
    if (p->s[p->i] != ':') return DAB_OK;
    p->i++;
  }
}

/* Turns the listed counts into links. */
static dab_status make_links(parser *p) {
  dab_rule *r = p->r;
  for (int u = 0; u < r->nnodes; u++)
    for (int v = u + 1; v < r->nnodes; v++) {
      int m = p->listed[u][v] > p->listed[v][u] ? p->listed[u][v] : p->listed[v][u];
      for (int k = 0; k < m; k++) {
        if (r->node[u].deg >= DAB_RULE_MAX_DEG || r->node[v].deg >= DAB_RULE_MAX_DEG)
          return perr(p, p->node_col[r->node[u].deg >= DAB_RULE_MAX_DEG ? u : v],
                      "more than 4 links on a node");
        r->node[u].nb[r->node[u].deg++] = (uint8_t)v;
        r->node[v].nb[r->node[v].deg++] = (uint8_t)u;
      }
    }
  return DAB_OK;
}

static int links(const dab_rule *r, int u, int v) {
  int m = 0;
  for (int k = 0; k < r->node[u].deg; k++) m += r->node[u].nb[k] == v;
  return m;
}

/* Resolves an action end: numbered by its id, unnumbered as the first
** unnumbered neighbour of `other` with its symbol. */
static dab_status end_node(parser *p, const ptok *t, int other, int *out) {
  dab_rule *r = p->r;
  int v = -1;
  if (t->id >= 0) {
    v = find_id(r, t->id);
    if (v < 0) return perr(p, t->col, "the action's node is not in the graph");
    if (r->node[v].sym != t->sym) return perr(p, t->col, "the action's node has another symbol");
  } else {
    const dab_rule_node *o = &r->node[other];
    for (int k = 0; k < o->deg && v < 0; k++) {
      int u = o->nb[k];
      if (r->node[u].id == DAB_RULE_ANON && r->node[u].sym == t->sym) v = u;
    }
    if (v < 0) return perr(p, t->col, "no unnumbered node of that symbol is linked to the other end");
  }
  if (t->len >= 0 && (!p->prop_given[v] || r->node[v].len != t->len || r->node[v].plus != t->plus))
    return perr(p, t->col, "the action's chain length differs from the graph's");
  *out = v;
  return DAB_OK;
}

static dab_status parse_action(parser *p) {
  dab_rule *r = p->r;
  dab_status st;
  ptok a, b;
  skip_ws(p);
  if ((st = read_tok(p, true, &a))) return st;
  skip_ws(p);
  if (p->s[p->i] != '-') return perr(p, col(p), "expected '-' between the action's nodes");
  p->i++;
  skip_ws(p);
  if ((st = read_tok(p, true, &b))) return st;
  skip_ws(p);
  if (p->s[p->i]) return perr(p, col(p), "unexpected text after the action");
  if (a.id < 0 && b.id < 0) return perr(p, a.col, "one of the action's nodes must be numbered");
  if (a.pos >= 0 && b.pos >= 0) return perr(p, b.col, "only one action end may have a position");
  int va = -1, vb = -1;
  if (a.id >= 0) {
    if ((st = end_node(p, &a, -1, &va))) return st;
    if ((st = end_node(p, &b, va, &vb))) return st;
  } else {
    if ((st = end_node(p, &b, -1, &vb))) return st;
    if ((st = end_node(p, &a, vb, &va))) return st;
  }
  if (va == vb) return perr(p, b.col, "the action joins a node to itself");
  if (!links(r, va, vb)) return perr(p, a.col, "the action is not a link of the graph");
  r->act_a = (uint8_t)va;
  r->act_b = (uint8_t)vb;
  r->act_pos = (int8_t)(a.pos >= 0 ? a.pos : b.pos);
  r->act_pos_b = b.pos >= 0;
  r->act_prop = (uint8_t)((a.len >= 0 ? 1 : 0) | (b.len >= 0 ? 2 : 0));
  return DAB_OK;
}

dab_status dab_rule_parse(const char *text, bool graph_only, dab_rule *r, dab_err *err) {
  static const parser zero;
  parser p = zero;
  p.s = text;
  p.err = err;
  p.r = r;
  memset(r, 0, sizeof *r);
  r->act_pos = -1;
  dab_status st = parse_graph(&p);
  if (st) return st;
  if ((st = make_links(&p))) return st;
  skip_ws(&p);
  if (graph_only) {
    if (p.s[p.i]) return perr(&p, col(&p), "a graph text has no action");
  } else {
    if (p.s[p.i] != '=' || p.s[p.i + 1] != '>') return perr(&p, col(&p), "expected '=>' and an action");
    p.i += 2;
    if ((st = parse_action(&p))) return st;
  }
  dab_rule_finish(r);
  return DAB_OK;
}

/* ---- Printing ------------------------------------------------------------ */

typedef struct out {
  char *buf;
  size_t cap, n;
  bool over;
} out;

static void put(out *o, const char *s) {
  size_t k = strlen(s);
  if (o->n + k + 1 > o->cap) {
    o->over = true;
    return;
  }
  memcpy(o->buf + o->n, s, k + 1);
  o->n += k;
}

static void put_node(out *o, const dab_rule *r, int v, bool prop, int pos) {
  const dab_rule_node *n = &r->node[v];
  char t[48];
  int k = snprintf(t, sizeof t, "%c", sym_chars[n->sym]);
  if (n->id != DAB_RULE_ANON) k += snprintf(t + k, sizeof t - (size_t)k, "%u", (unsigned)n->id);
  if (prop && n->len) k += snprintf(t + k, sizeof t - (size_t)k, "(%u%s)", n->len, n->plus ? "+" : "");
  if (pos >= 0) snprintf(t + k, sizeof t - (size_t)k, "[%d]", pos);
  put(o, t);
}

int dab_rule_print(const dab_rule *r, char *buf, size_t cap) {
  out o = {buf, cap, 0, cap == 0};
  if (cap) buf[0] = 0;
  for (int i = 0; i < r->ntok; i++) {
    const dab_rule_tok *t = &r->tok[i];
    if (t->flags & DAB_TOK_HEAD) {
      if (i) put(&o, " : ");
    } else if (t->flags & DAB_TOK_SPACE) {
      put(&o, " ");
    }
    put_node(&o, r, t->node, t->flags & DAB_TOK_PROP, -1);
  }
  if (r->act_a != r->act_b) {
    put(&o, " => ");
    put_node(&o, r, r->act_a, r->act_prop & 1, r->act_pos_b ? -1 : r->act_pos);
    put(&o, " - ");
    put_node(&o, r, r->act_b, r->act_prop & 2, r->act_pos_b ? r->act_pos : -1);
  }
  return o.over ? -1 : (int)o.n;
}

/* ---- Canonical layout ---------------------------------------------------- */

static bool leaf_sym(int s) { return s == DAB_RS_N || s == DAB_RS_W; }

void dab_rule_relayout(dab_rule *r) {
  uint16_t next = 0;
  bool act = r->act_a != r->act_b;
  for (int v = 0; v < r->nnodes; v++) {
    dab_rule_node *n = &r->node[v];
    bool anon = leaf_sym(n->sym) && n->deg == 1 && !leaf_sym(r->node[n->nb[0]].sym) &&
                !(act && (v == r->act_a || v == r->act_b));
    n->id = anon ? DAB_RULE_ANON : next++;
  }
  r->ntok = 0;
  for (int v = 0; v < r->nnodes; v++) {
    const dab_rule_node *n = &r->node[v];
    if (n->id == DAB_RULE_ANON) continue;
    r->tok[r->ntok].node = (uint8_t)v;
    r->tok[r->ntok++].flags = (uint8_t)(DAB_TOK_HEAD | (n->len ? DAB_TOK_PROP : 0));
    for (int k = 0; k < n->deg; k++) {
      int u = n->nb[k];
      r->tok[r->ntok].node = (uint8_t)u;
      r->tok[r->ntok++].flags = (uint8_t)(r->node[u].len ? DAB_TOK_PROP : 0);
    }
  }
  if (r->act_a != r->act_b) {
    r->act_prop = (uint8_t)((r->node[r->act_a].len ? 1 : 0) | (r->node[r->act_b].len ? 2 : 0));
    if (r->act_pos < 0) {
      if (r->node[r->act_a].sym == DAB_RS_L) r->act_pos = 0, r->act_pos_b = 0;
      else if (r->node[r->act_b].sym == DAB_RS_L) r->act_pos = 0, r->act_pos_b = 1;
    }
  }
  dab_rule_finish(r);
}

/* ---- Validity ------------------------------------------------------------ */

static bool why_set(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool why_set(char *why, size_t cap, const char *fmt, ...) {
  if (why && cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
  }
  return false;
}

bool dab_rule_check(const dab_rule *r, char *why, size_t cap) {
  if (r->nnodes < 1 || r->nnodes > DAB_RULE_MAX_NODES) return why_set(why, cap, "%d nodes", r->nnodes);
  for (int v = 0; v < r->nnodes; v++) {
    const dab_rule_node *n = &r->node[v];
    if (n->sym >= DAB_RS_COUNT || n->deg > DAB_RULE_MAX_DEG)
      return why_set(why, cap, "node %d: bad symbol or degree", v);
    if (n->sym != DAB_RS_W && n->deg != sym_deg[n->sym])
      return why_set(why, cap, "node %d: links differ from its symbol's degree", v);
    if (n->sym != DAB_RS_L && (n->len || n->plus)) return why_set(why, cap, "node %d: length on a non-chain", v);
    if (n->plus && !n->len) return why_set(why, cap, "node %d: '+' without a length", v);
    for (int k = 0; k < n->deg; k++) {
      int u = n->nb[k];
      if (u >= r->nnodes) return why_set(why, cap, "node %d: link to a missing node", v);
      if (u == v) return why_set(why, cap, "node %d: linked to itself", v);
      int m = links(r, v, u);
      if (m != links(r, u, v)) return why_set(why, cap, "node %d: one-sided link", v);
      if (m > 2) return why_set(why, cap, "node %d: more than two parallel links", v);
      if (m == 2 && n->sym != DAB_RS_L && r->node[u].sym != DAB_RS_L && n->sym != DAB_RS_W &&
          r->node[u].sym != DAB_RS_W)
        return why_set(why, cap, "node %d: parallel links without a chain", v);
    }
  }
  int a = r->act_a, b = r->act_b;
  if (a >= r->nnodes || b >= r->nnodes || a == b) return why_set(why, cap, "no action");
  if (!links(r, a, b)) return why_set(why, cap, "the action is not a link");
  if (r->act_pos >= 0) {
    const dab_rule_node *c = &r->node[r->act_pos_b ? b : a];
    if (c->sym != DAB_RS_L) return why_set(why, cap, "position on a non-chain end");
    if (r->act_pos > (c->len ? c->len : 1)) return why_set(why, cap, "position %d past the chain", r->act_pos);
  }
  return true;
}

/* ---- Derived fields ------------------------------------------------------ */

/* A hash of a node's symbol and its neighbours' sorted symbols. */
static unsigned descriptor_bit(int sym, const int *nsym, int deg) {
  int s[4];
  for (int k = 0; k < deg; k++) s[k] = nsym[k];
  for (int i = 1; i < deg; i++)
    for (int j = i; j > 0 && s[j - 1] > s[j]; j--) {
      int t = s[j];
      s[j] = s[j - 1];
      s[j - 1] = t;
    }
  unsigned h = (unsigned)sym + 7u;
  for (int k = 0; k < deg; k++) h = h * 31u + (unsigned)s[k] + 1u;
  return 25u + (h * 2654435761u >> 7) % 39u;
}

uint64_t dab_rule_node_sig(int sym, const int *nsym, int deg, bool full) {
  uint64_t b = 0;
  if (sym == DAB_RS_W) return 0;
  bool all = full;
  for (int k = 0; k < deg; k++) {
    if (nsym[k] == DAB_RS_W) all = false;
    else b |= 1ull << (sym * 5 + nsym[k]);
  }
  if (all && deg == sym_deg[sym]) b |= 1ull << descriptor_bit(sym, nsym, deg);
  return b;
}

static int sym_rank(int s) {
  static const int rank[DAB_RS_COUNT] = {1, 2, 3, 0, 4, 5}; /* x q t l n w */
  return rank[s];
}

void dab_rule_finish(dab_rule *r) {
  memset(r->count, 0, sizeof r->count);
  r->minchain = 0;
  r->sig = 0;
  for (int v = 0; v < r->nnodes; v++) {
    const dab_rule_node *n = &r->node[v];
    r->count[n->sym]++;
    if (n->sym == DAB_RS_L && n->len > r->minchain) r->minchain = n->len;
    int ns[4];
    for (int k = 0; k < n->deg; k++) ns[k] = r->node[n->nb[k]].sym;
    r->sig |= dab_rule_node_sig(n->sym, ns, n->deg, true);
  }
  uint64_t c = 0;
  for (int k = 0; k < 5; k++) c |= (uint64_t)(r->count[k] > 127 ? 127 : r->count[k]) << (8 * k);
  c |= (uint64_t)(r->minchain > 127 ? 127 : r->minchain) << 40;
  c |= (uint64_t)(r->nnodes > 127 ? 127 : r->nnodes) << 48;
  r->counts = c;
  /* Matching order: fragment by fragment, from its rarest-looking node, in
  ** breadth-first order so that every later node has a placed neighbour. */
  bool placed[DAB_RULE_MAX_NODES] = {0};
  int k = 0;
  while (k < r->nnodes) {
    int root = -1;
    for (int v = 0; v < r->nnodes; v++) {
      if (placed[v]) continue;
      if (root < 0 || sym_rank(r->node[v].sym) < sym_rank(r->node[root].sym) ||
          (sym_rank(r->node[v].sym) == sym_rank(r->node[root].sym) && r->node[v].deg > r->node[root].deg))
        root = v;
    }
    int head = k;
    placed[root] = true;
    r->order[k] = (uint8_t)root;
    r->parent[k++] = -1;
    while (head < k) {
      int u = r->order[head++];
      for (int j = 0; j < r->node[u].deg; j++) {
        int v = r->node[u].nb[j];
        if (placed[v]) continue;
        placed[v] = true;
        r->order[k] = (uint8_t)v;
        r->parent[k++] = (int8_t)u;
      }
    }
  }
}
