/*
** fuzz_proof.c: libFuzzer harness of divisible-proof record files
** (solver/proof.h).  The input is one rec-*.txt file of a 2x3 proof
** (root empty, claim =+0, depth 3), loaded as dab_proof_load_dir loads a
** directory, then evaluated.  Properties: a load never fails on bad lines
** (they are counted); every record held formats back to a line that parses
** to the same record; accepted + bad + torn lines never exceed the lines.
** See Copyright Notice in README.md
*/
#include <sys/stat.h>
#include "proof/records.h"
#include "solver/proof.h"
#include "tests/fuzz/fuzzhelp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1 << 16)) return 0;
  static char dir[256], file[300];
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "%s/dab-fuzz-proof-%ld", access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm",
             (long)getpid());
    mkdir(dir, 0755);
    snprintf(file, sizeof file, "%s/rec-fuzz.txt", dir);
  }
  FILE *f = fopen(file, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) abort();
  dab_proof_spec spec = {.rows = 2, .cols = 3, .root = 0, .has_ge = true, .has_le = true,
                         .ge_bound = 0, .le_bound = 0, .depth = 3};
  dab_status st;
  dab_err err;
  /* One handle for every input (its symmetry tables are most of a new
  ** handle's cost), cleared between inputs as a fresh one would be. */
  static dab_proof *pf;
  if (!pf && !(pf = dab_proof_new(&spec, &st, &err))) abort();
  dab_proof_clear(pf);
  dab_proof_load_info info;
  memset(&info, 0, sizeof info);
  st = dab_proof_load_dir(pf, dir, &info, &err);
  FZ_ASSERT(!st, "load failed: %s", err.msg);
  size_t lines = 0;
  for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
  if (size && data[size - 1] != '\n') lines++;
  FZ_ASSERT(info.lines + (uint64_t)info.bad + (uint64_t)info.torn <= lines, "%llu + %d + %d lines of %zu",
            (unsigned long long)info.lines, info.bad, info.torn, lines);
  FZ_ASSERT(!strchr(info.first_problem, '\n'), "problem not one line");
  size_t n;
  const dab_proof_rec *recs = dab_proof_records(pf, &n);
  const dab_geom *g = dab_proof_geom(pf);
  for (size_t i = 0; i < n; i++) {
    char buf[DAB_MAX_LINES + 400];
    FZ_ASSERT(dab_proof_format_rec(pf, &recs[i], buf, sizeof buf), "format");
    dab_proof_rec r;
    st = dab_proof_parse_rec(pf, buf, &r, &err);
    FZ_ASSERT(!st, "record '%s' does not parse back: %s", buf, err.msg);
    FZ_ASSERT(dab_proof_canon(pf, r.pos) == recs[i].pos && r.dir == recs[i].dir && r.bound == recs[i].bound &&
                  r.proved == recs[i].proved,
              "record '%s' parses back to another", buf);
    FZ_ASSERT(recs[i].bound >= -g->nboxes && recs[i].bound <= g->nboxes, "bound %d", recs[i].bound);
  }
  dab_proof_summary sum;
  static dab_proof_claim open[64];
  size_t nopen;
  if (n) { /* the tree walk: only when records can decide something */
    st = dab_proof_eval(pf, &sum, open, 64, &nopen, &err);
    FZ_ASSERT(!st || st == DAB_ENOMEM, "eval: %s", err.msg);
  }
  return 0;
}
