/*
** failalloc.h: a test-only allocator shim that fails the Nth allocation.
** See Copyright Notice in README.md
*/
#ifndef DAB_FAILALLOC_H
#define DAB_FAILALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
** A program linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,
** --wrap=strdup,--wrap=mmap (the Makefile's rule for
** tests/test_alloc_fail) and tests/failalloc.c sends every allocation its
** objects make (libdab.a's and its own, not the shared libraries': LMDB's,
** zstd's and libc's own are outside) through these counters; mmap counts
** for anonymous maps only.  Armed with n, the nth allocation from then on
** fails (NULL or MAP_FAILED, errno ENOMEM), once; the call site of
** each failure is remembered, so a sweep can say how many distinct sites
** it reached.  The state is this test program's alone: the library keeps
** none.  Thread-safe (atomics); a sweep is deterministic when the code
** under test allocates from one thread.
*/

/* Fails the nth allocation from now (n >= 1); 0 disarms. */
void fa_arm(uint64_t n);

/* Turns the record of calls on (emptied) or off: the call site of every
** allocation counted meanwhile, in order, so a sweep can choose which to
** fail.  fa_recorded gives the table (valid until the next recording)
** and its length; the table is the shim's own (the real allocator's). */
void fa_record(bool on);
size_t fa_recorded(void *const **site);

/* Allocations counted since the last fa_arm. */
uint64_t fa_calls(void);

/* True when the armed failure was delivered. */
bool fa_fired(void);

/* Distinct call sites failed so far (return addresses). */
int fa_sites(void);

/* The sites failed so far: their return addresses (at most max). */
int fa_site_list(void **site, int max);

/* The return address of the last failure delivered (NULL: none yet). */
void *fa_last_site(void);

#endif
