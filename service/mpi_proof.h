/*
** mpi_proof.h: one divisible proof over the ranks of an MPI job
** (`mpirun -np N dab solve POS --proof DIR --mpi`).  Rank 0 owns the
** proof and its records and is the only writer to DIR; ranks 1..N-1
** search the claims it hands them.  Compiled in with `make MPI=1`
** (-DDAB_MPI); without it every call says so.
** Part of the service application (service/), not of libdab.
** See Copyright Notice in README.md
*/
#ifndef DAB_MPI_PROOF_H
#define DAB_MPI_PROOF_H

#include <stdbool.h>
#include "proof/prover.h"

/* True when this dab was built with MPI (make MPI=1). */
bool dab_mpi_proof_available(void);

/*
** Joins the MPI job (MPI_Init_thread, unless the caller did) and says
** where this process stands in it.
** RETURN: DAB_OK with *rank and *nranks; DAB_EINPUT without MPI.
*/
dab_status dab_mpi_join(int *rank, int *nranks, dab_err *err);

/* Leaves the job (MPI_Finalize) when dab_mpi_join started it. */
void dab_mpi_leave(void);

/*
** Rank 0: runs proof pf with the run p (dab_prover_new: budget, limits,
** events and the records file are p's).  Hands the next claim
** (dab_prover_next, claims in flight excluded, the same subtree as the
** worker's last claim first, so its table stays warm) to each idle rank,
** and commits each result (dab_prover_commit) before the rank gets more.
** With one rank it searches itself (dab_prover_run with a solver of abo).
** PARAMETERS: pf NULL tells the other ranks there is nothing to do (the
** proof did not open); abo the solver options of rank 0 alone.
** RETURN: DAB_OK with *r (r->stopped: OUT_OF_TIME or CANCELED when the
** budget or a signal ended it; the searches then in flight are lost);
** a rank's search error or a write error of DIR (the other ranks are
** stopped; what was recorded stays).
** NOTES: a rank that dies ends the job (mpirun aborts it); rerun it and
** the proof continues from the records, losing only the searches that
** were in flight.  Records travel as their text lines and are written by
** rank 0 alone, so DIR needs no shared file system.
*/
dab_status dab_mpi_prove_lead(dab_proof *pf, dab_prover *p, const dab_ab_opts *abo, dab_prover_result *r,
                              dab_err *err);

/*
** Ranks 1..N-1: receive the proof's spec from rank 0, then search the
** claims it sends with a solver of abo (threads, table) until it says
** stop.  o gives the budget and Ctrl-C flag (limits come with each claim).
** RETURN: DAB_OK when rank 0 ended the run (also when there was nothing
** to do); this rank's error (also sent to rank 0).
*/
dab_status dab_mpi_prove_work(const dab_ab_opts *abo, const dab_prover_opts *o, dab_err *err);

#endif
