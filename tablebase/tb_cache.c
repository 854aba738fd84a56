/*
** tb_cache.c: the user's cache: its policy from the environment, listing
** it, removing entries, and keeping its search results under the cap
** (contracts in tb_cache.h).
** See Copyright Notice in README.md
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "pdb/pdb.h"
#include "tablebase/tb_cache.h"
#include "tablebase/tb_internal.h"

/* ---- The policy ------------------------------------------------------------ */

/* A size: digits with an optional fraction and K/M/G/T (powers of 1024,
** an optional "iB" or "B" after).  False when s is none. */
static bool parse_size(const char *s, uint64_t *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno || !(v >= 0) || isinf(v)) return false;
  double mul = 1;
  switch (*end) {
  case 'k': case 'K': mul = 1024.0, end++; break;
  case 'm': case 'M': mul = 1048576.0, end++; break;
  case 'g': case 'G': mul = 1073741824.0, end++; break;
  case 't': case 'T': mul = 1099511627776.0, end++; break;
  default: break;
  }
  if (mul > 1 && (end[0] == 'i' || end[0] == 'I') && (end[1] == 'b' || end[1] == 'B')) end += 2;
  else if (end[0] == 'b' || end[0] == 'B') end++;
  if (*end || v * mul >= 1.8e19) return false;
  *out = (uint64_t)(v * mul);
  return true;
}

dab_status dabtb_cache_policy_get(dabtb_cache_policy *p, dab_err *err) {
  p->max_bytes = DABTB_CACHE_MAX_DEFAULT;
  p->min_seconds = DABTB_CACHE_MIN_SECONDS_DEFAULT;
  dab_status st = DAB_OK;
  const char *e = getenv("DAB_CACHE_MAX");
  if (e && *e && !parse_size(e, &p->max_bytes)) {
    p->max_bytes = DABTB_CACHE_MAX_DEFAULT;
    st = dab_fail(err, DAB_EINPUT, "DAB_CACHE_MAX='%.64s' is not a size (such as 2G, 500M or 0 for no cap)", e);
  }
  e = getenv("DAB_CACHE_MIN_SECONDS");
  if (e && *e) {
    char *end;
    double v = strtod(e, &end);
    if (end == e || *end || !(v >= 0) || isinf(v)) {
      if (!st)
        st = dab_fail(err, DAB_EINPUT, "DAB_CACHE_MIN_SECONDS='%.64s' is not a number of seconds >= 0", e);
    } else p->min_seconds = v;
  }
  return st;
}

/* ---- Paths ------------------------------------------------------------------ */

/* The directory part of path ("." when none) into dir. */
static void dir_of(const char *path, char *dir, size_t len) {
  snprintf(dir, len, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash) snprintf(dir, len, ".");
  else if (slash == dir) slash[1] = 0;
  else *slash = 0;
}

