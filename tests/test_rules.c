/*
** test_rules.c: the rule language: paper texts round-trip, errors name a column, matching
** agrees with an exhaustive matcher, mutations stay valid, new rules copy the state.
** See Copyright Notice in README.md
*/
#include <xxhash.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "agents/econ.h"
#include "agents/erl.h"
#include "agents/rule.h"
#include "tests/testhelp.h"

/* Every rule text printed in seed papers 000 and 003 (the spelling). */
static const char *const paper_rules[] = {
    "x0n => x0 - n",
    "l0t1t1 : t1l0l0l2 : t3l2l4l4 : l4t3t3 => l2[1] - t1",
    "x0w1 => x0 - w1",
    "q2 l1(1+) x3 x4 w : l1(1+) q2 n : x3 q2 : x4 q2 : x5 w => q2 - x3",
    "x0w => x0 - w",
    "l0(1+)x1n => l0(1+)[0] - n",
    "t4l9l7t1 : l7(2)t4n : l9(4)t1t4 : l8(1)t1n : t1l9t4l8 => t1 - t4",
    "x45l48(2+) : l48(2+)nx45 => x45 - l48(2+)",
};

static dab_geom g33;

static dab_lineset lines_except(const dab_geom *g, const int *undrawn, int n) {
  dab_lineset s = {{0}};
  for (int m = 0; m < g->nlines; m++) dab_ls_set(&s, m);
  for (int i = 0; i < n; i++) dab_ls_clear(&s, undrawn[i]);
  return s;
}

static void test_round_trips(void) {
  char buf[DAB_RULE_TEXT];
  dab_err err;
  for (size_t i = 0; i < sizeof paper_rules / sizeof *paper_rules; i++) {
    dab_rule r;
    dab_status st = dab_rule_parse(paper_rules[i], false, &r, &err);
    TH_CHECK(st == DAB_OK, "parse '%s': %s", paper_rules[i], st ? err.msg : "");
    if (st) continue;
    TH_CHECK(dab_rule_print(&r, buf, sizeof buf) > 0 && !strcmp(buf, paper_rules[i]),
             "round trip '%s' gave '%s'", paper_rules[i], buf);
    char why[96] = "";
    TH_CHECK(dab_rule_check(&r, why, sizeof why), "'%s' invalid: %s", paper_rules[i], why);
    /* The canonical layout prints a text that parses back to itself. */
    dab_rule c = r;
    dab_rule_relayout(&c);
    char b1[DAB_RULE_TEXT], b2[DAB_RULE_TEXT];
    dab_rule_print(&c, b1, sizeof b1);
    dab_rule back;
    TH_CHECK(dab_rule_parse(b1, false, &back, &err) == DAB_OK && dab_rule_print(&back, b2, sizeof b2) > 0 &&
                 !strcmp(b1, b2) && back.nnodes == r.nnodes,
             "canonical '%s' -> '%s'", b1, b2);
  }
  /* Structure of a few: parallel links, unnumbered nodes, chain bounds. */
  dab_rule r;
  dab_rule_parse(paper_rules[1], false, &r, &err);
  TH_CHECK(r.nnodes == 5 && r.count[DAB_RS_L] == 3 && r.count[DAB_RS_T] == 2, "dipper: %d nodes", r.nnodes);
  int l0 = 0, t1 = 1;
  int m = 0;
  for (int k = 0; k < r.node[l0].deg; k++) m += r.node[l0].nb[k] == t1;
  TH_CHECK(m == 2 && r.node[t1].deg == 3, "dipper: l0-t1 has %d links", m);
  TH_CHECK(r.act_pos == 1 && r.node[r.act_a].sym == DAB_RS_L, "dipper action position");
  dab_rule_parse(paper_rules[3], false, &r, &err);
  TH_CHECK(r.nnodes == 8 && r.count[DAB_RS_W] == 2 && r.count[DAB_RS_N] == 1, "q2 rule: %d nodes", r.nnodes);
  dab_rule_parse(paper_rules[6], false, &r, &err);
  int l9 = -1;
  for (int v = 0; v < r.nnodes; v++)
    if (r.node[v].id == 9) l9 = v;
  TH_CHECK(l9 >= 0 && r.node[l9].len == 4 && !r.node[l9].plus, "l9(4) bound");
  /* The state graph text of paper 000 parses as a graph. */
  TH_CHECK(dab_rule_parse("x0t2 : t2x0x3x4 : x3t2 : x4t2", true, &r, &err) == DAB_OK && r.nnodes == 4,
           "state graph text");
  dab_rule_print(&r, buf, sizeof buf);
  TH_CHECK(!strcmp(buf, "x0t2 : t2x0x3x4 : x3t2 : x4t2"), "state graph text round trip: %s", buf);
}

