/*
** durable.c: temporary file, fsync, rename, fsync the directory
** (contracts in durable.h).
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "game/durable.h"

/* Messages name the file by its last 150 characters, so that strerror,
** the part a user acts on, always fits in the DAB_ERR_LEN line. */
static const char *tail(const char *path) {
  size_t n = strlen(path);
  return n > 150 ? path + n - 150 : path;
}

static dab_status fail_errno(dab_err *err, const char *what, const char *path, int e) {
  return dab_fail(err, DAB_EIO, "cannot %s %s: %s", what, tail(path), strerror(e));
}

dab_status dab_durable_tmpname(const char *path, char *tmp, size_t len, dab_err *err) {
  if (strlen(path) >= DAB_DURABLE_PATH ||
      (size_t)snprintf(tmp, len, "%s.tmp.%ld.%ld", path, (long)getpid(), (long)gettid()) >= len)
    return dab_fail(err, DAB_EINPUT, "path too long: %.150s...", path);
  return DAB_OK;
}

dab_status dab_durable_sync_dir(const char *path, dab_err *err) {
  char d[DAB_DURABLE_PATH];
  snprintf(d, sizeof d, "%s", path);
  const char *dir = dirname(d);
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return fail_errno(err, "open the directory", dir, errno);
  /* Some file systems cannot sync a directory (EINVAL): nothing more to do there. */
  int rc = fsync(fd), e = errno;
  close(fd);
  if (rc != 0 && e != EINVAL && e != ENOTSUP) return fail_errno(err, "sync the directory", dir, e);
  return DAB_OK;
}

dab_status dab_durable_open(dab_durable *d, const char *path, const char *tmp, dab_err *err) {
  d->fd = -1;
  d->nosync = false;
  d->tmp[0] = 0;
  if (strlen(path) >= sizeof d->path) return dab_fail(err, DAB_EINPUT, "path too long: %.150s...", path);
  snprintf(d->path, sizeof d->path, "%s", path);
  if (tmp) {
    if (strlen(tmp) >= sizeof d->tmp) return dab_fail(err, DAB_EINPUT, "path too long: %.150s...", tmp);
    snprintf(d->tmp, sizeof d->tmp, "%s", tmp);
  } else {
    dab_status st = dab_durable_tmpname(path, d->tmp, sizeof d->tmp, err);
    if (st) return st;
  }
  d->fd = open(d->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (d->fd < 0) {
    int e = errno;
    d->tmp[0] = 0;
    return fail_errno(err, "write", d->path, e);
  }
  return DAB_OK;
}

dab_status dab_durable_put(dab_durable *d, const void *data, size_t len, dab_err *err) {
  const char *p = data;
  while (len) {
    /* Linux writes at most about 2 GiB at once. */
    ssize_t w = write(d->fd, p, len > ((size_t)1 << 30) ? (size_t)1 << 30 : len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return fail_errno(err, "write", d->path, w < 0 ? errno : EIO);
    p += w;
    len -= (size_t)w;
  }
  return DAB_OK;
}

void dab_durable_abort(dab_durable *d) {
  if (d->fd >= 0) close(d->fd);
  d->fd = -1;
  if (d->tmp[0]) unlink(d->tmp);
  d->tmp[0] = 0;
}

dab_status dab_durable_commit(dab_durable *d, dab_err *err) {
  dab_status st = DAB_OK;
  if (!d->nosync && fsync(d->fd) != 0) st = fail_errno(err, "flush", d->path, errno);
  /* close reports the write errors of file systems that defer them (NFS). */
  if (close(d->fd) != 0 && !st) st = fail_errno(err, "flush", d->path, errno);
  d->fd = -1;
  if (!st && rename(d->tmp, d->path) != 0) st = fail_errno(err, "rename into", d->path, errno);
  if (st) {
    dab_durable_abort(d);
    return st;
  }
  d->tmp[0] = 0;
  return d->nosync ? DAB_OK : dab_durable_sync_dir(d->path, err);
}

dab_status dab_durable_write(const char *path, const void *data, size_t len, dab_err *err) {
  dab_durable d;
  dab_status st = dab_durable_open(&d, path, NULL, err);
  if (st) return st;
  st = dab_durable_put(&d, data, len, err);
  if (st) {
    dab_durable_abort(&d);
    return st;
  }
  return dab_durable_commit(&d, err);
}

dab_status dab_durable_commit_file(const char *tmp, const char *path, dab_err *err) {
  int fd = open(tmp, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail_errno(err, "open", tmp, errno);
  int rc = fsync(fd), e = errno;
  close(fd);
  if (rc != 0) return fail_errno(err, "flush", tmp, e);
  if (rename(tmp, path) != 0) return fail_errno(err, "rename into", path, errno);
  return dab_durable_sync_dir(path, err);
}
