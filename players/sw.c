/*
** sw.c: the sliding-window player: read every KxL window of a big board as
** a small board, take each window move's exact value from that board's
** table, and play the best move.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "players/pint.h"

/*
** A window at box (r0,c0) maps its own lines (OpenSpiel ids of a KxL
** board) to board lines:  window h(r,c) -> board h(r0+r, c0+c),
** window v(r,c) -> board v(r0+r, c0+c).
**
**      board 4x4, window 2x2 at (1,1):      +--+--+--+--+
**                                           |  |  |  |  |
**      window lines on its own border       +--+==+==+--+    == / ||: the window
**      that are inside the board are        |  || .  ||  |
**      "artificial": the plain version      +--+--+--+--+
**      treats them as edge lines, although  |  || .  ||  |
**      the box beyond them is real.         +--+==+==+--+
**
** Options:
**   agg=max     plain (published): the best value of any (window, move) pair;
**   agg=sum     a move scores the sum of its values over the windows holding it;
**   agg=mean    ... their mean;
**   agg=min     ... the worst of them (a move bad in any window is bad);
**   border=aware  a window's value for one of its artificial lines is ignored
**                 when some window holds that line inside (every line of a
**                 board at least as big as the window, in both sides > 1);
**   safe=1      play a safe capture first when there is one;
**   value=wdl   the published valuation (with agg=max, border=cut only): a
**               window is worth its win/draw/loss result for the player to
**               move, counting the boxes already taken inside the window
**               (the published table's key: lines, points in the window,
**               player to move); a move is worth the result it keeps.  The
**               windows of greatest worth each add their best moves to one
**               list (a line best in several windows appears once per
**               window) and the move is drawn uniformly from that list.
**               value=net (the default) ranks by net boxes instead.
*/

enum { AGG_MAX, AGG_SUM, AGG_MEAN, AGG_MIN };

typedef struct sw_shape {
  int rows, cols;
  dab_geom g;              /* the window as a board */
  const int8_t *table;     /* value of every window position, or NULL: */
  const dab_oracle *oracle; /* windows too big for a table ask the oracle */
} sw_shape;

typedef struct sw_window {
  int shape;
  int nl;
  int16_t line[64];        /* board line of each window line */
  uint64_t artificial;     /* window lines on its border, inside the board */
} sw_window;

typedef struct sw {
  int agg;
  bool aware, safe, wdl;
  int nshape;
  sw_shape shape[2];
  int nwin;
  sw_window *win;
} sw;

static void add_windows(sw *t, const dab_geom *g, int si) {
  const sw_shape *sh = &t->shape[si];
  int K = sh->rows, L = sh->cols;
  for (int r0 = 0; r0 + K <= g->rows; r0++)
    for (int c0 = 0; c0 + L <= g->cols; c0++) {
      sw_window *w = &t->win[t->nwin++];
      w->shape = si;
      w->nl = sh->g.nlines;
      w->artificial = 0;
      int nh = (K + 1) * L;
      for (int j = 0; j < w->nl; j++) {
        int line, edge_in_window, edge_on_board;
        if (j < nh) {
          int r = j / L, c = j % L;
          line = (r0 + r) * g->cols + (c0 + c);
          edge_in_window = r == 0 || r == K;
          edge_on_board = r0 + r == 0 || r0 + r == g->rows;
        } else {
          int r = (j - nh) / (L + 1), c = (j - nh) % (L + 1);
          line = g->nhoriz + (r0 + r) * (g->cols + 1) + (c0 + c);
          edge_in_window = c == 0 || c == L;
          edge_on_board = c0 + c == 0 || c0 + c == g->cols;
        }
        w->line[j] = (int16_t)line;
        if (edge_in_window && !edge_on_board) w->artificial |= 1ull << j;
      }
    }
}

/* Net boxes the mover gains by drawing window line j in window position
** pos (its boxes completed now, then the child's value with the turn kept
** or passed). */
static int window_move_value(const sw_shape *sh, uint64_t pos, int j) {
  int k = dab64_completes(&sh->g, pos, j);
  int child;
  if (sh->table) child = sh->table[pos | (1ull << j)];
  else {
    dab_lineset cs = dab_ls_from_word(pos | (1ull << j));
    if (dab_oracle_value(sh->oracle, &cs, &child, NULL)) child = 0;
  }
  return k ? k + child : -child;
}

