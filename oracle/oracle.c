/*
** oracle.c: the oracle: a tablebase file when one covers the board (small
** boards get theirs built on first use), else an in-memory retrograde
** table for small boards, else (when the caller allows it) exact search.
** See Copyright Notice in README.md
*/
#include <limits.h>
#include <string.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "oracle/oracle.h"
#include "postext.h"
#include "solver/ab.h"
#include "solver/retro.h"
#include "tablebase/dabtb.h"

/* Largest board (in lines) solved in memory on open: 3x3 takes ~0.1 s. */
#define ORACLE_DEFAULT_BUILD_LINES 24

/* The search's table when the caller gives no size: big enough that a
** game's queries on 4x4 or 3x5 keep their subtrees, small enough to sit
** beside a learner's own memory. */
#define ORACLE_DEFAULT_SEARCH_HASH (512ull << 20)

/* Exact search for boards no table covers: one solver whose table stays
** warm from one query to the next (the positions of a game share most of
** their subtrees), behind a lock, since a dab_ab serves one caller at a
** time.  Kept outside struct dab_oracle so that the const queries can
** take the lock. */
typedef struct oracle_search {
  pthread_mutex_t lock;
  dab_ab *ab;
  dabtb_store *store;   /* the board's solved store (what `dab solve` proved), or NULL */
} oracle_search;

struct dab_oracle {
  dab_geom geom;
  dabtb *tb;              /* the tablebase, or NULL */
  dab_retro *table;       /* else the in-memory table */
  oracle_search *search;  /* else exact search */
};

/* A tablebase for the board: found on the search path, or built there on
** first use for boards up to DABTB_AUTO_BUILD_LINES.  NULL when neither;
** *st is then an error only when a file exists but cannot be used. */
static dabtb *open_tablebase(int rows, int cols, const dab_oracle_opts *opts, dab_status *st,
                             dab_err *err) {
  char path[PATH_MAX + 64];
  dabtb *tb = NULL;
  *st = DAB_OK;
  if (dabtb_find(rows, cols, opts->tb_dir, path, sizeof path, NULL) == DAB_OK) {
    *st = dabtb_open(path, NULL, &tb, err);
    if (tb && !dabtb_has_table(tb)) { /* solved results of search only: no table */
      dabtb_close(tb);
      tb = NULL;
    }
    return tb;
  }
  if (dabtb_open_board(rows, cols, opts->tb_dir, &tb, NULL)) return NULL;
  return tb;
}

/* Sets up o->search.  RETURN: DAB_OK; the solver's DAB_ENOMEM; an error
** opening the board's solved store when a file exists but is unusable. */
static dab_status open_search(dab_oracle *o, const dab_oracle_opts *opts, dab_err *err) {
  oracle_search *s = calloc(1, sizeof *s);
  if (!s) return dab_fail(err, DAB_ENOMEM, "out of memory");
  dab_ab_opts ao;
  dab_ab_default_opts(&ao);
  ao.hash_bytes = opts->search_hash ? opts->search_hash : ORACLE_DEFAULT_SEARCH_HASH;
  ao.threads = opts->threads > 0 ? opts->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
  ao.node_limit = opts->search_node_limit;
  dab_status st = DAB_ENOMEM;
  s->ab = dab_ab_new(&o->geom, &ao, &st, err);
  if (!s->ab) {
    free(s);
    return st;
  }
  char path[PATH_MAX + 64];
  st = DAB_OK;
  if (dabtb_find(o->geom.rows, o->geom.cols, opts->tb_dir, path, sizeof path, NULL) == DAB_OK)
    st = dabtb_store_open(path, o->geom.rows, o->geom.cols, DABTB_STORE_READ, &s->store, err);
  if (st || pthread_mutex_init(&s->lock, NULL)) {
    dab_ab_free(s->ab);
    free(s);
    return st ? st : dab_fail(err, DAB_ENOMEM, "out of memory");
  }
  o->search = s;
  return DAB_OK;
}

