/*
** az_supervised.c: what the az net can learn when its targets are exact:
** trains it by supervised learning on oracle labels (value: the exact
** final margin for the mover; policy: uniform over the optimal lines) of
** random-play positions, then grades it as az_steps does (search move at
** SIMS simulations, policy argmax, value error; 100 random-play positions
** a step from seed 2026, which the training positions, seed 77, are not).
** A diagnostic of capacity, not a way to train an agent: self-play never
** sees the oracle.
** Usage: az_supervised ROWS COLS PER_STEP EPOCHS BLOCKS FILTERS VHIDDEN SIMS [BATCH [LR [VFILTERS [OUT.model]]]]
** (batch 1024, lr 0.001 and one value channel by default, as self-play trains; grades after
** epochs 1, 2, 4, 8, ... and the last)
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include "agents/az_int.h"
#include "bench/benchutil.h"

/* The exact labels of n positions into samples (positions with one move skipped). */
static size_t label(const dab_geom *g, const dab_oracle *o, const az_testpos *tp, int n, az_sample *out) {
  size_t k = 0;
  dab_err err;
  for (int i = 0; i < n; i++) {
    int16_t mv[64], val[64];
    int nm;
    if (dab_oracle_move_values(o, tp[i].lines, mv, val, &nm, &err) || nm < 2) continue;
    int best = -1000, nbest = 0;
    for (int j = 0; j < nm; j++)
      if (val[j] > best) best = val[j];
    for (int j = 0; j < nm; j++) nbest += val[j] == best;
    az_sample *s = &out[k++];
    memset(s, 0, sizeof *s);
    s->lines = tp[i].lines;
    s->score_rel = tp[i].score_rel;
    s->z = (float)(tp[i].score_rel + best) / (float)g->nboxes;
    for (int j = 0; j < nm; j++) s->pi[mv[j]] = val[j] == best ? 1.0f / (float)nbest : 0.0f;
  }
  return k;
}

