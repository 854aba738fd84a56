/*
** thm_board.c: checker levels 3-4: SLE theorems on real boards (exhaustive
** retrograde tables, constructed 4x4/5x5 positions), the long chain rule
** and the turn identity on played games, and the non-SLE error table.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "game/postext.h"
#include "game/sc.h"
#include "solver/retro.h"
#include "theorems/graphsolve.h"
#include "theorems/sle.h"
#include "verify/thm_check.h"

static uint64_t rnd(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ull;
}
static int rnd_below(uint64_t *s, int n) { return (int)(rnd(s) % (uint64_t)n); }

/* Boards the exhaustive levels visit, smallest first (rows <= cols). */
static const int boards[][2] = {{1, 1}, {1, 2}, {1, 3}, {2, 2}, {1, 4}, {1, 5},
                                {2, 3}, {2, 4}, {3, 3}, {3, 4}};
#define NBOARDS (int)(sizeof boards / sizeof *boards)

static int board_lines(int r, int c) { return r * (c + 1) + c * (r + 1); }

static const char *dbn(const dab_geom *g, uint64_t p, char *buf, size_t len) {
  dab_lineset s = dab_ls_from_word(p);
  return dab_format_dbn(g, &s, buf, len);
}

static dab_status solve_board(const thm_opts *o, const dab_geom *g, uint64_t root, bool plain,
                              dab_retro **out, dab_err *err) {
  dab_retro_opts ro = {0};
  ro.threads = o->threads;
  ro.plain = plain;
  ro.progress = o->progress;
  ro.progress_ctx = o->progress_ctx;
  ro.cancel = o->cancel;
  return dab_retro_solve(g, root, &ro, out, err);
}

/* ---- Games ---------------------------------------------------------- */

typedef struct game_claims {
  thm_claim *b1, *b2, *b2_dx, *b2_spec;
} game_claims;

/*
** Plays one game from the empty board: optimally (random choice among the
** best moves of table r) when r is non-NULL, else uniformly at random.
** Checks B2 at every strict SLE position met (when the claims are set)
** and B1 at the end.
*/
static void play_game(const dab_geom *g, const dab_retro *r, uint64_t *rs, game_claims *gc) {
  uint64_t p = 0;
  int to_move = 0, turns = 1, dx = 0, ncomplete_moves = 0;
  int dots = (g->rows + 1) * (g->cols + 1);
  static __thread dab_analysis a;
  char buf[128];
  for (int n = 0; n < g->nlines; n++) {
    if (gc->b2) {
      dab_lineset s = dab_ls_from_word(p);
      int16_t ch[DAB_MAX_BOXES], lp[DAB_MAX_BOXES];
      int nc, nl;
      if (dab_sle_from_position(g, &s, false, ch, &nc, lp, &nl) && nc + nl > 0) {
        bool first_controls = to_move == 1;
        bool rule = (dots + nc) % 2 == 0;
        bool rule_dx = (dots + nc + dx) % 2 == 0;
        if (dx % 2 == 0)
          THM_CASE(gc->b2, first_controls == rule, "%s: first player %s control, Dots+chains=%d",
                   dbn(g, p, buf, sizeof buf), first_controls ? "has" : "lacks", dots + nc);
        if (gc->b2_dx)
          THM_CASE(gc->b2_dx, first_controls == rule_dx,
                 "%s: first player %s control, Dots+chains+D=%d", dbn(g, p, buf, sizeof buf),
                 first_controls ? "has" : "lacks", dots + nc + dx);
        if (gc->b2_spec)
          THM_CASE(gc->b2_spec, first_controls == rule,
                 "%s: %d doublecross(es) so far; first player %s control, Dots+chains=%d",
                 dbn(g, p, buf, sizeof buf), dx, first_controls ? "has" : "lacks", dots + nc);
      }
    }
    int m;
    if (r) {
      dab_retro_analyze(r, p, &a, NULL);
      m = a.best[rnd_below(rs, a.nbest)];
    } else {
      int k = rnd_below(rs, g->nlines - n);
      uint64_t freel = g->all_lines & ~p;
      while (k--) freel &= freel - 1;
      m = __builtin_ctzll(freel);
    }
    int k = dab64_completes(g, p, m);
    p |= 1ull << m;
    if (k == 2) dx++;
    if (k) ncomplete_moves++;
    else if (n + 1 < g->nlines) {
      to_move ^= 1;
      turns++;
    }
  }
  if (gc->b1) {
    int S = g->nlines, C = g->nboxes;
    THM_CASE(gc->b1, turns == S - C + dx + 1 && turns == dots + dx,
             "%dx%d game: %d turns, S-C+D+1 = %d, Dots+D = %d", g->rows, g->cols, turns,
             S - C + dx + 1, dots + dx);
  }
  (void)ncomplete_moves;
}

