/*
** http.c: the HTTP side of the service on libmicrohttpd: one thread per
** connection, request bodies gathered up to the limit, replies queued.
** See Copyright Notice in README.md
*/
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "service/service_int.h"

/* One request's state between the handler's calls: its body so far. */
typedef struct http_req {
  char *buf;
  size_t len, cap;
  bool too_large;
  bool answered;   /* the 413 is queued (an announced Content-Length over the limit) */
} http_req;

static const char *arg_lookup(void *ctx, const char *key) {
  return MHD_lookup_connection_value((struct MHD_Connection *)ctx, MHD_GET_ARGUMENT_KIND, key);
}

/* Appends data to the request's body unless it passes max.  RETURN:
** false when it would (the body is dropped and marked too large). */
static bool append(http_req *q, const char *data, size_t n, size_t max) {
  if (q->too_large) return false;
  if (n > max || q->len + n > max) {
    q->too_large = true;
    free(q->buf);
    q->buf = NULL;
    q->len = q->cap = 0;
    return false;
  }
  if (q->len + n + 1 > q->cap) {
    size_t cap = q->cap ? q->cap : 4096;
    while (cap < q->len + n + 1) cap *= 2;
    char *b = realloc(q->buf, cap);
    if (!b) return false;
    q->buf = b;
    q->cap = cap;
  }
  memcpy(q->buf + q->len, data, n);
  q->len += n;
  q->buf[q->len] = 0;
  return true;
}

/* Queues r on c (and frees its body).  RETURN: MHD's answer. */
static enum MHD_Result send_reply(struct MHD_Connection *c, dab_service_reply *r, bool api) {
  struct MHD_Response *resp = MHD_create_response_from_buffer(r->len, r->body, MHD_RESPMEM_MUST_FREE);
  if (!resp) {
    dab_service_reply_free(r);
    return MHD_NO;
  }
  r->body = NULL;
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->content_type);
  MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, api ? "no-store" : "no-cache");
  if (r->allow) MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
  enum MHD_Result ret = MHD_queue_response(c, (unsigned)r->status, resp);
  MHD_destroy_response(resp);
  return ret;
}

/* The 413 reply, counted like the API's answers. */
static enum MHD_Result too_large(dab_service *s, struct MHD_Connection *c) {
  dab_service_reply r;
  memset(&r, 0, sizeof r);
  atomic_fetch_add(&s->requests, 1);
  atomic_fetch_add(&s->errors, 1);
  if (svc_error(&r, 413, "body_too_large", "request body larger than %zu bytes", s->opts.max_body)) return MHD_NO;
  return send_reply(c, &r, true);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls) {
  (void)version;
  dab_service *s = cls;
  http_req *q = *con_cls;
  if (!q) {   /* the headers are in: say no at once to a body announced too large */
    q = calloc(1, sizeof *q);
    if (!q) return MHD_NO;
    *con_cls = q;
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl && strtoull(cl, NULL, 10) > s->opts.max_body) {
      q->too_large = q->answered = true;
      return too_large(s, c);
    }
    return MHD_YES;
  }
  if (*upload_size) {   /* a body streamed past the limit is dropped as it comes, answered at its end */
    if (!append(q, upload, *upload_size, s->opts.max_body) && !q->too_large) return MHD_NO;
    *upload_size = 0;
    return MHD_YES;
  }
  if (q->too_large) return q->answered ? MHD_YES : too_large(s, c);
  dab_service_reply r;
  if (dab_service_call(s, method, url, arg_lookup, c, q->buf, q->len, &r)) return MHD_NO;
  return send_reply(c, &r, !strncmp(url, "/api/", 5));
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe) {
  (void)cls, (void)c, (void)toe;
  http_req *q = *con_cls;
  if (q) {
    free(q->buf);
    free(q);
  }
  *con_cls = NULL;
}

/* libmicrohttpd's own messages go nowhere: a library never prints. */
static void quiet_log(void *cls, const char *fmt, va_list ap) {
  (void)cls, (void)fmt, (void)ap;
}

dab_status dab_service_start(dab_service *s, dab_err *err) {
  if (s->mhd) return dab_fail(err, DAB_EINPUT, "the service is already listening");
  struct sockaddr_in v4;
  struct sockaddr_in6 v6;
  memset(&v4, 0, sizeof v4);
  memset(&v6, 0, sizeof v6);
  const struct sockaddr *addr;
  unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION;
  if (s->opts.port < 0 || s->opts.port > 65535) return dab_fail(err, DAB_EINPUT, "port %d is not 0..65535", s->opts.port);
  if (inet_pton(AF_INET, s->bind, &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons((uint16_t)s->opts.port);
    addr = (const struct sockaddr *)&v4;
  } else if (inet_pton(AF_INET6, s->bind, &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons((uint16_t)s->opts.port);
    addr = (const struct sockaddr *)&v6;
    flags |= MHD_USE_IPv6;
  } else {
    return dab_fail(err, DAB_EINPUT, "bind address '%.200s' is not an IPv4 or IPv6 address", s->bind);
  }
  s->mhd = MHD_start_daemon(flags, (uint16_t)s->opts.port, NULL, NULL, on_request, s,
                            MHD_OPTION_SOCK_ADDR, addr,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)s->opts.max_connections,
                            MHD_OPTION_CONNECTION_TIMEOUT, s->opts.timeout,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                            MHD_OPTION_EXTERNAL_LOGGER, quiet_log, s,
                            MHD_OPTION_END);
  if (!s->mhd)
    return dab_fail(err, DAB_EIO, "cannot listen on %.200s port %d (in use, or not allowed)", s->bind, s->opts.port);
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
  s->port = info ? info->port : s->opts.port;
  return DAB_OK;
}

int dab_service_port(const dab_service *s) { return s->mhd ? s->port : 0; }

void svc_http_stop(dab_service *s) {
  if (!s->mhd) return;
  MHD_stop_daemon(s->mhd);
  s->mhd = NULL;
}