/* The published valuation (value=wdl): see the comment at the top.  The
** list of best moves is kept as a count per line. */
static int sw_move_wdl(const sw *t, const dab_geom *g, const dab_game *game, dab_rng *rng) {
  const dab_lineset *s = &game->lines;
  int cnt[DAB_MAX_LINES];
  memset(cnt, 0, (size_t)g->nlines * sizeof *cnt);
  int total = 0, top = -2;
  for (int wi = 0; wi < t->nwin; wi++) {
    const sw_window *w = &t->win[wi];
    const sw_shape *sh = &t->shape[w->shape];
    uint64_t pos = 0;
    for (int j = 0; j < w->nl; j++) pos |= (uint64_t)dab_ls_has(s, w->line[j]) << j;
    uint64_t undrawn = ~pos & sh->g.all_lines;
    if (!undrawn) continue;
    /* Points inside the window: its complete boxes, by owner.  A board
    ** box has the id of its top line. */
    int diff = 0;
    for (int b = 0; b < sh->g.nboxes; b++) {
      if ((pos & sh->g.box_mask[b]) != sh->g.box_mask[b]) continue;
      int own = game->owner[w->line[b]];
      if (own == game->to_move) diff++;
      else if (own == (game->to_move ^ 1)) diff--;
    }
    int r[64], wv = -2;
    for (uint64_t u = undrawn; u; u &= u - 1) {
      int j = __builtin_ctzll(u);
      r[j] = dab_result_of(diff + window_move_value(sh, pos, j));
      if (r[j] > wv) wv = r[j];
    }
    if (wv < top) continue;
    if (wv > top) {
      memset(cnt, 0, (size_t)g->nlines * sizeof *cnt);
      total = 0;
      top = wv;
    }
    for (uint64_t u = undrawn; u; u &= u - 1) {
      int j = __builtin_ctzll(u);
      if (r[j] == wv) {
        cnt[w->line[j]]++;
        total++;
      }
    }
  }
  if (!total) {  /* no window holds an undrawn line (windows cover the board) */
    int16_t moves[DAB_MAX_LINES];
    return pl_pick(rng, moves, dab_legal_moves(g, s, moves));
  }
  int k = dab_rng_below(rng, total);
  for (int m = 0;; m++)
    if ((k -= cnt[m]) < 0) return m;
}

static int sw_move(dab_player *p, const dab_game *game, dab_rng *rng) {
  sw *t = p->impl;
  const dab_geom *g = &p->geom;
  const dab_lineset *s = &game->lines;
  if (t->safe) {
    pl_moves mv;
    pl_classify(g, s, &mv);
    if (mv.nsafecap) return pl_pick(rng, mv.safecap, mv.nsafecap);
  }
  if (t->wdl) return sw_move_wdl(t, g, game, rng);
  /* Per board line: best window value, sum, and window counts (all
  ** windows, and those where the line is not artificial). */
  int best[DAB_MAX_LINES], best_in[DAB_MAX_LINES], worst[DAB_MAX_LINES], worst_in[DAB_MAX_LINES];
  int sum[DAB_MAX_LINES], sum_in[DAB_MAX_LINES];
  int16_t cnt[DAB_MAX_LINES], cnt_in[DAB_MAX_LINES];
  for (int m = 0; m < g->nlines; m++) {
    best[m] = best_in[m] = -1000;
    worst[m] = worst_in[m] = 1000;
    sum[m] = sum_in[m] = cnt[m] = cnt_in[m] = 0;
  }
  for (int wi = 0; wi < t->nwin; wi++) {
    const sw_window *w = &t->win[wi];
    const sw_shape *sh = &t->shape[w->shape];
    uint64_t pos = 0;
    for (int j = 0; j < w->nl; j++) pos |= (uint64_t)dab_ls_has(s, w->line[j]) << j;
    uint64_t undrawn = ~pos & sh->g.all_lines;
    for (; undrawn; undrawn &= undrawn - 1) {
      int j = __builtin_ctzll(undrawn);
      int k = dab64_completes(&sh->g, pos, j);
      int child;
      if (sh->table) child = sh->table[pos | (1ull << j)];
      else {
        dab_lineset cs = dab_ls_from_word(pos | (1ull << j));
        if (dab_oracle_value(sh->oracle, &cs, &child, NULL)) child = 0;
      }
      int v = k ? k + child : -child;
      int m = w->line[j];
      if (v > best[m]) best[m] = v;
      if (v < worst[m]) worst[m] = v;
      sum[m] += v;
      cnt[m]++;
      if (!((w->artificial >> j) & 1)) {
        sum_in[m] += v;
        if (v < worst_in[m]) worst_in[m] = v;
        if (v > best_in[m]) best_in[m] = v;
        cnt_in[m]++;
      }
    }
  }
  /* Score every undrawn line; lines in no window (cannot happen when the
  ** windows fit the board) score lowest.  Scores are scaled by 1024 so the
  ** mean stays an integer comparison. */
  int16_t pick[DAB_MAX_LINES];
  int npick = 0;
  long top = -(1L << 40);
  for (int m = 0; m < g->nlines; m++) {
    if (dab_ls_has(s, m)) continue;
    long score;
    if (!cnt[m]) score = -(1L << 39);
    else if (t->agg == AGG_MAX) score = t->aware && cnt_in[m] ? best_in[m] : best[m];
    else if (t->agg == AGG_MIN) score = t->aware && cnt_in[m] ? worst_in[m] : worst[m];
    else {
      bool use_in = t->aware && cnt_in[m] > 0;
      long total = use_in ? sum_in[m] : sum[m];
      long n = use_in ? cnt_in[m] : cnt[m];
      score = t->agg == AGG_SUM ? total * 1024 : total * 1024 / n;
    }
    if (score > top) {
      top = score;
      npick = 0;
    }
    if (score == top) pick[npick++] = (int16_t)m;
  }
  return pick[dab_rng_below(rng, npick)];
}

