/*
** rule.h: rule graphs on the Strings-and-Coins state graph (seed papers 000 and 003).
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_RULE_H
#define DAB_RULE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "game/board.h"
#include "game/rng.h"

/*
** THE STATE GRAPH of a position (dab_sgraph_build):
**
**   q t x   one node per untaken box of degree 4, 3, 1 (its undrawn lines)
**   l       one node per maximal run of degree-2 boxes (a chain), with
**           its length; a chain has two ends, end 0 and end 1
**   n       one node per undrawn line on the board's edge (the ground):
**           its one link goes to the box (or chain) on that line
**
** Links are the undrawn lines between nodes; a chain's links are its two
** end lines, so a chain whose two ends meet the same junction has two
** parallel links to it.  A closed loop of degree-2 boxes (no junction) is
** an l node linked to itself; no valid rule names it.
**
** For example the empty 1x1 board is "q0nnnn", and the empty 1x2 board
** "t0t1nnn : t1t0nnn".
**
** THE RULE LANGUAGE (text; docs/agents.md has the grammar):
**
**   rule   := entry { ":" entry } "=>" end "-" end
**   entry  := token { token }              a node, then its neighbours
**   token  := sym [number] [ "(" len ["+"] ")" ]      the "(...)" on l only
**   end    := token [ "[" pos "]" ]                    the "[...]" on l only
**   sym    := q | t | l | x | n | w        (w: wildcard, any node)
**
** Numbered tokens name one node wherever they appear; every unnumbered
** token is a node of its own (a leaf of the entry it is in).  A node's
** links to another are as many as the larger of the two entries lists
** them (so "t1l0l0 : l0t1t1" is two parallel links).  An unnumbered
** action end is the first unnumbered node of that symbol linked to the
** other end.  "l(3)" is a chain of exactly 3 boxes, "l(3+)" of 3 or more,
** "l" of any length.  The action "A - B" draws the line between A and
** B; on a chain end "l0[k] - B" draws the k-th line of chain l0 counted
** from B's end (k = 0: the line joining B; default 0).
**
** Whitespace between tokens is free; printing writes single spaces where
** the text had any, so texts written that way round-trip exactly.
*/

enum dab_rule_sym {
  DAB_RS_Q = 0, DAB_RS_T = 1, DAB_RS_L = 2, DAB_RS_X = 3, DAB_RS_N = 4, DAB_RS_W = 5,
  DAB_RS_COUNT = 6
};

#define DAB_RULE_MAX_NODES 40    /* a 4x4 board's state graph fits (16 boxes + 16 ground) */
#define DAB_RULE_MAX_TOKENS 200  /* printed tokens: heads + listed neighbours */
#define DAB_RULE_MAX_DEG 4       /* links per node (a w too: it must match a box) */
#define DAB_RULE_ANON 0xFFFFu    /* dab_rule_node.id of an unnumbered node */
#define DAB_RULE_MAX_ID 9999
#define DAB_RULE_TEXT 2048       /* longest rule text, NUL included */

/* The degree a symbol fixes: q 4, t 3, l 2, x 1, n 1; w -1 (any). */
int dab_rule_sym_degree(int sym);
/* The symbol's letter ('q' ... 'w'). */
char dab_rule_sym_char(int sym);

typedef struct dab_rule_node {
  uint8_t sym;                    /* enum dab_rule_sym */
  uint8_t deg;                    /* links, parallel ones counted */
  uint8_t len;                    /* chain length bound; 0 = not given (any) */
  uint8_t plus;                   /* 1: len or longer */
  uint16_t id;                    /* printed number, or DAB_RULE_ANON */
  uint8_t nb[DAB_RULE_MAX_DEG];   /* neighbours; a node twice = two links */
} dab_rule_node;

/* One printed token: an entry's head or one of its neighbours. */
enum { DAB_TOK_HEAD = 1, DAB_TOK_PROP = 2, DAB_TOK_SPACE = 4 };
typedef struct dab_rule_tok {
  uint8_t node;
  uint8_t flags;                  /* DAB_TOK_*: starts an entry, prints "(len)",
                                     a space before it */
} dab_rule_tok;

typedef struct dab_rule {
  uint8_t nnodes;
  uint8_t act_a, act_b;           /* the action's two nodes (linked) */
  int8_t act_pos;                 /* -1: none printed (0 meant) */
  uint8_t act_pos_b;              /* 1: the position is on act_b, else act_a */
  uint8_t act_prop;               /* bit 0: print a's "(len)", bit 1: b's */
  uint16_t ntok;
  dab_rule_node node[DAB_RULE_MAX_NODES];
  dab_rule_tok tok[DAB_RULE_MAX_TOKENS];
  /* Derived by dab_rule_finish (the matcher's plan and prefilter): */
  uint8_t count[DAB_RS_COUNT];    /* nodes per symbol */
  uint8_t minchain;               /* longest chain bound asked for */
  uint64_t sig;                   /* descriptor bits the state must hold */
  uint64_t counts;                /* packed: per byte q t l x n, minchain, nodes (<= 127) */
  uint8_t order[DAB_RULE_MAX_NODES];   /* matching order */
  int8_t parent[DAB_RULE_MAX_NODES];   /* placed neighbour of order[i], -1 = none */
} dab_rule;

