/*
** mpi_proof.c: a divisible proof over the ranks of an MPI job
** (mpi_proof.h): rank 0 schedules and records, the others search.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "game/clock.h"
#include "service/mpi_proof.h"

#ifndef DAB_MPI

bool dab_mpi_proof_available(void) { return false; }

dab_status dab_mpi_join(int *rank, int *nranks, dab_err *err) {
  *rank = -1, *nranks = 0;
  return dab_fail(err, DAB_EINPUT, "--mpi: this dab was built without MPI (build it with `make MPI=1`)");
}

void dab_mpi_leave(void) {}

dab_status dab_mpi_prove_lead(dab_proof *pf, dab_prover *p, const dab_ab_opts *abo, dab_prover_result *r,
                              dab_err *err) {
  (void)pf, (void)p, (void)abo, (void)r;
  return dab_fail(err, DAB_EINPUT, "--mpi: this dab was built without MPI (build it with `make MPI=1`)");
}

dab_status dab_mpi_prove_work(const dab_ab_opts *abo, const dab_prover_opts *o, dab_err *err) {
  (void)abo, (void)o;
  return dab_fail(err, DAB_EINPUT, "--mpi: this dab was built without MPI (build it with `make MPI=1`)");
}

#else

#include <mpi.h>

/*
** The protocol, on MPI_COMM_WORLD (every rank runs the same binary, so
** structs travel as bytes):
**
**   spec     MPI_Bcast from rank 0: a spec_msg (ok = 0: nothing to do)
**   TAG_TASK rank 0 -> rank w: a task_msg (stop = 1: the run is over)
**   TAG_DONE rank w -> rank 0: a done_msg, the search's outcome and its
**            line (record or "# open" note), or an error
*/
enum { TAG_TASK = 21, TAG_DONE = 22 };
enum { LINE_MAX = DAB_MAX_LINES + 1024 };

typedef struct spec_msg {
  int32_t ok;
  dab_proof_spec spec;
} spec_msg;

typedef struct task_msg {
  int32_t stop;
  dab_prover_task task;
} task_msg;

typedef struct done_msg {
  int32_t status;  /* dab_status of the search */
  int32_t outcome; /* dab_prover_outcome */
  double seconds;
  uint64_t nodes;
  char line[LINE_MAX]; /* the line, or the error message */
} done_msg;

bool dab_mpi_proof_available(void) { return true; }

dab_status dab_mpi_join(int *rank, int *nranks, dab_err *err) {
  (void)err;
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    int provided;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, nranks);
  return DAB_OK;
}

void dab_mpi_leave(void) {
  int inited = 0, finalized = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&finalized);
  if (inited && !finalized) MPI_Finalize();
}

/* ---- Rank 0 ------------------------------------------------------------ */

static void send_task(int w, const dab_prover_task *t) {
  task_msg m;
  memset(&m, 0, sizeof m);
  if (t) m.task = *t;
  else m.stop = 1;
  MPI_Send(&m, (int)sizeof m, MPI_BYTE, w, TAG_TASK, MPI_COMM_WORLD);
}

/* Waits for the next finished search without spinning a core: rank 0
** shares its machine with workers. */
static int wait_done(done_msg *m) {
  MPI_Request req;
  MPI_Status ms;
  MPI_Irecv(m, (int)sizeof *m, MPI_BYTE, MPI_ANY_SOURCE, TAG_DONE, MPI_COMM_WORLD, &req);
  for (int done = 0;;) {
    MPI_Test(&req, &done, &ms);
    if (done) return ms.MPI_SOURCE;
    nanosleep(&(struct timespec){0, 2000000}, NULL);
  }
}

/* Where the run stands: a signal or the budget stops handing out work. */
static dab_prover_outcome stop_reason(const dab_prover_opts *o, double deadline) {
  if (o->cancel && *o->cancel) return DAB_PROVER_CANCELED;
  if (deadline && dab_now_s() >= deadline) return DAB_PROVER_OUT_OF_TIME;
  return DAB_PROVER_RECORDED;
}

static void tell(const dab_prover_opts *o, dab_prover_event_kind kind, const dab_prover_task *t,
                 const dab_proof_rec *rec, const done_msg *m) {
  if (!o->event) return;
  dab_prover_event e = {kind, t, rec, m->seconds, m->nodes, (dab_prover_outcome)m->outcome};
  o->event(o->event_ctx, &e);
}

/* Commits worker w's result of task t and tells the run's events. */
static dab_status take_result(dab_prover *p, const dab_prover_opts *o, const dab_prover_task *t,
                              const done_msg *m, int w, dab_prover_result *r, dab_err *err) {
  if (m->status)
    return dab_fail(err, m->status, "rank %d, %s: %.*s", w, t->label, (int)sizeof m->line, m->line);
  if (m->outcome == DAB_PROVER_CANCELED || m->outcome == DAB_PROVER_OUT_OF_TIME) {
    if (r->stopped == DAB_PROVER_RECORDED) r->stopped = (dab_prover_outcome)m->outcome;
    tell(o, DAB_PROVER_EV_STOPPED, t, NULL, m);
    return DAB_OK;
  }
  dab_proof_rec rec;
  dab_status st = dab_prover_commit(p, t, m->line, &rec, err);
  if (st) return st;
  if (m->outcome == DAB_PROVER_GAVE_UP) {
    r->gave_up++;
    tell(o, DAB_PROVER_EV_GAVE_UP, t, NULL, m);
    return DAB_OK;
  }
  r->solved++;
  tell(o, DAB_PROVER_EV_RECORD, t, &rec, m);
  return DAB_OK;
}

