/*
** service.c: the service's state: options, the oracles of each board
** (opened on first use), the player environment and the web files.
** See Copyright Notice in README.md
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "agents/agent.h"
#include "service/service_int.h"

#define MAX_WEB_FILES 32
#define MAX_WEB_FILE (4u << 20)

/* Opens the oracles of a board: a table oracle when a table covers it
** (a tablebase file, or a board small enough to solve in memory), else a
** searching one.  RETURN: the slot's new state. */
static int open_slot(dab_service *s, int rows, int cols, svc_slot *sl) {
  int lines = 2 * rows * cols + rows + cols;
  if (lines > 64) {
    snprintf(sl->why, sizeof sl->why,
             "%d lines; the oracle answers boards of at most 64 lines (players still move: GET /api/v1/play)", lines);
    return SLOT_NONE;
  }
  const char *tb = s->tb_dir[0] ? s->tb_dir : NULL;
  dab_err err;
  dab_oracle_opts table = {.tb_dir = tb};
  dab_status st = dab_oracle_open(rows, cols, &table, &sl->table, &err);
  if (st == DAB_OK) return SLOT_TABLE;
  sl->table = NULL;
  if (st != DAB_EBOARD) {
    snprintf(sl->why, sizeof sl->why, "%s", err.msg);
    return SLOT_NONE;
  }
  if (s->opts.no_search) {
    snprintf(sl->why, sizeof sl->why, "no table covers this board and the server does not search (--no-search)");
    return SLOT_NONE;
  }
  dab_oracle_opts search = {.tb_dir = tb,
                            .threads = s->opts.search_threads,
                            .search = true,
                            .search_node_limit = s->opts.search_node_limit,
                            .store = DAB_ORACLE_STORE_READ,
                            .cancel = &s->cancel};
  st = dab_oracle_open(rows, cols, &search, &sl->search, &err);
  if (st == DAB_OK) return SLOT_SEARCH;
  sl->search = NULL;
  snprintf(sl->why, sizeof sl->why, "%s", err.msg);
  return SLOT_NONE;
}

int svc_board(dab_service *s, int rows, int cols, svc_slot **out) {
  svc_slot *sl = &s->slot[rows][cols];
  *out = sl;
  int st = atomic_load_explicit(&sl->state, memory_order_acquire);
  if (st != SLOT_UNKNOWN) return st;
  pthread_mutex_lock(&sl->lock);
  st = atomic_load_explicit(&sl->state, memory_order_relaxed);
  if (st == SLOT_UNKNOWN) {
    st = open_slot(s, rows, cols, sl);
    atomic_store_explicit(&sl->state, st, memory_order_release);
  }
  pthread_mutex_unlock(&sl->lock);
  return st;
}

/* The content type of a web file by its extension, or NULL (not served). */
static const char *web_type(const char *name) {
  static const struct { const char *ext, *type; } t[] = {
      {".html", "text/html; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"}, {".svg", "image/svg+xml"},
      {".png", "image/png"}, {".ico", "image/x-icon"}, {".json", "application/json"},
      {".txt", "text/plain; charset=utf-8"}};
  const char *dot = strrchr(name, '.');
  for (size_t i = 0; dot && i < sizeof t / sizeof t[0]; i++)
    if (!strcmp(dot, t[i].ext)) return t[i].type;
  return NULL;
}

/* Reads path (at most MAX_WEB_FILE bytes) into f->data.  RETURN: status. */
static dab_status read_file(const char *path, svc_file *f, dab_err *err) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return dab_fail(err, DAB_EIO, "cannot read %s", path);
  f->data = malloc(MAX_WEB_FILE);
  if (!f->data) {
    fclose(fp);
    return dab_fail(err, DAB_ENOMEM, "no memory for %s", path);
  }
  f->len = fread(f->data, 1, MAX_WEB_FILE, fp);
  bool bad = ferror(fp) || !feof(fp);
  fclose(fp);
  if (bad) return dab_fail(err, DAB_EIO, "%s: unreadable or larger than %u bytes", path, MAX_WEB_FILE);
  char *shrunk = realloc(f->data, f->len ? f->len : 1);
  if (shrunk) f->data = shrunk;
  return DAB_OK;
}

