/*
** test_tb_layered.c: the layered builder against the full-array builder,
** exact index counts, resume after a kill and after a cancel, the memory
** plan, and which boards can be built.
** See Copyright Notice in README.md
*/
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tablebase/dabtb.h"
#include "tablebase/tb_internal.h"
#include "tests/testhelp.h"
#include "verify/tb_verify.h"

static bool san(void) { return getenv("DAB_TEST_SAN") != NULL; }
static char dir[256];

/* The meta records that must agree between two builds of one board:
** all but the date, the generator text and the meta checksum. */
typedef struct meta_text {
  char buf[1 << 15];
  size_t len;
} meta_text;

static void collect(void *ctx, const char *key, const char *value) {
  meta_text *m = ctx;
  if (!strcmp(key, "build_date") || !strcmp(key, "generator") || !strcmp(key, "meta_xxh3")) return;
  int n = snprintf(m->buf + m->len, sizeof m->buf - m->len, "%s=%s\n", key, value);
  if (n > 0 && (size_t)n < sizeof m->buf - m->len) m->len += (size_t)n;
}

static bool read_meta(const char *path, meta_text *m) {
  memset(m, 0, sizeof *m);
  dabtb *tb;
  if (dabtb_open(path, NULL, &tb, NULL)) return false;
  bool ok = dabtb_meta_each(tb, collect, m, NULL) == DAB_OK;
  dabtb_close(tb);
  return ok;
}