/* B1 on a Strings-and-Coins graph: random cuts until no string is left.
** RETURN: DAB_OK; DAB_ENOMEM (no case counted: the caller must say so). */
static dab_status play_sc_game(const dab_sg *g, uint64_t *rs, thm_claim *b1, dab_err *err) {
  dab_sgs *s;
  if (dab_sgs_new(g, &s, err) != DAB_OK) return DAB_ENOMEM;
  uint32_t mask = dab_sg_full(g);
  int C = dab_sg_coins_left(g, mask), S = g->nstrings;
  int turns = 1, dx = 0, left = S;
  while (mask) {
    int k = rnd_below(rs, left), i = -1;
    for (uint32_t m = mask; m; m &= m - 1)
      if (k-- == 0) {
        i = __builtin_ctz(m);
        break;
      }
    int cap = dab_sgs_captures(s, mask, i);
    mask &= ~(1u << i);
    left--;
    if (cap == 2) dx++;
    if (!cap && mask) turns++;
  }
  if (C >= 1)
    THM_CASE(b1, turns == S - C + dx + 1, "S&C game: S=%d C=%d D=%d, %d turns", S, C, dx, turns);
  dab_sgs_free(s);
  return DAB_OK;
}

/* ---- Level 3 -------------------------------------------------------- */

static thm_errrow *err_row(thm_report *rep, const dab_geom *g, int junctions) {
  char name[8];
  snprintf(name, sizeof name, "%dx%d", g->rows, g->cols);
  if (junctions > 3) junctions = 3;
  for (int i = 0; i < rep->nerr; i++)
    if (!strcmp(rep->err[i].board, name) && rep->err[i].junctions == junctions) return &rep->err[i];
  if (rep->nerr >= THM_MAX_ERRROWS) return NULL;
  thm_errrow *e = &rep->err[rep->nerr++];
  memset(e, 0, sizeof *e);
  snprintf(e->board, sizeof e->board, "%s", name);
  e->junctions = junctions;
  return e;
}

