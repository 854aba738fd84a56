/*
** dabapi.h: DAB_API, the mark of a function libdab.so exports.
** See Copyright Notice in README.md
*/
#ifndef DAB_DABAPI_H
#define DAB_DABAPI_H

/*
** The library is compiled with -fvisibility=hidden, so a function is
** visible to users of libdab.so only when its declaration in a public
** header (the ones `make install` ships: PUBLIC_HEADERS in the Makefile)
** carries DAB_API.  Functions of internal headers stay inside the
** library, free to change.  Static linking (libdab.a) sees every symbol;
** visibility only draws the shared library's edge.
*/
#if defined(__GNUC__) || defined(__clang__)
#define DAB_API __attribute__((visibility("default")))
#else
#define DAB_API
#endif

#endif
