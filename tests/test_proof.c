/*
** test_proof.c: divisible proofs on small boards against the exhaustive
** tables and the known values: split, solve, assemble, refute, resume,
** tampered and torn records.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "solver/ab.h"
#include "proof/records.h"
#include "solver/proof.h"
#include "solver/retro.h"
#include "tests/testhelp.h"

static bool san;

static dab_retro *table(int rows, int cols) {
  dab_geom g;
  dab_geom_init(&g, rows, cols, NULL);
  dab_retro_opts ro = {.threads = 1};
  dab_retro *r = NULL;
  dab_err err;
  dab_status st = dab_retro_solve(&g, 0, &ro, &r, &err);
  TH_CHECK(st == DAB_OK, "retro %dx%d: %s", rows, cols, err.msg);
  return st ? NULL : r;
}

static dab_ab *solver_for(int rows, int cols, const uint64_t *node_limit) {
  dab_geom g;
  dab_geom_init(&g, rows, cols, NULL);
  dab_ab_opts o;
  dab_ab_default_opts(&o);
  o.hash_bytes = 64ull << 20;
  o.threads = 1;
  if (node_limit) o.node_limit = *node_limit;
  dab_err err;
  dab_status st;
  dab_ab *ab = dab_ab_new(&g, &o, &st, &err);
  TH_CHECK(ab != NULL, "dab_ab_new: %s", err.msg);
  return ab;
}

static dab_proof *new_proof(int rows, int cols, int depth, bool ge, int geb, bool le, int leb) {
  dab_proof_spec sp = {.rows = rows, .cols = cols, .root = 0, .has_ge = ge, .has_le = le,
                       .ge_bound = geb, .le_bound = leb, .depth = depth};
  dab_err err;
  dab_status st;
  dab_proof *pf = dab_proof_new(&sp, &st, &err);
  TH_CHECK(pf != NULL, "dab_proof_new: %s", err.msg);
  return pf;
}

/* Does the truth (a retrograde table) agree with a record? */
static bool rec_true(const dab_retro *r, const dab_proof_rec *rec) {
  int v = dab_retro_value(r, rec->pos);
  bool holds = rec->dir == DAB_PROOF_GE ? v >= rec->bound : v <= rec->bound;
  if (rec->has_fs && !(rec->fs_lower ? v >= rec->fs_value : v <= rec->fs_value)) return false;
  return holds == rec->proved;
}

/*
** Solves every open leaf, one at a time as the CLI does, with ab (or, when
** ab is NULL, from the truth table).  Stops after max_solves (-1: none).
** RETURN: the final state; *solves counts the leaves solved.
*/
static int run_proof(dab_proof *pf, dab_ab *ab, const dab_retro *truth, int max_solves, int *solves,
                     const char *dir) {
  static dab_proof_claim open[1 << 14];
  dab_proof_summary s;
  dab_err err;
  for (;;) {
    size_t n;
    dab_status st = dab_proof_eval(pf, &s, open, 1 << 14, &n, &err);
    TH_CHECK(st == DAB_OK, "eval: %s", err.msg);
    if (st || s.state != DAB_PROOF_OPEN) return s.state;
    if (n == 0) {
      TH_CHECK(0, "open proof without an open leaf");
      return -1;
    }
    /* Every open claim names its subtree: itself when it is at most two
    ** plies above the leaves (depth 1 at least), else its ancestor there. */
    const dab_proof_spec *spec = dab_proof_get_spec(pf);
    int gd = spec->depth - 2 >= 1 ? spec->depth - 2 : 1, bad_group = 0;
    for (size_t i = 0; i < n; i++) {
      const dab_proof_claim *c = &open[i];
      if (c->depth <= gd) bad_group += c->group != c->pos;
      else bad_group += __builtin_popcountll(c->group) - __builtin_popcountll(spec->root) != gd;
    }
    TH_CHECK(bad_group == 0, "%d open claims name a wrong subtree", bad_group);
    if (max_solves >= 0 && *solves >= max_solves) return s.state;
    dab_proof_rec rec;
    if (ab) {
      st = dab_proof_solve_claim(pf, ab, &open[0], &rec, &err);
      if (st == DAB_ECANCELED) return -2;
      TH_CHECK(st == DAB_OK, "solve: %s", err.msg);
      if (st) return -1;
    } else {
      memset(&rec, 0, sizeof rec);
      rec.pos = open[0].pos, rec.dir = open[0].dir, rec.bound = open[0].bound, rec.threads = 1;
      int v = dab_retro_value(truth, open[0].pos);
      rec.proved = open[0].dir == DAB_PROOF_GE ? v >= open[0].bound : v <= open[0].bound;
    }
    if (truth && ab) TH_CHECK(rec_true(truth, &rec), "a solved record disagrees with the table");
    if (ab) TH_CHECK(rec.has_fs, "a search record without its fail-soft bound");
    if (dir) {
      char line[512], path[512];
      TH_CHECK(dab_proof_format_rec(pf, &rec, line, sizeof line) != NULL, "format");
      snprintf(path, sizeof path, "%s/rec-test.txt", dir);
      st = dab_proof_append_line(path, dab_proof_rec_header(), line, &err);
      TH_CHECK(st == DAB_OK, "append: %s", err.msg);
    }
    st = dab_proof_add(pf, &rec, &err);
    TH_CHECK(st == DAB_OK, "add: %s", err.msg);
    (*solves)++;
  }
}