/* Every position of table r: SLEs against -v(G); loony non-SLE endgames
** into the error table. */
static void scan_table(const dab_retro *r, thm_claim *board, thm_report *rep) {
  const dab_geom *g = &r->geom;
  char buf[128];
  static __thread dab_sc_view v;
  for (uint64_t p = 0; p < r->count; p++) {
    if (dab64_three_sided(g, p)) continue;
    bool sle = true;
    uint64_t two = 0;
    int junctions = 0;
    for (int b = 0; b < g->nboxes; b++) {
      int sides = dab64_sides(g, p, b);
      if (sides == 2) two |= g->box_mask[b];
      else if (sides != 4) {
        sle = false;
        junctions++;
      }
    }
    int value = r->value[p];
    if (sle) {
      dab_lineset s = dab_ls_from_word(p);
      int16_t ch[DAB_MAX_BOXES], lp[DAB_MAX_BOXES];
      int nc, nl;
      if (!dab_sle_from_position(g, &s, true, ch, &nc, lp, &nl)) {
        THM_CASE(board, false, "%s: bridge refused a position of degree-2 boxes",
                 dbn(g, p, buf, sizeof buf));
        continue;
      }
      int vg = dab_sle_value(ch, nc, lp, nl);
      THM_CASE(board, value == -vg, "%s: board value %+d, -v(G) = %+d",
               dbn(g, p, buf, sizeof buf), value, -vg);
      continue;
    }
    /* Loony endgame: every undrawn line touches a box with two sides. */
    if ((g->all_lines & ~p & ~two) != 0) continue;
    dab_lineset s = dab_ls_from_word(p);
    dab_sc_analyze(g, &s, &v);
    /* Pretend: each run of degree-2 boxes is a chain (a cycle a loop),
    ** and each junction box joins the longest run that ends at it (or is
    ** a 1-chain when none does), so that every box is counted once. */
    int16_t ch[DAB_MAX_BOXES], lp[DAB_MAX_BOXES], seglen[DAB_MAX_BOXES];
    int nc = 0, nl = 0;
    for (int i = 0; i < v.nseg; i++) seglen[i] = v.seg[i].length;
    for (int b = 0; b < g->nboxes; b++) {
      if (v.degree[b] < 3) continue;
      int best = -1;
      for (int i = 0; i < v.nseg; i++)
        if ((v.seg[i].end_box[0] == b || v.seg[i].end_box[1] == b) &&
            (best < 0 || seglen[i] > seglen[best]))
          best = i;
      if (best >= 0) seglen[best]++;
      else ch[nc++] = 1;
    }
    for (int i = 0; i < v.nseg; i++) {
      if (v.seg[i].end[0] == DAB_END_NONE) lp[nl++] = seglen[i];
      else ch[nc++] = seglen[i];
    }
    int pred = -dab_sle_value(ch, nc, lp, nl);
    int e = value > pred ? value - pred : pred - value;
    thm_errrow *row = err_row(rep, g, junctions);
    if (!row) continue;
    row->positions++;
    row->exact += e == 0;
    row->same_winner += (value > 0) - (value < 0) == (pred > 0) - (pred < 0);
    row->abs_err_sum += (uint64_t)e;
    if (e > row->max_err) row->max_err = e;
  }
}

