/*
** test_durable.c: game/durable.h: round trips, failed writes that leave
** the target as it was and no temporary file, messages that carry errno.
** See Copyright Notice in README.md
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "game/durable.h"
#include "tests/testhelp.h"

static char dir[256];

/* The whole of path (NUL-terminated in buf).  RETURN: its length, -1 when it cannot be read. */
static long slurp(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t n = fread(buf, 1, cap - 1, f);
  fclose(f);
  buf[n] = 0;
  return (long)n;
}

/* Entries of dir other than . and .. whose name holds ".tmp". */
static int temps_left(void) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strstr(e->d_name, ".tmp")) n++;
  if (d) closedir(d);
  return n;
}

static void in_dir(char *out, size_t len, const char *name) { snprintf(out, len, "%s/%s", dir, name); }

static void round_trips(void) {
  char p[512], buf[256];
  dab_err err = {{0}};
  in_dir(p, sizeof p, "a.txt");
  TH_CHECK(dab_durable_write(p, "first\n", 6, &err) == DAB_OK, "write: %s", err.msg);
  TH_CHECK(slurp(p, buf, sizeof buf) == 6 && !strcmp(buf, "first\n"), "read back '%s'", buf);
  TH_CHECK(dab_durable_write(p, "second, longer\n", 15, &err) == DAB_OK, "overwrite: %s", err.msg);
  TH_CHECK(slurp(p, buf, sizeof buf) == 15 && !strcmp(buf, "second, longer\n"), "overwritten '%s'", buf);
  TH_CHECK(dab_durable_write(p, "", 0, &err) == DAB_OK && slurp(p, buf, sizeof buf) == 0, "an empty file");

  /* Streaming: pieces, then commit; nosync still renames. */
  dab_durable d;
  in_dir(p, sizeof p, "b.bin");
  TH_CHECK(dab_durable_open(&d, p, NULL, &err) == DAB_OK, "open: %s", err.msg);
  TH_CHECK(temps_left() == 1, "the temporary file lies beside the target");
  TH_CHECK(!dab_durable_put(&d, "ab", 2, &err) && !dab_durable_put(&d, "cd", 2, &err), "put: %s", err.msg);
  TH_CHECK(access(p, F_OK) != 0, "the target appears only at commit");
  TH_CHECK(dab_durable_commit(&d, &err) == DAB_OK, "commit: %s", err.msg);
  TH_CHECK(slurp(p, buf, sizeof buf) == 4 && !strcmp(buf, "abcd"), "streamed '%s'", buf);
  TH_CHECK(dab_durable_open(&d, p, NULL, &err) == DAB_OK, "open: %s", err.msg);
  d.nosync = true;
  TH_CHECK(!dab_durable_put(&d, "xy", 2, &err) && !dab_durable_commit(&d, &err), "nosync: %s", err.msg);
  TH_CHECK(slurp(p, buf, sizeof buf) == 2 && !strcmp(buf, "xy"), "nosync '%s'", buf);

  /* A caller-named temporary file. */
  char t[512];
  in_dir(t, sizeof t, "b.bin.tmp");
  TH_CHECK(dab_durable_open(&d, p, t, &err) == DAB_OK && access(t, F_OK) == 0, "open %s: %s", t, err.msg);
  TH_CHECK(!dab_durable_put(&d, "zz", 2, &err) && !dab_durable_commit(&d, &err), "commit: %s", err.msg);
  TH_CHECK(slurp(p, buf, sizeof buf) == 2 && !strcmp(buf, "zz") && access(t, F_OK) != 0, "named temp");

  /* Abort: the target as it was. */
  TH_CHECK(dab_durable_open(&d, p, NULL, &err) == DAB_OK, "open: %s", err.msg);
  TH_CHECK(!dab_durable_put(&d, "lost", 4, &err), "put: %s", err.msg);
  dab_durable_abort(&d);
  dab_durable_abort(&d); /* twice is harmless */
  TH_CHECK(slurp(p, buf, sizeof buf) == 2 && !strcmp(buf, "zz"), "after abort '%s'", buf);

  /* A file written by someone else, put in place. */
  char tmp[DAB_DURABLE_TMP];
  in_dir(p, sizeof p, "c.db");
  TH_CHECK(dab_durable_tmpname(p, tmp, sizeof tmp, &err) == DAB_OK && !strncmp(tmp, p, strlen(p)), "tmpname %s", tmp);
  FILE *f = fopen(tmp, "wb");
  if (f) {
    fputs("lmdb", f);
    fclose(f);
  }
  TH_CHECK(dab_durable_commit_file(tmp, p, &err) == DAB_OK, "commit_file: %s", err.msg);
  TH_CHECK(slurp(p, buf, sizeof buf) == 4 && !strcmp(buf, "lmdb") && access(tmp, F_OK) != 0, "commit_file '%s'", buf);
  TH_CHECK(dab_durable_commit_file(tmp, p, &err) == DAB_EIO && strstr(err.msg, strerror(ENOENT)),
           "commit_file of a missing file: %s", err.msg);
  TH_CHECK(slurp(p, buf, sizeof buf) == 4 && !strcmp(buf, "lmdb"), "its target untouched");
  TH_CHECK(dab_durable_sync_dir(p, &err) == DAB_OK, "sync_dir: %s", err.msg);
  TH_CHECK(temps_left() == 0, "no temporary file left");
}