dab_status dab_mpi_prove_lead(dab_proof *pf, dab_prover *p, const dab_ab_opts *abo, dab_prover_result *r,
                              dab_err *err) {
  int N;
  MPI_Comm_size(MPI_COMM_WORLD, &N);
  memset(r, 0, sizeof *r);
  spec_msg sm;
  memset(&sm, 0, sizeof sm);
  if (pf) sm.ok = 1, sm.spec = *dab_proof_get_spec(pf);
  MPI_Bcast(&sm, (int)sizeof sm, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (!pf) return DAB_OK;
  const dab_prover_opts *o = dab_prover_options(p);
  if (N == 1) return dab_prover_run_here(p, abo, NULL, NULL, r, err); /* no workers: rank 0 searches */
  int nw = N - 1;
  dab_prover_task *task = calloc((size_t)nw, sizeof *task);
  dab_proof_claim *busy = calloc((size_t)nw, sizeof *busy);
  int *holder = calloc((size_t)nw, sizeof *holder); /* busy[i] is with rank holder[i] */
  uint64_t *last_group = calloc((size_t)N, sizeof *last_group);
  bool *idle = calloc((size_t)N, sizeof *idle);
  done_msg *m = malloc(sizeof *m);
  dab_status st = DAB_OK;
  if (!task || !busy || !holder || !last_group || !idle || !m)
    st = dab_fail(err, DAB_ENOMEM, "out of memory for %d ranks", N);
  double deadline = o->budget > 0 ? dab_now_s() + o->budget : 0;
  int nbusy = 0;
  for (int w = 1; w < N; w++) idle[w] = true;
  while (!st) {
    /* hand out work while there is some and the run goes on */
    if (r->stopped == DAB_PROVER_RECORDED) r->stopped = stop_reason(o, deadline);
    for (int w = 1; w < N && !st && r->stopped == DAB_PROVER_RECORDED; w++) {
      if (!idle[w]) continue;
      bool have;
      dab_prover_task t;
      st = dab_prover_next(p, busy, nbusy, last_group[w], &t, &have, err);
      if (st || !have) break;
      send_task(w, &t);
      idle[w] = false;
      last_group[w] = t.claim.group;
      task[nbusy] = t, busy[nbusy] = t.claim, holder[nbusy++] = w;
    }
    if (st || nbusy == 0) break;
    int w = wait_done(m);
    int i = 0;
    while (i < nbusy && holder[i] != w) i++;
    if (i == nbusy) {
      st = dab_fail(err, DAB_EINTERNAL, "rank %d answered without a claim", w);
      break;
    }
    dab_prover_task t = task[i];
    memmove(task + i, task + i + 1, (size_t)(nbusy - i - 1) * sizeof *task);
    memmove(busy + i, busy + i + 1, (size_t)(nbusy - i - 1) * sizeof *busy);
    memmove(holder + i, holder + i + 1, (size_t)(nbusy - i - 1) * sizeof *holder);
    nbusy--;
    idle[w] = true;
    st = take_result(p, o, &t, m, w, r, err);
  }
  /* The loop above waits for every search in flight (each ends at the
  ** budget or the signal as ours did); after an error the job is ended. */
  if (st && nbusy) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int w = 1; w < N; w++) send_task(w, NULL);
  free(task);
  free(busy);
  free(holder);
  free(last_group);
  free(idle);
  free(m);
  return st;
}

/* ---- Ranks 1..N-1 ------------------------------------------------------ */

dab_status dab_mpi_prove_work(const dab_ab_opts *abo, const dab_prover_opts *o, dab_err *err) {
  spec_msg sm;
  MPI_Bcast(&sm, (int)sizeof sm, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (!sm.ok) return DAB_OK;
  dab_status st = DAB_OK, bad = DAB_OK;
  dab_err why;
  memset(&why, 0, sizeof why);
  dab_prover_opts wo = o ? *o : (dab_prover_opts){0};
  wo.progress = NULL, wo.event = NULL; /* rank 0 tells */
  dab_proof *pf = dab_proof_new(&sm.spec, &bad, &why);
  dab_prover *p = NULL;
  dab_ab *ab = NULL;
  if (pf && !(bad = dab_prover_new(pf, &wo, NULL, NULL, &p, &why))) {
    dab_ab_opts a = *abo;
    dab_prover_hook(p, &a);
    ab = dab_ab_new(dab_proof_geom(pf), &a, &bad, &why);
  }
  task_msg *tm = malloc(sizeof *tm);
  done_msg *m = malloc(sizeof *m);
  if (!tm || !m) {
    fprintf(stderr, "dab solve --mpi: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (;;) {
    MPI_Recv(tm, (int)sizeof *tm, MPI_BYTE, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (tm->stop) break;
    memset(m, 0, sizeof *m);
    double t0 = dab_now_s();
    dab_prover_outcome oc = DAB_PROVER_RECORDED;
    dab_err e = why;
    st = bad ? bad : dab_prover_search(p, ab, &tm->task, &oc, m->line, sizeof m->line, NULL, &e);
    m->status = st;
    m->outcome = oc;
    m->seconds = dab_now_s() - t0;
    if (ab) {
      dab_ab_stats as;
      dab_ab_get_stats(ab, &as);
      m->nodes = as.nodes;
    }
    if (st) snprintf(m->line, sizeof m->line, "%s", e.msg);
    MPI_Send(m, (int)sizeof *m, MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD);
  }
  free(tm);
  free(m);
  dab_ab_free(ab);
  dab_prover_free(p);
  dab_proof_free(pf);
  if (bad && err) *err = why;
  return bad;
}

#endif
