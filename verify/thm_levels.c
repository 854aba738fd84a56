/*
** thm_levels.c: checker levels 0-2: the SLE claims against the recursion,
** against the component solver (strings only), and Nimstring on graphs.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "theorems/compsolve.h"
#include "theorems/graphsolve.h"
#include "theorems/sle.h"
#include "verify/thm_check.h"

/* ---- Enumerating SLEs ----------------------------------------------- */

/*
** Every multiset with chains >= min_chain and loops >= min_loop (loops of
** even length only when even_loops) and at most max boxes, each exactly
** once: chains in non-decreasing order, then loops in non-decreasing
** order, built in place in e->G (which is therefore always sorted).
*/
typedef struct sle_enum {
  int max, min_chain, min_loop;
  bool even_loops;
  void (*fn)(void *ctx, const dab_sle *G, int size);
  void *ctx;
  dab_cancel_flag *cancel;
  dab_progress_fn progress;
  void *progress_ctx;
  const char *what;
  double t0;
  bool canceled;
  uint64_t visited;
  dab_sle G;
} sle_enum;

static void enum_rec(sle_enum *e, int size, int minlen, bool in_loops) {
  if (e->canceled) return;
  if (e->cancel && *e->cancel && !(e->visited & 1023)) {
    e->canceled = true;
    return;
  }
  e->visited++;
  if (e->progress && !(e->visited & 0x3fff)) {
    dab_progress pr = {.what = e->what, .done = e->visited, .total = 0,
                       .elapsed = thm_now() - e->t0};
    e->progress(e->progress_ctx, &pr);
  }
  e->fn(e->ctx, &e->G, size);
  if (!in_loops)
    for (int a = minlen; size + a <= e->max && e->G.nchains < DAB_SLE_MAX; a++) {
      e->G.chain[e->G.nchains++] = (int16_t)a;
      enum_rec(e, size + a, a, false);
      e->G.nchains--;
    }
  int a0 = in_loops ? minlen : e->min_loop;
  for (int a = a0; size + a <= e->max && e->G.nloops < DAB_SLE_MAX; a++) {
    if (e->even_loops && a % 2) continue;
    e->G.loop[e->G.nloops++] = (int16_t)a;
    enum_rec(e, size + a, a, true);
    e->G.nloops--;
  }
}

static bool sle_enumerate(sle_enum *e) {
  e->G.nchains = e->G.nloops = 0;
  e->visited = 0;
  e->canceled = false;
  e->t0 = thm_now();
  enum_rec(e, 0, e->min_chain, false);
  return !e->canceled;
}

static const char *fmt(const dab_sle *G, char *buf) { return dab_sle_format(G, buf, 160); }

static bool has_odd_loop(const dab_sle *G) {
  for (int i = 0; i < G->nloops; i++)
    if (G->loop[i] % 2) return true;
  return false;
}

static int v_without(const dab_sle *G, dab_sle_comp X) {
  dab_sle H;
  if (!dab_sle_remove(G, X.kind, X.len, &H)) return DAB_SLE_BAD;
  return dab_sle_v_rec(&H);
}

static const char *comp_name(dab_sle_comp X, char *buf) {
  snprintf(buf, 16, "%s%d", X.kind == DAB_SLE_LOOP ? "L" : "", X.len);
  return buf;
}

/* ---- Level 0 -------------------------------------------------------- */

enum {
  L0_BC, L0_V, L0_AL, L0_NONNEG, L0_PARITY, L0_GE_C, L0_LE4, L0_LIPSCHITZ, L0_SHORTEST, L0_BZ3,
  L0_OLDTB, L0_STDOPEN, L0_N
};

typedef struct l0_ctx {
  thm_claim *lib;
  thm_claim *board[L0_N], *odd[L0_N];
  thm_claim *bz5_value, *bz5_move, *bz5_value_odd, *bz5_move_odd;
  int max;
} l0_ctx;

