/*
** tb_verify.h: re-deriving every stored value of a tablebase from its
** successors, layer by layer (the `dab verify` tool).
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_TB_VERIFY_H
#define DAB_TB_VERIFY_H

#include "tablebase/dabtb.h"

typedef struct dab_tbv_report {
  uint64_t checked;    /* stored (canonical) values re-derived */
  uint64_t entries;    /* indexed entries walked */
  double seconds;
} dab_tbv_report;

/*
** Walks layers from the full board (all lines drawn) down to the empty
** one.  For every canonical entry p of layer k it computes max over the
** moves m of (k_m + v(p+m)) or -v(p+m), reading the successors from the
** tablebase itself (layers above k, already verified, with captures
** resolved by the capture rule), and compares with the stored value.
** PARAMETERS: threads (0 = all cores) share the blocks of a layer;
** progress and cancel may be NULL; rep may be NULL.
** RETURN: DAB_OK; DAB_ECORRUPT with the first mismatch ("layer K block N
** entry E, position RxC:DBN: stored V, successors give W") or a block
** that fails its checksum; DAB_ECANCELED; DAB_ENOMEM.
** NOTES: thread-safe; tb is only read.
*/
dab_status dab_tb_verify(const dabtb *tb, int threads, dab_progress_fn progress, void *progress_ctx,
                         dab_cancel_flag *cancel, dab_tbv_report *rep, dab_err *err);

#endif
