/*
** oracle.c: the oracle: a tablebase file when one covers the board (2x4
** and 3x3 get theirs built on first use), else an in-memory retrograde
** table (the whole board, or below the query), else exact search with the
** board's solved store.
** See Copyright Notice in README.md
*/
#include <limits.h>
#include <math.h>
#include <string.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "game/clock.h"
#include "oracle/oracle.h"
#include "oracle/solvestore.h"
#include "game/postext.h"
#include "game/sysmem.h"
#include "solver/ab.h"
#include "solver/retro.h"
#include "tablebase/dabtb.h"

/* Largest board (in lines) solved in memory on open: 3x3 takes ~0.1 s. */
#define ORACLE_DEFAULT_BUILD_LINES 24

/* The sources that change as queries come (a retrograde table below the
** last query, the search and its store): one query at a time, behind a
** lock.  Kept outside struct dab_oracle so that the const queries can
** take the lock. */
typedef struct oracle_dyn {
  pthread_mutex_t lock;
  int retro_free;         /* below-root retrograde up to this many free lines; 0 = off */
  bool search;
  dab_retro *below;       /* the table below the last query it answered */
  dab_ab *ab;             /* the search, made by the first query that searches */
  uint64_t ab_hash;       /* its table's bytes */
  dab_ab_opts base;       /* the solver's options, less size and callbacks */
  dab_solvestore *store;  /* the board's solved store, or NULL */
  dab_pdb *pdb;           /* the pattern database the search uses (owned), or NULL */
} oracle_dyn;

struct dab_oracle {
  dab_geom geom;
  dab_oracle_opts opts;   /* the caller's, tb_dir and search_opts copied in */
  char tb_dir[PATH_MAX];
  dabtb *tb;              /* the tablebase, or NULL */
  dab_retro *table;       /* else the in-memory table */
  oracle_dyn *dyn;        /* else retrograde below the queries and/or search */
};

/* The tablebase of the board: found on the search path, or built there on
** first use for a board of DABTB_MEMORY_ONLY_LINES + 1 to
** DABTB_AUTO_BUILD_LINES lines, whose file answers faster than solving
** it in memory each time (3x3: 0.01 s against 0.2 s of CPU a process).
** NULL when neither (*found: a file exists); *st is then an error only
** when a file exists but cannot be used, or the build ran out of memory.
** A smaller board is solved in memory in milliseconds and gets no file. */
static dabtb *open_tablebase(const dab_geom *g, const dab_oracle_opts *opts, bool *found, dab_status *st,
                             dab_err *err) {
  char path[PATH_MAX + 64];
  dabtb *tb = NULL;
  *st = DAB_OK;
  *found = dabtb_find(g->rows, g->cols, opts->tb_dir, path, sizeof path, NULL) == DAB_OK;
  if (*found) {
    *st = dabtb_open(path, NULL, &tb, err);
    if (tb && !dabtb_has_table(tb)) { /* solved results of search only: no table */
      dabtb_close(tb);
      tb = NULL;
    }
    return tb;
  }
  if (g->nlines <= DABTB_MEMORY_ONLY_LINES || g->nlines > DABTB_AUTO_BUILD_LINES) return NULL;
  dab_err why;
  dab_status bst = dabtb_open_board_mode(g->rows, g->cols, opts->tb_dir, opts->read_only, &tb, &why);
  if (bst == DAB_ENOMEM) *st = dab_fail(err, bst, "%s", why.msg); /* not "no table found" */
  return tb;
}

/* A store warning, passed on to the caller's callback. */
static void store_warn(void *ctx, const char *msg) {
  const dab_oracle *o = ctx;
  if (o->opts.warn) o->opts.warn(o->opts.warn_ctx, msg);
}

