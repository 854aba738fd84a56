/*
** test_game.c: geometry, rules, position text and the Strings-and-Coins view.
** See Copyright Notice in README.md
*/
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "game/postext.h"
#include "game/sc.h"
#include "tests/testhelp.h"

/* Line ids must follow OpenSpiel's formulas exactly. */
static void test_geometry(void) {
  int bad = 0;
  for (int R = 1; R <= DAB_MAX_SIDE; R++)
    for (int C = 1; C <= DAB_MAX_SIDE; C++) {
      dab_geom g;
      if (dab_geom_init(&g, R, C, NULL)) { bad++; continue; }
      if (g.nlines != 2 * R * C + R + C) bad++;
      for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) {
          int b = r * C + c;
          int want[4] = {r * C + c, (r + 1) * C + c, (R + 1) * C + r * (C + 1) + c,
                         (R + 1) * C + r * (C + 1) + c + 1};
          for (int s = 0; s < 4; s++) {
            if (g.box_line[b][s] != want[s]) bad++;
            int m = want[s];
            if (g.line_box[m][0] != b && g.line_box[m][1] != b) bad++;
          }
        }
      int border = 0;
      for (int m = 0; m < g.nlines; m++) border += g.line_box[m][1] < 0;
      if (border != 2 * (R + C)) bad++;
    }
  TH_CHECK(bad == 0, "geometry: %d mismatches with the OpenSpiel line formulas", bad);
  dab_err err;
  TH_CHECK(dab_geom_init(&(dab_geom){0}, 0, 3, &err) == DAB_EBOARD, "0x3 accepted");
  TH_CHECK(dab_geom_init(&(dab_geom){0}, 17, 3, &err) == DAB_EBOARD, "17x3 accepted");
}

static void test_rules(void) {
  dab_geom g;
  dab_geom_init(&g, 2, 2, NULL);
  dab_game game;
  dab_game_init(&g, &game);
  /* Box 0 of 2x2 is lines 0 (top), 2 (bottom), 6 (left), 7 (right). */
  TH_CHECK(dab_game_play(&g, &game, 0) == 0 && game.to_move == 1, "first move passes the turn");
  TH_CHECK(dab_game_play(&g, &game, 6) == 0 && game.to_move == 0, "second move passes the turn");
  TH_CHECK(dab_game_play(&g, &game, 2) == 0 && game.to_move == 1, "third side passes the turn");
  TH_CHECK(dab_completes(&g, &game.lines, 7) == 1, "line 7 completes box 0");
  TH_CHECK(dab_game_play(&g, &game, 7) == 1 && game.to_move == 1 && game.score[1] == 1 &&
               game.owner[0] == 1,
           "capture keeps the turn and scores");
  TH_CHECK(dab_game_play(&g, &game, 7) == -1 && game.nmoves == 4, "drawn line rejected, nothing changes");
  TH_CHECK(dab_game_play(&g, &game, 12) == -1, "line 12 does not exist on 2x2");
  /* A double-cross: one line completing two boxes. */
  dab_parsed p;
  TH_CHECK(dab_parse_position("1x2@0,1,2,3,4,6", &p, NULL) == DAB_OK, "parse 1x2 game");
  TH_CHECK(dab_completes(&p.geom, &p.game.lines, 5) == 2, "middle line completes both boxes");
  int before = p.game.to_move;
  TH_CHECK(dab_game_play(&p.geom, &p.game, 5) == 2 && p.game.score[before] == 2 &&
               dab_game_over(&p.geom, &p.game),
           "double capture scores two and ends the game");
  /* Fast path agrees with the multi-word rules on random positions. */
  srand(7);
  int bad = 0;
  for (int trial = 0; trial < 20000; trial++) {
    dab_geom_init(&g, 1 + rand() % 5, 1 + rand() % 5, NULL);
    if (!dab_geom_fast(&g)) continue;
    uint64_t w = ((uint64_t)rand() << 32 | (uint64_t)rand() << 1 | (uint64_t)(rand() & 1)) & g.all_lines;
    dab_lineset s = dab_ls_from_word(w);
    uint64_t three = 0;
    for (int b = 0; b < g.nboxes; b++) {
      if (dab_box_sides(&g, &s, b) != dab64_sides(&g, w, b)) bad++;
      if (dab_box_sides(&g, &s, b) == 3) three |= 1ull << b;
    }
    if (three != dab64_three_sided(&g, w)) bad++;
    for (int m = 0; m < g.nlines; m++)
      if (!(w >> m & 1) && dab_completes(&g, &s, m) != dab64_completes(&g, w, m)) bad++;
  }
  TH_CHECK(bad == 0, "fast path disagrees with the line-set rules %d times", bad);
}

