/*
** retro.c: exhaustive retrograde solver over every position below a root.
** See Copyright Notice in README.md
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "game/sysmem.h"
#include "solver/retro.h"
#include "solver/retro_sweep.h"
#include "game/clock.h"

/*
** Solving order.  Every move adds a line, so a child's index is its
** parent's index with one more bit set: larger.  Sweeping indices from
** high to low therefore meets every child before its parent.
**
** Threads.  The top S index bits name one of 2^S blocks.  A child lies in
** the same block (solved earlier in the same descending sweep) or in a
** block whose number has one more bit set.  So blocks are taken in layers
** by popcount of the block number, S down to 0: the blocks of one layer
** are independent and threads share them; a barrier separates layers.
**
**   block no. popcount:   S  |  S-1  | ... |  1  |  0
**   blocks per layer:     1  |   S   | ... |  S  |  1
**
** The capture rule.  Let b be a capturable box (three sides) whose last
** line s is shared with box n.
**   - If n is the edge, or n has 0, 1 or 3 sides drawn, taking b is
**     optimal (a safe capture; with 3 sides, s takes both boxes).
**   - Otherwise every capturable box would hand over its neighbour.  A
**     move that captures nothing, other than n's second undrawn line t
**     (the decline), is dominated by taking b first and then playing it:
**     the opponent could have taken b anyway.  So the candidates are all
**     capturing moves plus t for one such b.  (Declining b at once is not
**     enough: the best play may take another chain first, decline last.)
** Quiet positions (no capturable box) try every move, none of which can
** capture.  The plain mode tries every move everywhere; the tests compare
** the two modes on every position of several boards.  The loop over one
** block is retro_sweep.c, built for any x86-64 and for x86-64-v3.
*/

typedef struct retro_job {
  dab_retro_sweep sweep;    /* the table and what the inner loop reads */
  dab_retro_sweep_fn sweep_fn;  /* its variant for this CPU (game/isa.h) */
  int nfree, split;         /* F and S */
  int threads;
  pthread_barrier_t barrier;
  /* Per layer: the block numbers, and the next one to take. */
  uint32_t *layer_blocks;   /* all block numbers, grouped by popcount desc */
  uint32_t layer_start[DAB_RETRO_SPLIT_BITS + 2];
  atomic_uint next_block[DAB_RETRO_SPLIT_BITS + 1];
  atomic_uint_fast64_t done;
  atomic_int canceled;
  dab_cancel_flag *cancel;
  dab_progress_fn progress;
  void *progress_ctx;
  pthread_mutex_t progress_lock;
  pthread_mutex_t gate_lock;  /* workers wait here until the thread count is known */
  pthread_cond_t gate_open_cv;
  bool gate_open;
  double t0, last_report;
  char what[64];
} retro_job;

static void report(retro_job *j, bool force) {
  if (!j->progress) return;
  if (pthread_mutex_trylock(&j->progress_lock)) return;
  double t = dab_now_s();
  if (force || t - j->last_report >= DAB_PROGRESS_INTERVAL) {
    j->last_report = t;
    dab_progress pr = {j->what, atomic_load(&j->done), 1ull << j->nfree, t - j->t0};
    j->progress(j->progress_ctx, &pr);
  }
  pthread_mutex_unlock(&j->progress_lock);
}

static void *worker(void *arg) {
  retro_job *j = arg;
  pthread_mutex_lock(&j->gate_lock);
  while (!j->gate_open) pthread_cond_wait(&j->gate_open_cv, &j->gate_lock);
  pthread_mutex_unlock(&j->gate_lock);
  uint64_t block_size = 1ull << (j->nfree - j->split);
  for (int layer = j->split; layer >= 0; layer--) {
    uint32_t first = j->layer_start[j->split - layer], last = j->layer_start[j->split - layer + 1];
    for (;;) {
      if (j->cancel && *j->cancel) atomic_store(&j->canceled, 1);
      if (atomic_load(&j->canceled)) break;
      uint32_t k = atomic_fetch_add(&j->next_block[layer], 1u) + first;
      if (k >= last) break;
      uint64_t base = (uint64_t)j->layer_blocks[k] << (j->nfree - j->split);
      j->sweep_fn(&j->sweep, base, block_size);
      atomic_fetch_add(&j->done, block_size);
      report(j, false);
    }
    pthread_barrier_wait(&j->barrier);
  }
  return NULL;
}

