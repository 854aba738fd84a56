/*
** ruleteam.c: rule files, games of a rule team against the chain player, greedy players.
** See Copyright Notice in README.md
*/
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>
#include "agents/ruleteam.h"
#include "game/durable.h"

/* ---- Rule files ------------------------------------------------------------ */

typedef struct sbuf {
  char *p;
  size_t n, cap;
  bool oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    if (b->p && b->n + (size_t)k < b->cap) {
      b->n += (size_t)k;
      return;
    }
    size_t cap = (b->cap + (size_t)k + 1) * 2;
    char *q = realloc(b->p, cap);
    if (!q) {
      b->oom = true;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
}

dab_status dab_rules_write(const char *path, int rows, int cols, const char *kind, const char *params,
                           const dab_ragent *a, int n, dab_err *err) {
  if (strchr(kind, '\n') || strchr(params, '\n'))
    return dab_fail(err, DAB_EINPUT, "rule file: kind or params hold a newline");
  sbuf b = {0};
  sb_printf(&b, "%s %d\nboard %dx%d\nkind %s\nparams %s\nrules %d\n", DAB_RULES_MAGIC, DAB_RULES_VERSION,
            rows, cols, kind, params, n);
  char text[DAB_RULE_TEXT];
  for (int i = 0; i < n; i++) {
    const dab_ragent *x = &a[i];
    if (dab_rule_print(&x->rule, text, sizeof text) < 0) text[0] = 0;
    sb_printf(&b, "q=%.9g f=%.9g bid=%.9g wealth=%.9g fired=%ld graded=%ld optimal=%ld lost=%.9g born=%ld | %s\n",
              x->q, x->f, x->bid, x->wealth, x->fired, x->graded, x->optimal, x->lost, x->born, text);
  }
  if (b.oom) {
    free(b.p);
    return dab_fail(err, DAB_ENOMEM, "rule file: out of memory");
  }
  sb_printf(&b, "xxh3 %016" PRIx64 "\n", (uint64_t)XXH3_64bits(b.p, b.n));
  dab_status st = b.oom ? dab_fail(err, DAB_ENOMEM, "rule file: out of memory")
                        : dab_durable_write(path, b.p, b.n, err);
  free(b.p);
  return st;
}

/* The next line of buf from *at (cut at '\n', which must be there). */
static char *next_line(char *buf, size_t len, size_t *at) {
  if (*at >= len) return NULL;
  char *s = buf + *at, *e = memchr(s, '\n', len - *at);
  if (!e) return NULL;
  *e = 0;
  *at = (size_t)(e - buf) + 1;
  return s;
}

dab_status dab_rules_read(const char *path, const char *want_kind, dab_model_header *h, dab_ragent **out,
                          int *nout, dab_err *err) {
  *out = NULL;
  *nout = 0;
  FILE *f = fopen(path, "rb");
  if (!f) /* a missing file is a bad argument (exit 2), other failures I/O */
    return dab_fail(err, errno == ENOENT || errno == EISDIR ? DAB_EINPUT : DAB_EIO, "%s: cannot open: %s",
                    path, strerror(errno));
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (!buf) break;
    if (len + 4096 > cap) {
      char *q = realloc(buf, cap *= 2);
      if (!q) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = q;
    }
    size_t k = fread(buf + len, 1, cap - len - 1, f);
    len += k;
    if (!k) break;
  }
  bool rerr = ferror(f);
  fclose(f);
  if (!buf) return dab_fail(err, DAB_ENOMEM, "%s: out of memory", path);
  if (rerr) {
    free(buf);
    return dab_fail(err, DAB_EIO, "%s: read error", path);
  }
  buf[len] = 0;
  dab_status st = DAB_ECORRUPT;
  dab_ragent *a = NULL;
  int n = 0, line_no = 0;
  const char *what = "not a rule file";
  size_t at = 0;
  size_t mk = len < strlen(DAB_RULES_MAGIC) ? len : strlen(DAB_RULES_MAGIC);
  if (!len || memcmp(buf, DAB_RULES_MAGIC, mk)) { /* another kind of file: a bad argument */
    free(buf);
    return dab_fail(err, DAB_EINPUT, "%s: not a rule file", path);
  }
  /* The checksum line is the last: find it, check it, then parse the rest. */
  char *cs = NULL;
  if (len > 2 && buf[len - 1] == '\n') {
    size_t k = len - 1;
    while (k > 0 && buf[k - 1] != '\n') k--;
    cs = buf + k;
  }
  uint64_t want;
  if (!cs || strncmp(cs, "xxh3 ", 5) || sscanf(cs + 5, "%" SCNx64, &want) != 1 || strlen(cs) != 5 + 16 + 1) {
    what = "no checksum line at the end";
    goto bad;
  }
  if (XXH3_64bits(buf, (size_t)(cs - buf)) != want) {
    what = "checksum mismatch";
    goto bad;
  }
  size_t body = (size_t)(cs - buf);
  char *ln;
  int ver, rows, cols, count;
  char kind[16];
  memset(h, 0, sizeof *h);
  line_no = 1;
  if (!(ln = next_line(buf, body, &at)) || sscanf(ln, DAB_RULES_MAGIC " %d", &ver) != 1) goto bad;
  if (ver != DAB_RULES_VERSION) {
    what = "another format version";
    goto bad;
  }
  line_no++;
  if (!(ln = next_line(buf, body, &at)) || sscanf(ln, "board %dx%d", &rows, &cols) != 2) goto bad_line;
  line_no++;
  if (!(ln = next_line(buf, body, &at)) || sscanf(ln, "kind %15s", kind) != 1) goto bad_line;
  if (want_kind && strcmp(kind, want_kind)) {
    free(buf);
    return dab_fail(err, DAB_EINPUT, "%s: a '%s' rule file, not '%s'", path, kind, want_kind);
  }
  line_no++;
  if (!(ln = next_line(buf, body, &at)) || strncmp(ln, "params ", 7) || strlen(ln + 7) > DAB_MODEL_PARAMS)
    goto bad_line;
  h->version = (uint32_t)ver;
  h->rows = rows;
  h->cols = cols;
  snprintf(h->kind, sizeof h->kind, "%s", kind);
  snprintf(h->params, sizeof h->params, "%s", ln + 7);
  line_no++;
  if (!(ln = next_line(buf, body, &at)) || sscanf(ln, "rules %d", &count) != 1 || count < 0 || count > 1000000)
    goto bad_line;
  /* The count is checked against the lines there before anything is
  ** allocated for it: memory follows the file's size, not a number in it. */
  size_t left = 0;
  for (const char *q = buf + at; (q = memchr(q, '\n', body - (size_t)(q - buf))); q++) left++;
  if ((size_t)count > left) {
    line_no += (int)left + 1;
    what = "fewer lines than its count";
    goto bad;
  }
  a = calloc((size_t)count + 1, sizeof *a);
  if (!a) {
    free(buf);
    return dab_fail(err, DAB_ENOMEM, "%s: out of memory", path);
  }
  for (n = 0; n < count; n++) {
    line_no++;
    dab_ragent *x = &a[n];
    if (!(ln = next_line(buf, body, &at))) goto bad_line;
    char *bar = strstr(ln, " | ");
    if (!bar) goto bad_line;
    *bar = 0;
    if (sscanf(ln, "q=%lf f=%lf bid=%lf wealth=%lf fired=%ld graded=%ld optimal=%ld lost=%lf born=%ld", &x->q,
               &x->f, &x->bid, &x->wealth, &x->fired, &x->graded, &x->optimal, &x->lost, &x->born) != 9)
      goto bad_line;
    dab_err e2;
    if (dab_rule_parse(bar + 3, false, &x->rule, &e2) || !dab_rule_check(&x->rule, NULL, 0)) {
      what = "a rule that does not parse or is invalid";
      goto bad;
    }
  }
  if (at != body) {
    line_no++;
    what = "more lines than its count";
    goto bad;
  }
  free(buf);
  *out = a;
  *nout = n;
  return DAB_OK;
bad_line:
  what = "malformed line";
bad:
  free(buf);
  free(a);
  if (line_no) return dab_fail(err, st, "%s: damaged rule file (%s, line %d)", path, what, line_no);
  return dab_fail(err, st, "%s: damaged rule file (%s)", path, what);
}

