/*
** store_concurrency.c: readers probing a tablebase file while one writer
** adds solved records to it, as processes and as threads; every answer is
** compared with a retrograde solve.  Errors and wrong values must be 0.
** Usage: store_concurrency FILE [SECONDS] [READERS] [procs|threads]
**   FILE: a built tablebase of a board of at most 32 lines (e.g. 2x5).
** Prints one line: operations, throughput, errors, wrong; exit 1 on any.
** See Copyright Notice in README.md
*/
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "bench/benchutil.h"
#include "solver/retro.h"
#include "tablebase/dabtb.h"

enum { POOL = 1 << 16, BATCH = 64, MAX_READERS = 64 };

/* What one reader did; in shared memory when readers are processes. */
typedef struct reader_stats {
  long probes, lookups, found, errors, wrong;
  double seconds;
  char first_error[300];
} reader_stats;

typedef struct shared_run {
  const char *path;
  int rows, cols;
  const dab_retro *truth;
  const uint64_t *pool;      /* the positions the writer stores, in order */
  double deadline;
  dabtb *tb;                 /* threads: one handle for every reader */
  dabtb_store *store;        /* threads: one read handle, taken in turns */
  pthread_mutex_t store_lock;
  atomic_long written;       /* records the writer has committed */
  reader_stats *stats;
} shared_run;

typedef struct reader_arg {
  shared_run *run;
  int id;
} reader_arg;

static uint64_t xorshift(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  return *s;
}

/* A position with each line drawn with probability per16/16. */
static uint64_t random_pos(const dab_geom *g, uint64_t *s, int per16) {
  uint64_t p = 0;
  for (int m = 0; m < g->nlines; m++)
    if ((int)(xorshift(s) % 16) < per16) p |= 1ull << m;
  return p;
}

static void note_error(reader_stats *st, const char *what, const char *msg) {
  if (!st->first_error[0]) snprintf(st->first_error, sizeof st->first_error, "%s: %s", what, msg);
}

/* The reader loop: batches of table probes against the truth, then one
** lookup of a pool position in the solved store (found only once the
** writer stored it; a found record must be exact and equal the truth). */
static void read_until_deadline(shared_run *run, dabtb *tb, dabtb_store *store, bool shared_store,
                                reader_stats *st, uint64_t seed) {
  const dab_geom *g = dabtb_geom(tb);
  double t0 = bench_now();
  dab_err err;
  while (bench_now() < run->deadline) {
    for (int i = 0; i < BATCH; i++) {
      uint64_t p = random_pos(g, &seed, 1 + (int)(xorshift(&seed) % 15));
      int v;
      st->probes++;
      if (dabtb_value(tb, p, &v, &err)) {
        st->errors++;
        note_error(st, "probe", err.msg);
      } else if (v != dab_retro_value(run->truth, p)) {
        st->wrong++;
        note_error(st, "probe", "a wrong value");
      }
    }
    uint64_t p = run->pool[xorshift(&seed) % POOL];
    dabtb_solved rec;
    bool found = false;
    if (shared_store) pthread_mutex_lock(&run->store_lock);
    dab_status s = dabtb_store_get(store, p, &rec, &found, &err);
    if (shared_store) pthread_mutex_unlock(&run->store_lock);
    st->lookups++;
    if (s) {
      st->errors++;
      note_error(st, "lookup", err.msg);
    } else if (found) {
      st->found++;
      int v = dab_retro_value(run->truth, p);
      if (rec.lower != v || rec.upper != v) {
        st->wrong++;
        note_error(st, "lookup", "a stored record differs from the truth");
      }
    }
  }
  st->seconds = bench_now() - t0;
}

/* The writer: the pool in batches of BATCH exact records, one transaction
** each, until the deadline (then from the start again: merges of equal
** bounds).  RETURN: 0, or 1 after a failed put (message on stderr). */
static int write_until_deadline(shared_run *run) {
  dab_err err;
  dabtb_store *s;
  if (dabtb_store_open(run->path, run->rows, run->cols, DABTB_STORE_WRITE,
                       &s, &err)) {
    fprintf(stderr, "store_concurrency: writer: %s\n", err.msg);
    return 1;
  }
  size_t at = 0;
  while (bench_now() < run->deadline) {
    dabtb_solved recs[BATCH];
    for (int i = 0; i < BATCH; i++) {
      int v = dab_retro_value(run->truth, run->pool[at + (size_t)i]);
      recs[i] = (dabtb_solved){v, v, -1, 1, 0, 0};
    }
    if (dabtb_store_put(s, BATCH, run->pool + at, recs, &err)) {
      fprintf(stderr, "store_concurrency: writer: %s\n", err.msg);
      dabtb_store_close(s);
      return 1;
    }
    atomic_fetch_add(&run->written, BATCH);
    at = (at + BATCH) % POOL;
  }
  dabtb_store_close(s);
  return 0;
}

static void *reader_thread(void *p) {
  reader_arg *a = p;
  read_until_deadline(a->run, a->run->tb, a->run->store, true, &a->run->stats[a->id], 0x9e3779b97f4a7c15ull * (uint64_t)(a->id + 1));
  return NULL;
}

