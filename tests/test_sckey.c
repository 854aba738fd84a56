/*
** test_sckey.c: Strings-and-Coins graph keys: equal keys mean equal values
** (checked against retrograde tables, also across boards), symmetric
** images share a key, the keys merge more than board symmetry does, and
** moves translate between positions that share a key.
** See Copyright Notice in README.md
*/
#include <stdlib.h>
#include <string.h>
#include "solver/retro.h"
#include "symmetry/sckey.h"
#include "symmetry/sym.h"
#include "tests/testhelp.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void) {
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 2685821657736338717ull;
}

typedef struct board {
  dab_geom g;
  dab_sym *sym;
  dab_retro *r;
} board;

static bool open_board(board *b, int rows, int cols) {
  dab_err err;
  memset(b, 0, sizeof *b);
  bool ok = dab_geom_init(&b->g, rows, cols, &err) == DAB_OK;
  if (ok) b->sym = dab_sym_new(&b->g, &err);
  dab_retro_opts ro = {.threads = 0};
  ok = ok && b->sym && dab_retro_solve(&b->g, 0, &ro, &b->r, &err) == DAB_OK;
  TH_CHECK(ok, "board %dx%d: %s", rows, cols, err.msg);
  return ok;
}

static void close_board(board *b) {
  dab_retro_free(b->r);
  dab_sym_free(b->sym);
}

/* Value of move m in p (Wilson's convention). */
static int move_value(const board *b, uint64_t p, int m) {
  int k = dab64_completes(&b->g, p, m);
  int v = b->r->value[p | 1ull << m];
  return k ? k + v : -v;
}

typedef struct keyed {
  uint64_t key, check;
  uint64_t p;
  int8_t value;
  int8_t board;
} keyed;

static int by_key(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  if (x->check != y->check) return x->check < y->check ? -1 : 1;
  return 0;
}

static int by_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static uint64_t count_distinct_u64(uint64_t *v, size_t n) {
  qsort(v, n, sizeof *v, by_u64);
  uint64_t d = 0;
  for (size_t i = 0; i < n; i++) d += i == 0 || v[i] != v[i - 1];
  return d;
}

/*
** Every position of each board (or `sample` random ones when > 0): equal
** keys must mean equal values, across all the boards given; the number
** of key classes must be below the number of symmetry classes.
*/
static void check_soundness(board *bs, int nb, uint64_t sample, const char *label) {
  size_t total = 0;
  for (int i = 0; i < nb; i++) total += sample ? sample : bs[i].r->count;
  keyed *ks = malloc(total * sizeof *ks);
  uint64_t *canon = malloc(total * sizeof *canon);
  if (!ks || !canon) {
    TH_CHECK(0, "out of memory");
    free(ks);
    free(canon);
    return;
  }
  size_t n = 0;
  for (int i = 0; i < nb; i++) {
    uint64_t cnt = sample ? sample : bs[i].r->count;
    for (uint64_t j = 0; j < cnt; j++) {
      uint64_t p = sample ? rnd() & bs[i].g.all_lines : j;
      dab_sckey k;
      dab_sckey64(&bs[i].g, p, &k);
      ks[n] = (keyed){k.key, k.check, p, bs[i].r->value[p], (int8_t)i};
      /* board-symmetry classes, kept apart per board */
      canon[n] = dab_sym_canon64(bs[i].sym, p, true, NULL) * 8 + (uint64_t)i;
      n++;
    }
  }
  qsort(ks, n, sizeof *ks, by_key);
  uint64_t classes = 0, bad = 0, cross = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || by_key(&ks[i], &ks[i - 1])) {
      classes++;
      continue;
    }
    if (ks[i].value != ks[i - 1].value) {
      if (bad++ < 3)
        TH_CHECK(0, "%s: positions %llx (board %d) and %llx (board %d) share a key but have values %d and %d",
                 label, (unsigned long long)ks[i - 1].p, ks[i - 1].board, (unsigned long long)ks[i].p,
                 ks[i].board, ks[i - 1].value, ks[i].value);
    }
    if (ks[i].board != ks[i - 1].board) cross++;
  }
  TH_CHECK(bad == 0, "%s: %llu key collisions with different values", label, (unsigned long long)bad);
  uint64_t sym_classes = count_distinct_u64(canon, n);
  TH_CHECK(classes < sym_classes, "%s: %llu graph classes, not fewer than %llu symmetry classes", label,
           (unsigned long long)classes, (unsigned long long)sym_classes);
  if (nb > 1) TH_CHECK(cross > 0, "%s: no key shared across boards", label);
  printf("  %s: %zu positions, %llu symmetry classes, %llu graph classes (%.2fx), %llu cross-board matches\n",
         label, n, (unsigned long long)sym_classes, (unsigned long long)classes,
         (double)sym_classes / (double)classes, (unsigned long long)cross);
  free(ks);
  free(canon);
}