dab_status dab_oracle_open(int rows, int cols, const dab_oracle_opts *opts, dab_oracle **out,
                           dab_err *err) {
  static const dab_oracle_opts defaults;
  if (!opts) opts = &defaults;
  *out = NULL;
  dab_oracle *o = calloc(1, sizeof *o);
  if (!o) return dab_fail(err, DAB_ENOMEM, "out of memory");
  dab_status st = dab_geom_init(&o->geom, rows, cols, err);
  if (st) {
    free(o);
    return st;
  }
  int max_lines = opts->max_build_free ? opts->max_build_free : ORACLE_DEFAULT_BUILD_LINES;
  dab_status tst;
  if (dab_geom_fast(&o->geom)) o->tb = open_tablebase(rows, cols, opts, &tst, err);
  else tst = DAB_OK;
  if (o->tb) {
    *out = o;
    return DAB_OK;
  }
  if (o->geom.nlines > max_lines) {
    if (tst) st = tst; /* a file exists but cannot be used: say why */
    else if (opts->search && dab_geom_fast(&o->geom)) st = open_search(o, opts, err);
    else if (o->geom.nlines <= DAB_RETRO_MAX_FREE)
      st = dab_fail(err, DAB_EBOARD,
                    "no %dx%d tablebase found (looked in --tb, $DAB_TB_PATH, data/tb/); build it "
                    "once with: dab build %dx%d",
                    rows, cols, rows, cols);
    else if (dab_geom_fast(&o->geom))
      st = dab_fail(err, DAB_EBOARD,
                    "no table covers %dx%d (boards up to %d lines are solved in memory); "
                    "exact search would (oracle option search)",
                    rows, cols, max_lines);
    else
      st = dab_fail(err, DAB_EBOARD, "no oracle covers %dx%d: it has %d lines, search reaches %d",
                    rows, cols, o->geom.nlines, DAB_FAST_MAX_LINES);
  } else {
    dab_retro_opts ro = {.threads = opts->threads};
    st = dab_retro_solve(&o->geom, 0, &ro, &o->table, err);
  }
  if (st) {
    free(o);
    return st;
  }
  *out = o;
  return DAB_OK;
}

void dab_oracle_close(dab_oracle *o) {
  if (!o) return;
  dabtb_close(o->tb);
  dab_retro_free(o->table);
  if (o->search) {
    pthread_mutex_destroy(&o->search->lock);
    dab_ab_free(o->search->ab);
    dabtb_store_close(o->search->store);
    free(o->search);
  }
  free(o);
}

const dab_geom *dab_oracle_geom(const dab_oracle *o) { return &o->geom; }

const char *dab_oracle_source(const dab_oracle *o) {
  return o->tb ? "tablebase" : o->table ? "memory" : "search";
}

/* ---- Search-backed queries (caller holds s->lock) ------------------------ */

/* The store's exact value of p, when it holds one. */
static bool store_exact(oracle_search *s, uint64_t p, int *value) {
  dabtb_solved r;
  bool found = false;
  if (!s->store || dabtb_store_get(s->store, p, &r, &found, NULL) || !found || r.lower != r.upper)
    return false;
  *value = r.lower;
  return true;
}

static bool known_hook(void *ctx, uint64_t c, int *value) { return store_exact(ctx, c, value); }

/* The error of a search stopped by the node limit, naming the position and
** what was proved: its bounds, or (moves) its value. */
static dab_status limit_reached(const dab_oracle *o, uint64_t p, bool moves, int lo, int hi,
                                dab_err *err) {
  char dbn[DAB_FAST_MAX_LINES + 16];
  dab_lineset s = dab_ls_from_word(p);
  dab_format_dbn(&o->geom, &s, dbn, sizeof dbn);
  unsigned long long limit = (unsigned long long)dab_ab_options(o->search->ab)->node_limit;
  if (moves)
    return dab_fail(err, DAB_ECANCELED,
                    "the search stopped at its node limit (%llu) valuing the moves of %s (value %+d)",
                    limit, dbn, lo);
  return dab_fail(err, DAB_ECANCELED,
                  "the search stopped at its node limit (%llu) with %s proved in [%+d, %+d]", limit, dbn,
                  lo, hi);
}

static dab_status search_value(const dab_oracle *o, uint64_t p, int *value, dab_err *err) {
  if (store_exact(o->search, p, value)) return DAB_OK;
  int lo = -DAB_MAX_BOXES, hi = DAB_MAX_BOXES;
  dab_status st = dab_ab_solve(o->search->ab, p, value, &lo, &hi, err);
  if (st == DAB_ECANCELED) return limit_reached(o, p, false, lo, hi, err);
  return st;
}

static dab_status search_analyze(const dab_oracle *o, uint64_t p, dab_analysis *a, dab_err *err) {
  int v;
  dab_status st = search_value(o, p, &v, err);
  if (st) return st;
  dab_ab_move_hooks hooks = {.known = known_hook, .ctx = o->search};
  st = dab_ab_analyze_moves(o->search->ab, p, v, &hooks, a, err);
  if (st == DAB_ECANCELED) return limit_reached(o, p, true, v, v, err);
  return st;
}

/* ---- Queries -------------------------------------------------------------- */

/* DAB_EINPUT unless pos lies on the board (the tables index by it). */
static dab_status check_lines(const dab_oracle *o, const dab_lineset *pos, dab_err *err) {
  if (dab_geom_fast(&o->geom) && (dab_ls_word(pos) & ~o->geom.all_lines))
    return dab_fail(err, DAB_EINPUT, "position has lines beyond the %d lines of %dx%d", o->geom.nlines,
                    o->geom.rows, o->geom.cols);
  return DAB_OK;
}