static const char *state_name(int s) {
  return s == DAB_PROOF_PROVED ? "proved" : s == DAB_PROOF_REFUTED ? "refuted" : s == 0 ? "open" : "error";
}

/* The true value proves; value+2 (>=) and value-2 (<=) are refuted; the
** one-sided true claims prove; every record agrees with the table. */
static void check_board(int rows, int cols, int maxdepth, dab_retro *truth, int known) {
  int v = truth ? dab_retro_value(truth, 0) : known;
  if (truth && known != 99) TH_CHECK(v == known, "%dx%d retro value %d, known %d", rows, cols, v, known);
  dab_ab *ab = solver_for(rows, cols, NULL);
  if (!ab) return;
  for (int d = 0; d <= maxdepth; d++) {
    struct { bool ge; int geb; bool le; int leb; int want; } cases[] = {
        {true, v, true, v, DAB_PROOF_PROVED},   {true, v + 2, false, 0, DAB_PROOF_REFUTED},
        {false, 0, true, v - 2, DAB_PROOF_REFUTED}, {true, v - 2, false, 0, DAB_PROOF_PROVED},
        {true, v + 1, false, 0, DAB_PROOF_REFUTED}, /* parity: v+1 is v+2 */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
      dab_proof *pf = new_proof(rows, cols, d, cases[c].ge, cases[c].geb, cases[c].le, cases[c].leb);
      if (!pf) continue;
      int solves = 0;
      int st = run_proof(pf, ab, truth, -1, &solves, NULL);
      TH_CHECK(st == cases[c].want, "%dx%d depth %d case %zu: %s, want %s (%d solves)", rows, cols, d, c,
               state_name(st), state_name(cases[c].want), solves);
      if (d > 0 && c == 0) TH_CHECK(solves > 1, "%dx%d depth %d: the proof was not split (%d)", rows, cols, d, solves);
      if (truth) { /* the same tree solved from the table must agree */
        dab_proof *pt = new_proof(rows, cols, d, cases[c].ge, cases[c].geb, cases[c].le, cases[c].leb);
        int s2 = 0;
        int st2 = run_proof(pt, NULL, truth, -1, &s2, NULL);
        TH_CHECK(st2 == cases[c].want, "%dx%d depth %d case %zu from the table: %s", rows, cols, d, c, state_name(st2));
        dab_proof_free(pt);
      }
      dab_proof_free(pf);
    }
  }
  dab_ab_free(ab);
}

/* A wrong record makes a proof of the true claim fail or a wrong claim
** pass: the tree logic really depends on the records. */
static void check_tree_uses_records(dab_retro *truth) {
  int v = dab_retro_value(truth, 0);
  dab_proof *pf = new_proof(3, 3, 2, true, v, true, v);
  int solves = 0;
  int st = run_proof(pf, NULL, truth, -1, &solves, NULL);
  TH_CHECK(st == DAB_PROOF_PROVED, "3x3 from the table: %s", state_name(st));
  size_t n;
  const dab_proof_rec *recs = dab_proof_records(pf, &n);
  /* rebuild with every record but one: the proof must be open again */
  int opened = 0;
  for (size_t skip = 0; skip < n; skip++) {
    dab_proof *p2 = new_proof(3, 3, 2, true, v, true, v);
    for (size_t i = 0; i < n; i++)
      if (i != skip) dab_proof_add(p2, &recs[i], NULL);
    dab_proof_summary s;
    dab_proof_eval(p2, &s, NULL, 0, NULL, NULL);
    if (s.state == DAB_PROOF_OPEN && s.leaves_open >= 1) opened++;
    dab_proof_free(p2);
  }
  /* records under a refuted OR candidate may be spare, the others not */
  dab_proof_summary sfull;
  dab_proof_eval(pf, &sfull, NULL, 0, NULL, NULL);
  TH_CHECK(opened >= 1 && (uint64_t)opened >= sfull.used_proved / 2, "dropping one of %zu records opened the proof %d times (%llu in use)",
           n, opened, (unsigned long long)sfull.used_proved);
  /* with no records at all the proof is open */
  dab_proof *p0 = new_proof(3, 3, 2, true, v, true, v);
  dab_proof_summary s0;
  dab_proof_eval(p0, &s0, NULL, 0, NULL, NULL);
  TH_CHECK(s0.state == DAB_PROOF_OPEN && s0.leaves_open > 1, "no records: %s", state_name(s0.state));
  dab_proof_free(p0);
  /* a flipped record is a contradiction or a different tree */
  dab_proof_rec bad = recs[0];
  bad.proved = !bad.proved;
  dab_err err;
  dab_status s2 = dab_proof_add(pf, &bad, &err);
  TH_CHECK(s2 == DAB_ECORRUPT, "a contradicting record was accepted");
  dab_proof_free(pf);
}

