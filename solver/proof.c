/*
** proof.c: divisible proofs: the AND/OR split tree, records and their files.
** See Copyright Notice in README.md
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "game/durable.h"
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

/* ---- Solving one claim ------------------------------------------------- */

static void utc_now(char *buf, size_t len) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void host_name(char *buf, size_t len) {
  if (gethostname(buf, len) != 0) snprintf(buf, len, "unknown");
  buf[len - 1] = 0;
  for (char *s = buf; *s; s++)
    if (*s == ' ' || *s == '\t' || *s == '=') *s = '_';
}

dab_status dab_proof_solve_claim(dab_proof *pf, dab_ab *ab, const dab_proof_claim *c, dab_proof_rec *out,
                                 dab_err *err) {
  const dab_geom *ag = dab_ab_geom(ab);
  if (ag->rows != pf->g.rows || ag->cols != pf->g.cols)
    return dab_fail(err, DAB_EINPUT, "the solver is for %dx%d, the proof for %dx%d", ag->rows, ag->cols, pf->g.rows,
                    pf->g.cols);
  dab_ab_reset_stats(ab);
  int test = c->dir == DAB_PROOF_GE ? c->bound : c->bound + 1, fs;
  dab_status st = dab_ab_test_failsoft(ab, c->pos, test, &fs, err);
  if (st) return st;
  bool ge = fs >= test;
  dab_ab_stats s;
  dab_ab_get_stats(ab, &s);
  memset(out, 0, sizeof *out);
  out->pos = c->pos;
  out->dir = c->dir;
  out->bound = c->bound;
  out->proved = c->dir == DAB_PROOF_GE ? ge : !ge;
  /* fs >= test proves value >= fs, else value <= fs */
  out->has_fs = true;
  out->fs_lower = ge;
  out->fs_value = fs;
  bool lower;
  int v;
  rec_implies(&pf->g, out, &lower, &v);
  out->fs_value = v;
  out->nodes = s.nodes;
  out->seconds = s.seconds;
  int th = dab_ab_options(ab)->threads;
  out->threads = th > 0 ? th : 1;
  utc_now(out->date, sizeof out->date);
  host_name(out->host, sizeof out->host);
  out->source = -1;
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

char *dab_proof_format_rec(const dab_proof *pf, const dab_proof_rec *r, char *buf, size_t len) {
  char pos[DAB_MAX_LINES + 32], claim[8], bnd[8];
  dab_lineset ls = dab_ls_from_word(r->pos);
  if (!dab_format_dbn(&pf->g, &ls, pos, sizeof pos)) return NULL;
  bool lower;
  int v;
  rec_implies(&pf->g, r, &lower, &v);
  int n = snprintf(buf, len, "%s %s %s %s nodes=%llu seconds=%.3f threads=%d date=%s host=%s", pos,
                   dab_proof_claim_text(r->dir, r->bound, claim), r->proved ? "proved" : "refuted",
                   dab_proof_claim_text(lower ? DAB_PROOF_GE : DAB_PROOF_LE, v, bnd),
                   (unsigned long long)r->nodes, r->seconds, r->threads, r->date[0] ? r->date : "-",
                   r->host[0] ? r->host : "-");
  return n > 0 && (size_t)n < len ? buf : NULL;
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

/* "POSITION CLAIM" of a record line (or of a note): the position of this
** proof's board, canonicalised, and >=B or <=B.
** RETURN: DAB_OK, or DAB_EINPUT with what is wrong. */
static dab_status parse_pos_claim(const dab_proof *pf, const char *pos_text, const char *claim_text, uint64_t *pos,
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

dab_status dab_proof_parse_rec(const dab_proof *pf, const char *line, dab_proof_rec *r, dab_err *err) {
  char buf[1024];
  size_t len = strlen(line);
  if (len >= sizeof buf) return dab_fail(err, DAB_EINPUT, "record line too long (%zu characters)", len);
  memcpy(buf, line, len + 1);
  char *tok[32];
  int nt = 0;
  char *save = NULL;
  for (char *s = strtok_r(buf, " \t\r\n", &save); s && nt < 32; s = strtok_r(NULL, " \t\r\n", &save)) tok[nt++] = s;
  if (nt < 4) return dab_fail(err, DAB_EINPUT, "a record needs POSITION CLAIM RESULT BOUND, got %d fields", nt);
  memset(r, 0, sizeof *r);
  r->source = -1;
  dab_status st = parse_pos_claim(pf, tok[0], tok[1], &r->pos, &r->dir, &r->bound, err);
  if (st) return st;
  if (!strcmp(tok[2], "proved")) r->proved = true;
  else if (!strcmp(tok[2], "refuted")) r->proved = false;
  else return dab_fail(err, DAB_EINPUT, "bad result '%s' (want proved or refuted)", tok[2]);
  int bd, bb;
  if (!parse_claim_tok(tok[3], &bd, &bb)) return dab_fail(err, DAB_EINPUT, "bad bound '%s'", tok[3]);
  bool lower;
  int v, n = open_boxes(&pf->g, r->pos);
  rec_implies(&pf->g, r, &lower, &v);
  /* the bound is the implied one, or a stronger one of the same direction
  ** (a fail-soft result), inside the box count */
  bool same = (bd == DAB_PROOF_GE) == lower;
  bool strong = lower ? bb >= v : bb <= v;
  if (!same || !strong || bb < -n || bb > n) {
    char want[8];
    return dab_fail(err, DAB_EINPUT, "bound %s does not follow from %s %s (want %s or stronger, within +-%d)", tok[3],
                    tok[1], tok[2], dab_proof_claim_text(lower ? DAB_PROOF_GE : DAB_PROOF_LE, v, want), n);
  }
  if (bb != v) r->has_fs = true, r->fs_lower = lower, r->fs_value = bb;
  r->threads = 1;
  for (int i = 4; i < nt; i++) {
    const char *t = tok[i], *eq = strchr(t, '=');
    if (!eq) continue;
    const char *val = eq + 1;
    size_t kl = (size_t)(eq - t);
    if (kl == 5 && !strncmp(t, "nodes", 5)) r->nodes = strtoull(val, NULL, 10);
    else if (kl == 7 && !strncmp(t, "seconds", 7)) r->seconds = strtod(val, NULL);
    else if (kl == 7 && !strncmp(t, "threads", 7)) r->threads = atoi(val);
    else if (kl == 4 && !strncmp(t, "date", 4)) snprintf(r->date, sizeof r->date, "%s", val);
    else if (kl == 4 && !strncmp(t, "host", 4)) snprintf(r->host, sizeof r->host, "%s", val);
  }
  if (r->threads < 1) r->threads = 1;
  return DAB_OK;
}

/* ---- Directories ------------------------------------------------------- */

char *dab_proof_spec_claim_text(const dab_proof_spec *spec, char *buf) {
  if (spec->has_ge && spec->has_le && spec->ge_bound == spec->le_bound) snprintf(buf, 24, "=%+d", spec->ge_bound);
  else if (spec->has_ge && spec->has_le) snprintf(buf, 24, ">=%+d,<=%+d", spec->ge_bound, spec->le_bound);
  else if (spec->has_ge) snprintf(buf, 24, ">=%+d", spec->ge_bound);
  else snprintf(buf, 24, "<=%+d", spec->le_bound);
  return buf;
}

dab_status dab_proof_parse_claim(const char *text, dab_proof_spec *spec, dab_err *err) {
  spec->has_ge = spec->has_le = false;
  char buf[64];
  snprintf(buf, sizeof buf, "%s", text);
  char *save = NULL;
  for (char *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
    char *end;
    if (s[0] == '=' ) {
      long v = strtol(s + 1, &end, 10);
      if (end == s + 1 || *end || v < -64 || v > 64) goto bad;
      spec->has_ge = spec->has_le = true;
      spec->ge_bound = spec->le_bound = (int)v;
    } else {
      int d, b;
      if (!parse_claim_tok(s, &d, &b) || b < -64 || b > 64) goto bad;
      if (d == DAB_PROOF_GE) spec->has_ge = true, spec->ge_bound = b;
      else spec->has_le = true, spec->le_bound = b;
    }
  }
  if (!spec->has_ge && !spec->has_le) goto bad;
  return DAB_OK;
bad:
  return dab_fail(err, DAB_EINPUT, "bad claim '%s' (want =V, >=B, <=B or >=B,<=B, e.g. =0)", text);
}

static dab_status mkdir_p(const char *dir, dab_err *err) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", dir);
  for (char *s = buf + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return dab_fail(err, DAB_EIO, "cannot create %s: %s", buf, strerror(errno));
    *s = '/';
  }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST) return dab_fail(err, DAB_EIO, "cannot create %s: %s", buf, strerror(errno));
  return DAB_OK;
}

/* Writes a then b to path durably (game/durable.h): a record file is
** whole or absent after a crash. */
static dab_status write_atomic(const char *path, const char *a, size_t alen, const char *b, size_t blen,
                               dab_err *err) {
  dab_durable d;
  dab_status st = dab_durable_open(&d, path, NULL, err);
  if (st) return st;
  if ((st = dab_durable_put(&d, a, alen, err)) || (st = dab_durable_put(&d, b, blen, err))) {
    dab_durable_abort(&d);
    return st;
  }
  return dab_durable_commit(&d, err);
}

/* Reads a whole file (NUL-terminated).  RETURN: malloc'd text, NULL with
** *missing true if absent, NULL otherwise on error. */
static char *read_all(const char *path, size_t *len, bool *missing) {
  *missing = false;
  FILE *f = fopen(path, "rb");
  if (!f) {
    *missing = errno == ENOENT;
    return NULL;
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n + 1 >= cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
    }
    size_t r = fread(buf + n, 1, cap - n - 1, f);
    n += r;
    if (r == 0) break;
  }
  bool bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  if (buf) buf[n] = 0;
  *len = n;
  return buf;
}

