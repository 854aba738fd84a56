/*
** durable.h: files that appear whole or not at all, through a crash too
** (a temporary file beside the target, fsync, rename, fsync the directory).
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_DURABLE_H
#define DAB_DURABLE_H

#include <stdbool.h>
#include <stddef.h>
#include "game/err.h"

/* Room for a target path and its temporary name. */
#define DAB_DURABLE_PATH 4096
#define DAB_DURABLE_TMP (DAB_DURABLE_PATH + 64)

/*
** One file being written: open, put (or write to fd), then commit or
** abort.  The temporary file lies in the target's directory, so that the
** rename stays within one file system and is atomic.
*/
typedef struct dab_durable {
  int fd;                     /* the temporary file, open for writing; -1 when closed */
  bool nosync;                /* set before commit to skip both fsyncs (see below) */
  char path[DAB_DURABLE_PATH];
  char tmp[DAB_DURABLE_TMP];
} dab_durable;

/*
** The temporary name the helpers use for path: PATH.tmp.PID.TID, unique
** between processes and between threads of one process (a writer that
** lets another library create the file, such as LMDB, names it so, then
** calls dab_durable_commit_file).
** RETURN: DAB_OK; DAB_EINPUT when path is too long for DAB_DURABLE_PATH.
*/
dab_status dab_durable_tmpname(const char *path, char *tmp, size_t len, dab_err *err);

/*
** Writes len bytes of data to path durably: on DAB_OK the file holds
** exactly them and survives a crash; on failure (or a crash) path is
** as it was and no temporary file is left.
** RETURN: DAB_OK; DAB_EIO with the failing step and strerror in err;
** DAB_EINPUT when path is too long.
*/
dab_status dab_durable_write(const char *path, const void *data, size_t len, dab_err *err);

/*
** Opens a temporary file for path (tmp NULL: dab_durable_tmpname's name;
** otherwise this name, which must be in path's directory).  Write with
** dab_durable_put or to d->fd, then dab_durable_commit or
** dab_durable_abort exactly once.
** RETURN: DAB_OK with d->fd open; DAB_EIO / DAB_EINPUT with nothing left
** open or created.
*/
dab_status dab_durable_open(dab_durable *d, const char *path, const char *tmp, dab_err *err);

/*
** Appends len bytes to the temporary file (retrying short writes and
** EINTR).  On failure the file stays open: the caller aborts.
** RETURN: DAB_OK; DAB_EIO with strerror (ENOSPC, say) in err.
*/
dab_status dab_durable_put(dab_durable *d, const void *data, size_t len, dab_err *err);

/*
** Puts the temporary file in place: fsync, close, rename over the
** target, fsync the directory.  With d->nosync set the fsyncs are
** skipped: a reader of the running system still sees the old file or the
** whole new one, but a crash may leave a short file under the target's
** name (for files whose loss is detected, by a checksum, and recomputed).
** RETURN: DAB_OK; DAB_EIO with the step and strerror in err.  Either way
** the temporary file is gone and d->fd closed; on failure the target is
** untouched.
*/
dab_status dab_durable_commit(dab_durable *d, dab_err *err);

/* Closes and removes the temporary file (a failed write); safe to call
** after a failed open or a commit. */
void dab_durable_abort(dab_durable *d);

/*
** Puts in place a whole file tmp written by someone else (LMDB, say):
** fsync tmp, rename it over path, fsync the directory.
** RETURN: DAB_OK; DAB_EIO with the step and strerror in err, tmp then
** still there (the caller removes it) and path untouched.
*/
dab_status dab_durable_commit_file(const char *tmp, const char *path, dab_err *err);

/*
** fsyncs the directory holding path, so that a rename or a new file in
** it survives a crash.
** RETURN: DAB_OK; DAB_EIO with strerror in err.
*/
dab_status dab_durable_sync_dir(const char *path, dab_err *err);

#endif
