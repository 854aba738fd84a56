/*
** proof.c: divisible proofs: the AND/OR split tree and its records (their
** files and the search of a claim: proof/records.c).
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "game/hashmix.h"
#include "game/postext.h"
#include "solver/proof.h"

/* ---- Small open-addressing maps ---------------------------------------- */

/* Per position: the interval the records give. */
typedef struct bound_slot {
  uint64_t pos;
  int8_t lo, hi;
  bool used;
} bound_slot;

/* Per tree node (normalised claim + depth): its state, memoised. */
typedef struct memo_slot {
  uint64_t pos;
  int8_t dir, bound, depth;
  int8_t limit;        /* the leaf depth of this part of the tree (below) */
  int8_t climit;       /* ... for its children: limit, or depth + 2 when split */
  uint8_t state;       /* dab_proof_state */
  uint8_t how;         /* 1 = by a record, 2 = by its children */
  uint8_t active;      /* OR node: index of the deciding / active child */
  bool collected;
  bool seen;           /* dab_proof_open_at's walk */
  bool used;
} memo_slot;

typedef struct gave_up_note {
  dab_proof_claim claim;
  double seconds;
  int threads;                /* of the search given up (1 when not noted) */
  uint64_t first, last;       /* moves of POS whose children to try first / last */
} gave_up_note;

struct dab_proof {
  dab_proof_spec spec;
  dab_geom g;
  dab_sym *sym;
  dab_proof_rec *recs;
  size_t nrecs, caprecs;
  bound_slot *bounds;
  size_t nbounds, capbounds;  /* capbounds: power of two */
  memo_slot *memo;
  size_t nmemo, capmemo;
  char **sources;
  int nsources;
  gave_up_note *gave_up;      /* "# open direct" notes: whole-subtree searches given up */
  size_t ngave_up, capgave_up;
  gave_up_note *split;        /* "# open" notes: leaf searches given up, split further */
  size_t nsplit, capsplit;
  /* eval scratch */
  dab_proof_summary *sum;
  dab_proof_claim *open;
  size_t max_open, nopen;
  uint64_t group;             /* the subtree being walked (dab_proof_claim.group) */
  char until[24];             /* dab_proof_set_until ("" = no limit) */
  bool oom;
};

/* The depth whose nodes name the subtrees (dab_proof_claim.group). */
static int group_depth(const dab_proof *pf) { return pf->spec.depth - 2 >= 1 ? pf->spec.depth - 2 : 1; }

static int open_boxes(const dab_geom *g, uint64_t p) { return dab_ab_open_boxes(g, p); }

uint64_t dab_proof_canon(const dab_proof *pf, uint64_t p) { return dab_sym_canon64(pf->sym, p, true, NULL); }
const dab_geom *dab_proof_geom(const dab_proof *pf) { return &pf->g; }
const dab_proof_spec *dab_proof_get_spec(const dab_proof *pf) { return &pf->spec; }

dab_proof *dab_proof_new(const dab_proof_spec *spec, dab_status *st, dab_err *err) {
  dab_status dummy;
  if (!st) st = &dummy;
  dab_proof *pf = calloc(1, sizeof *pf);
  if (!pf) {
    *st = dab_fail(err, DAB_ENOMEM, "out of memory");
    return NULL;
  }
  pf->spec = *spec;
  *st = dab_geom_init(&pf->g, spec->rows, spec->cols, err);
  if (*st) goto fail;
  if (!dab_geom_fast(&pf->g)) {
    *st = dab_fail(err, DAB_EBOARD, "proofs need a board of at most 64 lines (%dx%d has %d)", spec->rows,
                   spec->cols, pf->g.nlines);
    goto fail;
  }
  if (!spec->has_ge && !spec->has_le) {
    *st = dab_fail(err, DAB_EINPUT, "a proof needs a claim (value >= b, <= b or = v)");
    goto fail;
  }
  if (spec->depth < 0 || spec->depth > DAB_PROOF_MAX_DEPTH) {
    *st = dab_fail(err, DAB_EINPUT, "split depth %d outside 0..%d", spec->depth, DAB_PROOF_MAX_DEPTH);
    goto fail;
  }
  if (spec->root & ~pf->g.all_lines) {
    *st = dab_fail(err, DAB_EINPUT, "the root has lines outside the %dx%d board", spec->rows, spec->cols);
    goto fail;
  }
  pf->sym = dab_sym_new(&pf->g, err);
  if (!pf->sym) {
    *st = DAB_ENOMEM;
    goto fail;
  }
  *st = DAB_OK;
  return pf;
fail:
  dab_proof_free(pf);
  return NULL;
}

