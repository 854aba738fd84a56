/*
** api.c: the JSON API under /api/v1/ (analyze, play, boards, health) and
** the routing of every request, HTTP aside (http.c brings the requests).
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "game/clock.h"
#include "game/postext.h"
#include "service/service_int.h"

#define API "/api/v1/"
#define MAX_SPEC 256   /* characters of a player spec */

/* Copies s into out (cap bytes) with every byte that is not printable
** ASCII replaced by '?', so that any text can go into JSON. */
static void clean_text(const char *s, char *out, size_t cap) {
  size_t n = 0;
  for (; s && *s && n + 1 < cap; s++) out[n++] = (*s >= 32 && *s < 127) ? *s : '?';
  out[n] = 0;
}

/* Serializes o (stolen) into r with the status.  RETURN: DAB_OK or DAB_ENOMEM. */
static dab_status reply_json(dab_service_reply *r, int status, json_t *o) {
  char *text = o ? json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
  json_decref(o);
  if (!text) return DAB_ENOMEM;
  size_t len = strlen(text);
  r->body = malloc(len + 2);   /* one line: the body ends with a newline */
  if (!r->body) {
    free(text);
    return DAB_ENOMEM;
  }
  memcpy(r->body, text, len);
  r->body[len++] = '\n';
  r->body[len] = 0;
  free(text);
  r->len = len;
  r->status = status;
  r->content_type = "application/json";
  return DAB_OK;
}

