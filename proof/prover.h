/*
** prover.h: scheduling a divisible proof (solver/proof.h) across runs and
** machines: which open claim a machine takes next, how much is left, and
** storing a finished proof in the board's solved store.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_PROVER_H
#define DAB_PROVER_H

#include <stdbool.h>
#include <stddef.h>
#include "solver/ab.h"
#include "proof/records.h"

/* The default rate window: about an afternoon's work on one machine. */
#define DAB_PROVER_RATE_WINDOW (4 * 3600.0)

/*
** Opens the proof recorded in dir, or creates it there.  want names the
** board (rows, cols) and the root, and, when want_claim, the claim
** (has_ge, has_le and their bounds); depth is the split depth asked for
** (-1: the directory's, or 2 for a new proof).  A proof already in dir
** must have the same root, and the same claim and depth when they are
** given.  A new one (create true) needs the claim; its spec (proof.txt) is
** written before anything else.  The records are then loaded: li says how
** many lines were read, and which were torn or bad (they are skipped).
** RETURN: DAB_OK and *out (the caller frees it with dab_proof_free);
** DAB_EINPUT (another root, claim or depth; a new proof with no claim; a
** board proofs do not take); DAB_EIO (dir holds no proof and create is
** false; a file that cannot be read or written); DAB_ENOMEM.
** THREAD SAFETY: none needed (no shared state); two processes creating
** one directory at once may both write its spec.
*/
dab_status dab_prover_open(const char *dir, const dab_proof_spec *want, bool want_claim, int depth, bool create,
                           dab_proof **out, dab_proof_load_info *li, dab_err *err);

/*
** True when claim c belongs to part part_i of part_n (dab solve --part
** I/N; part_n <= 1: every claim).  Parts go by subtree (c->group), not by
** claim, so that a subtree's leaves share one machine's warm table.
*/
bool dab_prover_in_part(const dab_proof_claim *c, int part_i, int part_n);

/*
** The first claim of list[0..n) in part part_i of part_n that is not one
** of skipped[0..nskipped) (same position, direction and bound).
** RETURN: the claim, or NULL when none is left.
*/
const dab_proof_claim *dab_prover_pick_next(const dab_proof_claim *list, size_t n,
                                            const dab_proof_claim *skipped, int nskipped,
                                            int part_i, int part_n);

/* The estimate by subtrees (what --direct solves), dab_prover_subtrees. */
typedef struct dab_prover_subtrees {
  double median, mean, cpu_median, cpu_mean; /* of the subtree records */
  size_t open[2];                            /* open subtrees: [0] GE claims, [1] LE */
  size_t attempts[2], given_up[2];           /* direct attempts on each kind, and given up */
  double attempt_cpu_mean[2];                /* mean CPU seconds of an attempt of each kind */
  double eta_cpu;                            /* sum over open subtrees of their kind's mean */
} dab_prover_subtrees;

/*
** Open inner nodes two plies above the split depth (*n), and the median
** and mean time of the records at that depth, wall and CPU seconds.  The
** ETA charges each open subtree the mean CPU time of the direct attempts
** on subtrees of its kind (GE: an OR node, LE: an AND node), an attempt
** given up counted at the time it ran (its leaves come on top, so the ETA
** is low for those).  *n = 0 when there is nothing to say (also when out
** of memory).
*/
void dab_prover_subtrees_estimate(dab_proof *pf, size_t *n, dab_prover_subtrees *st);

/* The measured rate: what the last stretch of work did to the open leaves. */
typedef struct dab_prover_rate {
  char since[24];    /* the proof as it stood then (dab_proof_set_until); "0": empty */
  double window_cpu; /* CPU seconds recorded since: records and given-up searches */
  long long closed;  /* open leaves then minus open leaves now (net of new ones) */
  double eta_cpu;    /* open now x window_cpu / closed; 0 when closed <= 0 */
} dab_prover_rate;

/*
** The rate the proof has actually been closing at: the proof in dir is
** rebuilt as it stood before the last `window` CPU seconds of records (at
** the date of the newest record older than them; the empty proof when
** there are not that many), and the open leaves then and now (summary
** `now`) are compared, against the CPU time of every record and given-up
** search since.  Unlike estimates by medians and means, this charges the
** searches given up, the leaves that follow them and the candidates
** refuted, and credits the leaves that transpositions closed for free.
** RETURN: false when there is no history to measure (out untouched).
*/
bool dab_prover_rate_estimate(dab_proof *pf, const char *dir, double window,
                              const dab_proof_summary *now, dab_prover_rate *out);

/*
** A proof the records complete (s->state PROVED) goes into the board's
** tablebase file (the solved store, oracle/solvestore.h), as a search
** stores what it proves: the root with the claim's bounds, and every
** recorded position with the bounds its records give.  Boards a table
** covers are skipped (the table answers).  warn (optional) gets the
** store's warnings.
** RETURN: records written beyond the root (-1: nothing written); path
** gets the file (path_len bytes, "" when none).
*/
long dab_prover_store(const dab_proof *pf, const dab_proof_summary *s, const char *tb_dir,
                      void (*warn)(void *ctx, const char *msg), void *warn_ctx, char *path,
                      size_t path_len);