/* A file whose last line was cut (no newline: a crash or a full disk
** while appending): rewritten whole, with that tail turned into a comment
** (a cut line joined to the next could read as another record), then line. */
static dab_status append_after_torn(const char *path, const char *lbuf, dab_err *err) {
  size_t len = 0;
  bool missing;
  char *old = read_all(path, &len, &missing);
  if (!old) return dab_fail(err, DAB_EIO, "cannot read %s: %s", path, strerror(errno));
  size_t keep = len;
  while (keep && old[keep - 1] != '\n') keep--;
  static const char mark[] = "# torn line, kept as a comment: ";
  size_t tail = len - keep, n = keep + sizeof mark - 1 + tail + 1;
  char *body = malloc(n + 1);
  if (!body) {
    free(old);
    return dab_fail(err, DAB_ENOMEM, "out of memory");
  }
  memcpy(body, old, keep);
  memcpy(body + keep, mark, sizeof mark - 1);
  memcpy(body + keep + sizeof mark - 1, old + keep, tail);
  body[n - 1] = '\n';
  dab_status st = write_atomic(path, body, n, lbuf, strlen(lbuf), err);
  free(body);
  free(old);
  return st;
}

dab_status dab_proof_append_line(const char *path, const char *header, const char *line, dab_err *err) {
  size_t n = strlen(line);
  char *lbuf = malloc(n + 2);
  if (!lbuf) return dab_fail(err, DAB_ENOMEM, "out of memory");
  memcpy(lbuf, line, n);
  lbuf[n] = '\n', lbuf[n + 1] = 0;
  dab_status st = DAB_OK;
  int fd = open(path, O_RDWR | O_APPEND);
  struct stat sb;
  char last = '\n';
  if (fd < 0 && errno == ENOENT) { /* a new file appears whole, header first */
    const char *h = header ? header : "";
    st = write_atomic(path, h, strlen(h), lbuf, n + 1, err);
  } else if (fd < 0 || fstat(fd, &sb) != 0) {
    st = dab_fail(err, DAB_EIO, "cannot open %s: %s", path, strerror(errno));
  } else if (sb.st_size > 0 && pread(fd, &last, 1, sb.st_size - 1) == 1 && last != '\n') {
    st = append_after_torn(path, lbuf, err);
  } else {
    /* One write of one line, so that a file grows by whole lines and a
    ** record costs its own bytes, not the file's (rank 0 of an MPI proof
    ** appends every record). */
    size_t off = 0;
    while (off <= n && !st) {
      ssize_t w = write(fd, lbuf + off, n + 1 - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        st = dab_fail(err, DAB_EIO, "cannot write %s: %s", path, strerror(errno));
        if (ftruncate(fd, sb.st_size) != 0) { /* the cut line stays: the next append comments it out */ }
      } else
        off += (size_t)w;
    }
    if (!st && fsync(fd) != 0) st = dab_fail(err, DAB_EIO, "cannot flush %s: %s", path, strerror(errno));
  }
  if (fd >= 0) close(fd);
  free(lbuf);
  return st;
}

