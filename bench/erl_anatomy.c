/*
** erl_anatomy.c: a trained rule team (dab train erl/econ) under the oracle: where its moves lose boxes, by free lines.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agents/ruleteam.h"
#include "players/player.h"

/*
** Usage: erl_anatomy FILE [GAMES] [SEED] [PICK]
**
** FILE: a rule file, or the checkpoint of a stopped erl run (--stop-at).
** Plays GAMES (default 2000) greedy games of the team against `chain`,
** colours alternating (game k: colour k & 1, stream (SEED, k); SEED
** default 5), and grades every team move by the oracle.  PICK:
**   q          (default) the matching rule of highest Q (bid for econ),
**              a random line when none matches: as erl:FILE plays
**   oracle     the matching rule whose move the oracle values most: the
**              best team the population holds
**   random     a random matching rule
**   eval       replays the trainer's final evaluation (dab_rt_eval:
**              random colour each game) and prints its figures; with the
**              run's seed + 1 and its --eval-games, near the file's eval_*
**              (read back, a rule may draw another line of equal value)
**   roundtrip  writes the rules to a rule file, reads them back, and
**              counts the positions of GAMES random-play games where the
**              greedy choice differs (another rule, or the same rule
**              drawing another line, and whether of another value)
** The game modes print the population (rule sizes, wildcards, Q
** quantiles), the wins by colour, then by the number of free (undrawn)
** lines before the move:
**   moves      the team's moves
**   norule     share with no matching rule (a random line was played)
**   optimal    share of all moves that were optimal
**   lost       mean boxes lost per move; share: of all boxes lost
**   miss_sel   share of rule moves that lost while another matching rule
**              had an optimal move (the choice among the rules failed)
**   miss_lang  share of rule moves that lost while no matching rule had
**              an optimal move (the population holds no right rule here)
**   whole      share of rule moves made by a rule with no wildcard and as
**              many nodes as the state (a copy of one state, up to shape)
**   matching   mean number of matching rules
** then the same by phase (opening: > 16 free lines, middle 9-16, endgame
** <= 8, the arena's thirds on 3x3), and the 15 rules that moved most with
** the worth of the positions they moved in (the score so far plus the
** oracle's value) and how Q follows it.  With ANATOMY_DUMP=PATH every
** rule that moved goes to PATH, one a line: index Q f moves optimal lost
** born text.
*/

#define MAXU 65

typedef struct acc {
  long moves, norule, optimal, lost, rulemoves, miss_sel, miss_lang, whole, matching;
} acc;

static void add(acc *a, const acc *b) {
  a->moves += b->moves, a->norule += b->norule, a->optimal += b->optimal, a->lost += b->lost;
  a->rulemoves += b->rulemoves, a->miss_sel += b->miss_sel, a->miss_lang += b->miss_lang;
  a->whole += b->whole, a->matching += b->matching;
}

