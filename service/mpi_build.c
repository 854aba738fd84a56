/*
** mpi_build.c: the layered tablebase build over the ranks of an MPI job
** (mpi_build.h).  Rank 0 drives dabtb_build with a layer hook; the other
** ranks hold copies of the finished layers and compute slices.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "service/mpi_build.h"

#ifndef DAB_MPI

bool dab_mpi_build_available(void) { return false; }

dab_status dab_mpi_build(int rows, int cols, const char *path, const dabtb_build_opts *opts,
                         dabtb_build_report *rep, int *rank, dab_err *err) {
  (void)rows, (void)cols, (void)path, (void)opts, (void)rep;
  *rank = -1;
  return dab_fail(err, DAB_EINPUT, "--mpi: this dab was built without MPI (build it with `make MPI=1`)");
}

#else

#include <mpi.h>

/*
** The protocol, all on MPI_COMM_WORLD, driven by rank 0:
**
**   command (MPI_Bcast of 3 x u64: op, layer, entries)
**     OP_LAYER  then the layer's bytes, MPI_Bcast in chunks of BCAST_CHUNK:
**               every rank keeps a copy (a finished layer above the next)
**     OP_SLICE  every rank r computes ranks [n*r/N, n*(r+1)/N) of the
**               layer; ranks 1..N-1 send rank 0 a reply_head (TAG_HEAD),
**               then, when it says OK, the slice's bytes (TAG_DATA, in
**               chunks); rank 0 receives them in rank order
**     OP_DONE   the run is over (rank 0's dabtb_build returned)
*/
enum { OP_LAYER = 1, OP_SLICE = 2, OP_DONE = 3 };
enum { TAG_HEAD = 11, TAG_DATA = 12 };
#define BCAST_CHUNK ((uint64_t)1 << 28) /* bytes per MPI call (counts are int) */

typedef struct reply_head {
  int64_t status;      /* dab_status of the slice */
  uint64_t canonical;
  char msg[sizeof(((dab_err *)0)->msg)];
} reply_head;

/* Rank r's slice of n entries among N ranks. */
static uint64_t slice_lo(uint64_t n, int r, int N) {
  return (uint64_t)((unsigned __int128)n * (unsigned)r / (unsigned)N);
}

