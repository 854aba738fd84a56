/*
** pyfind.c: where the dab Python package's files are, seen from the
** running program (the trainer it spawns, the data set maker).
** See Copyright Notice in README.md
*/
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "agents/agent.h"

bool dab_python_package_file(const char *name, char *out, size_t cap) {
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    for (int up = 1; up <= 3; up++) {
      char *slash = strrchr(exe, '/');
      if (!slash) break;
      *slash = 0;
      snprintf(out, cap, "%s/python/dab/%s", exe, name);
      if (access(out, R_OK) == 0) return true;
      char pattern[4400];
      glob_t gl = {0};
      snprintf(pattern, sizeof pattern, "%s/lib/python3*/*-packages/dab/%s", exe, name);
      if (glob(pattern, 0, NULL, &gl) == 0 && gl.gl_pathc) {
        snprintf(out, cap, "%s", gl.gl_pathv[gl.gl_pathc - 1]);
        globfree(&gl);
        return true;
      }
      globfree(&gl);
    }
  }
  snprintf(out, cap, "python/dab/%s", name);
  if (access(out, R_OK) == 0) return true;
  out[0] = 0;
  return false;
}