static void test_errors(void) {
  static const struct {
    const char *text;
    int column;
  } bad[] = {
      {"x0n => x0 - ", 13},          /* action end missing */
      {"x0y => x0 - n", 3},          /* unknown symbol */
      {"x0n x0 - n", 5},             /* no "=>": '-' is not a node */
      {"x0n", 4},                    /* no action at all */
      {"t0(2)nnn => t0 - n", 3},     /* length on a non-chain */
      {"x0x0 => x0 - x0", 3},        /* self-link */
      {"x0n : x0n => x0 - n", 7},    /* two entries for x0 */
      {"x0n => x0 - t5", 13},        /* action node not in the graph */
      {"x0n => x0 - w", 13},         /* no unnumbered w beside x0 */
      {"x0t1 : t1nnn => x0 - n", 22}, /* no unnumbered n beside x0 */
      {"x0n : x1n => x0 - x1", 14},  /* not a link */
      {"l0(0)nn => l0 - n", 4},      /* chain length 0 */
      {"l0(2nn => l0 - n", 5},       /* missing ')' */
      {"x0n => x0[1] - n", 10},      /* position on a non-chain */
      {"x0t2 : t0n => x0 - t2", 8},  /* node 0 is x, not t */
      {"q0nnnnn => q0 - n", 7},      /* five links */
      {"x0n => x0 - n junk", 15},    /* trailing text */
      {"x0n => n - n", 8},           /* no numbered end */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    dab_rule r;
    dab_err err = {{0}};
    dab_status st = dab_rule_parse(bad[i].text, false, &r, &err);
    char want[32];
    snprintf(want, sizeof want, "column %d:", bad[i].column);
    TH_CHECK(st == DAB_EINPUT && !strncmp(err.msg, want, strlen(want)) && !strchr(err.msg, '\n'),
             "'%s': got %d '%s', want '%s'", bad[i].text, st, err.msg, want);
  }
  dab_rule r;
  dab_err err;
  TH_CHECK(dab_rule_parse("x0n => x0 - n", true, &r, &err) == DAB_EINPUT, "graph text with an action");
  /* Parsed but invalid: degrees that differ from the symbols. */
  TH_CHECK(dab_rule_parse("t0nn => t0 - n", false, &r, &err) == DAB_OK && !dab_rule_check(&r, NULL, 0),
           "t with two links is invalid");
  TH_CHECK(dab_rule_parse("l0(1)x1n => l0(1)[2] - n", false, &r, &err) == DAB_OK &&
               !dab_rule_check(&r, NULL, 0),
           "position past the chain is invalid");
}

/* ---- Exhaustive reference matcher ------------------------------------------ */

static bool brute(const dab_rule *r, const dab_sgraph *sg, int i, int16_t *map, bool *used) {
  if (i == r->nnodes) return dab_rule_map_ok(r, sg, map);
  for (int s = 0; s < sg->nnodes; s++) {
    if (used[s]) continue;
    if (r->node[i].sym != DAB_RS_W && sg->sym[s] != r->node[i].sym) continue;
    used[s] = true;
    map[i] = (int16_t)s;
    bool ok = brute(r, sg, i + 1, map, used);
    used[s] = false;
    if (ok) return true;
  }
  return false;
}