void dab_proof_free(dab_proof *pf) {
  if (!pf) return;
  dab_sym_free(pf->sym);
  free(pf->recs);
  free(pf->bounds);
  free(pf->memo);
  for (int i = 0; i < pf->nsources; i++) free(pf->sources[i]);
  free(pf->sources);
  free(pf->gave_up);
  free(pf->split);
  free(pf);
}

void dab_proof_clear(dab_proof *pf) {
  /* The hash tables keep their memory; their slots are zeroed (empty). */
  pf->nrecs = 0;
  if (pf->bounds) memset(pf->bounds, 0, pf->capbounds * sizeof *pf->bounds);
  pf->nbounds = 0;
  if (pf->memo) memset(pf->memo, 0, pf->capmemo * sizeof *pf->memo);
  pf->nmemo = 0;
  for (int i = 0; i < pf->nsources; i++) free(pf->sources[i]);
  free(pf->sources);
  pf->sources = NULL;
  pf->nsources = 0;
  pf->ngave_up = pf->nsplit = 0;
  pf->oom = false;
}

const char *dab_proof_source_name(const dab_proof *pf, int i) {
  return i >= 0 && i < pf->nsources ? pf->sources[i] : NULL;
}

int dab_proof_add_source(dab_proof *pf, char *name) {
  char **ns = realloc(pf->sources, (size_t)(pf->nsources + 1) * sizeof *ns);
  if (!ns) return -1;
  pf->sources = ns;
  pf->sources[pf->nsources] = name;
  return pf->nsources++;
}

/* ---- Bounds ------------------------------------------------------------ */

/* Rounds a bound to the value's parity: up for a lower bound, down for an
** upper one (value == n mod 2). */
static int parity_up(int b, int n) { return ((b - n) % 2) ? b + 1 : b; }
static int parity_down(int b, int n) { return ((b - n) % 2) ? b - 1 : b; }

/* The bound a record implies: *lower true for value >= *v, else <= *v. */
static void rec_implies(const dab_geom *g, const dab_proof_rec *r, bool *lower, int *v) {
  int n = open_boxes(g, r->pos);
  if (r->has_fs) {
    *lower = r->fs_lower;
    *v = r->fs_lower ? parity_up(r->fs_value, n) : parity_down(r->fs_value, n);
    return;
  }
  if (r->dir == DAB_PROOF_GE) {
    *lower = r->proved;
    *v = r->proved ? parity_up(r->bound, n) : parity_down(r->bound - 1, n);
  } else {
    *lower = !r->proved;
    *v = r->proved ? parity_down(r->bound, n) : parity_up(r->bound + 1, n);
  }
}

void dab_proof_rec_bound(const dab_proof *pf, const dab_proof_rec *r, bool *lower, int *v) {
  rec_implies(&pf->g, r, lower, v);
}

static bound_slot *bound_find(const dab_proof *pf, uint64_t pos) {
  if (!pf->capbounds) return NULL;
  size_t mask = pf->capbounds - 1;
  for (size_t i = dab_mix64(pos) & mask;; i = (i + 1) & mask) {
    bound_slot *s = &pf->bounds[i];
    if (!s->used) return NULL;
    if (s->pos == pos) return s;
  }
}

static bool bound_grow(dab_proof *pf) {
  size_t cap = pf->capbounds ? 2 * pf->capbounds : 1024;
  bound_slot *nb = calloc(cap, sizeof *nb);
  if (!nb) return false;
  for (size_t j = 0; j < pf->capbounds; j++) {
    bound_slot *s = &pf->bounds[j];
    if (!s->used) continue;
    size_t i = dab_mix64(s->pos) & (cap - 1);
    while (nb[i].used) i = (i + 1) & (cap - 1);
    nb[i] = *s;
  }
  free(pf->bounds);
  pf->bounds = nb;
  pf->capbounds = cap;
  return true;
}

bool dab_proof_bounds(const dab_proof *pf, uint64_t p, int *lo, int *hi) {
  uint64_t k = dab_proof_canon(pf, p);
  int n = open_boxes(&pf->g, k);
  const bound_slot *s = bound_find(pf, k);
  *lo = s ? s->lo : -n;
  *hi = s ? s->hi : n;
  return s != NULL;
}

