/*
** az_selfplay.c: BoxesZero / AlphaZero self-play: an iteration's games,
** many in flight per thread, their positions evaluated by the net in batches.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "agents/az_int.h"

/* The stage's root noise and threshold: the published advancement table
** (dab_az_table_row; my reading: rows in increasing step order) for a
** backward run that uses it, else the options' own. */
static void run_stage(const az_play *play, double *noise, double *mqth) {
  *noise = play->o->noise_eps;
  *mqth = play->o->mqth;
  if (play->o->backward && play->o->table) dab_az_table_row(play->g->nlines, (int)play->step_k, noise, mqth);
}

/* Appends a sample; out of memory marks the game (az_play_games fails). */
static void push(az_game_out *o, const az_sample *s) {
  if (o->n == o->cap) {
    int cap = o->cap ? 2 * o->cap : 64;
    az_sample *ns = realloc(o->s, (size_t)cap * sizeof *ns);
    if (!ns) {
      o->oom = true;
      return;
    }
    o->s = ns;
    o->cap = cap;
  }
  o->s[o->n++] = *s;
}

static float target_of(const az_play *play, int diff_for_mover) {
  if (play->o->margin) return (float)diff_for_mover / (float)play->g->nboxes;
  return diff_for_mover > 0 ? 1.0f : diff_for_mover < 0 ? -1.0f : 0.0f;
}

static bool confident(const az_play *play, double x, double z, double th) {
  if (play->o->margin || z == 0) return fabs(x - z) <= 1 - th;
  return z > 0 ? x >= th : x <= -th;
}

/*
** One self-play game (index gi of the current iteration) as a state
** machine, so that a worker can keep many games in flight and evaluate
** their positions in one batch.  A game needs the net at each move of a
** policy-drawn prefix (backward training) and at each leaf of its
** searches; sp_need names the position, sp_feed takes its logits and
** value and runs the game on to its next need.  Everything a game draws
** comes from its own random stream, in the order the search draws it, so
** its moves and samples do not depend on which games share its batches.
*/
typedef struct az_rec {
  uint64_t lines;
  int16_t score;
  int turn;
  float pi[64];
  float q, v;
} az_rec;

typedef struct az_sp_game {
  bool live;
  az_game_out *out;
  dab_rng rng;
  pl_mstate st;
  int prefix_left;              /* policy-drawn prefix moves still to play */
  int16_t mv[DAB_MAX_LINES];    /* the prefix move's legal lines, and */
  int nmv, fallback;            /* its random line (rounding's fallback) */
  bool searching;
  double mqth;                  /* the stage's advancement threshold */
  dab_az_search *S;             /* the slot's, kept from game to game */
  az_rec rec[DAB_MAX_LINES];
  int nr;
} az_sp_game;

/* Plays random prefix lines, or stops at the next policy-drawn one (its
** random line is drawn first, as the fallback). */
static void sp_prefix(const az_play *play, az_sp_game *G) {
  const dab_geom *g = play->g;
  while (G->prefix_left > 0 && G->st.left > 1) {
    G->nmv = dab_legal_moves(g, &G->st.s, G->mv);
    G->fallback = G->mv[dab_rng_below(&G->rng, G->nmv)];
    if (!play->o->prefix_random) return;
    pl_mcts_apply(g, &G->st, G->fallback);
    G->prefix_left--;
  }
  G->prefix_left = 0;
}

/* Starts the search of the next move, or ends the game (live = false)
** and writes its root samples. */
static void sp_next_search(const az_play *play, az_sp_game *G) {
  dab_err err;
  if (G->st.left > 0) {
    if (!dab_az_search_begin(G->S, &G->st, &G->rng, &err)) {
      G->searching = true;
      return;
    }
    G->out->oom = true;   /* no room for the tree: the game ends, the run fails */
  }
  G->searching = false;
  G->live = false;
  for (int i = 0; i < G->nr; i++) {
    float z = target_of(play, G->rec[i].turn == 0 ? G->st.diff : -G->st.diff);
    az_sample a = {G->rec[i].lines, G->rec[i].score, 0, (int32_t)play->iter, z, {0}};
    memcpy(a.pi, G->rec[i].pi, sizeof a.pi);
    push(G->out, &a);
    G->out->npos++;
    G->out->nmq += confident(play, G->rec[i].q, z, G->mqth);
    G->out->nnv += confident(play, G->rec[i].v, z, play->o->nvth);
  }
}