static void l0_strict(void *vctx, const dab_sle *G, int size) {
  l0_ctx *x = vctx;
  bool odd = has_odd_loop(G);
  thm_claim **cl = odd ? x->odd : x->board;
  char b[160], b2[16];
  int v = dab_sle_v_rec(G);
  int fast = dab_sle_v(G);
  THM_CASE(x->lib, fast == v, "G=%s: dab_sle_value %d, recursion %d", fmt(G, b), fast, v);
  int c = dab_sle_c(G);
  if (c >= 2) THM_CASE(cl[L0_BC], v == c, "G=%s: c=%d, v=%d", fmt(G, b), c, v);
  int cold = dab_sle_fcv(G) + dab_sle_tb_old(G);
  if (cold >= 2)
    THM_CASE(cl[L0_OLDTB], v == cold, "G=%s: old-bonus c=%d, v=%d", fmt(G, b), cold, v);
  int cf = dab_sle_closed_form(G, NULL);
  THM_CASE(cl[L0_V], cf == v, "G=%s: closed form %d, recursion %d", fmt(G, b), cf, v);
  if (G->nchains + G->nloops) {
    int rule;
    dab_sle_comp X = dab_sle_allcock(G, &rule);
    int ov = dab_sle_open_value(X, v_without(G, X));
    THM_CASE(cl[L0_AL], ov == v, "G=%s: rule %d opens %s worth %d, v=%d", fmt(G, b), rule,
             comp_name(X, b2), ov, v);
    X = dab_sle_standard_open(G);
    ov = dab_sle_open_value(X, v_without(G, X));
    THM_CASE(cl[L0_STDOPEN], ov == v, "G=%s: opening %s worth %d, v=%d", fmt(G, b),
             comp_name(X, b2), ov, v);
    bool shortest = false;
    if (G->nchains) {
      dab_sle_comp Y = {DAB_SLE_CHAIN, G->chain[0]};
      shortest |= dab_sle_open_value(Y, v_without(G, Y)) == v;
    }
    if (G->nloops) {
      dab_sle_comp Y = {DAB_SLE_LOOP, G->loop[0]};
      shortest |= dab_sle_open_value(Y, v_without(G, Y)) == v;
    }
    THM_CASE(cl[L0_SHORTEST], shortest, "G=%s: no shortest component is an optimal opening",
             fmt(G, b));
  }
  THM_CASE(cl[L0_NONNEG], v >= 0, "G=%s: v=%d", fmt(G, b), v);
  THM_CASE(cl[L0_PARITY], (v - size) % 2 == 0, "G=%s: v=%d, |G|=%d", fmt(G, b), v, size);
  THM_CASE(cl[L0_GE_C], v >= c, "G=%s: v=%d < c=%d", fmt(G, b), v, c);
  if (c <= 1) THM_CASE(cl[L0_LE4], v <= 4, "G=%s: c=%d, v=%d", fmt(G, b), c, v);
  if (c == 0 && dab_sle_count_loops(G, 4)) {
    bool is334 = G->nchains == 2 && G->chain[0] == 3 && G->chain[1] == 3 && G->nloops == 1;
    THM_CASE(cl[L0_BZ3], v == (is334 ? 2 : 0), "G=%s: c=0, v=%d", fmt(G, b), v);
  }
  /* Lipschitz: lengthen one component of each distinct type by d (loops
  ** by 2 on the board domain so that they stay even). */
  for (int k = 0; k < 2; k++) {
    int n = k ? G->nloops : G->nchains;
    const int16_t *len = k ? G->loop : G->chain;
    int d = k && !odd ? 2 : 1;
    if (size + d > x->max) continue;
    for (int i = 0; i < n; i++) {
      if (i && len[i] == len[i - 1]) continue;
      dab_sle H = *G;
      (k ? H.loop : H.chain)[i] = (int16_t)(len[i] + d);
      /* Keep the list sorted: bubble the grown entry right. */
      int16_t *a = k ? H.loop : H.chain;
      for (int j = i; j + 1 < n && a[j] > a[j + 1]; j++) {
        int16_t t = a[j];
        a[j] = a[j + 1];
        a[j + 1] = t;
      }
      int vh = dab_sle_v_rec(&H);
      int diff = vh > v ? vh - v : v - vh;
      THM_CASE(cl[L0_LIPSCHITZ], diff <= d, "G=%s: v=%d, lengthening %s%d by %d gives v=%d",
               fmt(G, b), v, k ? "L" : "", len[i], d, vh);
    }
  }
}