/* ---- Games ------------------------------------------------------------------- */

void dab_rt_prefill(const dab_geom *g, dab_lineset *s, double fraction, dab_rng *rng) {
  int target = (int)(fraction * g->nlines + 0.5);
  int16_t cand[DAB_MAX_LINES];
  while (dab_ls_count(s) < target) {
    int n = 0;
    for (int m = 0; m < g->nlines; m++) {
      if (dab_ls_has(s, m)) continue;
      bool ok = true;
      for (int j = 0; j < 2; j++) {
        int b = g->line_box[m][j];
        if (b >= 0 && dab_box_sides(g, s, b) >= 2) ok = false;
      }
      if (ok) cand[n++] = (int16_t)m;
    }
    if (!n) return;
    dab_ls_set(s, cand[dab_rng_below(rng, n)]);
  }
}

static dab_status grade(const dab_oracle *o, const dab_game *game, int line, int d, bool *opt, bool *kept,
                        int *lost, dab_err *err) {
  dab_analysis an;
  int n;
  dab_status st = dab_oracle_move_values(o, dab_ls_word(&game->lines), an.move, an.move_value, &n, err);
  if (st) return st;
  an.nmoves = n;
  an.value = -1000;
  for (int i = 0; i < n; i++)
    if (an.move_value[i] > an.value) an.value = an.move_value[i];
  dab_grade_move(&an, line, d, opt, kept, lost);
  return DAB_OK;
}

