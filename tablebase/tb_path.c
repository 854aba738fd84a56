/*
** tb_path.c: where tablebase files live (the search path), and building
** small boards on first use.
** See Copyright Notice in README.md
*/
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include "tablebase/tb_build.h"
#include "tablebase/tb_find.h"
#include "tablebase/tb_cache.h"

static bool is_dir(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static bool is_file(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* dst = a + "/" + b; false (dst untouched) when it does not fit. */
static bool path_join(char *dst, size_t cap, const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la + 1 + lb + 1 > cap) return false;
  memcpy(dst, a, la);
  dst[la] = '/';
  memcpy(dst + la + 1, b, lb + 1);
  return true;
}

/* dst = s; false when it does not fit. */
static bool copy_str(char *dst, size_t cap, const char *s) {
  size_t l = strlen(s);
  if (l + 1 > cap) return false;
  memcpy(dst, s, l + 1);
  return true;
}

/* The dab project holding this code: up to three levels above the binary
** (bin/dab, build/libdab.so, build-san/bin/dab...) to a directory with a
** Makefile and tablebase/.  Returns false when there is none. */
static bool project_dir(char *out, size_t len) {
  char cand[2][PATH_MAX];
  int nc = 0;
  Dl_info info;
  if (dladdr((void *)&dabtb_find, &info) && info.dli_fname && realpath(info.dli_fname, cand[nc]))
    nc++;
  if (realpath("/proc/self/exe", cand[nc])) nc++;
  for (int c = 0; c < nc; c++) {
    char dir[PATH_MAX];
    copy_str(dir, sizeof dir, cand[c]);
    for (int up = 0; up < 4; up++) {
      char *slash = strrchr(dir, '/');
      if (!slash || slash == dir) break;
      *slash = 0;
      char probe[PATH_MAX + 32];
      if (!path_join(probe, sizeof probe, dir, "tablebase") || !is_dir(probe)) continue;
      if (!path_join(probe, sizeof probe, dir, "Makefile") || !is_file(probe)) continue;
      if (strlen(dir) >= len) return false;
      memcpy(out, dir, strlen(dir) + 1);
      return true;
    }
  }
  return false;
}

/* $DAB_TB_NO_PROJECT=1 leaves the project's data/tb/ out of the path: for
** tests that must not see (or write) the user's own tables. */
static bool no_project_dir(void) {
  const char *e = getenv("DAB_TB_NO_PROJECT");
  return e && *e && strcmp(e, "0");
}

bool dabtb_readonly(void) {
  const char *e = getenv("DAB_READONLY");
  return e && *e && strcmp(e, "0");
}

/* The user's cache of tables built on demand: $XDG_CACHE_HOME/dab, else
** $HOME/.cache/dab (not created here).  False when neither is set or
** $DAB_TB_NO_PROJECT leaves the user's own tables out. */
static bool cache_dir(char *out, size_t len) {
  if (no_project_dir()) return false;
  const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
  int n;
  if (x && x[0] == '/') n = snprintf(out, len, "%s/dab", x);
  else if (h && h[0] == '/') n = snprintf(out, len, "%s/.cache/dab", h);
  else return false;
  return n > 0 && (size_t)n < len;
}

bool dabtb_cache_dir(char *out, size_t len) { return cache_dir(out, len); }

/* mkdir -p dir (0755).  False when it is not a directory afterwards. */
static bool make_dirs(const char *dir) {
  char p[PATH_MAX];
  if (!copy_str(p, sizeof p, dir)) return false;
  for (char *s = p + 1; *s; s++)
    if (*s == '/') {
      *s = 0;
      mkdir(p, 0755);
      *s = '/';
    }
  mkdir(p, 0755);
  return is_dir(p);
}

/* The directories searched, in order, into dirs[16]; returns their count. */
static int search_dirs(const char *tb_dir, char dirs[16][PATH_MAX]) {
  int nd = 0;
  if (tb_dir && *tb_dir && copy_str(dirs[nd], PATH_MAX, tb_dir)) nd++;
  const char *env = getenv("DAB_TB_PATH");
  if (env && *env) {
    const char *s = env;
    while (*s && nd < 15) {
      const char *e = strchr(s, ':');
      size_t n = e ? (size_t)(e - s) : strlen(s);
      if (n && n < PATH_MAX) {
        memcpy(dirs[nd], s, n);
        dirs[nd++][n] = 0;
      }
      if (!e) break;
      s = e + 1;
    }
  }
  if (nd < 16 && cache_dir(dirs[nd], PATH_MAX)) nd++;
  char proj[PATH_MAX - 16];
  if (!no_project_dir() && project_dir(proj, sizeof proj) && nd < 16 && path_join(dirs[nd], PATH_MAX, proj, "data/tb"))
    nd++;
  return nd;
}

/* Looks for file `name` in the search directories; looked[] gets them. */
static bool find_named(const char *name, const char *tb_dir, char *path, size_t len, char *looked, size_t llen,
                       int *ndirs, dab_err *err, dab_status *st) {
  char dirs[16][PATH_MAX];
  int nd = search_dirs(tb_dir, dirs);
  *ndirs = nd;
  looked[0] = 0;
  for (int i = 0; i < nd; i++) {
    char full[PATH_MAX + 40];
    if (!path_join(full, sizeof full, dirs[i], name)) continue;
    if (is_file(full)) {
      *st = copy_str(path, len, full) ? DAB_OK : dab_fail(err, DAB_EIO, "path too long: %s", full);
      return true;
    }
    size_t l = strlen(looked), ld = strlen(dirs[i]);
    if (l + 2 + ld + 1 <= llen) {
      if (l) memcpy(looked + l, ", ", 2), l += 2;
      memcpy(looked + l, dirs[i], ld + 1);
    }
  }
  return false;
}

dab_status dabtb_find_file(const char *name, const char *tb_dir, char *path, size_t len, dab_err *err) {
  char looked[1024];
  int nd;
  dab_status st;
  if (find_named(name, tb_dir, path, len, looked, sizeof looked, &nd, err, &st)) return st;
  return dab_fail(err, DAB_EIO, "no %s (looked in %s)", name,
                  nd ? looked : "no directory: use --tb DIR or DAB_TB_PATH");
}

dab_status dabtb_find(int rows, int cols, const char *tb_dir, char *path, size_t len, dab_err *err) {
  char name[32], looked[1024];
  snprintf(name, sizeof name, "%dx%d.dab", rows, cols);
  int nd;
  dab_status st;
  if (find_named(name, tb_dir, path, len, looked, sizeof looked, &nd, err, &st)) return st;
  dab_err why;
  if (dabtb_buildable(rows, cols, &why))
    return dab_fail(err, DAB_EIO, "no %s tablebase (looked in %s); %s", name,
                    nd ? looked : "no directory: use --tb DIR or DAB_TB_PATH", why.msg);
  return dab_fail(err, DAB_EIO, "no %s tablebase (looked in %s); build it with: dab build %dx%d", name,
                  nd ? looked : "no directory: use --tb DIR or DAB_TB_PATH", rows, cols);
}

/* The directory new files go to (see dabtb_default_path). */
static dab_status write_dir(const char *tb_dir, char *dir, size_t dlen, const char *what, dab_err *err) {
  const char *env = getenv("DAB_TB_PATH");
  if (dabtb_readonly())
    return dab_fail(err, DAB_EIO, "read-only mode (DAB_READONLY=1): not writing a new %s; unset "
                    "DAB_READONLY to build it", what);
  if (tb_dir && *tb_dir) snprintf(dir, dlen, "%s", tb_dir);
  else if (env && *env) {
    const char *e = strchr(env, ':');
    size_t n = e ? (size_t)(e - env) : strlen(env);
    if (n >= dlen) n = dlen - 1;
    memcpy(dir, env, n);
    dir[n] = 0;
  } else {
    if (!cache_dir(dir, dlen))
      return dab_fail(err, DAB_EIO,
                      "no place for tablebases: pass -o FILE, --tb DIR or set DAB_TB_PATH");
    make_dirs(dir);
  }
  if (!is_dir(dir)) return dab_fail(err, DAB_EIO, "tablebase directory %s does not exist", dir);
  return DAB_OK;
}

dab_status dabtb_default_path(int rows, int cols, const char *tb_dir, char *path, size_t len,
                              dab_err *err) {
  char dir[PATH_MAX], name[32];
  snprintf(name, sizeof name, "%dx%d.dab", rows, cols);
  dab_status st = write_dir(tb_dir, dir, sizeof dir, name, err);
  if (st) return st;
  if ((size_t)snprintf(path, len, "%s/%s", dir, name) >= len)
    return dab_fail(err, DAB_EIO, "path too long in %s", dir);
  return DAB_OK;
}

dab_status dabtb_default_file(const char *name, const char *tb_dir, char *path, size_t len, dab_err *err) {
  char dir[PATH_MAX];
  dab_status st = write_dir(tb_dir, dir, sizeof dir, name, err);
  if (st) return st;
  if ((size_t)snprintf(path, len, "%s/%s", dir, name) >= len)
    return dab_fail(err, DAB_EIO, "path too long in %s", dir);
  return DAB_OK;
}

dab_status dabtb_open_board(int rows, int cols, const char *tb_dir, dabtb **out, dab_err *err) {
  return dabtb_open_board_mode(rows, cols, tb_dir, false, out, err);
}

dab_status dabtb_open_board_mode(int rows, int cols, const char *tb_dir, bool read_only, dabtb **out,
                                 dab_err *err) {
  *out = NULL;
  char path[PATH_MAX + 64];
  dab_status st = dabtb_find(rows, cols, tb_dir, path, sizeof path, err);
  if (st == DAB_OK) return dabtb_open(path, NULL, out, err);
  dab_geom g;
  st = dab_geom_init(&g, rows, cols, err);
  if (st) return st;
  dab_err why;
  if (g.nlines > DABTB_AUTO_BUILD_LINES && dabtb_buildable(rows, cols, &why))
    return dab_fail(err, DAB_EBOARD, "no %dx%d tablebase found; %s", rows, cols, why.msg);
  if (g.nlines > DABTB_AUTO_BUILD_LINES)
    return dab_fail(err, DAB_EBOARD,
                    "no %dx%d tablebase found; build it once with: dab build %dx%d (looked in --tb, "
                    "$DAB_TB_PATH, the cache and data/tb/)",
                    rows, cols, rows, cols);
  if (read_only)
    return dab_fail(err, DAB_EIO, "read-only handle: not writing a new %dx%d.dab (none found in --tb, "
                    "$DAB_TB_PATH, the cache or data/tb/); open it without read-only to build it",
                    rows, cols);
  st = dabtb_default_path(rows, cols, tb_dir, path, sizeof path, err);
  if (st) return st;
  /* One builder at a time: others wait on an flock of the directory (a
  ** lock file would be left behind), then find the file. */
  char dir[PATH_MAX + 64];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  int fd = open(slash ? (*dir ? dir : "/") : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) flock(fd, LOCK_EX);
  if (!is_file(path)) {
    dabtb_build_opts bo = {0};
    st = dabtb_build(rows, cols, path, &bo, NULL, err);
  }
  if (fd >= 0) close(fd); /* releases the lock */
  if (st) return st;
  return dabtb_open(path, NULL, out, err);
}

void dabtb_where(const char *tb_dir, char *lookup, size_t llen, char *write, size_t wlen) {
  char dirs[16][PATH_MAX];
  int nd = search_dirs(tb_dir, dirs);
  size_t l = 0;
  if (llen) lookup[0] = 0;
  for (int i = 0; i < nd && llen; i++) {
    int k = snprintf(lookup + l, llen - l, "%s%s", i ? ":" : "", dirs[i]);
    if (k < 0 || (size_t)k >= llen - l) break;
    l += (size_t)k;
  }
  char path[PATH_MAX + 64];
  const char *env = getenv("DAB_TB_PATH");
  if (dabtb_readonly()) snprintf(write, wlen, "nowhere (read-only mode: DAB_READONLY=1)");
  else if (tb_dir && *tb_dir) snprintf(write, wlen, "%s", tb_dir);
  else if (env && *env) snprintf(write, wlen, "%.*s", (int)strcspn(env, ":"), env);
  else if (cache_dir(path, sizeof path)) snprintf(write, wlen, "%s", path);
  else snprintf(write, wlen, "nowhere (no $XDG_CACHE_HOME or $HOME; pass --tb DIR or set DAB_TB_PATH)");
  /* Say what write_dir will decide: a --tb or $DAB_TB_PATH directory that
  ** is not there is not created (a typo would scatter files), so nothing is
  ** written; the cache directory is made on first use. */
  bool named = !dabtb_readonly() && ((tb_dir && *tb_dir) || (env && *env));
  if (named && !is_dir(write)) {
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", write);
    snprintf(write, wlen, "nowhere (%s does not exist; create it to store results there)", dir);
  }
}
