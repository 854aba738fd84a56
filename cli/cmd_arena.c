/*
** cmd_arena.c: `dab arena`: matches between two players, both colours,
** in parallel, with results scored against the oracle where it covers the
** board (or, with --oracle-search, against exact search where it proves a
** move).
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "game/clock.h"
#include "cli/cliutil.h"
#include "cli/commands.h"
#include "oracle/oracle.h"
#include "agents/agent.h"
#include "players/arena.h"

/* The table of --oracle-search's solver. */
#define ARENA_SEARCH_HASH (512ull << 20)

static const char usage[] =
    "usage: dab arena --p1 SPEC --p2 SPEC [--board RxC] [--games N] [--threads N]\n"
    "                 [--seed S] [--start POS|random:FRACTION] [--tb DIR] [--no-oracle]\n"
    "                 [--oracle-lines N] [--oracle-search NODES]\n"
    "                 [--json] [--csv FILE] [--svg FILE]\n\n"
    "Plays N games between two players, each player first in half of them (games\n"
    "2k and 2k+1 share a start and swap colours).  Reports wins, losses and ties per\n"
    "player, the mean margin (points of p1 minus p2, per game) with a 95% interval,\n"
    "and time per move.  When an oracle covers the board (3x3 and smaller in memory,\n"
    "bigger boards from --tb tablebases), every move is scored against perfect play:\n"
    "share of optimal moves, mean boxes lost per move, and blunders (moves losing\n"
    "value) by phase (opening: < 1/3 of the lines drawn, middle, endgame: >= 2/3).\n\n"
    "  --start POS          every game starts from POS (RxC, RxC:DBN, RxC@moves)\n"
    "  --start random:F     each pair of games starts from its own random position\n"
    "                       with a fraction F of the lines drawn, no third sides\n"
    "  --seed S             games are reproducible from S whatever the thread count\n"
    "                       (players with a time limit excepted); default 1\n"
    "  --oracle-lines N     solve boards of up to N lines in memory for the metrics\n"
    "                       and oracle players (default 24 = 3x3; 31 = 3x4: 2 GiB)\n"
    "  --oracle-search N    boards no table covers (4x4, 3x5, ...): score the moves\n"
    "                       whose values exact search proves within N nodes (later\n"
    "                       moves; a 512 MiB table, one query at a time)\n"
    "  --csv FILE           one row per game;  --svg FILE  a plot of the results\n\n"
    "players:\n";

/* ---- What the printers need -------------------------------------------- */

typedef struct match {
  const dab_geom *g;
  const char *spec[2];
  char canonical[2][160];     /* the players' names with every option */
  bool oracle;
  uint64_t search_nodes;      /* --oracle-search: metrics from search, N nodes a move */
  int games;
  uint64_t seed;
  const dab_game_record *res;
} match;

typedef dab_match_summary summary;
typedef dab_side_stats side_stats;
typedef dab_game_record game_result;
enum { PHASES = DAB_PHASES };

