/*
** az_forward.c: the az net's forward pass, base vs x86-64-v3 build (game/isa.h), evals per CPU-second.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "agents/az.h"
#include "bench/benchutil.h"
#include "game/isa.h"

/*
** Usage: az_forward [MODEL.az|random [SECONDS [REPEATS]]]
** A 5x5 net of 6 blocks x 32 filters (vhidden 64), random unless an az
** model file is given; batches of 1 and 8 random positions.  Each figure
** is the median of REPEATS (default 5) runs of SECONDS/REPEATS CPU-seconds
** (default 5: CPU time, as the machine is shared), the two builds taking
** turns so that the load weighs on both alike.  Also checks that the two
** give the same bits.
*/
typedef void (*forward_fn)(const dab_az_net *, dab_az_scratch *, int, const float *, float *, float *);

static double evals_per_s(forward_fn f, const dab_az_net *net, dab_az_scratch *s, int nb, const float *x,
                          float *lg, float *v, double secs) {
  double t0 = dab_thread_cpu_s();
  long n = 0;
  while (dab_thread_cpu_s() - t0 < secs) {
    f(net, s, nb, x, lg, v);
    n += nb;
  }
  return (double)n / (dab_thread_cpu_s() - t0);
}

int main(int argc, char **argv) {
  const char *model = argc > 1 && strcmp(argv[1], "random") ? argv[1] : NULL;
  double secs = argc > 2 ? atof(argv[2]) : 5.0;
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  if (reps < 1 || reps > 99) reps = 5;
  dab_geom g;
  dab_err err;
  if (dab_geom_init(&g, 5, 5, &err)) return 1;
  dab_az_net *net = NULL;
  dab_az_model *m = NULL;
  if (model) {
    if (dab_az_model_load(model, &g, &m, &err)) {
      fprintf(stderr, "az_forward: %s\n", err.msg);
      return 1;
    }
    net = m->net;
  } else {
    size_t n = dab_az_net_size(5, 5, 6, 32, 64, 1);
    float *w = malloc(n * sizeof(float));
    dab_rng rng;
    dab_rng_seed(&rng, 2);
    for (size_t i = 0; w && i < n; i++) w[i] = (float)(dab_rng_unit(&rng) - 0.5) * 0.2f;
    if (!w || dab_az_net_new(5, 5, 6, 32, 64, 1, w, n, &net, &err)) return 1;
    free(w);
  }
  forward_fn fn[2] = {dab_az_forward_base, NULL};
  const char *name[2] = {"base", "v3"};
#if DAB_ISA_HAVE_V3
  if (dab_isa_v3_float()) fn[1] = dab_az_forward_v3;
#endif
  printf("net %s: 5x5, %d blocks x %d filters, vhidden %d; %.1f CPU-s a figure, median of %d\n",
         model ? model : "random", net->blocks, net->filters, net->vhidden, secs, reps);
  if (!fn[1]) printf("this CPU lacks x86-64-v3: base only\n");
  printf("%-6s %6s %14s %9s\n", "build", "batch", "evals/CPU-s", "vs base");
  enum { MAXB = 8 };
  size_t P = (size_t)DAB_AZ_PLANES * (size_t)net->hw;
  float *x = malloc(MAXB * P * sizeof *x), lg[2][MAXB * 64], v[2][MAXB];
  dab_az_scratch *s = dab_az_scratch_new(net, MAXB);
  if (!x || !s) return 1;
  dab_rng rng;
  dab_rng_seed(&rng, 1);
  for (int i = 0; i < MAXB; i++)
    dab_az_encode(net, &g, dab_rng_next(&rng) & g.all_lines, (int)(dab_rng_next(&rng) % 7) - 3,
                  x + (size_t)i * P);
  int batches[2] = {1, MAXB};
  bool same = true;
  for (int b = 0; b < 2; b++) {
    int nb = batches[b];
    double r[2][99];
    for (int i = 0; i < reps; i++)
      for (int k = 0; k < 2; k++)
        if (fn[k]) r[k][i] = evals_per_s(fn[k], net, s, nb, x, lg[k], v[k], secs / reps);
    if (fn[1])
      same &= !memcmp(lg[0], lg[1], (size_t)nb * (size_t)g.nlines * sizeof(float)) &&
              !memcmp(v[0], v[1], (size_t)nb * sizeof(float));
    double med[2];
    for (int k = 0; k < 2; k++) {
      if (!fn[k]) continue;
      qsort(r[k], (size_t)reps, sizeof(double), bench_cmp_double);
      med[k] = r[k][reps / 2];
      printf("%-6s %6d %14.0f %8.2fx\n", name[k], nb, med[k], med[k] / med[0]);
    }
  }
  if (fn[1]) printf("base and v3 give the same bits: %s\n", same ? "yes" : "NO");
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("peak RSS %ld KiB\n", ru.ru_maxrss);
  dab_az_scratch_free(s);
  free(x);
  if (m)
    dab_az_model_free(m);
  else
    dab_az_net_free(net);
  return same ? 0 : 1;
}
