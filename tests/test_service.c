/*
** test_service.c: the service's API without HTTP (dab_service_call):
** answers, every error class, the batch budget; runs under ASan/UBSan too.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "service/service.h"
#include "tests/testhelp.h"

typedef struct args { const char *k[4], *v[4]; } args;

static const char *lookup(void *ctx, const char *key) {
  args *a = ctx;
  for (int i = 0; i < 4 && a->k[i]; i++)
    if (!strcmp(a->k[i], key)) return a->v[i];
  return NULL;
}

/* Calls the API; returns the status and leaves the body in r. */
static int call(dab_service *s, const char *method, const char *path, args *a, const char *body,
                dab_service_reply *r) {
  dab_status st = dab_service_call(s, method, path, lookup, a, body, body ? strlen(body) : 0, r);
  return st ? -1 : r->status;
}

static bool has(const dab_service_reply *r, const char *text) { return r->body && strstr(r->body, text); }

int main(void) {
  char dir[] = "/tmp/dab-service-XXXXXX";
  TH_CHECK(mkdtemp(dir) != NULL, "temp dir");
  setenv("DAB_TB_PATH", dir, 1);
  setenv("XDG_CACHE_HOME", dir, 1);
  dab_service_opts o = {.max_batch = 3, .max_body = 200, .search_node_limit = 1000};
  dab_service *s;
  dab_err err;
  TH_CHECK(dab_service_new(&o, &s, &err) == DAB_OK, "new: %s", err.msg);
  dab_service_reply r;
  args a = {{"pos"}, {"2x2@0,5"}};
  TH_CHECK(call(s, "GET", "/api/v1/analyze", &a, NULL, &r) == 200, "analyze 2x2@0,5");
  TH_CHECK(has(&r, "\"value\":2,") && has(&r, "\"best\":[1,4,8,9]") && has(&r, "\"exact\":true"), "%s", r.body);
  dab_service_reply_free(&r);
  /* searched board past its node budget: bounds, not exact */
  args b = {{"pos"}, {"4x4@5"}};
  TH_CHECK(call(s, "GET", "/api/v1/analyze", &b, NULL, &r) == 200 && has(&r, "\"exact\":false") && has(&r, "\"lower\":"),
           "4x4 over budget: %s", r.body);
  dab_service_reply_free(&r);
  /* batch: order, then the whole batch fails on a bad item, naming it */
  TH_CHECK(call(s, "POST", "/api/v1/analyze", NULL, "[\"2x2\",\"1x1\"]", &r) == 200 && has(&r, "\"results\":[{\"pos\":\"2x2\""),
           "batch: %s", r.body);
  dab_service_reply_free(&r);
  TH_CHECK(call(s, "POST", "/api/v1/analyze", NULL, "[\"2x2\",\"2x2:01\"]", &r) == 400 && has(&r, "positions[1]"),
           "batch bad item: %s", r.body);
  dab_service_reply_free(&r);
  struct { const char *method, *path, *pos, *player, *body; int status; const char *kind; } e[] = {
      {"GET", "/api/v1/analyze", "3x3:0101", NULL, NULL, 400, "bad_position"},
      {"GET", "/api/v1/analyze", "\xff\xfe", NULL, NULL, 400, "bad_position"},
      {"GET", "/api/v1/analyze", NULL, NULL, NULL, 400, "bad_position"},
      {"GET", "/api/v1/analyze", "99x99", NULL, NULL, 422, "unknown_board"},
      {"GET", "/api/v1/analyze", "7x7", NULL, NULL, 422, "unknown_board"},
      {"GET", "/api/v1/play", "2x2", "nosuch", NULL, 400, "bad_player"},
      {"GET", "/api/v1/play", "1x1:1111", NULL, NULL, 422, "game_over"},
      {"POST", "/api/v1/analyze", NULL, NULL, "[1,", 400, "bad_json"},
      {"POST", "/api/v1/analyze", NULL, NULL, "[\"1x1\",\"1x1\",\"1x1\",\"1x1\"]", 400, "too_many_positions"},
      {"POST", "/api/v1/analyze", NULL, NULL,
       "[\"1x1\"                                                                                               "
       "                                                                                                    ]",
       413, "body_too_large"},
      {"DELETE", "/api/v1/analyze", NULL, NULL, NULL, 405, "method_not_allowed"},
      {"POST", "/api/v1/health", NULL, NULL, "", 405, "method_not_allowed"},
      {"GET", "/api/v1/nosuch", NULL, NULL, NULL, 404, "not_found"},
      {"GET", "/index.html", NULL, NULL, NULL, 404, "not_found"},   /* no web dir given */
  };
  for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
    args x = {{"pos", "player"}, {e[i].pos, e[i].player}};
    int st = call(s, e[i].method, e[i].path, &x, e[i].body, &r);
    char kind[64];
    snprintf(kind, sizeof kind, "\"kind\":\"%s\"", e[i].kind);
    TH_CHECK(st == e[i].status && has(&r, kind) && has(&r, "\"error\":"), "%s %s %s: %d %s", e[i].method, e[i].path,
             e[i].pos ? e[i].pos : "", st, r.body);
    dab_service_reply_free(&r);
  }
  args p = {{"pos", "player", "seed"}, {"3x3@0,5", "random", "9"}};
  TH_CHECK(call(s, "GET", "/api/v1/play", &p, NULL, &r) == 200 && has(&r, "\"seed\":\"9\""), "play: %s", r.body);
  dab_service_reply_free(&r);
  TH_CHECK(call(s, "GET", "/api/v1/health", NULL, NULL, &r) == 200 && has(&r, "\"status\":\"ok\""), "health");
  dab_service_reply_free(&r);
  uint64_t req, errs;
  dab_service_counts(s, &req, &errs);
  TH_CHECK(req == 20 && errs == 15, "counts %llu %llu", (unsigned long long)req, (unsigned long long)errs);
  dab_service_free(s);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  TH_CHECK(system(cmd) == 0, "cleanup");
  return TH_REPORT("test_service");
}
