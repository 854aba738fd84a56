/*
** ab_root.c: the null-window root driver, lazy-SMP threads and every
** move's value (contracts in ab.h).
** See Copyright Notice in README.md
*/
#include "solver/ab_int.h"

/* ---- Threads and the root driver --------------------------------------- */

static void *worker_main(void *arg) {
  ab_worker *w = arg;
  const dab_ab_tuning *tu = &w->ab->o.tune;
  if (tu->dfpn_min_free && w->alpha == w->beta - 1 && w->drv->threads == 1 && tu->safe_capture &&
      tu->decline_rule && dab_popcount64(w->ab->g.all_lines & ~w->root) >= tu->dfpn_min_free)
    w->result = ab_dfpn_test(w, w->root, w->nrem, w->beta);
  else
    w->result = ab_search(w, w->root, w->nrem, w->alpha, w->beta, 0, false);
  if (!w->stop) {
    /* First to finish wins; the others stop.  A helper still finishing
    ** an earlier test overwrites nothing of this one's. */
    ab_driver *d = w->drv;
    uint64_t mine = (uint64_t)(uint32_t)w->test_id << 32 | (uint32_t)w->result;
    uint64_t cur = __atomic_load_n(&d->outcome, __ATOMIC_ACQUIRE);
    while ((int)(cur >> 32) != w->test_id &&
           !__atomic_compare_exchange_n(&d->outcome, &cur, mine, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    }
    if (flag_get(&d->test_id) == w->test_id) {
      if (!flag_get(&d->stop)) flag_set(&d->stop_reason, 1);
      flag_set(&d->stop, 1);
    }
  }
  return NULL;
}

/* Adds a worker's counts to s. */
static void worker_stats_add(dab_ab_stats *s, const ab_worker *w) {
  s->nodes += w->nodes;
  s->tt_probes += w->probes;
  s->tt_hits += w->hits;
  s->tt_cuts += w->cuts;
  s->sle_leaves += w->sle;
  s->loony_skips += w->loony;
  s->deferrals += w->deferrals;
  s->etc_cuts += w->etc_cuts;
  s->etc_dups += w->etc_dups;
  s->graph_keys += w->keys;
  s->pdb_leaves += w->pdb_leaves;
  s->pdb_nodes += w->pdb_nodes;
}

/* One search of p on the window (alpha, beta) with every thread: a
** null-window test when alpha = beta - 1.
** RETURN: DAB_OK and *result (fail-soft), or DAB_ECANCELED. */
static dab_status run_test_once(dab_ab *ab, ab_driver *d, uint64_t p, int nrem, int alpha, int beta,
                                int *result) {
  int nt = d->threads;
  if (dab_popcount64(ab->g.all_lines & ~p) < ab->o.tune.smp_min_free) nt = 1;
  ab_worker ws[DAB_AB_MAX_THREADS];
  flag_set(&d->stop, 0);
  flag_set(&d->stop_reason, 0);
  d->testing = beta;
  /* A seqlock: test_id is 0 while root, nrem and beta change, so a
  ** helper (help_drivers) never takes one test's root with another's
  ** open-box count, a mix whose bounds would poison the shared table.
  ** Only this thread writes test_id, so the next id comes from it.  The
  ** release stores keep the 0 ahead of the new fields (no fence: the
  ** sanitizers model these; on x86-64 all are plain moves). */
  int id = d->test_id + 1;
  __atomic_store_n(&d->test_id, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&d->root, p, __ATOMIC_RELEASE);
  __atomic_store_n(&d->nrem, nrem, __ATOMIC_RELEASE);
  __atomic_store_n(&d->alpha, alpha, __ATOMIC_RELEASE);
  __atomic_store_n(&d->beta, beta, __ATOMIC_RELEASE);
  __atomic_store_n(&d->test_id, id, __ATOMIC_RELEASE); /* helpers may join from here */
  /* a new generation per test (drivers running at once may share one) */
  if (!__atomic_add_fetch(&ab->tt.generation, 1, __ATOMIC_RELAXED))
    __atomic_store_n(&ab->tt.generation, 1, __ATOMIC_RELAXED);
  pthread_mutex_lock(&ab->stats_lock); /* other drivers merge into st */
  uint64_t before = ab->st.nodes + d->st.nodes;
  pthread_mutex_unlock(&ab->stats_lock);
  for (int i = 0; i < nt; i++) {
    memset(&ws[i], 0, sizeof ws[i]);
    ws[i].ab = ab;
    ws[i].drv = d;
    ws[i].id = i;
    ws[i].node_base = before;
    ws[i].test_id = id;
    ws[i].reports = i == 0 && d->report;
    ws[i].keycache = ab->keycache;
    ws[i].root = p;
    ws[i].nrem = nrem;
    ws[i].alpha = alpha;
    ws[i].beta = beta;
  }
  if (nt == 1) {
    worker_main(&ws[0]);
  } else {
    pthread_t th[DAB_AB_MAX_THREADS];
    int started = 0;
    for (int i = 1; i < nt; i++) {
      if (pthread_create(&th[i], NULL, worker_main, &ws[i])) break;
      started = i;
    }
    worker_main(&ws[0]);
    for (int i = 1; i <= started; i++) pthread_join(th[i], NULL);
  }
  for (int i = 0; i < nt; i++) worker_stats_add(&d->st, &ws[i]);
  d->st.tests++;
  /* The winner may be a helper (help_drivers), so the result is read from
  ** the outcome the first finisher of this test wrote. */
  uint64_t out = __atomic_load_n(&d->outcome, __ATOMIC_ACQUIRE);
  if ((int)(out >> 32) != id) return DAB_ECANCELED;
  *result = (int)(int32_t)(uint32_t)out;
  return DAB_OK;
}

/* One search of p on (alpha, beta) with every thread, as run_test_once.
** RETURN: DAB_OK and *result (fail-soft), or DAB_ECANCELED. */
static dab_status run_test(dab_ab *ab, ab_driver *d, uint64_t p, int nrem, int alpha, int beta, int *result) {
  for (;;) {
    dab_status st = run_test_once(ab, d, p, nrem, alpha, beta, result);
    /* A helper finishing the previous test just as this one began can
    ** stop it: no result and no reason to stop.  Run it again (the table
    ** keeps what it proved). */
    if (st == DAB_ECANCELED && flag_get(&d->stop_reason) != 2 && !(d->halt && flag_get(d->halt))) continue;
    return st;
  }
}

/* Rounds x to the value parity of n open boxes, up or down. */
static int parity_up(int x, int n) { return ((x - n) & 1) ? x + 1 : x; }
static int parity_down(int x, int n) { return ((x - n) & 1) ? x - 1 : x; }

dab_status ab_check_position(const dab_ab *ab, uint64_t p, dab_err *err) {
  if (p & ~ab->g.all_lines)
    return dab_fail(err, DAB_EINPUT, "position has lines outside the %dx%d board", ab->g.rows, ab->g.cols);
  return DAB_OK;
}

dab_status dab_ab_test_failsoft(dab_ab *ab, uint64_t p, int bound, int *failsoft, dab_err *err) {
  dab_status st = ab_check_position(ab, p, err);
  if (st) return st;
  ab_driver d;
  ab_driver_init(&d, ab->o.threads, true, "test");
  /* last_progress 0: the first poll calls the progress callback, where a
  ** caller's budget is checked (a proof's --budget stops short tests) */
  d.t0 = dab_now_s();
  int nrem = dab_ab_open_boxes(&ab->g, p), r = 0;
  d.lo = -nrem, d.hi = nrem;
  st = run_test(ab, &d, p, nrem, bound - 1, bound, &r);
  d.st.seconds = dab_now_s() - d.t0;
  ab_driver_merge(ab, &d);
  if (st) return dab_fail(err, st, "search canceled");
  /* the result is a true bound; clip it to what the boxes allow */
  *failsoft = r < -nrem ? -nrem : r > nrem ? nrem : r;
  return DAB_OK;
}

dab_status dab_ab_test(dab_ab *ab, uint64_t p, int bound, bool *result, dab_err *err) {
  int r;
  dab_status st = dab_ab_test_failsoft(ab, p, bound, &r, err);
  if (!st) *result = r >= bound;
  return st;
}

/* The root driver, starting its tests near guess0, inside bounds already
** known to hold (lo0, hi0; INT_MIN, INT_MAX when none). */
static dab_status solve_from(dab_ab *ab, ab_driver *d, uint64_t p, int guess0, int lo0, int hi0, int *value,
                             int *lower, int *upper, dab_err *err) {
  dab_status st = ab_check_position(ab, p, err);
  if (st) return st;
  double t0 = dab_now_s();
  d->t0 = t0;
  d->last_progress = t0;
  int nrem = dab_ab_open_boxes(&ab->g, p);
  int lo = lo0 > -nrem ? lo0 : -nrem, hi = hi0 < nrem ? hi0 : nrem;
  int step = ab->o.tune.parity ? 2 : 1;
  int guess = ab->o.tune.parity ? parity_down(guess0, nrem) : guess0;
  /* A warm table may already know the root. */
  if (!ab->o.tune.no_tt) {
    dab_tt_hit hit;
    pos_key pk;
    position_key(ab, NULL, p, &pk);
    if (dab_tt_probe_checked(&ab->tt, pk.key, pk.check, &hit)) {
      if (hit.lower > lo) lo = hit.lower;
      if (hit.upper < hi) hi = hit.upper;
      if (guess < lo) guess = lo;
      if (guess > hi) guess = hi;
    }
  }
  while (lo < hi) {
    d->lo = lo, d->hi = hi;
    /* Test value >= b with b in (lo, hi], MTD(f)-style near the guess. */
    int b = guess;
    if (b < lo + step) b = lo + step;
    if (b > hi) b = hi;
    int r;
    /* root_window: a guess strictly inside the bounds is tested from both
    ** sides at once, (guess - step, guess + step), where a result inside
    ** the window is the value.  A guess at a known bound keeps the null
    ** window: a wide one would prove again what is known. */
    if (ab->o.tune.root_window && guess > lo && guess < hi) {
      st = run_test(ab, d, p, nrem, guess - step, guess + step, &r);
      if (st) break;
      if (r > guess - step && r < guess + step) {
        lo = hi = r;
        if (ab->o.on_bound && d->report_bounds) ab->o.on_bound(ab->o.bound_ctx, lo, hi);
        break;
      }
      b = r >= guess + step ? guess + step : guess - step + 1; /* which side failed */
    } else {
      st = run_test(ab, d, p, nrem, b - 1, b, &r);
      if (st) break;
    }
    if (r >= b) {
      int nl = ab->o.tune.parity ? parity_up(r, nrem) : r;
      if (nl > lo) lo = nl;
      guess = lo;
    } else {
      int nh = ab->o.tune.parity ? parity_down(r, nrem) : r;
      if (nh < hi) hi = nh;
      guess = hi;
    }
    if (lo > hi) { /* cannot happen: the bounds are proofs */
      st = DAB_EINTERNAL;
      break;
    }
    if (ab->o.on_bound && d->report_bounds) ab->o.on_bound(ab->o.bound_ctx, lo, hi);
  }
  if (!d->ap) d->st.seconds += dab_now_s() - t0; /* an analysis counts its wall time once */
  if (lower) *lower = lo;
  if (upper) *upper = hi;
  if (st == DAB_EINTERNAL) return dab_fail(err, st, "inconsistent bounds [%d,%d]: solver bug", lo, hi);
  if (st) return dab_fail(err, st, "search stopped with the value in [%+d,%+d]", lo, hi);
  *value = lo;
  return DAB_OK;
}

dab_status dab_ab_solve(dab_ab *ab, uint64_t p, int *value, int *lower, int *upper, dab_err *err) {
  ab_driver d;
  ab_driver_init(&d, ab->o.threads, true, "solve");
  d.report_bounds = true;
  dab_status st = solve_from(ab, &d, p, 0, INT_MIN, INT_MAX, value, lower, upper, err);
  ab_driver_merge(ab, &d);
  return st;
}

/* ---- Every move's value ------------------------------------------------- */

/* The distinct moves of one analysis, shared by its threads. */
typedef struct analysis_job {
  dab_ab *ab;
  const dab_ab_move_hooks *hooks;
  int value;                  /* the position's value */
  int n;                      /* distinct children */
  uint64_t child[64];
  int k[64];                  /* boxes the move completes */
  int child_value[64];
  int todo[64], ntodo;        /* the children to solve (the rest are known) */
  int next;                   /* next todo entry to take (atomic) */
  int halt;                   /* flag: a child failed, the others stop */
  dab_status st;              /* the first failure, and its message */
  dab_err err;
  pthread_mutex_t lock;       /* st/err and the solved hook */
  int nthreads;
  ab_driver drv[DAB_AB_MAX_THREADS]; /* thread i's driver (helpers read them) */
  analysis_progress progress;
} analysis_job;

typedef struct analysis_thread {
  analysis_job *job;
  int id;
} analysis_thread;

/*
** A thread with no move left to take helps the others: it joins a running
** driver's current test as one more lazy-SMP worker (the helper's result
** counts if it finishes first), and the next test after that, until no
** driver is solving a move.  So the last, often longest, moves of an
** analysis still use every thread.
*/
static void help_drivers(analysis_job *j, int self) {
  dab_ab *ab = j->ab;
  dab_ab_stats st = {0}; /* this thread's helping */
  int turn = self;
  while (!flag_get(&j->halt)) {
    ab_driver *d = NULL;
    for (int i = 1; i <= j->nthreads && !d; i++) {
      ab_driver *c = &j->drv[(turn + i) % j->nthreads];
      if (c != &j->drv[self] && __atomic_load_n(&c->active, __ATOMIC_ACQUIRE)) d = c;
    }
    if (!d) break;
    turn++;
    int id = __atomic_load_n(&d->test_id, __ATOMIC_ACQUIRE);
    ab_worker w;
    memset(&w, 0, sizeof w);
    /* The seqlock's read side (run_test_once): acquire loads, so the
    ** second read of test_id comes after them and sees any change. */
    w.root = __atomic_load_n(&d->root, __ATOMIC_ACQUIRE);
    w.nrem = __atomic_load_n(&d->nrem, __ATOMIC_ACQUIRE);
    w.alpha = __atomic_load_n(&d->alpha, __ATOMIC_ACQUIRE);
    w.beta = __atomic_load_n(&d->beta, __ATOMIC_ACQUIRE);
    if (!id || flag_get(&d->stop) || __atomic_load_n(&d->test_id, __ATOMIC_RELAXED) != id) {
      sched_yield(); /* between two tests */
      continue;
    }
    w.ab = ab, w.drv = d, w.id = 1 + self, w.test_id = id;
    w.reports = self == 0; /* the progress line goes on while thread 0 helps */
    w.keycache = ab->keycache;
    worker_main(&w);
    worker_stats_add(&st, &w);
  }
  ab_stats_merge(ab, &st);
}

/* Takes children until none is left: each is one driver on one thread,
** so the threads split the moves instead of splitting each search. */
static void *analysis_main(void *arg) {
  analysis_thread *t = arg;
  analysis_job *j = t->job;
  dab_ab *ab = j->ab;
  for (;;) {
    int t_i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
    if (t_i >= j->ntodo || flag_get(&j->halt)) break;
    int i = j->todo[t_i];
    /* The driver lives as long as the job (helpers may still look at it
    ** after its move is done), so it is set up once, not per move. */
    ab_driver *dp = &j->drv[t->id];
    __atomic_store_n(&dp->active, 1, __ATOMIC_RELEASE);
    /* No move is worth more than the value: a quiet move's child is
    ** worth at least -value, a capture's at most value - k.  That half
    ** needs no test (a cold table would spend one on it). */
    uint64_t c = j->child[i];
    int k = j->k[i], cv = 0;
    dab_err err;
    double t0 = dab_now_s();
    dab_status st = k ? solve_from(ab, dp, c, j->value - k, INT_MIN, j->value - k, &cv, NULL, NULL, &err)
                      : solve_from(ab, dp, c, -j->value, -j->value, INT_MAX, &cv, NULL, NULL, &err);
    __atomic_store_n(&dp->active, 0, __ATOMIC_RELEASE);
    uint64_t nodes = dp->st.nodes;
    ab_driver_merge(ab, dp);
    pthread_mutex_lock(&j->lock);
    if (st) {
      if (!j->st) j->st = st, j->err = err;
      flag_set(&j->halt, 1);
    } else {
      j->child_value[i] = cv;
      flag_set(&j->progress.done, flag_get(&j->progress.done) + 1);
      if (j->hooks && j->hooks->solved) j->hooks->solved(j->hooks->ctx, c, cv, nodes, dab_now_s() - t0);
    }
    pthread_mutex_unlock(&j->lock);
    if (st) break;
  }
  help_drivers(j, t->id);
  return NULL;
}

dab_status dab_ab_analyze_moves(dab_ab *ab, uint64_t p, int value, const dab_ab_move_hooks *hooks,
                                dab_analysis *a, dab_err *err) {
  dab_status st = ab_check_position(ab, p, err);
  if (st) return st;
  const dab_geom *g = &ab->g;
  memset(a, 0, sizeof *a);
  analysis_job *j = calloc(1, sizeof *j);
  if (!j) return dab_fail(err, DAB_ENOMEM, "out of memory for the analysis");
  j->ab = ab, j->hooks = hooks, j->value = value;
  pthread_mutex_init(&j->lock, NULL);
  /* Distinct children: moves completing as many boxes whose children
  ** have the same table key (a board symmetry or a graph isomorphism
  ** maps one to the other) have the same value. */
  uint64_t keys[64];
  uint32_t checks[64];
  int of_move[64], known[64];
  bool is_known[64];
  for (int m = 0; m < g->nlines; m++) {
    of_move[m] = -1;
    if (p >> m & 1) continue;
    uint64_t c = p | 1ull << m;
    int k = dab64_completes(g, p, m);
    if (!dab_ab_open_boxes(g, c)) {
      of_move[m] = -2; /* the last move: worth k */
      continue;
    }
    pos_key pk;
    position_key(ab, NULL, c, &pk);
    int found = -1;
    for (int i = 0; i < j->n && found < 0; i++)
      if (keys[i] == pk.key && checks[i] == pk.check && j->k[i] == k) found = i;
    if (found < 0) {
      found = j->n++;
      keys[found] = pk.key, checks[found] = pk.check;
      j->child[found] = c, j->k[found] = k;
      is_known[found] = hooks && hooks->known && hooks->known(hooks->ctx, c, &known[found]);
    }
    of_move[m] = found;
  }
  for (int i = 0; i < j->n; i++) {
    if (is_known[i]) j->child_value[i] = known[i];
    else j->todo[j->ntodo++] = i;
  }
  int nt = ab->o.threads < j->ntodo ? ab->o.threads : j->ntodo;
  if (nt > DAB_AB_MAX_THREADS) nt = DAB_AB_MAX_THREADS;
  double t0 = dab_now_s(), seconds0 = ab->st.seconds;
  j->progress = (analysis_progress){0, j->ntodo, t0 - seconds0, 0};
  analysis_thread th[DAB_AB_MAX_THREADS];
  pthread_t tid[DAB_AB_MAX_THREADS];
  int started = 0;
  j->nthreads = nt > 0 ? nt : 1;
  for (int i = 0; i < j->nthreads; i++) {
    th[i] = (analysis_thread){j, i};
    ab_driver_init(&j->drv[i], 1, i == 0, NULL);
    j->drv[i].halt = &j->halt;
    j->drv[i].ap = &j->progress;
  }
  for (int i = 1; i < nt; i++) {
    if (pthread_create(&tid[i], NULL, analysis_main, &th[i])) break;
    started = i;
  }
  analysis_main(&th[0]);
  for (int i = 1; i <= started; i++) pthread_join(tid[i], NULL);
  pthread_mutex_lock(&ab->stats_lock);
  ab->st.seconds = seconds0 + (dab_now_s() - t0);
  pthread_mutex_unlock(&ab->stats_lock);
  st = j->st;
  if (st) dab_fail(err, st, "%s", j->err.msg);
  else {
    for (int m = 0; m < g->nlines; m++) {
      if (of_move[m] == -1) continue;
      int k = dab64_completes(g, p, m);
      int cv = of_move[m] >= 0 ? j->child_value[of_move[m]] : 0;
      a->move[a->nmoves] = (int16_t)m;
      a->move_value[a->nmoves++] = (int16_t)(k ? k + cv : -cv);
    }
    dab_analysis_from_moves(a);
  }
  pthread_mutex_destroy(&j->lock);
  free(j);
  return st;
}

dab_status dab_ab_analyze(dab_ab *ab, uint64_t p, dab_analysis *a, dab_err *err) {
  int v = 0;
  /* The position's value first: each child's search then starts at the
  ** value an optimal move would have. */
  dab_status st = ab_check_position(ab, p, err);
  if (!st) st = dab_ab_solve(ab, p, &v, NULL, NULL, err);
  if (!st) st = dab_ab_analyze_moves(ab, p, v, NULL, a, err);
  return st;
}

int dab_ab_pv(dab_ab *ab, uint64_t p, int16_t *pv, int max) {
  const dab_geom *g = &ab->g;
  int len = 0, v;
  dab_err err;
  if (dab_ab_solve(ab, p, &v, NULL, NULL, &err)) return 0;
  while (len < max && (p & g->all_lines) != g->all_lines) {
    /* Try the table's move first, then the rest in order. */
    int first = -1;
    dab_tt_hit hit;
    pos_key pk;
    position_key(ab, NULL, p, &pk);
    if (dab_tt_probe_checked(&ab->tt, pk.key, pk.check, &hit)) first = code_move(ab, p, &pk, hit.move);
    int found = -1, childv = 0;
    for (int i = -1; i < g->nlines && found < 0; i++) {
      int m = i < 0 ? first : i;
      if (m < 0 || (i >= 0 && m == first) || (p >> m & 1)) continue;
      int k = dab64_completes(g, p, m), cv;
      if (dab_ab_solve(ab, p | 1ull << m, &cv, NULL, NULL, &err)) return len;
      if ((k ? k + cv : -cv) == v) found = m, childv = cv;
    }
    if (found < 0) break; /* cannot happen */
    pv[len++] = (int16_t)found;
    p |= 1ull << found;
    v = childv;
  }
  return len;
}