static void sw_free(void *impl) {
  sw *t = impl;
  if (t) free(t->win);
  free(t);
}

static const pl_ops ops_sw = {sw_move, sw_free};

dab_status pl_new_sw(dab_player *p, pl_opts *o, const char *size, dab_err *err) {
  const dab_geom *g = &p->geom;
  int K = 2, L = 2;
  if (size) {
    char extra;
    if (sscanf(size, "%dx%d%c", &K, &L, &extra) != 2 || K < 1 || L < 1 || K > 8 || L > 8)
      return dab_fail(err, DAB_EINPUT, "player 'sw': bad window size '%s' (expected KxL, e.g. 3x3)",
                      size);
  }
  static const char *agg_names[] = {"max", "sum", "mean", "min"};
  int agg = AGG_MAX;
  bool aware = false, safe = false;
  const char *v;
  if ((v = pl_opt_str(o, "agg"))) {
    agg = -1;
    for (int i = 0; i < 4; i++)
      if (!strcmp(v, agg_names[i])) agg = i;
    if (agg < 0)
      return dab_fail(err, DAB_EINPUT, "player 'sw': agg must be max, sum, mean or min, got '%s'", v);
  }
  if ((v = pl_opt_str(o, "border"))) {
    if (!strcmp(v, "aware")) aware = true;
    else if (strcmp(v, "cut"))
      return dab_fail(err, DAB_EINPUT, "player 'sw': border must be cut or aware, got '%s'", v);
  }
  long sf = 0;
  dab_status st = pl_opt_long(o, "sw", "safe", 0, 1, &sf, err);
  if (st) return st;
  safe = sf != 0;
  bool wdl = false;
  if ((v = pl_opt_str(o, "value"))) {
    if (!strcmp(v, "wdl")) wdl = true;
    else if (strcmp(v, "net"))
      return dab_fail(err, DAB_EINPUT, "player 'sw': value must be net or wdl, got '%s'", v);
  }
  if (wdl && (agg != AGG_MAX || aware))
    return dab_fail(err, DAB_EINPUT,
                    "player 'sw': value=wdl is the published rule and takes agg=max,border=cut");
  if (!p->env) return dab_fail(err, DAB_EBOARD, "player 'sw' needs an oracle environment");
  /* Both orientations of a non-square window, where they fit; a window
  ** that fits neither way is cut down to the board. */
  sw *t = calloc(1, sizeof *t);
  if (!t) return dab_fail(err, DAB_ENOMEM, "out of memory for player 'sw'");
  t->agg = agg;
  t->aware = aware;
  t->safe = safe;
  t->wdl = wdl;
  if (K <= g->rows && L <= g->cols) {
    t->shape[t->nshape].rows = K;
    t->shape[t->nshape++].cols = L;
  }
  if (K != L && L <= g->rows && K <= g->cols) {
    t->shape[t->nshape].rows = L;
    t->shape[t->nshape++].cols = K;
  }
  if (!t->nshape) {
    t->shape[0].rows = K < g->rows ? K : g->rows;
    t->shape[0].cols = L < g->cols ? L : g->cols;
    t->nshape = 1;
  }
  p->impl = t;
  p->ops = &ops_sw;
  int total = 0;
  for (int i = 0; i < t->nshape; i++) {
    sw_shape *sh = &t->shape[i];
    dab_geom_init(&sh->g, sh->rows, sh->cols, NULL);
    dab_err e2;
    st = pl_env_window_table(p->env, sh->rows, sh->cols, &sh->table, &e2);
    if (st == DAB_EBOARD && sh->g.nlines > PL_MAX_WINDOW_LINES) {
      /* Too big for a flat table (e.g. 3x4 from tablebases): ask the oracle. */
      sh->table = NULL;
      st = dab_player_env_oracle(p->env, sh->rows, sh->cols, &sh->oracle, &e2);
    }
    if (st)
      return dab_fail(err, st, "player 'sw': no table for %dx%d windows: %s", sh->rows, sh->cols,
                      e2.msg);
    total += (g->rows - sh->rows + 1) * (g->cols - sh->cols + 1);
  }
  if (!(t->win = malloc((size_t)total * sizeof *t->win)))
    return dab_fail(err, DAB_ENOMEM, "out of memory for player 'sw'");
  for (int i = 0; i < t->nshape; i++) add_windows(t, g, i);
  snprintf(p->name, sizeof p->name, "sw:%dx%d,agg=%s,border=%s,safe=%d,value=%s", K, L,
           agg_names[agg], aware ? "aware" : "cut", safe, wdl ? "wdl" : "net");
  return DAB_OK;
}