/*
** A random SLE position on g: rectangle rings (loops) and self-avoiding
** box paths from the border to the border (chains), every other line
** drawn.  RETURN: the position, or 0 if this attempt failed.
*/
static uint64_t construct_sle(const dab_geom *g, uint64_t *rs, int max_free) {
  uint64_t undrawn = 0;
  bool used[DAB_MAX_BOXES] = {false};
  int R = g->rows, C = g->cols;
  int nloops = rnd_below(rs, 3);
  for (int l = 0; l < nloops; l++) {
    int h = 2 + rnd_below(rs, R - 1), w = 2 + rnd_below(rs, C - 1);
    if (h > R || w > C) continue;
    int r0 = rnd_below(rs, R - h + 1), c0 = rnd_below(rs, C - w + 1);
    bool clash = false;
    for (int r = r0; r < r0 + h; r++)
      for (int c = c0; c < c0 + w; c++) clash |= used[r * C + c];
    if (clash) continue;
    for (int r = r0; r < r0 + h; r++)
      for (int c = c0; c < c0 + w; c++) used[r * C + c] = true;
    /* Ring lines: between consecutive boxes along the rectangle's edge. */
    for (int c = c0; c + 1 < c0 + w; c++) {
      undrawn |= 1ull << g->box_line[r0 * C + c][DAB_SIDE_RIGHT];
      undrawn |= 1ull << g->box_line[(r0 + h - 1) * C + c][DAB_SIDE_RIGHT];
    }
    for (int r = r0; r + 1 < r0 + h; r++) {
      undrawn |= 1ull << g->box_line[r * C + c0][DAB_SIDE_BOTTOM];
      undrawn |= 1ull << g->box_line[r * C + c0 + w - 1][DAB_SIDE_BOTTOM];
    }
  }
  int nchains = 1 + rnd_below(rs, 5);
  for (int k = 0; k < nchains; k++) {
    /* Start at a free border box, through one of its border lines. */
    int b = rnd_below(rs, g->nboxes);
    if (used[b] || !g->box_border[b]) continue;
    int entry = -1;
    for (int s = 0; s < 4; s++) {
      int m = g->box_line[b][s];
      if (g->line_box[m][0] < 0 || g->line_box[m][1] < 0) {
        entry = m;
        if (rnd_below(rs, 2)) break;
      }
    }
    uint64_t chain = 1ull << entry;
    bool on[DAB_MAX_BOXES] = {false};
    on[b] = true;
    int len = 1, target = 1 + rnd_below(rs, 8);
    bool closed = false;
    for (int step = 0; step < 40 && !closed; step++) {
      /* Try to leave through another border line once long enough. */
      if (len >= target) {
        for (int s = 0; s < 4; s++) {
          int m = g->box_line[b][s];
          if (m != entry && !(chain >> m & 1) &&
              (g->line_box[m][0] < 0 || g->line_box[m][1] < 0)) {
            chain |= 1ull << m;
            closed = true;
            break;
          }
        }
        if (closed) break;
      }
      int s = rnd_below(rs, 4), m = g->box_line[b][s];
      int n = dab_sc_across(g, b, m);
      if (n < 0 || used[n] || on[n]) continue;
      /* Only m is undrawn between n and the chain: any other line n
      ** shares with the chain stays drawn, so n has degree 2 again. */
      chain |= 1ull << m;
      on[n] = true;
      b = n;
      entry = m;
      len++;
    }
    if (!closed) continue;
    for (int i = 0; i < g->nboxes; i++)
      if (on[i]) used[i] = true;
    undrawn |= chain;
  }
  if (!undrawn || __builtin_popcountll(undrawn) > max_free) return 0;
  uint64_t p = g->all_lines & ~undrawn;
  dab_lineset s = dab_ls_from_word(p);
  int16_t ch[DAB_MAX_BOXES], lp[DAB_MAX_BOXES];
  int nc, nl;
  if (!dab_sle_from_position(g, &s, true, ch, &nc, lp, &nl)) return 0;
  return p;
}

/* The graph solver (junctions and all) against a board table: every
** position of the table is a string mask of the empty board's graph.
** RETURN: DAB_OK; the graph solver's error (no case counted). */
static dab_status graph_vs_table(const dab_retro *r, thm_claim *cl, dab_err *err) {
  const dab_geom *g = &r->geom;
  dab_lineset empty = {{0}};
  dab_sg sg;
  int16_t line_of[DAB_SG_MAX_STRINGS];
  dab_sgs *s;
  dab_status st = dab_sg_from_board(g, &empty, &sg, line_of, err);
  if (!st) st = dab_sgs_new(&sg, &s, err);
  if (st) return st;
  char buf[128];
  for (uint64_t p = 0; p < r->count; p++) {
    uint32_t mask = 0;
    for (int i = 0; i < sg.nstrings; i++)
      if (!(p >> line_of[i] & 1)) mask |= 1u << i;
    int gv = dab_sgs_value(s, mask);
    THM_CASE(cl, gv == r->value[p], "%s: graph solver %+d, retrograde %+d",
             dbn(g, p, buf, sizeof buf), gv, r->value[p]);
  }
  dab_sgs_free(s);
  if (g->nlines > cl->max_size) cl->max_size = g->nlines;
  return DAB_OK;
}