dab_status svc_error(dab_service_reply *r, int status, const char *kind, const char *fmt, ...) {
  char msg[1024], clean[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  clean_text(msg, clean, sizeof clean);
  json_t *o = json_pack("{s:s,s:s}", "error", clean, "kind", kind);
  return reply_json(r, status, o);
}

/* A JSON string of arbitrary text (cleaned). */
static json_t *jstr(const char *s) {
  char clean[512];
  clean_text(s, clean, sizeof clean);
  return json_string(clean);
}

/* An error on the way to an answer: status, kind and message. */
typedef struct api_err {
  int status;
  const char *kind;
  char msg[DAB_ERR_LEN + 600];
} api_err;

static void set_err(api_err *e, int status, const char *kind, const char *prefix, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void set_err(api_err *e, int status, const char *kind, const char *prefix, const char *fmt, ...) {
  e->status = status;
  e->kind = kind;
  size_t n = (size_t)snprintf(e->msg, sizeof e->msg, "%s", prefix);
  if (n >= sizeof e->msg) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg + n, sizeof e->msg - n, fmt, ap);
  va_end(ap);
}

/* Parses a position text into p; on failure fills e (400 bad_position,
** 422 unknown_board).  RETURN: true when parsed. */
static bool parse_pos(const char *text, dab_parsed *p, const char *prefix, api_err *e) {
  if (!text || !*text) {
    set_err(e, 400, "bad_position", prefix, "missing position: pos=RxC, RxC:DBN or RxC@m1,m2,...");
    return false;
  }
  dab_err err;
  dab_status st = dab_parse_position(text, p, &err);
  if (st == DAB_EBOARD) {
    set_err(e, 422, "unknown_board", prefix, "%s", err.msg);
    return false;
  }
  if (st) {
    set_err(e, 400, "bad_position", prefix, "%s", err.msg);
    return false;
  }
  return true;
}

/* Boxes still open in a game: the trivial bound of any value. */
static int open_boxes(const dab_geom *g, const dab_game *game) {
  int n = 0;
  for (int b = 0; b < g->nboxes; b++) n += game->owner[b] == -1;
  return n;
}

static double ms_since(double t0) { return (dab_now_s() - t0) * 1e3; }

/* The position's own keys: pos, dbn, rows, cols, and with a move history
** to_move and score. */
static json_t *position_json(const char *text, const dab_parsed *p) {
  char dbn[DAB_MAX_LINES + 32];
  json_t *o = json_object();
  json_object_set_new(o, "pos", jstr(text));
  if (dab_format_dbn(&p->geom, &p->game.lines, dbn, sizeof dbn)) json_object_set_new(o, "dbn", json_string(dbn));
  json_object_set_new(o, "rows", json_integer(p->geom.rows));
  json_object_set_new(o, "cols", json_integer(p->geom.cols));
  if (p->has_history) {
    json_object_set_new(o, "to_move", json_integer(p->game.to_move));
    json_object_set_new(o, "score", json_pack("[ii]", p->game.score[0], p->game.score[1]));
  }
  return o;
}

/* Adds the CLI's --json keys of an analysis: value, moves, best. */
static void add_analysis(json_t *o, const dab_analysis *a) {
  json_t *moves = json_array(), *best = json_array();
  for (int i = 0; i < a->nmoves; i++)
    json_array_append_new(moves, json_pack("{s:i,s:i}", "move", a->move[i], "value", a->move_value[i]));
  for (int i = 0; i < a->nbest; i++) json_array_append_new(best, json_integer(a->best[i]));
  json_object_set_new(o, "value", json_integer(a->value));
  json_object_set_new(o, "moves", moves);
  json_object_set_new(o, "best", best);
}

/* An inexact answer: what is proved about the value, no move values. */
static void add_bounds(json_t *o, int lower, int upper) {
  json_object_set_new(o, "value", lower == upper ? json_integer(lower) : json_null());
  json_object_set_new(o, "lower", json_integer(lower));
  json_object_set_new(o, "upper", json_integer(upper));
  json_object_set_new(o, "moves", json_array());
  json_object_set_new(o, "best", json_array());
  json_object_set_new(o, "exact", json_false());
}

/*
** Analyzes one position text: the table oracle of its board, else a
** search bounded by the request's node budget (*nodes_left, reduced by
** what the search spent; at 0 no search starts and the answer is the
** trivial bounds).  RETURN: the answer object, or NULL with e filled.
*/
static json_t *analyze_one(dab_service *s, const char *text, uint64_t *nodes_left, const char *prefix, api_err *e) {
  double t0 = dab_now_s();
  dab_parsed p;
  if (!parse_pos(text, &p, prefix, e)) return NULL;
  const dab_geom *g = &p.geom;
  svc_slot *slot;
  int state = svc_board(s, g->rows, g->cols, &slot);
  if (state == SLOT_NONE) {
    set_err(e, 422, "unknown_board", prefix, "%dx%d: %s", g->rows, g->cols, slot->why);
    return NULL;
  }
  dab_analysis a;
  dab_oracle_info info;
  memset(&info, 0, sizeof info);
  dab_err err;
  json_t *o = position_json(text, &p);
  if (state == SLOT_SEARCH && *nodes_left == 0) {
    int b = open_boxes(g, &p.game);
    add_bounds(o, -b, b);
    json_object_set_new(o, "source", json_string("search"));
    json_object_set_new(o, "nodes", json_integer(0));
    json_object_set_new(o, "ms", json_real(ms_since(t0)));
    return o;
  }
  dab_oracle *orc = state == SLOT_TABLE ? slot->table : slot->search;
  dab_status st = dab_oracle_query(orc, &p.game.lines, 0, &a, &info, &err);
  if (state == SLOT_SEARCH) *nodes_left = info.nodes >= *nodes_left ? 0 : *nodes_left - info.nodes;
  if (st == DAB_ECANCELED && state == SLOT_SEARCH) {
    add_bounds(o, info.lower, info.upper);
  } else if (st) {
    json_decref(o);
    if (st == DAB_ECORRUPT || st == DAB_EIO) {
      /* The operator hears of a damaged file once; each answer it fails says so itself. */
      if (atomic_fetch_add(&s->damaged, 1) == 0)
        fprintf(stderr, "dab serve: %s (answers that need a damaged block fail with kind corrupt_table)\n", err.msg);
      set_err(e, 500, "corrupt_table", prefix, "%s", err.msg);
    } else if (st == DAB_EINPUT) set_err(e, 400, "bad_position", prefix, "%s", err.msg);
    else if (st == DAB_ENOMEM) set_err(e, 503, "no_memory", prefix, "%s", err.msg);
    else set_err(e, 500, "internal", prefix, "%s", err.msg);
    return NULL;
  } else {
    add_analysis(o, &a);
    json_object_set_new(o, "exact", json_true());
  }
  json_object_set_new(o, "source", json_string(info.source ? info.source : dab_oracle_source(orc)));
  if (state == SLOT_SEARCH) json_object_set_new(o, "nodes", json_integer((json_int_t)info.nodes));
  json_object_set_new(o, "ms", json_real(ms_since(t0)));
  return o;
}

static dab_status reply_err(dab_service_reply *r, const api_err *e) {
  return svc_error(r, e->status, e->kind, "%s", e->msg);
}

/* GET /analyze?pos=... */
static dab_status get_analyze(dab_service *s, dab_service_arg_fn arg, void *ctx, dab_service_reply *r) {
  api_err e;
  uint64_t budget = s->opts.search_node_limit;
  json_t *o = analyze_one(s, arg(ctx, "pos"), &budget, "", &e);
  if (!o) return reply_err(r, &e);
  return reply_json(r, 200, o);
}

/* POST /analyze: ["pos", ...] or {"positions":["pos", ...]} */
static dab_status post_analyze(dab_service *s, const char *body, size_t len, dab_service_reply *r) {
  json_error_t jerr;
  json_t *doc = json_loadb(body ? body : "", len, JSON_REJECT_DUPLICATES, &jerr);
  if (!doc) {
    char shown[200];
    clean_text(jerr.text, shown, sizeof shown);
    return svc_error(r, 400, "bad_json", "body is not JSON (line %d, column %d: %s); send [\"3x3@0,5\", ...]",
                     jerr.line, jerr.column, shown);
  }
  json_t *list = json_is_object(doc) ? json_object_get(doc, "positions") : doc;
  if (!json_is_array(list)) {
    json_decref(doc);
    return svc_error(r, 400, "bad_json", "body must be a JSON list of positions, or {\"positions\":[...]}");
  }
  size_t n = json_array_size(list);
  if (n > (size_t)s->opts.max_batch) {
    json_decref(doc);
    return svc_error(r, 400, "too_many_positions", "%zu positions in one batch; at most %d", n, s->opts.max_batch);
  }
  uint64_t budget = s->opts.search_node_limit;
  json_t *results = json_array();
  size_t failed = 0;
  for (size_t i = 0; i < n; i++) {
    json_t *item = json_array_get(list, i);
    char prefix[48];
    snprintf(prefix, sizeof prefix, "positions[%zu]: ", i);
    api_err e;
    json_t *o = json_is_string(item) ? analyze_one(s, json_string_value(item), &budget, prefix, &e) : NULL;
    if (!json_is_string(item)) set_err(&e, 400, "bad_position", prefix, "not a string");
    if (!o && !strcmp(e.kind, "corrupt_table")) { /* a damaged block fails its item, not the batch */
      json_array_append_new(results, json_pack("{s:s,s:s,s:s}", "pos", json_string_value(item), "error", e.msg,
                                                "kind", e.kind));
      failed++;
      continue;
    }
    if (!o) {
      json_decref(results);
      json_decref(doc);
      return reply_err(r, &e);
    }
    json_array_append_new(results, o);
  }
  json_decref(doc);
  json_t *o = json_object();
  json_object_set_new(o, "results", results);
  json_object_set_new(o, "nodes_left", json_integer((json_int_t)budget));
  json_object_set_new(o, "failed", json_integer((json_int_t)failed));
  return reply_json(r, 200, o);
}

/* Parses the seed argument: digits, at most 2^64-1.  RETURN: true when good. */
static bool parse_seed(const char *t, uint64_t *seed) {
  if (!t || !*t) return false;
  for (const char *c = t; *c; c++)
    if (*c < '0' || *c > '9') return false;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(t, &end, 10);
  if (errno || *end) return false;
  *seed = v;
  return true;
}

/* GET /play?pos=...&player=SPEC&seed=S */
static dab_status get_play(dab_service *s, dab_service_arg_fn arg, void *ctx, dab_service_reply *r) {
  api_err e;
  dab_parsed p;
  const char *text = arg(ctx, "pos"), *spec = arg(ctx, "player"), *seed_text = arg(ctx, "seed");
  if (!parse_pos(text, &p, "", &e)) return reply_err(r, &e);
  const dab_geom *g = &p.geom;
  if (dab_game_over(g, &p.game)) return svc_error(r, 422, "game_over", "position has no moves left");
  uint64_t seed;
  if (seed_text && !parse_seed(seed_text, &seed))
    return svc_error(r, 400, "bad_seed", "seed must be a whole number 0..2^64-1");
  if (!seed_text) seed = atomic_fetch_add(&s->seeds, 0x9e3779b97f4a7c15ull);
  svc_slot *slot = NULL;
  int state = g->nlines <= 64 ? svc_board(s, g->rows, g->cols, &slot) : SLOT_NONE;
  if (!spec || !*spec) spec = state == SLOT_TABLE ? "perfect" : "chain";
  if (strlen(spec) > MAX_SPEC) return svc_error(r, 400, "bad_player", "player spec longer than %d characters", MAX_SPEC);
  dab_player *pl;
  dab_err err;
  dab_status st = dab_player_new(spec, g, s->env, &pl, &err);
  if (st == DAB_EINPUT) return svc_error(r, 400, "bad_player", "player '%s': %s", spec, err.msg);
  if (st == DAB_EBOARD) return svc_error(r, 422, "unknown_board", "player '%s' on %dx%d: %s", spec, g->rows, g->cols, err.msg);
  if (st == DAB_ENOMEM) return svc_error(r, 503, "no_memory", "%s", err.msg);
  if (st) return svc_error(r, 500, "internal", "player '%s': %s", spec, err.msg);
  dab_rng rng;
  dab_rng_seed(&rng, seed);
  double t0 = dab_now_s();
  int m = dab_player_move(pl, &p.game, &rng);
  double ms = ms_since(t0);
  json_t *o = position_json(text, &p);
  json_object_set_new(o, "player", jstr(dab_player_name(pl)));
  dab_player_free(pl);
  char seed_str[24];
  snprintf(seed_str, sizeof seed_str, "%" PRIu64, seed);
  json_object_set_new(o, "seed", json_string(seed_str));   /* a string: JSON numbers stop at 2^53 */
  json_object_set_new(o, "move", json_integer(m));
  json_object_set_new(o, "ms", json_real(ms));
  dab_analysis a;
  if (state == SLOT_TABLE && dab_oracle_analyze(slot->table, &p.game.lines, &a, NULL) == DAB_OK) {
    for (int i = 0; i < a.nmoves; i++)
      if (a.move[i] == m) json_object_set_new(o, "move_value", json_integer(a.move_value[i]));
    add_analysis(o, &a);
    json_object_set_new(o, "source", json_string(dab_oracle_source(slot->table)));
  }
  return reply_json(r, 200, o);
}

/* GET /boards: 1x1 .. 7x7, where each board's answers come from. */
static dab_status get_boards(dab_service *s, dab_service_reply *r) {
  json_t *list = json_array();
  for (int rows = 1; rows <= SVC_BOARD_SIDE; rows++)
    for (int cols = 1; cols <= SVC_BOARD_SIDE; cols++) {
      int lines = 2 * rows * cols + rows + cols;
      const char *source = "none";
      svc_slot *slot = &s->slot[rows][cols];
      int state = atomic_load(&slot->state);
      if (state == SLOT_UNKNOWN && lines <= 24) source = "memory";   /* the oracle's default max_build_free */
      else {
        state = lines <= 64 ? svc_board(s, rows, cols, &slot) : SLOT_NONE;
        if (state == SLOT_TABLE) source = dab_oracle_source(slot->table);
        else if (state == SLOT_SEARCH) source = "search";
      }
      char name[32];
      snprintf(name, sizeof name, "%dx%d", rows, cols);
      json_array_append_new(list, json_pack("{s:s,s:i,s:i,s:i,s:s,s:b}", "board", name, "rows", rows, "cols", cols,
                                            "lines", lines, "source", source, "exact",
                                            strcmp(source, "search") && strcmp(source, "none")));
    }
  json_t *o = json_object();
  json_object_set_new(o, "boards", list);
  json_object_set_new(o, "search", json_boolean(!s->opts.no_search));
  json_object_set_new(o, "search_node_limit", json_integer((json_int_t)s->opts.search_node_limit));
  return reply_json(r, 200, o);
}

/* GET /health */
static dab_status get_health(dab_service *s, dab_service_reply *r) {
  uint64_t req, errs;
  dab_service_counts(s, &req, &errs);
  json_t *o = json_object();
  json_object_set_new(o, "status", json_string("ok"));
  json_object_set_new(o, "uptime_s", json_integer((json_int_t)(time(NULL) - s->started)));
  json_object_set_new(o, "requests", json_integer((json_int_t)req));
  json_object_set_new(o, "errors", json_integer((json_int_t)errs));
  json_object_set_new(o, "damaged", json_integer((json_int_t)atomic_load(&s->damaged)));
  json_object_set_new(o, "search", json_boolean(!s->opts.no_search));
  json_object_set_new(o, "search_node_limit", json_integer((json_int_t)s->opts.search_node_limit));
  json_object_set_new(o, "max_body", json_integer((json_int_t)s->opts.max_body));
  json_object_set_new(o, "max_batch", json_integer(s->opts.max_batch));
  return reply_json(r, 200, o);
}

/* A copy of a web file as the reply. */
static dab_status reply_file(const svc_file *f, dab_service_reply *r) {
  r->body = malloc(f->len + 1);
  if (!r->body) return DAB_ENOMEM;
  memcpy(r->body, f->data, f->len);
  r->body[f->len] = 0;
  r->len = f->len;
  r->status = 200;
  r->content_type = f->type;
  return DAB_OK;
}

static dab_status route(dab_service *s, const char *method, const char *path, dab_service_arg_fn arg, void *ctx,
                        const char *body, size_t body_len, dab_service_reply *r) {
  bool get = !strcmp(method, "GET") || !strcmp(method, "HEAD"), post = !strcmp(method, "POST");
  if (strncmp(path, API, strlen(API))) {   /* the web board */
    const svc_file *f = path[0] == '/' && !strchr(path + 1, '/') ? svc_web_file(s, path + 1) : NULL;
    if (!f) return svc_error(r, 404, "not_found", "no such page; the API is under " API);
    if (!get) {
      r->allow = "GET, HEAD";
      return svc_error(r, 405, "method_not_allowed", "%s: use GET", path);
    }
    return reply_file(f, r);
  }
  const char *name = path + strlen(API);
  bool analyze = !strcmp(name, "analyze");
  if (!analyze && strcmp(name, "play") && strcmp(name, "boards") && strcmp(name, "health"))
    return svc_error(r, 404, "not_found", "no endpoint %s; there are analyze, play, boards and health", path);
  if (analyze && post) {
    if (body_len > s->opts.max_body)
      return svc_error(r, 413, "body_too_large", "body of %zu bytes; at most %zu", body_len, s->opts.max_body);
    return post_analyze(s, body, body_len, r);
  }
  if (!get) {
    r->allow = analyze ? "GET, HEAD, POST" : "GET, HEAD";
    return svc_error(r, 405, "method_not_allowed", "%s %s: use %s", method, path, r->allow);
  }
  if (analyze) return get_analyze(s, arg, ctx, r);
  if (!strcmp(name, "play")) return get_play(s, arg, ctx, r);
  if (!strcmp(name, "boards")) return get_boards(s, r);
  return get_health(s, r);
}

static const char *no_args(void *ctx, const char *key) {
  (void)ctx, (void)key;
  return NULL;
}

dab_status dab_service_call(dab_service *s, const char *method, const char *path, dab_service_arg_fn arg,
                            void *ctx, const char *body, size_t body_len, dab_service_reply *r) {
  memset(r, 0, sizeof *r);
  dab_status st = route(s, method ? method : "", path ? path : "", arg ? arg : no_args, ctx, body, body_len, r);
  atomic_fetch_add(&s->requests, 1);
  if (st || r->status >= 400) atomic_fetch_add(&s->errors, 1);
  return st;
}

void dab_service_reply_free(dab_service_reply *r) {
  if (!r) return;
  free(r->body);
  r->body = NULL;
}

void dab_service_counts(const dab_service *s, uint64_t *requests, uint64_t *errors) {
  *requests = atomic_load(&((dab_service *)s)->requests);
  *errors = atomic_load(&((dab_service *)s)->errors);
}
