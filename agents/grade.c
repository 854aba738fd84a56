/*
** grade.c: an agent's matches against random and level1, every move of
** the agent graded against the oracle (margin and win/draw/loss).
** See Copyright Notice in README.md
*/
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "agents/agent.h"

static int sign(int x) { return (x > 0) - (x < 0); }

void dab_grade_move(const dab_analysis *a, int move, int d, bool *optimal, bool *kept, int *lost) {
  int mv = a->value;
  for (int i = 0; i < a->nmoves; i++)
    if (a->move[i] == move) mv = a->move_value[i];
  *optimal = mv == a->value;
  *lost = a->value - mv;
  *kept = sign(d + mv) == sign(d + a->value);
}

/* The arena plays the games; the agent is wrapped, one wrapper per arena
** thread, so that each of its moves is graded where it is made (the
** arena's own scoring has no score-aware result). */
#define GRADE_SLOTS 256

typedef struct slot {
  dab_player *inner;
  const dab_oracle *oracle;
  long moves, optimal, kept, lost, unscored;
} slot;

typedef struct run {
  const dab_grade_opts *o;
  atomic_int next;
  slot slots[GRADE_SLOTS];
} run;

static int wrapped_move(void *ctx, const dab_geom *g, const dab_game *game, dab_rng *rng) {
  (void)g;
  slot *s = ctx;
  int m = dab_player_move(s->inner, game, rng);
  dab_analysis a;
  if (dab_oracle_analyze(s->oracle, &game->lines, &a, NULL) != DAB_OK) {
    s->unscored++;
    return m;
  }
  int me = game->to_move;
  bool opt, kept;
  int lost;
  dab_grade_move(&a, m, game->score[me] - game->score[1 - me], &opt, &kept, &lost);
  s->moves++;
  s->optimal += opt;
  s->kept += kept;
  s->lost += lost;
  return m;
}

static dab_status make_wrapped(void *ctx, const dab_geom *g, dab_player **out, dab_err *err) {
  run *r = ctx;
  const dab_grade_opts *o = r->o;
  int i = atomic_fetch_add(&r->next, 1);
  if (i >= GRADE_SLOTS) return dab_fail(err, DAB_EINTERNAL, "grading: too many threads");
  slot *s = &r->slots[i];
  s->oracle = o->oracle;
  dab_status st;
  if (o->agent.make) st = o->agent.make(o->agent.ctx, g, &s->inner, err);
  else if (o->agent.spec) st = dab_player_new(o->agent.spec, g, o->env, &s->inner, err);
  else st = dab_fail(err, DAB_EINPUT, "grading: no agent given");
  if (st) return st;
  return dab_player_custom(dab_player_name(s->inner), g, wrapped_move, s, out, err);
}

dab_status dab_agent_grade(const dab_grade_opts *o, dab_grade *out, dab_err *err) {
  memset(out, 0, sizeof *out);
  int games = o->games ? o->games : DAB_GRADE_GAMES;
  if (games < 0 || games % 2)
    return dab_fail(err, DAB_EINPUT, "grading needs an even number of games, not %d", games);
  if (!o->oracle) return dab_fail(err, DAB_EBOARD, "grading needs an oracle for the board");
  const dab_geom *og = dab_oracle_geom(o->oracle);
  if (og->rows != o->g->rows || og->cols != o->g->cols)
    return dab_fail(err, DAB_EBOARD, "grading: the oracle is for %dx%d, the board is %dx%d",
                    og->rows, og->cols, o->g->rows, o->g->cols);
  static const char *opp[DAB_OPPONENTS] = {"random", "level1"};
  dab_game_record *rec = malloc((size_t)games * sizeof *rec);
  run *r = calloc(1, sizeof *r);
  if (!rec || !r) {
    free(rec);
    free(r);
    return dab_fail(err, DAB_ENOMEM, "out of memory for grading");
  }
  long moves = 0, optimal = 0, kept = 0, lost = 0;
  dab_status st = DAB_OK;
  for (int k = 0; k < DAB_OPPONENTS && !st; k++) {
    memset(r, 0, sizeof *r);
    r->o = o;
    uint64_t x = o->seed + (uint64_t)k;
    dab_match_opts mo = {
        .g = o->g,
        .player = {{.make = make_wrapped, .ctx = r}, {.spec = opp[k]}},
        .env = o->env,
        .oracle = NULL,
        .games = games,
        .threads = o->threads,
        .seed = dab_splitmix64(&x),
        .start_fraction = -1,
        .cancel = o->cancel,
    };
    st = dab_match_run(&mo, rec, err);
    int used = atomic_load(&r->next);
    for (int i = 0; i < used && i < GRADE_SLOTS; i++) {
      slot *s = &r->slots[i];
      moves += s->moves;
      optimal += s->optimal;
      kept += s->kept;
      lost += s->lost;
      dab_player_free(s->inner);
    }
    if (st) break;
    dab_match_summary sum;
    dab_match_summarize(rec, games, &sum);
    out->games[k] = sum.games;
    if (sum.games) {
      out->win[k] = (double)sum.wins[0] / sum.games;
      out->draw[k] = (double)sum.ties / sum.games;
      out->loss[k] = (double)sum.wins[1] / sum.games;
    }
  }
  free(rec);
  free(r);
  if (st) return st;
  out->moves = moves;
  if (moves) {
    out->optimal = (double)optimal / (double)moves;
    out->kept = (double)kept / (double)moves;
    out->lost = (double)lost / (double)moves;
  }
  return DAB_OK;
}

void dab_grade_values(const dab_grade *gr, double *v) {
  v[0] = gr->win[DAB_OPP_RANDOM];
  v[1] = gr->draw[DAB_OPP_RANDOM];
  v[2] = gr->win[DAB_OPP_LEVEL1];
  v[3] = gr->draw[DAB_OPP_LEVEL1];
  v[4] = gr->optimal;
  v[5] = gr->kept;
  v[6] = gr->lost;
}