/* Sets up o->dyn: below-root retrograde up to retro_free free lines and/or
** search (with the store unless store_none).  RETURN: DAB_OK; DAB_ENOMEM. */
static dab_status open_dyn(dab_oracle *o, int retro_free, bool search, bool use_store, dab_err *err) {
  oracle_dyn *d = calloc(1, sizeof *d);
  if (!d) return dab_fail(err, DAB_ENOMEM, "out of memory");
  d->retro_free = retro_free;
  d->search = search;
  if (o->opts.search_opts) d->base = *o->opts.search_opts;
  else dab_ab_default_opts(&d->base);
  dab_status st = DAB_OK;
  if (search && use_store && o->opts.store != DAB_ORACLE_STORE_NONE) {
    dab_solvestore_opts so = {.tb_dir = o->opts.tb_dir,
                              .read_only = o->opts.store != DAB_ORACLE_STORE_WRITE || o->opts.read_only,
                              .checkpoint_seconds = o->opts.checkpoint_seconds,
                              .warn = store_warn,
                              .warn_ctx = o};
    st = dab_solvestore_open(&o->geom, &so, &d->store, err);
  }
  if (!st && search && !d->base.pdb && o->opts.pdb == DAB_ORACLE_PDB_ON) {
    char path[PATH_MAX];
    dab_err perr;
    if (dabtb_find_file(DAB_PDB_FILE, o->opts.tb_dir, path, sizeof path, NULL) == DAB_OK) {
      if (dab_pdb_load(path, &d->pdb, &perr) == DAB_OK) d->base.pdb = d->pdb;
      else if (o->opts.warn) {
        char msg[DAB_ERR_LEN + 64];
        snprintf(msg, sizeof msg, "searching without the pattern database: %s", perr.msg);
        o->opts.warn(o->opts.warn_ctx, msg);
      }
    }
  }
  if (st || pthread_mutex_init(&d->lock, NULL)) {
    dab_solvestore_close(d->store);
    dab_pdb_free(d->pdb);
    free(d);
    return st ? st : dab_fail(err, DAB_ENOMEM, "out of memory");
  }
  o->dyn = d;
  return DAB_OK;
}

/* The message of a board no source covers. */
static dab_status not_covered(const dab_oracle *o, int max_lines, dab_err *err) {
  int rows = o->geom.rows, cols = o->geom.cols;
  if (o->geom.nlines <= DAB_RETRO_MAX_FREE)
    return dab_fail(err, DAB_EBOARD,
                    "no %dx%d tablebase found (looked in --tb, $DAB_TB_PATH, the cache and data/tb/); build it "
                    "once with: dab build %dx%d",
                    rows, cols, rows, cols);
  if (dab_geom_fast(&o->geom))
    return dab_fail(err, DAB_EBOARD,
                    "no table covers %dx%d (boards up to %d lines are solved in memory); "
                    "exact search would (oracle option search)",
                    rows, cols, max_lines);
  return dab_fail(err, DAB_EBOARD, "no oracle covers %dx%d: it has %d lines, search reaches %d", rows,
                  cols, o->geom.nlines, DAB_FAST_MAX_LINES);
}

/* Opens the sources of o.  RETURN: DAB_OK or the error of dab_oracle_open. */
static dab_status open_sources(dab_oracle *o, dab_err *err) {
  const dab_oracle_opts *opts = &o->opts;
  int rows = o->geom.rows, cols = o->geom.cols;
  bool fast = dab_geom_fast(&o->geom);
  if (opts->only == DAB_ORACLE_ONLY_SEARCH || opts->only == DAB_ORACLE_ONLY_RETRO) {
    if (!fast)
      return dab_fail(err, DAB_EBOARD, "boards over %d lines cannot be solved exactly (%dx%d has %d)",
                      DAB_FAST_MAX_LINES, rows, cols, o->geom.nlines);
    if (opts->only == DAB_ORACLE_ONLY_RETRO)
      return open_dyn(o, opts->retro_free ? opts->retro_free : DAB_RETRO_MAX_FREE, false, false, err);
    /* a board a table covers keeps no store: the table answers it */
    return open_dyn(o, 0, true, !dab_solvestore_board_covered(&o->geom, opts->tb_dir), err);
  }
  if (opts->only != DAB_ORACLE_ANY)
    return dab_fail(err, DAB_EINPUT, "oracle option only must be 0, 1 or 2, got %d", opts->only);
  int max_lines = opts->max_build_free ? opts->max_build_free : ORACLE_DEFAULT_BUILD_LINES;
  dab_status tst = DAB_OK;
  bool found = false;
  if (fast) o->tb = open_tablebase(&o->geom, opts, &found, &tst, err);
  if (o->tb) return DAB_OK;
  if (o->geom.nlines <= max_lines || (!found && o->geom.nlines <= DABTB_AUTO_BUILD_LINES)) {
    dab_retro_opts ro = {.threads = opts->threads, .mem_limit = opts->mem_limit,
                         .progress = opts->progress, .progress_ctx = opts->progress_ctx,
                         .cancel = opts->cancel};
    return dab_retro_solve(&o->geom, 0, &ro, &o->table, err);
  }
  if (tst) return tst; /* a file exists but cannot be used: say why */
  if (fast && (opts->search || opts->retro_free > 0))
    return open_dyn(o, opts->retro_free, opts->search, true, err);
  return not_covered(o, max_lines, err);
}

