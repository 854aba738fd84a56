/*
** az_ceiling.c: the az search with an exact evaluator (the oracle's value
** for the mover, margin or win/draw/loss; uniform or exact priors), or
** with one of the two from a trained net (value or prior "net", MODEL):
** the share of optimal moves the search allows with each head perfect,
** and the children pl_mcts_children offers that contain an optimal line.
** Usage: az_ceiling ROWS COLS SIMS POSITIONS_PER_STEP [margin|wdl|net]
**        [uniform|exact|net] [chainloop 0|1] [MODEL]
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agents/az_int.h"
#include "oracle/oracle.h"

typedef struct {
  const dab_oracle *o;
  bool margin, exact_prior, net_value, net_prior;
  dab_az_evaluator ev;
} ctx_t;

static void eval(void *vc, const dab_geom *g, const pl_mstate *st, dab_rng *rng, float *prior, float *value) {
  (void)rng;
  ctx_t *c = vc;
  int16_t mv[64], val[64];
  int n = 0;
  dab_err err;
  uint64_t p = dab_ls_word(&st->s);
  dab_oracle_move_values(c->o, p, mv, val, &n, &err);
  int best = -1000;
  for (int j = 0; j < n; j++)
    if (val[j] > best) best = val[j];
  int d = (st->turn == 0 ? st->diff : -st->diff) + best;
  *value = c->margin ? (float)d / (float)g->nboxes : (float)((d > 0) - (d < 0));
  for (int m = 0; m < g->nlines; m++) prior[m] = 0;
  for (int j = 0; j < n; j++) prior[mv[j]] = c->exact_prior ? (val[j] == best ? 1.0f : 0.01f) : 1.0f;
  if (c->net_value || c->net_prior) {
    float np[DAB_MAX_LINES], nv;
    dab_az_net_eval(&c->ev, g, st, rng, np, &nv);
    if (c->net_value) *value = nv;
    if (c->net_prior) memcpy(prior, np, sizeof(float) * (size_t)g->nlines);
  }
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: az_ceiling ROWS COLS SIMS PER_STEP [margin|wdl|net] [uniform|exact|net] "
                    "[chainloop 0|1] [MODEL]\n");
    return 2;
  }
  dab_err err;
  dab_geom g;
  if (dab_geom_init(&g, atoi(argv[1]), atoi(argv[2]), &err)) return 1;
  long sims = atol(argv[3]);
  int per = atoi(argv[4]);
  ctx_t c = {0};
  c.net_value = argc > 5 && !strcmp(argv[5], "net");
  c.margin = argc <= 5 || !strcmp(argv[5], "margin") || c.net_value;
  c.exact_prior = argc > 6 && !strcmp(argv[6], "exact");
  c.net_prior = argc > 6 && !strcmp(argv[6], "net");
  bool cl = argc <= 7 || atoi(argv[7]) != 0;
  dab_az_model *model = NULL;
  if (c.net_value || c.net_prior) {
    if (argc <= 8 || dab_az_model_load(argv[8], &g, &model, &err)) {
      fprintf(stderr, "az_ceiling: %s\n", argc <= 8 ? "value or prior \"net\" needs a MODEL" : err.msg);
      return 2;
    }
    c.ev.net = model->net;
    c.ev.scratch = dab_az_scratch_new(model->net, 1);
  }
  dab_oracle *o;
  dab_oracle_opts oo = {0};
  if (dab_oracle_open(g.rows, g.cols, &oo, &o, &err)) return 1;
  c.o = o;
  az_testpos *tp = malloc((size_t)per * (size_t)g.nlines * sizeof *tp);
  int ntp = az_random_positions(&g, per, 2026, tp, per * g.nlines);
  dab_az_search_opts so = {.sims = sims, .c_puct = 2, .chainloop = cl, .theorems = true, .margin = c.margin};
  dab_az_search *s = dab_az_search_new(&g, &so, eval, &c);
  long tot = 0, opt = 0, kept = 0, offered = 0;
  dab_rng rng;
  for (int i = 0; i < ntp; i++) {
    int16_t mv[64], val[64];
    int n;
    if (dab_oracle_move_values(o, tp[i].lines, mv, val, &n, &err) || n < 2) continue;
    int best = -1000;
    for (int j = 0; j < n; j++)
      if (val[j] > best) best = val[j];
    dab_game game;
    dab_game_init(&g, &game);
    game.lines = dab_ls_from_word(tp[i].lines);
    game.score[0] = tp[i].score_rel > 0 ? tp[i].score_rel : 0;
    game.score[1] = tp[i].score_rel < 0 ? -tp[i].score_rel : 0;
    pl_mstate st;
    pl_mstate_from_game(&g, &game, &st);
    dab_rng_seed2(&rng, 77, (uint64_t)i);
    dab_az_result r;
    if (dab_az_search_run(s, &st, &rng, &r, &err)) continue;
    int b = 0;
    for (int k = 1; k < r.nchild; k++)
      if (r.visits[k] > r.visits[b]) b = k;
    int line = r.line[b], d = tp[i].score_rel;
    bool any = false;
    for (int k = 0; k < r.nchild; k++)
      for (int j = 0; j < n; j++)
        if (mv[j] == r.line[k] && val[j] == best) any = true;
    offered += any;
    for (int j = 0; j < n; j++)
      if (mv[j] == line) {
        opt += val[j] == best;
        kept += ((d + val[j] > 0) - (d + val[j] < 0)) == ((d + best > 0) - (d + best < 0));
      }
    tot++;
  }
  printf("%dx%d sims %ld value %s prior %s chainloop %d: %ld positions, optimal %.4f, kept %.4f, "
         "an optimal child offered %.4f\n",
         g.rows, g.cols, sims, c.net_value ? "net" : c.margin ? "margin" : "wdl",
         c.net_prior ? "net" : c.exact_prior ? "exact" : "uniform", cl, tot,
         (double)opt / (double)tot, (double)kept / (double)tot, (double)offered / (double)tot);
  dab_az_search_free(s);
  if (model) {
    dab_az_scratch_free(c.ev.scratch);
    dab_az_model_free(model);
  }
  dab_oracle_close(o);
  free(tp);
  return 0;
}