static bool is_dir(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static bool exists(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0;
}

/* Exact counts: the transfer-matrix count equals the rank tables' and a
** brute-force count over every position; 3x5 and 4x4 totals. */
static void test_counts(void) {
  int boards[][2] = {{2, 2}, {2, 3}, {3, 2}, {1, 5}, {3, 3}};
  for (size_t b = 0; b < sizeof boards / sizeof *boards; b++) {
    dab_geom g;
    dab_geom_init(&g, boards[b][0], boards[b][1], NULL);
    dab_tbidx ix;
    TH_CHECK(dab_tbidx_init(&ix, &g, NULL) == DAB_OK, "index %dx%d", g.rows, g.cols);
    uint64_t q[65], n[65], bq[65] = {0}, bn[65] = {0};
    TH_CHECK(dab_tbidx_count(&g, false, q, NULL) == DAB_OK, "count quiet");
    TH_CHECK(dab_tbidx_count(&g, true, n, NULL) == DAB_OK, "count indexed");
    for (uint64_t p = 0; g.nlines <= 20 && p < 1ull << g.nlines; p++) {
      int k = __builtin_popcountll(p);
      if (!dab64_three_sided(&g, p)) bq[k]++;
      if (dab_tbidx_indexed(&ix, p)) bn[k]++;
    }
    int bad = 0;
    for (int k = 0; k <= g.nlines; k++)
      bad += (g.nlines <= 20 && (q[k] != bq[k] || n[k] != bn[k])) || n[k] != ix.layer_count[k];
    TH_CHECK(bad == 0, "%dx%d: %d layers with counts that differ from brute force", g.rows, g.cols, bad);
    dab_tbidx_free(&ix);
  }
  struct { int r, c; uint64_t quiet, indexed; } big[] = {
      {3, 5, 6435880414ull, 1925601448ull}, {4, 4, 20276816980ull, 6067255234ull}};
  for (size_t b = 0; b < 2; b++) {
    dab_geom g;
    dab_geom_init(&g, big[b].r, big[b].c, NULL);
    uint64_t q[65], n[65], tq = 0, tn = 0;
    dab_tbidx_count(&g, false, q, NULL);
    dab_tbidx_count(&g, true, n, NULL);
    for (int k = 0; k <= g.nlines; k++) tq += q[k], tn += n[k];
    TH_CHECK(tq == big[b].quiet && tn == big[b].indexed, "%dx%d: %llu quiet, %llu indexed", g.rows,
             g.cols, (unsigned long long)tq, (unsigned long long)tn);
    dab_tbidx ix;
    TH_CHECK(dab_tbidx_init(&ix, &g, NULL) == DAB_OK && ix.total == tn, "%dx%d rank tables", g.rows, g.cols);
    dab_tbidx_free(&ix);
  }
}

/* The layered file equals the full-array file: every layer checksum,
** count and the value; and it verifies. */
static void test_same(int rows, int cols) {
  char lp[300], fp[300], ld[320];
  snprintf(lp, sizeof lp, "%s/l%dx%d.dab", dir, rows, cols);
  snprintf(fp, sizeof fp, "%s/f%dx%d.dab", dir, rows, cols);
  snprintf(ld, sizeof ld, "%s.layers", lp);
  dab_err err;
  dabtb_build_opts lo = {.threads = 2}, fo = {.threads = 2, .full_array = true};
  dabtb_build_report lr, fr;
  dab_status st = dabtb_build(rows, cols, lp, &lo, &lr, &err);
  TH_CHECK(st == DAB_OK && lr.layered, "%dx%d layered: %s", rows, cols, st ? err.msg : "");
  st = dabtb_build(rows, cols, fp, &fo, &fr, &err);
  TH_CHECK(st == DAB_OK && !fr.layered, "%dx%d full-array: %s", rows, cols, st ? err.msg : "");
  TH_CHECK(!exists(ld), "%dx%d: the layers directory is removed after the build", rows, cols);
  static meta_text a, b;
  TH_CHECK(read_meta(lp, &a) && read_meta(fp, &b), "%dx%d: meta", rows, cols);
  TH_CHECK(a.len > 100 && a.len == b.len && !memcmp(a.buf, b.buf, a.len),
           "%dx%d: the layered file differs from the full-array one", rows, cols);
  TH_CHECK(lr.value == fr.value && lr.canonical == fr.canonical, "%dx%d: value %d/%d", rows, cols,
           lr.value, fr.value);
  dabtb *tb;
  if (dabtb_open(lp, NULL, &tb, &err) == DAB_OK) {
    dab_tbv_report vr;
    st = dab_tb_verify(tb, 2, NULL, NULL, NULL, &vr, &err);
    TH_CHECK(st == DAB_OK && vr.checked == lr.canonical, "%dx%d verify: %s", rows, cols, st ? err.msg : "");
    TH_CHECK(dabtb_check(tb, NULL, NULL, NULL, &err) == DAB_OK, "%dx%d check", rows, cols);
    dabtb_close(tb);
  } else
    TH_CHECK(false, "open %s: %s", lp, err.msg);
}

/* The child of test_kill: kills itself at its first progress report,
** which comes from inside a layer. */
static void kill_self(void *ctx, const dab_progress *p) {
  (void)ctx;
  (void)p;
  raise(SIGKILL);
}

static int count_layer_files(const char *ld, int nlines) {
  int n = 0;
  for (int k = 0; k <= nlines; k++) {
    char f[400];
    snprintf(f, sizeof f, "%s/%02d", ld, k);
    n += exists(f);
  }
  return n;
}

/* kill -9 inside a layer, then resume: the result equals the reference. */
static void test_kill(int rows, int cols) {
  char path[300], ld[320], ref[300];
  snprintf(path, sizeof path, "%s/k%dx%d.dab", dir, rows, cols);
  snprintf(ld, sizeof ld, "%s.layers", path);
  snprintf(ref, sizeof ref, "%s/f%dx%d.dab", dir, rows, cols);
  if (!exists(ref)) {
    dabtb_build_opts fo = {.threads = 2, .full_array = true};
    TH_CHECK(dabtb_build(rows, cols, ref, &fo, NULL, NULL) == DAB_OK, "%dx%d reference", rows, cols);
  }
  pid_t pid = fork();
  if (pid == 0) {
    dabtb_build_opts o = {.threads = 1, .progress = kill_self};
    dabtb_build(rows, cols, path, &o, NULL, NULL);
    _exit(0); /* finished before the first report: the parent says so */
  }
  int ws = 0;
  waitpid(pid, &ws, 0);
  TH_CHECK(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL, "%dx%d: the build was killed mid-layer", rows, cols);
  dab_geom g;
  dab_geom_init(&g, rows, cols, NULL);
  int kept = count_layer_files(ld, g.nlines);
  TH_CHECK(!exists(path) && kept >= 1 && kept <= g.nlines, "%dx%d: killed: no file, %d layers kept", rows,
           cols, kept);
  dabtb_build_opts o = {.threads = 2};
  dabtb_build_report r;
  dab_err err;
  dab_status st = dabtb_build(rows, cols, path, &o, &r, &err);
  TH_CHECK(st == DAB_OK && r.layers_resumed == kept, "%dx%d: resume: %s (%d resumed, %d kept)", rows, cols,
           st ? err.msg : "ok", r.layers_resumed, kept);
  static meta_text a, b;
  TH_CHECK(read_meta(path, &a) && read_meta(ref, &b) && a.len == b.len && !memcmp(a.buf, b.buf, a.len),
           "%dx%d: the resumed build differs from the full-array one", rows, cols);
  TH_CHECK(!exists(ld), "%dx%d: layers removed after the resumed build", rows, cols);
}

/* Cancel after some layers; damage a kept layer; the resume recomputes
** from the damaged layer down and the file is right. */
static volatile sig_atomic_t cancel_flag;
static int layers_seen;

static void stop_after_10(void *ctx, int layer, uint64_t entries, uint64_t canonical, double s) {
  (void)ctx, (void)layer, (void)entries, (void)canonical, (void)s;
  if (++layers_seen == 10) cancel_flag = 1;
}

static void test_cancel_and_damage(void) {
  char path[300], ld[320], f[400], ref[300];
  snprintf(path, sizeof path, "%s/c3x3.dab", dir);
  snprintf(ld, sizeof ld, "%s.layers", path);
  snprintf(ref, sizeof ref, "%s/f3x3.dab", dir);
  dabtb_build_opts o = {.threads = 2, .cancel = &cancel_flag, .layer_done = stop_after_10};
  dab_err err;
  dab_status st = dabtb_build(3, 3, path, &o, NULL, &err);
  TH_CHECK(st == DAB_ECANCELED && strstr(err.msg, "resumes"), "canceled: %s", st ? err.msg : "ok");
  TH_CHECK(!exists(path) && count_layer_files(ld, 24) == 10, "canceled: 10 layers kept (%d)",
           count_layer_files(ld, 24));
  /* damage layer 20 (the 5th from the top) */
  snprintf(f, sizeof f, "%s/20", ld);
  FILE *fh = fopen(f, "r+b");
  if (fh) {
    fseek(fh, 64 + 5, SEEK_SET);
    int c = fgetc(fh);
    fseek(fh, 64 + 5, SEEK_SET);
    fputc(c ^ 0x40, fh);
    fclose(fh);
  }
  cancel_flag = 0;
  dabtb_build_opts o2 = {.threads = 2};
  dabtb_build_report r;
  st = dabtb_build(3, 3, path, &o2, &r, &err);
  TH_CHECK(st == DAB_OK && r.layers_resumed == 4, "resume over a damaged layer: %s, %d resumed",
           st ? err.msg : "ok", r.layers_resumed);
  static meta_text a, b;
  TH_CHECK(read_meta(path, &a) && read_meta(ref, &b) && a.len == b.len && !memcmp(a.buf, b.buf, a.len),
           "the file after a damaged layer differs from the full-array one");
  /* --restart ignores finished layers */
  layers_seen = 0;
  st = dabtb_build(3, 3, path, &o, NULL, &err);
  cancel_flag = 0;
  dabtb_build_opts o3 = {.threads = 2, .restart = true};
  st = dabtb_build(3, 3, path, &o3, &r, &err);
  TH_CHECK(st == DAB_OK && r.layers_resumed == 0, "restart: %s, %d resumed", st ? err.msg : "ok",
           r.layers_resumed);
}

/* The plan: exact entries, refusal on a small limit before anything is
** written. */
static void test_plan(void) {
  char path[300], ld[320];
  snprintf(path, sizeof path, "%s/m2x5.dab", dir);
  snprintf(ld, sizeof ld, "%s.layers", path);
  dabtb_build_opts o = {.threads = 2, .mem_limit = 1u << 20};
  dabtb_plan p;
  dab_err err;
  dab_status st = dabtb_build_plan(2, 5, path, &o, &p, &err);
  uint64_t n[65], sum = 0;
  dab_geom g;
  dab_geom_init(&g, 2, 5, NULL);
  dab_tbidx_count(&g, true, n, NULL);
  int bad = 0;
  for (int k = 0; k <= g.nlines; k++) bad += p.entries[k] != n[k], sum += n[k];
  TH_CHECK(st == DAB_OK && !bad && p.indexed == sum && p.nlines == 27, "plan entries: %s",
           st ? err.msg : "");
  TH_CHECK(!p.fits && p.peak_bytes > sum && p.peak_bytes > p.mem_limit && p.disk_bytes >= sum &&
               p.seconds > 0 && p.seconds < 600,
           "plan: peak %llu, disk %llu, %.1f s", (unsigned long long)p.peak_bytes,
           (unsigned long long)p.disk_bytes, p.seconds);
  st = dabtb_build(2, 5, path, &o, NULL, &err);
  TH_CHECK(st == DAB_ENOMEM && strstr(err.msg, "GiB") && strstr(err.msg, "--plan"), "refused: %s",
           st ? err.msg : "built");
  TH_CHECK(!exists(path) && !is_dir(ld), "a refused build leaves nothing");
  o.mem_limit = 0;
  st = dabtb_build_plan(4, 4, NULL, &o, &p, &err);
  TH_CHECK(st == DAB_OK && p.indexed == 6067255234ull && p.peak_bytes > p.indexed &&
               p.peak_bytes < (16ull << 30),
           "4x4 plan: %s", st ? err.msg : "");
}

static void test_buildable(void) {
  dab_err err;
  TH_CHECK(dabtb_buildable(3, 5, NULL) == DAB_OK && dabtb_buildable(4, 4, NULL) == DAB_OK &&
               dabtb_buildable(5, 3, NULL) == DAB_OK,
           "3x5, 5x3 and 4x4 can be built");
  TH_CHECK(dabtb_buildable(5, 5, &err) == DAB_EBOARD && strstr(err.msg, "dab solve 5x5"), "5x5: %s",
           err.msg);
  TH_CHECK(dabtb_buildable(4, 5, &err) == DAB_EBOARD && strstr(err.msg, "dab solve 4x5"), "4x5: %s",
           err.msg);
  /* the hint of a missing file names a command that works */
  char path[512];
  setenv("DAB_TB_PATH", dir, 1);
  setenv("DAB_TB_NO_PROJECT", "1", 1);
  TH_CHECK(dabtb_find(5, 5, NULL, path, sizeof path, &err) == DAB_EIO && !strstr(err.msg, "dab build") &&
               strstr(err.msg, "dab solve"),
           "5x5 hint: %s", err.msg);
  TH_CHECK(dabtb_find(3, 5, NULL, path, sizeof path, &err) == DAB_EIO && strstr(err.msg, "dab build 3x5"),
           "3x5 hint: %s", err.msg);
}

typedef struct cbuild {
  const char *path;
  dab_status st;
} cbuild;

static void *build_thread(void *arg) {
  cbuild *c = arg;
  dabtb_build_opts o = {.threads = 1};
  c->st = dabtb_build(2, 3, c->path, &o, NULL, NULL);
  return NULL;
}

/* Two builds of one path at once take turns on the layers' lock. */
static void test_concurrent(void) {
  char path[300], ld[320];
  snprintf(path, sizeof path, "%s/t2x3.dab", dir);
  snprintf(ld, sizeof ld, "%s.layers", path);
  pthread_t th[3];
  cbuild c[3];
  for (int i = 0; i < 3; i++) {
    c[i].path = path;
    pthread_create(&th[i], NULL, build_thread, &c[i]);
  }
  for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
  TH_CHECK(c[0].st == DAB_OK && c[1].st == DAB_OK && c[2].st == DAB_OK, "concurrent builds: %d %d %d",
           c[0].st, c[1].st, c[2].st);
  dabtb *tb;
  int v = 99;
  TH_CHECK(dabtb_open(path, NULL, &tb, NULL) == DAB_OK && dabtb_value(tb, 0, &v, NULL) == DAB_OK && v == -2,
           "concurrent builds: the file answers (%d)", v);
  if (v != 99) dabtb_close(tb);
  TH_CHECK(!exists(ld), "concurrent builds: no layers left");
}

/* Slices: a layer hook that computes each layer as uneven slices, the
** last first (as ranks would finish in any order), gives the same file
** byte for byte as the plain build; a standalone view fed the hook's
** finished layers computes the same bytes; a missing layer is refused. */
typedef struct slicer {
  dabtb_lview *mirror;       /* a standalone view given every finished layer */
  uint8_t *copies[DABTB_PLAN_MAX_LAYERS];
  int calls, mismatches;
} slicer;

static dab_status slice_hook(void *ctx, const dabtb_lview *v, int layer, uint64_t n, uint8_t *out,
                             uint64_t *canonical, dab_err *err) {
  slicer *sl = ctx;
  sl->calls++;
  for (int k = dabtb_lview_lines(v); k > layer; k--)
    if (!sl->copies[k] && dabtb_lview_entries(v, k)) {
      uint64_t nk = dabtb_lview_entries(v, k);
      sl->copies[k] = malloc(nk);
      memcpy(sl->copies[k], dabtb_lview_layer(v, k), nk);
      dabtb_lview_set_layer(sl->mirror, k, sl->copies[k], NULL);
    }
  uint64_t cut[5] = {0, n / 7, n / 7, n / 2 + 1 < n ? n / 2 + 1 : n, n}, c = 0;
  *canonical = 0;
  for (int i = 3; i >= 0; i--) {
    dab_status st = dabtb_layer_slice(v, layer, cut[i], cut[i + 1], out + cut[i], &c, err);
    if (st) return st;
    *canonical += c;
  }
  uint8_t *again = malloc(n ? n : 1);
  if (dabtb_layer_slice(sl->mirror, layer, 0, n, again, &c, err) || c != *canonical ||
      memcmp(again, out, n))
    sl->mismatches++;
  free(again);
  return DAB_OK;
}

static bool same_file(const char *a, const char *b) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", a, b);
  return system(cmd) == 0;
}