/* A finished search: its samples, then the move it picks. */
static void sp_move(const az_play *play, az_sp_game *G) {
  const dab_geom *g = play->g;
  int L = g->nlines;
  dab_az_result r;
  dab_az_search_result(G->S, &r);
  int pick = 0;
  if (r.nchild >= 2) {
    az_rec *x = &G->rec[G->nr++];
    x->lines = dab_ls_word(&G->st.s);
    x->score = (int16_t)(G->st.turn == 0 ? G->st.diff : -G->st.diff);
    x->turn = G->st.turn;
    memcpy(x->pi, r.pi, sizeof x->pi);
    x->q = (float)r.q;
    x->v = r.net_value;
    const dab_az_node_sample *ns = dab_az_search_samples(G->S);
    for (int i = 0; i < r.nsamples; i++) {
      az_sample a = {dab_ls_word(&ns[i].st.s), (int16_t)(ns[i].st.turn == 0 ? ns[i].st.diff : -ns[i].st.diff),
                     0, (int32_t)play->iter, ns[i].q, {0}};
      memcpy(a.pi, ns[i].pi, sizeof a.pi);
      push(G->out, &a);
    }
    pick = dab_az_pick(&r, L - G->st.left < play->o->temp_frac * L, &G->rng);
  }
  pl_mcts_apply(g, &G->st, r.move[pick]);
}

/* Starts game gi in G (its slot's search object kept). */
static void sp_start(const az_play *play, az_sp_game *G, long gi, az_game_out *out, double mqth) {
  *G = (az_sp_game){.S = G->S, .out = out, .live = true, .mqth = mqth};
  dab_rng_seed2(&G->rng, play->seed ^ ((uint64_t)play->iter * 0x9e3779b97f4a7c15ull), (uint64_t)gi);
  dab_game game;
  dab_game_init(play->g, &game);
  pl_mstate_from_game(play->g, &game, &G->st);
  G->prefix_left = play->o->backward ? play->g->nlines - (int)play->step_k : 0;
  sp_prefix(play, G);
  if (G->prefix_left == 0) sp_next_search(play, G);
}

/* The position whose evaluation game G waits for. */
static const pl_mstate *sp_need(const az_sp_game *G) {
  return G->searching ? dab_az_search_leaf(G->S) : &G->st;
}

/* Gives G the net's logits and value of sp_need's position and runs it to
** its next need (or its end). */
static void sp_feed(const az_play *play, az_sp_game *G, const float *logits, float value) {
  const dab_geom *g = play->g;
  float prior[DAB_MAX_LINES];
  const pl_mstate *at = sp_need(G);
  dab_az_prior_of(g, dab_ls_word(&at->s), logits, prior);
  if (!G->searching) {
    pl_mcts_apply(g, &G->st, dab_az_prior_pick(prior, G->mv, G->nmv, G->fallback, &G->rng));
    G->prefix_left--;
    sp_prefix(play, G);
    if (G->prefix_left == 0) sp_next_search(play, G);
    return;
  }
  dab_err err;
  if (dab_az_search_feed(G->S, prior, value, &err)) {
    G->searching = false;   /* no room for the root's children: the game ends, the run fails */
    G->out->oom = true;
    G->st.left = 0;
    sp_next_search(play, G);
    return;
  }
  while (G->live && !dab_az_search_leaf(G->S)) {
    sp_move(play, G);
    sp_next_search(play, G);
  }
}

