/*
** thm_pdb.c: level 5 of the theorem checker: the rules the pattern
** database and its search rely on, against the theory-free graph solver.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "game/rng.h"
#include "pdb/pdb.h"
#include "theorems/graphsolve.h"
#include "verify/thm_check.h"

/*
** Claims (docs/pdb.md states each rule and its source):
**   PDB-N    every stored nimber = the graph solver's (its own game)
**   PDB-V    every stored value alone = the graph solver's
**   PDB-XOR  a sum's Nimstring value is the XOR of its components' (a
**            loony one makes the sum loony): random sums
**   PDB-SUM  the search on component ids (moves from the database, free
**            components credited, the capture and chain rules) = the
**            graph solver on the disjoint union: random sums
**   PDB-FREE a free component adds its coins to the mover's value in any
**            sum: v(Q + X) = |X| + v(Q)
** Negative controls, each must find counterexamples:
**   PDB-ADD  values add: v(X + Y) = v(X) + v(Y)
**   PDB-PAIR equal pairs cancel for the margin: v(Q + X + X) = v(Q) (true
**            for nimbers, false for boxes)
**   PDB-NIM  a plain nim-sum, loony components counted as 0
*/

/* The graph solver's value and nimber of the union of ids.  RETURN: DAB_OK;
** dab_sgs_new's error (the unions here fit: DAB_ENOMEM), which ends the
** check rather than skip a case. */
static dab_status solve_union(const dab_pdb *db, const uint32_t *ids, int n, int *value, int *nimber,
                              dab_err *err) {
  dab_sg g;
  memset(&g, 0, sizeof g);
  for (int i = 0; i < n; i++) dab_pdb_graph(db, ids[i], &g);
  dab_sgs *s;
  dab_status st = dab_sgs_new(&g, &s, err);
  if (st) return st;
  *value = dab_sgs_value(s, dab_sg_full(&g));
  if (nimber) *nimber = dab_sgs_nimber(s, dab_sg_full(&g));
  dab_sgs_free(s);
  return DAB_OK;
}