static bool brute_match(const dab_rule *r, const dab_sgraph *sg) {
  int16_t map[DAB_RULE_MAX_NODES];
  bool used[DAB_SG_MAX] = {0};
  return brute(r, sg, 0, map, used);
}

static void random_lines(const dab_geom *g, double p, dab_rng *rng, dab_lineset *s) {
  memset(s, 0, sizeof *s);
  for (int m = 0; m < g->nlines; m++)
    if (dab_rng_unit(rng) < p) dab_ls_set(s, m);
}

/* A small rule: a random one, or a state copy made general by mutations. */
static bool small_rule(dab_rng *rng, dab_rule *r) {
  if (dab_rng_below(rng, 2)) {
    dab_rule_random(r, rng);
  } else {
    dab_geom g;
    dab_geom_init(&g, 1 + dab_rng_below(rng, 2), 1 + dab_rng_below(rng, 3), NULL);
    dab_lineset s;
    random_lines(&g, 0.3 + 0.5 * dab_rng_unit(rng), rng, &s);
    if (dab_ls_count(&s) == g.nlines) return false;
    dab_sgraph sg;
    dab_sgraph_build(&g, &s, &sg);
    if (dab_rule_from_state(&sg, -1, rng, r, NULL)) return false;
    for (int k = 0; k < 4; k++) dab_rule_mutate_one(r, DAB_MUT_WILD, rng);
    dab_rule_mutate(r, 0.5, rng);
  }
  return r->nnodes <= 7;
}

static void test_match_vs_brute(void) {
  dab_rng rng;
  dab_rng_seed(&rng, 7);
  int pairs = 0, agree = 0, matched = 0, lines_ok = 0, maps_ok = 0;
  for (int it = 0; it < 3000; it++) {
    dab_rule r;
    if (!small_rule(&rng, &r)) continue;
    dab_geom g;
    dab_geom_init(&g, 2 + dab_rng_below(&rng, 2), 2 + dab_rng_below(&rng, 2), NULL);
    dab_lineset s;
    random_lines(&g, 0.2 + 0.7 * dab_rng_unit(&rng), &rng, &s);
    dab_sgraph sg;
    dab_sgraph_build(&g, &s, &sg);
    int16_t map[DAB_RULE_MAX_NODES];
    int line = -2;
    bool got = dab_rule_match(&r, &sg, NULL, &rng, NULL, map, &line);
    bool want = brute_match(&r, &sg);
    pairs++;
    agree += got == want;
    if (got != want) {
      char b[DAB_RULE_TEXT];
      dab_rule_print(&r, b, sizeof b);
      fprintf(stderr, "  disagree on '%s': matcher %d, exhaustive %d\n", b, got, want);
    }
    if (got) {
      matched++;
      maps_ok += dab_rule_map_ok(&r, &sg, map);
      lines_ok += line >= 0 && line < g.nlines && !dab_ls_has(&s, line);
    }
  }
  TH_CHECK(pairs > 1000 && agree == pairs, "matcher agrees with exhaustive: %d of %d", agree, pairs);
  TH_CHECK(matched > 100 && maps_ok == matched && lines_ok == matched,
           "%d matches: %d maps ok, %d lines undrawn", matched, maps_ok, lines_ok);
}

/* ---- Hand-built positions -------------------------------------------------- */