static void test_parse_good(void) {
  dab_parsed p;
  TH_CHECK(dab_parse_position("3x3", &p, NULL) == DAB_OK && p.geom.nlines == 24 &&
               dab_ls_count(&p.game.lines) == 0,
           "empty 3x3");
  TH_CHECK(dab_parse_position("  2x2:101000000001\n", &p, NULL) == DAB_OK &&
               dab_ls_has(&p.game.lines, 0) && dab_ls_has(&p.game.lines, 2) &&
               dab_ls_has(&p.game.lines, 11) && dab_ls_count(&p.game.lines) == 3,
           "DBN with blanks around it");
  TH_CHECK(dab_parse_position("2x2@0,5,11", &p, NULL) == DAB_OK && p.has_history &&
               dab_ls_count(&p.game.lines) == 3 && p.game.to_move == 1,
           "move list");
  {
    dab_err e;
    TH_CHECK(dab_parse_position("2x2@", &p, &e) == DAB_EINPUT && strstr(e.msg, "column 5") &&
                 strstr(e.msg, "'2x2'"),
             "an empty move list is refused, naming the empty board's spelling: %s", e.msg);
  }
  TH_CHECK(dab_parse_position("12x12", &p, NULL) == DAB_OK && p.geom.nlines == 312, "12x12");
  /* DBN round trip on random positions of a large board. */
  dab_geom_init(&p.geom, 7, 9, NULL);
  char buf[DAB_MAX_LINES + 16];
  int bad = 0;
  for (int t = 0; t < 200; t++) {
    dab_lineset s = {{0}};
    for (int m = 0; m < p.geom.nlines; m++)
      if (rand() & 1) dab_ls_set(&s, m);
    dab_parsed q;
    if (!dab_format_dbn(&p.geom, &s, buf, sizeof buf) || dab_parse_position(buf, &q, NULL) ||
        memcmp(&q.game.lines, &s, sizeof s))
      bad++;
  }
  TH_CHECK(bad == 0, "DBN round trip failed %d times", bad);
  TH_CHECK(dab_format_dbn(&p.geom, &p.game.lines, buf, 10) == NULL, "small buffer refused");
}

/* Each bad text must fail with DAB_EINPUT/EBOARD and a message naming the
** problem (the expected fragment). */
static void test_parse_bad(void) {
  static const struct {
    const char *text, *fragment;
    dab_status code;
  } cases[] = {
      {"", "empty position", DAB_EINPUT},
      {"3", "expected 'x'", DAB_EINPUT},
      {"x3", "column 1", DAB_EINPUT},
      {"3x", "column count", DAB_EINPUT},
      {"0x3", "1..16", DAB_EBOARD},
      {"3x17", "1..16", DAB_EBOARD},
      {"3x3:0101", "needs 24", DAB_EINPUT},
      {"3x3:000000000000000000000000000", "has 27 digits", DAB_EINPUT},
      {"2x2:00000000000x", "column 16", DAB_EINPUT},
      {"2x2@1,1", "already drawn", DAB_EINPUT},
      {"2x2@12", "does not exist", DAB_EINPUT},
      {"2x2@1,,2", "column 7", DAB_EINPUT},
      {"2x2@1;2", "expected ','", DAB_EINPUT},
      {"2x2#0", "expected ':' (DBN) or '@'", DAB_EINPUT},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    dab_parsed p;
    dab_err err = {{0}};
    dab_status st = dab_parse_position(cases[i].text, &p, &err);
    TH_CHECK(st == cases[i].code && strstr(err.msg, cases[i].fragment) && !strchr(err.msg, '\n'),
             "'%s': got status %d, message '%s'", cases[i].text, st, err.msg);
  }
}