static void bcast_bytes(uint8_t *p, uint64_t n) {
  for (uint64_t off = 0; off < n; off += BCAST_CHUNK) {
    uint64_t len = n - off < BCAST_CHUNK ? n - off : BCAST_CHUNK;
    MPI_Bcast(p + off, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
  }
}

static void send_bytes(const uint8_t *p, uint64_t n) {
  for (uint64_t off = 0; off < n; off += BCAST_CHUNK) {
    uint64_t len = n - off < BCAST_CHUNK ? n - off : BCAST_CHUNK;
    MPI_Send(p + off, (int)len, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
  }
}

static void recv_bytes(uint8_t *p, uint64_t n, int from) {
  for (uint64_t off = 0; off < n; off += BCAST_CHUNK) {
    uint64_t len = n - off < BCAST_CHUNK ? n - off : BCAST_CHUNK;
    MPI_Recv(p + off, (int)len, MPI_BYTE, from, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

static void command(uint64_t op, int layer, uint64_t entries) {
  uint64_t c[3] = {op, (uint64_t)layer, entries};
  MPI_Bcast(c, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD);
}

/* ---- Rank 0 ------------------------------------------------------------ */

typedef struct driver {
  int nranks;
  bool sent[DABTB_PLAN_MAX_LAYERS]; /* layers the other ranks hold */
} driver;

static dab_status drive_layer(void *ctx, const dabtb_lview *v, int layer, uint64_t n, uint8_t *out,
                              uint64_t *canonical, dab_err *err) {
  driver *d = ctx;
  int N = d->nranks;
  /* The layers finished since the last call (after a resume: all of
  ** them), top down. */
  for (int k = dabtb_lview_lines(v); k > layer; k--) {
    uint64_t nk = dabtb_lview_entries(v, k);
    if (d->sent[k] || !nk || N == 1) continue;
    command(OP_LAYER, k, nk);
    bcast_bytes((uint8_t *)(uintptr_t)dabtb_lview_layer(v, k), nk);
    d->sent[k] = true;
  }
  if (N > 1) command(OP_SLICE, layer, n);
  uint64_t hi0 = slice_lo(n, 1, N);
  dab_status st = dabtb_layer_slice(v, layer, 0, hi0, out, canonical, err);
  /* Every reply is received, failed or not, so that no rank is left
  ** blocked in a send. */
  for (int r = 1; r < N; r++) {
    reply_head h;
    MPI_Recv(&h, (int)sizeof h, MPI_BYTE, r, TAG_HEAD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    uint64_t lo = slice_lo(n, r, N), hi = slice_lo(n, r + 1, N);
    if (h.status == DAB_OK) {
      recv_bytes(out + lo, hi - lo, r);
      *canonical += h.canonical;
    } else if (!st) {
      h.msg[sizeof h.msg - 1] = 0;
      st = dab_fail(err, DAB_EIO, "rank %d, layer %d slice [%llu, %llu): %s", r, layer,
                    (unsigned long long)lo, (unsigned long long)hi, h.msg);
    }
  }
  return st;
}

/* ---- Ranks 1..N-1 ------------------------------------------------------ */

static dab_status serve(int rows, int cols, int threads, int rank, int N, dab_err *err) {
  dabtb_lview *v = NULL;
  dab_err why;
  memset(&why, 0, sizeof why);
  dab_status bad = dabtb_lview_new(rows, cols, threads, &v, &why);
  uint8_t *held[DABTB_PLAN_MAX_LAYERS] = {0};
  for (;;) {
    uint64_t c[3];
    MPI_Bcast(c, 3, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (c[0] == OP_DONE) break;
    int k = (int)c[1];
    uint64_t n = c[2];
    if (c[0] == OP_LAYER) {
      uint8_t *buf = NULL;
      if (!bad && (k < 0 || k >= DABTB_PLAN_MAX_LAYERS || n != dabtb_lview_entries(v, k)))
        bad = dab_fail(&why, DAB_EINTERNAL, "layer %d of %llu entries is not of this board", k,
                       (unsigned long long)n);
      if (!bad && !(buf = malloc(n)))
        bad = dab_fail(&why, DAB_ENOMEM, "out of memory for layer %d (%llu bytes)", k, (unsigned long long)n);
      if (buf) {
        bcast_bytes(buf, n);
        free(held[k]);
        held[k] = buf;
        bad = dabtb_lview_set_layer(v, k, buf, &why);
      } else { /* still take part in the broadcast, into a scratch chunk */
        uint64_t len = n < BCAST_CHUNK ? n : BCAST_CHUNK;
        uint8_t *scratch = malloc(len ? len : 1);
        if (!scratch) {
          fprintf(stderr, "dab build --mpi: rank %d: out of memory\n", rank);
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (uint64_t off = 0; off < n; off += len)
          MPI_Bcast(scratch, (int)(n - off < len ? n - off : len), MPI_BYTE, 0, MPI_COMM_WORLD);
        free(scratch);
      }
      continue;
    }
    /* OP_SLICE */
    reply_head h;
    memset(&h, 0, sizeof h);
    uint64_t lo = slice_lo(n, rank, N), hi = slice_lo(n, rank + 1, N);
    uint8_t *out = NULL;
    dab_status st = bad;
    dab_err e = why;
    if (!st && !(out = malloc(hi > lo ? hi - lo : 1)))
      st = dab_fail(&e, DAB_ENOMEM, "out of memory for a slice of %llu bytes", (unsigned long long)(hi - lo));
    if (!st) st = dabtb_layer_slice(v, k, lo, hi, out, &h.canonical, &e);
    h.status = st;
    if (st) snprintf(h.msg, sizeof h.msg, "%s", e.msg);
    MPI_Send(&h, (int)sizeof h, MPI_BYTE, 0, TAG_HEAD, MPI_COMM_WORLD);
    if (!st) send_bytes(out, hi - lo);
    free(out);
  }
  for (int k = 0; k < DABTB_PLAN_MAX_LAYERS; k++) free(held[k]);
  dabtb_lview_free(v);
  if (bad && err) *err = why;
  return bad;
}

bool dab_mpi_build_available(void) { return true; }

dab_status dab_mpi_build(int rows, int cols, const char *path, const dabtb_build_opts *opts,
                         dabtb_build_report *rep, int *rank, dab_err *err) {
  dabtb_build_opts o = opts ? *opts : (dabtb_build_opts){0};
  *rank = -1;
  if (o.full_array || o.fill_true)
    return dab_fail(err, DAB_EINPUT, "--mpi builds with the layered builder only (no --full-array)");
  int inited = 0, N = 1;
  MPI_Initialized(&inited);
  if (!inited) {
    int provided;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, &N);
  dab_status st;
  if (*rank == 0) {
    driver d;
    memset(&d, 0, sizeof d);
    d.nranks = N;
    o.layer_fn = drive_layer;
    o.layer_ctx = &d;
    st = dabtb_build(rows, cols, path, &o, rep, err);
    if (N > 1) command(OP_DONE, 0, 0);
  } else {
    o.progress = NULL;
    st = serve(rows, cols, o.threads, *rank, N, err);
  }
  if (!inited) MPI_Finalize();
  return st;
}

#endif