/* ---- Text ---------------------------------------------------------------- */

/*
** Parses one rule (action required) or, with graph_only, one graph with
** no "=> action" (a state graph text such as "x0t2 : t2x0x3x4 : x3t2 :
** x4t2").  The rule is finished (dab_rule_finish) but not checked for
** validity (dab_rule_check).
** RETURN: DAB_OK and *r; DAB_EINPUT with a one-line message "column C:
** ..." (1-based) for a malformed text, an unknown or inconsistent node,
** a self-link, more than 4 links on a node or more than
** DAB_RULE_MAX_NODES nodes.
*/
dab_status dab_rule_parse(const char *text, bool graph_only, dab_rule *r, dab_err *err);

/*
** Prints r into buf (cap bytes) as the text it was parsed from (or, for
** rules built by code, its canonical form).  Prints no action when r has
** none (act_a == act_b).  RETURN: the length, or -1 when it did not fit.
*/
int dab_rule_print(const dab_rule *r, char *buf, size_t cap);

/*
** Recomputes the printed layout after r's graph changed: every node is
** numbered 0, 1, ... and listed with its neighbours, except n and w
** leaves of other nodes (not action ends), which print unnumbered; chain bounds print on
** every token; compact (no spaces).  Then finishes r.
*/
void dab_rule_relayout(dab_rule *r);

/* Recomputes the derived fields (counts, prefilter, matching order).
** Call after any change to r's graph. */
void dab_rule_finish(dab_rule *r);

/*
** Validity, as the papers define it: every node has exactly the links its
** symbol fixes (w: any number), no node is linked to itself, the action
** joins two distinct linked nodes, a position is on a chain end only and
** is at most the chain's bound (1 when no bound), and every parallel link
** has a chain at one end (two boxes share at most one line).
** RETURN: true when valid; else false and, when why is not NULL, a short
** reason in why (cap bytes).
*/
bool dab_rule_check(const dab_rule *r, char *why, size_t cap);

/* The prefilter bits one node contributes (rules and state graphs share
** them): a bit per (symbol, neighbour symbol) pair that has no w, and,
** when full and no neighbour is w and deg is the symbol's degree, a bit
** for the node's whole neighbourhood.  nsym: the neighbours' symbols. */
uint64_t dab_rule_node_sig(int sym, const int *nsym, int deg, bool full);

/* ---- The state graph ---------------------------------------------------- */

#define DAB_SG_MAX (DAB_MAX_BOXES + 4 * DAB_MAX_SIDE)

typedef struct dab_sgraph {
  int nnodes;
  uint8_t sym[DAB_SG_MAX];                /* q t l x n (never w) */
  uint8_t deg[DAB_SG_MAX];
  int16_t len[DAB_SG_MAX];                /* chain length; 1 for others */
  int16_t nb[DAB_SG_MAX][4];              /* neighbours (a chain: end 0, end 1) */
  int16_t line[DAB_SG_MAX][4];            /* the line of each link, -1 if unknown */
  int32_t chain_at[DAB_SG_MAX];           /* a chain's lines from end 0: chain_lines[chain_at ..] */
  int16_t chain_lines[DAB_SG_MAX + DAB_MAX_LINES];
  int16_t klass[DAB_RS_COUNT][DAB_SG_MAX];/* nodes of each symbol */
  int16_t nklass[DAB_RS_COUNT];
  int16_t maxchain;                       /* longest chain (0: none) */
  uint64_t sig;                           /* every descriptor bit present */
  uint64_t counts;                        /* packed as dab_rule.counts (saturating at 127) */
  bool has_lines;                         /* built from a position (lines known) */
} dab_sgraph;

/* Builds the state graph of line set s on board g.  Never fails. */
void dab_sgraph_build(const dab_geom *g, const dab_lineset *s, dab_sgraph *sg);

/*
** Builds a state graph from a parsed graph text (every node concrete: no
** w, links as the text lists them; a chain with no bound has length 1);
** its lines are unknown (-1).  RETURN: DAB_OK, or DAB_EINPUT when r holds
** a w or a node with other than its symbol's degree.
*/
dab_status dab_sgraph_from_rule(const dab_rule *r, dab_sgraph *sg, dab_err *err);

/* ---- Matching ----------------------------------------------------------- */

/*
** The prefilter alone: a rule can match sg only if sg has at least as
** many nodes of each symbol, a chain as long as its longest bound, as many
** nodes, and every descriptor bit of the rule.  Teams keep each rule's
** key in an array of their own, so that scanning a population touches 16
** bytes a rule.
*/
typedef struct dab_rule_key {
  uint64_t counts, sig;
} dab_rule_key;

