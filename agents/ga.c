/*
** ga.c: the genetic algorithm of seed paper 002: operators and fitness schemes.
** See Copyright Notice in README.md
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "agents/nn.h"

void dab_ga_scale(const double *raw, double *scaled, int n, double cmult) {
  double sum = 0, mx = -INFINITY, mn = INFINITY;
  for (int i = 0; i < n; i++) {
    sum += raw[i];
    if (raw[i] > mx) mx = raw[i];
    if (raw[i] < mn) mn = raw[i];
  }
  double avg = sum / n, a = 1, b = 0;
  if (mx > avg) {
    if (mn > (cmult * avg - mx) / (cmult - 1.0)) {
      double d = mx - avg;
      a = (cmult - 1.0) * avg / d;
      b = avg * (mx - cmult * avg) / d;
    } else if (avg > mn) {
      double d = avg - mn;
      a = avg / d;
      b = -mn * avg / d;
    }
  }
  for (int i = 0; i < n; i++) {
    double f = a * raw[i] + b;
    scaled[i] = f > 0 ? f : 0;
  }
}

int dab_ga_select(const double *fit, int n, double total, dab_rng *rng) {
  double r = dab_rng_unit(rng) * total, acc = 0;
  for (int i = 0; i < n; i++) {
    acc += fit[i];
    if (r < acc) return i;
  }
  for (int i = n - 1; i > 0; i--)  /* rounding: the last with any fitness */
    if (fit[i] > 0) return i;
  return 0;
}

void dab_ga_crossover(const uint16_t *a, const uint16_t *b, uint16_t *c1, uint16_t *c2, int ngenes,
                      int point) {
  int gi = point / DAB_NN_GENE_BITS, r = point % DAB_NN_GENE_BITS;
  memcpy(c1, a, sizeof *a * (size_t)gi);
  memcpy(c2, b, sizeof *b * (size_t)gi);
  int from = gi;
  if (r) {
    uint16_t hi = (uint16_t)(((1u << r) - 1) << (DAB_NN_GENE_BITS - r));
    c1[gi] = (uint16_t)((a[gi] & hi) | (b[gi] & ~hi & 1023));
    c2[gi] = (uint16_t)((b[gi] & hi) | (a[gi] & ~hi & 1023));
    from = gi + 1;
  }
  if (from < ngenes) {
    memcpy(c1 + from, b + from, sizeof *b * (size_t)(ngenes - from));
    memcpy(c2 + from, a + from, sizeof *a * (size_t)(ngenes - from));
  }
}

long dab_ga_mutate(uint16_t *genes, int ngenes, double p, dab_rng *rng) {
  if (p <= 0) return 0;
  long nbits = (long)ngenes * DAB_NN_GENE_BITS, flips = 0;
  double lq = log1p(-p);
  for (long bit = -1;;) {
    double u = 1.0 - dab_rng_unit(rng); /* (0, 1] */
    double skip = p >= 1 ? 0 : floor(log(u) / lq);
    if (skip >= (double)(nbits - bit - 1)) break;
    bit += 1 + (long)skip;
    genes[bit / DAB_NN_GENE_BITS] ^= (uint16_t)(1u << (DAB_NN_GENE_BITS - 1 - bit % DAB_NN_GENE_BITS));
    flips++;
  }
  return flips;
}

void dab_ga_random(uint16_t *genes, int ngenes, dab_rng *rng) {
  for (int i = 0; i < ngenes; i++) genes[i] = (uint16_t)(dab_rng_next(rng) >> 54);
}