static void json_escape(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void print_json(const match *mt, const summary *s, const char *start_text, double secs,
                       bool interrupted) {
  printf("{\"rows\":%d,\"cols\":%d,\"games\":%d,\"games_requested\":%d,\"seed\":%llu,\"start\":",
         mt->g->rows, mt->g->cols, s->games, mt->games, (unsigned long long)mt->seed);
  json_escape(stdout, start_text);
  printf(",\"ties\":%d,\"oracle\":%s,\"seconds\":%.3f,\"interrupted\":%s", s->ties,
         mt->oracle ? "true" : "false", secs, interrupted ? "true" : "false");
  if (mt->oracle) printf(",\"oracle_source\":\"%s\"", mt->search_nodes ? "search" : "table");
  if (mt->search_nodes) printf(",\"oracle_search_nodes\":%llu", (unsigned long long)mt->search_nodes);
  static const char *phase_name[PHASES] = {"opening", "middle", "endgame"};
  for (int p = 0; p < 2; p++) {
    const side_stats *ss = &s->side[p];
    double sign = p ? -1 : 1;
    /* Wilson score 95% interval of the win rate: unlike the normal
    ** approximation it stays inside [0,1] at 0% and 100% win rates. */
    double wr = s->games ? (double)s->wins[p] / s->games : 0;
    double n = s->games ? s->games : 1, z2 = 1.96 * 1.96;
    double centre = (wr + z2 / (2 * n)) / (1 + z2 / n);
    double half = 1.96 * sqrt(wr * (1 - wr) / n + z2 / (4 * n * n)) / (1 + z2 / n);
    double wlo = s->games ? centre - half : 0, whi = s->games ? centre + half : 0;
    printf(",\"p%d\":{\"name\":", p + 1);
    json_escape(stdout, mt->spec[p]);
    printf(",\"player\":");
    json_escape(stdout, mt->canonical[p]);
    printf(",\"wins\":%d,\"losses\":%d,\"ties\":%d,\"win_rate\":%.4f,\"margin\":%.4f,"
           "\"margin_ci95\":[%.4f,%.4f],\"win_rate_ci95\":[%.4f,%.4f],\"moves\":%ld,"
           "\"ms_per_move\":%.6f",
           s->wins[p], s->wins[p ^ 1], s->ties, wr, (sign * s->margin + 0.0), (sign * s->margin + 0.0) - s->margin_ci,
           (sign * s->margin + 0.0) + s->margin_ci, wlo, whi, ss->moves,
           ss->moves ? 1e3 * ss->seconds / (double)ss->moves : 0);
    if (mt->oracle) {
      printf(",\"optimal_rate\":%.4f,\"boxes_lost_per_move\":%.4f,\"scored_moves\":%ld,\"blunders\":{",
             ss->scored ? (double)ss->optimal / (double)ss->scored : 0,
             ss->scored ? (double)ss->lost / (double)ss->scored : 0, ss->scored);
      for (int k = 0; k < PHASES; k++)
        printf("%s\"%s\":%ld", k ? "," : "", phase_name[k], ss->blunders[k]);
      printf("},\"phase_moves\":{");
      for (int k = 0; k < PHASES; k++)
        printf("%s\"%s\":%ld", k ? "," : "", phase_name[k], ss->phase_moves[k]);
      printf("}");
    }
    printf("}");
  }
  printf("}\n");
}

static void print_text(const match *mt, const summary *s, const char *start_text, double secs,
                       bool interrupted) {
  printf("arena %dx%d, start %s, %d games%s, seed %llu, %.1f s\n", mt->g->rows, mt->g->cols,
         start_text, s->games, interrupted ? " (interrupted)" : "", (unsigned long long)mt->seed, secs);
  for (int p = 0; p < 2; p++) {
    const side_stats *ss = &s->side[p];
    double sign = p ? -1 : 1;
    printf("p%d %-34s wins %5d  losses %5d  ties %5d  (%.1f%% wins)  margin %+.2f +- %.2f  %.4f ms/move\n",
           p + 1, mt->spec[p], s->wins[p], s->wins[p ^ 1], s->ties,
           s->games ? 100.0 * s->wins[p] / s->games : 0, (sign * s->margin + 0.0), s->margin_ci,
           ss->moves ? 1e3 * ss->seconds / (double)ss->moves : 0);
  }
  if (!mt->oracle) {
    printf("oracle metrics: none (no oracle covers %dx%d; tablebases via --tb, or --oracle-search)\n",
           mt->g->rows, mt->g->cols);
    return;
  }
  if (mt->search_nodes)
    printf("oracle metrics (the moves exact search values within %llu nodes: %ld of p1's %ld, "
           "%ld of p2's %ld):\n",
           (unsigned long long)mt->search_nodes, s->side[0].scored, s->side[0].moves, s->side[1].scored,
           s->side[1].moves);
  else printf("oracle metrics (every move scored against perfect play):\n");
  for (int p = 0; p < 2; p++) {
    const side_stats *ss = &s->side[p];
    printf("p%d optimal %5.1f%%  boxes lost/move %.3f  blunders opening %ld/%ld  middle %ld/%ld  "
           "endgame %ld/%ld\n",
           p + 1, ss->scored ? 100.0 * (double)ss->optimal / (double)ss->scored : 0,
           ss->scored ? (double)ss->lost / (double)ss->scored : 0, ss->blunders[0], ss->phase_moves[0],
           ss->blunders[1], ss->phase_moves[1], ss->blunders[2], ss->phase_moves[2]);
  }
}

/* The --csv rows of one chunk of games (game numbers from first on). */
static void write_csv_rows(FILE *f, const match *mt, const game_result *res, int n, int first) {
  static char dbn[DAB_MAX_LINES + 16];
  for (int i = 0; i < n; i++) {
    const game_result *r = &res[i];
    if (!r->done) continue;
    dab_format_dbn(mt->g, &r->start, dbn, sizeof dbn);
    fprintf(f, "%d,%d,%d,%d,%d,%ld,%ld,%.6f,%.6f,%ld,%ld,%ld,%ld,%s\n", first + i, r->p1_first,
            r->start_lines, r->score[0], r->score[1], r->side[0].moves, r->side[1].moves,
            r->side[0].seconds, r->side[1].seconds, r->side[0].optimal, r->side[0].scored,
            r->side[1].optimal, r->side[1].scored, dbn);
  }
}

/* Games are played and summarized ARENA_CHUNK at a time (even: pairs
** share a start), so --games is bounded by time, not memory. */
#define ARENA_CHUNK 65536

/* Progress over the whole match while one chunk runs. */
typedef struct chunk_progress {
  uint64_t before, total;
} chunk_progress;

static void progress_chunk(void *ctx, const dab_progress *p) {
  const chunk_progress *c = ctx;
  dab_progress q = *p;
  q.done += c->before;
  q.total = c->total;
  cli_progress(NULL, &q);
}

/* Escapes <, > and & for SVG text. */
static void svg_text(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '<') fputs("&lt;", f);
    else if (*s == '>') fputs("&gt;", f);
    else if (*s == '&') fputs("&amp;", f);
    else fputc(*s, f);
  }
}