/* What dab_prover_recheck found. */
typedef struct dab_prover_recheck_result {
  int checked, wrong;  /* records re-solved, and those the search contradicts */
  int skipped;         /* stopped by the solver's node limit: neither confirmed nor contradicted */
  bool interrupted;    /* *cancel was set: the rest were not re-solved */
} dab_prover_recheck_result;

/*
** Re-solves k records of pf chosen at random (a partial Fisher-Yates
** shuffle seeded by seed: the same seed picks the same records) with ab,
** and compares each result with the record's.
** PARAMETERS: cancel (may be NULL) is the flag ab stops on for a signal; a
** search ab stops while it is clear was stopped by ab's node limit and is
** skipped.  each (may be NULL) hears of each record before its search
** (i of k, its label); bad (may be NULL) of each record contradicted.
** RETURN: DAB_OK with *res; DAB_ENOMEM; a search error.
*/
dab_status dab_prover_recheck(dab_proof *pf, dab_ab *ab, size_t k, uint64_t seed, dab_cancel_flag *cancel,
                              void (*each)(void *ctx, size_t i, size_t k, const char *label),
                              void (*bad)(void *ctx, const dab_proof_rec *r, const char *label), void *ctx,
                              dab_prover_recheck_result *res, dab_err *err);

/* ---- One run: what to solve next, solving it, recording it ------------ */
/*
** A run (dab_prover_new) walks the open claims of a proof in the order
** every machine agrees on, solves them one by one (dab_prover_run), or
** hands them to other processes (dab_prover_next, then dab_prover_search
** there and dab_prover_commit here: service/mpi_proof.c).  Every result
** is appended to the run's own records file before it counts, so a run
** killed at any moment loses only the searches in flight.
**
** THREAD SAFETY: a dab_prover is used by one thread at a time; the
** searches' own threads only call its progress hook.
*/

/* What a progress callback sees. */
typedef struct dab_prover_status {
  const char *label;      /* the claim being searched, e.g. "4x5:0110... >=+1" */
  bool direct;            /* a whole subtree tried as one search */
  uint64_t done, total;   /* leaves proved, and proved + open, when it started */
  double median;          /* median seconds of a record */
  double elapsed;         /* seconds of this search */
  uint64_t nodes;         /* nodes of this search */
} dab_prover_status;

/* One claim to search, from dab_prover_next. */
typedef struct dab_prover_task {
  dab_proof_claim claim;
  bool direct;            /* a node two plies above the leaves, tried whole */
  double limit;           /* seconds before it is given up; 0: none */
  char label[DAB_MAX_LINES + 40]; /* the position and the claim */
} dab_prover_task;

/* How a search ended (dab_prover_search). */
typedef enum dab_prover_outcome {
  DAB_PROVER_RECORDED = 0, /* line holds the record */
  DAB_PROVER_GAVE_UP,      /* the limit passed: line holds the "# open" note */
  DAB_PROVER_CANCELED,     /* opts.cancel was set: nothing to record */
  DAB_PROVER_OUT_OF_TIME   /* the run's budget is spent: nothing to record */
} dab_prover_outcome;

/* What a run tells as it goes. */
typedef enum dab_prover_event_kind {
  DAB_PROVER_EV_RECORD,   /* a record was written: rec */
  DAB_PROVER_EV_GAVE_UP,  /* a search reached its limit: seconds, nodes */
  DAB_PROVER_EV_SKIP,     /* a direct node an earlier run gave up on after seconds */
  DAB_PROVER_EV_STOPPED   /* a search stopped after seconds: outcome says why */
} dab_prover_event_kind;

typedef struct dab_prover_event {
  dab_prover_event_kind kind;
  const dab_prover_task *task;
  const dab_proof_rec *rec;
  double seconds;
  uint64_t nodes;
  dab_prover_outcome outcome; /* EV_STOPPED: CANCELED or OUT_OF_TIME */
} dab_prover_event;

typedef struct dab_prover_opts {
  double budget;          /* wall seconds for the run; 0: no limit */
  double leaf_limit;      /* give a leaf search up after this long and split
                             the leaf (a "# open" note); 0: no limit */
  double direct;          /* first try an open node two plies above the
                             leaves as one search, for this long; 0: off */
  int part_i, part_n;     /* only claims in this part (part_n <= 1: all) */
  dab_cancel_flag *cancel;/* optional: set (Ctrl-C) to stop the running search */
  /* optional: called from a search's threads, about once a second */
  void (*progress)(void *ctx, const dab_prover_status *st);
  void *progress_ctx;
  /* optional: every record, given-up search, skip and stop */
  void (*event)(void *ctx, const dab_prover_event *e);
  void *event_ctx;
  long max_records;       /* stop after this many records (0: no limit) */
  /* A table that outlives the run (dab solve --warm): the board's solved
  ** store (oracle/solvestore.h; found in warm_tb_dir, $DAB_TB_PATH or the
  ** cache, as a solve finds it) seeds the table before the first search
  ** and gets a checkpoint of its deepest entries every warm_every seconds
  ** (0: 600) between searches and when the run ends. */
  bool warm;
  const char *warm_tb_dir;
  double warm_every;
  uint64_t warm_entries;  /* entries a checkpoint keeps (0: a million) */
} dab_prover_opts;