const char *dab_proof_rec_header(void) {
  return "# dab proof records (docs/proofs.md), one proved subresult per line:\n"
         "# POSITION CLAIM RESULT BOUND nodes= seconds= threads= date= host=\n"
         "# RESULT: proved (the claim holds) or refuted (BOUND holds instead).\n";
}

dab_status dab_proof_write_spec(const char *dir, const dab_proof_spec *spec, dab_err *err) {
  dab_status st = mkdir_p(dir, err);
  if (st) return st;
  char path[4200], body[1024], pos[DAB_MAX_LINES + 32], claim[24], date[24];
  snprintf(path, sizeof path, "%s/README.md", dir);
  if (access(path, F_OK) != 0) {
    const char *readme =
        "A divisible dab proof (docs/proofs.md): proof.txt says what is proved, rec-*.txt hold the proved "
        "subresults; `dab solve POS --proof DIR` continues it, `--verify` checks it.\n";
    st = write_atomic(path, readme, strlen(readme), "", 0, err);
    if (st) return st;
  }
  dab_geom g;
  st = dab_geom_init(&g, spec->rows, spec->cols, err);
  if (st) return st;
  dab_lineset ls = dab_ls_from_word(spec->root);
  dab_format_dbn(&g, &ls, pos, sizeof pos);
  utc_now(date, sizeof date);
  int n = snprintf(body, sizeof body,
                   "# dab divisible proof (docs/proofs.md).  Written by the first run; every run checks it.\n"
                   "board %dx%d\nroot %s\nclaim %s\ndepth %d\ncreated %s\n",
                   spec->rows, spec->cols, pos, dab_proof_spec_claim_text(spec, claim), spec->depth, date);
  snprintf(path, sizeof path, "%s/proof.txt", dir);
  return write_atomic(path, body, (size_t)n, "", 0, err);
}