static void failures(void) {
  char p[512], buf[256];
  dab_err err = {{0}};

  /* A missing directory: EIO, strerror in the message, nothing created. */
  in_dir(p, sizeof p, "no/such/dir/x");
  TH_CHECK(dab_durable_write(p, "x", 1, &err) == DAB_EIO, "write into a missing directory");
  TH_CHECK(strstr(err.msg, strerror(ENOENT)) && strchr(err.msg, '\n') == NULL, "its message: %s", err.msg);

  /* A path too long for the temporary name. */
  char *longp = malloc(DAB_DURABLE_PATH + 10);
  if (longp) {
    memset(longp, 'a', DAB_DURABLE_PATH + 9);
    longp[DAB_DURABLE_PATH + 9] = 0;
    TH_CHECK(dab_durable_write(longp, "x", 1, &err) == DAB_EINPUT, "a path too long: %s", err.msg);
    free(longp);
  }

  /* The disk "full" in the middle of a write (a file size limit: EFBIG,
  ** which reaches write as ENOSPC would): the old file stays whole and
  ** the temporary file is removed. */
  in_dir(p, sizeof p, "full.txt");
  TH_CHECK(dab_durable_write(p, "old contents\n", 13, &err) == DAB_OK, "write: %s", err.msg);
  struct rlimit old, lim;
  getrlimit(RLIMIT_FSIZE, &old);
  lim = old;
  lim.rlim_cur = 4096;
  signal(SIGXFSZ, SIG_IGN);
  static char big[16384];
  memset(big, 'n', sizeof big);
  if (setrlimit(RLIMIT_FSIZE, &lim) == 0) {
    dab_status st = dab_durable_write(p, big, sizeof big, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    TH_CHECK(st == DAB_EIO, "a write past the limit fails (%d)", st);
    TH_CHECK(strstr(err.msg, strerror(EFBIG)) && strstr(err.msg, "full.txt"), "its message: %s", err.msg);
    TH_CHECK(slurp(p, buf, sizeof buf) == 13 && !strcmp(buf, "old contents\n"), "the target untouched: '%s'", buf);
    TH_CHECK(temps_left() == 0, "no temporary file left after the failure");
  }
  signal(SIGXFSZ, SIG_DFL);

  /* A rename that cannot happen (the target is a non-empty directory). */
  in_dir(p, sizeof p, "isdir");
  char inner[600];
  snprintf(inner, sizeof inner, "%s/f", p);
  if (mkdir(p, 0755) == 0 && dab_durable_write(inner, "x", 1, &err) == DAB_OK) {
    TH_CHECK(dab_durable_write(p, "x", 1, &err) == DAB_EIO, "rename over a directory fails");
    TH_CHECK(strstr(err.msg, "rename") && strstr(err.msg, strerror(EISDIR)), "its message: %s", err.msg);
    TH_CHECK(temps_left() == 0, "no temporary file left after the failed rename");
    unlink(inner);
    rmdir(p);
  }
}

int main(void) {
  snprintf(dir, sizeof dir, "%s/dab_durable_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  round_trips();
  failures();
  /* Clean up what the checks left. */
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "test_durable: could not remove %s\n", dir);
  return TH_REPORT("test_durable");
}
