/*
** ab_bench.c: solves one position with the alpha-beta solver under chosen
** options and prints value, nodes, time (for bench/ab*.sh A/B runs).
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "game/clock.h"
#include "game/postext.h"
#include "solver/ab.h"


#include <time.h>
static double bench_t0;
/* Prints each proved root bound with its time (the root driver's tests). */
static void on_bound(void *ctx, int lower, int upper) {
  (void)ctx;
  fprintf(stderr, "bound [%+d,%+d] at %.2f s\n", lower, upper, dab_now_s() - bench_t0);
}

static void usage(void) {
  fputs("usage: ab_bench POS [--plain] [--no-safe] [--no-decline] [--no-border] [--no-sle]\n"
        "       [--no-sacorder] [--no-parity] [--no-loony] [--no-chainmoves] [--no-graph] [--graph MINFREE]\n"
        "       [--etc MINFREE] [--etc-cached MINFREE] [--no-etc] [--no-handouts] [--hash MIB] [--threads N]\n"
        "       [--policy work|always|direct] [--analyze] [--limit NODES] [--etc-full MINFREE]\n"
        "       [--keycache BITS] [--test BOUND] [--pdb FILE | --pdb-build N] [--pdb-max-free F]\n"
        "       [--dfpn MINFREE] [--dfpn-leaf F] [--dfpn-bits B] [--dfpn-eps PCT] [--dfpn-mobility]\n",
        stderr);
}