static void test_positions(void) {
  dab_err err;
  dab_rule r;
  dab_sgraph sg;
  int16_t map[DAB_RULE_MAX_NODES];
  int line;
  /* The paper's example: x0w1 matches x0t2 : t2x0x3x4 : x3t2 : x4t2, w1 on t2. */
  dab_rule state;
  dab_rule_parse("x0t2 : t2x0x3x4 : x3t2 : x4t2", true, &state, &err);
  TH_CHECK(dab_sgraph_from_rule(&state, &sg, &err) == DAB_OK, "state from text: %s", err.msg);
  dab_rule_parse("x0w1 => x0 - w1", false, &r, &err);
  bool ok = dab_rule_match(&r, &sg, NULL, NULL, NULL, map, NULL);
  TH_CHECK(ok && sg.sym[map[1]] == DAB_RS_T && state.node[map[1]].id == 2, "x0w1 on the paper's state");
  dab_rule_parse("x0n => x0 - n", false, &r, &err);
  TH_CHECK(!dab_rule_match(&r, &sg, NULL, NULL, NULL, NULL, NULL), "x0n has no n there");

  /* The same state as a 3x3 position: a T of boxes 1, 3, 4, 5. */
  static const int t_shape[] = {4, 17, 18};
  dab_lineset s = lines_except(&g33, t_shape, 3);
  dab_sgraph_build(&g33, &s, &sg);
  TH_CHECK(sg.nnodes == 4 && sg.nklass[DAB_RS_X] == 3 && sg.nklass[DAB_RS_T] == 1, "T-shape graph");
  dab_rule_parse("x0w1 => x0 - w1", false, &r, &err);
  ok = dab_rule_match(&r, &sg, NULL, NULL, NULL, NULL, &line);
  TH_CHECK(ok && (line == 4 || line == 17 || line == 18) && dab_completes(&g33, &s, line) == 1,
           "x0w1 takes a box: line %d", line);
  dab_rule_parse("x0t2 : t2x0x3x4 : x3t2 : x4t2", true, &state, &err);
  dab_rule whole;
  dab_rule_parse("x0t2 : t2x0x3x4 : x3t2 : x4t2 => t2 - x3", false, &whole, &err);
  TH_CHECK(dab_rule_match(&whole, &sg, NULL, NULL, NULL, NULL, &line), "whole state as a rule");

  /* A 3-chain along the top row, ground at both ends. */
  static const int chain3[] = {12, 13, 14, 15};
  s = lines_except(&g33, chain3, 4);
  dab_sgraph_build(&g33, &s, &sg);
  TH_CHECK(sg.nnodes == 3 && sg.nklass[DAB_RS_L] == 1 && sg.len[sg.klass[DAB_RS_L][0]] == 3, "3-chain");
  static const struct {
    const char *rule;
    bool match;
    int line_a, line_b;
  } cases[] = {
      {"l0(3)nn => l0(3)[1] - n", true, 13, 14},
      {"l0(3)nn => l0(3)[0] - n", true, 12, 15},
      {"l0(3)nn => l0(3)[3] - n", true, 12, 15},
      {"l0(2+)nn => l0(2+)[2] - n", true, 13, 14},
      {"l0(4+)nn => l0(4+) - n", false, 0, 0},
      {"l0(2)nn => l0(2) - n", false, 0, 0},
      {"l0nn => l0 - n", true, 12, 15},
      {"x0n => x0 - n", false, 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    TH_CHECK(dab_rule_parse(cases[i].rule, false, &r, &err) == DAB_OK, "%s: %s", cases[i].rule, err.msg);
    line = -1;
    ok = dab_rule_match(&r, &sg, NULL, NULL, NULL, NULL, &line);
    TH_CHECK(ok == cases[i].match && (!ok || line == cases[i].line_a || line == cases[i].line_b),
             "%s: match %d line %d", cases[i].rule, ok, line);
  }

  /* A capturable box in front of a 2-chain to the ground: l0(1+)x1n. */
  static const int xl2[] = {13, 14, 15};
  s = lines_except(&g33, xl2, 3);
  dab_sgraph_build(&g33, &s, &sg);
  dab_rule_parse("l0(1+)x1n => l0(1+)[0] - n", false, &r, &err);
  TH_CHECK(dab_rule_match(&r, &sg, NULL, NULL, NULL, NULL, &line) && line == 15, "l0(1+)x1n: line %d", line);
  dab_rule_parse("x0w => x0 - w", false, &r, &err);
  TH_CHECK(dab_rule_match(&r, &sg, NULL, NULL, NULL, NULL, &line) && line == 13, "x0w into a chain: %d", line);
  dab_rule_parse("x45l48(2+) : l48(2+)nx45 => x45 - l48(2+)", false, &r, &err);
  TH_CHECK(dab_rule_match(&r, &sg, NULL, NULL, NULL, NULL, &line) && line == 13, "x45l48(2+): %d", line);

  /* The rule printed with Q = 8.99 matches one 3x3 position: t1 = box 1,
  ** t4 = box 4, l9 = boxes 0 3 6 7, l7 = boxes 5 8, l8 = box 2. */
  static const int q899[] = {2, 3, 4, 6, 7, 8, 13, 14, 18, 21, 23};
  s = lines_except(&g33, q899, 11);
  dab_sgraph_build(&g33, &s, &sg);
  dab_rule_parse(paper_rules[6], false, &r, &err);
  TH_CHECK(dab_rule_match(&r, &sg, NULL, NULL, NULL, map, &line) && line == 4, "Q=8.99 rule: line %d", line);

  /* The dipper with earmuffs needs loops through its junctions: none on
  ** this board, so it matches nothing here. */
  dab_rule_parse(paper_rules[1], false, &r, &err);
  TH_CHECK(!dab_rule_match(&r, &sg, NULL, NULL, NULL, NULL, NULL), "dipper absent");

  /* The empty board: nine q nodes (corners too: two ground lines each) and
  ** twelve ground nodes. */
  dab_lineset empty = {{0}};
  dab_sgraph_build(&g33, &empty, &sg);
  TH_CHECK(sg.nklass[DAB_RS_Q] == 9 && sg.nklass[DAB_RS_N] == 12 && sg.nnodes == 21, "empty 3x3");
  dab_rule_parse("q0nnww => q0 - n", false, &r, &err);
  TH_CHECK(dab_rule_match(&r, &sg, NULL, NULL, NULL, NULL, &line) && line >= 0, "corner q on the empty board");
  dab_rule_parse("q0nnnw => q0 - n", false, &r, &err);
  TH_CHECK(!dab_rule_match(&r, &sg, NULL, NULL, NULL, NULL, NULL), "no box with three ground lines");
}

/* The cap: with one placement allowed, sampling takes over, and says so. */
static void test_cap(void) {
  dab_err err;
  dab_rule r;
  dab_sgraph sg;
  dab_lineset empty = {{0}};
  dab_sgraph_build(&g33, &empty, &sg);
  dab_rule_parse("q0nnww => q0 - n", false, &r, &err);
  dab_rmatch_opts o = {1, 200};
  dab_rmatch_stats st = {0};
  dab_rng rng;
  dab_rng_seed(&rng, 3);
  int16_t map[DAB_RULE_MAX_NODES];
  bool ok = dab_rule_match(&r, &sg, &o, &rng, &st, map, NULL);
  TH_CHECK(st.capped == 1 && ok == (st.capped_found == 1), "cap reached and counted");
  TH_CHECK(!ok || dab_rule_map_ok(&r, &sg, map), "sampled map is a substitution");
  TH_CHECK(dab_rule_match(&r, &sg, NULL, NULL, NULL, map, NULL) && dab_rule_map_ok(&r, &sg, map),
           "no cap: found");
  dab_rmatch_stats st2 = {0};
  dab_rule_match(&r, &sg, NULL, NULL, &st2, NULL, NULL);
  TH_CHECK(st2.capped == 0 && st2.placements > 0 && st2.searches == 1, "uncapped stats");
}

/* ---- Mutations and new rules ----------------------------------------------- */

static void test_mutations(void) {
  dab_rng rng;
  dab_rng_seed(&rng, 11);
  int kept[DAB_MUT_COUNT] = {0}, tried = 0, valid = 0, revoked_same = 0, revoked = 0, round = 0;
  for (int it = 0; it < 3000; it++) {
    dab_rule r;
    if (it % 2) {
      dab_rule_random(&r, &rng);
    } else {
      dab_lineset s;
      random_lines(&g33, 0.3 + 0.6 * dab_rng_unit(&rng), &rng, &s);
      if (dab_ls_count(&s) == g33.nlines) continue;
      dab_sgraph sg;
      dab_sgraph_build(&g33, &s, &sg);
      if (dab_rule_from_state(&sg, -1, &rng, &r, NULL)) continue;
    }
    for (int k = 0; k < 6; k++) {
      int kind = dab_rng_below(&rng, DAB_MUT_COUNT);
      dab_rule before = r;
      char b0[DAB_RULE_TEXT], b1[DAB_RULE_TEXT];
      dab_rule_print(&r, b0, sizeof b0);
      bool ok = dab_rule_mutate_one(&r, kind, &rng);
      tried++;
      dab_rule_print(&r, b1, sizeof b1);
      if (ok) {
        kept[kind]++;
      } else {
        revoked++;
        revoked_same += !strcmp(b0, b1) && !memcmp(&before, &r, sizeof r);
      }
      valid += dab_rule_check(&r, NULL, 0);
      dab_rule back;
      char b2[DAB_RULE_TEXT];
      round += dab_rule_parse(b1, false, &back, NULL) == DAB_OK && dab_rule_print(&back, b2, sizeof b2) > 0 &&
               !strcmp(b1, b2) && dab_rule_check(&back, NULL, 0);
    }
    dab_rule_mutate(&r, 0.5, &rng);
    valid += dab_rule_check(&r, NULL, 0);
    tried++;
    round++;
  }
  TH_CHECK(valid == tried, "valid after mutation: %d of %d", valid, tried);
  TH_CHECK(round == tried, "mutated rules round-trip: %d of %d", round, tried);
  TH_CHECK(revoked_same == revoked && revoked > 0, "revoked mutations leave the rule: %d of %d",
           revoked_same, revoked);
  for (int k = 0; k < DAB_MUT_COUNT; k++)
    TH_CHECK(kept[k] > 20, "mutation %s kept %d times", dab_mut_name[k], kept[k]);
}

static void test_from_state(void) {
  dab_rng rng;
  dab_rng_seed(&rng, 5);
  int n = 0, ok = 0;
  for (int it = 0; it < 500; it++) {
    dab_lineset s;
    random_lines(&g33, dab_rng_unit(&rng), &rng, &s);
    if (dab_ls_count(&s) == g33.nlines) continue;
    dab_sgraph sg;
    dab_sgraph_build(&g33, &s, &sg);
    int16_t legal[DAB_MAX_LINES];
    int nl = dab_legal_moves(&g33, &s, legal);
    int line = legal[dab_rng_below(&rng, nl)];
    dab_rule r;
    dab_status st = dab_rule_from_state(&sg, line, &rng, &r, NULL);
    if (st == DAB_EINPUT) continue; /* the line lies in a closed loop */
    n++;
    /* The copy's node i is the i-th state node that is not a closed loop. */
    int16_t map[DAB_RULE_MAX_NODES];
    int k = 0;
    for (int v = 0; v < sg.nnodes; v++)
      if (!(sg.sym[v] == DAB_RS_L && sg.nb[v][0] == v)) map[k++] = (int16_t)v;
    int got = -1;
    bool m = st == DAB_OK && k == r.nnodes && dab_rule_map_ok(&r, &sg, map) &&
             (got = dab_rule_action_line(&r, &sg, map)) == line && dab_rule_match(&r, &sg, NULL, &rng, NULL, NULL, NULL);
    ok += m;
    if (!m) fprintf(stderr, "  from_state: line %d gave %d (st %d)\n", line, got, st);
  }
  TH_CHECK(n > 300 && ok == n, "rules from states name their line: %d of %d", ok, n);
}

/* ---- Rule files, the economy's books, the Q/f updates ----------------------- */

static void test_files(void) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/dab-test-rules-%ld.rules", (long)getpid());
  dab_ragent a[3];
  memset(a, 0, sizeof a);
  dab_err err;
  for (int i = 0; i < 3; i++) {
    dab_rule_parse(paper_rules[i == 2 ? 6 : i * 3], false, &a[i].rule, &err);
    a[i].q = 1.5 * i, a[i].f = 0.25, a[i].bid = 0.125, a[i].wealth = 2 - i, a[i].fired = 10 + i;
  }
  TH_CHECK(dab_rules_write(path, 3, 3, "erl", "alpha=0.1", a, 3, &err) == DAB_OK, "write: %s", err.msg);
  dab_model_header h;
  dab_ragent *b = NULL;
  int n = 0;
  dab_status st = dab_rules_read(path, "erl", &h, &b, &n, &err);
  char t0[DAB_RULE_TEXT], t1[DAB_RULE_TEXT];
  bool same = st == DAB_OK && n == 3 && h.rows == 3 && !strcmp(h.params, "alpha=0.1");
  for (int i = 0; same && i < 3; i++) {
    dab_rule_print(&a[i].rule, t0, sizeof t0);
    dab_rule_print(&b[i].rule, t1, sizeof t1);
    same = !strcmp(t0, t1) && b[i].q == a[i].q && b[i].wealth == a[i].wealth && b[i].fired == a[i].fired;
  }
  TH_CHECK(same, "rule file read back: %d %s", st, st ? err.msg : "");
  free(b);
  TH_CHECK(dab_rules_read(path, "econ", &h, &b, &n, &err) == DAB_EINPUT, "another kind refused");
  /* Damage: flip one byte anywhere (each refused), truncate, append. */
  FILE *f = fopen(path, "rb");
  char buf[4096];
  size_t len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  int refused = 0, tries = 0;
  for (size_t at = 0; at < len; at += 7) {
    char d[4096];
    memcpy(d, buf, len);
    d[at] ^= 0x04;
    f = fopen(path, "wb");
    fwrite(d, 1, len, f);
    fclose(f);
    tries++;
    st = dab_rules_read(path, NULL, &h, &b, &n, &err);
    refused += st != DAB_OK && b == NULL && !strchr(err.msg, '\n');
    if (!st) free(b);
  }
  TH_CHECK(refused == tries, "damaged files refused: %d of %d", refused, tries);
  size_t cuts[] = {len - 1, len / 2, 10};
  for (int i = 0; i < 3; i++) {
    f = fopen(path, "wb");
    fwrite(buf, 1, cuts[i], f);
    fclose(f);
    TH_CHECK(dab_rules_read(path, NULL, &h, &b, &n, &err) == DAB_ECORRUPT, "truncated at %zu refused", cuts[i]);
  }
  f = fopen(path, "wb");
  fwrite(buf, 1, len, f);
  fputs("x\n", f);
  fclose(f);
  TH_CHECK(dab_rules_read(path, NULL, &h, &b, &n, &err) == DAB_ECORRUPT, "trailing text refused");
  /* A well-checksummed file that claims more rules than it has lines is
  ** refused before its count is allocated (a million rules: ~1 GB). */
  char big[256];
  int blen = snprintf(big, sizeof big, "%s %d\nboard 3x3\nkind erl\nparams \nrules 1000000\n", DAB_RULES_MAGIC,
                      DAB_RULES_VERSION);
  f = fopen(path, "wb");
  fprintf(f, "%sxxh3 %016llx\n", big, (unsigned long long)XXH3_64bits(big, (size_t)blen));
  fclose(f);
  st = dab_rules_read(path, NULL, &h, &b, &n, &err);
  TH_CHECK(st == DAB_ECORRUPT && strstr(err.msg, "fewer lines than its count") && b == NULL, "count past the lines: %d '%s'",
           st, err.msg);
  unlink(path);
}