/* A plot: stacked bars of wins/ties/losses per player, and the margin of
** each player with its 95% interval on a symmetric axis. */
static bool write_svg(const match *mt, const summary *s, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return false;
  int W = 640, H = 300;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
             "font-family=\"sans-serif\" font-size=\"12\">\n", W, H);
  fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
  fprintf(f, "<text x=\"10\" y=\"20\" font-size=\"14\">arena %dx%d, %d games</text>\n", mt->g->rows,
          mt->g->cols, s->games);
  /* Win rate bars. */
  fprintf(f, "<text x=\"10\" y=\"50\">win / tie / loss rate</text>\n");
  for (int p = 0; p < 2; p++) {
    double y = 65 + p * 40, x0 = 160, bw = 440;
    double gw = s->games ? (double)s->wins[p] / s->games : 0;
    double gt = s->games ? (double)s->ties / s->games : 0;
    fprintf(f, "<text x=\"10\" y=\"%.0f\">p%d ", y + 16, p + 1);
    char nm[48];
    snprintf(nm, sizeof nm, "%.20s", mt->spec[p]);
    svg_text(f, nm);
    fprintf(f, "</text>\n");
    fprintf(f, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"24\" fill=\"#2e7d32\"/>\n", x0, y, bw * gw);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"24\" fill=\"#9e9e9e\"/>\n", x0 + bw * gw, y, bw * gt);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"24\" fill=\"#c62828\"/>\n",
            x0 + bw * (gw + gt), y, bw * (1 - gw - gt));
    fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" fill=\"white\">%.1f%%</text>\n", x0 + 4, y + 16, 100 * gw);
  }
  /* Margin with interval. */
  double lim = fabs(s->margin) + s->margin_ci;
  lim = lim < 1 ? 1 : ceil(lim);
  double cx = 380, half = 220, y = 200;
  fprintf(f, "<text x=\"10\" y=\"175\">margin per game (p1 - p2), 95%% interval</text>\n");
  fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", cx - half, y + 20, cx + half, y + 20);
  fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#777\" stroke-dasharray=\"3,3\"/>\n", cx, y - 10, cx, y + 25);
  fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%+.0f</text>\n", cx - half, y + 36, -lim);
  fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">0</text>\n", cx, y + 36);
  fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%+.0f</text>\n", cx + half, y + 36, lim);
  double xm = cx + half * s->margin / lim, xl = cx + half * (s->margin - s->margin_ci) / lim,
         xh = cx + half * (s->margin + s->margin_ci) / lim;
  fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#1565c0\" stroke-width=\"3\"/>\n", xl, y, xh, y);
  fprintf(f, "<circle cx=\"%.1f\" cy=\"%.0f\" r=\"5\" fill=\"#1565c0\"/>\n", xm, y);
  fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%+.2f +- %.2f</text>\n", xm, y - 10, s->margin, s->margin_ci);
  fprintf(f, "<text x=\"10\" y=\"%d\" fill=\"#555\">green: wins, grey: ties, red: losses</text>\n", H - 20);
  fprintf(f, "</svg>\n");
  return fclose(f) == 0;
}