dab_status dab_oracle_open(int rows, int cols, const dab_oracle_opts *opts, dab_oracle **out,
                           dab_err *err) {
  static const dab_oracle_opts defaults;
  if (!opts) opts = &defaults;
  *out = NULL;
  if (opts->retro_free < 0 || opts->retro_free > DAB_RETRO_MAX_FREE)
    return dab_fail(err, DAB_EINPUT, "oracle option retro_free must be 0 to %d, got %d",
                    DAB_RETRO_MAX_FREE, opts->retro_free);
  dab_oracle *o = calloc(1, sizeof *o);
  if (!o) return dab_fail(err, DAB_ENOMEM, "out of memory");
  o->opts = *opts;
  if (opts->tb_dir) {
    snprintf(o->tb_dir, sizeof o->tb_dir, "%s", opts->tb_dir);
    o->opts.tb_dir = o->tb_dir;
  }
  o->opts.search_opts = NULL; /* copied into dyn->base by open_dyn */
  dab_status st = dab_geom_init(&o->geom, rows, cols, err);
  if (!st) {
    dab_oracle_opts keep = o->opts;
    o->opts.search_opts = opts->search_opts;
    st = open_sources(o, err);
    o->opts = keep;
  }
  if (st) {
    dab_oracle_close(o);
    return st;
  }
  *out = o;
  return DAB_OK;
}

void dab_oracle_close(dab_oracle *o) {
  if (!o) return;
  dabtb_close(o->tb);
  dab_retro_free(o->table);
  if (o->dyn) {
    pthread_mutex_destroy(&o->dyn->lock);
    dab_retro_free(o->dyn->below);
    dab_ab_free(o->dyn->ab);
    dab_solvestore_close(o->dyn->store);
    dab_pdb_free(o->dyn->pdb);
    free(o->dyn);
  }
  free(o);
}

const dab_geom *dab_oracle_geom(const dab_oracle *o) { return &o->geom; }

const char *dab_oracle_source(const dab_oracle *o) {
  return o->tb ? "tablebase" : o->table ? "memory" : o->dyn->search ? "search" : "retro";
}

/* ---- Sizing and planning -------------------------------------------------- */

uint64_t dab_oracle_search_hash(int free_lines, uint64_t node_limit, uint64_t mem_limit) {
  /* Measured (docs/solver.md): a search stores one entry per ~17 nodes
  ** (16 bytes each): 2x7 (36 lines) fills ~90 MB, 3x5 (38) ~550 MB, 4x4
  ** (40) ~600 MB; 3x5 in 1 GiB and 4x4 in 2 GiB were as fast as with 4
  ** and 8 GiB, and setting up 8 GiB costs seconds (docs/PERFORMANCE.md). */
  const uint64_t lo = 16ull << 20;
  int half_steps = (free_lines - 36) / 2; /* rounds toward zero: fine below 36 */
  uint64_t bytes = half_steps >= 4 ? 8ull << 30
                   : half_steps >= 0 ? (512ull << 20) << half_steps
                   : half_steps <= -5 ? lo
                   : (512ull << 20) >> -half_steps;
  if (node_limit && node_limit < (1ull << 36) / 16) {
    uint64_t cap = lo;
    while (cap < node_limit * 16) cap <<= 1;
    if (bytes > cap) bytes = cap;
  }
  uint64_t avail = mem_limit ? mem_limit : dab_mem_available();
  if (avail && bytes > avail / 2) bytes = avail / 2;
  return bytes < lo ? lo : bytes;
}

