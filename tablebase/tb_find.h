/*
** tb_find.h: where tablebase files are looked for and written,
** and opening a board's file (building a small one on first use).
** See Copyright Notice in README.md
*/
#ifndef DAB_TB_FIND_H
#define DAB_TB_FIND_H

#include <stdbool.h>
#include <stddef.h>
#include "game/board.h"
#include "tablebase/tb_probe.h"
#include "game/dabapi.h"

/*
** THREAD SAFETY: dabtb_find, dabtb_default_path, dabtb_readonly and
** dabtb_where read the environment and the file system only: any thread,
** any time (not while another thread changes the environment).
** dabtb_open_board may run in many threads and processes at once: the
** first-use build of a small board is serialised by an flock of its
** directory.
*/

/*
** Looks for "RxC.dab" in: tb_dir (if non-NULL), then each directory of
** $DAB_TB_PATH (colon-separated), then the user's cache ($XDG_CACHE_HOME/dab
** or ~/.cache/dab), then data/tb/ of the dab project (found from the
** location of the running binary or libdab.so).  $DAB_TB_NO_PROJECT=1
** leaves the cache and the project out.
** RETURN: DAB_OK with the path in path[len]; DAB_EIO when no directory has
** it (the message lists where it looked and names `dab build RxC`).
*/
DAB_API dab_status dabtb_find(int rows, int cols, const char *tb_dir, char *path, size_t len, dab_err *err);

/*
** Where a new RxC.dab goes: tb_dir if given, else the first directory of
** $DAB_TB_PATH, else the user's cache, $XDG_CACHE_HOME/dab or
** ~/.cache/dab (created if missing).  The project's data/tb/ is searched
** (dabtb_find: after the cache) but written only when named by --tb or
** $DAB_TB_PATH.
** RETURN: DAB_OK and the file path; DAB_EIO if there is no such place,
** or in read-only mode (dabtb_readonly), saying so.
*/
DAB_API dab_status dabtb_default_path(int rows, int cols, const char *tb_dir, char *path, size_t len,
                                      dab_err *err);

/*
** The same two for any file kept beside the tablebases (the pattern
** database, pdb/pdb.h: DAB_PDB_FILE): dabtb_find_file looks for `name`
** where dabtb_find looks; dabtb_default_file says where a new one goes.
** RETURN: as dabtb_find and dabtb_default_path.
*/
DAB_API dab_status dabtb_find_file(const char *name, const char *tb_dir, char *path, size_t len, dab_err *err);
DAB_API dab_status dabtb_default_file(const char *name, const char *tb_dir, char *path, size_t len, dab_err *err);

/* True in read-only mode ($DAB_READONLY set and not "0"): the process
** default; no query may create or change a file; dabtb_default_path
** refuses, so nothing is built on first use (oracles of small boards solve
** in memory instead).  A handle may be read-only on its own, whatever the
** environment says: dab_oracle_opts.read_only, dabtb_open_board_mode,
** dab_solvestore_opts.read_only. */
DAB_API bool dabtb_readonly(void);

/* For `dab info`: lookup gets the directories dabtb_find searches, in
** order, ':'-separated; write where dabtb_default_path would put a new
** file (a directory), or "nowhere (why)", as dabtb_default_path decides
** it: a --tb or $DAB_TB_PATH directory that does not exist is nowhere.
** Both are truncated to fit. */
DAB_API void dabtb_where(const char *tb_dir, char *lookup, size_t llen, char *write, size_t wlen);

/* Boards with at most this many lines (3x3) are built on first use. */
#define DABTB_AUTO_BUILD_LINES 24
/* The oracle writes no file for a board of at most this many lines (1x6,
** 2x3 and smaller): solved in memory in milliseconds, it answers as fast
** as a file would (measured: 1x6 0.02 s, 2x4 0.12 s, 3x3 0.35 s a process
** in memory; 0.01 s from a file). */
#define DABTB_MEMORY_ONLY_LINES 20

/*
** Finds and opens the tablebase of rows x cols; when none exists and the
** board has at most DABTB_AUTO_BUILD_LINES lines, builds it first (well
** under a second) at dabtb_default_path, holding an flock on its
** directory so that processes starting together build it once (no lock
** file is left).  The oracle calls it for boards of more than
** DABTB_MEMORY_ONLY_LINES lines; it solves smaller ones in memory.
** RETURN: as dabtb_open and dabtb_find; DAB_EBOARD for larger boards
** without a file (the message names the build command).
*/
DAB_API dab_status dabtb_open_board(int rows, int cols, const char *tb_dir, dabtb **out, dab_err *err);

/* dabtb_open_board with a read-only flag of the caller's own: read_only
** true never builds (DAB_EIO naming the read-only handle when no file is
** found), whatever the environment says; false is dabtb_open_board, which
** follows the process default (dabtb_readonly). */
DAB_API dab_status dabtb_open_board_mode(int rows, int cols, const char *tb_dir, bool read_only, dabtb **out,
                                         dab_err *err);

#endif