static void l0_extended(void *vctx, const dab_sle *G, int size) {
  (void)size;
  l0_ctx *x = vctx;
  int k = dab_sle_count_chains(G, 1), n = dab_sle_count_chains(G, 2);
  if (!k && !n) return;  /* strict ones are done by l0_strict */
  bool odd = has_odd_loop(G);
  thm_claim *cv = odd ? x->bz5_value_odd : x->bz5_value;
  thm_claim *cm = odd ? x->bz5_move_odd : x->bz5_move;
  char b[160];
  int v = dab_sle_v_rec(G);
  int fast = dab_sle_v(G);
  THM_CASE(x->lib, fast == v, "G=%s: dab_sle_value %d, recursion %d", fmt(G, b), fast, v);
  dab_sle C = *G;
  C.nchains = 0;
  for (int i = 0; i < G->nchains; i++)
    if (G->chain[i] >= 3) C.chain[C.nchains++] = G->chain[i];
  int vc = dab_sle_v_rec(&C);
  int pred = dab_sle_bz5(vc, k, n);
  THM_CASE(cv, pred == v, "G=%s: v(C)=%d k=%d n=%d predicts %d, v=%d", fmt(G, b), vc, k, n, pred,
           v);
  bool has_short;
  dab_sle_comp X = dab_sle_bz_open(G, &has_short);
  int ov = dab_sle_open_value(X, v_without(G, X));
  THM_CASE(cm, ov == v, "G=%s: handing out a %d-chain is worth %d, v=%d", fmt(G, b), X.len, ov,
           v);
}

static const char *const l0_part[L0_N] = {
    "c>=2 => v=c",
    "closed form V",
    "opening rule optimal",
    "v>=0",
    "v = |G| mod 2",
    "v>=c",
    "c<=1 => v<=4",
    "|dv| <= d when a length changes by d",
    "a shortest chain/loop is an optimal opening",
    "c=0, 4-loop => v=0 except 3+3+L4",
    "old bonus: c_old>=2 => v=c_old",
    "open 3-chain/shortest loop/shortest chain",
};
static const char *const l0_id[L0_N] = {"BC", "V",  "AL", "B4",  "B4",     "B4",
                                        "B4", "B4", "B4", "BZ3", "OLD-TB", "STD-OPEN"};

dab_status thm_level0(const thm_opts *o, thm_report *rep, dab_err *err) {
  l0_ctx x;
  memset(&x, 0, sizeof x);
  x.max = o->max_boxes0;
  int maxe = o->max_boxes0_ext ? o->max_boxes0_ext : (o->max_boxes0 < 26 ? o->max_boxes0 : 26);
  for (int i = 0; i < L0_N; i++) {
    int expect = i == L0_OLDTB || i == L0_STDOPEN ? THM_FAIL : THM_HOLD;
    x.board[i] = thm_claim_new(rep, l0_id[i], l0_part[i], "SLE, even loops", 0, "boxes",
                               o->max_boxes0, expect);
  }
  for (int i = 0; i < L0_N; i++) {
    int expect = i == L0_OLDTB || i == L0_STDOPEN ? THM_FAIL : THM_INFO;
    x.odd[i] = thm_claim_new(rep, l0_id[i], l0_part[i], "SLE with an odd loop", 0, "boxes",
                             o->max_boxes0, expect);
  }
  x.bz5_value = thm_claim_new(rep, "BZ5", "v from v(C) and parities", "ext. SLE, even loops", 0,
                              "boxes", maxe, THM_HOLD);
  x.bz5_move = thm_claim_new(rep, "BZ5", "hand out 1-chains, then 2-chains",
                             "ext. SLE, even loops", 0, "boxes", maxe, THM_HOLD);
  x.bz5_value_odd = thm_claim_new(rep, "BZ5", "v from v(C) and parities",
                                  "ext. SLE with an odd loop", 0, "boxes", maxe, THM_INFO);
  x.bz5_move_odd = thm_claim_new(rep, "BZ5", "hand out 1-chains, then 2-chains",
                                 "ext. SLE with an odd loop", 0, "boxes", maxe, THM_INFO);
  x.lib = thm_claim_new(rep, "LIB", "dab_sle_value (fast path) = recursion", "ext. SLE, loops >= 4",
                        0, "boxes", o->max_boxes0, THM_HOLD);
  int first = rep->n - 5 - 2 * L0_N;
  double t0 = thm_now();
  sle_enum e = {.max = o->max_boxes0, .min_chain = 3, .min_loop = 4, .fn = l0_strict, .ctx = &x,
                .cancel = o->cancel, .progress = o->progress, .progress_ctx = o->progress_ctx,
                .what = "level 0: SLEs"};
  if (!sle_enumerate(&e)) return dab_fail(err, DAB_ECANCELED, "canceled");
  double t1 = thm_now();
  sle_enum e2 = {.max = maxe, .min_chain = 1, .min_loop = 4, .fn = l0_extended, .ctx = &x,
                 .cancel = o->cancel, .progress = o->progress, .progress_ctx = o->progress_ctx,
                 .what = "level 0: extended SLEs"};
  if (!sle_enumerate(&e2)) return dab_fail(err, DAB_ECANCELED, "canceled");
  double t2 = thm_now();
  for (int i = first; i < rep->n; i++)
    rep->c[i].seconds = rep->c[i].id[0] == 'B' && rep->c[i].id[1] == 'Z' && rep->c[i].id[2] == '5'
                            ? t2 - t1
                            : t1 - t0;
  x.lib->seconds = t2 - t0;
  return DAB_OK;
}