double dab_oracle_expected_seconds(int free_lines) {
  /* the middle of the measured range at each size (oracle.h): 3x4 after
  ** one move (30 lines) 1.9-2.4 s, 3x4 1.3-1.5 s, 2x6 and positions of
  ** 4x4 and 3x5 at 32 lines 2.8-5 s, 2x7 28-46 s, 3x5 107 s */
  static const double anchor[][2] = {{0, 0.01}, {24, 0.05}, {27, 0.2},  {30, 1.5},  {31, 1.7},
                                     {37, 35},  {38, 80},   {40, 140}, {49, 3.6e6}};
  int n = (int)(sizeof anchor / sizeof anchor[0]);
  double f = free_lines;
  if (f >= anchor[n - 1][0]) return anchor[n - 1][1] * pow(3.0, f - anchor[n - 1][0]);
  int i = 1;
  while (i < n - 1 && f > anchor[i][0]) i++;
  double t = (f - anchor[i - 1][0]) / (anchor[i][0] - anchor[i - 1][0]);
  return exp(log(anchor[i - 1][1]) + t * (log(anchor[i][1]) - log(anchor[i - 1][1])));
}

/* The table a search of p would use: the held one unless p needs more. */
static uint64_t want_hash(const dab_oracle *o, uint64_t p) {
  if (o->opts.search_hash) return o->opts.search_hash;
  int free_lines = __builtin_popcountll(o->geom.all_lines & ~p);
  return dab_oracle_search_hash(free_lines, o->opts.search_node_limit, o->opts.mem_limit);
}

/* The solver's options for a table of hash bytes. */
static dab_ab_opts solver_opts(const dab_oracle *o, uint64_t hash) {
  dab_ab_opts ao = o->dyn->base;
  ao.hash_bytes = hash;
  ao.threads = o->opts.threads > 0 ? o->opts.threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
  ao.node_limit = o->opts.search_node_limit;
  ao.mem_limit = o->opts.mem_limit;
  ao.cancel = o->opts.cancel;
  /* a table capped by a node limit gets a key cache to match (the default
  ** minimum, 48 MiB, would dwarf it) */
  if (!ao.tune.keycache_bits && o->opts.search_node_limit && hash < (64ull << 20)) ao.tune.keycache_bits = 16;
  return ao;
}

static bool covered_below(const oracle_dyn *d, uint64_t p, int free_lines) {
  return d->retro_free && free_lines <= d->retro_free && d->below && dab_retro_covers(d->below, p);
}

/* DAB_EINPUT unless pos lies on the board (the tables index by it). */
static dab_status check_lines(const dab_oracle *o, const dab_lineset *pos, dab_err *err) {
  if (dab_geom_fast(&o->geom) && (dab_ls_word(pos) & ~o->geom.all_lines))
    return dab_fail(err, DAB_EINPUT, "position has lines beyond the %d lines of %dx%d", o->geom.nlines,
                    o->geom.rows, o->geom.cols);
  return DAB_OK;
}