dab_status thm_level5(const thm_opts *o, thm_report *rep, dab_err *err) {
  int ms = o->pdb_strings > 0 ? o->pdb_strings : 9, sums = o->pdb_sums > 0 ? o->pdb_sums : 1000;
  dab_pdb *db;
  dab_pdb_table *t = NULL;
  dab_status st = dab_pdb_new(&db, err);
  if (st) return st;
  double t0 = thm_now();
  if ((st = dab_pdb_build(db, ms, NULL, NULL, o->cancel, err)) || (st = dab_pdb_table_new(18, &t, err))) goto out;
  thm_claim *cn = thm_claim_new(rep, "PDB-N", "stored nimber = game's", "grid components", 5, "strings", ms, THM_HOLD);
  thm_claim *cv = thm_claim_new(rep, "PDB-V", "stored value alone = game's", "grid components", 5, "strings", ms,
                                THM_HOLD);
  for (uint32_t id = 0; id < dab_pdb_count(db); id++) {
    dab_pdb_info in = dab_pdb_get(db, id);
    int v, nim;
    if ((st = solve_union(db, &id, 1, &v, &nim, err))) goto out;
    THM_CASE(cn, nim == in.nimber, "component %u (%d coins, %d strings): stored %d, game %d", id, in.coins,
             in.strings, in.nimber, nim);
    THM_CASE(cv, v == in.value, "component %u (%d coins, %d strings): stored %d, game %d", id, in.coins,
             in.strings, in.value, v);
  }
  cn->seconds = cv->seconds = thm_now() - t0;
  t0 = thm_now();
  int most = 16;
  thm_claim *cx = thm_claim_new(rep, "PDB-XOR", "XOR of nimbers, loony absorbs", "random sums", 5, "strings",
                                most, THM_HOLD);
  thm_claim *cs = thm_claim_new(rep, "PDB-SUM", "search on ids = game", "random sums", 5, "strings", most, THM_HOLD);
  thm_claim *cf = thm_claim_new(rep, "PDB-FREE", "v(Q+X) = |X| + v(Q), X free", "random sums", 5, "strings", most,
                                THM_HOLD);
  thm_claim *ca = thm_claim_new(rep, "PDB-ADD", "values add (control)", "random sums", 5, "strings", most, THM_FAIL);
  thm_claim *cp = thm_claim_new(rep, "PDB-PAIR", "equal pairs cancel (control)", "random sums", 5, "strings", most,
                                THM_FAIL);
  thm_claim *cz = thm_claim_new(rep, "PDB-NIM", "nim-sum, loony as 0 (control)", "random sums", 5, "strings", most,
                                THM_FAIL);
  uint64_t seed = o->seed ^ 0x5db;
  uint32_t free_ids[64];
  int nfree = 0;
  for (uint32_t id = 0; id < dab_pdb_count(db) && nfree < 64; id++)
    if (dab_pdb_get(db, id).flags & DAB_PDB_FREE) free_ids[nfree++] = id;
  for (int k = 0; k < sums; k++) {
    if (o->cancel && *o->cancel) {
      st = dab_fail(err, DAB_ECANCELED, "theorem check canceled");
      goto out;
    }
    uint32_t ids[8];
    int n = 0, strings = 0, want = 2 + (int)(dab_splitmix64(&seed) % 3);
    bool twin = dab_splitmix64(&seed) % 3 == 0;
    for (int tries = 0; n < want && tries < 20; tries++) {
      uint32_t id = twin && n == 1 ? ids[0] : (uint32_t)(dab_splitmix64(&seed) % dab_pdb_count(db));
      int s = dab_pdb_get(db, id).strings;
      if (strings + s > most) continue;
      strings += s;
      ids[n++] = id;
    }
    dab_pdb_sort(ids, n);
    int v, nim;
    if (n < 2) continue;
    if ((st = solve_union(db, ids, n, &v, &nim, err))) goto out;
    int x = dab_pdb_nimber_sum(db, ids, n);
    THM_CASE(cx, x == nim, "sum of %d: XOR %d, game %d", n, x, nim);
    int got = dab_pdb_value(db, t, ids, n, NULL);
    THM_CASE(cs, got == v, "sum of %d components (%d strings): search %d, game %d", n, strings, got, v);
    int add = 0, plain = 0;
    for (int i = 0; i < n; i++) {
      dab_pdb_info in = dab_pdb_get(db, ids[i]);
      add += in.value;
      plain ^= in.nimber == DAB_PDB_LOONY ? 0 : in.nimber;
    }
    THM_CASE(ca, add == v, "sum of %d: values add to %d, game %d", n, add, v);
    if (x == DAB_PDB_LOONY) THM_CASE(cz, plain == nim, "sum of %d with a loony part: nim-sum %d, game %d", n, plain, nim);
    if (nfree && n < 8) { /* Q = this sum, X a free component */
      uint32_t fx = free_ids[dab_splitmix64(&seed) % (uint64_t)nfree], q[8];
      memcpy(q, ids, sizeof ids[0] * (size_t)n);
      q[n] = fx;
      int vqx, coins = dab_pdb_get(db, fx).coins;
      if (strings + dab_pdb_get(db, fx).strings <= 17) {
        if ((st = solve_union(db, q, n + 1, &vqx, NULL, err))) goto out;
        THM_CASE(cf, vqx == coins + v, "free component %u: v(Q+X) %d, |X| + v(Q) %d", fx, vqx, coins + v);
      }
    }
    for (int i = 0; i + 1 < n; i++)
      if (ids[i] == ids[i + 1]) {
        uint32_t rest[8];
        int nr = 0, vq;
        for (int j = 0; j < n; j++)
          if (j != i && j != i + 1) rest[nr++] = ids[j];
        if ((st = solve_union(db, rest, nr, &vq, NULL, err))) goto out;
        THM_CASE(cp, vq == v, "pair of %u: v(Q+X+X) %d, v(Q) %d", ids[i], v, vq);
        break;
      }
  }
  cx->seconds = cs->seconds = cf->seconds = ca->seconds = cp->seconds = cz->seconds = thm_now() - t0;
out:
  dab_pdb_table_free(t);
  dab_pdb_free(db);
  return st;
}