typedef struct az_pool {
  const az_play *play;
  dab_az_search_opts so;        /* every game's search (one stage per call) */
  double mqth;
  az_game_out *outs;
  atomic_long next;
  long ngames;
  dab_cancel_flag *cancel;
  bool oom;
} az_pool;

/*
** A worker thread: up to eval_batch games in flight, their pending
** positions evaluated by the net in one batch (a wider matrix product
** per layer), new games taken as games end.
*/
static void *worker(void *arg) {
  az_pool *P = arg;
  const az_play *play = P->play;
  const dab_az_net *net = play->net;
  int B = (int)(play->o->eval_batch > 0 ? play->o->eval_batch : 1), hw = net->hw, L = play->g->nlines;
  dab_az_scratch *scratch = dab_az_scratch_new(net, B);
  az_sp_game *games = calloc((size_t)B, sizeof *games);
  float *planes = malloc((size_t)B * DAB_AZ_PLANES * (size_t)hw * sizeof *planes);
  float *logits = malloc((size_t)B * (size_t)L * sizeof *logits), *values = malloc((size_t)B * sizeof *values);
  int *slot = malloc((size_t)B * sizeof *slot);
  bool ok = scratch && games && planes && logits && values && slot, more = true;
  for (int i = 0; ok && i < B; i++) ok = (games[i].S = dab_az_search_new(play->g, &P->so, NULL, NULL)) != NULL;
  while (ok) {
    if (P->cancel && *P->cancel) break;
    int n = 0;
    for (int i = 0; i < B; i++) {
      while (!games[i].live && more) {
        long gi = atomic_fetch_add(&P->next, 1);
        if (gi >= P->ngames) more = false;
        else sp_start(play, &games[i], gi, &P->outs[gi], P->mqth);
      }
      if (!games[i].live) continue;
      const pl_mstate *at = sp_need(&games[i]);
      dab_az_encode(net, play->g, dab_ls_word(&at->s), at->turn == 0 ? at->diff : -at->diff,
                    planes + (size_t)n * DAB_AZ_PLANES * (size_t)hw);
      slot[n++] = i;
    }
    if (!n) break;
    dab_az_forward(net, scratch, n, planes, logits, values);
    for (int j = 0; j < n; j++) sp_feed(play, &games[slot[j]], logits + (size_t)j * (size_t)L, values[j]);
  }
  if (!ok) P->oom = true;
  for (int i = 0; games && i < B; i++) dab_az_search_free(games[i].S);
  free(games);
  free(planes);
  free(logits);
  free(values);
  free(slot);
  dab_az_scratch_free(scratch);
  return NULL;
}


dab_status az_play_games(const az_play *play, long ngames, int threads, dab_cancel_flag *cancel,
                         az_game_out *outs, dab_err *err) {
  int L = play->g->nlines;
  double noise;
  az_pool P = {.play = play, .outs = outs, .ngames = ngames, .cancel = cancel};
  run_stage(play, &noise, &P.mqth);
  P.so = (dab_az_search_opts){.sims = play->o->sims, .c_puct = play->o->c, .chainloop = play->o->chainloop,
                              .theorems = play->o->theorems, .margin = play->o->margin, .noise_eps = noise,
                              .noise_alpha = 10.0 / L,
                              .filter = play->o->backward && play->step_k < L ? play->o->filter : 0};
  atomic_init(&P.next, 0);
  pthread_t th[64];
  int started = 0;
  for (; started < threads - 1 && started < 64; started++)
    if (pthread_create(&th[started], NULL, worker, &P)) break;
  worker(&P);
  for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
  for (long i = 0; i < ngames; i++) P.oom |= outs[i].oom;
  if (P.oom) return dab_fail(err, DAB_ENOMEM, "az: out of memory for self-play");
  if (cancel && *cancel) return dab_fail(err, DAB_ECANCELED, "stopped");
  return DAB_OK;
}
