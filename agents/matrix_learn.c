/*
** matrix_learn.c: independent stateless Q-learners on matrix games
** (epsilon-greedy, lenient Boltzmann) and the replicator dynamics.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <string.h>
#include "agents/matrix.h"
#include "game/rng.h"

void dab_mlearn_defaults(dab_mlearn_kind kind, dab_mlearn_params *p) {
  memset(p, 0, sizeof *p);
  p->kind = kind;
  p->episodes = 10000;
  p->alpha = 0.05;
  p->gamma = 0.1;
  p->eps_min = 0.01;
  p->eps_max = 1.0;
  p->eps_decay = 0.001;
  p->t_max = 80.0;
  p->t_min = 0.01;
  p->t_step = 0.01;
  p->kappa = 5;
  p->q0_lo = -4.0;
  p->q0_hi = 4.0;
}

bool dab_mlearn_kind_parse(const char *s, dab_mlearn_kind *kind) {
  if (!strcmp(s, "egreedy")) *kind = DAB_MLEARN_EGREEDY;
  else if (!strcmp(s, "lenient")) *kind = DAB_MLEARN_LENIENT;
  else return false;
  return true;
}

/* One stateless learner. */
typedef struct learner {
  int n;
  double q[DAB_MATRIX_MAX];
  int count[DAB_MATRIX_MAX];   /* lenient: plays of the action since its last update */
  double best[DAB_MATRIX_MAX]; /* lenient: the largest reward among them */
} learner;

/* The policy l plays in episode k. */
static void policy(const learner *l, const dab_mlearn_params *p, int k, double *prob) {
  int n = l->n;
  double qmax = l->q[0];
  for (int a = 1; a < n; a++)
    if (l->q[a] > qmax) qmax = l->q[a];
  if (p->kind == DAB_MLEARN_EGREEDY) {
    double eps = p->eps_min + (p->eps_max - p->eps_min) * exp(-p->eps_decay * (double)k);
    int ties = 0;
    for (int a = 0; a < n; a++) ties += l->q[a] == qmax;
    for (int a = 0; a < n; a++)
      prob[a] = eps / n + (l->q[a] == qmax ? (1.0 - eps) / ties : 0.0);
  } else {
    double t = p->t_max - p->t_step * (double)k;
    if (t < p->t_min) t = p->t_min;
    double sum = 0;
    for (int a = 0; a < n; a++) sum += prob[a] = exp((l->q[a] - qmax) / t);
    for (int a = 0; a < n; a++) prob[a] /= sum;
  }
}

/* An action drawn from prob. */
static int sample(const double *prob, int n, dab_rng *rng) {
  double u = dab_rng_unit(rng), c = 0;
  for (int a = 0; a < n - 1; a++) {
    c += prob[a];
    if (u < c) return a;
  }
  return n - 1;
}

/* One Q-learning step on action a with reward r. */
static void update(learner *l, const dab_mlearn_params *p, int a, double r) {
  if (p->kind == DAB_MLEARN_LENIENT) {
    l->best[a] = l->count[a] ? fmax(l->best[a], r) : r;
    if (++l->count[a] < p->kappa) return;
    l->count[a] = 0;
    r = l->best[a];
  }
  double qmax = l->q[0];
  for (int b = 1; b < l->n; b++) qmax = fmax(qmax, l->q[b]);
  l->q[a] += p->alpha * (r + p->gamma * qmax - l->q[a]);
}

dab_status dab_mlearn_run(const dab_matrix_game *g, const dab_mlearn_params *p, uint64_t seed,
                          uint64_t run, int every, dab_mlearn_fn fn, void *ctx, double *final_row,
                          double *final_col, dab_err *err) {
  if (g->rows < 1 || g->cols < 1 || g->rows > DAB_MATRIX_MAX || g->cols > DAB_MATRIX_MAX)
    return dab_fail(err, DAB_EINPUT, "a game needs 1 to %d actions per player", DAB_MATRIX_MAX);
  if (p->episodes < 1 || !(p->alpha > 0 && p->alpha <= 1) || !(p->gamma >= 0 && p->gamma < 1) ||
      p->kappa < 1 || !(p->t_min > 0) || !(p->t_max >= p->t_min) || !(p->q0_hi >= p->q0_lo) ||
      every < 1)
    return dab_fail(err, DAB_EINPUT, "bad learning parameters (episodes >= 1, 0 < alpha <= 1, "
                                     "0 <= gamma < 1, kappa >= 1, 0 < t_min <= t_max)");
  double reward[2][DAB_MATRIX_MAX][DAB_MATRIX_MAX];
  for (int s = 0; s < 2; s++)
    for (int i = 0; i < g->rows; i++)
      for (int j = 0; j < g->cols; j++) reward[s][i][j] = dab_rat_to_double(g->pay[s][i][j]);
  dab_rng rng;
  dab_rng_seed2(&rng, seed, run);
  learner l[2];
  memset(l, 0, sizeof l);
  l[0].n = g->rows;
  l[1].n = g->cols;
  for (int s = 0; s < 2; s++)
    for (int a = 0; a < l[s].n; a++)
      l[s].q[a] = p->q0_lo + (p->q0_hi - p->q0_lo) * dab_rng_unit(&rng);
  double pr[2][DAB_MATRIX_MAX];
  for (int k = 0;; k++) {
    policy(&l[0], p, k, pr[0]);
    policy(&l[1], p, k, pr[1]);
    if (fn && (k % every == 0 || k == p->episodes) && fn(ctx, k, pr[0], pr[1]))
      return dab_fail(err, DAB_ECANCELED, "learning stopped at episode %d", k);
    if (k == p->episodes) break;
    int i = sample(pr[0], l[0].n, &rng), j = sample(pr[1], l[1].n, &rng);
    update(&l[0], p, i, reward[0][i][j]);
    update(&l[1], p, j, reward[1][i][j]);
  }
  if (final_row) memcpy(final_row, pr[0], sizeof(double) * (size_t)g->rows);
  if (final_col) memcpy(final_col, pr[1], sizeof(double) * (size_t)g->cols);
  return DAB_OK;
}

void dab_matrix_replicator(const dab_matrix_game *g, const double *x, const double *y, double *dx,
                           double *dy) {
  double ay[DAB_MATRIX_MAX], xb[DAB_MATRIX_MAX], xay = 0, xby = 0;
  for (int i = 0; i < g->rows; i++) {
    ay[i] = 0;
    for (int j = 0; j < g->cols; j++) ay[i] += dab_rat_to_double(g->pay[0][i][j]) * y[j];
    xay += x[i] * ay[i];
  }
  for (int j = 0; j < g->cols; j++) {
    xb[j] = 0;
    for (int i = 0; i < g->rows; i++) xb[j] += x[i] * dab_rat_to_double(g->pay[1][i][j]);
    xby += xb[j] * y[j];
  }
  for (int i = 0; i < g->rows; i++) dx[i] = x[i] * (ay[i] - xay);
  for (int j = 0; j < g->cols; j++) dy[j] = y[j] * (xb[j] - xby);
}
