/*
** az5_steps.c: seed paper 001's accuracy per step on 5x5, graded exactly.
** See Copyright Notice in README.md
*/
/*
** Positions at steps A..B (lines drawn) from self-play of each sampler,
** every legal move valued by the searching oracle (values cached in a
** text file: "LINES_HEX N V1..VN", or "LINES_HEX F LIMIT" past the node
** limit); then the share of correct moves of a uniformly random move under
** each metric (the paper's "Random" column, with the RMSE against it), and
** the players' moves on one sampler's positions.  Usage: see `usage`.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/resource.h>
#include "game/clock.h"
#include "agents/agent.h"
#include "agents/az.h"
#include "bench/benchutil.h"
#include "oracle/oracle.h"
#include "players/pint.h"
#include "players/player.h"

#define MAXS 8   /* samplers */
#define MAXP 12  /* players */
#define NMET 7   /* random-move metrics */

static const char usage[] =
    "usage: az5_steps [--board RxC] [--steps A-B] [--per N] [--seed S] [--cache FILE]\n"
    "                 [--nodes N] [--hash MIB] [--sampler SPEC]... [--eval K]\n"
    "                 [--metric NAME] [--player SPEC]...\n"
    "  samplers: random, safe (random line giving no third side while one exists),\n"
    "            or any player spec (self-play); default random and safe\n"
    "  --eval K: grade the players on sampler K's positions (0-based; default 0)\n"
    "  --metric: the definition the players table uses besides opt and keep\n"
    "            (opt keep keep0 near2 nogive; default keep)\n"
    "  --az0 FILE: write an untrained az model of the board (all weights zero:\n"
    "            uniform prior, value 0; the search and its theorems alone)\n"
    "            for the player az:FILE[,sims=N]\n";

/* Paper 001's "Random" column: ablation table (steps 24-30), 6b table (22..30 even). */
static const double paper_t1[] = {0.112, 0.134, 0.151, 0.170, 0.215, 0.263, 0.291};
static const int paper_t2_step[] = {22, 24, 26, 28, 30};
static const double paper_t2[] = {0.115, 0.125, 0.13, 0.217, 0.29};

static const char *met_name[NMET] = {"opt", "keep", "keep0", "near2", "nogive", "keepW", "optW"};

typedef struct pos {
  dab_game game;
  int step, score, nm, graded; /* graded: 1 values known, 0 not, -1 over the node limit */
  int16_t move[64], val[64];
} pos;

/* ---- cache: "LINES_HEX N V..." or "LINES_HEX F LIMIT" ------------------ */
typedef struct centry {
  uint64_t lines;
  int n;      /* -1 failed */
  uint64_t limit;
  int16_t val[64];
} centry;
typedef struct cache {
  centry *e;
  size_t n, n0, cap; /* e[0..n0) sorted (the file), then this run's grades */
  FILE *app;
} cache;

static int centry_cmp(const void *a, const void *b) {
  uint64_t x = ((const centry *)a)->lines, y = ((const centry *)b)->lines;
  return x < y ? -1 : x > y;
}

static void cache_add(cache *c, const centry *e) {
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 1024;
    c->e = realloc(c->e, c->cap * sizeof *c->e);
    if (!c->e) abort();
  }
  c->e[c->n++] = *e;
}

static void cache_load(cache *c, const char *path, const char *board) {
  FILE *f = fopen(path, "r");
  char line[1024];
  if (f) {
    while (fgets(line, sizeof line, f)) {
      if (line[0] == '#') continue;
      centry e = {0};
      char *p = line, *q;
      e.lines = strtoull(p, &q, 16);
      if (q == p) continue;
      p = q;
      while (*p == ' ') p++;
      if (*p == 'F') {
        e.n = -1;
        e.limit = strtoull(p + 1, NULL, 10);
      } else {
        e.n = (int)strtol(p, &q, 10);
        p = q;
        for (int i = 0; i < e.n && i < 64; i++) {
          e.val[i] = (int16_t)strtol(p, &q, 10);
          p = q;
        }
      }
      cache_add(c, &e);
    }
    fclose(f);
  }
  if (c->n) qsort(c->e, c->n, sizeof *c->e, centry_cmp);
  c->n0 = c->n;
  c->app = fopen(path, "a");
  if (c->app && !f) fprintf(c->app, "# az5_steps grading cache, board %s: lines n values | lines F limit\n", board);
}

