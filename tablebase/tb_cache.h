/*
** tb_cache.h: the user's cache ($XDG_CACHE_HOME/dab, else ~/.cache/dab):
** where it is, what searches keep in it (the policy: a least amount of
** work, a size cap), what it holds, removing entries, keeping it under
** its cap.  docs/persistence.md, "The cache".
** Internal to libdab: not installed (the public API is capi/dab.h).
** See Copyright Notice in README.md
*/
#ifndef DAB_TB_CACHE_H
#define DAB_TB_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "game/err.h"

/*
** THREAD SAFETY: every function may run in any thread and in many
** processes at once (not while another thread changes the environment).
** Removal is safe against other users of a file: a file is removed only
** under an exclusive flock, which no handle of it holds (tb_internal.h,
** "Lock files"), so a file in use is never removed.
*/

/* The defaults of the policy: $DAB_CACHE_MAX, $DAB_CACHE_MIN_SECONDS. */
#define DABTB_CACHE_MAX_DEFAULT ((uint64_t)2 << 30)
#define DABTB_CACHE_MIN_SECONDS_DEFAULT 1.0

/* What searches keep in the cache. */
typedef struct dabtb_cache_policy {
  uint64_t max_bytes;  /* the cap on search results (solved-only files) together; 0 = none */
  double min_seconds;  /* a search that ran less starts no file in the cache */
} dabtb_cache_policy;

/*
** Reads the policy from the environment: $DAB_CACHE_MAX (a size: 2G,
** 500M, 1048576; 0 = no cap) and $DAB_CACHE_MIN_SECONDS (seconds >= 0).
** RETURN: DAB_OK; DAB_EINPUT naming a variable that is not a size or a
** number (*p then has the default for it).
*/
dab_status dabtb_cache_policy_get(dabtb_cache_policy *p, dab_err *err);

/* The cache directory ($XDG_CACHE_HOME/dab, else $HOME/.cache/dab; not
** created).  RETURN: false when there is none ($DAB_TB_NO_PROJECT=1, or
** neither variable is an absolute path).  Implemented in tb_path.c. */
bool dabtb_cache_dir(char *out, size_t len);

/* True when path names a file directly in the cache directory. */
bool dabtb_in_cache(const char *path);

/* Marks path as used now (its access time), for the least-recently-used
** order of dabtb_cache_trim.  Failures are ignored. */
void dabtb_cache_touch(const char *path);

typedef enum dabtb_cache_kind {
  DABTB_CACHE_SEARCH = 0, /* RxC.dab without a table: what searches proved (kept under the cap) */
  DABTB_CACHE_TABLE = 1,  /* RxC.dab with a table: dab build, or a small board's first use */
  DABTB_CACHE_BUILD = 2,  /* RxC.dab.layers/: an interrupted dab build's finished layers */
  DABTB_CACHE_PDB = 3,    /* components.dabpdb: the pattern database */
  DABTB_CACHE_LEFTOVER = 4 /* a lock file no one uses, a dead creator's RxC.dab.new.PID, an
                              unreadable RxC.dab */
} dabtb_cache_kind;

/* "search", "table", "build", "pdb", "leftover". */
const char *dabtb_cache_kind_name(dabtb_cache_kind k);

/* One entry of the cache directory. */
typedef struct dabtb_cache_entry {
  char name[256];          /* its name in the directory */
  dabtb_cache_kind kind;
  int rows, cols;          /* its board; 0 for the pattern database */
  uint64_t bytes;          /* on disk (a directory: its files) */
  double last_used;        /* seconds since 1970: the later of its access and change times */
  bool in_use;             /* a handle (of any process) holds it now */
  /* With details, for search files and tables (details_read true): */
  bool details_read;
  char why[200];           /* else why not ("" when no details were asked) */
  uint64_t records, exact; /* solved records; of them exact (lower == upper) */
  uint64_t shapes, shapes_exact;
  bool root_stored;        /* the empty board has a record: */
  int root_lower, root_upper;
} dabtb_cache_entry;

/*
** Lists dir (the cache directory, or another) in name order: every
** RxC.dab, RxC.dab.layers/, components.dabpdb and leftover of them.
** PARAMETERS: details: also read each search file and table (records,
** exact ones, the empty board's bounds): one read of every record.
** RETURN: DAB_OK with *out (malloc'd, the caller frees) and *n;
** DAB_EIO when dir cannot be read; DAB_ENOMEM.
*/
dab_status dabtb_cache_list(const char *dir, bool details, dabtb_cache_entry **out, size_t *n, dab_err *err);

/*
** Removes entry e of dir (a file, or a build's layer directory) and its
** lock file, unless a handle holds it (*in_use true, nothing removed).
** RETURN: DAB_OK (also when in use); DAB_EIO when removing failed.
*/
dab_status dabtb_cache_remove(const char *dir, const dabtb_cache_entry *e, bool *in_use, dab_err *err);

/*
** Keeps the search files of dir within max_bytes together: removes the
** least recently used ones that no handle holds, never keep (a path, may
** be NULL: the file just written), until the rest fit.  Tables, layers
** and the pattern database are neither counted nor removed.
** PARAMETERS: note (len bytes) gets "2x7.dab (48.0 MB), ..." naming what
** was removed ("" when nothing); *freed the bytes removed.
** RETURN: DAB_OK; DAB_EIO when dir cannot be read; DAB_ENOMEM.
*/
dab_status dabtb_cache_trim(const char *dir, uint64_t max_bytes, const char *keep, char *note, size_t len,
                            uint64_t *freed, dab_err *err);

#endif
