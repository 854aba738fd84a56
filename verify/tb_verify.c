/*
** tb_verify.c: the tablebase verifier: every stored value against its
** successors.
** See Copyright Notice in README.md
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "game/postext.h"
#include "tablebase/tb_internal.h"
#include "verify/tb_verify.h"
#include "game/clock.h"

typedef struct vjob {
  const dabtb *tb;
  int layer;
  uint32_t first, end;          /* blocks of the layer */
  _Atomic uint32_t next;
  _Atomic uint64_t done, checked;
  _Atomic int failed;
  dab_cancel_flag *cancel;
  pthread_mutex_t lock;
  dab_err err;
  uint32_t bad_block;           /* lowest failing block, to report the first */
} vjob;

static void vfail(vjob *j, uint32_t block, dab_status st, const dab_err *e) {
  pthread_mutex_lock(&j->lock);
  if (!atomic_load(&j->failed) || block < j->bad_block) {
    j->err = *e;
    j->bad_block = block;
    atomic_store(&j->failed, (int)st);
  }
  pthread_mutex_unlock(&j->lock);
}

static void *vworker(void *arg) {
  vjob *j = arg;
  const dabtb *tb = j->tb;
  const dab_geom *g = &tb->geom;
  int16_t moves[64], vals[64];
  dab_err e;
  for (;;) {
    if (atomic_load(&j->failed) || (j->cancel && *j->cancel)) break;
    uint32_t bi = atomic_fetch_add(&j->next, 1);
    if (j->first + bi >= j->end) break;
    uint32_t blk = j->first + bi;
    const dabtb_block *b = &tb->blocks[blk];
    uint8_t *owned;
    dab_status st = DAB_OK;
    const uint8_t *pl = dabtb_block_payload(tb, blk, &owned, &st, &e);
    if (!pl) {
      vfail(j, blk, st, &e);
      break;
    }
    dab_tbidx_iter it;
    dab_tbidx_seek(&tb->idx, &it, j->layer, (uint64_t)b->number * tb->block_entries);
    uint64_t checked = 0;
    for (uint32_t i = 0; i < b->entries; i++) {
      uint64_t p = it.pos;
      if (dabtb_is_canonical(tb->sym, p)) {
        int R = dabtb_open_boxes(g, p), stored = 2 * pl[i] - R, n, derived = 0;
        st = dabtb_move_values(tb, p, moves, vals, &n, &e);
        if (st) {
          vfail(j, blk, st, &e);
          break;
        }
        for (int m = 0; m < n; m++)
          if (m == 0 || vals[m] > derived) derived = vals[m];
        if (pl[i] > R || stored != derived) {
          char dbn[128];
          dab_lineset ls = dab_ls_from_word(p);
          dab_format_dbn(g, &ls, dbn, sizeof dbn);
          dab_fail(&e, DAB_ECORRUPT, "layer %d block %u entry %u, position %s: stored %d, successors give %d",
                   j->layer, b->number, i, dbn, stored, derived);
          vfail(j, blk, DAB_ECORRUPT, &e);
          break;
        }
        checked++;
      }
      if (i + 1 < b->entries) dab_tbidx_step(&tb->idx, &it);
    }
    free(owned);
    atomic_fetch_add(&j->done, b->entries);
    atomic_fetch_add(&j->checked, checked);
    if (st) break;
  }
  return NULL;
}

dab_status dab_tb_verify(const dabtb *tb, int threads, dab_progress_fn progress, void *progress_ctx,
                         dab_cancel_flag *cancel, dab_tbv_report *rep, dab_err *err) {
  if (threads <= 0) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    threads = n > 0 ? (int)n : 1;
  }
  if (threads > 64) threads = 64;
  dab_tbv_report r = {0};
  double t0 = dab_now_s();
  dab_progress pr = {"verify", 0, tb->idx.total, 0};
  uint64_t done_before = 0;
  double last = 0;
  for (int k = tb->geom.nlines; k >= 0; k--) {
    vjob j;
    memset(&j, 0, sizeof j);
    j.tb = tb;
    j.layer = k;
    j.first = tb->layer_block0[k];
    j.end = tb->layer_block0[k + 1];
    j.cancel = cancel;
    pthread_mutex_init(&j.lock, NULL);
    pthread_t th[64];
    int started = 0;
    for (int i = 0; i < threads; i++)
      if (pthread_create(&th[i], NULL, vworker, &j) == 0) started++;
      else break;
    if (!started) vworker(&j);
    while (started && !atomic_load(&j.failed) && !(cancel && *cancel) &&
           atomic_load(&j.done) < tb->idx.layer_count[k]) {
      struct timespec ts = {0, 5 * 1000 * 1000};
      nanosleep(&ts, NULL);
      pr.done = done_before + atomic_load(&j.done);
      pr.elapsed = dab_now_s() - t0;
      if (progress && pr.elapsed - last >= DAB_PROGRESS_INTERVAL) {
        last = pr.elapsed;
        progress(progress_ctx, &pr);
      }
    }
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    pthread_mutex_destroy(&j.lock);
    r.checked += atomic_load(&j.checked);
    r.entries += atomic_load(&j.done);
    done_before += atomic_load(&j.done);
    if (atomic_load(&j.failed)) {
      if (err) *err = j.err;
      return (dab_status)atomic_load(&j.failed);
    }
    if (cancel && *cancel) return dab_fail(err, DAB_ECANCELED, "verify canceled");
  }
  r.seconds = dab_now_s() - t0;
  if (rep) *rep = r;
  return DAB_OK;
}