dab_status dab_oracle_plan_query(const dab_oracle *o, const dab_lineset *pos, dab_oracle_plan *plan,
                                 dab_err *err) {
  memset(plan, 0, sizeof *plan);
  dab_status st = check_lines(o, pos, err);
  if (st) return st;
  uint64_t p = dab_ls_word(pos);
  plan->free_lines = o->geom.nlines - (dab_geom_fast(&o->geom) ? __builtin_popcountll(p) : dab_ls_count(pos));
  if (o->tb || o->table) {
    plan->source = o->tb ? "tablebase" : "memory";
    return DAB_OK;
  }
  oracle_dyn *d = o->dyn;
  pthread_mutex_lock(&d->lock);
  if (d->retro_free && plan->free_lines <= d->retro_free) {
    plan->source = "retro";
    if (!covered_below(d, p, plan->free_lines)) {
      plan->new_bytes = dab_retro_bytes(plan->free_lines);
      plan->expected_seconds = dab_retro_expected_seconds(plan->free_lines);
    }
  } else if (d->search) {
    dab_analysis *a = malloc(sizeof *a);
    int16_t pv[64];
    int npv;
    if (a && dab_solvestore_answer(d->store, p, false, a, pv, &npv)) plan->source = "stored";
    else {
      plan->source = "search";
      uint64_t want = want_hash(o, p);
      plan->table_bytes = d->ab && d->ab_hash >= want ? d->ab_hash : want;
      dab_ab_opts ao = solver_opts(o, plan->table_bytes);
      if (!d->ab || d->ab_hash < want) plan->new_bytes = dab_ab_memory(&ao);
      plan->expected_seconds = dab_oracle_expected_seconds(plan->free_lines);
    }
    free(a);
    if (d->store) {
      snprintf(plan->store, sizeof plan->store, "%s", dab_solvestore_path(d->store));
      plan->store_write = dab_solvestore_active(d->store) && o->opts.store == DAB_ORACLE_STORE_WRITE;
      if (plan->store_write) plan->store_min_seconds = dab_solvestore_new_in_cache(d->store);
    }
  }
  pthread_mutex_unlock(&d->lock);
  return DAB_OK;
}

/* ---- Retrograde below the query, and search (caller holds d->lock) -------- */

/* Answers p from a table built below it (or below an earlier query). */
static dab_status below_query(const dab_oracle *o, uint64_t p, int flags, dab_analysis *a, dab_err *err) {
  oracle_dyn *d = o->dyn;
  int free_lines = __builtin_popcountll(o->geom.all_lines & ~p);
  if (!covered_below(d, p, free_lines)) {
    dab_retro_free(d->below);
    d->below = NULL;
    dab_retro_opts ro = {.threads = o->opts.threads, .mem_limit = o->opts.mem_limit,
                         .progress = o->opts.progress, .progress_ctx = o->opts.progress_ctx,
                         .cancel = o->opts.cancel};
    dab_status st = dab_retro_solve(&o->geom, p, &ro, &d->below, err);
    if (st) {
      d->below = NULL;
      return st;
    }
  }
  if (flags & DAB_ORACLE_VALUE_ONLY) {
    memset(a, 0, sizeof *a);
    a->value = dab_retro_value(d->below, p);
    return DAB_OK;
  }
  return dab_retro_analyze(d->below, p, a, err);
}

/* The solver's progress: checkpoints of the store, then the caller's. */
static void search_progress(void *ctx, const dab_progress *p) {
  const dab_oracle *o = ctx;
  dab_solvestore_tick(o->dyn->store);
  if (o->opts.progress) o->opts.progress(o->opts.progress_ctx, p);
}

/* The solver with a table of at least the size p wants (made or grown
** now; a grown one starts cold and is seeded from the store again). */
static dab_status get_solver(const dab_oracle *o, uint64_t p, dab_err *err) {
  oracle_dyn *d = o->dyn;
  uint64_t want = want_hash(o, p);
  if (d->ab && d->ab_hash >= want) return DAB_OK;
  dab_ab_free(d->ab);
  d->ab = NULL;
  dab_ab_opts ao = solver_opts(o, want);
  ao.progress = search_progress;
  ao.progress_ctx = (void *)o;
  if (d->store) {
    ao.on_bound = dab_solvestore_on_bound;
    ao.bound_ctx = d->store;
  }
  dab_status st = DAB_ENOMEM;
  d->ab = dab_ab_new(&o->geom, &ao, &st, err);
  if (!d->ab) return st;
  d->ab_hash = want;
  return DAB_OK;
}