dab_status dab_rt_play(const dab_geom *g, dab_player *opp, dab_rt_choose choose, void *sys, dab_rng *rng,
                       dab_rt_game *gm, dab_err *err) {
  dab_game game;
  dab_game_init(g, &game);
  if (gm->prefill > 0) dab_rt_prefill(g, &game.lines, gm->prefill, rng);
  gm->moves = gm->random_moves = gm->nfire = 0;
  gm->graded = gm->optimal = gm->kept = gm->lost = 0;
  dab_sgraph sg;
  int16_t legal[DAB_MAX_LINES];
  while (!dab_game_over(g, &game)) {
    int line;
    if (game.to_move == gm->team) {
      dab_sgraph_build(g, &game.lines, &sg);
      int who = choose(sys, &sg, &game, rng, &line);
      if (who < 0 || line < 0) {
        int n = dab_legal_moves(g, &game.lines, legal);
        line = legal[dab_rng_below(rng, n)];
        who = -1;
        gm->random_moves++;
      }
      gm->moves++;
      bool opt = true, kept = true;
      int lost = 0;
      if (gm->oracle) {
        int d = game.score[gm->team] - game.score[1 - gm->team];
        dab_status st = grade(gm->oracle, &game, line, d, &opt, &kept, &lost, err);
        if (st) return st;
        gm->graded++;
        gm->optimal += opt;
        gm->kept += kept;
        gm->lost += lost;
      }
      if (who >= 0 && gm->nfire < DAB_RT_MAX_FIRE) {
        gm->fire[gm->nfire] = who;
        gm->fire_optimal[gm->nfire] = opt;
        gm->fire_lost[gm->nfire++] = lost;
      }
    } else if (gm->opp_random > 0 && dab_rng_unit(rng) < gm->opp_random) {
      int n = dab_legal_moves(g, &game.lines, legal);
      line = legal[dab_rng_below(rng, n)];
    } else {
      line = dab_player_move(opp, &game, rng);
    }
    if (dab_game_play(g, &game, line) < 0)
      return dab_fail(err, DAB_EINTERNAL, "rule team: illegal line %d", line);
  }
  gm->diff = game.score[gm->team] - game.score[1 - gm->team];
  return DAB_OK;
}

/* ---- Greedy players ------------------------------------------------------------ */

/* Is agent i ranked before agent j (higher value, then lower index)? */
static bool ranked_before(const dab_ragent *a, int kind, int i, int j) {
  double vi = kind == 0 ? a[i].bid : a[i].q, vj = kind == 0 ? a[j].bid : a[j].q;
  return vi > vj || (vi == vj && i < j);
}

/* Heapsort, so that ranking needs no memory beyond rank itself. */
static void rank_sift(const dab_ragent *a, int kind, int *rank, int root, int n) {
  for (;;) {
    int c = 2 * root + 1;
    if (c >= n) return;
    if (c + 1 < n && ranked_before(a, kind, rank[c], rank[c + 1])) c++;
    if (!ranked_before(a, kind, rank[root], rank[c])) return;
    int t = rank[root];
    rank[root] = rank[c], rank[c] = t;
    root = c;
  }
}