static void test_diagram(void) {
  dab_parsed p;
  dab_parse_position("1x2@0,1,2,3,4,6", &p, NULL);
  char buf[256];
  size_t n = dab_diagram(&p.geom, &p.game, false, buf, sizeof buf);
  TH_CHECK(n > 0 && !strcmp(buf, "+---+---+\n|       |\n+---+---+\n"), "diagram:\n%s", buf);
  dab_game_play(&p.geom, &p.game, 5);
  n = dab_diagram(&p.geom, &p.game, false, buf, sizeof buf);
  TH_CHECK(n > 0 && !strcmp(buf, "+---+---+\n| A | A |\n+---+---+\n"), "diagram:\n%s", buf);
  TH_CHECK(dab_diagram(&p.geom, &p.game, true, buf, 8) == 0 && strlen(buf) == 7,
           "overflow reported and truncated");
}

/* Builds a position from a list of undrawn lines (all others drawn). */
static dab_lineset all_but(const dab_geom *g, const int *undrawn, int n) {
  dab_lineset s = {{0}};
  for (int m = 0; m < g->nlines; m++) dab_ls_set(&s, m);
  for (int i = 0; i < n; i++) dab_ls_clear(&s, undrawn[i]);
  return s;
}

static void test_sc(void) {
  dab_geom g;
  dab_sc_view v;
  int16_t ch[DAB_MAX_BOXES], lp[DAB_MAX_BOXES];
  int nc, nl;
  /* 1x3 with only the verticals undrawn: ground-a-b-c-ground, a 3-chain. */
  dab_geom_init(&g, 1, 3, NULL);
  int chain3[] = {6, 7, 8, 9};
  dab_lineset s = all_but(&g, chain3, 4);
  dab_sc_analyze(&g, &s, &v);
  TH_CHECK(v.ncomp == 1 && v.comp[0].kind == DAB_SC_CHAIN && v.comp[0].coins == 3 &&
               v.comp[0].ground == 2 && dab_sc_is_sle(&v, false),
           "1x3 verticals make one 3-chain (ncomp %d)", v.ncomp);
  TH_CHECK(v.nseg == 1 && v.seg[0].length == 3 && v.seg[0].end[0] == DAB_END_GROUND &&
               v.seg[0].end[1] == DAB_END_GROUND,
           "one segment of 3 from ground to ground");
  /* 2x2 with the four interior lines undrawn: a 4-loop. */
  dab_geom_init(&g, 2, 2, NULL);
  int loop4[] = {2, 3, 7, 10};
  s = all_but(&g, loop4, 4);
  dab_sc_analyze(&g, &s, &v);
  TH_CHECK(v.ncomp == 1 && v.comp[0].kind == DAB_SC_LOOP && v.comp[0].coins == 4 &&
               dab_sc_is_sle(&v, false) && v.nseg == 1 && v.seg[0].end[0] == DAB_END_NONE,
           "2x2 interior is a 4-loop");
  TH_CHECK(dab_sc_multiset(&v, ch, &nc, lp, &nl) == 0 && nc == 0 && nl == 1 && lp[0] == 4,
           "multiset of a 4-loop");
  /* Empty 2x2: one component, four junction coins (degree 4 or 3?). */
  s = (dab_lineset){{0}};
  dab_sc_analyze(&g, &s, &v);
  TH_CHECK(v.ncomp == 1 && v.comp[0].kind == DAB_SC_OTHER && v.comp[0].junctions == 4 &&
               v.comp[0].strings == 12 && !dab_sc_is_sle(&v, true),
           "empty 2x2: one component, 4 junctions, 12 strings");
  /* A capturable box: 1x2 with lines 0, 2, 4 drawn: box 0 has one line left. */
  dab_parsed p;
  dab_parse_position("1x2:1010100", &p, NULL);
  dab_sc_analyze(&p.geom, &p.game.lines, &v);
  TH_CHECK(v.ncapturable == 1 && v.capturable[0] == 0 && !dab_sc_is_sle(&v, true),
           "1x2 box 0 is capturable");
  /* 1x3 with lines 0,1,6,8,9 undrawn: box 0 alone (a 1-chain), boxes 1-2 a 2-chain. */
  dab_parse_position("1x3:0011110100", &p, NULL);
  dab_sc_analyze(&p.geom, &p.game.lines, &v);
  dab_sc_multiset(&v, ch, &nc, lp, &nl);
  TH_CHECK(dab_sc_is_sle(&v, true) && !dab_sc_is_sle(&v, false) && nc == 2 && ch[0] == 1 &&
               ch[1] == 2,
           "1x3 split into a 1-chain and a 2-chain (extended SLE)");
  /* Invariant on random positions: degrees sum = 2*interior strings + ground strings. */
  int bad = 0;
  for (int t = 0; t < 3000; t++) {
    dab_geom_init(&g, 1 + rand() % 8, 1 + rand() % 8, NULL);
    s = (dab_lineset){{0}};
    for (int m = 0; m < g.nlines; m++)
      if (rand() % 3) dab_ls_set(&s, m);
    dab_sc_analyze(&g, &s, &v);
    int coins = 0, deg = 0, comp_coins = 0, comp_strings = 0, comp_ground = 0;
    for (int b = 0; b < g.nboxes; b++) {
      coins += v.degree[b] > 0;
      deg += v.degree[b];
    }
    for (int i = 0; i < v.ncomp; i++) {
      comp_coins += v.comp[i].coins;
      comp_strings += v.comp[i].strings;
      comp_ground += v.comp[i].ground;
    }
    int undrawn_touching = 0;
    for (int m = 0; m < g.nlines; m++) undrawn_touching += !dab_ls_has(&s, m);
    if (coins != comp_coins || comp_strings != undrawn_touching ||
        deg != 2 * (comp_strings - comp_ground) + comp_ground)
      bad++;
    int seg_coins = 0, deg2 = 0;
    for (int i = 0; i < v.nseg; i++) seg_coins += v.seg[i].length;
    for (int b = 0; b < g.nboxes; b++) deg2 += v.degree[b] == 2;
    if (seg_coins != deg2) bad++;
  }
  TH_CHECK(bad == 0, "S&C counting invariants broken %d times", bad);
}

/* DAB_ASSERT (game/dabassert.h): the checking builds (-DDAB_CHECKS: make
** SAN=1 and SAN=thread) abort on a broken invariant; the release build
** compiles the check out.  A game whose scores exceed its boxes breaks
** dab_game_play's; the call runs in a child so the abort is observed. */
static void test_assertions(void) {
  dab_geom g;
  dab_err err;
  dab_geom_init(&g, 1, 1, &err);
  dab_game game;
  dab_game_init(&g, &game);
  game.score[0] = 5; /* impossible on one box */
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", 0);  /* the checking build's message, not the runner's */
    if (devnull >= 0) dup2(devnull, 2);
    dab_game_play(&g, &game, 0);
    _exit(0);
  }
  int status = 0;
  TH_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "assertions: the child ran");
#ifdef DAB_CHECKS
  TH_CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
           "assertions: a checking build aborts on a broken invariant (status %d)", status);
#else
  TH_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "assertions: the release build compiles DAB_ASSERT out (status %d)", status);
#endif
}

int main(void) {
  test_geometry();
  test_assertions();
  test_rules();
  test_parse_good();
  test_parse_bad();
  test_diagram();
  test_sc();
  return TH_REPORT("test_game");
}