dab_status dab_oracle_value(const dab_oracle *o, const dab_lineset *pos, int *value, dab_err *err) {
  dab_status st = check_lines(o, pos, err);
  if (st) return st;
  if (o->tb) return dabtb_value(o->tb, dab_ls_word(pos), value, err);
  if (o->table) {
    *value = dab_retro_value(o->table, dab_ls_word(pos));
    return DAB_OK;
  }
  pthread_mutex_lock(&o->search->lock);
  dab_ab_reset_stats(o->search->ab); /* the node limit is per query */
  st = search_value(o, dab_ls_word(pos), value, err);
  pthread_mutex_unlock(&o->search->lock);
  return st;
}

dab_status dab_oracle_analyze(const dab_oracle *o, const dab_lineset *pos, dab_analysis *a,
                              dab_err *err) {
  dab_status st = check_lines(o, pos, err);
  if (st) return st;
  if (o->tb) return dabtb_analyze(o->tb, dab_ls_word(pos), a, err);
  if (o->table) return dab_retro_analyze(o->table, dab_ls_word(pos), a, err);
  pthread_mutex_lock(&o->search->lock);
  dab_ab_reset_stats(o->search->ab);
  st = search_analyze(o, dab_ls_word(pos), a, err);
  pthread_mutex_unlock(&o->search->lock);
  return st;
}

/* ---- Plain-argument forms (bindings) ------------------------------------- */

static dab_status need_fast(const dab_oracle *o, dab_err *err) {
  if (dab_geom_fast(&o->geom)) return DAB_OK;
  return dab_fail(err, DAB_EBOARD, "%dx%d has %d lines; these calls take boards of at most %d",
                  o->geom.rows, o->geom.cols, o->geom.nlines, DAB_FAST_MAX_LINES);
}

dab_status dab_oracle_value64(const dab_oracle *o, uint64_t pos, int *value, dab_err *err) {
  dab_status st = need_fast(o, err);
  if (st) return st;
  dab_lineset s = dab_ls_from_word(pos);
  return dab_oracle_value(o, &s, value, err);
}

dab_status dab_oracle_move_values(const dab_oracle *o, uint64_t pos, int16_t *move, int16_t *value,
                                  int *n, dab_err *err) {
  dab_status st = need_fast(o, err);
  if (st) return st;
  dab_analysis *a = malloc(sizeof *a);
  if (!a) return dab_fail(err, DAB_ENOMEM, "out of memory");
  dab_lineset s = dab_ls_from_word(pos);
  st = dab_oracle_analyze(o, &s, a, err);
  if (!st) {
    *n = a->nmoves;
    for (int i = 0; i < a->nmoves; i++) {
      move[i] = a->move[i];
      value[i] = a->move_value[i];
    }
  }
  free(a);
  return st;
}

dab_status dab_oracle_result(const dab_oracle *o, uint64_t pos, int score_diff, int *result,
                             int16_t *keep, int *nkeep, dab_err *err) {
  dab_status st = need_fast(o, err);
  if (st) return st;
  dab_analysis *a = malloc(sizeof *a);
  dab_wdl *w = malloc(sizeof *w);
  if (!a || !w) {
    free(a);
    free(w);
    return dab_fail(err, DAB_ENOMEM, "out of memory");
  }
  dab_lineset s = dab_ls_from_word(pos);
  st = dab_oracle_analyze(o, &s, a, err);
  if (!st) {
    dab_analysis_wdl(a, score_diff, w);
    *result = (int)w->result;
    *nkeep = w->nkeep;
    memcpy(keep, w->keep, (size_t)w->nkeep * sizeof *keep);
  }
  free(a);
  free(w);
  return st;
}

dab_status dab_oracle_parse(const dab_oracle *o, const char *text, uint64_t *pos, dab_err *err) {
  dab_status st = need_fast(o, err);
  if (st) return st;
  dab_parsed *p = malloc(sizeof *p);
  if (!p) return dab_fail(err, DAB_ENOMEM, "out of memory");
  st = dab_parse_position(text, p, err);
  if (!st && (p->geom.rows != o->geom.rows || p->geom.cols != o->geom.cols))
    st = dab_fail(err, DAB_EINPUT, "position '%s' is on a %dx%d board, the oracle's is %dx%d", text,
                  p->geom.rows, p->geom.cols, o->geom.rows, o->geom.cols);
  if (!st) *pos = dab_ls_word(&p->game.lines);
  free(p);
  return st == DAB_EBOARD ? DAB_EINPUT : st;
}
