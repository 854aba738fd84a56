/*
** pdb_profile.c: where the search's nodes go, as Strings-and-Coins
** components: the profile behind the pattern database's size (docs/pdb.md).
** See Copyright Notice in README.md
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "game/clock.h"
#include "game/postext.h"
#include "game/rng.h"
#include "game/sc.h"
#include "players/player.h"
#include "solver/ab.h"
#include "symmetry/sckey.h"

/*
** Every position is searched by one null-window test on one thread with a
** node limit; at every general node (past the capture rules) the hook
** splits the position into components and records, by free lines:
**   - nodes, and the strings of the largest component;
**   - the nodes a database of components of up to N strings would cover
**     whole (every component <= N), and those where all but the largest
**     are covered;
**   - each component of <= MAXS strings by its canonical class (the graph
**     key of the component alone), per position, to count recurrence
**     within a search, across searches and across boards.
*/

#define MAXPOS 64
#define MAXS 24          /* classes kept for components up to this many strings */
#define NS 33            /* strings histogram: 0..31, 32 = more */

typedef struct cls_entry {
  uint64_t key, seen;    /* seen: bit i when position i met the class */
  uint32_t hits;
  uint8_t strings;
} cls_entry;

typedef struct profile {
  const dab_geom *g;
  int pos;                             /* position being searched */
  uint64_t nodes[65], maxstr[65][NS], rest[65][NS];
  cls_entry *cls;                      /* open addressing, 2^cls_bits */
  int cls_bits;
  uint64_t ncls, occurrences;
} profile;

static void cls_add(profile *pr, uint64_t key, int strings) {
  uint64_t mask = (1ull << pr->cls_bits) - 1, h = (key * 0x9e3779b97f4a7c15ull) >> (64 - pr->cls_bits);
  for (;; h = (h + 1) & mask) {
    cls_entry *e = &pr->cls[h];
    if (e->key == key) {
      e->seen |= 1ull << pr->pos;
      e->hits++;
      return;
    }
    if (!e->key) {
      e->key = key, e->seen = 1ull << pr->pos, e->hits = 1, e->strings = (uint8_t)strings;
      if (++pr->ncls * 2 > mask) {
        fprintf(stderr, "pdb_profile: class table full\n");
        exit(1);
      }
      return;
    }
  }
}

static void on_node(void *ctx, uint64_t p) {
  profile *pr = ctx;
  const dab_geom *g = pr->g;
  dab_lineset ls = dab_ls_from_word(p);
  dab_sc_view v;
  dab_sc_analyze(g, &ls, &v);
  int free = dab_popcount64(g->all_lines & ~p);
  int big = 0, rest = 0;
  for (int c = 0; c < v.ncomp; c++) {
    int s = v.comp[c].strings;
    if (s > big) rest = rest > big ? rest : big, big = s;
    else if (s > rest) rest = s;
    if (s > MAXS) continue;
    /* the component alone: every line of every other box drawn */
    uint64_t q = p;
    for (int b = 0; b < g->nboxes; b++)
      if (v.comp_of[b] != c)
        for (int k = 0; k < 4; k++) q |= 1ull << g->box_line[b][k];
    dab_sckey k;
    dab_sckey64(g, q, &k);
    cls_add(pr, k.key, s);
    pr->occurrences++;
  }
  pr->nodes[free]++;
  pr->maxstr[free][big < NS - 1 ? big : NS - 1]++;
  pr->rest[free][rest < NS - 1 ? rest : NS - 1]++;
}

typedef struct job {
  char label[32];
  char text[160];
  int bound;
} job;

static int add_chain_jobs(job *J, int nj, int rows, int cols, int step, int games, uint64_t seed) {
  dab_err err;
  dab_geom g;
  dab_player_env *env;
  dab_player *pl;
  if (dab_geom_init(&g, rows, cols, &err) || dab_player_env_new(NULL, &env, &err) ||
      dab_player_new("chain", &g, env, &pl, &err)) {
    fprintf(stderr, "pdb_profile: %s\n", err.msg);
    exit(1);
  }
  for (int k = 0; k < games && nj < MAXPOS; k++) {
    dab_rng rng;
    dab_rng_seed2(&rng, seed, (uint64_t)k);
    dab_game game;
    dab_game_init(&g, &game);
    while (game.nmoves < step) dab_game_play(&g, &game, dab_player_move(pl, &game, &rng));
    job *j = &J[nj++];
    snprintf(j->label, sizeof j->label, "%dx%d-s%d", rows, cols, step);
    char dbn[80];
    int n = 0;
    for (int m = 0; m < g.nlines; m++) dbn[n++] = dab_ls_has(&game.lines, m) ? '1' : '0';
    dbn[n] = 0;
    snprintf(j->text, sizeof j->text, "%dx%d:%s", rows, cols, dbn);
    j->bound = 0;
  }
  dab_player_free(pl);
  dab_player_env_free(env);
  return nj;
}