int dab_ga_generation(const uint16_t *pop, const double *fit, int n, int ngenes, uint16_t *next,
                      const dab_ga_params *par, dab_rng *rng) {
  int elite = 0;
  double total = 0;
  for (int i = 0; i < n; i++) {
    total += fit[i];
    if (fit[i] > fit[elite]) elite = i;
  }
  size_t gs = (size_t)ngenes;
  memcpy(next, pop + (size_t)elite * gs, gs * sizeof *next);
  int nbits = ngenes * DAB_NN_GENE_BITS;
  for (int k = 1; k < n; k += 2) {
    const uint16_t *a = pop + (size_t)dab_ga_select(fit, n, total, rng) * gs;
    const uint16_t *b = pop + (size_t)dab_ga_select(fit, n, total, rng) * gs;
    uint16_t *c1 = next + (size_t)k * gs;
    bool two = k + 1 < n;
    uint16_t *c2 = two ? next + (size_t)(k + 1) * gs : NULL;
    if (dab_rng_unit(rng) < par->crossover && nbits > 1) {
      int point = 1 + dab_rng_below(rng, nbits - 1);
      if (two) {
        dab_ga_crossover(a, b, c1, c2, ngenes, point);
      } else {
        uint16_t *tmp = malloc(gs * sizeof *tmp);
        if (tmp) {
          dab_ga_crossover(a, b, c1, tmp, ngenes, point);
          free(tmp);
        } else {
          memcpy(c1, a, gs * sizeof *c1);
        }
      }
    } else {
      memcpy(c1, a, gs * sizeof *c1);
      if (two) memcpy(c2, b, gs * sizeof *c2);
    }
    dab_ga_mutate(c1, ngenes, par->mutation, rng);
    if (two) dab_ga_mutate(c2, ngenes, par->mutation, rng);
  }
  return elite;
}

/* ---- Fitness schemes ---------------------------------------------------- */

/* A seed per match from the generation's seed and the two sides. */
static uint64_t match_seed(uint64_t seed, int a, int b) {
  uint64_t x = seed ^ ((uint64_t)(uint32_t)a << 32 | (uint32_t)b);
  return dab_splitmix64(&x);
}

void dab_ga_fitness_direct(int n, int matches, dab_ga_match_fn fn, void *ctx, uint64_t seed,
                           double bonus, double cmult, double *fit) {
  for (int i = 0; i < n; i++) {
    double f = 0;
    for (int k = 0; k < matches; k++) {
      int wins = fn(ctx, i, -1 - k, match_seed(seed, i, -1 - k)) / 3;
      f += wins == 2 ? 1.0 : (wins == 1 ? 0.5 : 0.0);
    }
    fit[i] = f + bonus;
  }
  if (cmult > 1) dab_ga_scale(fit, fit, n, cmult);
}

void dab_ga_fitness_roundrobin(int n, dab_ga_match_fn fn, void *ctx, uint64_t seed, double bonus,
                               double *fit) {
  for (int i = 0; i < n; i++) fit[i] = bonus;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      int r = fn(ctx, i, j, match_seed(seed, i, j));
      int s = 2 * (r / 3) + r % 3; /* half games of i; j has 4 - s */
      if (s > 2) fit[i] += 1;
      else if (s < 2) fit[j] += 1;
      else {
        fit[i] += 0.5;
        fit[j] += 0.5;
      }
    }
}

long dab_ga_fitness_ifs(int n, double antigen_share, double antibody_share, double points,
                        dab_ga_match_fn fn, void *ctx, dab_rng *rng, uint64_t seed, double bonus,
                        double *fit) {
  int nag = (int)lround(antigen_share * n), nab = (int)lround(antibody_share * n);
  if (nag > n) nag = n;
  if (nab > n - 1) nab = n - 1;
  int *perm = malloc(sizeof(int) * (size_t)n * 3);
  for (int i = 0; i < n; i++) fit[i] = bonus;
  if (!perm) return 0;
  int *ab = perm + n, *shares = perm + 2 * n;
  for (int i = 0; i < n; i++) perm[i] = i;
  for (int i = 0; i < nag; i++) {  /* partial Fisher-Yates: the antigens */
    int j = i + dab_rng_below(rng, n - i), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  long played = 0;
  for (int a = 0; a < nag; a++) {
    int ag = perm[a];
    int m = 0;
    for (int i = 0; i < n; i++)
      if (i != ag) ab[m++] = i;
    for (int i = 0; i < nab; i++) {
      int j = i + dab_rng_below(rng, m - i), t = ab[i];
      ab[i] = ab[j];
      ab[j] = t;
    }
    int total = 0;
    for (int i = 0; i < nab; i++) {
      int wins = fn(ctx, ab[i], ag, match_seed(seed, ab[i], ag)) / 3;
      shares[i] = wins == 2 ? 4 : wins;
      total += shares[i];
      played++;
    }
    if (total)
      for (int i = 0; i < nab; i++) fit[ab[i]] += points * shares[i] / total;
  }
  free(perm);
  return played;
}
