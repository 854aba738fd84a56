/*
** fuzzhelp.h: what the libFuzzer harnesses share: a scratch file for
** readers that take a path, and a property check that aborts (a finding).
** See Copyright Notice in README.md
*/
#ifndef DAB_FUZZHELP_H
#define DAB_FUZZHELP_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A property every input must keep; a violation is a finding (abort). */
#define FZ_ASSERT(cond, ...)                                  \
  do {                                                        \
    if (!(cond)) {                                            \
      fprintf(stderr, "PROPERTY FAILED %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                           \
      fputc('\n', stderr);                                    \
      abort();                                                \
    }                                                         \
  } while (0)

/* The input as a NUL-terminated string (malloc'd; caller frees). */
static inline char *fz_string(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s) abort();
  memcpy(s, data, size);
  s[size] = 0;
  return s;
}

/* Writes the input to this process's scratch file (on /dev/shm when there
** is one) and returns its path; the same path every call. */
static inline const char *fz_file(const char *tag, const uint8_t *data, size_t size) {
  static char path[256];
  snprintf(path, sizeof path, "%s/dab-fuzz-%s-%ld", access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", tag,
           (long)getpid());
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (size && fwrite(data, 1, size, f) != size) abort();
  if (fclose(f)) abort();
  return path;
}

#endif