/* The entry of lines, or NULL. */
static centry *cache_find(cache *c, uint64_t lines) {
  size_t lo = 0, hi = c->n0;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (c->e[mid].lines < lines) lo = mid + 1;
    else hi = mid;
  }
  if (lo < c->n0 && c->e[lo].lines == lines) return &c->e[lo];
  for (size_t j = c->n0; j < c->n; j++)
    if (c->e[j].lines == lines) return &c->e[j];
  return NULL;
}

/* ---- samplers ----------------------------------------------------------- */
static int safe_move(void *ctx, const dab_geom *g, const dab_game *game, dab_rng *rng) {
  (void)ctx;
  int16_t all[DAB_MAX_LINES], ok[DAB_MAX_LINES];
  int n = dab_legal_moves(g, &game->lines, all), k = 0;
  for (int i = 0; i < n; i++)
    if (!pl_gives_third(g, &game->lines, all[i])) ok[k++] = all[i];
  return k ? ok[dab_rng_below(rng, k)] : all[dab_rng_below(rng, n)];
}

static int random_move(void *ctx, const dab_geom *g, const dab_game *game, dab_rng *rng) {
  (void)ctx;
  int16_t all[DAB_MAX_LINES];
  int n = dab_legal_moves(g, &game->lines, all);
  return all[dab_rng_below(rng, n)];
}

static dab_status make_player(const char *spec, const dab_geom *g, dab_player_env *env, dab_player **p,
                              dab_err *err) {
  if (!strcmp(spec, "safe")) return dab_player_custom("safe", g, safe_move, NULL, p, err);
  if (!strcmp(spec, "random")) return dab_player_custom("random", g, random_move, NULL, p, err);
  return dab_player_new(spec, g, env, p, err);
}

/* An az model with every weight zero (uniform prior, value 0): what the az
** player is before any training.  The net's size does not change its play. */
static int write_az0(const char *path, int rows, int cols) {
  dab_err err;
  size_t n = dab_az_net_size(rows, cols, 0, 1, 1, 1);
  float *w = calloc(n, sizeof *w);
  dab_az_net *net = NULL;
  dab_az_search_opts so = {.sims = 800, .c_puct = 2, .chainloop = true, .theorems = true};
  dab_status st = w ? dab_az_net_new(rows, cols, 0, 1, 1, 1, w, n, &net, &err) : DAB_ENOMEM;
  if (!st) st = dab_az_model_save(path, net, &so, "untrained=1", NULL, 0, &err);
  if (st) fprintf(stderr, "az0: %s\n", st == DAB_ENOMEM ? "out of memory" : err.msg);
  dab_az_net_free(net);
  free(w);
  return st ? 1 : 0;
}

/* Seconds of CPU this process used (the machine is shared: wall time
** overstates a player's cost). */
static double cpu_now(void) { return dab_process_cpu_s(); }

/* ---- grading ------------------------------------------------------------ */
static int sgn(int x) { return (x > 0) - (x < 0); }

/*
** Is move i of P correct under metric k?  Values are for the mover, d is
** the score so far (mover minus opponent), V the position's value.
**   opt    the move's value is V (margin-optimal)
**   keep   it keeps the win/draw/loss result: sign(d + v) = sign(d + V)
**   keep0  the same with the score so far ignored: sign(v) = sign(V)
**   near2  it loses at most one box: v >= V - 2 (values of one position
**          share their parity, so V - 1 never occurs)
**   nogive no oracle: it completes a box or puts no third side on a box
**   keepW, optW  keep and opt, over positions the mover can win only
*/
static bool correct(const dab_geom *g, const pos *P, int i, int k) {
  int V = -1000;
  for (int j = 0; j < P->nm; j++)
    if (P->val[j] > V) V = P->val[j];
  int v = P->val[i], d = P->score;
  dab_lineset s = P->game.lines;
  switch (k) {
    case 0: return v == V;
    case 1: return sgn(d + v) == sgn(d + V);
    case 2: return sgn(v) == sgn(V);
    case 3: return v >= V - 2;
    case 4: return dab_completes(g, &s, P->move[i]) > 0 || !pl_gives_third(g, &s, P->move[i]);
    case 5: return sgn(d + v) == sgn(d + V);
    default: return v == V;
  }
}