dab_status thm_level3(const thm_opts *o, thm_report *rep, dab_err *err) {
  int maxl = o->max_board_lines, largest = 0;
  char dom[48];
  for (int i = 0; i < NBOARDS; i++)
    if (board_lines(boards[i][0], boards[i][1]) <= maxl) largest = i;
  snprintf(dom, sizeof dom, "every position, 1x1..%dx%d", boards[largest][0], boards[largest][1]);
  thm_claim *board = thm_claim_new(rep, "BOARD", "board value = -v(G) for every SLE position", dom,
                                   3, "lines", board_lines(boards[largest][0], boards[largest][1]),
                                   THM_HOLD);
  thm_claim *cons = thm_claim_new(rep, "BOARD", "constructed SLE: solver value = -v(G)",
                                  "random SLEs on 4x4 and 5x5", 3, "lines", 0, THM_HOLD);
  thm_claim *b2 = thm_claim_new(rep, "B2", "first player controls iff Dots+#chains even",
                                "SLEs met in games, no doublecross yet", 3, "lines", 0, THM_HOLD);
  thm_claim *b2dx = thm_claim_new(rep, "B2", "... iff Dots+#chains+doublecrosses so far even",
                                  "SLEs met in games", 3, "lines", 0, THM_HOLD);
  thm_claim *b2spec = thm_claim_new(rep, "B2", "spec form, ignoring doublecrosses so far",
                                    "SLEs met in random games", 3, "lines", 0, THM_FAIL);
  thm_claim *gvt = thm_claim_new(rep, "SOLVERS", "graph solver = plain retrograde, every position",
                                 "boards up to 20 lines", 3, "lines", 0, THM_HOLD);
  double t0 = thm_now();
  uint64_t rs = o->seed * 0x9e3779b97f4a7c15ull + 3;
  for (int i = 0; i < NBOARDS; i++) {
    dab_geom g;
    int L = board_lines(boards[i][0], boards[i][1]);
    if (L > maxl) continue;
    if (dab_geom_init(&g, boards[i][0], boards[i][1], err) != DAB_OK) return DAB_EINTERNAL;
    dab_retro *r;
    /* Theory-free (plain) tables where cheap; the capture rule beyond. */
    dab_status st = solve_board(o, &g, 0, L <= 24, &r, err);
    if (st != DAB_OK) return st;
    scan_table(r, board, rep);
    if (L <= 20 && (st = graph_vs_table(r, gvt, err)) != DAB_OK) {
      dab_retro_free(r);
      return st;
    }
    game_claims gc = {.b2 = b2, .b2_dx = b2dx};
    for (int k = 0; k < o->games4; k++) play_game(&g, r, &rs, &gc);
    game_claims gr = {.b2 = b2, .b2_dx = b2dx, .b2_spec = b2spec};
    for (int k = 0; k < o->games4; k++) play_game(&g, NULL, &rs, &gr);
    b2->max_size = b2dx->max_size = b2spec->max_size = L;
    dab_retro_free(r);
    if (o->cancel && *o->cancel) return dab_fail(err, DAB_ECANCELED, "canceled");
  }
  double t1 = thm_now();
  board->seconds = b2->seconds = b2dx->seconds = b2spec->seconds = gvt->seconds = t1 - t0;
  /* Constructed SLE positions on 4x4 and 5x5, solved below the position
  ** by the retrograde solver, and by the graph solver when small. */
  int max_free = maxl >= 31 ? 26 : 24;
  for (int k = 0; k < o->constructed3; k++) {
    dab_geom g;
    int side = 4 + (k & 1);
    dab_geom_init(&g, side, side, NULL);
    uint64_t p = 0;
    for (int tries = 0; tries < 200 && !p; tries++) p = construct_sle(&g, &rs, max_free);
    if (!p) continue;
    dab_lineset s = dab_ls_from_word(p);
    int16_t ch[DAB_MAX_BOXES], lp[DAB_MAX_BOXES];
    int nc, nl;
    dab_sle_from_position(&g, &s, true, ch, &nc, lp, &nl);
    int vg = dab_sle_value(ch, nc, lp, nl);
    int nfree = g.nlines - __builtin_popcountll(p);
    dab_retro *r;
    dab_status st = solve_board(o, &g, p, nfree <= 20, &r, err);
    if (st != DAB_OK) return st;
    char buf[128];
    int rv = dab_retro_value(r, p);
    dab_retro_free(r);
    THM_CASE(cons, rv == -vg, "%s: retrograde %+d, -v(G) = %+d", dbn(&g, p, buf, sizeof buf), rv,
             -vg);
    if (nfree <= 20) {
      dab_sg sg;
      dab_sgs *gs;
      if (dab_sg_from_board(&g, &s, &sg, NULL, NULL) == DAB_OK &&
          dab_sgs_new(&sg, &gs, NULL) == DAB_OK) {
        int sv = dab_sgs_value(gs, dab_sg_full(&sg));
        THM_CASE(cons, sv == -vg, "%s: graph solver %+d, -v(G) = %+d",
                 dbn(&g, p, buf, sizeof buf), sv, -vg);
        dab_sgs_free(gs);
      }
    }
    if (nfree > cons->max_size) cons->max_size = nfree;
  }
  cons->seconds = thm_now() - t1;
  return DAB_OK;
}