/* Every game of the economy keeps its books: the agents' wealth is what was
** created plus the rewards, less what the environment took and the dead. */
static void test_econ_books(void) {
  dab_econ_opts o;
  dab_econ_opts_default(&o);
  o.pop = 60;
  dab_econ *e;
  dab_player *opp;
  dab_err err;
  TH_CHECK(dab_econ_new(&o, &e, &err) == DAB_OK && dab_rt_opponent(&g33, &opp, &err) == DAB_OK, "econ new");
  dab_rng rng;
  dab_rng_seed(&rng, 9);
  int ok = 0, games = 300, paid_once = 0;
  double before_total = 0;
  for (int k = 0; k < games; k++) {
    dab_rt_game gm = {.team = 1, .opp_random = 0.7, .prefill = 0.5};
    dab_econ_start_game(e);
    double paid0 = e->paid_out;
    dab_rt_play(&g33, opp, dab_econ_choose, e, &rng, &gm, &err);
    paid_once += e->paid_out - paid0 <= 1.0 + 1e-9; /* only the first bid leaves */
    dab_econ_end_game(e, &gm, &rng);
    double books = e->created + e->rewards - e->paid_out - e->buried;
    ok += fabs(dab_econ_wealth(e) - books) < 1e-6;
    before_total = books;
  }
  TH_CHECK(ok == games && paid_once == games, "econ books balance: %d of %d (%g)", ok, games, before_total);
  TH_CHECK(e->born > 0 && e->n > 0 && e->rewards > 0, "econ grew: %ld born, %d alive", e->born, e->n);
  dab_econ_free(e);
  dab_player_free(opp);
}

