/*
** service_int.h: what the service's files share (not public): the board
** slots with their oracles, the web files, the reply helpers.
** See Copyright Notice in README.md
*/
#ifndef DAB_SERVICE_INT_H
#define DAB_SERVICE_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include "oracle/oracle.h"
#include "players/player.h"
#include "service/service.h"

#define SVC_MAX_SIDE 16   /* DAB_MAX_SIDE: every board a position text can name */
#define SVC_BOARD_SIDE 7  /* /boards lists 1x1 .. 7x7 */

/* Where a board's answers come from, once known. */
enum { SLOT_UNKNOWN = 0, SLOT_TABLE = 1, SLOT_SEARCH = 2, SLOT_NONE = 3 };

typedef struct svc_slot {
  pthread_mutex_t lock;     /* held while opening the oracles */
  _Atomic int state;        /* SLOT_*; read without the lock once set */
  dab_oracle *table;        /* SLOT_TABLE: read-only, any thread */
  dab_oracle *search;       /* SLOT_SEARCH: one query at a time (its own lock) */
  char why[DAB_ERR_LEN];    /* SLOT_NONE: the reason */
} svc_slot;

typedef struct svc_file {
  char name[64];            /* "index.html" */
  const char *type;         /* content type */
  char *data;
  size_t len;
} svc_file;

struct dab_service {
  dab_service_opts opts;
  char bind[64];
  char tb_dir[4096];
  svc_slot slot[SVC_MAX_SIDE + 1][SVC_MAX_SIDE + 1];
  dab_player_env *env;
  svc_file *files;
  int nfiles;
  struct MHD_Daemon *mhd;
  int port;
  volatile sig_atomic_t cancel;   /* raised on shutdown: running searches stop */
  _Atomic uint64_t requests, errors, seeds;
  _Atomic uint64_t damaged;       /* answers a damaged tablebase block failed */
  time_t started;
};

/* Makes an error reply {"error":msg,"kind":kind} with the status. */
dab_status svc_error(dab_service_reply *r, int status, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The slot of a board, its oracles open (or the reason they are not).
** RETURN: the slot state, SLOT_TABLE, SLOT_SEARCH or SLOT_NONE. */
int svc_board(dab_service *s, int rows, int cols, svc_slot **out);

/* The web file called name ("" = index.html), or NULL. */
const svc_file *svc_web_file(const dab_service *s, const char *name);

/* Reads the web files of dir.  RETURN: DAB_OK, DAB_EIO, DAB_ENOMEM. */
dab_status svc_web_load(dab_service *s, const char *dir, dab_err *err);

/* Stops the HTTP daemon, if one runs (http.c). */
void svc_http_stop(dab_service *s);

#endif
