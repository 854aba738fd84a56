/*
** arena.c: the match engine behind `dab arena`: games over pthreads,
** oracle scoring of every move, totals with 95% intervals.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "players/arena.h"
#include "players/pint.h"
#include "game/clock.h"

void dab_player_set_cancel(dab_player *p, dab_cancel_flag *cancel) {
  if (p) p->cancel = cancel;
}

/* Shared by the worker threads of one match. */
typedef struct match {
  const dab_match_opts *o;
  dab_game_record *rec;
  atomic_int next, done, failed;
  dab_status fail_status;
  char fail_msg[DAB_ERR_LEN];
  pthread_mutex_t fail_lock;
} match;

static void fail(match *mt, dab_status st, const char *msg) {
  pthread_mutex_lock(&mt->fail_lock);
  if (!atomic_load(&mt->failed)) {
    mt->fail_status = st;
    snprintf(mt->fail_msg, sizeof mt->fail_msg, "%s", msg);
  }
  atomic_store(&mt->failed, 1);
  pthread_mutex_unlock(&mt->fail_lock);
}

void dab_random_start(const dab_geom *g, double fraction, dab_rng *rng, dab_game *game) {
  dab_game_init(g, game);
  int target = (int)lround(fraction * g->nlines);
  int16_t safe[DAB_MAX_LINES];
  for (int drawn = 0; drawn < target; drawn++) {
    int n = 0;
    for (int m = 0; m < g->nlines; m++) {
      if (dab_ls_has(&game->lines, m)) continue;
      bool ok = true;
      for (int j = 0; j < 2; j++) {
        int b = g->line_box[m][j];
        if (b >= 0 && dab_box_sides(g, &game->lines, b) >= 2) ok = false;
      }
      if (ok) safe[n++] = (int16_t)m;
    }
    if (!n) break;
    dab_ls_set(&game->lines, safe[dab_rng_below(rng, n)]);
  }
}

/*
** Game gi: p1 first when gi is even; games 2k and 2k+1 share their start.
** Seeds: the start from (seed, pair), each player from (seed, 2*gi + p).
*/
static void play_game(match *mt, dab_player *pl[2], int local) {
  const dab_match_opts *o = mt->o;
  const dab_geom *g = o->g;
  dab_game_record *r = &mt->rec[local];
  int gi = o->first_game + local;
  memset(r, 0, sizeof *r);
  r->p1_first = gi % 2 == 0;
  dab_game game;
  if (o->start) game = *o->start;
  else if (o->start_fraction >= 0) {
    dab_rng srng;
    dab_rng_seed2(&srng, o->seed, 0x5eed0000ull + (uint64_t)(gi / 2));
    dab_random_start(g, o->start_fraction, &srng, &game);
  } else dab_game_init(g, &game);
  r->start_lines = dab_ls_count(&game.lines);
  r->start = game.lines;
  int base[2] = {game.score[0], game.score[1]};
  int at_seat[2] = {r->p1_first ? 0 : 1, r->p1_first ? 1 : 0};  /* player at seat */
  dab_rng rng[2];
  dab_rng_seed2(&rng[0], o->seed, (uint64_t)gi * 2);
  dab_rng_seed2(&rng[1], o->seed, (uint64_t)gi * 2 + 1);
  dab_analysis *a = o->oracle ? malloc(sizeof *a) : NULL;
  while (!dab_game_over(g, &game)) {
    int who = at_seat[game.to_move];
    dab_side_stats *ss = &r->side[who];
    int drawn = dab_ls_count(&game.lines);
    double t0 = dab_now_s();
    int m = dab_player_move(pl[who], &game, &rng[who]);
    ss->seconds += dab_now_s() - t0;
    ss->moves++;
    if (m < 0 || m >= g->nlines || dab_ls_has(&game.lines, m)) {
      char msg[DAB_ERR_LEN];
      snprintf(msg, sizeof msg, "player '%.160s' played an illegal line %d in game %d",
               dab_player_name(pl[who]), m, gi);
      fail(mt, DAB_EINTERNAL, msg);
      free(a);
      return;  /* the record stays not done */
    }
    if (a && dab_oracle_analyze(o->oracle, &game.lines, a, NULL) == DAB_OK) {
      int mv = a->value;
      for (int i = 0; i < a->nmoves; i++)
        if (a->move[i] == m) mv = a->move_value[i];
      int phase = drawn * 3 < g->nlines       ? DAB_PHASE_OPENING
                  : drawn * 3 < 2 * g->nlines ? DAB_PHASE_MIDDLE
                                              : DAB_PHASE_ENDGAME;
      ss->scored++;
      ss->phase_moves[phase]++;
      if (mv == a->value) ss->optimal++;
      else {
        ss->lost += a->value - mv;
        ss->blunders[phase]++;
      }
    }
    dab_game_play(g, &game, m);
    if (o->cancel && *o->cancel) {  /* the move may have been cut short */
      free(a);
      return;                       /* the record stays not done */
    }
  }
  free(a);
  for (int seat = 0; seat < 2; seat++) r->score[at_seat[seat]] = game.score[seat] - base[seat];
  r->done = true;
}