/* The error of a stopped search, naming the position and what was proved:
** its bounds, or (moves) its value. */
static dab_status stopped(const dab_oracle *o, uint64_t p, bool moves, int lo, int hi, dab_err *err) {
  char dbn[DAB_FAST_MAX_LINES + 16];
  dab_lineset s = dab_ls_from_word(p);
  dab_format_dbn(&o->geom, &s, dbn, sizeof dbn);
  char why[64];
  if (o->opts.cancel && *o->opts.cancel) snprintf(why, sizeof why, "was canceled");
  else
    snprintf(why, sizeof why, "stopped at its node limit (%llu)",
             (unsigned long long)o->opts.search_node_limit);
  if (moves)
    return dab_fail(err, DAB_ECANCELED, "the search %s valuing the moves of %s (value %+d)", why, dbn, lo);
  return dab_fail(err, DAB_ECANCELED, "the search %s with %s proved in [%+d, %+d]", why, dbn, lo, hi);
}

static void fill_store_info(const oracle_dyn *d, dab_oracle_info *info) {
  if (!d->store) return;
  info->store_serves = true;
  info->store_open = dab_solvestore_is_open(d->store);
  info->store_writable = dab_solvestore_writable(d->store);
  snprintf(info->store, sizeof info->store, "%s", dab_solvestore_path(d->store));
  dab_solvestore_stats ss;
  dab_solvestore_get_stats(d->store, &ss);
  info->store_records = ss.records;
  info->store_written = ss.written;
  info->store_seconds = ss.store_seconds;
  info->store_dropped = ss.dropped;
  info->store_min_seconds = ss.min_seconds;
}

/* Copies the search's work figures (nodes, time, table) into info: for
** a finished query and for one stopped by Ctrl-C or the node limit. */
static void search_work(const dab_ab *ab, dab_oracle_info *info) {
  dab_ab_stats s;
  dab_ab_get_stats(ab, &s);
  const dab_tt *tt = dab_ab_tt(ab);
  info->nodes = s.nodes;
  info->seconds = s.seconds;
  info->tt_capacity = dab_tt_capacity(tt);
  info->tt_used = dab_tt_used(tt);
  info->tt_probes = s.tt_probes;
  info->tt_hits = s.tt_hits;
}

static dab_status search_query(const dab_oracle *o, uint64_t p, int flags, dab_analysis *a,
                               dab_oracle_info *info, dab_err *err) {
  oracle_dyn *d = o->dyn;
  bool value_only = flags & DAB_ORACLE_VALUE_ONLY;
  double t0 = dab_now_s();
  if (dab_solvestore_answer(d->store, p, value_only, a, info->pv, &info->npv)) {
    info->seconds = dab_now_s() - t0;
    info->source = "stored";
    if (!(flags & DAB_ORACLE_PV)) info->npv = 0;
    return DAB_OK;
  }
  info->source = "search";
  dab_status st = get_solver(o, p, err);
  if (st) return st;
  dab_ab *ab = d->ab;
  dab_ab_reset_stats(ab); /* the node limit is per query */
  dab_solvestore_seed(d->store, ab);
  int v = 0, lo = -DAB_MAX_BOXES, hi = DAB_MAX_BOXES;
  st = dab_solvestore_solve(d->store, ab, p, &v, &lo, &hi, err);
  if (st == DAB_ECANCELED) {
    info->lower = lo, info->upper = hi;
    search_work(ab, info);
    return stopped(o, p, false, lo, hi, err);
  }
  if (st) return st;
  if (value_only) {
    memset(a, 0, sizeof *a);
    a->value = v;
  } else {
    st = dab_solvestore_analyze(d->store, ab, p, v, a, err);
    if (st == DAB_ECANCELED) {
      info->lower = info->upper = v;
      info->value_proved = true;
      search_work(ab, info);
      return stopped(o, p, true, v, v, err);
    }
    if (st) return st;
    if (a->value != v) return dab_fail(err, DAB_EINTERNAL, "move values disagree with the value: solver bug");
  }
  if ((flags & DAB_ORACLE_PV) || dab_solvestore_writable(d->store))
    info->npv = dab_ab_pv(ab, p, info->pv, 64);
  search_work(ab, info);
  dab_solvestore_finish(d->store, ab, p, a, value_only, v, info->pv, info->npv);
  if (!(flags & DAB_ORACLE_PV)) info->npv = 0;
  return DAB_OK;
}

