/*
** mpi_build.h: one layered tablebase build over the ranks of an MPI job
** (`mpirun -np N dab build RxC --mpi`).  Compiled in with `make MPI=1`
** (-DDAB_MPI); without it dab_mpi_build only says so.
** Part of the service application (service/), not of libdab.
** See Copyright Notice in README.md
*/
#ifndef DAB_MPI_BUILD_H
#define DAB_MPI_BUILD_H

#include <stdbool.h>
#include "tablebase/tb_build.h"

/* True when this dab was built with MPI (make MPI=1). */
bool dab_mpi_build_available(void);

/*
** Builds the rows x cols tablebase at path with every rank of
** MPI_COMM_WORLD; call it on every rank with the same arguments.
** Rank 0 runs dabtb_build (so it alone takes the layer lock, keeps
** PATH.layers/ for a resume and writes the file); for each layer, from
** the full board down, it first broadcasts the layers finished since the
** last one to the other ranks (their own copies in memory: no shared
** file system is needed), then every rank computes its slice of the
** layer, ranks [n*r/N, n*(r+1)/N) for rank r of N (dabtb_layer_slice),
** and rank 0 receives the slices in rank order and writes the layer.
** The file is byte-identical to a one-process build (with the same
** $SOURCE_DATE_EPOCH: the file records its build date).
** PARAMETERS: opts as dabtb_build (full_array is refused; threads are
** per rank; callbacks run on rank 0 only); rep is filled on rank 0 (may
** be NULL); *rank receives this process's rank (-1 before MPI starts).
** Initializes MPI when the caller has not (and then finalizes it).
** RETURN: on rank 0 as dabtb_build, or DAB_EIO naming a rank whose slice
** failed; on the other ranks DAB_OK when rank 0 ended the run, or the
** rank's own error (out of memory for the layers it holds).
** DAB_EINPUT when dab was built without MPI or with opts->full_array.
** NOTES: memory per rank: every finished layer above the one computed
** (the layered builder's peak, docs/formats.md); a rank that dies ends
** the job (mpirun aborts it), and rerunning resumes from the layers
** finished on rank 0's disk.
*/
dab_status dab_mpi_build(int rows, int cols, const char *path, const dabtb_build_opts *opts,
                         dabtb_build_report *rep, int *rank, dab_err *err);

#endif