static void usage(void) {
  fputs("usage: pdb_profile [--limit NODES] [--hash MIB] [--list] [--pos LABEL POS BOUND]...\n"
        "                   [--chain RxC STEP GAMES SEED]...\n"
        "  Searches each position (a null-window test value >= BOUND, one thread,\n"
        "  NODES nodes at most: default 2e6) and prints the component profile;\n"
        "  --list prints the positions (LABEL POS BOUND) instead.\n",
        stderr);
}

static void print_table(const char *title, uint64_t nodes[65], uint64_t h[65][NS], int maxfree) {
  static const int Ns[] = {6, 8, 10, 12, 14, 16, 18, 20, 24};
  printf("\n%s\n%5s %10s", title, "free", "nodes");
  for (size_t i = 0; i < sizeof Ns / sizeof Ns[0]; i++) printf("  <=%-3d", Ns[i]);
  printf("\n");
  uint64_t tot = 0, totc[9] = {0};
  for (int f = maxfree; f >= 0; f--) {
    if (!nodes[f]) continue;
    printf("%5d %10llu", f, (unsigned long long)nodes[f]);
    tot += nodes[f];
    for (size_t i = 0; i < 9; i++) {
      uint64_t c = 0;
      for (int s = 0; s <= Ns[i] && s < NS; s++) c += h[f][s];
      totc[i] += c;
      printf("  %5.1f", 100.0 * (double)c / (double)nodes[f]);
    }
    printf("\n");
  }
  printf("%5s %10llu", "all", (unsigned long long)tot);
  for (size_t i = 0; i < 9; i++) printf("  %5.1f", tot ? 100.0 * (double)totc[i] / (double)tot : 0.0);
  printf("\n");
}