typedef struct dab_prover dab_prover;

/*
** A run over pf (which it uses, not owns) that appends to rec_path (NULL:
** DIR/rec-DATE-HOST-PID.txt under dir; both NULL: nothing is written, for
** a process that only searches).
** RETURN: DAB_OK and *out; DAB_ENOMEM.
*/
dab_status dab_prover_new(dab_proof *pf, const dab_prover_opts *o, const char *dir, const char *rec_path,
                          dab_prover **out, dab_err *err);
void dab_prover_free(dab_prover *p);

/* The options the run was made with. */
const dab_prover_opts *dab_prover_options(const dab_prover *p);

/* The records file this run appends to ("" when none). */
const char *dab_prover_rec_path(const dab_prover *p);

/*
** Sets the cancel flag and progress hook of solver options so that the
** run can stop a search (budget, limit, Ctrl-C) and report it.  The
** solver made from them must be used with this run only.
*/
void dab_prover_hook(dab_prover *p, dab_ab_opts *o);

/*
** The next claim to search that is not one of busy[0..nbusy) (claims
** other processes are searching, and the leaves under a busy direct
** node); with prefer_group, a leaf of that subtree first (a warm table).
** RETURN: DAB_OK with *have true and *t filled, or *have false when the
** proof is decided or nothing is left for this part and these busy
** claims (dab_prover_summary says which); DAB_ENOMEM.
** NOTES: a direct node an earlier run gave up on is skipped (an
** EV_SKIP event).
*/
dab_status dab_prover_next(dab_prover *p, const dab_proof_claim *busy, int nbusy, uint64_t prefer_group,
                           dab_prover_task *t, bool *have, dab_err *err);

/* The summary of the last dab_prover_next or dab_prover_run. */
const dab_proof_summary *dab_prover_summary(const dab_prover *p);

/*
** Searches t with ab (made with dab_prover_hook options) until it is
** decided, its limit passes, the budget is spent or opts.cancel is set.
** PARAMETERS: line (>= DAB_MAX_LINES + 800 bytes) receives the record or
** the note; rec (may be NULL) the record.
** RETURN: DAB_OK with *outcome; an error of the search.
*/
dab_status dab_prover_search(dab_prover *p, dab_ab *ab, const dab_prover_task *t, dab_prover_outcome *outcome,
                             char *line, size_t len, dab_proof_rec *rec, dab_err *err);

/*
** Records a search's line (a record or a "# open" note, from
** dab_prover_search here or in another process): appends it to the
** records file, then adds it to the proof.
** RETURN: DAB_OK; DAB_EINPUT when a record does not parse (nothing
** written); DAB_EIO (nothing added); DAB_ECORRUPT when a record
** contradicts the proof (written, as the evidence, but not added).
** PARAMETERS: rec (may be NULL) receives the record parsed from line.
*/
dab_status dab_prover_commit(dab_prover *p, const dab_prover_task *t, const char *line, dab_proof_rec *rec,
                             dab_err *err);

/* Counts of a run. */
typedef struct dab_prover_result {
  int solved, gave_up;
  dab_prover_outcome stopped; /* RECORDED: it ran out of claims; CANCELED, OUT_OF_TIME */
} dab_prover_result;

/*
** Solves open claims of this part with ab until the proof is decided,
** none is left, the budget is spent or opts.cancel is set, telling
** opts.event of each step.
** RETURN: DAB_OK (also when stopped: r->stopped says why); the first
** error of a search, an eval or a write (what was recorded stays).
*/
dab_status dab_prover_run(dab_prover *p, dab_ab *ab, dab_prover_result *r, dab_err *err);

/*
** dab_prover_run on this process: the solver is made from abo (hooked to
** this run: dab_prover_hook) only when a claim is open, so a proof its
** records already decide costs no table; announce (may be NULL) hears the
** solver's memory (dab_ab_memory) before it is allocated.
** RETURN: as dab_prover_run (*r zeroed when nothing is open); the
** solver's failure (DAB_ENOMEM, with err saying so).
*/
dab_status dab_prover_run_here(dab_prover *p, const dab_ab_opts *abo, void (*announce)(void *ctx, uint64_t bytes),
                               void *ctx, dab_prover_result *r, dab_err *err);

#endif