/* ---- Level 1 -------------------------------------------------------- */

typedef struct l1_ctx {
  dab_cs *cs;
  thm_claim *rec, *al, *stdopen, *b3_rule, *b3_lines, *bz5_move, *oldtb, *l3;
  bool oom;
} l1_ctx;

/* Game value (theory-free) of G for the player to move. */
static int game_value(dab_cs *cs, const dab_sle *G, int guess) {
  dab_cs_pos p;
  if (!dab_cs_from_sle(G, &p)) return DAB_SLE_BAD;
  int w = dab_cs_normalize(&p);
  return w + dab_cs_value(cs, &p, guess - w);
}

/* Best value for the mover among the cuts inside component X of G. */
static int best_cut_in(dab_cs *cs, const dab_sle *G, dab_sle_comp X, int guess) {
  dab_cs_pos p;
  dab_cs_from_sle(G, &p);
  dab_cs_normalize(&p);
  static __thread dab_cs_move moves[2 * DAB_CS_MAX_COINS + DAB_CS_MAX_COMP];
  int nm = dab_cs_moves(&p, moves);
  uint8_t code = dab_cs_code(X.len, X.kind == DAB_SLE_LOOP ? DAB_CS_CYCLE : DAB_CS_GG);
  int best = -1000;
  for (int i = 0; i < nm; i++) {
    if (p.code[moves[i].comp] != code) continue;
    int mv = dab_cs_move_value(cs, &moves[i], guess);
    if (mv > best) best = mv;
  }
  return best;
}

