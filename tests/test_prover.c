/*
** test_prover.c: one run of a divisible proof (proof/prover.h) on 3x3
** and 2x4 against the exhaustive tables: a serial run, several searches
** in flight at once as MPI workers hold them, refutation, records that
** reload to the same result, and lines refused before they are written.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "proof/prover.h"
#include "solver/retro.h"
#include "tests/testhelp.h"

static dab_retro *table(int rows, int cols) {
  dab_geom g;
  dab_geom_init(&g, rows, cols, NULL);
  dab_retro_opts ro = {.threads = 1};
  dab_retro *r = NULL;
  dab_err err;
  TH_CHECK(dab_retro_solve(&g, 0, &ro, &r, &err) == DAB_OK, "retro: %s", err.msg);
  return r;
}

static dab_proof *new_proof(int rows, int cols, int depth, bool ge, int geb, bool le, int leb) {
  dab_proof_spec sp = {.rows = rows, .cols = cols, .has_ge = ge, .has_le = le,
                       .ge_bound = geb, .le_bound = leb, .depth = depth};
  dab_err err;
  dab_status st;
  dab_proof *pf = dab_proof_new(&sp, &st, &err);
  TH_CHECK(pf != NULL, "dab_proof_new: %s", err.msg);
  return pf;
}

static dab_ab *solver_for(dab_prover *p, const dab_proof *pf) {
  dab_ab_opts o;
  dab_ab_default_opts(&o);
  o.hash_bytes = 16ull << 20;
  o.threads = 1;
  dab_prover_hook(p, &o);
  dab_err err;
  dab_status st;
  dab_ab *ab = dab_ab_new(dab_proof_geom(pf), &o, &st, &err);
  TH_CHECK(ab != NULL, "dab_ab_new: %s", err.msg);
  return ab;
}

/* Every record in pf agrees with the table. */
static int wrong_records(const dab_proof *pf, const dab_retro *truth) {
  size_t n;
  const dab_proof_rec *r = dab_proof_records(pf, &n);
  int wrong = 0;
  for (size_t i = 0; i < n; i++) {
    int v = dab_retro_value(truth, r[i].pos);
    bool holds = r[i].dir == DAB_PROOF_GE ? v >= r[i].bound : v <= r[i].bound;
    wrong += holds != r[i].proved;
  }
  return wrong;
}

typedef struct events {
  int records, other;
} events;

static void count_event(void *ctx, const dab_prover_event *e) {
  events *ev = ctx;
  if (e->kind == DAB_PROVER_EV_RECORD) ev->records++;
  else ev->other++;
}

/* The records a run wrote reload into a fresh proof with the same state. */
static void check_reload(int rows, int cols, int depth, bool ge, int geb, bool le, int leb, const char *dir,
                         int want_state, const char *what) {
  dab_proof *pf = new_proof(rows, cols, depth, ge, geb, le, leb);
  dab_proof_load_info li;
  dab_err err;
  dab_proof_summary s;
  TH_CHECK(dab_proof_load_dir(pf, dir, &li, &err) == DAB_OK, "%s: load: %s", what, err.msg);
  TH_CHECK(dab_proof_eval(pf, &s, NULL, 0, NULL, &err) == DAB_OK && s.state == want_state,
           "%s: reloaded records give state %d, want %d", what, s.state, want_state);
  dab_proof_free(pf);
}

static void check_serial(const char *root, int rows, int cols, const dab_retro *truth, int value) {
  struct { bool ge; int geb; bool le; int leb; int state; } cases[] = {
      {true, value, true, value, DAB_PROOF_PROVED},  /* = value */
      {true, value + 1, false, 0, DAB_PROOF_REFUTED}, /* >= value + 1 */
  };
  for (int k = 0; k < 2; k++) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/serial%dx%d-%d", root, rows, cols, k);
    mkdir(dir, 0700);
    dab_proof *pf = new_proof(rows, cols, 3, cases[k].ge, cases[k].geb, cases[k].le, cases[k].leb);
    events ev = {0, 0};
    dab_prover_opts o = {.event = count_event, .event_ctx = &ev};
    dab_prover *p;
    dab_err err;
    TH_CHECK(dab_prover_new(pf, &o, dir, NULL, &p, &err) == DAB_OK, "prover: %s", err.msg);
    dab_ab *ab = solver_for(p, pf);
    dab_prover_result r;
    TH_CHECK(dab_prover_run(p, ab, &r, &err) == DAB_OK, "run: %s", err.msg);
    const dab_proof_summary *s = dab_prover_summary(p);
    TH_CHECK(s->state == cases[k].state, "%dx%d case %d: state %d, want %d", rows, cols, k, s->state,
             cases[k].state);
    TH_CHECK(r.solved > 0 && r.solved == ev.records && ev.other == 0 && r.stopped == DAB_PROVER_RECORDED,
             "%dx%d case %d: %d solved, %d record events, %d others", rows, cols, k, r.solved, ev.records,
             ev.other);
    TH_CHECK(wrong_records(pf, truth) == 0, "%dx%d case %d: a record disagrees with the table", rows, cols, k);
    TH_CHECK(access(dab_prover_rec_path(p), R_OK) == 0, "the records file %s exists", dab_prover_rec_path(p));
    check_reload(rows, cols, 3, cases[k].ge, cases[k].geb, cases[k].le, cases[k].leb, dir, cases[k].state,
                 "serial");
    dab_ab_free(ab);
    dab_prover_free(p);
    dab_proof_free(pf);
  }
}