static void test_slices(int rows, int cols) {
  char one[300], sliced[300];
  snprintf(one, sizeof one, "%s/s%dx%d.dab", dir, rows, cols);
  snprintf(sliced, sizeof sliced, "%s/s%dx%d-sliced.dab", dir, rows, cols);
  setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
  dabtb_build_opts o = {.threads = 2};
  TH_CHECK(dabtb_build(rows, cols, one, &o, NULL, NULL) == DAB_OK, "%dx%d: plain build", rows, cols);
  slicer sl;
  memset(&sl, 0, sizeof sl);
  TH_CHECK(dabtb_lview_new(rows, cols, 2, &sl.mirror, NULL) == DAB_OK, "%dx%d: a standalone view", rows, cols);
  if (!sl.mirror) return;
  o.layer_fn = slice_hook;
  o.layer_ctx = &sl;
  dab_err e;
  dab_status st = dabtb_build(rows, cols, sliced, &o, NULL, &e);
  TH_CHECK(st == DAB_OK, "%dx%d: sliced build: %s", rows, cols, st ? e.msg : "");
  TH_CHECK(sl.calls == dabtb_lview_lines(sl.mirror) + 1, "%dx%d: the hook ran for every layer (%d)", rows,
           cols, sl.calls);
  TH_CHECK(sl.mismatches == 0, "%dx%d: standalone slices equal the builder's", rows, cols);
  TH_CHECK(same_file(one, sliced), "%dx%d: sliced file byte-identical to the plain one", rows, cols);
  /* Layer 0 needs every layer above: drop one and it is named. */
  int k = dabtb_lview_lines(sl.mirror) - 1;
  while (k > 1 && !dabtb_lview_entries(sl.mirror, k)) k--;
  dabtb_lview_set_layer(sl.mirror, k, NULL, NULL);
  uint8_t b;
  uint64_t c;
  st = dabtb_layer_slice(sl.mirror, 0, 0, 1, &b, &c, &e);
  TH_CHECK(st == DAB_EINPUT && strstr(e.msg, "missing"), "%dx%d: a missing layer is refused (%d)", rows,
           cols, st);
  st = dabtb_layer_slice(sl.mirror, 0, 0, 2, &b, &c, &e);
  TH_CHECK(st == DAB_EINPUT, "%dx%d: a slice beyond the layer is refused", rows, cols);
  for (k = 0; k < DABTB_PLAN_MAX_LAYERS; k++) free(sl.copies[k]);
  dabtb_lview_free(sl.mirror);
  unsetenv("SOURCE_DATE_EPOCH");
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/dab-test-tbl-XXXXXX");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_counts();
  test_same(3, 3);
  test_same(2, 4);
  test_same(4, 2);
  test_same(1, 5);
  if (!san()) test_same(2, 5); /* else test_kill builds its reference */
  test_kill(2, 5);
  test_cancel_and_damage();
  test_plan();
  test_buildable();
  test_concurrent();
  test_slices(2, 3);
  test_slices(3, 3);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return TH_REPORT("test_tb_layered");
}