void dab_rt_rank(const dab_ragent *a, int n, int kind, int *rank) {
  for (int i = 0; i < n; i++) rank[i] = i;
  /* A heap with the last-ranked agent on top, popped to the back. */
  for (int i = n / 2 - 1; i >= 0; i--) rank_sift(a, kind, rank, i, n);
  for (int end = n - 1; end > 0; end--) {
    int t = rank[0];
    rank[0] = rank[end], rank[end] = t;
    rank_sift(a, kind, rank, 0, end);
  }
}

int dab_rt_greedy(const dab_ragent *a, int n, int kind, const int *rank, const dab_sgraph *sg, int *line) {
  int best = -1, bl = -1;
  double bv = 0;
  for (int k = 0; k < n; k++) {
    int i = rank ? rank[k] : k;
    double v = kind == 0 ? a[i].bid : a[i].q;
    if (best >= 0 && v <= bv) continue;
    int l;
    if (!dab_rule_match(&a[i].rule, sg, NULL, NULL, NULL, NULL, &l)) continue;
    best = i, bv = v, bl = l;
    if (rank) break; /* every later agent ranks below */
  }
  *line = bl;
  return best;
}

int dab_rt_player_move(void *ctx, const dab_geom *g, const dab_game *game, dab_rng *rng) {
  dab_rt_player *p = ctx;
  dab_sgraph sg;
  dab_sgraph_build(g, &game->lines, &sg);
  int line;
  if (dab_rt_greedy(p->a, p->n, p->kind, p->rank, &sg, &line) >= 0 && line >= 0) return line;
  int16_t legal[DAB_MAX_LINES];
  int n = dab_legal_moves(g, &game->lines, legal);
  return n ? legal[dab_rng_below(rng, n)] : -1;
}

static void rt_player_free(void *ctx) {
  dab_rt_player *p = ctx;
  free(p->a);
  free(p->rank);
  free(p);
}

dab_status dab_rt_player_new(const char *kind, const char *args, const dab_geom *g, dab_player **out,
                             dab_err *err) {
  *out = NULL;
  char path[1024], name[1100];
  const char *rest;
  dab_status st = dab_agent_args(kind, args, path, sizeof path, &rest, err);
  if (st) return st;
  if (*rest) return dab_fail(err, DAB_EINPUT, "player '%s': unknown option '%s' (%s:FILE)", kind, rest, kind);
  dab_model_header h;
  dab_ragent *a;
  int n;
  if ((st = dab_rules_read(path, kind, &h, &a, &n, err))) return st;
  if ((st = dab_model_check_board(path, &h, g, err))) {
    free(a);
    return st;
  }
  dab_rt_player *p = calloc(1, sizeof *p);
  int *rank = malloc((size_t)(n > 0 ? n : 1) * sizeof *rank);
  if (!p || !rank) {
    free(a), free(p), free(rank);
    return dab_fail(err, DAB_ENOMEM, "out of memory");
  }
  p->g = *g;
  p->kind = !strcmp(kind, "erl");
  p->a = a;
  p->n = n;
  p->rank = rank;
  dab_rt_rank(a, n, p->kind, rank);
  snprintf(name, sizeof name, "%s:%s", kind, path);
  return dab_agent_player(name, g, dab_rt_player_move, p, rt_player_free, out, err);
}

/* ---- Grading every rule ---------------------------------------------------------- */

typedef struct greedy_sys {
  const dab_ragent *a;
  int n, kind;
  const int *rank;
} greedy_sys;

static int greedy_choose(void *sys, const dab_sgraph *sg, const dab_game *game, dab_rng *rng, int *line) {
  (void)game;
  (void)rng;
  greedy_sys *s = sys;
  return dab_rt_greedy(s->a, s->n, s->kind, s->rank, sg, line);
}

/* ---- Greedy games on threads --------------------------------------------------------
**
** Game k draws from its own stream (seed, k), and thread j of T plays the
** games k = j, j + T, ...; every total is a sum of whole numbers, so the
** results do not depend on T. */

typedef struct rt_job {
  const dab_geom *g;
  const dab_ragent *a;
  int n, kind;
  const int *rank;         /* a ranked by dab_rt_rank (rt_run fills it) */
  const dab_oracle *oracle;
  int games, team;         /* team: a colour, -1 random per game, -2 alternating (k & 1) */
  double opp_random;
  uint64_t seed;
  int threads;
  bool per_rule;           /* count each rule's moves (dab_rt_grade_rules) */
} rt_job;