static void l1_fn(void *vctx, const dab_sle *G, int size) {
  (void)size;
  l1_ctx *x = vctx;
  char b[160], b2[16];
  int v = dab_sle_v_rec(G);
  int gv = game_value(x->cs, G, -v);
  THM_CASE(x->rec, gv == -v, "G=%s: recursion v=%d, game value %+d (so v=%d)", fmt(G, b), v, gv,
           -gv);
  if (!G->nchains && !G->nloops) return;
  bool strict = dab_sle_is_strict(G), odd = has_odd_loop(G);
  if (strict && !odd) {
    int rule;
    dab_sle_comp X = dab_sle_allcock(G, &rule);
    int bv = best_cut_in(x->cs, G, X, gv);
    THM_CASE(x->al, bv == gv, "G=%s: rule %d opens %s, best cut there %+d, game %+d", fmt(G, b),
             rule, comp_name(X, b2), bv, gv);
    X = dab_sle_standard_open(G);
    bv = best_cut_in(x->cs, G, X, gv);
    THM_CASE(x->stdopen, bv == gv, "G=%s: opening %s, best cut there %+d, game %+d", fmt(G, b),
             comp_name(X, b2), bv, gv);
    int cold = dab_sle_fcv(G) + dab_sle_tb_old(G);
    if (cold >= 2)
      THM_CASE(x->oldtb, -gv == cold, "G=%s: old-bonus c=%d, game v=%d", fmt(G, b), cold, -gv);
  }
  bool has_short;
  dab_sle_comp S = dab_sle_bz_open(G, &has_short);
  if (has_short) {
    int bv = best_cut_in(x->cs, G, S, gv);
    THM_CASE(x->bz5_move, bv == gv, "G=%s: best hand-out of a %d-chain %+d, game %+d", fmt(G, b),
             S.len, bv, gv);
  }
  /* B3: each distinct long component X, opened (a chain at its end, a
  ** loop anywhere); the controller to move. */
  for (int k = 0; k < 2; k++) {
    int n = k ? G->nloops : G->nchains;
    const int16_t *len = k ? G->loop : G->chain;
    for (int i = 0; i < n; i++) {
      if (i && len[i] == len[i - 1]) continue;
      if (!k && len[i] < 3) continue;
      dab_sle_comp X = {(int8_t)k, len[i]};
      dab_sle R;
      dab_sle_remove(G, k, len[i], &R);
      int vr = dab_sle_v_rec(&R);
      int gr = game_value(x->cs, &R, -vr);
      dab_cs_pos P;
      dab_cs_from_sle(&R, &P);
      P.code[P.n++] = dab_cs_code(len[i], k ? DAB_CS_FF : DAB_CS_GF);
      int w = dab_cs_normalize(&P);
      int a = len[i];
      int keep = k ? a - 8 - gr : a - 4 - gr;
      int take = a + gr;
      int best = keep > take ? keep : take;
      int vp = w + dab_cs_value(x->cs, &P, best - w);
      THM_CASE(x->b3_lines, vp == best,
               "G=%s, %s opened: controller's value %+d, but keep %+d / take all %+d", fmt(&R, b),
               comp_name(X, b2), vp, keep, take);
      bool keep_opt = keep == vp;
      THM_CASE(x->b3_rule, keep_opt == dab_sle_keep_control(X, -gr),
               "G'=%s, %s opened, v(G')=%d: keeping control %s optimal", fmt(&R, b),
               comp_name(X, b2), -gr, keep_opt ? "is" : "is not");
    }
  }
}

static void l1_l3(void *vctx, const dab_sle *G, int size) {
  (void)size;
  l1_ctx *x = vctx;
  if (!dab_sle_count_loops(G, 3)) return;
  char b[160];
  int v = dab_sle_v_rec(G);
  int gv = game_value(x->cs, G, -v);
  THM_CASE(x->l3, gv == -v, "G=%s: recursion v=%d, game v=%d", fmt(G, b), v, -gv);
}

dab_status thm_level1(const thm_opts *o, thm_report *rep, dab_err *err) {
  int max = o->max_boxes1 > DAB_CS_MAX_COINS ? DAB_CS_MAX_COINS : o->max_boxes1;
  int max3 = o->max_boxes1_l3 ? o->max_boxes1_l3 : (max < 16 ? max : 16);
  if (max3 > max) max3 = max;
  l1_ctx x = {0};
  x.cs = dab_cs_new(0);
  if (!x.cs) return dab_fail(err, DAB_ENOMEM, "out of memory for the component solver");
  x.rec = thm_claim_new(rep, "REC", "recursion = game value", "ext. SLE, loops >= 4", 1, "boxes",
                        max, THM_HOLD);
  x.al = thm_claim_new(rep, "AL", "opening rule optimal (string cuts)", "SLE, even loops", 1,
                       "boxes", max, THM_HOLD);
  x.b3_rule = thm_claim_new(rep, "B3", "keep control optimal iff v(G')>=2 / >=4",
                            "ext. SLE, loops >= 4", 1, "boxes", max, THM_HOLD);
  x.b3_lines = thm_claim_new(rep, "B3", "take all or keep control is optimal",
                             "ext. SLE, loops >= 4", 1, "boxes", max, THM_HOLD);
  x.bz5_move = thm_claim_new(rep, "BZ5", "hand out 1-chains, then 2-chains (string cuts)",
                             "ext. SLE, loops >= 4", 1, "boxes", max, THM_HOLD);
  x.stdopen = thm_claim_new(rep, "STD-OPEN", "open 3-chain/shortest loop/shortest chain",
                            "SLE, even loops", 1, "boxes", max, THM_FAIL);
  x.oldtb = thm_claim_new(rep, "OLD-TB", "old bonus: c_old>=2 => v=c_old", "SLE, even loops", 1,
                          "boxes", max, THM_FAIL);
  x.l3 = thm_claim_new(rep, "L3", "recursion = game value with 3-loops",
                       "ext. SLE with a 3-loop", 1, "boxes", max3, THM_FAIL);
  int first = rep->n - 8;
  double t0 = thm_now();
  sle_enum e = {.max = max, .min_chain = 1, .min_loop = 4, .fn = l1_fn, .ctx = &x,
                .cancel = o->cancel, .progress = o->progress, .progress_ctx = o->progress_ctx,
                .what = "level 1: string game"};
  bool ok = sle_enumerate(&e);
  double t1 = thm_now();
  sle_enum e3 = {.max = max3, .min_chain = 1, .min_loop = 3, .fn = l1_l3, .ctx = &x,
                 .cancel = o->cancel, .progress = o->progress, .progress_ctx = o->progress_ctx,
                 .what = "level 1: 3-loops"};
  if (ok) ok = sle_enumerate(&e3);
  double t2 = thm_now();
  for (int i = first; i < rep->n; i++) rep->c[i].seconds = t1 - t0;
  x.l3->seconds = t2 - t1;
  dab_cs_free(x.cs);
  if (!ok) return dab_fail(err, DAB_ECANCELED, "canceled");
  return DAB_OK;
}

