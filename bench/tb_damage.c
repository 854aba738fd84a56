/*
** tb_damage.c: damage trials on a tablebase file: every trial damages a
** fresh copy of a clean file one way, then opens, checks and probes it and
** compares every answer with the exact values (a retrograde solve).  A
** trial is detected (open, check or a probe refuses), harmless (every
** answer exact) or wrong (a probe answered a wrong value): wrong must be 0.
** Usage: tb_damage [RxC] [TRIALS] [SEED] [KINDS]   (default 3x3, 1000 per
** kind, seed 0, every kind; runs with different seeds damage different
** places, so trials can be split over processes and their counts added;
** KINDS picks kinds by number, 0-4 in the order printed, e.g. "34")
** Prints one line per kind, then wall time and peak RSS.
** See Copyright Notice in README.md
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include "bench/benchutil.h"
#include "solver/retro.h"
#include "tablebase/dabtb.h"

enum { K_FLIP, K_ZERO_PAGE, K_TRUNCATE, K_SWAP, K_STALE_LOCK, KINDS };
static const char *kind_name[KINDS] = {"bit flip", "zeroed 4 KiB page", "truncation", "swapped pages",
                                       "stale lock file"};

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static uint64_t rnd(uint64_t n) {
  rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
  return n ? rng_state % n : 0;
}

static void spit(const char *path, const uint8_t *b, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(b, 1, n, f) != n || fclose(f)) {
    perror(path);
    exit(2);
  }
}

int main(int argc, char **argv) {
  int rows = 3, cols = 3, trials = argc > 2 ? atoi(argv[2]) : 1000;
  if (argc > 1 && sscanf(argv[1], "%dx%d", &rows, &cols) != 2)
    return fprintf(stderr, "tb_damage: board '%s' is not RxC\n", argv[1]), 2;
  const char *only = argc > 4 ? argv[4] : "01234";
  if (!*only || strspn(only, "01234") != strlen(only))
    return fprintf(stderr, "tb_damage: KINDS '%s' is not a list of digits 0-4\n", only), 2;
  if (argc > 3) rng_state ^= strtoull(argv[3], NULL, 10) * 0x9e3779b97f4a7c15ull;
  if (!rng_state) rng_state = 1; /* xorshift's one fixed point */
  double t0 = bench_now();
  char clean[64], path[64], lock[80];
  snprintf(clean, sizeof clean, "/tmp/dab-damage-clean-%d.dab", (int)getpid());
  snprintf(path, sizeof path, "/tmp/dab-damage-%d.dab", (int)getpid());
  snprintf(lock, sizeof lock, "%s-lock", path);
  dabtb_build_opts bo = {.threads = 2};
  dab_err err;
  if (dabtb_build(rows, cols, clean, &bo, NULL, &err)) return fprintf(stderr, "%s\n", err.msg), 1;
  dab_geom g;
  dab_geom_init(&g, rows, cols, NULL);
  dab_retro *truth;
  dab_retro_opts ro = {.threads = 2};
  if (dab_retro_solve(&g, 0, &ro, &truth, &err)) return fprintf(stderr, "%s\n", err.msg), 1;
  FILE *f = fopen(clean, "rb");
  fseek(f, 0, SEEK_END);
  size_t n = (size_t)ftell(f);
  rewind(f);
  uint8_t *orig = malloc(n), *b = malloc(n);
  if (fread(orig, 1, n, f) != n) return 1;
  fclose(f);
  uint64_t all = (1ull << g.nlines) - 1;
  enum { PROBES = 3000 };
  printf("tb_damage %dx%d: %zu-byte file, %d trials per kind, %d probes + check per trial, seed %s\n", rows, cols,
         n, trials, PROBES, argc > 3 ? argv[3] : "0");
  long total_wrong = 0;
  for (int k = 0; k < KINDS; k++) {
    if (!strchr(only, '0' + k)) continue;
    long detected = 0, harmless = 0, wrong = 0;
    for (int t = 0; t < trials; t++) {
      memcpy(b, orig, n);
      size_t len = n, pages = n / 4096;
      unlink(lock);
      switch (k) {
      case K_FLIP: b[rnd(n)] ^= (uint8_t)(1u << rnd(8)); break;
      case K_ZERO_PAGE: memset(b + 4096 * rnd(pages), 0, 4096); break;
      case K_TRUNCATE: len = (size_t)rnd(n); break;
      case K_SWAP: {
        size_t x = rnd(pages), y = rnd(pages);
        uint8_t tmp[4096];
        memcpy(tmp, b + 4096 * x, 4096);
        memcpy(b + 4096 * x, b + 4096 * y, 4096);
        memcpy(b + 4096 * y, tmp, 4096);
        break;
      }
      case K_STALE_LOCK: { /* a lock file left by a killed writer: random or zeroed */
        uint8_t junk[8192];
        for (size_t i = 0; i < sizeof junk; i++) junk[i] = t % 2 ? (uint8_t)rnd(256) : 0;
        spit(lock, junk, 4096 + rnd(4097));
        break;
      }
      }
      spit(path, b, len);
      dabtb *tb = NULL;
      dabtb_opts o = {.cache_bytes = 1 << 20};
      bool refused = dabtb_open(path, &o, &tb, &err) != DAB_OK;
      bool bad = false;
      if (!refused) {
        refused = dabtb_check(tb, NULL, NULL, NULL, &err) != DAB_OK;
        for (int i = 0; i < PROBES; i++) {
          uint64_t p = i ? rnd(all + 1) : 0;
          int v;
          if (dabtb_value(tb, p, &v, &err)) refused = true;
          else if (v != dab_retro_value(truth, p)) bad = true;
        }
        dabtb_close(tb);
      }
      if (bad) wrong++;
      else if (refused) detected++;
      else harmless++;
    }
    printf("%-18s trials %5d  detected %5ld  harmless %5ld  silently wrong %ld\n", kind_name[k], trials, detected,
           harmless, wrong);
    fflush(stdout); /* each kind's line as it ends: a long run shows its progress */
    total_wrong += wrong;
  }
  unlink(path);
  unlink(lock);
  unlink(clean);
  char cl[96];
  snprintf(cl, sizeof cl, "%s-lock", clean);
  unlink(cl);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("wall %.1f s, peak RSS %.0f MB, silently wrong in all: %ld\n", bench_now() - t0, (double)ru.ru_maxrss / 1024.0,
         total_wrong);
  dab_retro_free(truth);
  free(orig);
  free(b);
  return total_wrong != 0;
}