static void rmdir_all(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* Resume: a run stopped part way (by a count, and by a node limit) and
** continued by a fresh object that loads the directory ends as a full run,
** with no leaf solved twice. */
static void check_resume(int rows, int cols, int depth, int value) {
  char dir[] = "/tmp/dab-proof-XXXXXX";
  if (!mkdtemp(dir)) {
    TH_CHECK(0, "mkdtemp");
    return;
  }
  dab_proof_spec sp = {.rows = rows, .cols = cols, .has_ge = true, .has_le = true, .ge_bound = value,
                       .le_bound = value, .depth = depth};
  dab_err err;
  TH_CHECK(dab_proof_write_spec(dir, &sp, &err) == DAB_OK, "write spec: %s", err.msg);
  dab_proof_spec back;
  bool exists;
  TH_CHECK(dab_proof_read_spec(dir, &back, &exists, &err) == DAB_OK && exists, "read spec: %s", err.msg);
  TH_CHECK(back.rows == rows && back.cols == cols && back.depth == depth && back.has_ge && back.has_le &&
               back.ge_bound == value && back.le_bound == value && back.root == 0,
           "spec round trip");
  /* the full run, for reference */
  dab_ab *ab = solver_for(rows, cols, NULL);
  dab_proof *full = new_proof(rows, cols, depth, true, value, true, value);
  int nfull = 0;
  TH_CHECK(run_proof(full, ab, NULL, -1, &nfull, NULL) == DAB_PROOF_PROVED, "full run");
  /* part 1: a few leaves, recorded in dir */
  dab_proof *p1 = new_proof(rows, cols, depth, true, value, true, value);
  int n1 = 0;
  dab_ab *fresh = solver_for(rows, cols, NULL);
  TH_CHECK(run_proof(p1, fresh, NULL, nfull / 3, &n1, dir) == DAB_PROOF_OPEN, "partial run not open");
  dab_ab_free(fresh);
  /* part 2: a solver with a node limit too small for some leaf */
  uint64_t limit = 5000;
  dab_ab *tiny = solver_for(rows, cols, &limit);
  dab_proof *p2 = new_proof(rows, cols, depth, true, value, true, value);
  dab_proof_load_info li;
  TH_CHECK(dab_proof_load_dir(p2, dir, &li, &err) == DAB_OK, "load: %s", err.msg);
  TH_CHECK(li.lines == (uint64_t)n1 && li.torn == 0 && li.bad == 0, "loaded %llu of %d", (unsigned long long)li.lines, n1);
  int n2 = 0;
  int st2 = run_proof(p2, tiny, NULL, -1, &n2, dir);
  TH_CHECK(st2 == -2, "the node limit never stopped a leaf (state %d after %d)", st2, n2);
  dab_ab_free(tiny);
  dab_proof_free(p2);
  /* part 3: resume to the end */
  dab_proof *p3 = new_proof(rows, cols, depth, true, value, true, value);
  TH_CHECK(dab_proof_load_dir(p3, dir, &li, &err) == DAB_OK, "load: %s", err.msg);
  int n3 = 0;
  fresh = solver_for(rows, cols, NULL);
  TH_CHECK(run_proof(p3, fresh, NULL, -1, &n3, dir) == DAB_PROOF_PROVED, "resumed run not proved");
  dab_ab_free(fresh);
  TH_CHECK(n1 + n2 + n3 == nfull, "resumed runs solved %d+%d+%d leaves, the full run %d", n1, n2, n3, nfull);
  /* the directory alone proves it, with the same records as the full run */
  dab_proof *p4 = new_proof(rows, cols, depth, true, value, true, value);
  TH_CHECK(dab_proof_load_dir(p4, dir, &li, &err) == DAB_OK, "load: %s", err.msg);
  dab_proof_summary s4, sf;
  dab_proof_eval(p4, &s4, NULL, 0, NULL, NULL);
  dab_proof_eval(full, &sf, NULL, 0, NULL, NULL);
  TH_CHECK(s4.state == DAB_PROOF_PROVED && s4.records == sf.records && s4.used_proved == sf.used_proved,
           "reloaded: %s, %llu records (full run %llu)", state_name(s4.state), (unsigned long long)s4.records,
           (unsigned long long)sf.records);
  /* a cleared handle holds nothing, and loads the directory as a new one */
  dab_proof_clear(full);
  size_t nheld = 1;
  dab_proof_records(full, &nheld);
  dab_proof_summary sc;
  dab_proof_eval(full, &sc, NULL, 0, NULL, NULL);
  TH_CHECK(nheld == 0 && sc.state == DAB_PROOF_OPEN && sc.records == 0, "cleared: %zu records, %s", nheld,
           state_name(sc.state));
  TH_CHECK(dab_proof_load_dir(full, dir, &li, &err) == DAB_OK, "load after clear: %s", err.msg);
  dab_proof_eval(full, &sc, NULL, 0, NULL, NULL);
  TH_CHECK(sc.state == s4.state && sc.records == s4.records && sc.used_proved == s4.used_proved &&
               sc.leaves_open == s4.leaves_open,
           "cleared and reloaded: %s, %llu records (new handle %llu)", state_name(sc.state),
           (unsigned long long)sc.records, (unsigned long long)s4.records);
  /* torn last line: cut the file inside its last record */
  char path[600];
  snprintf(path, sizeof path, "%s/rec-test.txt", dir);
  FILE *f = fopen(path, "r+");
  long size = 0;
  if (f) {
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fclose(f);
  }
  TH_CHECK(size > 40 && truncate(path, size - 20) == 0, "truncate");
  /* and a garbage line in a second file */
  char path2[600];
  snprintf(path2, sizeof path2, "%s/rec-other.txt", dir);
  f = fopen(path2, "w");
  if (f) {
    fputs("# comment\n3x3:000 >=+0 proved >=+0\nnot a record at all\n", f);
    /* notes of given-up whole-subtree searches: one position, written as
    ** two mirror images, and a note that does not parse */
    fputs("# open direct 3x3:100000000000000000000000 >=+0 abandoned after seconds=12.5 nodes=9\n"
          "# open direct 3x3:001000000000000000000000 >=+0 abandoned after seconds=30.0 nodes=9\n"
          "# open direct 3x3:0 >=+0 abandoned after seconds=99\n", f);
    fclose(f);
  }
  dab_proof *p5 = new_proof(rows, cols, depth, true, value, true, value);
  TH_CHECK(dab_proof_load_dir(p5, dir, &li, &err) == DAB_OK, "load: %s", err.msg);
  TH_CHECK(li.torn == 1 && li.bad == 2 && li.lines == (uint64_t)nfull - 1 && li.files == 2,
           "torn %d bad %d lines %llu files %d (%s)", li.torn, li.bad, (unsigned long long)li.lines, li.files,
           li.first_problem);
  if (rows == 3 && cols == 3) {
    dab_proof_claim ge = {dab_proof_canon(p5, 1), DAB_PROOF_GE, 0, 0, 0}, le = ge;
    le.dir = DAB_PROOF_LE;
    TH_CHECK(dab_proof_gave_up(p5, &ge) == 30.0 && dab_proof_gave_up(p5, &le) == 0,
             "given-up notes: %g and %g seconds, want 30 and 0", dab_proof_gave_up(p5, &ge), dab_proof_gave_up(p5, &le));
  }
  dab_proof_summary s5;
  dab_proof_eval(p5, &s5, NULL, 0, NULL, NULL);
  TH_CHECK(s5.state == DAB_PROOF_OPEN && s5.leaves_open == 1, "after the torn line: %s with %llu open",
           state_name(s5.state), (unsigned long long)s5.leaves_open);
  /* the proof as it stood at a date: every record of this run is dated
  ** today, so a limit in 1999 skips them all (the undated lines stay, as
  ** bad as before), and today's date as a prefix keeps the whole day */
  {
    size_t nfr;
    const dab_proof_rec *fr = dab_proof_records(full, &nfr);
    char today[16];
    snprintf(today, sizeof today, "%.10s", nfr ? fr[0].date : "");
    const char *untils[2] = {"1999-12-31T23:59:59Z", today};
    for (int u = 0; u < 2; u++) {
      dab_proof *pu = new_proof(rows, cols, depth, true, value, true, value);
      dab_proof_set_until(pu, untils[u]);
      TH_CHECK(dab_proof_load_dir(pu, dir, &li, &err) == DAB_OK, "load: %s", err.msg);
      dab_proof_summary su;
      dab_proof_eval(pu, &su, NULL, 0, NULL, NULL);
      uint64_t want_later = u ? 0 : (uint64_t)nfull - 1;
      TH_CHECK(li.later == want_later && li.lines == (uint64_t)nfull - 1 - want_later && li.bad == 2 && li.torn == 1,
               "until %s: %llu later, %llu lines (want %llu later)", untils[u], (unsigned long long)li.later,
               (unsigned long long)li.lines, (unsigned long long)want_later);
      TH_CHECK(u ? su.leaves_open == 1 : su.leaves_open > 1 && su.records == 0,
               "until %s: %llu open leaves, %llu records", untils[u], (unsigned long long)su.leaves_open,
               (unsigned long long)su.records);
      dab_proof_free(pu);
    }
  }
  /* appending after a torn tail keeps the new line whole */
  size_t nr;
  const dab_proof_rec *recs = dab_proof_records(full, &nr);
  char line[512];
  dab_proof_format_rec(full, &recs[nr - 1], line, sizeof line);
  TH_CHECK(dab_proof_append_line(path, NULL, line, &err) == DAB_OK, "append: %s", err.msg);
  dab_proof *p6 = new_proof(rows, cols, depth, true, value, true, value);
  TH_CHECK(dab_proof_load_dir(p6, dir, &li, &err) == DAB_OK, "load: %s", err.msg);
  dab_proof_summary s6;
  dab_proof_eval(p6, &s6, NULL, 0, NULL, NULL);
  TH_CHECK(li.torn == 0 && s6.state == DAB_PROOF_PROVED, "after re-appending: torn %d, %s", li.torn,
           state_name(s6.state));
  /* tampering: a record flipped in the file is caught by re-solving it */
  recs = dab_proof_records(p6, &nr);
  int wrong = 0;
  for (size_t i = 0; i < nr; i++) {
    dab_proof_claim c = {recs[i].pos, recs[i].dir, recs[i].bound, 0, recs[i].pos};
    dab_proof_rec again;
    if (dab_proof_solve_claim(p6, ab, &c, &again, &err) == DAB_OK && again.proved != recs[i].proved) wrong++;
  }
  TH_CHECK(wrong == 0, "%d honest records failed their re-check", wrong);
  dab_proof_rec t = recs[nr / 2];
  t.proved = !t.proved;
  dab_proof_claim c = {t.pos, t.dir, t.bound, 0, t.pos};
  dab_proof_rec again;
  TH_CHECK(dab_proof_solve_claim(p6, ab, &c, &again, &err) == DAB_OK && again.proved != t.proved,
           "a flipped record passed its re-check");
  dab_proof_free(p3);
  dab_proof_free(p4);
  dab_proof_free(p5);
  dab_proof_free(p6);
  dab_proof_free(p1);
  dab_proof_free(full);
  dab_ab_free(ab);
  rmdir_all(dir);
}

/* dab_proof_open_at: a node two plies up, proved by one search, closes
** every leaf below it; the result agrees with the table. */
static void check_open_at(dab_retro *truth) {
  int v = dab_retro_value(truth, 0);
  dab_proof *pf = new_proof(3, 3, 4, true, v, true, v);
  dab_ab *ab = solver_for(3, 3, NULL);
  if (!pf || !ab) return;
  dab_proof_claim nodes[64], *leaves = malloc(4096 * sizeof *leaves);
  size_t n, nl, nl2;
  dab_err err;
  dab_proof_summary s, s2;
  TH_CHECK(dab_proof_eval(pf, &s, leaves, 4096, &nl, &err) == DAB_OK, "eval");
  TH_CHECK(dab_proof_open_at(pf, 2, nodes, 64, &n, &err) == DAB_OK && n >= 2, "open_at: %zu", n);
  int rounds = 0;
  while (n > 0 && rounds < 3) {
    TH_CHECK(nodes[0].depth == 2 && __builtin_popcountll(nodes[0].pos) == 2, "node depth %d", nodes[0].depth);
    /* the first open leaf lies below the first open node */
    TH_CHECK((leaves[0].pos & nodes[0].pos) == nodes[0].pos || s.leaves_open == 0, "first leaf not below first node");
    dab_proof_rec rec;
    TH_CHECK(dab_proof_solve_claim(pf, ab, &nodes[0], &rec, &err) == DAB_OK, "solve: %s", err.msg);
    TH_CHECK(rec_true(truth, &rec), "direct record disagrees with the table");
    dab_proof_add(pf, &rec, &err);
    TH_CHECK(dab_proof_eval(pf, &s2, leaves, 4096, &nl2, &err) == DAB_OK, "eval");
    /* leaves below it may stay open through transpositions, but never more */
    if (rec.proved) TH_CHECK(s2.leaves_open <= s.leaves_open, "a proved node opened leaves");
    s = s2;
    dab_proof_claim done = nodes[0];
    TH_CHECK(dab_proof_open_at(pf, 2, nodes, 64, &n, &err) == DAB_OK, "open_at");
    bool still = false;
    for (size_t i = 0; i < n; i++) still |= nodes[i].pos == done.pos && nodes[i].dir == done.dir;
    TH_CHECK(!still, "a decided node is still open");
    rounds++;
  }
  TH_CHECK(rounds == 3, "only %d direct rounds", rounds);
  free(leaves);
  dab_ab_free(ab);
  dab_proof_free(pf);
}

/* Record lines: round trip, and what the parser refuses. */
static void check_text(void) {
  dab_proof *pf = new_proof(3, 3, 2, true, -3, true, -3);
  if (!pf) return;
  dab_proof_rec r = {.pos = 1ull << 12, .dir = DAB_PROOF_GE, .bound = -1, .proved = false, .nodes = 1234,
                     .seconds = 1.5, .threads = 2, .date = "2026-11-22T05:00:00Z", .host = "box"};
  r.pos = dab_proof_canon(pf, r.pos);
  char line[512];
  TH_CHECK(dab_proof_format_rec(pf, &r, line, sizeof line) != NULL, "format");
  /* 9 open boxes: refuted >= -1 means <= -2 -> parity -> <= -3 */
  TH_CHECK(strstr(line, " >=-1 refuted <=-3 nodes=1234 ") != NULL, "line: %s", line);
  dab_proof_rec b;
  dab_err err;
  TH_CHECK(dab_proof_parse_rec(pf, line, &b, &err) == DAB_OK, "parse: %s", err.msg);
  TH_CHECK(b.pos == r.pos && b.dir == r.dir && b.bound == r.bound && b.proved == r.proved && b.nodes == 1234 &&
               b.threads == 2 && !strcmp(b.host, "box") && !strcmp(b.date, r.date),
           "round trip");
  char bad[512];
  snprintf(bad, sizeof bad, "%s", line);
  char *p = strstr(bad, "<=-3");
  if (p) p[3] = '1'; /* a bound that does not follow */
  TH_CHECK(dab_proof_parse_rec(pf, bad, &b, &err) == DAB_EINPUT, "inconsistent bound accepted");
  /* a stronger bound of the same direction is a fail-soft result */
  if (p) p[3] = '5';
  TH_CHECK(dab_proof_parse_rec(pf, bad, &b, &err) == DAB_OK && b.has_fs && !b.fs_lower && b.fs_value == -5,
           "fail-soft bound: %s", err.msg);
  char again[512];
  TH_CHECK(dab_proof_format_rec(pf, &b, again, sizeof again) && strstr(again, " refuted <=-5 "), "fs format: %s", again);
  if (p) p[0] = '>', p[1] = '=';
  TH_CHECK(dab_proof_parse_rec(pf, bad, &b, &err) == DAB_EINPUT, "bound of the wrong direction accepted");
  if (p) p[0] = '<', p[1] = '=', p[2] = '-', p[3] = '9';
  TH_CHECK(dab_proof_parse_rec(pf, bad, &b, &err) == DAB_OK, "bound -9 on 9 boxes refused");
  snprintf(bad, sizeof bad, "3x3:000000000000100000000000 >=-1 refuted <=-11 nodes=1");
  TH_CHECK(dab_proof_parse_rec(pf, bad, &b, &err) == DAB_EINPUT, "bound beyond the box count accepted");
  TH_CHECK(dab_proof_parse_rec(pf, "3x4:0000000000000000000000000000000 >=+0 proved >=+0", &b, &err) == DAB_EINPUT,
           "other board accepted");
  TH_CHECK(dab_proof_parse_rec(pf, "3x3:000000000000000000000000 =+0 proved >=+0", &b, &err) == DAB_EINPUT,
           "bad claim accepted");
  /* the @ form is accepted and canonicalised: move 12 and its mirror image */
  TH_CHECK(dab_proof_parse_rec(pf, "3x3@12 >=-1 refuted <=-3", &b, &err) == DAB_OK && b.pos == r.pos,
           "@ form: %s", err.msg);
  dab_proof_spec sp;
  TH_CHECK(dab_proof_parse_claim("=0", &sp, &err) == DAB_OK && sp.has_ge && sp.has_le && !sp.ge_bound, "=0");
  TH_CHECK(dab_proof_parse_claim(">=-1,<=3", &sp, &err) == DAB_OK && sp.ge_bound == -1 && sp.le_bound == 3, "range");
  TH_CHECK(dab_proof_parse_claim("0", &sp, &err) == DAB_EINPUT, "bare number accepted");
  dab_proof_free(pf);
}

/* Appends " last=M,M,..." to buf: every first move of the empty board whose
** child is the canonical position `child` (the moves that lead to it). */
static void append_last_moves_to(const dab_proof *pf, uint64_t child, char *buf, size_t len) {
  size_t w = strlen(buf);
  const char *sep = " last=";
  for (int m = 0; m < dab_proof_geom(pf)->nlines && w < len; m++) {
    if (dab_proof_canon(pf, 1ull << m) != child) continue;
    int k = snprintf(buf + w, len - w, "%s%d", sep, m);
    if (k < 0) return;
    w += (size_t)k;
    sep = ",";
  }
}

/* Split notes: a "# open" note on a leaf expands it two plies (GE), and
** its first=/last= hint picks the OR candidate. */
static void check_split_notes(void) {
  static const char root[] = "3x3:000000000000000000000000";
  char note[256];
  snprintf(note, sizeof note, "# open %s >=-3 abandoned after seconds=0.5 nodes=1", root);
  dab_proof_claim got[64];
  size_t n = 0;
  dab_err err;
  /* no note: the root's GE claim (depth 0 = split depth - 1) is a leaf */
  dab_proof *p0 = new_proof(3, 3, 1, true, -3, false, 0);
  dab_proof_summary s;
  dab_proof_eval(p0, &s, got, 64, &n, NULL);
  TH_CHECK(n == 1 && got[0].pos == 0 && got[0].depth == 0, "unsplit: %zu open, first at depth %d", n,
           n ? got[0].depth : -1);
  TH_CHECK(!dab_proof_note(p0, "# open 3x3:0 nonsense") && !dab_proof_note(p0, "# a comment"),
           "a note that does not parse is refused");
  /* the note: the leaf is now an OR over first moves, the active one an
  ** AND over replies (open inner node at depth 1), leaves at depth 2 */
  TH_CHECK(dab_proof_note(p0, note), "note refused: %s", note);
  dab_proof_eval(p0, &s, got, 64, &n, NULL);
  TH_CHECK(n > 1 && got[0].depth == 2 && got[0].dir == DAB_PROOF_GE, "split: %zu open, first at depth %d", n,
           n ? got[0].depth : -1);
  dab_proof_claim at[64];
  size_t na = 0;
  TH_CHECK(dab_proof_open_at(p0, 1, at, 64, &na, &err) == DAB_OK && na == 1, "split: %zu open at depth 1", na);
  uint64_t first = na ? at[0].pos : 0;
  const dab_geom *g = dab_proof_geom(p0);
  /* last= every move to that child: the next candidate becomes active */
  char hinted[400];
  snprintf(hinted, sizeof hinted, "%s", note);
  append_last_moves_to(p0, first, hinted, sizeof hinted);
  dab_proof *p1 = new_proof(3, 3, 1, true, -3, false, 0);
  TH_CHECK(dab_proof_note(p1, hinted), "hinted note refused: %s", hinted);
  TH_CHECK(dab_proof_open_at(p1, 1, at, 64, &na, &err) == DAB_OK && na == 1 && at[0].pos != first,
           "last= hint: %zu open at depth 1, the same candidate: %d", na, na && at[0].pos == first);
  /* first= a move at the far end of the fixed order: it becomes active */
  int far = g->nlines - 1;
  snprintf(hinted, sizeof hinted, "%s first=%d", note, far);
  dab_proof *p2 = new_proof(3, 3, 1, true, -3, false, 0);
  TH_CHECK(dab_proof_note(p2, hinted), "hinted note refused: %s", hinted);
  TH_CHECK(dab_proof_open_at(p2, 1, at, 64, &na, &err) == DAB_OK && na == 1 &&
               at[0].pos == dab_proof_canon(p2, 1ull << far),
           "first= hint: %zu open at depth 1", na);
  dab_proof_free(p0);
  dab_proof_free(p1);
  dab_proof_free(p2);
}

/* Reads the moves of " NAME=M,M,..." in a hint into a mask. */
static uint64_t hint_moves(const char *hint, const char *name) {
  char key[16];
  snprintf(key, sizeof key, " %s=", name);
  const char *at = strstr(hint, key);
  uint64_t mask = 0;
  for (at = at ? at + strlen(key) : NULL; at;) {
    char *end;
    long m = strtol(at, &end, 10);
    if (end == at) break;
    mask |= 1ull << m;
    at = *end == ',' ? end + 1 : NULL;
  }
  return mask;
}

/*
** dab_proof_order_hint against the table: after a search of a claim, whole
** or cut short by a node limit, every move the hint puts first (OR: its
** child's claim holds; AND: it fails) and last (the other way) is checked
** on 3x3 positions of 4 to 12 lines, both directions, true and false.
*/
static void check_order_hint(const dab_retro *t) {
  const uint64_t limits[2] = {0, 300};
  uint64_t rng = 12345, hinted = 0, wrong = 0;
  for (int l = 0; l < 2; l++) {
    dab_ab *ab = solver_for(3, 3, limits[l] ? &limits[l] : NULL);
    dab_proof *pf = new_proof(3, 3, 2, true, 0, false, 0);
    if (!ab || !pf) return;
    const dab_geom *g = dab_proof_geom(pf);
    for (int trial = 0; trial < (san ? 20 : 120); trial++) {
      uint64_t pos = 0;
      int want = 4 + trial % 9;
      while (__builtin_popcountll(pos) < want) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        pos |= 1ull << (rng >> 33) % (unsigned)g->nlines;
      }
      pos = dab_proof_canon(pf, pos);
      int v = dab_retro_value(t, pos);
      int claims[4][2] = {{DAB_PROOF_GE, v}, {DAB_PROOF_GE, v + 2}, {DAB_PROOF_LE, v}, {DAB_PROOF_LE, v - 2}};
      for (int c = 0; c < 4; c++) {
        dab_proof_claim cl = {.pos = pos, .dir = claims[c][0], .bound = claims[c][1]};
        dab_proof_rec rec;
        dab_err err;
        dab_status st = dab_proof_solve_claim(pf, ab, &cl, &rec, &err);
        TH_CHECK(st == DAB_OK || st == DAB_ECANCELED, "solve: %s", err.msg);
        char hint[400];
        size_t len = dab_proof_order_hint(pf, ab, &cl, hint, sizeof hint);
        TH_CHECK(len == strlen(hint), "hint length %zu, string %zu", len, strlen(hint));
        uint64_t front = hint_moves(hint, "first"), back = hint_moves(hint, "last");
        for (int m = 0; m < g->nlines; m++) {
          bool f = front >> m & 1, b = back >> m & 1;
          if (!f && !b) continue;
          hinted++;
          int k = dab64_completes(g, pos, m), child = dab_retro_value(t, pos | 1ull << m);
          int mv = k ? k + child : -child;
          bool holds = cl.dir == DAB_PROOF_GE ? mv >= cl.bound : mv <= cl.bound;
          bool good = cl.dir == DAB_PROOF_GE ? holds : !holds; /* what goes first */
          wrong += (pos >> m & 1) || (f && b) || f != good;
        }
      }
    }
    dab_ab_free(ab);
    dab_proof_free(pf);
  }
  TH_CHECK(hinted > 100 && wrong == 0, "order hints: %llu moves hinted, %llu wrong", (unsigned long long)hinted,
           (unsigned long long)wrong);
}