bool dabtb_in_cache(const char *path) {
  char cache[PATH_MAX], dir[PATH_MAX];
  if (!dabtb_cache_dir(cache, sizeof cache)) return false;
  dir_of(path, dir, sizeof dir);
  struct stat a, b;
  return stat(cache, &a) == 0 && stat(dir, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

void dabtb_cache_touch(const char *path) {
  /* The access time alone: the change time stays the file's own. */
  const struct timespec t[2] = {{0, UTIME_NOW}, {0, UTIME_OMIT}};
  utimensat(AT_FDCWD, path, t, 0);
}

const char *dabtb_cache_kind_name(dabtb_cache_kind k) {
  static const char *const names[] = {"search", "table", "build", "pdb", "leftover"};
  return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

/* ---- Listing ----------------------------------------------------------------- */

/* "RxC" + tail exactly (tail: ".dab", ".dab.layers", ...): rows and cols. */
static bool board_name(const char *name, const char *tail, int *rows, int *cols) {
  int r, c, n = 0;
  if (sscanf(name, "%3dx%3d%n", &r, &c, &n) != 2 || r < 1 || c < 1 || strcmp(name + n, tail)) return false;
  char canon[32];
  snprintf(canon, sizeof canon, "%dx%d%s", r, c, tail);
  if (strcmp(canon, name)) return false; /* "02x3.dab" is not dab's */
  *rows = r, *cols = c;
  return true;
}

/* True when some handle holds path (its shared flock): an exclusive one
** cannot be had at once. */
static bool held(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool busy = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);
  return busy;
}

static double later_time(const struct stat *sb) {
  double a = (double)sb->st_atim.tv_sec + (double)sb->st_atim.tv_nsec * 1e-9;
  double m = (double)sb->st_mtim.tv_sec + (double)sb->st_mtim.tv_nsec * 1e-9;
  return a > m ? a : m;
}

/* Bytes of the plain files in dir (one level: a build's layers). */
static uint64_t dir_bytes(const char *dir, double *last) {
  DIR *d = opendir(dir);
  uint64_t sum = 0;
  if (!d) return 0;
  struct dirent *de;
  char p[PATH_MAX + 300];
  while ((de = readdir(d))) {
    struct stat sb;
    snprintf(p, sizeof p, "%.*s/%s", PATH_MAX, dir, de->d_name);
    if (de->d_name[0] != '.' && stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
      sum += (uint64_t)sb.st_blocks * 512;
      if (later_time(&sb) > *last) *last = later_time(&sb);
    }
  }
  closedir(d);
  return sum;
}

typedef struct count_ctx {
  uint64_t n, exact;
} count_ctx;

static int count_rec(void *ctx, uint64_t key, const dabtb_solved *r) {
  (void)key;
  count_ctx *c = ctx;
  c->n++;
  c->exact += r->lower == r->upper;
  return 0;
}

static int count_shape(void *ctx, const dabtb_shape *r) {
  count_ctx *c = ctx;
  c->n++;
  c->exact += r->lower == r->upper;
  return 0;
}

/* What a board's file holds: its kind, and with details its records. */
static void read_file(const char *path, dabtb_cache_entry *e, bool details) {
  dabtb *tb;
  dab_err err;
  if (dabtb_open(path, NULL, &tb, &err)) {
    e->kind = DABTB_CACHE_LEFTOVER;
    snprintf(e->why, sizeof e->why, "%.199s", err.msg);
    return;
  }
  const dab_geom *g = dabtb_geom(tb);
  bool ok = g->rows == e->rows && g->cols == e->cols;
  e->kind = dabtb_has_table(tb) ? DABTB_CACHE_TABLE : DABTB_CACHE_SEARCH;
  dabtb_coverage cov;
  dabtb_get_coverage(tb, &cov);
  int v;
  if (ok && details && e->kind == DABTB_CACHE_TABLE && dabtb_value(tb, 0, &v, NULL) == DAB_OK) {
    e->root_stored = true; /* a table knows every position */
    e->root_lower = e->root_upper = v;
  }
  dabtb_close(tb);
  if (!ok) {
    e->kind = DABTB_CACHE_LEFTOVER;
    snprintf(e->why, sizeof e->why, "a %dx%d file under another board's name", cov.rows, cov.cols);
    return;
  }
  if (!details) return;
  e->records = cov.solved;
  e->shapes = cov.shapes;
  if (!cov.solved && !cov.shapes) {
    e->details_read = true;
    return;
  }
  dabtb_store *s;
  if (dabtb_store_open(path, e->rows, e->cols, DABTB_STORE_READ, &s, &err)) {
    snprintf(e->why, sizeof e->why, "%.199s", err.msg);
    return;
  }
  count_ctx rc = {0, 0}, sc = {0, 0};
  dab_status st = dabtb_store_each(s, count_rec, &rc, &err);
  if (!st) st = dabtb_shapes_each(s, count_shape, &sc, &err);
  dabtb_solved root;
  bool found = false;
  if (!st) st = dabtb_store_get(s, 0, &root, &found, &err);
  dabtb_store_close(s);
  if (st) {
    snprintf(e->why, sizeof e->why, "%.199s", err.msg);
    return;
  }
  e->records = rc.n, e->exact = rc.exact;
  e->shapes = sc.n, e->shapes_exact = sc.exact;
  if (found && !e->root_stored) {
    e->root_stored = true;
    e->root_lower = root.lower, e->root_upper = root.upper;
  }
  e->details_read = true;
}

/* True when a file "RxC.dab.new.PID" belongs to a process that is gone. */
static bool dead_creator(const char *name) {
  const char *p = strstr(name, ".dab.new.");
  if (!p) return false;
  char *end;
  long pid = strtol(p + 9, &end, 10);
  return pid > 0 && !*end && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static int cmp_entry(const void *a, const void *b) {
  return strcmp(((const dabtb_cache_entry *)a)->name, ((const dabtb_cache_entry *)b)->name);
}

dab_status dabtb_cache_list(const char *dir, bool details, dabtb_cache_entry **out, size_t *n, dab_err *err) {
  *out = NULL;
  *n = 0;
  DIR *d = opendir(dir);
  if (!d) return dab_fail(err, DAB_EIO, "%s: %s", dir, strerror(errno));
  size_t cap = 16, cnt = 0;
  dabtb_cache_entry *v = malloc(cap * sizeof *v);
  if (!v) {
    closedir(d);
    return dab_fail(err, DAB_ENOMEM, "out of memory");
  }
  struct dirent *de;
  while ((de = readdir(d))) {
    const char *name = de->d_name;
    if (name[0] == '.' || strlen(name) >= sizeof v->name) continue;
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat sb;
    if (lstat(path, &sb) != 0) continue;
    dabtb_cache_entry e;
    memset(&e, 0, sizeof e);
    snprintf(e.name, sizeof e.name, "%s", name);
    e.bytes = (uint64_t)sb.st_blocks * 512;
    e.last_used = later_time(&sb);
    int r, c;
    if (S_ISREG(sb.st_mode) && board_name(name, ".dab", &r, &c)) {
      e.rows = r, e.cols = c;
      e.in_use = held(path);
      read_file(path, &e, details);
    } else if (S_ISDIR(sb.st_mode) && board_name(name, ".dab.layers", &r, &c)) {
      e.rows = r, e.cols = c;
      e.kind = DABTB_CACHE_BUILD;
      e.last_used = 0;
      e.bytes = dir_bytes(path, &e.last_used);
      char lock[PATH_MAX + 320];
      snprintf(lock, sizeof lock, "%s/lock", path);
      e.in_use = held(lock);
    } else if (S_ISREG(sb.st_mode) && !strcmp(name, DAB_PDB_FILE)) {
      e.kind = DABTB_CACHE_PDB;
    } else if (S_ISREG(sb.st_mode) && strlen(name) > 5 && !strcmp(name + strlen(name) - 5, "-lock")) {
      /* A lock file is the data file's while anyone uses it. */
      char data[PATH_MAX + 300];
      snprintf(data, sizeof data, "%.*s", (int)(strlen(path) - 5), path);
      if (held(data)) continue;
      e.kind = DABTB_CACHE_LEFTOVER;
      snprintf(e.why, sizeof e.why, "a lock file no one uses");
    } else if (S_ISREG(sb.st_mode) && dead_creator(name)) {
      e.kind = DABTB_CACHE_LEFTOVER;
      snprintf(e.why, sizeof e.why, "a new file whose creator died");
    } else {
      continue; /* not dab's */
    }
    if (cnt == cap) {
      dabtb_cache_entry *w = realloc(v, 2 * cap * sizeof *v);
      if (!w) {
        free(v);
        closedir(d);
        return dab_fail(err, DAB_ENOMEM, "out of memory");
      }
      v = w, cap *= 2;
    }
    v[cnt++] = e;
  }
  closedir(d);
  qsort(v, cnt, sizeof *v, cmp_entry);
  *out = v;
  *n = cnt;
  return DAB_OK;
}

/* ---- Removing ------------------------------------------------------------------- */

/* Removes the layer files of a build directory under its lock. */
static dab_status remove_layers(const char *path, bool *in_use, dab_err *err) {
  char lock[PATH_MAX + 320];
  snprintf(lock, sizeof lock, "%s/lock", path);
  int fd = open(lock, O_RDWR | O_CLOEXEC);
  if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    *in_use = true;
    return DAB_OK;
  }
  DIR *d = opendir(path);
  dab_status st = DAB_OK;
  if (d) {
    struct dirent *de;
    char p[PATH_MAX + 600];
    while ((de = readdir(d)))
      if (de->d_name[0] != '.' && strcmp(de->d_name, "lock")) {
        snprintf(p, sizeof p, "%s/%s", path, de->d_name);
        if (unlink(p) != 0 && errno != ENOENT && !st) st = dab_fail(err, DAB_EIO, "%s: %s", p, strerror(errno));
      }
    closedir(d);
  }
  /* The lock last: a build waiting on it then starts on a fresh one. */
  unlink(lock);
  if (fd >= 0) close(fd);
  if (rmdir(path) != 0 && errno != ENOENT && !st) st = dab_fail(err, DAB_EIO, "%s: %s", path, strerror(errno));
  return st;
}

dab_status dabtb_cache_remove(const char *dir, const dabtb_cache_entry *e, bool *in_use, dab_err *err) {
  *in_use = false;
  char path[PATH_MAX + 300];
  snprintf(path, sizeof path, "%s/%s", dir, e->name);
  if (e->kind == DABTB_CACHE_BUILD) return remove_layers(path, in_use, err);
  size_t len = strlen(path);
  if (len > 5 && !strcmp(path + len - 5, "-lock")) {
    path[len - 5] = 0;
    dabtb_lock_file_reap(path);
    path[len - 5] = '-';
    struct stat sb;
    *in_use = stat(path, &sb) == 0;
    return DAB_OK;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? DAB_OK : dab_fail(err, DAB_EIO, "%s: %s", path, strerror(errno));
  /* Exclusive: no handle holds it, and none can take it until it is gone
  ** (an opener that waited finds the path gone, tb_internal.h). */
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    *in_use = true;
    return DAB_OK;
  }
  dab_status st = DAB_OK;
  if (unlink(path) != 0 && errno != ENOENT) st = dab_fail(err, DAB_EIO, "%s: %s", path, strerror(errno));
  if (!st) {
    /* Its lock file, unless a program that takes no hold is still in it. */
    char lock[PATH_MAX + 320];
    snprintf(lock, sizeof lock, "%s-lock", path);
    struct stat sb;
    if (stat(lock, &sb) == 0) {
      int lfd = open(lock, O_RDWR | O_CLOEXEC);
      struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
      if (lfd >= 0 && fcntl(lfd, F_OFD_SETLK, &fl) == 0) unlink(lock);
      if (lfd >= 0) close(lfd);
    }
  }
  close(fd);
  return st;
}

/* ---- The cap --------------------------------------------------------------------- */

static int cmp_last_used(const void *a, const void *b) {
  double x = (*(dabtb_cache_entry *const *)a)->last_used, y = (*(dabtb_cache_entry *const *)b)->last_used;
  return x < y ? -1 : x > y;
}

dab_status dabtb_cache_trim(const char *dir, uint64_t max_bytes, const char *keep, char *note, size_t len,
                            uint64_t *freed, dab_err *err) {
  if (len) note[0] = 0;
  *freed = 0;
  if (!max_bytes) return DAB_OK;
  dabtb_cache_entry *v;
  size_t n;
  dab_status st = dabtb_cache_list(dir, false, &v, &n, err);
  if (st) return st;
  dabtb_cache_entry **cand = malloc((n ? n : 1) * sizeof *cand);
  if (!cand) {
    free(v);
    return dab_fail(err, DAB_ENOMEM, "out of memory");
  }
  struct stat ks;
  bool have_keep = keep && stat(keep, &ks) == 0;
  uint64_t total = 0;
  size_t nc = 0;
  for (size_t i = 0; i < n; i++) {
    if (v[i].kind != DABTB_CACHE_SEARCH) continue;
    total += v[i].bytes;
    char path[PATH_MAX + 300];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, v[i].name);
    if (have_keep && stat(path, &sb) == 0 && sb.st_dev == ks.st_dev && sb.st_ino == ks.st_ino) continue;
    if (!v[i].in_use) cand[nc++] = &v[i];
  }
  qsort(cand, nc, sizeof *cand, cmp_last_used);
  size_t at = 0;
  for (size_t i = 0; i < nc && total > max_bytes; i++) {
    bool busy;
    dab_err rerr;
    if (dabtb_cache_remove(dir, cand[i], &busy, &rerr) || busy) continue;
    total -= cand[i]->bytes;
    *freed += cand[i]->bytes;
    if (at < len) {
      int k = snprintf(note + at, len - at, "%s%s (%.1f MB)", at ? ", " : "", cand[i]->name,
                       (double)cand[i]->bytes / 1e6);
      at = k < 0 ? len : at + (size_t)k;
    }
  }
  free(cand);
  free(v);
  return DAB_OK;
}