dab_status dab_proof_read_spec(const char *dir, dab_proof_spec *spec, bool *exists, dab_err *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/proof.txt", dir);
  size_t len;
  bool missing;
  char *text = read_all(path, &len, &missing);
  *exists = false;
  if (!text) {
    if (missing) return DAB_OK;
    return dab_fail(err, DAB_EIO, "cannot read %s: %s", path, strerror(errno));
  }
  memset(spec, 0, sizeof *spec);
  bool have_board = false, have_root = false, have_claim = false, have_depth = false;
  dab_status st = DAB_OK;
  int lineno = 0;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    lineno++;
    if (line[0] == '#' || !line[0]) continue;
    char key[32], val[256];
    if (sscanf(line, "%31s %255s", key, val) != 2) continue;
    dab_err e2;
    if (!strcmp(key, "board")) {
      size_t used;
      if (dab_parse_board(val, &spec->rows, &spec->cols, &used, &e2) || val[used]) goto bad;
      have_board = true;
    } else if (!strcmp(key, "root")) {
      dab_parsed p;
      if (dab_parse_position(val, &p, &e2) || !dab_geom_fast(&p.geom)) goto bad;
      spec->root = dab_ls_word(&p.game.lines);
      have_root = true;
      if (have_board && (p.geom.rows != spec->rows || p.geom.cols != spec->cols)) goto bad;
    } else if (!strcmp(key, "claim")) {
      if (dab_proof_parse_claim(val, spec, &e2)) goto bad;
      have_claim = true;
    } else if (!strcmp(key, "depth")) {
      char *end;
      long d = strtol(val, &end, 10);
      if (*end || d < 0 || d > DAB_PROOF_MAX_DEPTH) goto bad;
      spec->depth = (int)d;
      have_depth = true;
    }
    continue;
  bad:
    st = dab_fail(err, DAB_ECORRUPT, "%s:%d: bad line '%s'", path, lineno, line);
    break;
  }
  free(text);
  if (st) return st;
  if (!have_board || !have_root || !have_claim || !have_depth)
    return dab_fail(err, DAB_ECORRUPT, "%s lacks one of board, root, claim, depth", path);
  *exists = true;
  return DAB_OK;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void note_problem(dab_proof_load_info *info, const char *file, int line, const char *what) {
  if (!info->first_problem[0])
    snprintf(info->first_problem, sizeof info->first_problem, "%s:%d: %s", file, line, what);
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
  if (!(note.seconds >= 0) || parse_pos_claim(pf, pos, claim, &note.claim.pos, &note.claim.dir, &note.claim.bound, &e))
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

/* True when line t carries a date= after pf's until date. */
static bool dated_after_until(const dab_proof *pf, const char *t) {
  if (!pf->until[0]) return false;
  const char *d = strstr(t, " date=");
  if (!d) return false;
  d += 6;
  char date[24];
  snprintf(date, sizeof date, "%.*s", (int)strcspn(d, " \t\r"), d);
  if (!strcmp(date, "-")) return false; /* undated */
  /* only the until date's length counts: "2026-11-22" keeps that whole day */
  return strncmp(date, pf->until, strlen(pf->until)) > 0;
}

dab_status dab_proof_load_dir(dab_proof *pf, const char *dir, dab_proof_load_info *info, dab_err *err) {
  memset(info, 0, sizeof *info);
  DIR *d = opendir(dir);
  if (!d) return dab_fail(err, DAB_EIO, "cannot read directory %s: %s", dir, strerror(errno));
  char **names = NULL;
  size_t nn = 0, cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (strncmp(e->d_name, "rec-", 4) || l < 8 || strcmp(e->d_name + l - 4, ".txt")) continue;
    if (nn == cap) {
      cap = cap ? 2 * cap : 64;
      char **nb = realloc(names, cap * sizeof *nb);
      if (!nb) break;
      names = nb;
    }
    names[nn] = strdup(e->d_name);
    if (names[nn]) nn++;
  }
  closedir(d);
  if (nn) qsort(names, nn, sizeof *names, cmp_str);
  dab_status st = DAB_OK;
  for (size_t i = 0; i < nn; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    size_t len;
    bool missing;
    char *text = read_all(path, &len, &missing);
    if (!text) {
      if (missing) continue;
      st = dab_fail(err, DAB_EIO, "cannot read %s: %s", path, strerror(errno));
      break;
    }
    char **ns = realloc(pf->sources, (size_t)(pf->nsources + 1) * sizeof *ns);
    if (!ns) {
      free(text);
      st = dab_fail(err, DAB_ENOMEM, "out of memory");
      break;
    }
    pf->sources = ns;
    int src = pf->nsources++;
    pf->sources[src] = names[i];
    names[i] = NULL;
    info->files++;
    int lineno = 0;
    for (char *s = text; *s;) {
      char *nl = strchr(s, '\n');
      lineno++;
      if (!nl) { /* torn: the write that made it never finished */
        info->torn++;
        note_problem(info, pf->sources[src], lineno, "unterminated last line ignored (torn write)");
        break;
      }
      *nl = 0;
      char *t = s;
      s = nl + 1;
      while (*t == ' ' || *t == '\t') t++;
      if ((*t != '#' || !strncmp(t, "# open ", 7)) && dated_after_until(pf, t)) {
        info->later++;
        continue;
      }
      if (!strncmp(t, "# open ", 7)) {
        dab_proof_note(pf, t);
        continue;
      }
      if (!*t || *t == '#' || *t == '\r') continue;
      dab_proof_rec r;
      dab_err e2;
      dab_status ps = dab_proof_parse_rec(pf, t, &r, &e2);
      if (!ps) {
        r.source = src;
        r.line = lineno;
        ps = dab_proof_add(pf, &r, &e2);
        if (ps == DAB_ENOMEM) {
          free(text);
          st = dab_fail(err, ps, "%s", e2.msg);
          goto out;
        }
      }
      if (ps) {
        info->bad++;
        note_problem(info, pf->sources[src], lineno, e2.msg);
      } else info->lines++;
    }
    free(text);
  }
out:
  for (size_t i = 0; i < nn; i++) free(names[i]);
  free(names);
  return st;
}

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