/* ---- Queries -------------------------------------------------------------- */

dab_status dab_oracle_query(const dab_oracle *o, const dab_lineset *pos, int flags, dab_analysis *a,
                            dab_oracle_info *info, dab_err *err) {
  dab_oracle_info *mine = NULL;
  if (!info && !(info = mine = malloc(sizeof *info))) return dab_fail(err, DAB_ENOMEM, "out of memory");
  memset(info, 0, sizeof *info);
  info->lower = -DAB_MAX_BOXES, info->upper = DAB_MAX_BOXES;
  dab_status st = check_lines(o, pos, err);
  if (st) goto out;
  bool value_only = flags & DAB_ORACLE_VALUE_ONLY;
  uint64_t p = dab_ls_word(pos);
  if (o->tb || o->table) {
    info->source = o->tb ? "tablebase" : "memory";
    if (value_only) {
      memset(a, 0, sizeof *a);
      st = dab_oracle_value(o, pos, &a->value, err);
    } else st = o->tb ? dabtb_analyze(o->tb, p, a, err) : dab_retro_analyze(o->table, p, a, err);
    goto out;
  }
  oracle_dyn *d = o->dyn;
  int free_lines = __builtin_popcountll(o->geom.all_lines & ~p);
  pthread_mutex_lock(&d->lock);
  if (d->retro_free && free_lines <= d->retro_free) {
    info->source = "retro";
    st = below_query(o, p, flags, a, err);
  } else if (d->search) {
    st = search_query(o, p, flags, a, info, err);
  } else {
    st = dab_fail(err, DAB_EBOARD,
                  "this position has %d free lines; the oracle solves positions with at most %d "
                  "(retro_free) and searches none",
                  free_lines, d->retro_free);
  }
  fill_store_info(d, info);
  pthread_mutex_unlock(&d->lock);
out:
  free(mine);
  return st;
}

dab_status dab_oracle_value(const dab_oracle *o, const dab_lineset *pos, int *value, dab_err *err) {
  dab_status st = check_lines(o, pos, err);
  if (st) return st;
  if (o->tb) return dabtb_value(o->tb, dab_ls_word(pos), value, err);
  if (o->table) {
    *value = dab_retro_value(o->table, dab_ls_word(pos));
    return DAB_OK;
  }
  dab_analysis *a = malloc(sizeof *a);
  if (!a) return dab_fail(err, DAB_ENOMEM, "out of memory");
  st = dab_oracle_query(o, pos, DAB_ORACLE_VALUE_ONLY, a, NULL, err);
  if (!st) *value = a->value;
  free(a);
  return st;
}

dab_status dab_oracle_analyze(const dab_oracle *o, const dab_lineset *pos, dab_analysis *a,
                              dab_err *err) {
  dab_status st = check_lines(o, pos, err);
  if (st) return st;
  if (o->tb) return dabtb_analyze(o->tb, dab_ls_word(pos), a, err);
  if (o->table) return dab_retro_analyze(o->table, dab_ls_word(pos), a, err);
  return dab_oracle_query(o, pos, 0, a, NULL, err);
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

dab_status dab_oracle_bounds64(const dab_oracle *o, uint64_t pos, int *lower, int *upper, dab_err *err) {
  dab_status st = need_fast(o, err);
  if (st) return st;
  dab_lineset s = dab_ls_from_word(pos);
  dab_analysis *a = malloc(sizeof *a);
  dab_oracle_info *info = malloc(sizeof *info);
  if (!a || !info) st = dab_fail(err, DAB_ENOMEM, "out of memory");
  else st = dab_oracle_query(o, &s, DAB_ORACLE_VALUE_ONLY, a, info, err);
  if (st == DAB_OK) *lower = *upper = a->value;
  else if (st == DAB_ECANCELED && info && !strcmp(info->source ? info->source : "", "search") &&
           !(o->opts.cancel && *o->opts.cancel))
    *lower = info->lower, *upper = info->upper, st = DAB_OK;
  free(a);
  free(info);
  return st;
}