dab_status svc_web_load(dab_service *s, const char *dir, dab_err *err) {
  DIR *d = opendir(dir);
  if (!d) return dab_fail(err, DAB_EIO, "web files: cannot open the folder %s", dir);
  s->files = calloc(MAX_WEB_FILES, sizeof *s->files);
  if (!s->files) {
    closedir(d);
    return dab_fail(err, DAB_ENOMEM, "no memory for the web files");
  }
  dab_status st = DAB_OK;
  struct dirent *e;
  while (!st && (e = readdir(d)) && s->nfiles < MAX_WEB_FILES) {
    const char *type = web_type(e->d_name);
    if (e->d_name[0] == '.' || !type || strlen(e->d_name) >= sizeof s->files[0].name) continue;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat sb;
    if (stat(path, &sb) || !S_ISREG(sb.st_mode)) continue;
    svc_file *f = &s->files[s->nfiles++];
    memcpy(f->name, e->d_name, strlen(e->d_name) + 1);   /* shorter than f->name: checked above */
    f->type = type;
    st = read_file(path, f, err);
  }
  closedir(d);
  if (!st && !svc_web_file(s, "")) st = dab_fail(err, DAB_EIO, "web files: %s has no index.html", dir);
  return st;
}

const svc_file *svc_web_file(const dab_service *s, const char *name) {
  if (!*name) name = "index.html";
  for (int i = 0; i < s->nfiles; i++)
    if (!strcmp(s->files[i].name, name)) return &s->files[i];
  return NULL;
}

dab_status dab_service_new(const dab_service_opts *opts, dab_service **out, dab_err *err) {
  *out = NULL;
  dab_service *s = calloc(1, sizeof *s);
  if (!s) return dab_fail(err, DAB_ENOMEM, "no memory for the service");
  s->opts = *opts;
  snprintf(s->bind, sizeof s->bind, "%s", opts->bind ? opts->bind : "127.0.0.1");
  snprintf(s->tb_dir, sizeof s->tb_dir, "%s", opts->tb_dir ? opts->tb_dir : "");
  s->opts.bind = s->bind;
  s->opts.tb_dir = s->tb_dir[0] ? s->tb_dir : NULL;
  s->opts.web_dir = NULL;
  if (s->opts.search_threads <= 0) s->opts.search_threads = 1;
  if (!s->opts.search_node_limit) s->opts.search_node_limit = DAB_SERVICE_NODE_LIMIT;
  if (!s->opts.max_body) s->opts.max_body = DAB_SERVICE_MAX_BODY;
  if (s->opts.max_batch <= 0) s->opts.max_batch = DAB_SERVICE_MAX_BATCH;
  if (s->opts.max_connections <= 0) s->opts.max_connections = DAB_SERVICE_MAX_CONNECTIONS;
  if (!s->opts.timeout) s->opts.timeout = DAB_SERVICE_TIMEOUT;
  for (int r = 0; r <= SVC_MAX_SIDE; r++)
    for (int c = 0; c <= SVC_MAX_SIDE; c++) {
      pthread_mutex_init(&s->slot[r][c].lock, NULL);
      atomic_init(&s->slot[r][c].state, SLOT_UNKNOWN);
    }
  s->started = time(NULL);
  atomic_init(&s->seeds, (uint64_t)s->started * 0x2545f4914f6cdd1dull);
  dab_status st = dab_player_env_new(s->opts.tb_dir, &s->env, err);
  if (!st && (st = dab_agents_register(s->env, err))) {
    dab_player_env_free(s->env);
    s->env = NULL;
  }
  if (!st && opts->web_dir) st = svc_web_load(s, opts->web_dir, err);
  if (st) {
    dab_service_free(s);
    return st;
  }
  *out = s;
  return DAB_OK;
}

void dab_service_free(dab_service *s) {
  if (!s) return;
  s->cancel = 1;
  svc_http_stop(s);
  for (int r = 0; r <= SVC_MAX_SIDE; r++)
    for (int c = 0; c <= SVC_MAX_SIDE; c++) {
      svc_slot *sl = &s->slot[r][c];
      if (sl->table) dab_oracle_close(sl->table);
      if (sl->search) dab_oracle_close(sl->search);
      pthread_mutex_destroy(&sl->lock);
    }
  if (s->env) dab_player_env_free(s->env);
  for (int i = 0; i < s->nfiles; i++) free(s->files[i].data);
  free(s->files);
  free(s);
}
