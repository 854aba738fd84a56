/*
** pdb_tables.c: the search with the pattern database against a complete
** tablebase: N random positions (random play from the empty board to a
** random depth past half the lines, and uniform random line sets), each
** solved by the search
** with the database, compared with the table's value.
** Usage: pdb_tables TABLE.dab PDB [N] [SEED]     exit 0 when all agree.
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include "game/clock.h"
#include "game/rng.h"
#include "pdb/pdb.h"
#include "solver/ab.h"
#include "tablebase/dabtb.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: pdb_tables TABLE.dab PDB [N] [SEED]\n");
    return 2;
  }
  uint64_t n = argc > 3 ? strtoull(argv[3], NULL, 10) : 100000, seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 1;
  dab_err err;
  dabtb *tb;
  dab_pdb *db;
  if (dabtb_open(argv[1], NULL, &tb, &err) || dab_pdb_load(argv[2], &db, &err)) {
    fprintf(stderr, "pdb_tables: %s\n", err.msg);
    return 2;
  }
  dabtb_coverage cov;
  dabtb_get_coverage(tb, &cov);
  dab_geom g;
  dab_geom_init(&g, cov.rows, cov.cols, &err);
  dab_ab_opts o;
  dab_ab_default_opts(&o);
  o.threads = 1;
  o.hash_bytes = 256u << 20;
  o.pdb = db;
  dab_status st;
  dab_ab *ab = dab_ab_new(&g, &o, &st, &err);
  if (!ab) {
    fprintf(stderr, "pdb_tables: %s\n", err.msg);
    return 1;
  }
  uint64_t bad = 0;
  double t0 = dab_now_s();
  for (uint64_t i = 0; i < n; i++) {
    uint64_t p = 0;
    if (i & 1) { /* random play to a random depth in the second half (the first is search's cost, not this check's) */
      int depth = g.nlines / 2 + (int)(dab_splitmix64(&seed) % (uint64_t)(g.nlines - g.nlines / 2));
      for (int d = 0; d < depth; d++) {
        uint64_t freel = g.all_lines & ~p;
        int k = (int)(dab_splitmix64(&seed) % (uint64_t)__builtin_popcountll(freel));
        while (k--) freel &= freel - 1;
        p |= freel & -freel;
      }
    } else {
      p = dab_splitmix64(&seed) & g.all_lines;
    }
    int want = 0, got = 0;
    if (dabtb_value(tb, p, &want, &err)) {
      fprintf(stderr, "pdb_tables: %s\n", err.msg);
      return 1;
    }
    dab_ab_solve(ab, p, &got, NULL, NULL, &err);
    if (got != want && bad++ < 5) fprintf(stderr, "position %#llx: search with pdb %d, table %d\n", (unsigned long long)p, got, want);
  }
  dab_ab_stats s;
  dab_ab_get_stats(ab, &s);
  printf("%dx%d: %llu positions, %llu differ from the table; %llu nodes searched on component ids (%llu positions visited there); %.1f s\n",
         cov.rows, cov.cols, (unsigned long long)n, (unsigned long long)bad, (unsigned long long)s.pdb_leaves,
         (unsigned long long)s.pdb_nodes, dab_now_s() - t0);
  dab_ab_free(ab);
  dab_pdb_free(db);
  dabtb_close(tb);
  return bad ? 1 : 0;
}
