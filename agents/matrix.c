/*
** matrix.c: matrix games: exact rationals, the benchmark games, the payoff
** text format, exact Nash equilibria and the published claims about them.
** See Copyright Notice in README.md
*/
#include "agents/matrix.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Exact rationals ----------------------------------------------------- */

typedef __int128 i128;
typedef unsigned __int128 u128;

static u128 gcd128(u128 a, u128 b) {
  while (b) {
    u128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* Reduces num/den into *out.  RETURN: false if den == 0 or the result does
** not fit int64 (INT64_MIN excluded, so that negation is always safe). */
static bool rat_make(i128 num, i128 den, dab_rat *out) {
  if (den == 0) return false;
  if (den < 0) num = -num, den = -den;
  u128 an = num < 0 ? (u128)(-num) : (u128)num;
  u128 g = gcd128(an, (u128)den);
  if (g > 1) {
    num /= (i128)g;
    den /= (i128)g;
  }
  if (num > INT64_MAX || num < -INT64_MAX || den > INT64_MAX) return false;
  out->num = (int64_t)num;
  out->den = (int64_t)den;
  return true;
}

dab_rat dab_rat_int(int64_t n) {
  dab_rat r = {n, 1};
  return r;
}

bool dab_rat_add(dab_rat a, dab_rat b, dab_rat *out) {
  return rat_make((i128)a.num * b.den + (i128)b.num * a.den, (i128)a.den * b.den, out);
}

bool dab_rat_sub(dab_rat a, dab_rat b, dab_rat *out) {
  return rat_make((i128)a.num * b.den - (i128)b.num * a.den, (i128)a.den * b.den, out);
}

bool dab_rat_mul(dab_rat a, dab_rat b, dab_rat *out) {
  return rat_make((i128)a.num * b.num, (i128)a.den * b.den, out);
}

bool dab_rat_div(dab_rat a, dab_rat b, dab_rat *out) {
  if (b.num == 0) return false;
  return rat_make((i128)a.num * b.den, (i128)a.den * b.num, out);
}

int dab_rat_cmp(dab_rat a, dab_rat b) {
  i128 l = (i128)a.num * b.den, r = (i128)b.num * a.den;
  return (l > r) - (l < r);
}

double dab_rat_to_double(dab_rat a) {
  return (double)a.num / (double)a.den;
}

static bool rat_eq(dab_rat a, dab_rat b) {
  return a.num == b.num && a.den == b.den;
}

/* Reads up to max digits (at least one) into *v.  RETURN: chars read, or 0. */
static int read_digits(const char *s, int max, int64_t *v) {
  int n = 0;
  *v = 0;
  while (isdigit((unsigned char)s[n])) {
    if (n == max) return 0;
    *v = *v * 10 + (s[n] - '0');
    n++;
  }
  return n;
}

bool dab_rat_parse(const char *s, dab_rat *out) {
  const int64_t limit = 1000000000000ll; /* 10^12 */
  bool neg = false;
  if (*s == '+' || *s == '-') neg = *s++ == '-';
  int64_t ip = 0, fp = 0, den = 1;
  int n = read_digits(s, 13, &ip);
  s += n;
  if (*s == '/') {
    int64_t q;
    int m = read_digits(s + 1, 13, &q);
    if (!n || !m || s[1 + m] || q == 0 || ip > limit || q > limit) return false;
    return rat_make(neg ? -(i128)ip : ip, q, out);
  }
  int m = 0;
  if (*s == '.') {
    m = read_digits(s + 1, 9, &fp);
    if (!m && s[1] && isdigit((unsigned char)s[1])) return false; /* too many decimals */
    s += 1 + m;
  }
  if ((!n && !m) || *s || ip > limit) return false;
  for (int i = 0; i < m; i++) den *= 10;
  i128 num = (i128)ip * den + fp;
  return rat_make(neg ? -num : num, den, out);
}

void dab_rat_format(dab_rat a, char *buf, int size) {
  if (a.den == 1)
    snprintf(buf, (size_t)size, "%lld", (long long)a.num);
  else
    snprintf(buf, (size_t)size, "%lld/%lld", (long long)a.num, (long long)a.den);
}

/* ---- Games --------------------------------------------------------------- */

const char dab_matrix_builtin_help[] =
    "dispersion, bos (battle-of-the-sexes), pd (prisoners-dilemma), rps (biased-rps)";

/* Sets action names from a space-separated list. */
static void set_names(char names[][DAB_MATRIX_NAME], const char *list, int n) {
  for (int i = 0; i < n; i++) {
    int k = 0;
    while (*list == ' ') list++;
    while (*list && *list != ' ' && k < DAB_MATRIX_NAME - 1) names[i][k++] = *list++;
    names[i][k] = 0;
  }
}

/* Fills a game from integer payoffs scaled by 1/scale. */
static void fill(dab_matrix_game *g, const char *name, const char *acts, int n, int scale,
                 const int *row, const int *col) {
  memset(g, 0, sizeof *g);
  snprintf(g->name, sizeof g->name, "%s", name);
  g->rows = g->cols = n;
  set_names(g->row_name, acts, n);
  set_names(g->col_name, acts, n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      rat_make(row[i * n + j], scale, &g->pay[0][i][j]);
      rat_make(col[i * n + j], scale, &g->pay[1][i][j]);
    }
}

dab_status dab_matrix_builtin(const char *name, dab_matrix_game *g, dab_err *err) {
  static const int disp[4] = {-1, 1, 1, -1};
  static const int bos_r[4] = {3, 0, 0, 2}, bos_c[4] = {2, 0, 0, 3};
  static const int pd_r[4] = {-1, -4, 0, -3}, pd_c[4] = {-1, 0, -4, -3};
  /* Table 1 (d) in hundredths: R (0, -0.25, 0.5), P (0.25, 0, -0.05),
  ** S (-0.5, 0.05, 0); the column player gets minus the row's. */
  static const int rps_r[9] = {0, -25, 50, 25, 0, -5, -50, 5, 0};
  int rps_c[9];
  for (int i = 0; i < 9; i++) rps_c[i] = -rps_r[i];
  if (!strcmp(name, "dispersion")) {
    fill(g, "dispersion game", "A B", 2, 1, disp, disp);
    g->builtin = DAB_MATRIX_DISPERSION;
  } else if (!strcmp(name, "bos") || !strcmp(name, "battle-of-the-sexes")) {
    fill(g, "battle of the sexes", "O M", 2, 1, bos_r, bos_c);
    g->builtin = DAB_MATRIX_BOS;
  } else if (!strcmp(name, "pd") || !strcmp(name, "prisoners-dilemma")) {
    fill(g, "prisoner's dilemma", "C D", 2, 1, pd_r, pd_c);
    g->builtin = DAB_MATRIX_PD;
  } else if (!strcmp(name, "rps") || !strcmp(name, "biased-rps")) {
    fill(g, "biased rock-paper-scissors", "R P S", 3, 100, rps_r, rps_c);
    g->builtin = DAB_MATRIX_RPS;
  } else {
    return dab_fail(err, DAB_EINPUT, "unknown game '%s' (games: %s)", name,
                    dab_matrix_builtin_help);
  }
  return DAB_OK;
}

bool dab_matrix_symmetric(const dab_matrix_game *g) {
  if (g->rows != g->cols) return false;
  for (int i = 0; i < g->rows; i++)
    for (int j = 0; j < g->cols; j++)
      if (!rat_eq(g->pay[1][i][j], g->pay[0][j][i])) return false;
  return true;
}

/* ---- The payoff text format ---------------------------------------------- */

typedef struct parser {
  const char *file;
  int line;
  dab_err *err;
} parser;

#define PFAIL(ps, ...) perr(ps, __VA_ARGS__)

__attribute__((format(printf, 2, 3))) static dab_status perr(parser *ps, const char *fmt, ...) {
  char msg[DAB_ERR_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return dab_fail(ps->err, DAB_EINPUT, "%s:%d: %s", ps->file, ps->line, msg);
}

/* Splits a line into words at blanks (and, for payoffs, commas and
** parentheses).  RETURN: the word count, or -1 past max words. */
static int split(char *s, bool payoff, char **w, int max) {
  int n = 0;
  for (;;) {
    while (*s && (isspace((unsigned char)*s) || (payoff && strchr(",()", *s)))) *s++ = 0;
    if (!*s) return n;
    if (n == max) return -1;
    w[n++] = s;
    while (*s && !isspace((unsigned char)*s) && !(payoff && strchr(",()", *s))) s++;
  }
}

/* Reads an action-name line ("rows A B").  RETURN: DAB_OK or the error. */
static dab_status parse_names(parser *ps, char **w, int nw, char names[][DAB_MATRIX_NAME],
                              int *count) {
  if (nw < 2) return PFAIL(ps, "'%s' needs at least one action name", w[0]);
  if (nw - 1 > DAB_MATRIX_MAX)
    return PFAIL(ps, "%d actions; at most %d", nw - 1, DAB_MATRIX_MAX);
  if (*count) return PFAIL(ps, "'%s' given twice", w[0]);
  for (int i = 1; i < nw; i++) {
    if (strlen(w[i]) >= DAB_MATRIX_NAME)
      return PFAIL(ps, "action name '%s' is longer than %d characters", w[i],
                   DAB_MATRIX_NAME - 1);
    for (int j = 1; j < i; j++)
      if (!strcmp(w[i], w[j])) return PFAIL(ps, "action name '%s' given twice", w[i]);
    snprintf(names[i - 1], DAB_MATRIX_NAME, "%s", w[i]);
  }
  *count = nw - 1;
  return DAB_OK;
}

dab_status dab_matrix_parse(const char *text, const char *file, dab_matrix_game *g,
                            dab_err *err) {
  parser ps = {file, 0, err};
  memset(g, 0, sizeof *g);
  snprintf(g->name, sizeof g->name, "%s", "user game");
  int nrow_names = 0, ncol_names = 0, rows_line = 0, cols_line = 0;
  bool zerosum = false;
  int cols = 0; /* payoff cells per row, once the first payoff row is read */
  char buf[1024];
  const char *p = text;
  while (*p) {
    const char *eol = strchr(p, '\n');
    size_t len = eol ? (size_t)(eol - p) : strlen(p);
    ps.line++;
    if (len >= sizeof buf) return PFAIL(&ps, "line longer than %zu characters", sizeof buf - 1);
    memcpy(buf, p, len);
    buf[len] = 0;
    p += len + (eol ? 1 : 0);
    char *hash = strchr(buf, '#');
    if (hash) *hash = 0;
    char *w[2 * DAB_MATRIX_MAX + 2];
    char probe[sizeof buf];
    memcpy(probe, buf, len + 1);
    int nw = split(probe, false, w, 2 * DAB_MATRIX_MAX + 1);
    if (nw == 0) continue;
    if (nw > 0 && !strcmp(w[0], "name")) {
      const char *t = strstr(buf, "name") + 4;
      while (isspace((unsigned char)*t)) t++;
      size_t tl = strlen(t);
      while (tl && isspace((unsigned char)t[tl - 1])) tl--;
      if (!tl) return PFAIL(&ps, "'name' needs a text");
      if (tl >= sizeof g->name) tl = sizeof g->name - 1;
      memcpy(g->name, t, tl);
      g->name[tl] = 0;
      continue;
    }
    if (nw > 0 && (!strcmp(w[0], "rows") || !strcmp(w[0], "cols"))) {
      bool r = w[0][0] == 'r';
      if (g->rows) return PFAIL(&ps, "'%s' must come before the payoffs", w[0]);
      dab_status st = parse_names(&ps, w, nw, r ? g->row_name : g->col_name,
                                  r ? &nrow_names : &ncol_names);
      if (st) return st;
      *(r ? &rows_line : &cols_line) = ps.line;
      continue;
    }
    if (nw > 0 && !strcmp(w[0], "zerosum")) {
      if (nw > 1) return PFAIL(&ps, "'zerosum' takes no argument");
      if (g->rows) return PFAIL(&ps, "'zerosum' must come before the payoffs");
      zerosum = true;
      continue;
    }
    /* A payoff row. */
    nw = split(buf, true, w, 2 * DAB_MATRIX_MAX + 1);
    int per = zerosum ? 1 : 2;
    if (nw < 0 || nw > per * DAB_MATRIX_MAX)
      return PFAIL(&ps, "more than %d actions in a payoff row", DAB_MATRIX_MAX);
    if (!isdigit((unsigned char)w[0][0]) && !strchr("+-.", w[0][0]))
      return PFAIL(&ps, "expected a payoff row or one of name, rows, cols, zerosum; got '%s'",
                   w[0]);
    if (nw % per)
      return PFAIL(&ps, "%d numbers; a payoff row needs 2 per column action "
                        "(row player's payoff, column player's)", nw);
    if (!cols) cols = ncol_names ? ncol_names : nw / per;
    if (nw / per != cols)
      return PFAIL(&ps, "%d payoff cells; expected %d (one per column action)", nw / per, cols);
    if (g->rows == DAB_MATRIX_MAX)
      return PFAIL(&ps, "more than %d payoff rows", DAB_MATRIX_MAX);
    int i = g->rows++;
    for (int k = 0; k < nw; k++) {
      dab_rat v;
      if (!dab_rat_parse(w[k], &v))
        return PFAIL(&ps, "'%s' is not a payoff (an integer, a decimal with at most 9 "
                          "digits after the point, or a fraction p/q; |x| <= 10^12)", w[k]);
      int j = k / per;
      if (zerosum) {
        g->pay[0][i][j] = v;
        g->pay[1][i][j] = dab_rat_int(0);
        dab_rat_sub(dab_rat_int(0), v, &g->pay[1][i][j]);
      } else {
        g->pay[k % 2][i][j] = v;
      }
    }
  }
  if (!g->rows) return PFAIL(&ps, "no payoff rows");
  if (nrow_names && nrow_names != g->rows) {
    ps.line = rows_line;
    return PFAIL(&ps, "%d row names but %d payoff rows", nrow_names, g->rows);
  }
  (void)cols_line;
  g->cols = cols;
  for (int i = nrow_names; i < g->rows; i++) snprintf(g->row_name[i], DAB_MATRIX_NAME, "r%d", i + 1);
  for (int j = ncol_names; j < g->cols; j++) snprintf(g->col_name[j], DAB_MATRIX_NAME, "c%d", j + 1);
  return DAB_OK;
}

dab_status dab_matrix_load(const char *path, dab_matrix_game *g, dab_err *err) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return dab_fail(err, errno == ENOENT ? DAB_EINPUT : DAB_EIO, "%s: cannot open: %s", path,
                    strerror(errno));
  enum { CAP = 64 * 1024 };
  char *text = malloc(CAP + 1);
  if (!text) {
    fclose(f);
    return dab_fail(err, DAB_ENOMEM, "%s: out of memory", path);
  }
  size_t n = fread(text, 1, CAP + 1, f);
  bool bad = ferror(f);
  fclose(f);
  dab_status st;
  if (bad)
    st = dab_fail(err, DAB_EIO, "%s: read error", path);
  else if (n > CAP)
    st = dab_fail(err, DAB_EINPUT, "%s:1: file larger than 64 KiB", path);
  else if (memchr(text, 0, n))
    st = dab_fail(err, DAB_EINPUT, "%s:1: not a text file (holds a zero byte)", path);
  else {
    text[n] = 0;
    st = dab_matrix_parse(text, path, g, err);
  }
  free(text);
  return st;
}

/* ---- Nash equilibria ----------------------------------------------------- */

/* A small exact linear system: rows equations, cols unknowns + 1 (the
** right-hand side last). */
typedef struct linsys {
  int neq, nun;
  dab_rat a[DAB_MATRIX_MAX + 1][DAB_MATRIX_MAX + 2];
} linsys;

/* Gauss-Jordan elimination.  RETURN: 1 and x[] when the solution is unique,
** 0 when there is none or more than one, -1 on overflow. */
static int solve_unique(linsys *s, dab_rat *x) {
  int n = s->nun, r = 0;
  for (int c = 0; c < n && r < s->neq; c++) {
    int piv = -1;
    for (int i = r; i < s->neq; i++)
      if (s->a[i][c].num) {
        piv = i;
        break;
      }
    if (piv < 0) return 0; /* a free unknown: not unique */
    if (piv != r)
      for (int k = 0; k <= n; k++) {
        dab_rat t = s->a[r][k];
        s->a[r][k] = s->a[piv][k];
        s->a[piv][k] = t;
      }
    dab_rat inv = s->a[r][c];
    for (int k = c; k <= n; k++)
      if (!dab_rat_div(s->a[r][k], inv, &s->a[r][k])) return -1;
    for (int i = 0; i < s->neq; i++) {
      if (i == r || !s->a[i][c].num) continue;
      dab_rat f = s->a[i][c];
      for (int k = c; k <= n; k++) {
        dab_rat t;
        if (!dab_rat_mul(f, s->a[r][k], &t) || !dab_rat_sub(s->a[i][k], t, &s->a[i][k]))
          return -1;
      }
    }
    r++;
  }
  if (r < n) return 0;
  for (int i = r; i < s->neq; i++)
    if (s->a[i][n].num) return 0; /* inconsistent */
  for (int c = 0; c < n; c++) x[c] = s->a[c][n];
  return 1;
}

/* Payoff to the player who does not choose `own`: side 0 enumerates row
** strategies (the column player's payoffs matter), side 1 column ones. */
static dab_rat other_pay(const dab_matrix_game *g, int side, int own, int other) {
  return side == 0 ? g->pay[1][own][other] : g->pay[0][other][own];
}

/* The vertices of one player's best-response polytope: for every support I
** and every set K of |I| replies of the other player, the strategy on I
** that makes K indifferent, kept when it is a strategy (all > 0) and K's
** replies are best.  RETURN: DAB_OK or the error. */
static dab_status vertices(const dab_matrix_game *g, int side, dab_matrix_vertex *v, int *nv,
                           dab_err *err) {
  int nown = side ? g->cols : g->rows, noth = side ? g->rows : g->cols;
  *nv = 0;
  for (uint32_t I = 1; I < 1u << nown; I++) {
    int idx[DAB_MATRIX_MAX], ni = 0;
    for (int i = 0; i < nown; i++)
      if (I >> i & 1) idx[ni++] = i;
    for (uint32_t K = 1; K < 1u << noth; K++) {
      if (__builtin_popcount(K) != ni) continue;
      linsys s = {.neq = ni + 1, .nun = ni + 1};
      int e = 0;
      for (int k = 0; k < noth; k++) {
        if (!(K >> k & 1)) continue;
        for (int c = 0; c < ni; c++) s.a[e][c] = other_pay(g, side, idx[c], k);
        s.a[e][ni] = dab_rat_int(-1);
        s.a[e][ni + 1] = dab_rat_int(0);
        e++;
      }
      for (int c = 0; c < ni; c++) s.a[e][c] = dab_rat_int(1);
      s.a[e][ni] = dab_rat_int(0);
      s.a[e][ni + 1] = dab_rat_int(1);
      dab_rat x[DAB_MATRIX_MAX + 1];
      int r = solve_unique(&s, x);
      if (r < 0) goto overflow;
      if (r == 0) continue;
      bool ok = true;
      for (int c = 0; c < ni; c++)
        if (x[c].num <= 0) ok = false;
      if (!ok) continue;
      dab_matrix_vertex cand;
      memset(&cand, 0, sizeof cand);
      for (int i = 0; i < DAB_MATRIX_MAX; i++) cand.p[i] = dab_rat_int(0);
      for (int c = 0; c < ni; c++) cand.p[idx[c]] = x[c];
      cand.support = I;
      cand.payoff = x[ni];
      for (int k = 0; k < noth && ok; k++) {
        dab_rat sum = dab_rat_int(0), t;
        for (int c = 0; c < ni; c++)
          if (!dab_rat_mul(other_pay(g, side, idx[c], k), x[c], &t) || !dab_rat_add(sum, t, &sum))
            goto overflow;
        int cmp = dab_rat_cmp(sum, x[ni]);
        if (cmp > 0) ok = false;
        if (cmp == 0) cand.best |= 1u << k;
      }
      if (!ok) continue;
      bool dup = false;
      for (int j = 0; j < *nv && !dup; j++)
        dup = !memcmp(v[j].p, cand.p, sizeof cand.p);
      if (dup) continue;
      if (*nv == DAB_MATRIX_MAX_VERT)
        return dab_fail(err, DAB_EBOARD, "more than %d extreme strategies for one player",
                        DAB_MATRIX_MAX_VERT);
      v[(*nv)++] = cand;
    }
  }
  return DAB_OK;
overflow:
  return dab_fail(err, DAB_EINPUT, "exact arithmetic overflows int64: payoffs too large or "
                                   "too finely divided");
}

/* Sort key of an equilibrium: pure first, then smaller supports. */
static int eq_key(const dab_matrix_nash *ne, const dab_matrix_eq *e) {
  return __builtin_popcount(ne->xv[e->x].support) + __builtin_popcount(ne->yv[e->y].support);
}

/* a dominates b: at least as good for both, better for one. */
static bool dominates(dab_rat a0, dab_rat a1, dab_rat b0, dab_rat b1) {
  int c0 = dab_rat_cmp(a0, b0), c1 = dab_rat_cmp(a1, b1);
  return c0 >= 0 && c1 >= 0 && (c0 > 0 || c1 > 0);
}

/* The maximal Nash subsets: every nonempty intersection of the sets
** N(y) = {row vertices in equilibrium with y} with the column vertices
** equilibrated with all of it (the closed pairs of the bipartite graph). */
static void components(dab_matrix_nash *ne) {
  for (int e = 0; e < ne->neq; e++)
    if (ne->eq[e].x >= 64 || ne->eq[e].y >= 64) {
      ne->comp_truncated = true;
      return;
    }
  uint64_t fam[4 * DAB_MATRIX_MAX_COMP];
  int nf = 0, cap = (int)(sizeof fam / sizeof fam[0]);
  bool trunc = false;
  for (int b = 0; b < ne->nyv; b++) {
    uint64_t m = 0;
    for (int e = 0; e < ne->neq; e++)
      if (ne->eq[e].y == b) m |= 1ull << ne->eq[e].x;
    if (!m) continue;
    bool dup = false;
    for (int i = 0; i < nf; i++) dup |= fam[i] == m;
    if (dup) continue;
    if (nf == cap) {
      trunc = true;
      break;
    }
    fam[nf++] = m;
  }
  for (int i = 0; i < nf; i++)
    for (int j = 0; j < i; j++) {
      uint64_t m = fam[i] & fam[j];
      bool dup = !m;
      for (int k = 0; k < nf && !dup; k++) dup = fam[k] == m;
      if (dup) continue;
      if (nf == cap) {
        trunc = true;
        continue;
      }
      fam[nf++] = m;
    }
  ne->ncomp = 0;
  for (int i = 0; i < nf; i++) {
    uint64_t ym = 0;
    for (int b = 0; b < ne->nyv; b++) {
      uint64_t nb = 0;
      for (int e = 0; e < ne->neq; e++)
        if (ne->eq[e].y == b) nb |= 1ull << ne->eq[e].x;
      if ((fam[i] & nb) == fam[i]) ym |= 1ull << b;
    }
    if (__builtin_popcountll(fam[i]) < 2 && __builtin_popcountll(ym) < 2) continue;
    if (ne->ncomp == DAB_MATRIX_MAX_COMP) {
      trunc = true;
      break;
    }
    ne->comp[ne->ncomp].xmask = fam[i];
    ne->comp[ne->ncomp].ymask = ym;
    ne->ncomp++;
  }
  ne->comp_truncated = trunc;
}

/* Moves one player's vertices that take part in equilibria to the front
** (keeping their order) and renumbers the equilibria to match.
** RETURN: false when out of memory. */
static bool front_load(dab_matrix_nash *ne, int side) {
  dab_matrix_vertex *v = side ? ne->yv : ne->xv;
  int nv = side ? ne->nyv : ne->nxv, k = 0;
  if (!nv) return true;
  dab_matrix_vertex *tmp = malloc(sizeof *tmp * (size_t)nv);
  int *to = malloc(sizeof *to * (size_t)nv);
  if (!tmp || !to) {
    free(tmp);
    free(to);
    return false;
  }
  for (int pass = 0; pass < 2; pass++)
    for (int a = 0; a < nv; a++) {
      bool used = false;
      for (int e = 0; e < ne->neq && !used; e++) used = (side ? ne->eq[e].y : ne->eq[e].x) == a;
      if (used == (pass == 0)) {
        to[a] = k;
        tmp[k++] = v[a];
      }
    }
  memcpy(v, tmp, sizeof *v * (size_t)nv);
  for (int e = 0; e < ne->neq; e++) {
    int *i = side ? &ne->eq[e].y : &ne->eq[e].x;
    *i = to[*i];
  }
  free(tmp);
  free(to);
  return true;
}

dab_status dab_matrix_solve(const dab_matrix_game *g, dab_matrix_nash *ne, dab_err *err) {
  memset(ne, 0, sizeof *ne);
  if (g->rows < 1 || g->cols < 1 || g->rows > DAB_MATRIX_MAX || g->cols > DAB_MATRIX_MAX)
    return dab_fail(err, DAB_EBOARD, "a game needs 1 to %d actions per player", DAB_MATRIX_MAX);
  dab_status st = vertices(g, 0, ne->xv, &ne->nxv, err);
  if (!st) st = vertices(g, 1, ne->yv, &ne->nyv, err);
  if (st) return st;
  for (int a = 0; a < ne->nxv; a++) {
    const dab_matrix_vertex *x = &ne->xv[a];
    if (__builtin_popcount(x->best) > __builtin_popcount(x->support)) ne->degenerate = true;
    for (int b = 0; b < ne->nyv; b++) {
      const dab_matrix_vertex *y = &ne->yv[b];
      if ((x->support & ~y->best) || (y->support & ~x->best)) continue;
      if (ne->neq == DAB_MATRIX_MAX_EQ)
        return dab_fail(err, DAB_EBOARD, "more than %d extreme equilibria", DAB_MATRIX_MAX_EQ);
      dab_matrix_eq *e = &ne->eq[ne->neq++];
      e->x = a;
      e->y = b;
      e->value[0] = y->payoff; /* x plays only best replies to y */
      e->value[1] = x->payoff;
      e->pure = __builtin_popcount(x->support) == 1 && __builtin_popcount(y->support) == 1;
    }
  }
  for (int b = 0; b < ne->nyv; b++)
    if (__builtin_popcount(ne->yv[b].best) > __builtin_popcount(ne->yv[b].support))
      ne->degenerate = true;
  if (!front_load(ne, 0) || !front_load(ne, 1))
    return dab_fail(err, DAB_ENOMEM, "out of memory");
  /* Insertion sort: pure first, then by support sizes (stable). */
  for (int i = 1; i < ne->neq; i++) {
    dab_matrix_eq t = ne->eq[i];
    int j = i;
    while (j > 0 && eq_key(ne, &ne->eq[j - 1]) > eq_key(ne, &t)) {
      ne->eq[j] = ne->eq[j - 1];
      j--;
    }
    ne->eq[j] = t;
  }
  for (int i = 0; i < ne->neq; i++) {
    dab_matrix_eq *e = &ne->eq[i];
    e->pareto = e->pareto_ne = true;
    for (int r = 0; r < g->rows; r++)
      for (int c = 0; c < g->cols; c++)
        if (dominates(g->pay[0][r][c], g->pay[1][r][c], e->value[0], e->value[1]))
          e->pareto = false;
    for (int j = 0; j < ne->neq; j++)
      if (dominates(ne->eq[j].value[0], ne->eq[j].value[1], e->value[0], e->value[1]))
        e->pareto_ne = false;
  }
  if (ne->degenerate) components(ne);
  return DAB_OK;
}

/* ---- The published claims ------------------------------------------------ */

/* Index of the equilibrium with these probabilities (num/den pairs over
** the first n actions of each player), or -1. */
static int find_eq(const dab_matrix_nash *ne, int nr, const int64_t *x, int nc, const int64_t *y) {
  for (int i = 0; i < ne->neq; i++) {
    const dab_matrix_eq *e = &ne->eq[i];
    bool ok = true;
    for (int k = 0; k < nr && ok; k++) {
      dab_rat r = {0, 1};
      rat_make(x[2 * k], x[2 * k + 1], &r);
      ok = rat_eq(r, ne->xv[e->x].p[k]);
    }
    for (int k = 0; k < nc && ok; k++) {
      dab_rat r = {0, 1};
      rat_make(y[2 * k], y[2 * k + 1], &r);
      ok = rat_eq(r, ne->yv[e->y].p[k]);
    }
    if (ok) return i;
  }
  return -1;
}

/* Index of the pure equilibrium (i, j), or -1. */
static int find_pure(const dab_matrix_nash *ne, int i, int j) {
  for (int k = 0; k < ne->neq; k++)
    if (ne->eq[k].pure && ne->xv[ne->eq[k].x].support == 1u << i &&
        ne->yv[ne->eq[k].y].support == 1u << j)
      return k;
  return -1;
}

static int count_pure(const dab_matrix_nash *ne) {
  int n = 0;
  for (int k = 0; k < ne->neq; k++) n += ne->eq[k].pure;
  return n;
}

/* Appends "(p1,p2,...)" of a vertex to buf. */
static void append_probs(char *buf, size_t size, const dab_matrix_vertex *v, int n) {
  size_t len = strlen(buf);
  snprintf(buf + len, size - len, "(");
  for (int i = 0; i < n; i++) {
    char t[32];
    dab_rat_format(v->p[i], t, sizeof t);
    len = strlen(buf);
    snprintf(buf + len, size - len, "%s%s", i ? "," : "", t);
  }
  len = strlen(buf);
  snprintf(buf + len, size - len, ")");
}

/* Describes every equilibrium: pure ones by action names, mixed ones by the
** two players' probabilities. */
static void describe(const dab_matrix_game *g, const dab_matrix_nash *ne, char *buf, size_t size) {
  buf[0] = 0;
  for (int k = 0; k < ne->neq; k++) {
    const dab_matrix_eq *e = &ne->eq[k];
    size_t len = strlen(buf);
    if (e->pure) {
      snprintf(buf + len, size - len, "%s(%s,%s)", k ? " " : "",
               g->row_name[__builtin_ctz(ne->xv[e->x].support)],
               g->col_name[__builtin_ctz(ne->yv[e->y].support)]);
    } else {
      snprintf(buf + len, size - len, "%smixed row ", k ? " " : "");
      append_probs(buf, size, &ne->xv[e->x], g->rows);
      len = strlen(buf);
      snprintf(buf + len, size - len, " col ");
      append_probs(buf, size, &ne->yv[e->y], g->cols);
    }
  }
  if (!ne->neq) snprintf(buf, size, "none");
}

int dab_matrix_claims(const dab_matrix_game *g, const dab_matrix_nash *ne,
                      dab_matrix_claim *out, int max) {
  int n = 0;
  char all[200];
  describe(g, ne, all, sizeof all);
#define CLAIM(w, c, h, ...)                                          \
  do {                                                               \
    if (n < max) {                                                   \
      out[n].where = (w);                                            \
      out[n].claim = (c);                                            \
      out[n].holds = (h);                                            \
      snprintf(out[n].why, sizeof out[n].why, __VA_ARGS__);          \
      n++;                                                           \
    }                                                                \
  } while (0)
  switch (g->builtin) {
  case DAB_MATRIX_DISPERSION: {
    int ab = find_pure(ne, 0, 1), ba = find_pure(ne, 1, 0);
    bool h = ab >= 0 && ba >= 0 && count_pure(ne) == 2 && ne->eq[ab].pareto && ne->eq[ba].pareto;
    CLAIM("3.2 (a)", "two pure NEs, (A,B) and (B,A), both Pareto optimal", h, "NEs: %s", all);
    static const int64_t half[4] = {1, 2, 1, 2};
    int m = find_eq(ne, 2, half, 2, half);
    CLAIM("3.2 (a)", "one mixed NE, both players play A with probability 1/2",
          m >= 0 && ne->neq - count_pure(ne) == 1, "NEs: %s", all);
    break;
  }
  case DAB_MATRIX_BOS: {
    int oo = find_pure(ne, 0, 0), mm = find_pure(ne, 1, 1);
    int mo = find_pure(ne, 1, 0), om = find_pure(ne, 0, 1);
    CLAIM("3.2 (b)", "two pure NEs", count_pure(ne) == 2, "NEs: %s", all);
    CLAIM("3.2 (b)", "the pure NEs are (M,O) and (O,M), both Pareto optimal",
          mo >= 0 && om >= 0,
          "(M,O) and (O,M) pay (0,0) and are not NEs; the pure NEs are (O,O) and (M,M)");
    static const int64_t x[4] = {3, 5, 2, 5}, y[4] = {2, 5, 3, 5};
    CLAIM("3.2 (b), 3.3 (b)", "a mixed NE where row and column pick O with probability 0.6 and 0.4",
          find_eq(ne, 2, x, 2, y) >= 0, "NEs: %s", all);
    CLAIM("3.3 (b)", "(O,O) and (M,M) are NEs", oo >= 0 && mm >= 0,
          "NEs: %s", all);
    break;
  }
  case DAB_MATRIX_PD: {
    int dd = find_pure(ne, 1, 1);
    CLAIM("3.2 (c)", "one pure NE, (D,D), not Pareto optimal",
          dd >= 0 && count_pure(ne) == 1 && !ne->eq[dd].pareto,
          "NEs: %s; (C,C) pays (-1,-1) > (-3,-3)", all);
    break;
  }
  case DAB_MATRIX_RPS: {
    int pp = find_pure(ne, 1, 1);
    CLAIM("3.2 (d)", "one pure NE at (P,P)", pp >= 0 && count_pure(ne) == 1,
          "against P the row player gains 0.05 by S; NEs: %s", all);
    bool po = ne->neq > 0;
    for (int k = 0; k < ne->neq; k++) po &= ne->eq[k].pareto;
    CLAIM("3.2 (d)", "the NE is Pareto optimal (zero-sum game)", po,
          "every outcome of a zero-sum game is Pareto optimal");
    break;
  }
  default:
    break;
  }
#undef CLAIM
  return n;
}