static inline dab_rule_key dab_rule_key_of(const dab_rule *r) {
  dab_rule_key k = {r->counts, r->sig};
  return k;
}

static inline bool dab_rule_key_fits(dab_rule_key k, const dab_sgraph *sg) {
  const uint64_t H = 0x8080808080808080ull;
  return !(k.sig & ~sg->sig) && (((sg->counts | H) - k.counts) & H) == H;
}

/*
** A substitution maps every rule node to a distinct state node such that
** symbols agree (w: any; a chain's bound holds), and every rule link is a
** state link (parallel links need as many).  The search is backtracking
** in the rule's order, each node's candidates being the state neighbours
** of an already placed rule neighbour, or the state nodes of its symbol.
** When `cap` candidate placements have been tried without an answer, it
** stops and tries `samples` random descents instead (the papers'
** sampling); a rule that none of them matches counts as not matching.
*/
typedef struct dab_rmatch_opts {
  long cap;          /* placements tried before sampling; 0 = DAB_RMATCH_CAP */
  int samples;       /* random descents then; 0 = DAB_RMATCH_SAMPLES */
} dab_rmatch_opts;

#define DAB_RMATCH_CAP 10000
#define DAB_RMATCH_SAMPLES 100

typedef struct dab_rmatch_stats {
  uint64_t tests;        /* rules tested */
  uint64_t prefiltered;  /* ... rejected by counts and descriptors alone */
  uint64_t searches;     /* ... searched */
  uint64_t placements;   /* candidate placements tried, sampling included */
  uint64_t capped;       /* searches that hit the cap and sampled */
  uint64_t capped_found; /* ... of which sampling found a match */
  uint64_t matches;      /* rules that matched */
} dab_rmatch_stats;

/*
** Tests rule r against state graph sg.  On a match, map[i] (when map is
** not NULL; DAB_RULE_MAX_NODES entries) is the state node of rule node i,
** and *line (when not NULL) the line the action draws (-1 when sg's lines
** are unknown or r has no action).  rng is used only when sampling.
** opts and stats may be NULL.  RETURN: true on a match.
*/
bool dab_rule_match(const dab_rule *r, const dab_sgraph *sg, const dab_rmatch_opts *opts,
                    dab_rng *rng, dab_rmatch_stats *stats, int16_t *map, int *line);

/* True when map is a substitution of r into sg (the definition above; for
** tests and asserts). */
bool dab_rule_map_ok(const dab_rule *r, const dab_sgraph *sg, const int16_t *map);

/* The line r's action draws under substitution map, or -1 when sg's
** lines are unknown. */
int dab_rule_action_line(const dab_rule *r, const dab_sgraph *sg, const int16_t *map);

/* ---- Making and mutating rules ------------------------------------------ */

/*
** The mutations, equally likely (docs/agents.md describes each): add a
** node, remove a node, add a link, remove a link, change a chain's
** length, toggle a chain's "or longer" flag, join two fragments, split a
** node's links into two fragments, replace a symbol by w.
*/
enum {
  DAB_MUT_ADD_NODE = 0, DAB_MUT_DEL_NODE, DAB_MUT_ADD_LINK, DAB_MUT_DEL_LINK, DAB_MUT_CHAIN_LEN,
  DAB_MUT_CHAIN_PLUS, DAB_MUT_JOIN, DAB_MUT_SPLIT, DAB_MUT_WILD, DAB_MUT_COUNT
};

/* Names of the mutations, for reports. */
extern const char *const dab_mut_name[DAB_MUT_COUNT];

/*
** Applies mutation kind to r.  RETURN: true when r changed and is valid;
** false when the mutation could not apply or made r invalid (then r is
** left exactly as it was: the mutation is revoked).
*/
bool dab_rule_mutate_one(dab_rule *r, int kind, dab_rng *rng);

/*
** The papers' mutation: one mutation of a random kind, then another with
** probability p_repeat (0.5), and so on (at most 32); invalid ones are
** revoked.  RETURN: the mutations that were kept (0: r unchanged).
*/
int dab_rule_mutate(dab_rule *r, double p_repeat, dab_rng *rng);

/*
** A new rule: state graph sg (closed loops left out) with the action on
** the state link of line `line` (-1: a random legal line that the graph
** can name).  RETURN: DAB_OK and a valid *r; DAB_EBOARD when sg has more
** than DAB_RULE_MAX_NODES nodes (loops left out) or no nameable line,
** or its lines are unknown; DAB_EINPUT when `line` is not a link of sg.
*/
dab_status dab_rule_from_state(const dab_sgraph *sg, int line, dab_rng *rng, dab_rule *r,
                               dab_err *err);

/* A random small valid rule: 1 to 3 concrete nodes on w leaves, joined
** at random, the action a random link.  Never fails. */
void dab_rule_random(dab_rule *r, dab_rng *rng);

#endif
