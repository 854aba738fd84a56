/*
** failalloc.c: the --wrap allocator shim of failalloc.h (test programs only).
** See Copyright Notice in README.md
*/
#include "tests/failalloc.h"
#include <errno.h>
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