/* Symmetric images share the key. */
static void check_invariance(const board *b, int trials) {
  int bad = 0;
  for (int t = 0; t < trials; t++) {
    uint64_t p = rnd() & b->g.all_lines;
    dab_sckey k0, k;
    dab_sckey64(&b->g, p, &k0);
    for (int s = 0; s < b->sym->ntrans; s++) {
      dab_sckey64(&b->g, dab_sym_apply64(b->sym, s, p), &k);
      if (k.key != k0.key || k.check != k0.check) bad++;
    }
  }
  TH_CHECK(bad == 0, "%dx%d: %d symmetric images with another key", b->g.rows, b->g.cols, bad);
}

/*
** Edge codes: every undrawn line maps to a code and back to itself (an
** edge line may come back as another undrawn edge line of the same box:
** those are the same string to the ground).
*/
static void check_edges(const board *b, int trials) {
  int bad = 0;
  for (int t = 0; t < trials; t++) {
    uint64_t p = rnd() & b->g.all_lines;
    dab_sckey k;
    dab_sckey64(&b->g, p, &k);
    for (int m = 0; m < b->g.nlines; m++) {
      if (p >> m & 1) continue;
      int code = dab_sckey_edge(&b->g, &k, m);
      int back = dab_sckey_line(&b->g, &k, p, code);
      bool ok = back == m;
      if (!ok && back >= 0 && b->g.line_box[m][1] < 0 && b->g.line_box[back][1] < 0 &&
          b->g.line_box[m][0] == b->g.line_box[back][0])
        ok = true; /* both edge lines of the same box */
      if (!ok && back >= 0 && b->g.line_box[m][0] < 0 && b->g.line_box[back][0] < 0 &&
          b->g.line_box[m][1] == b->g.line_box[back][1])
        ok = true;
      if (!ok) bad++;
    }
  }
  TH_CHECK(bad == 0, "%dx%d: %d edge codes do not map back", b->g.rows, b->g.cols, bad);
}

/* Positions sharing a key: each move of one, translated through the
** canonical labelling, is a move of the other with the same value. */
static void check_move_transfer(const board *b) {
  uint64_t n = b->r->count;
  keyed *ks = malloc(n * sizeof *ks);
  if (!ks) {
    TH_CHECK(0, "out of memory");
    return;
  }
  for (uint64_t p = 0; p < n; p++) {
    dab_sckey k;
    dab_sckey64(&b->g, p, &k);
    ks[p] = (keyed){k.key, k.check, p, 0, 0};
  }
  qsort(ks, n, sizeof *ks, by_key);
  uint64_t pairs = 0, bad = 0;
  for (uint64_t i = 1; i < n; i++) {
    if (by_key(&ks[i], &ks[i - 1])) continue;
    uint64_t p1 = ks[i - 1].p, p2 = ks[i].p;
    dab_sckey k1, k2;
    dab_sckey64(&b->g, p1, &k1);
    dab_sckey64(&b->g, p2, &k2);
    pairs++;
    for (int m = 0; m < b->g.nlines; m++) {
      if (p1 >> m & 1) continue;
      int m2 = dab_sckey_line(&b->g, &k2, p2, dab_sckey_edge(&b->g, &k1, m));
      if (m2 < 0 || move_value(b, p1, m) != move_value(b, p2, m2)) bad++;
    }
  }
  TH_CHECK(pairs > 1000, "%dx%d: only %llu pairs share a key", b->g.rows, b->g.cols, (unsigned long long)pairs);
  TH_CHECK(bad == 0, "%dx%d: %llu translated moves with another value", b->g.rows, b->g.cols,
           (unsigned long long)bad);
  free(ks);
}