/* The Q and f updates, against hand computation. */
static void test_erl_updates(void) {
  dab_erl_opts o;
  dab_erl_opts_default(&o);
  o.alpha = 0.25;
  dab_erl *e;
  dab_err err;
  dab_erl_new(&o, &e, &err);
  e->n = 3;
  for (int i = 0; i < 3; i++) {
    dab_rule_parse("x0n => x0 - n", false, &e->a[i].rule, &err);
    e->a[i].q = i, e->a[i].f = 2;
  }
  e->fired_now[1] = 1;
  dab_rt_game gm = {.diff = 5, .nfire = 1, .fire = {1}};
  dab_rng rng;
  dab_rng_seed(&rng, 1);
  e->games = 1; /* no reproduction after this game */
  dab_erl_end_game(e, &gm, &rng);
  TH_CHECK(e->a[0].q == 0 && e->a[1].q == 0.25 * 5 + 0.75 * 1 && e->a[2].q == 2, "Q update: %g %g %g",
           e->a[0].q, e->a[1].q, e->a[2].q);
  TH_CHECK(e->a[0].f == 0.75 * 2 && e->a[1].f == 1 + 0.75 * 2 && e->a[2].f == 1.5, "f update");
  TH_CHECK(e->a[1].fired == 1 && !e->fired_now[1], "firings counted and reset");
  e->o.control = DAB_ERL_CTRL_COMBINED;
  e->fired_now[2] = 1;
  gm.diff = -3;
  gm.fire[0] = 2;
  dab_erl_end_game(e, &gm, &rng);
  TH_CHECK(e->a[0].q == 0 && e->a[2].q == 0.25 * -3 + 0.75 * 2 && e->a[1].q == 0.75 * 2.0,
           "combined control: %g %g %g", e->a[0].q, e->a[1].q, e->a[2].q);
  TH_CHECK(dab_erl_beta(&o, 0) == 10, "beta const");
  o.schedule = DAB_ERL_TO20;
  TH_CHECK(fabs(dab_erl_beta(&o, 25000) - 0.5) < 1e-12 && dab_erl_beta(&o, 2000000) == 20, "beta to 20");
  o.schedule = DAB_ERL_TO10;
  TH_CHECK(fabs(dab_erl_beta(&o, 25000) - 0.3) < 1e-12 && dab_erl_beta(&o, 2000000) == 10, "beta to 10");
  o.schedule = DAB_ERL_CONST20;
  TH_CHECK(dab_erl_beta(&o, 0) == 20 && dab_erl_beta(&o, 2000000) == 20, "beta const 20");
  dab_erl_free(e);
}

int main(void) {
  dab_geom_init(&g33, 3, 3, NULL);
  test_round_trips();
  test_errors();
  test_positions();
  test_match_vs_brute();
  test_cap();
  test_mutations();
  test_from_state();
  test_files();
  test_econ_books();
  test_erl_updates();
  return TH_REPORT("test_rules");
}