/* ---- The command ---------------------------------------------------------- */

/* Parses a --seed value (0 allowed).  RETURN: 0, or CLI_USAGE after an error. */
static int parse_seed(const char *cmd, const char *text, long *seed) {
  if (!text) return 0;
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (!*text || *end || errno || v < 0) {
    fprintf(stderr, "dab %s: --seed needs a whole number >= 0, got '%s'\n", cmd, text);
    return CLI_USAGE;
  }
  *seed = v;
  return 0;
}

int dab_cmd_arena(int argc, char **argv) {
  static char help[sizeof usage + 4096];
  snprintf(help, sizeof help, "%s%s", usage, dab_player_help);
  const char *board = NULL, *spec[2] = {NULL, NULL}, *start = NULL, *csv = NULL, *svg = NULL,
             *tb = NULL, *seed_text = NULL;
  long games = 100, threads = cli_cores(), seed = 1, oracle_lines = 0, oracle_search = 0;
  bool json = false, no_oracle = false;
  const cli_opt table[] = {{"--board", CLI_TEXT, &board, 0},
                           {"--p1", CLI_TEXT, &spec[0], 0},
                           {"--p2", CLI_TEXT, &spec[1], 0},
                           {"--games", CLI_COUNT, &games, 100000000},
                           {"--threads", CLI_COUNT, &threads, 256},
                           {"--seed", CLI_TEXT, &seed_text, 0},
                           {"--start", CLI_TEXT, &start, 0},
                           {"--tb", CLI_TEXT, &tb, 0},
                           {"--oracle-lines", CLI_COUNT, &oracle_lines, 40},
                           {"--oracle-search", CLI_COUNT, &oracle_search, 1000000000000L},
                           {"--no-oracle", CLI_FLAG, &no_oracle, 0},
                           {"--json", CLI_FLAG, &json, 0},
                           {"--csv", CLI_TEXT, &csv, 0},
                           {"--svg", CLI_TEXT, &svg, 0},
                           {NULL, 0, NULL, 0}};
  int nargs, rc0 = cli_parse_args("arena", argc, argv, table, NULL, 0, &nargs, help);
  if (rc0) return rc0 < 0 ? CLI_OK : rc0;
  if ((rc0 = parse_seed("arena", seed_text, &seed))) return rc0;
  if (!spec[0] || !spec[1]) {
    fprintf(stderr, "dab arena: --p1 and --p2 are required (e.g. --p1 level2 --p2 random)\n");
    return CLI_USAGE;
  }
  /* An unknown player is the first thing to say, before any question of
  ** board or start: its name needs no board. */
  {
    dab_player_env *names;
    dab_err nerr;
    if (!dab_player_env_new(tb, &names, &nerr)) {
      dab_status nst = dab_agents_register(names, &nerr);
      for (int p = 0; p < 2 && !nst; p++)
        if ((nst = dab_player_check_name(names, spec[p], &nerr))) {
          fprintf(stderr, "dab arena: --p%d: %s\n", p + 1, nerr.msg);
          dab_player_env_free(names);
          return CLI_USAGE;
        }
      dab_player_env_free(names);
    }
  }
  /* Board and start. */
  static dab_parsed sp;
  double fraction = -1;
  dab_geom geom;
  dab_err err;
  if (start && !strncmp(start, "random:", 7)) {
    char *end;
    fraction = strtod(start + 7, &end);
    if (!start[7] || *end || !(fraction >= 0 && fraction <= 1)) {
      fprintf(stderr, "dab arena: --start random:F needs F from 0 to 1, got '%s'\n", start + 7);
      return CLI_USAGE;
    }
  } else if (start) {
    int rc = cli_parse_position("arena", start, &sp);
    if (rc) return rc;
    if (!sp.has_history) sp.game.to_move = 0;
  }
  if (board) {
    int rows, cols;
    size_t used;
    dab_status st = dab_parse_board(board, &rows, &cols, &used, &err);
    if (!st && board[used]) st = dab_fail(&err, DAB_EINPUT, "--board: expected RxC, got '%s'", board);
    if (!st) st = dab_geom_init(&geom, rows, cols, &err);
    if (st) return cli_error("arena", st, err.msg);
    if (start && fraction < 0 && (rows != sp.geom.rows || cols != sp.geom.cols)) {
      fprintf(stderr, "dab arena: --start is a %dx%d position but --board is %dx%d\n", sp.geom.rows,
              sp.geom.cols, rows, cols);
      return CLI_USAGE;
    }
  } else if (start && fraction < 0) {
    geom = sp.geom;
  } else {
    fprintf(stderr, "dab arena: --board RxC is required (or a --start position)\n");
    return CLI_USAGE;
  }
  const char *start_text = start ? start : "empty";
  if (start && fraction < 0 && dab_game_over(&geom, &sp.game)) {
    fprintf(stderr, "dab arena: --start position '%s' has no moves left\n", start);
    return CLI_USAGE;
  }

  dab_player_env *env;
  dab_status st = dab_player_env_new(tb, &env, &err);
  if (!st && (st = dab_agents_register(env, &err))) dab_player_env_free(env);
  if (st) return cli_error("arena", st, err.msg);
  if (oracle_lines) dab_player_env_set_build_lines(env, (int)oracle_lines);
  int rc = CLI_OK;
  dab_oracle *search_orc = NULL; /* --oracle-search: for the metrics only */
  match mt;
  memset(&mt, 0, sizeof mt);
  dab_game_record *rec = NULL;
  FILE *csv_file = NULL;
  /* Make each player once here: a bad spec fails before any game, and
  ** shared tables (windows, oracles) are built once, not per thread. */
  for (int p = 0; p < 2; p++) {
    dab_player *probe;
    if ((st = dab_player_new(spec[p], &geom, env, &probe, &err))) {
      fprintf(stderr, "dab arena: --p%d: %s\n", p + 1, err.msg);
      rc = cli_exit_code(st);
      goto done;
    }
    snprintf(mt.canonical[p], sizeof mt.canonical[p], "%s", dab_player_name(probe));
    dab_player_free(probe);
  }
  const dab_oracle *orc = NULL;
  if (!no_oracle && dab_player_env_oracle(env, geom.rows, geom.cols, &orc, NULL)) orc = NULL;
  if (!no_oracle && !orc && oracle_search) {
    dab_oracle_opts oo = {.tb_dir = tb,
                          .threads = 1,
                          .search = true,
                          .search_hash = ARENA_SEARCH_HASH,
                          .search_node_limit = (uint64_t)oracle_search};
    if (!json) cli_announce_memory("arena", "the oracle's search table", ARENA_SEARCH_HASH);
    if ((st = dab_oracle_open(geom.rows, geom.cols, &oo, &search_orc, &err))) {
      rc = cli_error("arena", st, err.msg);
      goto done;
    }
    orc = search_orc;
    mt.search_nodes = (uint64_t)oracle_search;
  }
  mt.g = &geom;
  mt.spec[0] = spec[0];
  mt.spec[1] = spec[1];
  mt.oracle = orc != NULL;
  mt.games = (int)games;
  mt.seed = (uint64_t)seed;
  int chunk = games < ARENA_CHUNK ? (int)games : ARENA_CHUNK;
  if (!(rec = calloc((size_t)chunk, sizeof *rec))) {
    rc = cli_error("arena", DAB_ENOMEM, "out of memory for the results");
    goto done;
  }
  mt.res = rec;
  if (csv && !(csv_file = fopen(csv, "w"))) {
    char msg[DAB_ERR_LEN];
    snprintf(msg, sizeof msg, "--csv %.200s: %s", csv, strerror(errno));
    rc = cli_error("arena", DAB_EINPUT, msg);
    goto done;
  }
  if (csv_file)
    fprintf(csv_file, "game,p1_first,start_lines,p1_score,p2_score,p1_moves,p2_moves,p1_seconds,"
                      "p2_seconds,p1_optimal,p1_scored,p2_optimal,p2_scored,start\n");
  chunk_progress cp = {0, (uint64_t)games};
  dab_match_opts mo = {
      .g = &geom,
      .player = {{.spec = spec[0]}, {.spec = spec[1]}},
      .env = env,
      .oracle = orc,
      .games = (int)games,
      .threads = (int)threads,
      .seed = (uint64_t)seed,
      .start = start && fraction < 0 ? &sp.game : NULL,
      .start_fraction = fraction,
      .progress = progress_chunk,
      .progress_ctx = &cp,
      .cancel = cli_cancel_on_signal(),
  };
  double t0 = dab_now_s();
  summary s;
  memset(&s, 0, sizeof s);
  st = DAB_OK;
  for (long first = 0; first < games && !st; first += chunk) {
    summary part;
    mo.first_game = (int)first;
    mo.games = (int)(games - first < chunk ? games - first : chunk);
    cp.before = (uint64_t)first;
    st = dab_match_run(&mo, rec, &err);
    dab_match_summarize(rec, mo.games, &part);
    dab_match_summary_merge(&s, &part);
    if (csv_file) write_csv_rows(csv_file, &mt, rec, mo.games, (int)first);
  }
  cli_progress_end();
  double secs = dab_now_s() - t0;
  if (st && st != DAB_ECANCELED) {
    rc = cli_error("arena", st, err.msg);
    goto done;
  }
  bool interrupted = s.games < mt.games;
  if (json) print_json(&mt, &s, start_text, secs, interrupted);
  else print_text(&mt, &s, start_text, secs, interrupted);
  if (csv_file) {
    bool ok = fclose(csv_file) == 0;
    csv_file = NULL;
    if (!ok) {
      rc = cli_error("arena", DAB_EIO, "cannot write the --csv file");
      goto done;
    }
  }
  if (svg && !write_svg(&mt, &s, svg)) {
    rc = cli_error("arena", DAB_EIO, "cannot write the --svg file");
    goto done;
  }
  if (interrupted) rc = CLI_FAIL;
done:
  if (csv_file) fclose(csv_file);
  free(rec);
  dab_oracle_close(search_orc);
  dab_player_env_free(env);
  return rc;
}