dab_status dab_proof_add(dab_proof *pf, const dab_proof_rec *r0, dab_err *err) {
  dab_proof_rec r = *r0;
  r.pos = dab_proof_canon(pf, r.pos);
  bool lower;
  int v;
  rec_implies(&pf->g, &r, &lower, &v);
  int n = open_boxes(&pf->g, r.pos);
  bound_slot *s = bound_find(pf, r.pos);
  int lo = s ? s->lo : -n, hi = s ? s->hi : n;
  if (lower && v > lo) lo = v;
  if (!lower && v < hi) hi = v;
  if (lo > hi) {
    char c[16];
    return dab_fail(err, DAB_ECORRUPT, "record %s %s contradicts earlier records of its position (value in [%+d,%+d])",
                    dab_proof_claim_text(r.dir, r.bound, c), r.proved ? "proved" : "refuted", s ? s->lo : -n,
                    s ? s->hi : n);
  }
  if (pf->nrecs == pf->caprecs) {
    size_t cap = pf->caprecs ? 2 * pf->caprecs : 256;
    dab_proof_rec *nr = realloc(pf->recs, cap * sizeof *nr);
    if (!nr) return dab_fail(err, DAB_ENOMEM, "out of memory");
    pf->recs = nr;
    pf->caprecs = cap;
  }
  if (!s) {
    if (2 * (pf->nbounds + 1) > pf->capbounds && !bound_grow(pf)) return dab_fail(err, DAB_ENOMEM, "out of memory");
    size_t mask = pf->capbounds - 1, i = dab_mix64(r.pos) & mask;
    while (pf->bounds[i].used) i = (i + 1) & mask;
    s = &pf->bounds[i];
    s->used = true;
    s->pos = r.pos;
    pf->nbounds++;
  }
  s->lo = (int8_t)lo;
  s->hi = (int8_t)hi;
  pf->recs[pf->nrecs++] = r;
  return DAB_OK;
}

const dab_proof_rec *dab_proof_records(const dab_proof *pf, size_t *n) {
  *n = pf->nrecs;
  return pf->recs;
}

/* ---- The tree ---------------------------------------------------------- */

/* Moves of a node in the tree's fixed order, deduplicated by the child's
** canonical key: up to 64 (child key, boxes completed). */
typedef struct child_list {
  int n;
  uint64_t key[64];
  int8_t k[64];
} child_list;

/*
** The children of pos in the fixed order (docs/proofs.md), one per
** canonical key.  hint (a note, may be NULL: order_note) moves the
** children of its `first` moves to the front and those of its `last` moves
** to the back, the fixed order kept inside each part.
*/
static void make_children(const dab_proof *pf, uint64_t pos, const gave_up_note *hint, child_list *cl) {
  const dab_geom *g = &pf->g;
  int order[64], nm = 0;
  int64_t sortkey[64];
  for (int m = 0; m < g->nlines; m++) {
    if (pos >> m & 1) continue;
    int k = dab64_completes(g, pos, m);
    int group;
    if (k) group = 0;
    else {
      group = 1;
      for (int j = 0; j < 2; j++) {
        int b = g->line_box[m][j];
        if (b >= 0 && dab64_sides(g, pos, b) == 2) group = 2;
      }
    }
    /* Centre-out: doubled coordinates of the line's midpoint against the
    ** doubled centre (C, R). */
    int x2, y2;
    if (m < g->nhoriz) {
      x2 = 2 * (m % g->cols) + 1, y2 = 2 * (m / g->cols);
    } else {
      int v = m - g->nhoriz;
      x2 = 2 * (v % (g->cols + 1)), y2 = 2 * (v / (g->cols + 1)) + 1;
    }
    int dx = x2 - g->cols, dy = y2 - g->rows, d = dx * dx + dy * dy;
    int part = hint && (hint->first >> m & 1) ? 0 : hint && (hint->last >> m & 1) ? 2 : 1;
    sortkey[nm] = ((int64_t)part << 48) | ((int64_t)group << 40) | ((int64_t)(2 - k) << 32) | ((int64_t)d << 8) | m;
    order[nm++] = m;
  }
  /* insertion sort: at most 64 */
  for (int i = 1; i < nm; i++) {
    int64_t sk = sortkey[i];
    int mv = order[i], j = i - 1;
    while (j >= 0 && sortkey[j] > sk) {
      sortkey[j + 1] = sortkey[j];
      order[j + 1] = order[j];
      j--;
    }
    sortkey[j + 1] = sk;
    order[j + 1] = mv;
  }
  cl->n = 0;
  for (int i = 0; i < nm; i++) {
    int m = order[i];
    uint64_t key = dab_proof_canon(pf, pos | 1ull << m);
    bool dup = false;
    for (int j = 0; j < cl->n && !dup; j++) dup = cl->key[j] == key;
    if (dup) continue;
    cl->key[cl->n] = key;
    cl->k[cl->n] = (int8_t)dab64_completes(g, pos, m);
    cl->n++;
  }
}

