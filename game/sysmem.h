/*
** sysmem.h: how much memory this machine can give a build or a search
** (every big allocation is planned against it and refused cleanly).
** See Copyright Notice in README.md
*/
#ifndef DAB_SYSMEM_H
#define DAB_SYSMEM_H

#include <stdint.h>

/*
** MemAvailable from /proc/meminfo, in bytes.
** RETURN: the figure, or 0 when unknown (callers then do not refuse).
** NOTES: reads a file; thread-safe.
*/
uint64_t dab_mem_available(void);

#endif
