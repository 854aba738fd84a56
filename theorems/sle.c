/*
** sle.c: simple loony endgame values and rules (no search, no allocation).
** See Copyright Notice in README.md
*/
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "game/sc.h"
#include "theorems/sle.h"

_Static_assert(DAB_SLE_MAX >= DAB_MAX_BOXES, "an SLE of any board must fit a dab_sle");
_Static_assert(DAB_SLE_MEMO <= 65536, "the memo lives on the stack");

static inline int iabs(int x) { return x < 0 ? -x : x; }

int dab_sle_open_value(dab_sle_comp X, int v_rest) {
  if (X.kind == DAB_SLE_LOOP) return X.len - 4 + iabs(4 - v_rest);
  if (X.len >= 3) return X.len - 2 + iabs(2 - v_rest);
  return X.len - v_rest;
}

/* ---- The value recursion -------------------------------------------- */

/*
** The sub-multisets of G form a lattice indexed in mixed radix: with T
** distinct component types of counts n_0..n_{T-1},
**
**    index = k_0 + (n_0+1)*(k_1 + (n_1+1)*(k_2 + ...)),   0 <= k_i <= n_i
**
** Removing one component of type i subtracts stride_i from the index, so
** a single ascending sweep sees every sub-multiset before its supersets.
** The memo holds one int16_t per index (at most DAB_SLE_MEMO of them).
*/
typedef struct sle_type {
  dab_sle_comp comp;
  int count;
} sle_type;

/* Adds one component to the distinct-type list (kept unsorted: the
** order only changes the index layout, not the values). */
static int add_type(sle_type *types, int ntypes, int kind, int len) {
  for (int i = 0; i < ntypes; i++)
    if (types[i].comp.kind == kind && types[i].comp.len == len) {
      types[i].count++;
      return ntypes;
    }
  types[ntypes].comp.kind = (int8_t)kind;
  types[ntypes].comp.len = (int16_t)len;
  types[ntypes].count = 1;
  return ntypes + 1;
}

/* Exponential recursion without memo: only for inputs whose lattice is
** too large for the stack memo AND that hold 3-loops (negative controls,
** where no closed form applies). */
static int value_dfs(sle_type *types, int ntypes) {
  int best = 0;
  bool any = false;
  for (int i = 0; i < ntypes; i++) {
    if (!types[i].count) continue;
    types[i].count--;
    int v = dab_sle_open_value(types[i].comp, value_dfs(types, ntypes));
    types[i].count++;
    if (!any || v < best) best = v;
    any = true;
  }
  return best;
}

static int value_lattice(const sle_type *types, int ntypes, int states) {
  int16_t memo[DAB_SLE_MEMO];
  int stride[2 * DAB_SLE_MAX], digit[2 * DAB_SLE_MAX];
  int s = 1;
  for (int i = 0; i < ntypes; i++) {
    stride[i] = s;
    digit[i] = 0;
    s *= types[i].count + 1;
  }
  memo[0] = 0;
  for (int idx = 1; idx < states; idx++) {
    /* Increment the mixed-radix counter. */
    for (int i = 0;; i++) {
      if (digit[i] < types[i].count) {
        digit[i]++;
        break;
      }
      digit[i] = 0;
    }
    int best = INT16_MAX;
    for (int i = 0; i < ntypes; i++) {
      if (!digit[i]) continue;
      int v = dab_sle_open_value(types[i].comp, memo[idx - stride[i]]);
      if (v < best) best = v;
    }
    memo[idx] = (int16_t)best;
  }
  return memo[states - 1];
}

/* Collects the distinct component types; RETURN: their count, or -1 on
** bad input.  *odd_loop is set when a loop has odd length (3 included). */
static int collect_types(const int16_t *chains, int nchains, const int16_t *loops, int nloops,
                         sle_type *types, bool *odd_loop, bool *has3loop) {
  if (nchains < 0 || nloops < 0 || nchains > DAB_SLE_MAX || nloops > DAB_SLE_MAX) return -1;
  int ntypes = 0;
  *odd_loop = *has3loop = false;
  for (int i = 0; i < nchains; i++) {
    if (chains[i] < 1) return -1;
    ntypes = add_type(types, ntypes, DAB_SLE_CHAIN, chains[i]);
  }
  for (int i = 0; i < nloops; i++) {
    if (loops[i] < 3) return -1;
    if (loops[i] == 3) *has3loop = true;
    if (loops[i] % 2) *odd_loop = true;
    ntypes = add_type(types, ntypes, DAB_SLE_LOOP, loops[i]);
  }
  return ntypes;
}