/* The claim a child must meet for its parent's claim (dir, bound). */
static void child_claim(int dir, int bound, int k, int *cdir, int *cbound) {
  if (k) {
    *cdir = dir;
    *cbound = bound - k;
  } else {
    *cdir = dir == DAB_PROOF_GE ? DAB_PROOF_LE : DAB_PROOF_GE;
    *cbound = -bound;
  }
}

/* Normalises (dir, *bound) to the parity of p; returns the state the box
** count alone decides (OPEN when it does not). */
static int trivial_state(const dab_geom *g, uint64_t pos, int dir, int *bound) {
  int n = open_boxes(g, pos);
  if (dir == DAB_PROOF_GE) {
    *bound = parity_up(*bound, n);
    if (*bound <= -n) return DAB_PROOF_PROVED;
    if (*bound > n) return DAB_PROOF_REFUTED;
  } else {
    *bound = parity_down(*bound, n);
    if (*bound >= n) return DAB_PROOF_PROVED;
    if (*bound < -n) return DAB_PROOF_REFUTED;
  }
  return DAB_PROOF_OPEN;
}

static uint64_t memo_hash(uint64_t pos, int dir, int bound, int depth, int limit) {
  return dab_mix64(pos ^ ((uint64_t)(dir * 131 + (bound + 100) * 7 + depth * 100003) << 50) ^ (uint64_t)(bound + 100) * 0x9e37ull ^
               (uint64_t)depth ^ (uint64_t)limit << 8);
}

static memo_slot *memo_get(dab_proof *pf, uint64_t pos, int dir, int bound, int depth, int limit, bool *fresh) {
  if (2 * (pf->nmemo + 1) > pf->capmemo) {
    size_t cap = pf->capmemo ? 2 * pf->capmemo : 4096;
    memo_slot *nm = calloc(cap, sizeof *nm);
    if (!nm) {
      pf->oom = true;
      return NULL;
    }
    for (size_t j = 0; j < pf->capmemo; j++) {
      memo_slot *s = &pf->memo[j];
      if (!s->used) continue;
      size_t i = memo_hash(s->pos, s->dir, s->bound, s->depth, s->limit) & (cap - 1);
      while (nm[i].used) i = (i + 1) & (cap - 1);
      nm[i] = *s;
    }
    free(pf->memo);
    pf->memo = nm;
    pf->capmemo = cap;
  }
  size_t mask = pf->capmemo - 1;
  for (size_t i = memo_hash(pos, dir, bound, depth, limit) & mask;; i = (i + 1) & mask) {
    memo_slot *s = &pf->memo[i];
    if (!s->used) {
      memset(s, 0, sizeof *s);
      s->used = true;
      s->pos = pos;
      s->dir = (int8_t)dir;
      s->bound = (int8_t)bound;
      s->depth = (int8_t)depth;
      s->limit = (int8_t)limit;
      s->climit = (int8_t)limit;
      pf->nmemo++;
      *fresh = true;
      return s;
    }
    if (s->pos == pos && s->dir == dir && s->bound == bound && s->depth == depth && s->limit == limit) {
      *fresh = false;
      return s;
    }
  }
}

/* Whether the claim has a "# open" note: a search of it as a leaf was
** given up, so it is split further (node_state). */
static const gave_up_note *split_note(const dab_proof *pf, uint64_t pos, int dir, int bound) {
  for (size_t i = 0; i < pf->nsplit; i++) {
    const dab_proof_claim *c = &pf->split[i].claim;
    if (c->pos == pos && c->dir == dir && c->bound == bound) return &pf->split[i];
  }
  return NULL;
}

/* The note whose first=/last= hint orders the node's children: its split
** note, else the longest "# open direct" note of it that carries a hint
** (NULL when none does). */
static const gave_up_note *order_note(const dab_proof *pf, const gave_up_note *split, uint64_t pos, int dir,
                                      int bound) {
  if (split) return split;
  const gave_up_note *best = NULL;
  for (size_t i = 0; i < pf->ngave_up; i++) {
    const gave_up_note *n = &pf->gave_up[i];
    if (n->claim.pos != pos || n->claim.dir != dir || n->claim.bound != bound || !(n->first | n->last)) continue;
    if (!best || n->seconds > best->seconds) best = n;
  }
  return best;
}

