/*
** sysmem.h: how much memory this machine can give a build or a search
** (every big allocation is planned against it and refused cleanly).
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_SYSMEM_H
#define DAB_SYSMEM_H

#include <stddef.h>
#include <stdint.h>

/*
** MemAvailable from /proc/meminfo, in bytes.
** RETURN: the figure, or 0 when unknown (callers then do not refuse).
** NOTES: reads a file; thread-safe.
*/
uint64_t dab_mem_available(void);

/*
** Zeroed memory for a big table probed at random (transposition table,
** key cache): an anonymous mapping of whole 2 MiB pages on a 2 MiB
** boundary, with transparent huge pages asked for (4 KiB pages would add
** a TLB miss to most probes), its pages faulted in now, in order (faults
** taken in random order from inside a search cost 1-4x more; a memset
** would write every byte a second time).
** RETURN: the memory, or NULL when it cannot be mapped.
** NOTES: free with dab_huge_unmap(p, bytes), the same bytes.
*/
void *dab_huge_map(size_t bytes);
void dab_huge_unmap(void *p, size_t bytes);

/*
** Tells AddressSanitizer, in a build with it, that a fresh mapping of a
** file (len bytes at p) is addressable; a no-op otherwise.  ASan does not
** clear the shadow of memory it unmaps, so a view placed where its own
** memory once lay read as poisoned (google/sanitizers#1705: a false
** report on a valid read, seen when a fuzzer opened thousands of files).
** NOTES: for views of a file's size; thread-safe.
*/
#if defined(__SANITIZE_ADDRESS__) /* gcc */
#define DAB_ASAN 1
#elif defined(__has_feature)   /* clang */
#if __has_feature(address_sanitizer)
#define DAB_ASAN 1
#endif
#endif
#ifdef DAB_ASAN
#include <sanitizer/asan_interface.h>
static inline void dab_mapped(const void *p, size_t len) { __asan_unpoison_memory_region(p, len); }
#else
static inline void dab_mapped(const void *p, size_t len) { (void)p, (void)len; }
#endif

#endif