/* ---- Level 2 -------------------------------------------------------- */

/* xorshift64*: the checker's only randomness, seeded by the options. */
static uint64_t rnd(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}
static int rnd_below(uint64_t *s, int n) { return (int)(rnd(s) % (uint64_t)n); }

/* Appends a chain (n coins, both ends on the ground) or a cycle. */
static bool sg_add_path(dab_sg *g, int n, bool ground0, bool ground1, bool cycle) {
  int base = g->ncoins;
  if (base + n > DAB_SG_MAX_COINS) return false;
  if (cycle) {
    for (int i = 0; i < n; i++)
      if (dab_sg_add(g, base + i, base + (i + 1) % n) < 0) return false;
    return true;
  }
  if (ground0 && dab_sg_add(g, -1, base) < 0) return false;
  for (int i = 0; i + 1 < n; i++)
    if (dab_sg_add(g, base + i, base + i + 1) < 0) return false;
  if (ground1 && dab_sg_add(g, base + n - 1, -1) < 0) return false;
  g->ncoins = base + n;  /* a lone free coin still counts */
  return true;
}

static bool sg_from_sle(const dab_sle *G, dab_sg *g) {
  memset(g, 0, sizeof *g);
  for (int i = 0; i < G->nchains; i++)
    if (!sg_add_path(g, G->chain[i], true, true, false)) return false;
  for (int i = 0; i < G->nloops; i++)
    if (!sg_add_path(g, G->loop[i], false, false, true)) return false;
  return true;
}

static int sle_strings(const dab_sle *G) {
  return dab_sle_size(G) + G->nchains;
}

typedef struct l2_ctx {
  int max_strings;
  thm_claim *win, *nim;
  bool oom;
} l2_ctx;

static void l2_sle(void *vctx, const dab_sle *G, int size) {
  (void)size;
  l2_ctx *x = vctx;
  if (x->oom || sle_strings(G) > x->max_strings) return;
  dab_sg g;
  if (!sg_from_sle(G, &g)) return;
  dab_sgs *s;
  if (dab_sgs_new(&g, &s, NULL) != DAB_OK) {
    x->oom = true;
    return;
  }
  char b[160];
  int odd = (dab_sle_count_chains(G, 1) + dab_sle_count_chains(G, 2) + dab_sle_count_loops(G, 3)) & 1;
  bool w = dab_sgs_win(s, dab_sg_full(&g));
  THM_CASE(x->win, w == (bool)odd, "G=%s: mover %s, rule says %s", fmt(G, b), w ? "wins" : "loses",
           odd ? "wins" : "loses");
  int nim = dab_sgs_nimber(s, dab_sg_full(&g));
  THM_CASE(x->nim, nim == dab_sle_nimber(G), "G=%s: nimber %d, XOR of component nimbers %d",
           fmt(G, b), nim, dab_sle_nimber(G));
  dab_sgs_free(s);
}