/* Up to `width` claims in flight at once, finished oldest first, as rank 0
** of an MPI run hands them out: no claim is handed out twice while it is
** out, and the proof ends as one process's does. */
static void check_in_flight(const char *root, int width, const dab_retro *truth, int value) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/flight%d", root, width);
  mkdir(dir, 0700);
  dab_proof *pf = new_proof(3, 3, 4, true, value, true, value);
  dab_prover_opts o = {.direct = 60};
  dab_prover *p;
  dab_err err;
  TH_CHECK(dab_prover_new(pf, &o, dir, NULL, &p, &err) == DAB_OK, "prover: %s", err.msg);
  dab_ab *ab = solver_for(p, pf);
  dab_prover_task out[8];
  dab_proof_claim busy[8];
  int nout = 0, twice = 0, handed = 0, directs = 0;
  for (int guard = 0; guard < 100000; guard++) {
    bool have = true;
    while (nout < width && have) {
      dab_prover_task t;
      TH_CHECK(dab_prover_next(p, busy, nout, nout ? busy[0].group : 0, &t, &have, &err) == DAB_OK, "next: %s",
               err.msg);
      if (!have) break;
      for (int i = 0; i < nout; i++)
        twice += busy[i].pos == t.claim.pos && busy[i].dir == t.claim.dir && busy[i].bound == t.claim.bound;
      out[nout] = t;
      busy[nout++] = t.claim;
      handed++;
      directs += t.direct;
    }
    if (!nout) break;
    dab_prover_outcome oc;
    char line[DAB_MAX_LINES + 1024];
    TH_CHECK(dab_prover_search(p, ab, &out[0], &oc, line, sizeof line, NULL, &err) == DAB_OK, "search: %s",
             err.msg);
    TH_CHECK(oc == DAB_PROVER_RECORDED, "a search without limits records (outcome %d)", oc);
    TH_CHECK(dab_prover_commit(p, &out[0], line, NULL, &err) == DAB_OK, "commit: %s", err.msg);
    memmove(out, out + 1, (size_t)(nout - 1) * sizeof *out);
    memmove(busy, busy + 1, (size_t)(nout - 1) * sizeof *busy);
    nout--;
  }
  dab_proof_summary s;
  TH_CHECK(dab_proof_eval(pf, &s, NULL, 0, NULL, &err) == DAB_OK && s.state == DAB_PROOF_PROVED,
           "%d in flight: the proof ends proved (state %d)", width, s.state);
  TH_CHECK(twice == 0, "%d in flight: %d claims handed out while already out", width, twice);
  TH_CHECK(handed > width, "%d in flight: %d claims handed out", width, handed);
  TH_CHECK(directs > 0, "%d in flight: direct nodes are handed out (%d)", width, directs);
  TH_CHECK(wrong_records(pf, truth) == 0, "%d in flight: a record disagrees with the table", width);
  check_reload(3, 3, 4, true, value, true, value, dir, DAB_PROOF_PROVED, "in flight");

  /* A line that is not a record is refused before anything is written. */
  size_t before;
  dab_proof_records(pf, &before);
  dab_prover_task t = out[0];
  t.claim.pos = 0;
  TH_CHECK(dab_prover_commit(p, &t, "3x3:0101 nonsense", NULL, &err) == DAB_EINPUT, "a bad line is refused");
  size_t after;
  dab_proof_records(pf, &after);
  TH_CHECK(after == before, "a refused line adds nothing");
  dab_ab_free(ab);
  dab_prover_free(p);
  dab_proof_free(pf);
}

static void count_bad(void *ctx, const dab_proof_rec *r, const char *label) {
  (void)r, (void)label;
  ++*(int *)ctx;
}

/* --recheck: a record the search contradicts is found, a true one is not. */
static void check_recheck(const dab_retro *truth) {
  dab_proof *pf = new_proof(3, 3, 2, true, -3, true, -3);
  dab_err err;
  uint64_t p = 1ull << 0 | 1ull << 13; /* two lines drawn: no captures */
  int v = dab_retro_value(truth, p);
  dab_proof_rec good = {.pos = p, .dir = DAB_PROOF_GE, .bound = v, .proved = true, .threads = 1};
  dab_proof_rec lie = {.pos = 1ull << 5, .dir = DAB_PROOF_GE, .bound = 9, .proved = true, .threads = 1};
  TH_CHECK(dab_proof_add(pf, &good, &err) == DAB_OK && dab_proof_add(pf, &lie, &err) == DAB_OK, "add: %s",
           err.msg);
  dab_ab_opts o;
  dab_ab_default_opts(&o);
  o.hash_bytes = 16ull << 20;
  o.threads = 1;
  dab_status st;
  dab_ab *ab = dab_ab_new(dab_proof_geom(pf), &o, &st, &err);
  int bad = 0;
  dab_prover_recheck_result res;
  TH_CHECK(dab_prover_recheck(pf, ab, 10, 7, NULL, NULL, count_bad, &bad, &res, &err) == DAB_OK, "recheck: %s",
           err.msg);
  TH_CHECK(res.checked == 2 && res.wrong == 1 && bad == 1 && res.skipped == 0 && !res.interrupted,
           "recheck: %d checked, %d wrong (%d told), %d skipped", res.checked, res.wrong, bad, res.skipped);
  dab_ab_free(ab);
  dab_proof_free(pf);
}

