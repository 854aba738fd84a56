/*
** failalloc.c: the --wrap allocator shim of failalloc.h (test programs only).
** See Copyright Notice in README.md
*/
#include "tests/failalloc.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/types.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);

static _Atomic uint64_t fa_count, fa_target;
static atomic_bool fa_hit;

/* Sites are few (a few hundred in the library): a fixed table, scanned
** linearly, holds them; its lock is the first-come flag below, since a
** failure is delivered once per arming. */
#define FA_MAX_SITES 4096
static void *fa_site[FA_MAX_SITES];
static int fa_nsites;
static void *fa_last;

/* The record of a run's calls (fa_record): the site of each, in order. */
static pthread_mutex_t fa_rec_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool fa_recording;
static void **fa_rec;
static size_t fa_nrec, fa_caprec;

void fa_record(bool on) {
  pthread_mutex_lock(&fa_rec_lock);
  if (on) fa_nrec = 0;
  atomic_store(&fa_recording, on);
  pthread_mutex_unlock(&fa_rec_lock);
}

size_t fa_recorded(void *const **site) {
  *site = (void *const *)fa_rec;
  return fa_nrec;
}

/* Appends a call's site; the table grows by the real realloc (not
** counted), and stops growing when that fails. */
static void fa_note(void *site) {
  pthread_mutex_lock(&fa_rec_lock);
  if (fa_nrec == fa_caprec) {
    size_t cap = fa_caprec ? 2 * fa_caprec : 4096;
    void **r = __real_realloc(fa_rec, cap * sizeof *r);
    if (r) fa_rec = r, fa_caprec = cap;
  }
  if (fa_nrec < fa_caprec) fa_rec[fa_nrec++] = site;
  pthread_mutex_unlock(&fa_rec_lock);
}

void fa_arm(uint64_t n) {
  atomic_store(&fa_count, 0);
  atomic_store(&fa_hit, false);
  atomic_store(&fa_target, n);
}

uint64_t fa_calls(void) { return atomic_load(&fa_count); }
bool fa_fired(void) { return atomic_load(&fa_hit); }
int fa_sites(void) { return fa_nsites; }
void *fa_last_site(void) { return fa_last; }

int fa_site_list(void **site, int max) {
  int n = fa_nsites < max ? fa_nsites : max;
  for (int i = 0; i < n; i++) site[i] = fa_site[i];
  return n;
}

/* True when this call is the armed one; records its site. */
static bool fa_fail(void *site) {
  uint64_t target = atomic_load(&fa_target);
  uint64_t k = atomic_fetch_add(&fa_count, 1) + 1;
  if (atomic_load(&fa_recording)) fa_note(site);
  if (!target || k != target) return false;
  atomic_store(&fa_hit, true);
  fa_last = site;
  int i = 0;
  while (i < fa_nsites && fa_site[i] != site) i++;
  if (i == fa_nsites && fa_nsites < FA_MAX_SITES) fa_site[fa_nsites++] = site;
  errno = ENOMEM;
  return true;
}

void *__wrap_malloc(size_t n) {
  return fa_fail(__builtin_return_address(0)) ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n) {
  return fa_fail(__builtin_return_address(0)) ? NULL : __real_calloc(k, n);
}

/* A failed realloc leaves p allocated, as the real one does. */
void *__wrap_realloc(void *p, size_t n) {
  return fa_fail(__builtin_return_address(0)) ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s) {
  return fa_fail(__builtin_return_address(0)) ? NULL : __real_strdup(s);
}

/* Anonymous maps are allocations (the big tables: game/sysmem.c, the
** retrograde table, a tablebase's block cache); maps of files are not
** counted. */
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  if ((flags & MAP_ANONYMOUS) && fa_fail(__builtin_return_address(0))) return MAP_FAILED;
  return __real_mmap(addr, len, prot, flags, fd, off);
}