/* A random connected-ish graph with junctions: coins of degree <= 4, at
** least one of degree >= 3 when possible, strings to the ground. */
static void random_graph(uint64_t *rs, int nstrings, dab_sg *g) {
  memset(g, 0, sizeof *g);
  int ncoins = 2 + rnd_below(rs, nstrings / 2);
  int deg[DAB_SG_MAX_COINS] = {0};
  g->ncoins = ncoins;
  for (int tries = 0; g->nstrings < nstrings && tries < 1000; tries++) {
    int a = rnd_below(rs, ncoins + 1) - 1, b = rnd_below(rs, ncoins + 1) - 1;
    if (a == b || (a >= 0 && deg[a] >= 4) || (b >= 0 && deg[b] >= 4)) continue;
    if (a < 0 && b < 0) continue;
    dab_sg_add(g, a, b);
    if (a >= 0) deg[a]++;
    if (b >= 0) deg[b]++;
  }
  g->ncoins = ncoins;
}

/* True when no coin has exactly one string in mask. */
static bool no_capturable(const dab_sg *g, uint32_t mask) {
  int deg[DAB_SG_MAX_COINS] = {0};
  for (int i = 0; i < g->nstrings; i++)
    if (mask >> i & 1)
      for (int k = 0; k < 2; k++)
        if (g->end[i][k] >= 0) deg[g->end[i][k]]++;
  for (int c = 0; c < g->ncoins; c++)
    if (deg[c] == 1) return false;
  return true;
}

static bool has_junction(const dab_sg *g, uint32_t mask) {
  int deg[DAB_SG_MAX_COINS] = {0};
  for (int i = 0; i < g->nstrings; i++)
    if (mask >> i & 1)
      for (int k = 0; k < 2; k++)
        if (g->end[i][k] >= 0) deg[g->end[i][k]]++;
  for (int c = 0; c < g->ncoins; c++)
    if (deg[c] >= 3) return true;
  return false;
}

/* A random union of paths (ends on the ground or free) and cycles. */
static void random_paths(uint64_t *rs, int max_strings, dab_sg *g, dab_cs_pos *p) {
  memset(g, 0, sizeof *g);
  p->n = 0;
  for (;;) {
    int type = rnd_below(rs, 4), n = 1 + rnd_below(rs, 6);
    if (type == DAB_CS_CYCLE && n < 3) n = 3;
    if (type == DAB_CS_FF && n < 2) n = 2;
    int strings = type == DAB_CS_GG ? n + 1 : type == DAB_CS_GF ? n : type == DAB_CS_FF ? n - 1 : n;
    if (g->nstrings + strings > max_strings || p->n >= DAB_CS_MAX_COMP) break;
    sg_add_path(g, n, type != DAB_CS_FF, type == DAB_CS_GG, type == DAB_CS_CYCLE);
    p->code[p->n++] = dab_cs_code(n, type);
  }
}