/* Appending: whole lines; a cut last line becomes a comment, never part
** of the next record. */
static void check_append(const char *root) {
  char path[600];
  snprintf(path, sizeof path, "%s/append.txt", root);
  dab_err err;
  TH_CHECK(dab_proof_append_line(path, "# head\n", "one", &err) == DAB_OK, "append to a new file: %s", err.msg);
  TH_CHECK(dab_proof_append_line(path, "# head\n", "two", &err) == DAB_OK, "append: %s", err.msg);
  FILE *f = fopen(path, "a");
  if (f) fputs("3x3:0101 >=+", f), fclose(f); /* a crash mid-line */
  TH_CHECK(dab_proof_append_line(path, "# head\n", "three", &err) == DAB_OK, "append after a cut line: %s",
           err.msg);
  char buf[256] = "";
  f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = 0;
  TH_CHECK(!strcmp(buf, "# head\none\ntwo\n# torn line, kept as a comment: 3x3:0101 >=+\nthree\n"),
           "the file reads '%s'", buf);
}

/* dab_prover_open: creates with a claim, reopens with or without one, and
** refuses another root, claim or depth, a missing claim and a missing
** proof, each with its status and one line naming the directory. */
static void check_open(const char *root) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/open", root);
  if (mkdir(dir, 0755)) TH_CHECK(0, "mkdir %s", dir);
  dab_proof_spec want = {.rows = 2, .cols = 2, .root = 0, .has_ge = true, .ge_bound = 0, .depth = 0};
  dab_proof *pf = (dab_proof *)1;
  dab_proof_load_info li;
  dab_err err;
  dab_status st = dab_prover_open(dir, &want, false, -1, true, &pf, &li, &err);
  TH_CHECK(st == DAB_EINPUT && !pf && strstr(err.msg, dir) && !strchr(err.msg, '\n'), "new, no claim: %d '%s'", st,
           err.msg);
  st = dab_prover_open(dir, &want, true, -1, false, &pf, &li, &err);
  TH_CHECK(st == DAB_EIO && !pf, "missing, not created: %d '%s'", st, err.msg);
  st = dab_prover_open(dir, &want, true, -1, true, &pf, &li, &err);
  TH_CHECK(st == DAB_OK && pf && dab_proof_get_spec(pf)->depth == 2 && li.lines == 0, "create: %d '%s'", st,
           err.msg);
  dab_proof_free(pf);
  st = dab_prover_open(dir, &want, false, -1, false, &pf, &li, &err);
  TH_CHECK(st == DAB_OK && pf && dab_proof_get_spec(pf)->has_ge && !dab_proof_get_spec(pf)->has_le,
           "reopen without a claim: %d '%s'", st, err.msg);
  dab_proof_free(pf);
  dab_proof_spec other = want;
  other.ge_bound = 2;
  st = dab_prover_open(dir, &other, true, -1, false, &pf, &li, &err);
  TH_CHECK(st == DAB_EINPUT && !pf && strstr(err.msg, "claim"), "another claim: %d '%s'", st, err.msg);
  other = want;
  other.root = 1;
  st = dab_prover_open(dir, &other, true, -1, false, &pf, &li, &err);
  TH_CHECK(st == DAB_EINPUT && !pf && strstr(err.msg, "not 2x2:1000"), "another root: %d '%s'", st, err.msg);
  st = dab_prover_open(dir, &want, true, 3, false, &pf, &li, &err);
  TH_CHECK(st == DAB_EINPUT && !pf && strstr(err.msg, "depth"), "another depth: %d '%s'", st, err.msg);
}

int main(void) {
  char root[] = "/tmp/dab-prover-XXXXXX";
  TH_CHECK(mkdtemp(root) != NULL, "mkdtemp");
  dab_retro *t33 = table(3, 3), *t24 = table(2, 4);
  if (t33) {
    check_serial(root, 3, 3, t33, -3);
    for (int w = 1; w <= 4; w += 3) check_in_flight(root, w, t33, -3);
    check_recheck(t33);
  }
  if (t24) check_serial(root, 2, 4, t24, 2);
  check_append(root);
  check_open(root);
  dab_retro_free(t33);
  dab_retro_free(t24);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  if (system(cmd)) TH_CHECK(0, "cleanup");
  return TH_REPORT("test_prover");
}