/*
** The encoding is a file format: graph keys are stored in tablebase files
** (the shapes store), seeded by DAB_SCKEY_VERSION.  A digest of the keys of
** 28,000 fixed positions (seven boards, light and dense) must not move
** unless the version does: a faster dab_sckey64 must give the same keys.
** If this fails on purpose, bump DAB_SCKEY_VERSION and the digest together.
** (The bit-vector rewrite of the graph build, flood fill and sort was
** checked against the previous code on 800,000 positions of each of nine
** boards.)
*/
static void check_format_stable(void) {
  static const int boards[][2] = {{2, 3}, {3, 3}, {2, 7}, {3, 5}, {4, 4}, {4, 5}, {5, 5}};
  uint64_t s = 0x5eed, digest = 0;
  for (int b = 0; b < 7; b++) {
    dab_geom g;
    dab_geom_init(&g, boards[b][0], boards[b][1], NULL);
    for (int i = 0; i < 4000; i++) {
      uint64_t p = th_splitmix64(&s) & th_splitmix64(&s) & g.all_lines; /* a quarter of the lines */
      if (i & 1) p |= th_splitmix64(&s) & g.all_lines;                 /* or more than half */
      dab_sckey k;
      dab_sckey64(&g, p, &k);
      digest = (digest ^ k.key ^ (k.check << 1)) * 0x9e3779b97f4a7c15ull;
    }
  }
  /* (the version seeds the hash, so a new version moves the digest too) */
  TH_CHECK(digest == 0x59f57b16b1b1e4f1ull, "graph keys changed (digest %016llx): a new encoding needs a new "
           "DAB_SCKEY_VERSION and digest", (unsigned long long)digest);
}

int main(void) {
  bool san = getenv("DAB_TEST_SAN") != NULL;
  board b23, b32, b16, b33;
  if (!open_board(&b23, 2, 3) || !open_board(&b32, 3, 2) || !open_board(&b16, 1, 6) || !open_board(&b33, 3, 3))
    return TH_REPORT("test_sckey");
  /* every position of 2x3, 3x2 and 1x6 together: isomorphic graphs occur
  ** across boards (a 2x3 region and a 1x6 strip share chains) */
  board small[3] = {b23, b32, b16};
  check_soundness(small, 3, 0, "2x3+3x2+1x6 (all)");
  check_soundness(&b33, 1, san ? 20000 : 400000, "3x3 (random)");
  check_invariance(&b33, san ? 500 : 20000);
  check_invariance(&b23, san ? 500 : 20000);
  check_edges(&b33, san ? 200 : 5000);
  check_move_transfer(&b23);
  check_format_stable();
  /* a finished game has no coins; one open box is a key of its own */
  dab_sckey k0, k1;
  dab_sckey64(&b33.g, b33.g.all_lines, &k0);
  dab_sckey64(&b33.g, b33.g.all_lines & ~(1ull << 0), &k1);
  TH_CHECK(k0.ncoins == 0 && k1.ncoins == 1 && k0.key != k1.key, "finished / one-coin keys");
  close_board(&b23);
  close_board(&b32);
  close_board(&b16);
  close_board(&b33);
  return TH_REPORT("test_sckey");
}