dab_status thm_level2(const thm_opts *o, thm_report *rep, dab_err *err) {
  int maxs = o->max_strings2 > DAB_SG_MAX_STRINGS ? DAB_SG_MAX_STRINGS : o->max_strings2;
  l2_ctx x = {.max_strings = maxs};
  x.win = thm_claim_new(rep, "N", "mover wins iff #1,2-chains + #3-loops odd",
                        "ext. SLE with 3-loops", 2, "strings", maxs, THM_HOLD);
  x.nim = thm_claim_new(rep, "N", "nimber = XOR of component nimbers",
                        "ext. SLE with 3-loops", 2, "strings", maxs, THM_HOLD);
  thm_claim *mex = thm_claim_new(rep, "N", "mex rule", "graphs with junctions", 2, "strings", maxs,
                                 THM_HOLD);
  thm_claim *xr = thm_claim_new(rep, "N", "XOR of disjoint sums", "graphs with junctions", 2,
                                "strings", maxs, THM_HOLD);
  thm_claim *xs = thm_claim_new(rep, "SOLVERS", "graph solver = component solver (scoring)",
                                "paths and cycles", 2, "strings", maxs, THM_HOLD);
  double t0 = thm_now();
  /* Every extended SLE (with 3-loops) that fits maxs strings: boxes <= maxs. */
  sle_enum e = {.max = maxs, .min_chain = 1, .min_loop = 3, .fn = l2_sle, .ctx = &x,
                .cancel = o->cancel, .progress = o->progress, .progress_ctx = o->progress_ctx,
                .what = "level 2: Nimstring"};
  if (!sle_enumerate(&e)) return dab_fail(err, DAB_ECANCELED, "canceled");
  if (x.oom) return dab_fail(err, DAB_ENOMEM, "out of memory in the graph solver");
  double t1 = thm_now();
  x.win->seconds = x.nim->seconds = t1 - t0;

  uint64_t rs = o->seed * 0x9e3779b97f4a7c15ull + 1;
  char b[200];
  for (int gi = 0; gi < o->graphs2; gi++) {
    if (o->cancel && *o->cancel) return dab_fail(err, DAB_ECANCELED, "canceled");
    /* Mex rule on one random graph with junctions: sampled positions. */
    dab_sg g;
    random_graph(&rs, maxs - rnd_below(&rs, 4), &g);
    dab_sgs *s;
    if (dab_sgs_new(&g, &s, err) != DAB_OK) return DAB_ENOMEM;
    uint32_t full = dab_sg_full(&g);
    for (int k = 0; k < 24; k++) {
      uint32_t m = k ? (uint32_t)rnd(&rs) & full : full;
      if (!no_capturable(&g, m) || !has_junction(&g, m)) continue;
      int nm = dab_sgs_nimber(s, m);
      unsigned seen = 0;
      for (uint32_t r = m; r; r &= r - 1) {
        int c = dab_sgs_nimber(s, m & ~(r & -r));
        if (c >= 0) seen |= 1u << c;
      }
      int mx = 0;
      while (seen >> mx & 1) mx++;
      THM_CASE(mex, nm == mx, "graph %d (%d strings) mask %#x: nimber %d, mex of options %d", gi,
               g.nstrings, m, nm, mx);
    }
    dab_sgs_free(s);
    /* XOR: two random graphs side by side. */
    dab_sg a, bg;
    int sa = 3 + rnd_below(&rs, maxs / 2 - 2);
    random_graph(&rs, sa, &a);
    random_graph(&rs, maxs - sa, &bg);
    dab_sg u = a;
    bool fits = dab_sg_append(&u, &bg);
    if (fits && dab_sgs_new(&u, &s, err) != DAB_OK) return DAB_ENOMEM; /* not a case skipped */
    if (fits) {
      uint32_t ma = dab_sg_full(&a), mb = dab_sg_full(&u) & ~ma;
      for (int k = 0; k < 8; k++) {
        uint32_t pa = k ? (uint32_t)rnd(&rs) & ma : ma, pb = k ? (uint32_t)rnd(&rs) & mb : mb;
        if (!no_capturable(&u, pa | pb)) continue;
        int na = dab_sgs_nimber(s, pa), nb = dab_sgs_nimber(s, pb), nu = dab_sgs_nimber(s, pa | pb);
        THM_CASE(xr, nu == (na ^ nb) && na >= 0 && nb >= 0,
                 "graphs %d: nim(A)=%d nim(B)=%d nim(A+B)=%d", gi, na, nb, nu);
      }
      dab_sgs_free(s);
    }
    /* Scoring: the two solvers on a random union of paths and cycles. */
    dab_cs_pos p;
    random_paths(&rs, maxs, &g, &p);
    if (dab_sgs_new(&g, &s, err) != DAB_OK) return DAB_ENOMEM;
    dab_cs *cs = dab_cs_new(1 << 20);
    if (!cs) {
      dab_sgs_free(s);
      return dab_fail(err, DAB_ENOMEM, "out of memory for the component solver");
    }
    int gv = dab_sgs_value(s, dab_sg_full(&g));
    dab_cs_pos q = p;
    int w = dab_cs_normalize(&q);
    int cv = w + dab_cs_value(cs, &q, gv - w);
    THM_CASE(xs, gv == cv, "%s: graph solver %+d, component solver %+d", dab_cs_format(&p, b, sizeof b), gv,
             cv);
    dab_cs_free(cs);
    dab_sgs_free(s);
  }
  double t2 = thm_now();
  mex->seconds = xr->seconds = xs->seconds = t2 - t1;
  return DAB_OK;
}