static dab_status make_player(const dab_match_opts *o, int i, dab_player **out, dab_err *err) {
  const dab_match_player *mp = &o->player[i];
  if (mp->make) return mp->make(mp->ctx, o->g, out, err);
  if (!mp->spec) return dab_fail(err, DAB_EINPUT, "p%d: no player given", i + 1);
  return dab_player_new(mp->spec, o->g, o->env, out, err);
}

static void *worker(void *arg) {
  match *mt = arg;
  const dab_match_opts *o = mt->o;
  dab_player *pl[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    dab_err err;
    dab_status st = make_player(o, i, &pl[i], &err);
    if (st) {
      char msg[DAB_ERR_LEN];
      snprintf(msg, sizeof msg, "p%d: %.200s", i + 1, err.msg);
      fail(mt, st, msg);
      goto out;
    }
    dab_player_set_cancel(pl[i], o->cancel);
  }
  for (;;) {
    if (atomic_load(&mt->failed) || (o->cancel && *o->cancel)) break;
    int gi = atomic_fetch_add(&mt->next, 1);
    if (gi >= o->games) break;
    play_game(mt, pl, gi);
    atomic_fetch_add(&mt->done, 1);
  }
out:
  dab_player_free(pl[0]);
  dab_player_free(pl[1]);
  return NULL;
}

dab_status dab_match_run(const dab_match_opts *o, dab_game_record *records, dab_err *err) {
  match mt;
  memset(&mt, 0, sizeof mt);
  mt.o = o;
  mt.rec = records;
  for (int i = 0; i < o->games; i++) records[i].done = false;
  pthread_mutex_init(&mt.fail_lock, NULL);
  int threads = o->threads > 0 ? o->threads : 1;
  if (threads > o->games) threads = o->games > 0 ? o->games : 1;
  if (threads > 256) threads = 256;
  pthread_t tid[256];
  int started = 0;
  double t0 = dab_now_s(), last = 0;
  for (int i = 0; i < threads; i++)
    if (pthread_create(&tid[i], NULL, worker, &mt) == 0) started++;
  if (!started) worker(&mt);
  char what[64];
  snprintf(what, sizeof what, "arena %dx%d", o->g->rows, o->g->cols);
  while (started && atomic_load(&mt.done) < o->games && !atomic_load(&mt.failed) &&
         !(o->cancel && *o->cancel)) {
    double t = dab_now_s() - t0;
    if (o->progress && t - last >= DAB_PROGRESS_INTERVAL) {
      dab_progress pr = {what, (uint64_t)atomic_load(&mt.done), (uint64_t)o->games, t};
      o->progress(o->progress_ctx, &pr);
      last = t;
    }
    usleep(2000);
  }
  for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
  pthread_mutex_destroy(&mt.fail_lock);
  if (atomic_load(&mt.failed)) return dab_fail(err, mt.fail_status, "%s", mt.fail_msg);
  if (atomic_load(&mt.done) < o->games)
    return dab_fail(err, DAB_ECANCELED, "canceled after %d of %d games", atomic_load(&mt.done),
                    o->games);
  return DAB_OK;
}

void dab_match_summarize(const dab_game_record *records, int games, dab_match_summary *s) {
  memset(s, 0, sizeof *s);
  double sum = 0, sum2 = 0;
  for (int i = 0; i < games; i++) {
    const dab_game_record *r = &records[i];
    if (!r->done) continue;
    s->games++;
    int d = r->score[0] - r->score[1];
    sum += d;
    sum2 += (double)d * d;
    if (d > 0) s->wins[0]++;
    else if (d < 0) s->wins[1]++;
    else s->ties++;
    for (int p = 0; p < 2; p++) {
      dab_side_stats *a = &s->side[p];
      const dab_side_stats *b = &r->side[p];
      a->moves += b->moves;
      a->seconds += b->seconds;
      a->scored += b->scored;
      a->optimal += b->optimal;
      a->lost += b->lost;
      for (int k = 0; k < DAB_PHASES; k++) {
        a->blunders[k] += b->blunders[k];
        a->phase_moves[k] += b->phase_moves[k];
      }
    }
  }
  s->sum = sum;
  s->sum2 = sum2;
  if (s->games) {
    s->margin = sum / s->games;
    double var = s->games > 1 ? (sum2 - sum * sum / s->games) / (s->games - 1) : 0;
    s->margin_ci = 1.96 * sqrt(var > 0 ? var / s->games : 0);
  }
}

void dab_match_summary_merge(dab_match_summary *s, const dab_match_summary *part) {
  s->games += part->games;
  s->ties += part->ties;
  s->sum += part->sum;
  s->sum2 += part->sum2;
  for (int p = 0; p < 2; p++) {
    s->wins[p] += part->wins[p];
    dab_side_stats *a = &s->side[p];
    const dab_side_stats *b = &part->side[p];
    a->moves += b->moves;
    a->seconds += b->seconds;
    a->scored += b->scored;
    a->optimal += b->optimal;
    a->lost += b->lost;
    for (int k = 0; k < DAB_PHASES; k++) {
      a->blunders[k] += b->blunders[k];
      a->phase_moves[k] += b->phase_moves[k];
    }
  }
  s->margin = s->margin_ci = 0;
  if (s->games) {
    s->margin = s->sum / s->games;
    double var = s->games > 1 ? (s->sum2 - s->sum * s->sum / s->games) / (s->games - 1) : 0;
    s->margin_ci = 1.96 * sqrt(var > 0 ? var / s->games : 0);
  }
}
