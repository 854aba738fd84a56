/*
** dabassert.h: DAB_ASSERT, hot invariants checked in the sanitizer builds.
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_DABASSERT_H
#define DAB_DABASSERT_H

/*
** DAB_ASSERT(cond) states an invariant the code relies on in a hot path
** (a search's window, a table index, a stored bound).  The checking builds
** (make SAN=1, make SAN=thread: -DDAB_CHECKS) test it and abort with
** "file:line: invariant failed: cond" on stderr: a broken invariant is a
** bug, and going on would turn it into a wrong value.  The release build
** compiles it out entirely (the condition is not evaluated), so it may
** cost what it likes.  Library errors a caller can cause are never
** assertions: those return a dab_status.
*/
#ifdef DAB_CHECKS
#define DAB_ASSERT(cond) ((cond) ? (void)0 : dab_assert_fail(#cond, __FILE__, __LINE__))
void dab_assert_fail(const char *cond, const char *file, int line) __attribute__((noreturn, cold));
#else
#define DAB_ASSERT(cond) ((void)0)
#endif

#endif