typedef struct rt_part {
  const rt_job *job;
  int tid;
  dab_status st;
  dab_err err;
  long win, draw, diff, moves, randoms, graded, optimal, kept, lost;
  long *fired, *opt, *lostr;   /* per rule, when job->per_rule */
} rt_part;

static void *rt_worker(void *arg) {
  rt_part *p = arg;
  const rt_job *j = p->job;
  dab_player *opp = NULL;
  p->st = dab_rt_opponent(j->g, &opp, &p->err);
  greedy_sys sys = {j->a, j->n, j->kind, j->rank};
  for (int k = p->tid; !p->st && k < j->games; k += j->threads) {
    dab_rng rng;
    dab_rng_seed2(&rng, j->seed, (uint64_t)k);
    int team = j->team >= 0 ? j->team : j->team == -2 ? (k & 1) : (int)(dab_rng_next(&rng) & 1);
    dab_rt_game gm = {.team = team, .opp_random = j->opp_random, .oracle = j->oracle};
    if ((p->st = dab_rt_play(j->g, opp, greedy_choose, &sys, &rng, &gm, &p->err))) break;
    p->win += gm.diff > 0;
    p->draw += gm.diff == 0;
    p->diff += gm.diff;
    p->moves += gm.moves;
    p->randoms += gm.random_moves;
    p->graded += gm.graded;
    p->optimal += gm.optimal;
    p->kept += gm.kept;
    p->lost += gm.lost;
    for (int f = 0; j->per_rule && f < gm.nfire; f++) {
      p->fired[gm.fire[f]]++;
      p->opt[gm.fire[f]] += gm.fire_optimal[f];
      p->lostr[gm.fire[f]] += gm.fire_lost[f];
    }
  }
  dab_player_free(opp);
  return NULL;
}

/* Plays job's games on job->threads threads and sums them into *sum (its
** per-rule arrays, when asked, are malloc'd: the caller frees them).
** RETURN: DAB_OK; the error of the lowest thread that failed; DAB_ENOMEM. */
static dab_status rt_run(rt_job *job, rt_part *sum, dab_err *err) {
  memset(sum, 0, sizeof *sum);
  int T = job->threads < 1 ? 1 : job->threads > 256 ? 256 : job->threads;
  if (T > job->games) T = job->games > 0 ? job->games : 1;
  job->threads = T;
  rt_part *parts = calloc((size_t)T, sizeof *parts);
  size_t nr = job->per_rule ? (size_t)(job->n > 0 ? job->n : 1) : 0;
  long *arrays = nr ? calloc((size_t)(T + 1) * 3 * nr, sizeof *arrays) : NULL;
  pthread_t *tid = calloc((size_t)T, sizeof *tid);
  bool *started = calloc((size_t)T, sizeof *started);
  int *rank = malloc((size_t)(job->n > 0 ? job->n : 1) * sizeof *rank);
  if (!parts || !tid || !started || !rank || (nr && !arrays)) {
    free(parts), free(arrays), free(tid), free(started), free(rank);
    return dab_fail(err, DAB_ENOMEM, "rule team: out of memory");
  }
  dab_rt_rank(job->a, job->n, job->kind, rank);
  job->rank = rank;
  for (int i = 0; i <= T; i++) {
    rt_part *p = i < T ? &parts[i] : sum;
    if (i < T) p->job = job, p->tid = i;
    if (nr) p->fired = arrays + (size_t)i * 3 * nr, p->opt = p->fired + nr, p->lostr = p->opt + nr;
  }
  for (int i = 1; i < T; i++) started[i] = pthread_create(&tid[i], NULL, rt_worker, &parts[i]) == 0;
  rt_worker(&parts[0]);
  for (int i = 1; i < T; i++) {
    if (started[i]) pthread_join(tid[i], NULL);
    else rt_worker(&parts[i]);  /* no thread: play its games here */
  }
  dab_status st = DAB_OK;
  for (int i = 0; i < T; i++) {
    rt_part *p = &parts[i];
    if (p->st && !st) {
      st = p->st;
      if (err) *err = p->err;
    }
    sum->win += p->win, sum->draw += p->draw, sum->diff += p->diff, sum->moves += p->moves;
    sum->randoms += p->randoms, sum->graded += p->graded, sum->optimal += p->optimal;
    sum->kept += p->kept, sum->lost += p->lost;
    for (size_t r = 0; r < nr; r++)
      sum->fired[r] += p->fired[r], sum->opt[r] += p->opt[r], sum->lostr[r] += p->lostr[r];
  }
  free(parts), free(tid), free(started), free(rank);
  job->rank = NULL;
  if (st || !nr) {
    free(arrays);
    sum->fired = sum->opt = sum->lostr = NULL;
  } else {
    /* Keep only the sum's arrays: move them to the front of the block. */
    memmove(arrays, sum->fired, 3 * nr * sizeof *arrays);
    sum->fired = arrays, sum->opt = arrays + nr, sum->lostr = arrays + 2 * nr;
  }
  return st;
}