static void row(const char *name, const acc *a, long lost_all) {
  double m = a->moves ? (double)a->moves : 1, r = a->rulemoves ? (double)a->rulemoves : 1;
  printf("%-9s %7ld %7.3f %7.3f %7.3f %6.3f %8.3f %9.3f %6.3f %8.1f\n", name, a->moves, (double)a->norule / m,
         (double)a->optimal / m, (double)a->lost / m, lost_all ? (double)a->lost / (double)lost_all : 0,
         (double)a->miss_sel / r, (double)a->miss_lang / r, (double)a->whole / r, (double)a->matching / m);
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static bool whole_state(const dab_rule *r, const dab_sgraph *sg) {
  return r->count[DAB_RS_W] == 0 && r->nnodes == sg->nnodes;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: erl_anatomy FILE [GAMES] [SEED] [q|oracle|random|eval]\n");
    return 2;
  }
  const char *path = argv[1];
  long games = argc > 2 ? atol(argv[2]) : 2000;
  uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 10) : 5;
  const char *pick = argc > 4 ? argv[4] : "q";
  int mode = !strcmp(pick, "oracle") ? 1 : !strcmp(pick, "random") ? 2 : 0;
  dab_err err;
  dab_model_header h;
  dab_ragent *a;
  int n;
  dab_geom g;
  if (dab_rules_read(path, NULL, &h, &a, &n, &err)) {
    /* An erl checkpoint (a stopped run: --stop-at) holds the population. */
    void *payload;
    size_t len;
    long pop = 0;
    if (dab_model_read(path, "erl", &h, &payload, &len, &err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    free(payload);
    if (!dab_rt_param_long(h.params, "pop", &pop) || pop < 1 || dab_geom_init(&g, h.rows, h.cols, &err) ||
        !(a = calloc((size_t)pop, sizeof *a)) || dab_rt_ckpt_read(path, &g, "erl", &h, a, (int)pop, &n, &err)) {
      fprintf(stderr, "%s: not a rule file or erl checkpoint\n", path);
      return 1;
    }
  }
  int kind = !strcmp(h.kind, "erl");
  dab_player_env *env = NULL;
  const dab_oracle *oracle;
  dab_player *opp;
  if (dab_geom_init(&g, h.rows, h.cols, &err) || dab_player_env_new(NULL, &env, &err) ||
      dab_player_env_oracle(env, h.rows, h.cols, &oracle, &err) || dab_rt_opponent(&g, &opp, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  if (!strcmp(pick, "roundtrip")) {
    /* The population as a rule file says it (written, read back) against
    ** the population itself: the positions of GAMES random-play games
    ** where the greedy choice differs, and why (the rule or its line). */
    const char *tmp = "/tmp/erl_anatomy_roundtrip.rules";
    dab_ragent *b;
    int nb;
    dab_model_header h2;
    if (dab_rules_write(tmp, h.rows, h.cols, h.kind, "roundtrip=1", a, n, &err) ||
        dab_rules_read(tmp, NULL, &h2, &b, &nb, &err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    dab_rng rng;
    dab_rng_seed(&rng, seed);
    long pos = 0, other_rule = 0, other_line = 0, qdiff = 0, other_value = 0, value_sum = 0;
    for (long k = 0; k < games; k++) {
      dab_lineset s = {{0}};
      while (dab_ls_count(&s) < g.nlines) {
        dab_sgraph sg;
        dab_sgraph_build(&g, &s, &sg);
        int la, lb, ia = dab_rt_greedy(a, n, kind, NULL, &sg, &la), ib = dab_rt_greedy(b, nb, kind, NULL, &sg, &lb);
        pos++;
        if (ia != ib) other_rule++;
        else if (la != lb) {
          other_line++;
          int16_t mv[64], val[64];
          int nm, va = 0, vb = 0;
          if (dab_oracle_move_values(oracle, dab_ls_word(&s), mv, val, &nm, &err)) return 1;
          for (int i = 0; i < nm; i++) va = mv[i] == la ? val[i] : va, vb = mv[i] == lb ? val[i] : vb;
          other_value += va != vb;
          value_sum += va - vb;
        }
        int16_t legal[64];
        int nl = dab_legal_moves(&g, &s, legal);
        dab_ls_set(&s, legal[dab_rng_below(&rng, nl)]);
      }
    }
    for (int i = 0; i < n; i++) qdiff += a[i].q != b[i].q;
    printf("%ld positions: another rule chosen in %ld, the same rule another line in %ld (of another value in "
           "%ld, the file's line worse by %ld boxes in all); Q changed by the text in %ld of %d rules\n",
           pos, other_rule, other_line, other_value, value_sum, qdiff, n);
    free(b);
    return 0;
  }
  if (!strcmp(pick, "eval")) {
    /* The trainer's final evaluation, replayed on the rules as read back
    ** (random colour, stream (SEED, k)). */
    dab_rt_eval_out ev;
    if (dab_rt_eval(&g, a, n, kind, oracle, (int)games, -1, seed, 1, &ev, &err)) {
      fprintf(stderr, "%s\n", err.msg);
      return 1;
    }
    printf("eval_win=%.4f,eval_draw=%.4f,eval_diff=%.4f,eval_optimal=%.4f,eval_lost=%.4f,activity=%.4f\n", ev.win,
           ev.draw, ev.diff, ev.optimal, ev.lost, ev.activity);
    return 0;
  }
  acc by_u[MAXU];
  memset(by_u, 0, sizeof by_u);
  long *fired = calloc((size_t)n + 1, sizeof *fired), *fopt = calloc((size_t)n + 1, sizeof *fopt);
  long *flost = calloc((size_t)n + 1, sizeof *flost), *fval = calloc((size_t)n + 1, sizeof *fval);
  int *match = malloc(sizeof(int) * ((size_t)n + 1)), *mline = malloc(sizeof(int) * ((size_t)n + 1));
  long wins[2] = {0, 0}, played[2] = {0, 0}, diff[2] = {0, 0};
  for (long k = 0; k < games; k++) {
    dab_rng rng;
    dab_rng_seed2(&rng, seed, (uint64_t)k);
    int team = (int)(k & 1);
    dab_game game;
    dab_game_init(&g, &game);
    while (!dab_game_over(&g, &game)) {
      int line;
      if (game.to_move == team) {
        dab_sgraph sg;
        dab_sgraph_build(&g, &game.lines, &sg);
        int16_t mv[64], val[64];
        int nm;
        if (dab_oracle_move_values(oracle, dab_ls_word(&game.lines), mv, val, &nm, &err)) {
          fprintf(stderr, "%s\n", err.msg);
          return 1;
        }
        int best = -1000, vof[64];
        for (int i = 0; i < 64; i++) vof[i] = -1000;
        for (int i = 0; i < nm; i++) {
          vof[mv[i]] = val[i];
          if (val[i] > best) best = val[i];
        }
        int nmatch = 0, any_opt = 0;
        for (int i = 0; i < n; i++) {
          int l;
          if (!dab_rule_match(&a[i].rule, &sg, NULL, NULL, NULL, NULL, &l) || l < 0) continue;
          match[nmatch] = i, mline[nmatch++] = l;
          any_opt |= vof[l] == best;
        }
        int who = -1;
        if (nmatch) {
          int j = 0;
          for (int i = 1; i < nmatch; i++) {
            if (mode == 0) {
              double vi = kind ? a[match[i]].q : a[match[i]].bid, vj = kind ? a[match[j]].q : a[match[j]].bid;
              if (vi > vj) j = i;
            } else if (mode == 1 && vof[mline[i]] > vof[mline[j]]) {
              j = i;
            }
          }
          if (mode == 2) j = dab_rng_below(&rng, nmatch);
          who = match[j], line = mline[j];
        } else {
          int16_t legal[64];
          int nl = dab_legal_moves(&g, &game.lines, legal);
          line = legal[dab_rng_below(&rng, nl)];
        }
        int u = g.nlines - dab_ls_count(&game.lines);
        acc *c = &by_u[u];
        int lost = best - vof[line];
        c->moves++, c->optimal += lost == 0, c->lost += lost, c->matching += nmatch;
        if (who < 0) {
          c->norule++;
        } else {
          c->rulemoves++;
          c->whole += whole_state(&a[who].rule, &sg);
          if (lost > 0) *(any_opt ? &c->miss_sel : &c->miss_lang) += 1;
          fired[who]++, fopt[who] += lost == 0, flost[who] += lost;
          fval[who] += game.score[team] - game.score[1 - team] + best;
        }
      } else {
        line = dab_player_move(opp, &game, &rng);
      }
      dab_game_play(&g, &game, line);
    }
    int d = game.score[team] - game.score[1 - team];
    played[team]++, wins[team] += d > 0, diff[team] += d;
  }
  acc all = {0}, ph[3];
  memset(ph, 0, sizeof ph);
  for (int u = 0; u < MAXU; u++) {
    add(&all, &by_u[u]);
    add(&ph[u > 2 * g.nlines / 3 ? 0 : u > g.nlines / 3 ? 1 : 2], &by_u[u]);
  }
  printf("%s: %d rules (%s), %ld greedy games against chain, pick %s, seed %llu\n", path, n, h.kind, games, pick,
         (unsigned long long)seed);
  {
    /* The population: rule sizes, wildcards, Q (or bid) quantiles. */
    double nodes = 0, wild = 0, nowild = 0, *qs = malloc(sizeof(double) * ((size_t)n + 1));
    for (int i = 0; i < n; i++) {
      nodes += a[i].rule.nnodes, wild += a[i].rule.count[DAB_RS_W], nowild += a[i].rule.count[DAB_RS_W] == 0;
      qs[i] = kind ? a[i].q : a[i].bid;
    }
    qsort(qs, (size_t)n, sizeof *qs, cmp_double);
    double dn = n ? (double)n : 1;
    if (n)
      printf("population: nodes/rule %.1f, w/rule %.2f, rules without w %.3f; %s min %.2f q10 %.2f median %.2f q90 "
             "%.2f max %.2f\n",
             nodes / dn, wild / dn, nowild / dn, kind ? "Q" : "bid", qs[0], qs[n / 10], qs[n / 2], qs[n * 9 / 10],
             qs[n - 1]);
    free(qs);
  }
  printf("wins: first %.4f (%ld games, diff %.3f), second %.4f (%ld games, diff %.3f), both %.4f\n",
         played[0] ? (double)wins[0] / (double)played[0] : 0, played[0],
         played[0] ? (double)diff[0] / (double)played[0] : 0, played[1] ? (double)wins[1] / (double)played[1] : 0,
         played[1], played[1] ? (double)diff[1] / (double)played[1] : 0,
         (double)(wins[0] + wins[1]) / (double)(games ? games : 1));
  printf("%-9s %7s %7s %7s %7s %6s %8s %9s %6s %8s\n", "free", "moves", "norule", "optimal", "lost", "share",
         "miss_sel", "miss_lang", "whole", "matching");
  char name[16];
  for (int u = MAXU - 1; u >= 1; u--) {
    if (!by_u[u].moves) continue;
    snprintf(name, sizeof name, "%d", u);
    row(name, &by_u[u], all.lost);
  }
  row("opening", &ph[0], all.lost);
  row("middle", &ph[1], all.lost);
  row("endgame", &ph[2], all.lost);
  row("all", &all, all.lost);
  /* The rules that moved, most used first.  value: the mean result the
  ** positions they moved in were worth under optimal play (the score so far
  ** plus the oracle's value); how Q follows it and the moves' quality. */
  int used = 0;
  double sx = 0, sv = 0, sl = 0, sxx = 0, svv = 0, sll = 0, sxv = 0, sxl = 0, m20 = 0;
  for (int i = 0; i < n; i++) {
    used += fired[i] > 0;
    if (fired[i] < 20) continue;
    double x = kind ? a[i].q : a[i].bid, v = (double)fval[i] / (double)fired[i];
    double l = (double)flost[i] / (double)fired[i];
    m20++, sx += x, sv += v, sl += l, sxx += x * x, svv += v * v, sll += l * l, sxv += x * v, sxl += x * l;
  }
  double cxv = 0, cxl = 0;
  if (m20 > 2) {
    double vx = sxx - sx * sx / m20, vv = svv - sv * sv / m20, vl = sll - sl * sl / m20;
    cxv = vx > 0 && vv > 0 ? (sxv - sx * sv / m20) / sqrt(vx * vv) : 0;
    cxl = vx > 0 && vl > 0 ? (sxl - sx * sl / m20) / sqrt(vx * vl) : 0;
  }
  printf("rules that moved: %d of %d; over the %.0f that moved >= 20 times, correlation of %s with the value of "
         "their positions %.3f, with their boxes lost per move %.3f\n",
         used, n, m20, kind ? "Q" : "bid", cxv, cxl);
  printf("%5s %8s %8s %7s %7s %6s %6s %7s  %s\n", "rule", kind ? "Q" : "bid", kind ? "f" : "wealth", "moves",
         "optimal", "lost", "value", "born", "text");
  const char *dump = getenv("ANATOMY_DUMP");
  FILE *df = dump ? fopen(dump, "w") : NULL;
  for (int i = 0; df && i < n; i++) {
    if (!fired[i]) continue;
    char text[DAB_RULE_TEXT];
    dab_rule_print(&a[i].rule, text, sizeof text);
    fprintf(df, "%d %.6f %.6f %ld %ld %ld %ld %s\n", i, kind ? a[i].q : a[i].bid, kind ? a[i].f : a[i].wealth, fired[i],
            fopt[i], flost[i], a[i].born, text);
  }
  if (df) fclose(df);
  for (int shown = 0; shown < 15; shown++) {
    int b = -1;
    for (int i = 0; i < n; i++)
      if (fired[i] > 0 && (b < 0 || fired[i] > fired[b])) b = i;
    if (b < 0) break;
    char text[DAB_RULE_TEXT];
    dab_rule_print(&a[b].rule, text, sizeof text);
    printf("%5d %8.3f %8.3f %7ld %7.3f %6.3f %6.2f %7ld  %.160s\n", b, kind ? a[b].q : a[b].bid,
           kind ? a[b].f : a[b].wealth, fired[b], (double)fopt[b] / (double)fired[b],
           (double)flost[b] / (double)fired[b], (double)fval[b] / (double)fired[b], a[b].born, text);
    fired[b] = -fired[b];
  }
  free(fired), free(fopt), free(flost), free(fval), free(match), free(mline), free(a);
  dab_player_free(opp);
  dab_player_env_free(env);
  return 0;
}
