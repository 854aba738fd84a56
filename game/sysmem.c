/*
** sysmem.c: MemAvailable for memory plans (contract in sysmem.h).
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include "sysmem.h"

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