/* ---- Level 4 -------------------------------------------------------- */

dab_status thm_level4(const thm_opts *o, thm_report *rep, dab_err *err) {
  thm_claim *opt = thm_claim_new(rep, "B1", "turns = S-C+D+1 = Dots+D", "optimal games (retrograde)",
                                 4, "lines", 0, THM_HOLD);
  thm_claim *ran = thm_claim_new(rep, "B1", "turns = S-C+D+1 = Dots+D", "random games up to 5x5",
                                 4, "lines", 0, THM_HOLD);
  thm_claim *sc = thm_claim_new(rep, "B1", "turns = S-C+D+1", "random S&C graphs", 4, "strings", 0,
                                THM_HOLD);
  double t0 = thm_now();
  uint64_t rs = o->seed * 0x9e3779b97f4a7c15ull + 4;
  for (int i = 0; i < NBOARDS; i++) {
    int L = board_lines(boards[i][0], boards[i][1]);
    if (L > o->max_board_lines) continue;
    dab_geom g;
    dab_geom_init(&g, boards[i][0], boards[i][1], NULL);
    dab_retro *r;
    dab_status st = solve_board(o, &g, 0, false, &r, err);
    if (st != DAB_OK) return st;
    game_claims gc = {.b1 = opt};
    for (int k = 0; k < o->games4; k++) play_game(&g, r, &rs, &gc);
    dab_retro_free(r);
    opt->max_size = L;
  }
  opt->seconds = thm_now() - t0;
  double t1 = thm_now();
  static const int rb[][2] = {{1, 1}, {2, 2}, {3, 3}, {3, 5}, {4, 4}, {4, 5}, {5, 5}};
  for (size_t i = 0; i < sizeof rb / sizeof *rb; i++) {
    dab_geom g;
    dab_geom_init(&g, rb[i][0], rb[i][1], NULL);
    game_claims gc = {.b1 = ran};
    for (int k = 0; k < o->games4; k++) play_game(&g, NULL, &rs, &gc);
    if (g.nlines > ran->max_size) ran->max_size = g.nlines;
  }
  ran->seconds = thm_now() - t1;
  double t2 = thm_now();
  for (int k = 0; k < o->games4; k++) {
    /* Random multigraph with junctions and ground strings, <= 20 strings. */
    dab_sg g;
    memset(&g, 0, sizeof g);
    int ncoins = 1 + rnd_below(&rs, 8), ns = 1 + rnd_below(&rs, 20);
    int deg[DAB_SG_MAX_COINS] = {0};
    for (int t = 0; t < 400 && g.nstrings < ns; t++) {
      int a = rnd_below(&rs, ncoins + 1) - 1, b = rnd_below(&rs, ncoins + 1) - 1;
      if (a == b || (a < 0 && b < 0) || (a >= 0 && deg[a] >= 4) || (b >= 0 && deg[b] >= 4)) continue;
      dab_sg_add(&g, a, b);
      if (a >= 0) deg[a]++;
      if (b >= 0) deg[b]++;
    }
    if (!g.nstrings) continue;
    if (play_sc_game(&g, &rs, sc, err)) return DAB_ENOMEM;
    if (g.nstrings > sc->max_size) sc->max_size = g.nstrings;
  }
  sc->seconds = thm_now() - t2;
  return DAB_OK;
}