/*
** State of the node (pos canonical, claim already normalised and not
** trivial), memoised.  limit is the leaf depth of this part of the tree:
** the spec's depth, or deeper below a split leaf.
**
**   leaves:  depth >= limit, and OR (GE) nodes at depth limit - 1
**   split:   an open leaf with a "# open" note (its search was given up)
**            is expanded, with limit = its depth + 2 for its subtree:
**            GE b -> (OR) LE children -> (AND) GE grandchildren, leaves
**            LE b -> (AND) GE children, leaves
*/
static int node_state(dab_proof *pf, uint64_t pos, int dir, int bound, int depth, int limit) {
  bool fresh;
  memo_slot *m = memo_get(pf, pos, dir, bound, depth, limit, &fresh);
  if (!m) return DAB_PROOF_OPEN;
  if (!fresh) return m->state;
  pf->sum->tree_nodes++;
  const bound_slot *b = bound_find(pf, pos);
  int state = DAB_PROOF_OPEN, how = 0, active = 0;
  if (b) {
    if (dir == DAB_PROOF_GE) state = b->lo >= bound ? DAB_PROOF_PROVED : b->hi < bound ? DAB_PROOF_REFUTED : 0;
    else state = b->hi <= bound ? DAB_PROOF_PROVED : b->lo > bound ? DAB_PROOF_REFUTED : 0;
    if (state) how = 1;
  }
  /* An OR node one ply above the split depth is a leaf itself: the search
  ** picks its own move there, better than the fixed order, and there is no
  ** fallback to pay for. */
  bool leaf = depth >= limit || (dir == DAB_PROOF_GE && depth == limit - 1);
  int climit = limit;
  const gave_up_note *note = state ? NULL : split_note(pf, pos, dir, bound);
  if (note && leaf && depth < DAB_MAX_LINES) leaf = false, climit = depth + 2;
  if (!state && !leaf) {
    child_list cl;
    make_children(pf, pos, order_note(pf, note, pos, dir, bound), &cl);
    how = 2;
    if (dir == DAB_PROOF_GE) { /* OR */
      state = DAB_PROOF_REFUTED;
      for (int i = 0; i < cl.n; i++) {
        int cd, cb;
        child_claim(dir, bound, cl.k[i], &cd, &cb);
        int s = trivial_state(&pf->g, cl.key[i], cd, &cb);
        if (!s) s = node_state(pf, cl.key[i], cd, cb, depth + 1, climit);
        if (s == DAB_PROOF_REFUTED) continue;
        state = s;
        active = i;
        break;
      }
    } else { /* AND */
      state = DAB_PROOF_PROVED;
      for (int i = 0; i < cl.n; i++) {
        int cd, cb;
        child_claim(dir, bound, cl.k[i], &cd, &cb);
        int s = trivial_state(&pf->g, cl.key[i], cd, &cb);
        if (!s) s = node_state(pf, cl.key[i], cd, cb, depth + 1, climit);
        if (s == DAB_PROOF_REFUTED) {
          state = s;
          active = i;
          break;
        }
        if (s == DAB_PROOF_OPEN) state = DAB_PROOF_OPEN;
      }
    }
  }
  /* the table may have moved while the children were evaluated */
  m = memo_get(pf, pos, dir, bound, depth, limit, &fresh);
  if (!m) return DAB_PROOF_OPEN;
  m->climit = (int8_t)climit;
  m->state = (uint8_t)state;
  m->how = (uint8_t)how;
  m->active = (uint8_t)active;
  return state;
}

/* Lists claim (pos, dir, bound) at depth as open, while there is room. */
static void add_open(dab_proof *pf, uint64_t pos, int dir, int bound, int depth) {
  if (pf->open && pf->nopen < pf->max_open) {
    dab_proof_claim *c = &pf->open[pf->nopen++];
    c->pos = pos, c->dir = dir, c->bound = bound, c->depth = depth;
    c->group = depth > group_depth(pf) ? pf->group : pos;
  }
}

typedef void (*walk_fn)(dab_proof *pf, uint64_t pos, int dir, int bound, int depth, int limit, int target);

/* Calls visit on every non-trivial child of the active tree below a node
** (an OR node's active candidate only, every child of an AND node);
** climit is the children's leaf depth (memo_slot.climit). */
static void walk_children(dab_proof *pf, uint64_t pos, int dir, int bound, int active, int depth, int climit,
                          int target, walk_fn visit) {
  child_list cl;
  make_children(pf, pos, order_note(pf, split_note(pf, pos, dir, bound), pos, dir, bound), &cl);
  for (int i = 0; i < cl.n; i++) {
    if (dir == DAB_PROOF_GE && i != active) continue;
    int cd, cb;
    child_claim(dir, bound, cl.k[i], &cd, &cb);
    if (trivial_state(&pf->g, cl.key[i], cd, &cb)) continue;
    visit(pf, cl.key[i], cd, cb, depth + 1, climit, target);
  }
}