int main(int argc, char **argv) {
  if (argc < 2) { usage(); return 2; }
  dab_ab_opts o;
  dab_ab_default_opts(&o);
  bool analyze = false, test = false;
  int pdb_build = 0;
  const char *pdb_file = NULL;
  int test_bound = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--plain")) o.tune.decline_rule = false, o.tune.sle = false, o.tune.graph_keys = false;
    else if (!strcmp(a, "--no-safe")) o.tune.safe_capture = false;
    else if (!strcmp(a, "--no-decline")) o.tune.decline_rule = false;
    else if (!strcmp(a, "--no-border")) o.tune.border_equiv = false;
    else if (!strcmp(a, "--no-sle")) o.tune.sle = false;
    else if (!strcmp(a, "--no-sacorder")) o.tune.order_sacrifices_last = false;
    else if (!strcmp(a, "--no-parity")) o.tune.parity = false;
    else if (!strcmp(a, "--root-window")) o.tune.root_window = true;
    else if (!strcmp(a, "--no-root-window")) o.tune.root_window = false;
    else if (!strcmp(a, "--dfpn") && i + 1 < argc) o.tune.dfpn_min_free = atoi(argv[++i]);
    else if (!strcmp(a, "--dfpn-leaf") && i + 1 < argc) o.tune.dfpn_leaf_free = atoi(argv[++i]);
    else if (!strcmp(a, "--dfpn-bits") && i + 1 < argc) o.tune.dfpn_bits = atoi(argv[++i]);
    else if (!strcmp(a, "--dfpn-eps") && i + 1 < argc) o.tune.dfpn_eps_pct = atoi(argv[++i]);
    else if (!strcmp(a, "--dfpn-mobility")) o.tune.dfpn_mobility = true;
    else if (!strcmp(a, "--no-loony")) o.tune.loony_bound = false;
    else if (!strcmp(a, "--no-chainmoves")) o.tune.chain_moves = false;
    else if (!strcmp(a, "--analyze")) analyze = true;
    else if (!strcmp(a, "--graph") && i + 1 < argc) o.tune.graph_keys = true, o.tune.graph_min_free = atoi(argv[++i]);
    else if (!strcmp(a, "--no-graph")) o.tune.graph_keys = false;
    else if (!strcmp(a, "--no-abdada")) o.tune.abdada = false;
    else if (!strcmp(a, "--no-rotate")) o.tune.smp_rotate = false;
    else if (!strcmp(a, "--rotate")) o.tune.smp_rotate = true;
    else if (!strcmp(a, "--ttmin") && i + 1 < argc) o.tune.tt_min_free = atoi(argv[++i]);
    else if (!strcmp(a, "--etc") && i + 1 < argc)
      o.tune.etc = true, o.tune.etc_cached_only = false, o.tune.etc_min_free = atoi(argv[++i]);
    else if (!strcmp(a, "--no-etc")) o.tune.etc = false;
    else if (!strcmp(a, "--etc-full") && i + 1 < argc) o.tune.etc_full_min_free = atoi(argv[++i]);
    else if (!strcmp(a, "--keycache") && i + 1 < argc) o.tune.keycache_bits = atoi(argv[++i]);
    else if (!strcmp(a, "--no-handouts")) o.tune.hard_handouts = false;
    else if (!strcmp(a, "--no-junction")) o.tune.junction_chains = false;
    else if (!strcmp(a, "--etc-cached") && i + 1 < argc)
      o.tune.etc = o.tune.etc_cached_only = true, o.tune.etc_min_free = atoi(argv[++i]);
    else if (!strcmp(a, "--hash") && i + 1 < argc) o.hash_bytes = strtoull(argv[++i], NULL, 10) << 20;
    else if (!strcmp(a, "--threads") && i + 1 < argc) o.threads = atoi(argv[++i]);
    else if (!strcmp(a, "--limit") && i + 1 < argc) o.node_limit = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(a, "--test") && i + 1 < argc) test = true, test_bound = atoi(argv[++i]);
    else if (!strcmp(a, "--pdb-build") && i + 1 < argc) pdb_build = atoi(argv[++i]);
    else if (!strcmp(a, "--pdb") && i + 1 < argc) pdb_file = argv[++i];
    else if (!strcmp(a, "--pdb-max-free") && i + 1 < argc) o.pdb_max_free = atoi(argv[++i]);
    else if (!strcmp(a, "--pdb-min-free") && i + 1 < argc) o.pdb_min_free = atoi(argv[++i]);
    else if (!strcmp(a, "--policy") && i + 1 < argc) {
      const char *p = argv[++i];
      o.tune.tt_policy = !strcmp(p, "always") ? DAB_TT_ALWAYS : !strcmp(p, "direct") ? DAB_TT_DIRECT : DAB_TT_WORK;
    } else { usage(); return 2; }
  }
  static dab_parsed ps;
  dab_err err;
  if (dab_parse_position(argv[1], &ps, &err)) { fprintf(stderr, "ab_bench: %s\n", err.msg); return 2; }
  dab_status st;
  dab_pdb *pdb = NULL;
  if (pdb_file) {
    if (dab_pdb_load(pdb_file, &pdb, &err)) {
      fprintf(stderr, "ab_bench: %s\n", err.msg);
      return 1;
    }
    o.pdb = pdb;
  } else if (pdb_build) {
    double tb = dab_now_s();
    if (dab_pdb_new(&pdb, &err) || dab_pdb_build(pdb, pdb_build, NULL, NULL, NULL, &err)) {
      fprintf(stderr, "ab_bench: %s\n", err.msg);
      return 1;
    }
    fprintf(stderr, "pattern database: %u components of <= %d strings, built in %.1f s\n", dab_pdb_count(pdb),
            pdb_build, dab_now_s() - tb);
    o.pdb = pdb;
  }
  o.on_bound = on_bound;
  bench_t0 = dab_now_s();
  dab_ab *ab = dab_ab_new(&ps.geom, &o, &st, &err);
  if (!ab) { fprintf(stderr, "ab_bench: %s\n", err.msg); return 1; }
  uint64_t p = dab_ls_word(&ps.game.lines);
  int v = 0, lo, hi;
  if (analyze) {
    static dab_analysis a;
    st = dab_ab_analyze(ab, p, &a, &err);
    v = a.value;
    if (!st) {
      printf("moves");
      for (int i = 0; i < a.nmoves; i++) printf(" %d:%+d", a.move[i], a.move_value[i]);
      printf("\n");
    }
  } else if (test) { /* one null-window test, as a proof leaf runs: v = its fail-soft bound */
    st = dab_ab_test_failsoft(ab, p, test_bound, &v, &err);
    if (!st) printf("test value >= %+d: %s (fail-soft %+d)\n", test_bound, v >= test_bound ? "holds" : "fails", v);
  } else {
    st = dab_ab_solve(ab, p, &v, &lo, &hi, &err);
  }
  dab_ab_stats s;
  dab_ab_get_stats(ab, &s);
  if (st) printf("stopped: %s\n", err.msg);
  if (pdb) printf("pdb_leaves %llu pdb_nodes %llu\n", (unsigned long long)s.pdb_leaves, (unsigned long long)s.pdb_nodes);
  printf("%s value %+d nodes %llu tests %llu tt_probes %llu tt_hits %llu graph_keys %llu sle %llu loony %llu deferred %llu seconds %.3f knps %.0f\n",
         argv[1], v, (unsigned long long)s.nodes, (unsigned long long)s.tests,
         (unsigned long long)s.tt_probes, (unsigned long long)s.tt_hits, (unsigned long long)s.graph_keys, (unsigned long long)s.sle_leaves, (unsigned long long)s.loony_skips, (unsigned long long)s.deferrals,
         s.seconds, s.seconds > 0 ? (double)s.nodes / s.seconds / 1000 : 0);
  dab_ab_free(ab);
  dab_pdb_free(pdb);
  return st ? 1 : 0;
}