dab_status dab_rt_grade_rules(const dab_geom *g, dab_ragent *a, int n, int kind, const dab_oracle *oracle,
                              int games, double opp_random, uint64_t seed, int threads, dab_err *err) {
  rt_job job = {.g = g, .a = a, .n = n, .kind = kind, .oracle = oracle, .games = games, .team = -2,
                .opp_random = opp_random, .seed = seed, .threads = threads, .per_rule = true};
  rt_part sum;
  dab_status st = rt_run(&job, &sum, err);
  if (st) return st;
  for (int i = 0; i < n; i++) {
    a[i].fired = a[i].graded = sum.fired[i];
    a[i].optimal = sum.opt[i];
    a[i].lost = (double)sum.lostr[i];
  }
  free(sum.fired);
  return DAB_OK;
}

dab_status dab_rt_eval(const dab_geom *g, const dab_ragent *a, int n, int kind, const dab_oracle *oracle,
                       int games, int team, uint64_t seed, int threads, dab_rt_eval_out *o, dab_err *err) {
  memset(o, 0, sizeof *o);
  rt_job job = {.g = g, .a = a, .n = n, .kind = kind, .oracle = oracle, .games = games,
                .team = team >= 0 ? team : -1, .seed = seed, .threads = threads};
  rt_part s;
  dab_status st = rt_run(&job, &s, err);
  if (st) return st;
  if (games > 0) {
    o->win = (double)s.win / games;
    o->draw = (double)s.draw / games;
    o->diff = (double)s.diff / games;
  }
  o->activity = s.moves ? 1.0 - (double)s.randoms / (double)s.moves : 0;
  o->graded = s.graded;
  if (s.graded) {
    o->optimal = (double)s.optimal / (double)s.graded;
    o->kept = (double)s.kept / (double)s.graded;
    o->lost = (double)s.lost / (double)s.graded;
  }
  return DAB_OK;
}

dab_status dab_rt_opponent(const dab_geom *g, dab_player **out, dab_err *err) {
  return dab_player_new("chain", g, NULL, out, err);
}

dab_status dab_rt_grade_alone(const dab_geom *g, dab_ragent *a, int n, const dab_oracle *oracle, int games,
                              uint64_t seed, dab_err *err) {
  for (int i = 0; i < n; i++) a[i].fired = a[i].graded = a[i].optimal = 0, a[i].lost = 0;
  dab_rng rng;
  dab_rng_seed(&rng, seed);
  int16_t legal[DAB_MAX_LINES];
  dab_sgraph sg;
  for (int k = 0; k < games; k++) {
    dab_game game;
    dab_game_init(g, &game);
    while (!dab_game_over(g, &game)) {
      dab_sgraph_build(g, &game.lines, &sg);
      for (int i = 0; i < n; i++) {
        int line;
        if (!dab_rule_match(&a[i].rule, &sg, NULL, &rng, NULL, NULL, &line) || line < 0) continue;
        bool opt, kept;
        int lost;
        dab_status st = grade(oracle, &game, line, 0, &opt, &kept, &lost, err);
        if (st) return st;
        a[i].fired++, a[i].graded++, a[i].optimal += opt, a[i].lost += lost;
      }
      int nl = dab_legal_moves(g, &game.lines, legal);
      dab_game_play(g, &game, legal[dab_rng_below(&rng, nl)]);
    }
  }
  return DAB_OK;
}