int dab_sle_value_rec(const int16_t *chains, int nchains, const int16_t *loops, int nloops) {
  sle_type types[2 * DAB_SLE_MAX];
  bool odd, has3;
  int ntypes = collect_types(chains, nchains, loops, nloops, types, &odd, &has3);
  if (ntypes < 0) return DAB_SLE_BAD;
  if (ntypes == 0) return 0;
  if (nchains + nloops == 1) return dab_sle_open_value(types[0].comp, 0);
  long states = 1;
  for (int i = 0; i < ntypes && states <= DAB_SLE_MEMO; i++) states *= types[i].count + 1;
  if (states <= DAB_SLE_MEMO) return value_lattice(types, ntypes, (int)states);
  return value_dfs(types, ntypes);
}

int dab_sle_value(const int16_t *chains, int nchains, const int16_t *loops, int nloops) {
  /* Up to 3 components the lattice has at most 8 states: cheaper than
  ** building the closed form's multiset. */
  if (nchains + nloops <= 3 || nchains < 0 || nloops < 0)
    return dab_sle_value_rec(chains, nchains, loops, nloops);
  bool odd = false;
  int size = 0;
  for (int i = 0; i < nloops; i++) {
    odd |= loops[i] % 2 != 0;
    size += loops[i];
  }
  for (int i = 0; i < nchains; i++) size += chains[i];
  if (nchains > DAB_SLE_MAX || nloops > DAB_SLE_MAX) return DAB_SLE_BAD;
  if (odd) return dab_sle_value_rec(chains, nchains, loops, nloops);
  if (size > DAB_SLE_VERIFIED) {
    /* Beyond the verified range: the recursion while its lattice fits
    ** the stack memo, else the published closed form. */
    sle_type types[2 * DAB_SLE_MAX];
    bool o3, h3;
    int ntypes = collect_types(chains, nchains, loops, nloops, types, &o3, &h3);
    if (ntypes < 0) return DAB_SLE_BAD;
    long states = 1;
    for (int i = 0; i < ntypes && states <= DAB_SLE_MEMO; i++) states *= types[i].count + 1;
    if (states <= DAB_SLE_MEMO) return value_lattice(types, ntypes, (int)states);
  }
  /* Even loops within the exhaustively verified range: O(n). */
  dab_sle G;
  if (!dab_sle_make(&G, chains, nchains, loops, nloops)) return DAB_SLE_BAD;
  return dab_sle_value_closed(&G);
}

int dab_sle_v(const dab_sle *G) {
  return dab_sle_value(G->chain, G->nchains, G->loop, G->nloops);
}

int dab_sle_v_rec(const dab_sle *G) {
  return dab_sle_value_rec(G->chain, G->nchains, G->loop, G->nloops);
}

/* ---- Multisets ------------------------------------------------------ */

