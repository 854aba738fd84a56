/*
** tb_lockfile.c: holds on a tablebase file while an LMDB environment with
** a lock file (PATH-lock) is open on it, so that the last user can remove
** the lock file (contracts in tb_internal.h).
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tablebase/tb_internal.h"

int dabtb_hold_begin(const char *path) {
  for (int attempt = 0; attempt < 8; attempt++) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    /* Blocks only while a last user removes the lock file, or `dab cache`
    ** removes the file (microseconds). */
    int rc;
    while ((rc = flock(fd, LOCK_SH)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
      int e = errno;
      close(fd);
      errno = e;
      return -1;
    }
    /* Removers unlink only under an exclusive flock: while we hold this
    ** one, PATH stays the held file if it is that file now.  (LMDB would
    ** create an empty file in place of a removed one.) */
    struct stat a, b;
    if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) return fd;
    close(fd);
  }
  errno = ENOENT;
  return -1;
}

bool dabtb_hold_same(int fd, MDB_env *env) {
  int efd;
  struct stat a, b;
  if (fd < 0 || mdb_env_get_fd(env, &efd) || fstat(fd, &a) || fstat(efd, &b)) return fd < 0;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* True when no LMDB environment of any process has the lock file open:
** each keeps a shared fcntl lock on its byte 0 while open (LMDB's own test
** for "the only user").  An open file description lock conflicts with
** those even within this process, and leaves them alone. */
static bool lock_file_unused(const char *lock) {
  int lfd = open(lock, O_RDWR | O_CLOEXEC);
  if (lfd < 0) return false;
  struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
  bool unused = fcntl(lfd, F_OFD_SETLK, &fl) == 0;
  close(lfd);
  return unused;
}

bool dabtb_hold_end(int fd, const char *path) {
  if (fd < 0) return false;
  bool removed = false;
  /* Exclusive only when no other handle (this process's or another's)
  ** holds the file; while we hold it, no opener can be between taking
  ** its hold and locking the lock file. */
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
    char lock[4096 + 8];
    struct stat a, b;
    /* A file replaced or removed meanwhile: its lock file is the new one's. */
    if ((size_t)snprintf(lock, sizeof lock, "%s-lock", path) < sizeof lock && fstat(fd, &a) == 0 &&
        stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino && lock_file_unused(lock))
      removed = unlink(lock) == 0;
  }
  close(fd); /* releases the hold */
  return removed;
}

bool dabtb_lock_file_reap(const char *path) {
  char lock[4096 + 8];
  if ((size_t)snprintf(lock, sizeof lock, "%s-lock", path) >= sizeof lock) return false;
  struct stat sb;
  if (stat(lock, &sb) != 0) return false;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) /* no data file: an orphan, unless an LMDB user still has it */
    return errno == ENOENT && lock_file_unused(lock) && unlink(lock) == 0;
  if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
    close(fd);
    return false;
  }
  return dabtb_hold_end(fd, path);
}