/* A "# open direct" note's hint orders that node's children too: an OR
** node's (last= the active candidate: another one starts) and an AND
** node's (first= a child at the far end: its leaf comes first). */
static void check_direct_hints(void) {
  static const char root[] = "3x3:000000000000000000000000";
  dab_proof_claim at[64];
  size_t na = 0;
  dab_err err;
  dab_proof *p0 = new_proof(3, 3, 2, true, -3, false, 0);
  if (!p0) return;
  const dab_geom *g = dab_proof_geom(p0);
  TH_CHECK(dab_proof_open_at(p0, 1, at, 64, &na, &err) == DAB_OK && na == 1, "%zu open at depth 1", na);
  uint64_t first = na ? at[0].pos : 0;
  char note[400];
  snprintf(note, sizeof note, "# open direct %s >=-3 abandoned after seconds=900.0 nodes=1", root);
  TH_CHECK(dab_proof_note(p0, note) && dab_proof_open_at(p0, 1, at, 64, &na, &err) == DAB_OK && na == 1 &&
               at[0].pos == first,
           "a direct note without a hint changed the order");
  append_last_moves_to(p0, first, note, sizeof note);
  TH_CHECK(dab_proof_note(p0, note) && dab_proof_open_at(p0, 1, at, 64, &na, &err) == DAB_OK && na == 1 &&
               at[0].pos != first,
           "direct last= hint: the same candidate stays active");
  dab_proof *p1 = new_proof(3, 3, 2, false, 0, true, -3);
  if (!p1) return;
  dab_proof_claim got[64];
  size_t n = 0;
  dab_proof_summary s;
  int far = g->nlines - 1;
  uint64_t far_child = dab_proof_canon(p1, 1ull << far);
  dab_proof_eval(p1, &s, got, 64, &n, NULL);
  TH_CHECK(n > 1 && got[0].pos != far_child, "AND root: %zu open, the far child first", n);
  snprintf(note, sizeof note, "# open direct %s <=-3 abandoned after seconds=1.0 first=%d", root, far);
  TH_CHECK(dab_proof_note(p1, note), "note refused: %s", note);
  dab_proof_eval(p1, &s, got, 64, &n, NULL);
  TH_CHECK(n > 1 && got[0].pos == far_child, "direct first= hint on an AND node: not first");
  dab_proof_free(p0);
  dab_proof_free(p1);
}

int main(void) {
  san = getenv("DAB_TEST_SAN") != NULL;
  check_text();
  check_split_notes();
  check_direct_hints();
  dab_retro *t33 = table(3, 3);
  if (t33) {
    check_board(3, 3, san ? 2 : 3, t33, -3);
    check_tree_uses_records(t33);
    check_open_at(t33);
    check_order_hint(t33);
  }
  dab_retro *t24 = table(2, 4);
  if (t24) check_board(2, 4, san ? 1 : 3, t24, 2);
  dab_retro *t23 = table(2, 3);
  if (t23) check_board(2, 3, san ? 2 : 4, t23, -2);
  check_resume(3, 3, 2, -3);
  if (!san) check_board(3, 4, 2, NULL, 0); /* known value: 3x4 = 0 */
  dab_retro_free(t33);
  dab_retro_free(t24);
  dab_retro_free(t23);
  return TH_REPORT("test_proof");
}