/* Insertion sort: component lists are short (at most DAB_SLE_MAX) and
** this must not call anything that could allocate. */
static void sort16(int16_t *a, int n) {
  for (int i = 1; i < n; i++) {
    int16_t x = a[i];
    int j = i - 1;
    while (j >= 0 && a[j] > x) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
}

bool dab_sle_make(dab_sle *G, const int16_t *chains, int nchains, const int16_t *loops,
                  int nloops) {
  if (nchains < 0 || nloops < 0 || nchains > DAB_SLE_MAX || nloops > DAB_SLE_MAX) return false;
  for (int i = 0; i < nchains; i++)
    if (chains[i] < 1) return false;
  for (int i = 0; i < nloops; i++)
    if (loops[i] < 3) return false;
  G->nchains = nchains;
  G->nloops = nloops;
  if (nchains) memcpy(G->chain, chains, (size_t)nchains * sizeof *chains);
  if (nloops) memcpy(G->loop, loops, (size_t)nloops * sizeof *loops);
  sort16(G->chain, nchains);
  sort16(G->loop, nloops);
  return true;
}

dab_status dab_sle_parse(const char *text, bool allow_3loops, dab_sle *G, dab_err *err) {
  G->nchains = G->nloops = 0;
  const char *p = text;
  while (isspace((unsigned char)*p)) p++;
  if (!*p) return DAB_OK;
  if (p[0] == '0') {
    const char *q = p + 1;
    while (isspace((unsigned char)*q)) q++;
    if (!*q) return DAB_OK;
  }
  for (;;) {
    while (isspace((unsigned char)*p)) p++;
    size_t col = (size_t)(p - text) + 1;
    bool loop = false;
    if (*p == 'L' || *p == 'l') {
      loop = true;
      p++;
    }
    if (!isdigit((unsigned char)*p))
      return dab_fail(err, DAB_EINPUT,
                      "SLE '%s': column %zu: expected a chain length or L+loop length", text,
                      (size_t)(p - text) + 1);
    long len = 0;
    while (isdigit((unsigned char)*p)) {
      len = len * 10 + (*p++ - '0');
      if (len > 9999)
        return dab_fail(err, DAB_EINPUT, "SLE '%s': column %zu: length too large", text, col);
    }
    if (loop && len < (allow_3loops ? 3 : 4))
      return dab_fail(err, DAB_EINPUT, "SLE '%s': column %zu: a loop needs length >= %d", text,
                      col, allow_3loops ? 3 : 4);
    if (!loop && len < 1)
      return dab_fail(err, DAB_EINPUT, "SLE '%s': column %zu: a chain needs length >= 1", text,
                      col);
    if ((loop ? G->nloops : G->nchains) >= DAB_SLE_MAX)
      return dab_fail(err, DAB_EINPUT, "SLE '%s': more than %d components of one kind", text,
                      DAB_SLE_MAX);
    if (loop) G->loop[G->nloops++] = (int16_t)len;
    else G->chain[G->nchains++] = (int16_t)len;
    while (isspace((unsigned char)*p)) p++;
    if (!*p) break;
    if (*p != '+')
      return dab_fail(err, DAB_EINPUT, "SLE '%s': column %zu: expected '+' between components",
                      text, (size_t)(p - text) + 1);
    p++;
  }
  sort16(G->chain, G->nchains);
  sort16(G->loop, G->nloops);
  return DAB_OK;
}

char *dab_sle_format(const dab_sle *G, char *buf, size_t len) {
  if (!len) return NULL;
  size_t at = 0;
  buf[0] = 0;
  if (!G->nchains && !G->nloops) {
    if (len < 2) return NULL;
    buf[0] = '0';
    buf[1] = 0;
    return buf;
  }
  for (int i = 0; i < G->nchains + G->nloops; i++) {
    bool loop = i >= G->nchains;
    int l = loop ? G->loop[i - G->nchains] : G->chain[i];
    int w = snprintf(buf + at, len - at, "%s%s%d", i ? "+" : "", loop ? "L" : "", l);
    if (w < 0 || (size_t)w >= len - at) return NULL;
    at += (size_t)w;
  }
  return buf;
}

int dab_sle_size(const dab_sle *G) {
  int n = 0;
  for (int i = 0; i < G->nchains; i++) n += G->chain[i];
  for (int i = 0; i < G->nloops; i++) n += G->loop[i];
  return n;
}

int dab_sle_count_chains(const dab_sle *G, int len) {
  int n = 0;
  for (int i = 0; i < G->nchains; i++) n += G->chain[i] == len;
  return n;
}

int dab_sle_count_loops(const dab_sle *G, int len) {
  int n = 0;
  for (int i = 0; i < G->nloops; i++) n += G->loop[i] == len;
  return n;
}

bool dab_sle_is_strict(const dab_sle *G) {
  return (!G->nchains || G->chain[0] >= 3) && (!G->nloops || G->loop[0] >= 4);
}

bool dab_sle_remove(const dab_sle *G, int kind, int len, dab_sle *out) {
  const int16_t *src = kind == DAB_SLE_LOOP ? G->loop : G->chain;
  int n = kind == DAB_SLE_LOOP ? G->nloops : G->nchains;
  int at = -1;
  for (int i = 0; i < n; i++)
    if (src[i] == len) {
      at = i;
      break;
    }
  if (at < 0) return false;
  *out = *G;
  int16_t *dst = kind == DAB_SLE_LOOP ? out->loop : out->chain;
  memmove(dst + at, dst + at + 1, (size_t)(n - at - 1) * sizeof *dst);
  if (kind == DAB_SLE_LOOP) out->nloops--;
  else out->nchains--;
  return true;
}

/* ---- Controlled value ----------------------------------------------- */

int dab_sle_fcv(const dab_sle *G) {
  return dab_sle_size(G) - 4 * G->nchains - 8 * G->nloops;
}

int dab_sle_tb(const dab_sle *G) {
  if (!G->nchains && !G->nloops) return 0;
  if (!G->nloops) return 4;
  if (!G->nchains) return 8;
  return G->chain[G->nchains - 1] >= 4 ? 4 : 6;  /* largest chain >= 4? */
}

int dab_sle_tb_old(const dab_sle *G) {
  if (!G->nchains && !G->nloops) return 0;
  return G->nchains ? 4 : 8;
}

int dab_sle_c(const dab_sle *G) { return dab_sle_fcv(G) + dab_sle_tb(G); }

/* ---- Closed form V -------------------------------------------------- */

static inline int mod4(int x) { return ((x % 4) + 4) % 4; }

/* G without its 3-chains (if drop3) and without its 4-loops (if dropL4). */
static void filter(const dab_sle *G, bool drop3, bool dropL4, dab_sle *out) {
  out->nchains = out->nloops = 0;
  for (int i = 0; i < G->nchains; i++)
    if (!(drop3 && G->chain[i] == 3)) out->chain[out->nchains++] = G->chain[i];
  for (int i = 0; i < G->nloops; i++)
    if (!(dropL4 && G->loop[i] == 4)) out->loop[out->nloops++] = G->loop[i];
}

/* w(X) for X with no 3-chains and no 4-loops. */
static int w_of(const dab_sle *X) {
  if (!X->nchains && !X->nloops) return 0;
  int c = dab_sle_c(X);
  if (c >= 2) return c;
  if (c % 2) return 3;
  return mod4(c) == 0 ? 4 : 2;
}

/* True when G is exactly the listed chains (sorted) plus one 4-loop. */
static bool is_chains_plus_L4(const dab_sle *G, const int16_t *chains, int n) {
  if (G->nloops != 1 || G->loop[0] != 4 || G->nchains != n) return false;
  for (int i = 0; i < n; i++)
    if (G->chain[i] != chains[i]) return false;
  return true;
}

int dab_sle_closed_form(const dab_sle *G, int *case_no) {
  int dummy;
  if (!case_no) case_no = &dummy;
  if (!dab_sle_is_strict(G)) return DAB_SLE_BAD;
  int c = dab_sle_c(G);
  int t = dab_sle_count_chains(G, 3);
  int f = dab_sle_count_loops(G, 4);
  if (c >= 2) {
    *case_no = 1;
    return c;
  }
  if (t == 0) {
    *case_no = 2;
    dab_sle K;
    filter(G, false, true, &K);
    int v = w_of(&K);
    for (int i = 0; i < f; i++) v = iabs(v - 4);
    return v;
  }
  if (c % 2 == 0) {
    *case_no = 3;
    static const int16_t c33[2] = {3, 3};
    return c == 0 && f >= 1 && !is_chains_plus_L4(G, c33, 2) ? 0 : 2;
  }
  if (t >= 2) {
    *case_no = 4;
    return 1;
  }
  *case_no = 5;
  dab_sle H0;
  filter(G, true, true, &H0);
  if (mod4(dab_sle_size(&H0)) == 2) return 1;
  int j0 = (1 - c) / 4;  /* c <= 1, so 1 - c >= 0 and / is floor */
  if (j0 < f) return j0 % 2 == 0 ? 1 : 3;
  return f % 2 == 0 ? 3 : 1;
}

int dab_sle_bz5(int vC, int k, int n) {
  bool kodd = k % 2, nodd = n % 2;
  if (kodd && nodd) return vC - 1;
  if (kodd) return 1 - vC;
  if (nodd) return 2 - vC;
  return vC;
}

int dab_sle_value_closed(const dab_sle *G) {
  if (G->nloops && G->loop[0] < 4) return DAB_SLE_BAD;
  int k = dab_sle_count_chains(G, 1), n = dab_sle_count_chains(G, 2);
  if (!k && !n) return dab_sle_closed_form(G, NULL);
  dab_sle C = *G;
  C.nchains = 0;
  for (int i = 0; i < G->nchains; i++)
    if (G->chain[i] >= 3) C.chain[C.nchains++] = G->chain[i];
  return dab_sle_bz5(dab_sle_closed_form(&C, NULL), k, n);
}

/* ---- Opening rules -------------------------------------------------- */

static dab_sle_comp comp(int kind, int len) {
  dab_sle_comp x = {(int8_t)kind, (int16_t)len};
  return x;
}

dab_sle_comp dab_sle_standard_open(const dab_sle *G) {
  if (dab_sle_count_chains(G, 3)) return comp(DAB_SLE_CHAIN, 3);
  if (G->nloops) return comp(DAB_SLE_LOOP, G->loop[0]);
  return comp(DAB_SLE_CHAIN, G->nchains ? G->chain[0] : 0);
}

dab_sle_comp dab_sle_allcock(const dab_sle *G, int *rule_no) {
  int dummy;
  if (!rule_no) rule_no = &dummy;
  int c = dab_sle_c(G);
  int t = dab_sle_count_chains(G, 3);
  int f = dab_sle_count_loops(G, 4);
  if (c >= 2 && G->nchains == 1 && G->chain[0] == 3 && G->nloops) {
    *rule_no = 1;
    return comp(DAB_SLE_LOOP, G->loop[0]);
  }
  static const int16_t c333[3] = {3, 3, 3};
  if (c >= -1 && c <= 1 && f && !is_chains_plus_L4(G, c333, 3)) {
    *rule_no = 2;
    return comp(DAB_SLE_LOOP, 4);
  }
  if (c <= -2 && f && t == 1 && mod4(dab_sle_size(G) - 7) == 0) {
    *rule_no = 3;
    return comp(DAB_SLE_LOOP, 4);
  }
  *rule_no = 4;
  return dab_sle_standard_open(G);
}

bool dab_sle_keep_control(dab_sle_comp X, int v_rest) {
  if (X.kind == DAB_SLE_LOOP) return v_rest >= 4;
  return X.len >= 3 && v_rest >= 2;
}

dab_sle_comp dab_sle_bz_open(const dab_sle *G, bool *has_short) {
  *has_short = true;
  if (dab_sle_count_chains(G, 1)) return comp(DAB_SLE_CHAIN, 1);
  if (dab_sle_count_chains(G, 2)) return comp(DAB_SLE_CHAIN, 2);
  *has_short = false;
  return comp(DAB_SLE_CHAIN, 0);
}

/* ---- Nimstring ------------------------------------------------------ */

int dab_sle_comp_nimber(dab_sle_comp X) {
  if (X.kind == DAB_SLE_LOOP) return X.len == 3;
  return X.len <= 2;
}

int dab_sle_nimber(const dab_sle *G) {
  int x = 0;
  for (int i = 0; i < G->nchains; i++) x ^= dab_sle_comp_nimber(comp(DAB_SLE_CHAIN, G->chain[i]));
  for (int i = 0; i < G->nloops; i++) x ^= dab_sle_comp_nimber(comp(DAB_SLE_LOOP, G->loop[i]));
  return x;
}

/* ---- Bridge from boards --------------------------------------------- */

bool dab_sle_from_position(const dab_geom *g, const dab_lineset *s, bool extended,
                           int16_t *chains, int *nchains, int16_t *loops, int *nloops) {
  /* An extended SLE is exactly a position where every box has 2 or 4
  ** sides drawn (degree 2 or taken): reject the rest with popcounts. */
  if (dab_geom_fast(g)) {
    uint64_t p = dab_ls_word(s);
    for (int b = 0; b < g->nboxes; b++) {
      int sides = dab64_sides(g, p, b);
      if (sides != 2 && sides != 4) return false;
    }
  } else {
    for (int b = 0; b < g->nboxes; b++) {
      int sides = dab_box_sides(g, s, b);
      if (sides != 2 && sides != 4) return false;
    }
  }
  dab_sc_view v;
  dab_sc_analyze(g, s, &v);
  if (!dab_sc_is_sle(&v, extended)) return false;
  return dab_sc_multiset(&v, chains, nchains, loops, nloops) == 0;
}

bool dab_sle_position_value(const dab_geom *g, const dab_lineset *s, int *value) {
  int16_t chains[DAB_MAX_BOXES], loops[DAB_MAX_BOXES];
  int nc, nl;
  if (!dab_sle_from_position(g, s, true, chains, &nc, loops, &nl)) return false;
  *value = -dab_sle_value(chains, nc, loops, nl);
  return true;
}