static void *writer_thread(void *p) {
  return (void *)(intptr_t)write_until_deadline(p);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: store_concurrency FILE [SECONDS] [READERS] [procs|threads]\n");
    return 2;
  }
  shared_run run = {.path = argv[1]};
  double seconds = argc > 2 ? atof(argv[2]) : 60;
  int readers = argc > 3 ? atoi(argv[3]) : 16;
  bool threads = argc > 4 && !strcmp(argv[4], "threads");
  if (readers < 1 || readers > MAX_READERS || !(seconds > 0)) {
    fprintf(stderr, "store_concurrency: 1..%d readers, seconds > 0\n", MAX_READERS);
    return 2;
  }
  dab_err err;
  dabtb *tb;
  if (dabtb_open(run.path, NULL, &tb, &err)) {
    fprintf(stderr, "store_concurrency: %s\n", err.msg);
    return 2;
  }
  const dab_geom *g = dabtb_geom(tb);
  dab_retro *truth;
  dab_retro_opts ro = {.threads = 0};
  if (dab_retro_solve(g, 0, &ro, &truth, &err)) {
    fprintf(stderr, "store_concurrency: retrograde: %s\n", err.msg);
    return 2;
  }
  run.truth = truth;
  run.rows = g->rows;
  run.cols = g->cols;
  uint64_t *pool = malloc(POOL * sizeof *pool), seed = 2026;
  for (int i = 0; i < POOL; i++) pool[i] = random_pos(g, &seed, 8);
  run.pool = pool;
  /* Stats in shared memory: forked readers write them in place. */
  run.stats = mmap(NULL, MAX_READERS * sizeof(reader_stats), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                   -1, 0);
  if (run.stats == MAP_FAILED) return 2;
  memset(run.stats, 0, MAX_READERS * sizeof(reader_stats));
  atomic_init(&run.written, 0);
  /* The store must exist before readers open it read-only. */
  dabtb_store *s0;
  if (dabtb_store_open(run.path, g->rows, g->cols, DABTB_STORE_WRITE, &s0, &err)) {
    fprintf(stderr, "store_concurrency: %s\n", err.msg);
    return 2;
  }
  dabtb_store_close(s0);
  double t0 = bench_now();
  run.deadline = t0 + seconds;
  int failed_children = 0;
  long written = 0;
  if (threads) {
    run.tb = tb;
    pthread_mutex_init(&run.store_lock, NULL);
    if (dabtb_store_open(run.path, g->rows, g->cols, DABTB_STORE_READ, &run.store, &err)) {
      fprintf(stderr, "store_concurrency: %s\n", err.msg);
      return 2;
    }
    pthread_t w, th[MAX_READERS];
    reader_arg args[MAX_READERS];
    pthread_create(&w, NULL, writer_thread, &run);
    for (int i = 0; i < readers; i++) {
      args[i] = (reader_arg){&run, i};
      pthread_create(&th[i], NULL, reader_thread, &args[i]);
    }
    for (int i = 0; i < readers; i++) pthread_join(th[i], NULL);
    void *wr;
    pthread_join(w, &wr);
    failed_children = wr != NULL;
    written = atomic_load(&run.written);
    dabtb_store_close(run.store);
  } else {
    dabtb_close(tb); /* each process opens its own, after fork */
    tb = NULL;
    long *wcount = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t w = fork();
    if (w == 0) {
      int rc = write_until_deadline(&run);
      *wcount = atomic_load(&run.written);
      _exit(rc);
    }
    for (int i = 0; i < readers; i++) {
      if (fork() == 0) {
        dabtb *mine;
        dabtb_store *st;
        reader_stats *rs = &run.stats[i];
        if (dabtb_open(run.path, NULL, &mine, &err) ||
            dabtb_store_open(run.path, g->rows, g->cols, DABTB_STORE_READ, &st, &err)) {
          rs->errors++;
          note_error(rs, "open", err.msg);
          _exit(1);
        }
        read_until_deadline(&run, mine, st, false, rs, 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1));
        dabtb_store_close(st);
        dabtb_close(mine);
        _exit(0);
      }
    }
    int status;
    while (wait(&status) > 0)
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed_children++;
    written = *wcount;
  }
  double wall = bench_now() - t0;
  long probes = 0, lookups = 0, found = 0, errors = 0, wrong = 0;
  double per_reader[MAX_READERS];
  for (int i = 0; i < readers; i++) {
    reader_stats *r = &run.stats[i];
    probes += r->probes, lookups += r->lookups, found += r->found, errors += r->errors, wrong += r->wrong;
    per_reader[i] = r->seconds > 0 ? (double)r->probes / r->seconds : 0;
    if (r->first_error[0]) fprintf(stderr, "reader %d: %s\n", i, r->first_error);
  }
  qsort(per_reader, (size_t)readers, sizeof *per_reader, bench_cmp_double);
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  long rss = ru.ru_maxrss;
  getrusage(RUSAGE_SELF, &ru);
  if (ru.ru_maxrss > rss) rss = ru.ru_maxrss;
  printf("%s: %d readers, %.1f s wall: %ld probes (%.0f/s in all, median reader %.0f/s), "
         "%ld store lookups (%ld found), writer %ld records in %ld transactions; "
         "errors %ld, wrong %ld, failed %s %d; peak RSS %ld MB\n",
         threads ? "threads" : "processes", readers, wall, probes, (double)probes / wall,
         per_reader[readers / 2], lookups, found, written, written / BATCH, errors, wrong,
         threads ? "writer" : "processes", failed_children, rss / 1024);
  if (tb) dabtb_close(tb);
  dab_retro_free(truth);
  free(pool);
  return errors || wrong || failed_children || written == 0 ? 1 : 0;
}