/* Walks the active tree of a node whose state is known: lists open leaves,
** counts the records a proved part uses (each node once; target unused). */
static void collect(dab_proof *pf, uint64_t pos, int dir, int bound, int depth, int limit, int target) {
  bool fresh;
  memo_slot *m = memo_get(pf, pos, dir, bound, depth, limit, &fresh);
  if (!m || fresh || m->collected) return;
  m->collected = true;
  if (depth == group_depth(pf)) pf->group = pos; /* depth-first: its leaves come next */
  int state = m->state, how = m->how, active = m->active, climit = m->climit;
  if (how == 1) {
    if (state == DAB_PROOF_PROVED) pf->sum->used_proved++;
    return;
  }
  if (how == 0) { /* an open leaf */
    if (state != DAB_PROOF_OPEN) return;
    add_open(pf, pos, dir, bound, depth);
    pf->sum->leaves_open++;
    return;
  }
  if (state == DAB_PROOF_REFUTED) return;
  walk_children(pf, pos, dir, bound, active, depth, climit, target, collect);
}

/* Walks the active open tree down to `target` depth, listing the open
** inner nodes found there (each once). */
static void collect_at(dab_proof *pf, uint64_t pos, int dir, int bound, int depth, int limit, int target) {
  bool fresh;
  memo_slot *m = memo_get(pf, pos, dir, bound, depth, limit, &fresh);
  if (!m || fresh || m->seen) return;
  m->seen = true;
  if (m->state != DAB_PROOF_OPEN || m->how != 2) return;
  if (depth == target) {
    add_open(pf, pos, dir, bound, depth);
    return;
  }
  walk_children(pf, pos, dir, bound, m->active, depth, m->climit, target, collect_at);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* CPU seconds (seconds x threads) of the given-up searches n[0..k). */
static double notes_cpu(const gave_up_note *n, size_t k) {
  double cpu = 0;
  for (size_t i = 0; i < k; i++) cpu += n[i].seconds * n[i].threads;
  return cpu;
}

dab_status dab_proof_eval(dab_proof *pf, dab_proof_summary *sum, dab_proof_claim *open, size_t max_open,
                          size_t *nopen, dab_err *err) {
  memset(sum, 0, sizeof *sum);
  if (pf->memo) memset(pf->memo, 0, pf->capmemo * sizeof *pf->memo);
  pf->nmemo = 0;
  pf->oom = false;
  pf->sum = sum;
  pf->open = open;
  pf->max_open = max_open;
  pf->nopen = 0;
  uint64_t root = dab_proof_canon(pf, pf->spec.root);
  int parts[2][2], np = 0; /* (dir, bound) of the root's claims */
  if (pf->spec.has_ge) parts[np][0] = DAB_PROOF_GE, parts[np++][1] = pf->spec.ge_bound;
  if (pf->spec.has_le) parts[np][0] = DAB_PROOF_LE, parts[np++][1] = pf->spec.le_bound;
  int state = DAB_PROOF_PROVED;
  for (int i = 0; i < np; i++) {
    int b = parts[i][1];
    int s = trivial_state(&pf->g, root, parts[i][0], &b);
    if (!s) {
      s = node_state(pf, root, parts[i][0], b, 0, pf->spec.depth);
      collect(pf, root, parts[i][0], b, 0, pf->spec.depth, -1);
    }
    if (s == DAB_PROOF_REFUTED) state = DAB_PROOF_REFUTED;
    else if (s == DAB_PROOF_OPEN && state != DAB_PROOF_REFUTED) state = DAB_PROOF_OPEN;
  }
  sum->state = state;
  sum->records = pf->nrecs;
  double *secs = pf->nrecs ? malloc(pf->nrecs * sizeof *secs) : NULL;
  for (size_t i = 0; i < pf->nrecs; i++) {
    const dab_proof_rec *r = &pf->recs[i];
    if (!r->proved) sum->refuted++;
    sum->seconds += r->seconds;
    sum->cpu_seconds += dab_proof_rec_cpu(r);
    if (secs) secs[i] = r->seconds;
  }
  sum->given_up_cpu_seconds = notes_cpu(pf->gave_up, pf->ngave_up) + notes_cpu(pf->split, pf->nsplit);
  if (secs) {
    qsort(secs, pf->nrecs, sizeof *secs, cmp_double);
    sum->median_seconds = secs[pf->nrecs / 2];
    free(secs);
  }
  if (nopen) *nopen = pf->nopen;
  pf->sum = NULL;
  pf->open = NULL;
  if (pf->oom) return dab_fail(err, DAB_ENOMEM, "out of memory evaluating the proof tree");
  return DAB_OK;
}

/* ---- Text ------------------------------------------------------------- */

char *dab_proof_claim_label(const dab_proof *pf, const dab_proof_claim *c, char *buf, size_t len) {
  char pos[DAB_MAX_LINES + 32], cl[8];
  dab_lineset ls = dab_ls_from_word(c->pos);
  dab_format_dbn(dab_proof_geom(pf), &ls, pos, sizeof pos);
  snprintf(buf, len, "%s %s", pos, dab_proof_claim_text(c->dir, c->bound, cl));
  return buf;
}

char *dab_proof_claim_text(int dir, int bound, char *buf) {
  snprintf(buf, 8, "%s%+d", dir == DAB_PROOF_GE ? ">=" : "<=", bound);
  return buf;
}

/* Parses ">=+2" / "<=-1" (sign optional). */
static bool parse_claim_tok(const char *t, int *dir, int *bound) {
  if (!strncmp(t, ">=", 2)) *dir = DAB_PROOF_GE;
  else if (!strncmp(t, "<=", 2)) *dir = DAB_PROOF_LE;
  else return false;
  char *end;
  long v = strtol(t + 2, &end, 10);
  if (end == t + 2 || *end || v < -100 || v > 100) return false;
  *bound = (int)v;
  return true;
}

bool dab_proof_parse_claim_tok(const char *t, int *dir, int *bound) { return parse_claim_tok(t, dir, bound); }

dab_status dab_proof_parse_pos_claim(const dab_proof *pf, const char *pos_text, const char *claim_text, uint64_t *pos,
                                     int *dir, int *bound, dab_err *err) {
  dab_parsed p;
  dab_err perr;
  if (dab_parse_position(pos_text, &p, &perr)) return dab_fail(err, DAB_EINPUT, "bad position: %s", perr.msg);
  if (p.geom.rows != pf->g.rows || p.geom.cols != pf->g.cols)
    return dab_fail(err, DAB_EINPUT, "position is %dx%d, the proof is %dx%d", p.geom.rows, p.geom.cols, pf->g.rows,
                    pf->g.cols);
  *pos = dab_proof_canon(pf, dab_ls_word(&p.game.lines));
  if (!parse_claim_tok(claim_text, dir, bound))
    return dab_fail(err, DAB_EINPUT, "bad claim '%s' (want >=B or <=B)", claim_text);
  if (*bound < -pf->g.nboxes || *bound > pf->g.nboxes)
    return dab_fail(err, DAB_EINPUT, "claim '%s' is beyond the board's %d boxes", claim_text, pf->g.nboxes);
  return DAB_OK;
}

/* Notes "POS CLAIM abandoned after seconds=S ..." (the rest of a "# open
** direct" line, or of a "# open" line when split): a search of that whole
** subtree, or of that leaf, was given up after S seconds.  A line that
** does not parse is ignored, as any comment. */
static void note_gave_up(dab_proof *pf, const char *text, bool split) {
  char pos[256], claim[16];
  const char *at = strstr(text, "seconds=");
  if (sscanf(text, "%255s %15s", pos, claim) != 2 || !at) return;
  const char *th = strstr(text, " threads=");
  long threads = th ? strtol(th + 9, NULL, 10) : 1;
  gave_up_note note = {.seconds = strtod(at + 8, NULL), .threads = threads >= 1 && threads <= 1024 ? (int)threads : 1};
  for (int f = 0; f < 2; f++) { /* " first=M,M,..." and " last=M,..." */
    const char *list = strstr(text, f ? " last=" : " first=");
    uint64_t *mask = f ? &note.last : &note.first;
    if (!list) continue;
    list += f ? 6 : 7;
    for (;;) {
      char *end;
      long m = strtol(list, &end, 10);
      if (end == list || m < 0 || m >= pf->g.nlines) break;
      *mask |= 1ull << m;
      if (*end != ',') break;
      list = end + 1;
    }
  }
  dab_err e;
  if (!(note.seconds >= 0) || dab_proof_parse_pos_claim(pf, pos, claim, &note.claim.pos, &note.claim.dir, &note.claim.bound, &e))
    return;
  gave_up_note **list = split ? &pf->split : &pf->gave_up;
  size_t *n = split ? &pf->nsplit : &pf->ngave_up, *capn = split ? &pf->capsplit : &pf->capgave_up;
  if (*n == *capn) {
    size_t cap = *capn ? 2 * *capn : 16;
    gave_up_note *nn = realloc(*list, cap * sizeof *nn);
    if (!nn) return; /* a note lost: that search is only tried again */
    *list = nn;
    *capn = cap;
  }
  (*list)[(*n)++] = note;
}

/* Appends " NAME=M,M,..." for the moves of mask to buf (size len, used *at). */
static void put_moves(char *buf, size_t len, size_t *at, const char *name, uint64_t mask) {
  for (int first = 1; mask && *at < len; first = 0, mask &= mask - 1) {
    int m = __builtin_ctzll(mask);
    int w = first ? snprintf(buf + *at, len - *at, " %s=%d", name, m) : snprintf(buf + *at, len - *at, ",%d", m);
    if (w < 0 || (size_t)w >= len - *at) {
      buf[*at] = 0; /* cut at a whole entry: a shorter hint is still true */
      return;
    }
    *at += (size_t)w;
  }
}

size_t dab_proof_order_hint(const dab_proof *pf, const dab_ab *ab, const dab_proof_claim *c, char *buf,
                            size_t len) {
  if (!len) return 0;
  buf[0] = 0;
  const dab_geom *g = &pf->g;
  bool or_node = c->dir == DAB_PROOF_GE;
  uint64_t front = 0, back = 0;
  for (int m = 0; m < g->nlines; m++) {
    if (c->pos >> m & 1) continue;
    int k = dab64_completes(g, c->pos, m), cd, cb;
    dab_tt_hit hit;
    if (!dab_ab_probe(ab, c->pos | 1ull << m, &hit)) continue;
    child_claim(c->dir, c->bound, k, &cd, &cb);
    bool holds = cd == DAB_PROOF_GE ? hit.lower >= cb : hit.upper <= cb;
    bool fails = cd == DAB_PROOF_GE ? hit.upper < cb : hit.lower > cb;
    /* OR: a child that holds proves the node, try it first; AND: a child
    ** that fails refutes the node, try it first */
    if (or_node ? holds : fails) front |= 1ull << m;
    else if (or_node ? fails : holds) back |= 1ull << m;
  }
  size_t at = 0;
  put_moves(buf, len, &at, "first", front);
  put_moves(buf, len, &at, "last", back);
  return at;
}

bool dab_proof_note(dab_proof *pf, const char *line) {
  size_t before = pf->ngave_up + pf->nsplit;
  if (!strncmp(line, "# open direct ", 14)) note_gave_up(pf, line + 14, false);
  else if (!strncmp(line, "# open ", 7)) note_gave_up(pf, line + 7, true);
  return pf->ngave_up + pf->nsplit > before;
}

double dab_proof_gave_up(const dab_proof *pf, const dab_proof_claim *c) {
  double most = 0;
  for (size_t i = 0; i < pf->ngave_up; i++) {
    const gave_up_note *n = &pf->gave_up[i];
    if (n->claim.pos == c->pos && n->claim.dir == c->dir && n->claim.bound == c->bound && n->seconds > most)
      most = n->seconds;
  }
  return most;
}

bool dab_proof_direct_note(const dab_proof *pf, size_t i, dab_proof_claim *c, double *seconds, int *threads) {
  if (i >= pf->ngave_up) return false;
  *c = pf->gave_up[i].claim;
  *seconds = pf->gave_up[i].seconds;
  *threads = pf->gave_up[i].threads;
  return true;
}

void dab_proof_set_until(dab_proof *pf, const char *date) {
  snprintf(pf->until, sizeof pf->until, "%s", date ? date : "");
}

const char *dab_proof_until(const dab_proof *pf) { return pf->until; }

dab_status dab_proof_open_at(dab_proof *pf, int depth, dab_proof_claim *out, size_t max, size_t *n, dab_err *err) {
  dab_proof_summary sum;
  dab_status st = dab_proof_eval(pf, &sum, NULL, 0, NULL, err);
  if (st) return st;
  pf->open = out;
  pf->max_open = max;
  pf->nopen = 0;
  uint64_t root = dab_proof_canon(pf, pf->spec.root);
  for (int part = 0; part < 2; part++) {
    bool has = part == 0 ? pf->spec.has_ge : pf->spec.has_le;
    if (!has) continue;
    int dir = part == 0 ? DAB_PROOF_GE : DAB_PROOF_LE;
    int b = part == 0 ? pf->spec.ge_bound : pf->spec.le_bound;
    if (trivial_state(&pf->g, root, dir, &b)) continue;
    collect_at(pf, root, dir, b, 0, pf->spec.depth, depth);
  }
  *n = pf->nopen;
  pf->open = NULL;
  if (pf->oom) return dab_fail(err, DAB_ENOMEM, "out of memory walking the proof tree");
  return DAB_OK;
}