int main(int argc, char **argv) {
  if (argc < 9) {
    fprintf(stderr, "usage: az_supervised ROWS COLS PER_STEP EPOCHS BLOCKS FILTERS VHIDDEN SIMS "
                    "[BATCH [LR [VFILTERS [OUT.model]]]]\n");
    return 2;
  }
  double t0 = bench_now();
  dab_err err;
  dab_geom g;
  if (dab_geom_init(&g, atoi(argv[1]), atoi(argv[2]), &err)) return 2;
  int per = atoi(argv[3]), epochs = atoi(argv[4]);
  long sims = atol(argv[8]);
  az_opts o;
  az_opts_default(&o);
  o.blocks = atol(argv[5]);
  o.filters = atol(argv[6]);
  o.vhidden = atol(argv[7]);
  const char *batch = argc > 9 ? argv[9] : "1024", *lr = argc > 10 ? argv[10] : "0.001";
  o.vfilters = argc > 11 ? atol(argv[11]) : 1;
  char trainer[4096];
  dab_oracle *oracle;
  dab_oracle_opts oo = {0};
  dab_sym *sym = NULL;
  if (az_find_trainer(trainer, sizeof trainer, &err) || dab_oracle_open(g.rows, g.cols, &oo, &oracle, &err) ||
      !(sym = dab_sym_new(&g, &err))) {
    fprintf(stderr, "az_supervised: %s\n", err.msg);
    return 1;
  }
  int cap = per * g.nlines, gcap = 100 * g.nlines;
  az_testpos *tp = malloc((size_t)cap * sizeof *tp), *gp = malloc((size_t)gcap * sizeof *gp);
  az_sample *s = malloc((size_t)cap * sizeof *s);
  if (!tp || !gp || !s) return 1;
  int n = az_random_positions(&g, per, 77, tp, cap), ng = az_random_positions(&g, 100, 2026, gp, gcap);
  size_t ns = label(&g, oracle, tp, n, s);
  char dir[] = "/tmp/az_supervised_XXXXXX", sp[64], wp[64], w2[64], ap[64], lg[64], line[512];
  if (!mkdtemp(dir)) return 1;
  snprintf(sp, sizeof sp, "%s/samples.bin", dir);
  snprintf(wp, sizeof wp, "%s/w.bin", dir);
  snprintf(w2, sizeof w2, "%s/w2.bin", dir);
  snprintf(ap, sizeof ap, "%s/adam.pt", dir);
  snprintf(lg, sizeof lg, "%s/train.log", dir);
  az_trainer tr;
  dab_az_net *net = NULL;
  size_t written;
  const char *init[] = {"init", "--seed", "1", NULL};
  dab_status st = az_trainer_start(&tr, trainer, lg, &err);
  if (!st) st = az_python_net(&tr, &g, &o, init, wp, &net, line, sizeof line, &err);
  if (!st) st = az_write_samples(sp, &g, net, sym, true, s, ns, 0, 1.0, &written, &err);
  printf("%dx%d net b%ld f%ld v%ld vf%ld (%zu weights), batch %s, lr %s: %zu labelled positions x %d "
         "symmetries = %zu samples; graded on %d positions, search %ld sims\n",
         g.rows, g.cols, o.blocks, o.filters, o.vhidden, o.vfilters, net ? net->nweights : 0, batch, lr, ns,
         sym->ntrans,
         written, ng, sims);
  printf("epoch  policy_loss  value_loss  policy  search  kept_search  value_rmse  cpu_s\n");
  dab_az_search_opts so = {.sims = sims, .c_puct = o.c, .chainloop = true, .theorems = true, .margin = true};
  for (int e = 1; !st && e <= epochs; e++) {
    FILE *f = fopen(wp, "wb");
    if (!f || fwrite(net->weights, sizeof(float), net->nweights, f) != net->nweights) st = DAB_EIO;
    if (f) fclose(f);
    const char *train[] = {"train", "--weights", wp, "--samples", sp, "--epochs", "1", "--opt-state", ap,
                           "--min-batches", "0", "--batch", batch, "--lr", lr, NULL};
    dab_az_net *next = NULL;
    if (!st) st = az_python_net(&tr, &g, &o, train, w2, &next, line, sizeof line, &err);
    if (st) break;
    dab_az_net_free(net);
    net = next;
    if ((e & (e - 1)) && e != epochs) continue;   /* grade at 1, 2, 4, 8, ... and the last */
    dab_az_model m = {.net = net, .search = so};
    az_measure_out mo;
    az_measure(&g, oracle, &m, sims, gp, ng, &mo);
    const char *a = strstr(line, "policy_loss="), *b = strstr(line, "value_loss=");
    struct rusage ru, rc;
    getrusage(RUSAGE_SELF, &ru);
    getrusage(RUSAGE_CHILDREN, &rc);
    printf("%5d  %11.4f  %10.4f  %6.3f  %6.3f  %11.3f  %10.3f  %5.0f\n", e, a ? atof(a + 12) : -1,
           b ? atof(b + 11) : -1, mo.all_opt_policy, mo.all_opt_mcts, mo.all_kept_mcts, mo.rmse,
           dab_process_cpu_s() + tr.cpu_s);
    fflush(stdout);
  }
  if (!st && argc > 12) st = dab_az_model_save(argv[12], net, &so, "method=supervised", NULL, 0, &err);
  az_trainer_stop(&tr);
  if (st) fprintf(stderr, "az_supervised: %s\n", err.msg);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("wall %.1f s, peak RSS %ld KiB (this process; the trainer's is apart)\n", bench_now() - t0, ru.ru_maxrss);
  dab_az_net_free(net);
  dab_sym_free(sym);
  dab_oracle_close(oracle);
  free(tp);
  free(gp);
  free(s);
  return st ? 1 : 0;
}