/* Metrics 5, 6 count only positions the mover can win (d + V > 0). */
static bool counts(const pos *P, int k) {
  if (k < 5) return true;
  int V = -1000;
  for (int j = 0; j < P->nm; j++)
    if (P->val[j] > V) V = P->val[j];
  return P->score + V > 0;
}

int main(int argc, char **argv) {
  int rows = 5, cols = 5, s0 = 22, s1 = 30, per = 100, eval = 0, metric = 1;
  uint64_t seed = 2026, nodes = 200000000ull, hash_mib = 256;
  const char *cpath = "az5_grades.txt";
  const char *samp[MAXS], *pl[MAXP], *az0 = NULL;
  int ns = 0, np = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) {
      fputs(usage, stderr);
      return 2;
    }
    if (!strcmp(a, "--board")) sscanf(v, "%dx%d", &rows, &cols);
    else if (!strcmp(a, "--steps")) sscanf(v, "%d-%d", &s0, &s1);
    else if (!strcmp(a, "--per")) per = atoi(v);
    else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--cache")) cpath = v;
    else if (!strcmp(a, "--nodes")) nodes = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--hash")) hash_mib = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--eval")) eval = atoi(v);
    else if (!strcmp(a, "--sampler") && ns < MAXS) samp[ns++] = v;
    else if (!strcmp(a, "--player") && np < MAXP) pl[np++] = v;
    else if (!strcmp(a, "--az0")) az0 = v;
    else if (!strcmp(a, "--metric")) {
      metric = -1;
      for (int k = 0; k < 5; k++)
        if (!strcmp(v, met_name[k])) metric = k;
      if (metric < 0) {
        fputs(usage, stderr);
        return 2;
      }
    } else {
      fputs(usage, stderr);
      return 2;
    }
    i++;
  }
  if (!ns) {
    samp[ns++] = "random";
    samp[ns++] = "safe";
  }
  if (eval < 0 || eval >= ns || per <= 0 || s0 < 0 || s1 < s0) {
    fputs(usage, stderr);
    return 2;
  }
  double t0 = bench_now();
  dab_err err;
  if (az0 && write_az0(az0, rows, cols)) return 1;
  dab_geom g;
  if (dab_geom_init(&g, rows, cols, &err) || g.nlines > 64 || s1 >= g.nlines) {
    fprintf(stderr, "bad board or steps\n");
    return 2;
  }
  char board[16];
  snprintf(board, sizeof board, "%dx%d", rows, cols);
  dab_oracle_opts oo = {.threads = 1, .search = true, .search_hash = hash_mib << 20,
                        .search_node_limit = nodes};
  dab_oracle *o;
  dab_player_env *env;
  if (dab_oracle_open(rows, cols, &oo, &o, &err) || dab_player_env_new(NULL, &env, &err) ||
      dab_agents_register(env, &err)) {
    fprintf(stderr, "%s\n", err.msg);
    return 1;
  }
  cache C = {0};
  cache_load(&C, cpath, board);
  int nst = s1 - s0 + 1;
  pos *P = calloc((size_t)ns * (size_t)per * (size_t)nst, sizeof *P);
  if (!P) return 1;
  /* 1. positions: one self-play game per index, its positions at steps s0..s1 */
  double tgen = bench_now();
  for (int si = 0; si < ns; si++) {
    dab_player *sp;
    if (make_player(samp[si], &g, env, &sp, &err)) {
      fprintf(stderr, "%s: %s\n", samp[si], err.msg);
      return 1;
    }
    for (int k = 0; k < per; k++) {
      dab_rng rng;
      dab_rng_seed2(&rng, seed, (uint64_t)k);
      dab_game game;
      dab_game_init(&g, &game);
      for (int s = 0; s <= s1; s++) {
        if (s >= s0) {
          pos *p = &P[((size_t)si * (size_t)per + (size_t)k) * (size_t)nst + (size_t)(s - s0)];
          p->game = game;
          p->step = s;
          p->score = game.score[game.to_move] - game.score[game.to_move ^ 1];
        }
        dab_game_play(&g, &game, dab_player_move(sp, &game, &rng));
      }
    }
    dab_player_free(sp);
  }
  printf("positions: %d samplers x %d games x steps %d-%d (%.1f s)\n", ns, per, s0, s1, bench_now() - tgen);
  /* 2. grade every position (cache first) */
  double tgr = bench_now(), cgr = cpu_now();
  long ngraded = 0, nfail = 0, ncached = 0;
  double tmax = 0;
  int tmax_step = 0;
  size_t npos = (size_t)ns * (size_t)per * (size_t)nst;
  for (size_t i = 0; i < npos; i++) {
    pos *p = &P[i];
    uint64_t w = dab_ls_word(&p->game.lines);
    p->nm = dab_legal_moves(&g, &p->game.lines, p->move);
    centry *e = cache_find(&C, w);
    if (e && (e->n >= 0 || e->limit >= nodes)) {
      ncached++;
      if (e->n < 0) {
        p->graded = -1;
        nfail++;
      } else {
        p->graded = 1;
        memcpy(p->val, e->val, sizeof p->val);
      }
      continue;
    }
    int16_t mv[64];
    int n;
    double tq = bench_now();
    dab_status st = dab_oracle_move_values(o, w, mv, p->val, &n, &err);
    double dt = bench_now() - tq;
    if (dt > tmax) tmax = dt, tmax_step = p->step;
    centry ne = {.lines = w};
    if (st == DAB_ECANCELED) {
      ne.n = -1;
      ne.limit = nodes;
      p->graded = -1;
      nfail++;
      if (C.app) fprintf(C.app, "%016llx F %llu\n", (unsigned long long)w, (unsigned long long)nodes);
    } else if (st) {
      fprintf(stderr, "oracle: %s\n", err.msg);
      return 1;
    } else {
      ne.n = n;
      memcpy(ne.val, p->val, sizeof ne.val);
      p->graded = 1;
      ngraded++;
      if (C.app) {
        fprintf(C.app, "%016llx %d", (unsigned long long)w, n);
        for (int j = 0; j < n; j++) fprintf(C.app, " %d", p->val[j]);
        fputc('\n', C.app);
        fflush(C.app);
      }
    }
    cache_add(&C, &ne);
  }
  printf("graded %ld new, %ld from the cache, %ld over the node limit %llu (%.1f s wall, %.1f s CPU;"
         " slowest %.2f s at step %d)\n",
         ngraded, ncached, nfail, (unsigned long long)nodes, bench_now() - tgr, cpu_now() - cgr, tmax, tmax_step);
  /* 3. the Random column: the expected share of correct moves of a
  ** uniformly random move, averaged over positions.  (Every position of a
  ** step has the same number of legal moves, so pooling per move gives
  ** the same figure.)  keepW and optW average only positions the mover
  ** can still win; n counts them. */
  for (int si = 0; si < ns; si++) {
    printf("\nsampler %s: share of random moves that are correct\n", samp[si]);
    printf("| step | n |");
    for (int m = 0; m < NMET; m++) printf(" %s |", met_name[m]);
    printf(" won n | paper t1 | paper t2 |\n|---|---|");
    for (int m = 0; m < NMET + 3; m++) printf("---|");
    printf("\n");
    double se1[NMET] = {0}, se2[NMET] = {0};
    int n1 = 0, n2 = 0;
    for (int s = s0; s <= s1; s++) {
      double pp[NMET] = {0};
      int npp[NMET] = {0}, n = 0;
      for (int k = 0; k < per; k++) {
        pos *p = &P[((size_t)si * (size_t)per + (size_t)k) * (size_t)nst + (size_t)(s - s0)];
        if (p->graded != 1) continue;
        n++;
        for (int m = 0; m < NMET; m++) {
          if (!counts(p, m)) continue;
          int c = 0;
          for (int i = 0; i < p->nm; i++) c += correct(&g, p, i, m);
          pp[m] += (double)c / p->nm;
          npp[m]++;
        }
      }
      double t1 = s >= 24 && s <= 30 ? paper_t1[s - 24] : -1, t2 = -1;
      for (int j = 0; j < 5; j++)
        if (paper_t2_step[j] == s) t2 = paper_t2[j];
      printf("| %d | %d |", s, n);
      for (int m = 0; m < NMET; m++) {
        double a = npp[m] ? pp[m] / npp[m] : 0;
        printf(" %.3f |", a);
        if (t1 >= 0) se1[m] += (a - t1) * (a - t1);
        if (t2 >= 0) se2[m] += (a - t2) * (a - t2);
      }
      n1 += t1 >= 0;
      n2 += t2 >= 0;
      printf(" %d |", npp[5]);
      if (t1 >= 0) printf(" %.3f |", t1);
      else printf(" |");
      if (t2 >= 0) printf(" %.3f |\n", t2);
      else printf(" |\n");
    }
    if (n1 || n2) {
      printf("RMSE against the paper's t1 (%d steps) / t2 (%d steps):", n1, n2);
      for (int m = 0; m < NMET; m++)
        printf(" %s %.3f/%.3f", met_name[m], n1 ? sqrt(se1[m] / n1) : 0.0, n2 ? sqrt(se2[m] / n2) : 0.0);
      printf("\n");
    }
  }
  /* 4. players on sampler eval's positions */
  if (np) {
    int mets[3] = {0, 1, metric};
    int nmets = metric > 1 ? 3 : 2;
    double (*acc)[3][64] = calloc((size_t)np, sizeof *acc);
    double *spm = calloc((size_t)np, sizeof *spm);
    int cnt[64] = {0};
    for (int s = s0; s <= s1; s++)
      for (int k = 0; k < per; k++) cnt[s - s0] += P[((size_t)eval * (size_t)per + (size_t)k) * (size_t)nst + (size_t)(s - s0)].graded == 1;
    for (int pi = 0; pi < np; pi++) {
      bool expect = !strcmp(pl[pi], "random");
      dab_player *pp = NULL;
      if (!expect && make_player(pl[pi], &g, env, &pp, &err)) {
        fprintf(stderr, "%s: %s\n", pl[pi], err.msg);
        return 1;
      }
      double tp = cpu_now();
      long nmoves = 0;
      for (int s = s0; s <= s1; s++)
        for (int k = 0; k < per; k++) {
          pos *p = &P[((size_t)eval * (size_t)per + (size_t)k) * (size_t)nst + (size_t)(s - s0)];
          if (p->graded != 1) continue;
          int i = -1;
          if (!expect) {
            dab_rng rng;
            dab_rng_seed2(&rng, seed ^ 0x5eedull, (uint64_t)(k * 64 + s));
            int mv = dab_player_move(pp, &p->game, &rng);
            nmoves++;
            for (i = 0; i < p->nm && p->move[i] != mv; i++) {}
          }
          for (int mi = 0; mi < nmets; mi++) {
            int m = mets[mi];
            double c = 0;
            if (expect) {
              for (int j = 0; j < p->nm; j++) c += correct(&g, p, j, m);
              c /= p->nm;
            } else c = i < p->nm && correct(&g, p, i, m);
            acc[pi][mi][s - s0] += c;
          }
        }
      spm[pi] = nmoves ? (cpu_now() - tp) / (double)nmoves : 0;
      if (pp) dab_player_free(pp);
    }
    for (int mi = 0; mi < nmets; mi++) {
      printf("\nplayers on %s positions, metric %s (share of positions whose move is correct)\n", samp[eval],
             met_name[mets[mi]]);
      printf("| player |");
      for (int s = s0; s <= s1; s++) printf(" %d |", s);
      printf(" all | CPU ms/move |\n|---|");
      for (int s = s0; s <= s1 + 2; s++) printf("---|");
      printf("\n");
      for (int pi = 0; pi < np; pi++) {
        double tot = 0;
        int tn = 0;
        printf("| %s |", pl[pi]);
        for (int s = s0; s <= s1; s++) {
          printf(" %.3f |", cnt[s - s0] ? acc[pi][mi][s - s0] / cnt[s - s0] : 0.0);
          tot += acc[pi][mi][s - s0];
          tn += cnt[s - s0];
        }
        printf(" %.3f | %.1f |\n", tn ? tot / tn : 0.0, 1000 * spm[pi]);
      }
    }
    free(acc);
    free(spm);
  }
  if (C.app) fclose(C.app);
  free(C.e);
  free(P);
  dab_player_env_free(env);
  dab_oracle_close(o);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("\nwall %.1f s, CPU %.1f s, peak RSS %ld KiB\n", bench_now() - t0, cpu_now(), ru.ru_maxrss);
  return 0;
}