int main(int argc, char **argv) {
  static job J[MAXPOS];
  int nj = 0;
  uint64_t limit = 2000000, hash_mib = 512;
  bool list = false;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--limit") && i + 1 < argc) limit = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--list")) list = true;
    else if (!strcmp(argv[i], "--hash") && i + 1 < argc) hash_mib = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--pos") && i + 3 < argc && nj < MAXPOS) {
      snprintf(J[nj].label, sizeof J[nj].label, "%.31s", argv[i + 1]);
      snprintf(J[nj].text, sizeof J[nj].text, "%.159s", argv[i + 2]);
      J[nj++].bound = atoi(argv[i + 3]);
      i += 3;
    } else if (!strcmp(argv[i], "--chain") && i + 4 < argc) {
      int r, c;
      if (sscanf(argv[i + 1], "%dx%d", &r, &c) != 2) { usage(); return 2; }
      nj = add_chain_jobs(J, nj, r, c, atoi(argv[i + 2]), atoi(argv[i + 3]), strtoull(argv[i + 4], NULL, 10));
      i += 4;
    } else { usage(); return 2; }
  }
  if (!nj) { usage(); return 2; }
  if (list) { /* the positions only: "LABEL POSITION BOUND" per line */
    for (int i = 0; i < nj; i++) printf("%s %s %d\n", J[i].label, J[i].text, J[i].bound);
    return 0;
  }
  static profile pr;
  pr.cls_bits = 25;
  pr.cls = calloc(1ull << pr.cls_bits, sizeof *pr.cls);
  if (!pr.cls) return 1;
  /* per label: its own node tables */
  char labels[MAXPOS][32];
  int nl = 0, label_of[MAXPOS];
  static uint64_t lnodes[MAXPOS][65], lmax[MAXPOS][65][NS], lrest[MAXPOS][65][NS];
  for (int i = 0; i < nj; i++) {
    int l = 0;
    while (l < nl && strcmp(labels[l], J[i].label)) l++;
    if (l == nl) snprintf(labels[nl++], 32, "%.31s", J[i].label);
    label_of[i] = l;
  }
  int maxfree = 0;
  for (int i = 0; i < nj; i++) {
    static dab_parsed ps;
    dab_err err;
    if (dab_parse_position(J[i].text, &ps, &err)) {
      fprintf(stderr, "pdb_profile: %s: %s\n", J[i].text, err.msg);
      return 2;
    }
    dab_ab_opts o;
    dab_ab_default_opts(&o);
    o.threads = 1;
    o.hash_bytes = hash_mib << 20;
    o.node_limit = limit;
    o.on_node = on_node;
    o.node_ctx = &pr;
    memset(pr.nodes, 0, sizeof pr.nodes);
    memset(pr.maxstr, 0, sizeof pr.maxstr);
    memset(pr.rest, 0, sizeof pr.rest);
    pr.g = &ps.geom;
    pr.pos = i;
    dab_status st;
    dab_ab *ab = dab_ab_new(&ps.geom, &o, &st, &err);
    if (!ab) { fprintf(stderr, "pdb_profile: %s\n", err.msg); return 1; }
    int fs = 0;
    double t0 = dab_now_s();
    dab_status r = dab_ab_test_failsoft(ab, dab_ls_word(&ps.game.lines), J[i].bound, &fs, &err);
    dab_ab_stats s;
    dab_ab_get_stats(ab, &s);
    fprintf(stderr, "%-10s %s >= %+d: %s %+d, %llu nodes, %.1f s\n", J[i].label, J[i].text, J[i].bound,
            r == DAB_OK ? "done" : "limit", fs, (unsigned long long)s.nodes, dab_now_s() - t0);
    dab_ab_free(ab);
    int l = label_of[i];
    for (int f = 0; f <= 64; f++) {
      lnodes[l][f] += pr.nodes[f];
      if (pr.nodes[f] && f > maxfree) maxfree = f;
      for (int k = 0; k < NS; k++) lmax[l][f][k] += pr.maxstr[f][k], lrest[l][f][k] += pr.rest[f][k];
    }
  }
  for (int l = 0; l < nl; l++) {
    char t[192];
    snprintf(t, sizeof t, "%.31s: %% of nodes whose every component has <= N strings", labels[l]);
    print_table(t, lnodes[l], lmax[l], maxfree);
    snprintf(t, sizeof t, "%.31s: %% of nodes whose every component but the largest has <= N strings", labels[l]);
    print_table(t, lnodes[l], lrest[l], maxfree);
  }
  /* Recurrence: classes per position, shared with another position of
  ** the same label, or met under another label. */
  printf("\ncomponent classes (<= %d strings): %llu distinct in %llu occurrences (%.1f%% repeats)\n", MAXS,
         (unsigned long long)pr.ncls, (unsigned long long)pr.occurrences,
         100.0 * (1.0 - (double)pr.ncls / (double)(pr.occurrences ? pr.occurrences : 1)));
  printf("%-10s %8s %10s %12s %12s   distinct classes by strings: <=8 / 9-12 / 13-16 / 17-24\n", "label",
         "classes", "occurr.", "in another", "other label");
  for (int l = 0; l < nl; l++) {
    uint64_t mine = 0, other_pos = 0, other_label = 0, byS[4] = {0}, occ = 0, lmask = 0;
    for (int i = 0; i < nj; i++)
      if (label_of[i] == l) lmask |= 1ull << i;
    for (uint64_t h = 0; h < 1ull << pr.cls_bits; h++) {
      cls_entry *e = &pr.cls[h];
      if (!e->key || !(e->seen & lmask)) continue;
      mine++;
      occ += e->hits;
      if (dab_popcount64(e->seen & lmask) > 1) other_pos++;
      if (e->seen & ~lmask) other_label++;
      byS[e->strings <= 8 ? 0 : e->strings <= 12 ? 1 : e->strings <= 16 ? 2 : 3]++;
    }
    printf("%-10s %8llu %10s %11.1f%% %11.1f%%   %llu / %llu / %llu / %llu\n", labels[l],
           (unsigned long long)mine, "", 100.0 * (double)other_pos / (double)(mine ? mine : 1),
           100.0 * (double)other_label / (double)(mine ? mine : 1), (unsigned long long)byS[0],
           (unsigned long long)byS[1], (unsigned long long)byS[2], (unsigned long long)byS[3]);
    (void)occ;
  }
  free(pr.cls);
  return 0;
}
