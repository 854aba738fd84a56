/*
** sysmem.c: MemAvailable for memory plans, and huge-page tables
** (contracts in sysmem.h).
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <sys/mman.h>
#include "game/sysmem.h"

#define HUGE_PAGE ((size_t)2 << 20)

static size_t huge_len(size_t bytes) { return (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE; }

uint64_t dab_mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) return 0;
  char line[256];
  unsigned long long kb = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
  fclose(f);
  return (uint64_t)kb * 1024;
}

void *dab_huge_map(size_t bytes) {
  size_t len = huge_len(bytes);
  char *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  /* keep the 2 MiB-aligned part; unmap the slack on either side */
  char *at = (char *)(((uintptr_t)raw + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE);
  if (at > raw) munmap(raw, (size_t)(at - raw));
  munmap(at + len, (size_t)(raw + HUGE_PAGE - at));
#ifdef MADV_HUGEPAGE
  madvise(at, len, MADV_HUGEPAGE); /* advice only */
#endif
  for (size_t off = 0; off < len; off += HUGE_PAGE) ((volatile char *)at)[off] = 0;
  return at;
}

void dab_huge_unmap(void *p, size_t bytes) {
  if (p) munmap(p, huge_len(bytes));
}
