/*
** service.h: the oracle and the players over HTTP/JSON (`dab serve`), and
** the web analysis board's static files.  Layered above oracle/, players/
** and agents/.  docs/API.md describes every endpoint.
** Part of the service application (service/), not of libdab.
** See Copyright Notice in README.md
*/
#ifndef DAB_SERVICE_H
#define DAB_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "game/err.h"

typedef struct dab_service dab_service;

/* Limits a zero field leaves at its default. */
#define DAB_SERVICE_MAX_BODY (1u << 20)        /* bytes of a POST body: 1 MiB */
#define DAB_SERVICE_MAX_BATCH 1000             /* positions in one POST /analyze */
#define DAB_SERVICE_NODE_LIMIT 2000000ull      /* search nodes per request */
#define DAB_SERVICE_MAX_CONNECTIONS 1000
#define DAB_SERVICE_TIMEOUT 10                 /* seconds a connection may idle */

typedef struct dab_service_opts {
  const char *bind;           /* address to listen on, IPv4 or IPv6; NULL = 127.0.0.1 */
  int port;                   /* 0 = any free port (dab_service_port says which) */
  const char *tb_dir;         /* tablebase directory searched first; NULL = the default path */
  const char *web_dir;        /* the web board's files (index.html, ...); NULL = no board */
  int search_threads;         /* threads of one search; 0 = 1 (the other cores stay free) */
  uint64_t search_node_limit; /* search nodes one request may spend; 0 = DAB_SERVICE_NODE_LIMIT */
  bool no_search;             /* answer from tables only (boards without one: 422) */
  size_t max_body;            /* 0 = DAB_SERVICE_MAX_BODY */
  int max_batch;              /* 0 = DAB_SERVICE_MAX_BATCH */
  int max_connections;        /* 0 = DAB_SERVICE_MAX_CONNECTIONS */
  unsigned timeout;           /* 0 = DAB_SERVICE_TIMEOUT */
} dab_service_opts;

/*
** Makes a service: the player environment (with the trained-agent kinds)
** and the web files, read once from web_dir.  Oracles open on first use,
** one read-only table oracle per board shared by every request, and one
** searching oracle per board for boards no table covers.  Nothing listens
** yet (dab_service_start).
** RETURN: DAB_OK and *out; DAB_EIO when web_dir cannot be read or lacks
** index.html; DAB_ENOMEM.
*/
dab_status dab_service_new(const dab_service_opts *opts, dab_service **out, dab_err *err);

/*
** Starts listening: one thread per connection, so a long search or player
** move holds only its own connection.
** RETURN: DAB_OK; DAB_EINPUT for a bind address that is not an IP
** address; DAB_EIO when the address cannot be bound (in use, no right).
*/
dab_status dab_service_start(dab_service *s, dab_err *err);

/* The port listened on (after dab_service_start), else 0. */
int dab_service_port(const dab_service *s);

/* Stops listening (running searches are cancelled, connections closed)
** and frees everything.  s may be NULL. */
void dab_service_free(dab_service *s);

/* One answer of the API: HTTP status, content type, body (malloc'd). */
typedef struct dab_service_reply {
  int status;
  const char *content_type;
  char *body;
  size_t len;
  const char *allow;          /* 405: the methods the path accepts */
} dab_service_reply;

/* Looks up a query argument (decoded); NULL when absent. */
typedef const char *(*dab_service_arg_fn)(void *ctx, const char *key);

/*
** Answers one request without HTTP: method ("GET", ...), path ("/api/v1/
** analyze"), its query arguments through arg(ctx, key), and the body.
** The HTTP server calls this; so can tests.  Thread-safe.
** RETURN: DAB_OK and *r (free r->body with dab_service_reply_free), also
** for 4xx answers; DAB_ENOMEM when no reply could be made.
*/
dab_status dab_service_call(dab_service *s, const char *method, const char *path, dab_service_arg_fn arg,
                            void *ctx, const char *body, size_t body_len, dab_service_reply *r);
void dab_service_reply_free(dab_service_reply *r);

/* Requests answered, and of those with a 4xx/5xx status. */
void dab_service_counts(const dab_service *s, uint64_t *requests, uint64_t *errors);

#endif
