/*
** prover.h: scheduling a divisible proof (solver/proof.h) across runs and
** machines: which open claim a machine takes next, how much is left, and
** storing a finished proof in the board's solved store.
** See Copyright Notice in README.md
*/
#ifndef DAB_PROVER_H
#define DAB_PROVER_H

#include <stdbool.h>
#include <stddef.h>
#include "solver/proof.h"

/* The default rate window: about an afternoon's work on one machine. */
#define DAB_PROVER_RATE_WINDOW (4 * 3600.0)

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

#endif