static int8_t *map_table(uint64_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  /* Children sit 2^k entries away for every k: huge pages spare the TLB. */
  madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

void dab_retro_free(dab_retro *r) {
  if (!r) return;
  if (r->value) munmap(r->value, r->count);
  free(r);
}

dab_status dab_retro_solve(const dab_geom *g, uint64_t root, const dab_retro_opts *opts,
                           dab_retro **out, dab_err *err) {
  static const dab_retro_opts defaults;
  if (!opts) opts = &defaults;
  *out = NULL;
  if (!dab_geom_fast(g))
    return dab_fail(err, DAB_EBOARD, "board %dx%d has %d lines; the retrograde solver needs <= 64",
                    g->rows, g->cols, g->nlines);
  if (root & ~g->all_lines) return dab_fail(err, DAB_EINPUT, "root position has lines off the board");
  uint64_t free_mask = g->all_lines & ~root;
  int nfree = dab_popcount64(free_mask);
  if (nfree > DAB_RETRO_MAX_FREE)
    return dab_fail(err, DAB_EBOARD,
                    "%d undrawn lines: the retrograde table would need 2^%d entries; it handles at most %d "
                    "undrawn lines (use the search solver)",
                    nfree, nfree, DAB_RETRO_MAX_FREE);
  uint64_t bytes = dab_retro_bytes(nfree);
  uint64_t limit = opts->mem_limit ? opts->mem_limit : dab_mem_available();
  if (limit && bytes > limit)
    return dab_fail(err, DAB_ENOMEM,
                    "the %dx%d retrograde table needs %.1f MiB but %s %.1f MiB", g->rows, g->cols,
                    (double)bytes / 1048576.0, opts->mem_limit ? "the memory limit is" : "the memory available is",
                    (double)limit / 1048576.0);

  dab_retro *r = calloc(1, sizeof *r);
  if (!r) return dab_fail(err, DAB_ENOMEM, "out of memory");
  r->geom = *g;
  r->root = root;
  r->free_mask = free_mask;
  r->nfree = nfree;
  r->count = bytes;
  r->value = map_table(bytes);
  if (!r->value) {
    free(r);
    return dab_fail(err, DAB_ENOMEM, "could not allocate %.1f MiB for the retrograde table",
                    (double)bytes / 1048576.0);
  }

  retro_job *j = calloc(1, sizeof *j);
  int split = nfree >= 16 ? DAB_RETRO_SPLIT_BITS : 0;
  uint32_t nblocks = 1u << split;
  uint32_t *blocks = malloc(nblocks * sizeof *blocks);
  if (!j || !blocks) {
    free(j);
    free(blocks);
    dab_retro_free(r);
    return dab_fail(err, DAB_ENOMEM, "out of memory");
  }
  j->sweep = (dab_retro_sweep){.g = &r->geom, .root = root, .free_mask = free_mask,
                               .index_mask = nfree == 64 ? ~0ull : (1ull << nfree) - 1,
                               .plain = opts->plain, .value = r->value};
  j->sweep_fn = dab_retro_sweep_pick();
  j->nfree = nfree;
  j->split = split;
  j->cancel = opts->cancel;
  j->progress = opts->progress;
  j->progress_ctx = opts->progress_ctx;
  snprintf(j->what, sizeof j->what, "retrograde %dx%d", g->rows, g->cols);
  /* Group block numbers by popcount, highest first. */
  uint32_t n = 0;
  for (int layer = split; layer >= 0; layer--) {
    j->layer_start[split - layer] = n;
    for (uint32_t b = 0; b < nblocks; b++)
      if (__builtin_popcount(b) == layer) blocks[n++] = b;
  }
  j->layer_start[split + 1] = n;
  j->layer_blocks = blocks;
  int threads = opts->threads > 0 ? opts->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (threads < 1) threads = 1;
  if (threads > 256) threads = 256;
  pthread_mutex_init(&j->progress_lock, NULL);
  pthread_mutex_init(&j->gate_lock, NULL);
  pthread_cond_init(&j->gate_open_cv, NULL);
  j->t0 = j->last_report = dab_now_s();

  /* Start the helpers behind a gate; if some cannot start, run with those
  ** that did (the barrier counts only threads that exist). */
  pthread_t tids[256];
  int started = 0;
  for (; started < threads - 1; started++)
    if (pthread_create(&tids[started], NULL, worker, j)) break;
  j->threads = started + 1;
  pthread_barrier_init(&j->barrier, NULL, (unsigned)j->threads);
  pthread_mutex_lock(&j->gate_lock);
  j->gate_open = true;
  pthread_cond_broadcast(&j->gate_open_cv);
  pthread_mutex_unlock(&j->gate_lock);
  worker(j);
  for (int i = 0; i < started; i++) pthread_join(tids[i], NULL);
  dab_status st = atomic_load(&j->canceled) ? dab_fail(err, DAB_ECANCELED, "canceled") : DAB_OK;
  if (st == DAB_OK) report(j, true);
  pthread_barrier_destroy(&j->barrier);
  pthread_mutex_destroy(&j->progress_lock);
  pthread_mutex_destroy(&j->gate_lock);
  pthread_cond_destroy(&j->gate_open_cv);
  free(blocks);
  free(j);
  if (st) {
    dab_retro_free(r);
    return st;
  }
  *out = r;
  return DAB_OK;
}

dab_status dab_retro_analyze(const dab_retro *r, uint64_t p, dab_analysis *a, dab_err *err) {
  const dab_geom *g = &r->geom;
  if (!dab_retro_covers(r, p))
    return dab_fail(err, DAB_EINPUT, "position is not below the table's root");
  a->nmoves = 0;
  a->value = dab_retro_value(r, p);
  for (int m = 0; m < g->nlines; m++) {
    if (p >> m & 1) continue;
    int k = dab64_completes(g, p, m);
    int child = dab_retro_value(r, p | 1ull << m);
    a->move[a->nmoves] = (int16_t)m;
    a->move_value[a->nmoves++] = (int16_t)(k ? k + child : -child);
  }
  dab_analysis_pick_best(a);
  return DAB_OK;
}
