/*
** dabassert.c: the failure end of DAB_ASSERT (checking builds only).
** See Copyright Notice in README.md
*/
#include "game/dabassert.h"

#ifdef DAB_CHECKS
#include <stdio.h>
#include <stdlib.h>

void dab_assert_fail(const char *cond, const char *file, int line) {
  fprintf(stderr, "%s:%d: invariant failed: %s\n", file, line, cond);
  abort();
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int dab_assert_release_build;
#endif
