/*
** records.c: a proof's files: record lines, DIR/proof.txt, DIR/rec-*.txt,
** and the search of one claim that makes a record (contracts in records.h).
** See Copyright Notice in README.md
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "game/durable.h"
#include "game/postext.h"
#include "proof/records.h"

/* ---- Solving one claim ------------------------------------------------- */

char *dab_proof_utc_now(char *buf, size_t len) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

static void host_name(char *buf, size_t len) {
  if (gethostname(buf, len) != 0) snprintf(buf, len, "unknown");
  buf[len - 1] = 0;
  for (char *s = buf; *s; s++)
    if (*s == ' ' || *s == '\t' || *s == '=') *s = '_';
}

dab_status dab_proof_solve_claim(dab_proof *pf, dab_ab *ab, const dab_proof_claim *c, dab_proof_rec *out,
                                 dab_err *err) {
  const dab_geom *ag = dab_ab_geom(ab), *g = dab_proof_geom(pf);
  if (ag->rows != g->rows || ag->cols != g->cols)
    return dab_fail(err, DAB_EINPUT, "the solver is for %dx%d, the proof for %dx%d", ag->rows, ag->cols, g->rows,
                    g->cols);
  dab_ab_reset_stats(ab);
  int test = c->dir == DAB_PROOF_GE ? c->bound : c->bound + 1, fs;
  dab_status st = dab_ab_test_failsoft(ab, c->pos, test, &fs, err);
  if (st) return st;
  bool ge = fs >= test;
  dab_ab_stats s;
  dab_ab_get_stats(ab, &s);
  memset(out, 0, sizeof *out);
  out->pos = c->pos;
  out->dir = c->dir;
  out->bound = c->bound;
  out->proved = c->dir == DAB_PROOF_GE ? ge : !ge;
  /* fs >= test proves value >= fs, else value <= fs */
  out->has_fs = true;
  out->fs_lower = ge;
  out->fs_value = fs;
  bool lower;
  int v;
  dab_proof_rec_bound(pf, out, &lower, &v);
  out->fs_value = v;
  out->nodes = s.nodes;
  out->seconds = s.seconds;
  int th = dab_ab_options(ab)->threads;
  out->threads = th > 0 ? th : 1;
  dab_proof_utc_now(out->date, sizeof out->date);
  host_name(out->host, sizeof out->host);
  out->source = -1;
  return DAB_OK;
}

/* ---- Record lines ----------------------------------------------------- */

char *dab_proof_format_rec(const dab_proof *pf, const dab_proof_rec *r, char *buf, size_t len) {
  char pos[DAB_MAX_LINES + 32], claim[8], bnd[8];
  dab_lineset ls = dab_ls_from_word(r->pos);
  if (!dab_format_dbn(dab_proof_geom(pf), &ls, pos, sizeof pos)) return NULL;
  bool lower;
  int v;
  dab_proof_rec_bound(pf, r, &lower, &v);
  int n = snprintf(buf, len, "%s %s %s %s nodes=%llu seconds=%.3f threads=%d date=%s host=%s", pos,
                   dab_proof_claim_text(r->dir, r->bound, claim), r->proved ? "proved" : "refuted",
                   dab_proof_claim_text(lower ? DAB_PROOF_GE : DAB_PROOF_LE, v, bnd),
                   (unsigned long long)r->nodes, r->seconds, r->threads, r->date[0] ? r->date : "-",
                   r->host[0] ? r->host : "-");
  return n > 0 && (size_t)n < len ? buf : NULL;
}


dab_status dab_proof_parse_rec(const dab_proof *pf, const char *line, dab_proof_rec *r, dab_err *err) {
  char buf[1024];
  size_t len = strlen(line);
  if (len >= sizeof buf) return dab_fail(err, DAB_EINPUT, "record line too long (%zu characters)", len);
  memcpy(buf, line, len + 1);
  char *tok[32];
  int nt = 0;
  char *save = NULL;
  for (char *s = strtok_r(buf, " \t\r\n", &save); s && nt < 32; s = strtok_r(NULL, " \t\r\n", &save)) tok[nt++] = s;
  if (nt < 4) return dab_fail(err, DAB_EINPUT, "a record needs POSITION CLAIM RESULT BOUND, got %d fields", nt);
  memset(r, 0, sizeof *r);
  r->source = -1;
  dab_status st = dab_proof_parse_pos_claim(pf, tok[0], tok[1], &r->pos, &r->dir, &r->bound, err);
  if (st) return st;
  if (!strcmp(tok[2], "proved")) r->proved = true;
  else if (!strcmp(tok[2], "refuted")) r->proved = false;
  else return dab_fail(err, DAB_EINPUT, "bad result '%s' (want proved or refuted)", tok[2]);
  int bd, bb;
  if (!dab_proof_parse_claim_tok(tok[3], &bd, &bb)) return dab_fail(err, DAB_EINPUT, "bad bound '%s'", tok[3]);
  bool lower;
  int v, n = dab_ab_open_boxes(dab_proof_geom(pf), r->pos);
  dab_proof_rec_bound(pf, r, &lower, &v);
  /* the bound is the implied one, or a stronger one of the same direction
  ** (a fail-soft result), inside the box count */
  bool same = (bd == DAB_PROOF_GE) == lower;
  bool strong = lower ? bb >= v : bb <= v;
  if (!same || !strong || bb < -n || bb > n) {
    char want[8];
    return dab_fail(err, DAB_EINPUT, "bound %s does not follow from %s %s (want %s or stronger, within +-%d)", tok[3],
                    tok[1], tok[2], dab_proof_claim_text(lower ? DAB_PROOF_GE : DAB_PROOF_LE, v, want), n);
  }
  if (bb != v) r->has_fs = true, r->fs_lower = lower, r->fs_value = bb;
  r->threads = 1;
  for (int i = 4; i < nt; i++) {
    const char *t = tok[i], *eq = strchr(t, '=');
    if (!eq) continue;
    const char *val = eq + 1;
    size_t kl = (size_t)(eq - t);
    if (kl == 5 && !strncmp(t, "nodes", 5)) r->nodes = strtoull(val, NULL, 10);
    else if (kl == 7 && !strncmp(t, "seconds", 7)) r->seconds = strtod(val, NULL);
    else if (kl == 7 && !strncmp(t, "threads", 7)) r->threads = atoi(val);
    else if (kl == 4 && !strncmp(t, "date", 4)) snprintf(r->date, sizeof r->date, "%s", val);
    else if (kl == 4 && !strncmp(t, "host", 4)) snprintf(r->host, sizeof r->host, "%s", val);
  }
  if (r->threads < 1) r->threads = 1;
  return DAB_OK;
}

/* ---- Directories ------------------------------------------------------- */

char *dab_proof_spec_claim_text(const dab_proof_spec *spec, char *buf) {
  if (spec->has_ge && spec->has_le && spec->ge_bound == spec->le_bound) snprintf(buf, 24, "=%+d", spec->ge_bound);
  else if (spec->has_ge && spec->has_le) snprintf(buf, 24, ">=%+d,<=%+d", spec->ge_bound, spec->le_bound);
  else if (spec->has_ge) snprintf(buf, 24, ">=%+d", spec->ge_bound);
  else snprintf(buf, 24, "<=%+d", spec->le_bound);
  return buf;
}

dab_status dab_proof_parse_claim(const char *text, dab_proof_spec *spec, dab_err *err) {
  spec->has_ge = spec->has_le = false;
  char buf[64];
  snprintf(buf, sizeof buf, "%s", text);
  char *save = NULL;
  for (char *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
    char *end;
    if (s[0] == '=' ) {
      long v = strtol(s + 1, &end, 10);
      if (end == s + 1 || *end || v < -64 || v > 64) goto bad;
      spec->has_ge = spec->has_le = true;
      spec->ge_bound = spec->le_bound = (int)v;
    } else {
      int d, b;
      if (!dab_proof_parse_claim_tok(s, &d, &b) || b < -64 || b > 64) goto bad;
      if (d == DAB_PROOF_GE) spec->has_ge = true, spec->ge_bound = b;
      else spec->has_le = true, spec->le_bound = b;
    }
  }
  if (!spec->has_ge && !spec->has_le) goto bad;
  return DAB_OK;
bad:
  return dab_fail(err, DAB_EINPUT, "bad claim '%s' (want =V, >=B, <=B or >=B,<=B, e.g. =0)", text);
}

static dab_status mkdir_p(const char *dir, dab_err *err) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", dir);
  for (char *s = buf + 1; *s; s++) {
    if (*s != '/') continue;
    *s = 0;
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return dab_fail(err, DAB_EIO, "cannot create %s: %s", buf, strerror(errno));
    *s = '/';
  }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST) return dab_fail(err, DAB_EIO, "cannot create %s: %s", buf, strerror(errno));
  return DAB_OK;
}

/* Writes a then b to path durably (game/durable.h): a record file is
** whole or absent after a crash. */
static dab_status write_atomic(const char *path, const char *a, size_t alen, const char *b, size_t blen,
                               dab_err *err) {
  dab_durable d;
  dab_status st = dab_durable_open(&d, path, NULL, err);
  if (st) return st;
  if ((st = dab_durable_put(&d, a, alen, err)) || (st = dab_durable_put(&d, b, blen, err))) {
    dab_durable_abort(&d);
    return st;
  }
  return dab_durable_commit(&d, err);
}

/* Reads a whole file (NUL-terminated) into *text (malloc'd).
** RETURN: DAB_OK, with *text NULL and *missing true when the file is
** absent; DAB_ENOMEM; DAB_EIO naming the file and errno. */
static dab_status read_all(const char *path, char **text, size_t *len, bool *missing, dab_err *err) {
  *missing = false;
  *text = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (errno == ENOENT) {
      *missing = true;
      return DAB_OK;
    }
    return dab_fail(err, DAB_EIO, "cannot read %s: %s", path, strerror(errno));
  }
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n + 1 >= cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
    }
    size_t r = fread(buf + n, 1, cap - n - 1, f);
    n += r;
    if (r == 0) break;
  }
  int read_errno = ferror(f) ? errno : 0;
  fclose(f);
  if (read_errno) {
    free(buf);
    return dab_fail(err, DAB_EIO, "cannot read %s: %s", path, strerror(read_errno));
  }
  if (!buf) return dab_fail(err, DAB_ENOMEM, "out of memory reading %s", path);
  buf[n] = 0;
  *len = n;
  *text = buf;
  return DAB_OK;
}

/* A file whose last line was cut (no newline: a crash or a full disk
** while appending): rewritten whole, with that tail turned into a comment
** (a cut line joined to the next could read as another record), then line. */
static dab_status append_after_torn(const char *path, const char *lbuf, dab_err *err) {
  size_t len = 0;
  bool missing;
  char *old;
  dab_status rst = read_all(path, &old, &len, &missing, err);
  if (rst) return rst;
  if (!old) return dab_fail(err, DAB_EIO, "cannot read %s: it went away", path);
  size_t keep = len;
  while (keep && old[keep - 1] != '\n') keep--;
  static const char mark[] = "# torn line, kept as a comment: ";
  size_t tail = len - keep, n = keep + sizeof mark - 1 + tail + 1;
  char *body = malloc(n + 1);
  if (!body) {
    free(old);
    return dab_fail(err, DAB_ENOMEM, "out of memory");
  }
  memcpy(body, old, keep);
  memcpy(body + keep, mark, sizeof mark - 1);
  memcpy(body + keep + sizeof mark - 1, old + keep, tail);
  body[n - 1] = '\n';
  dab_status st = write_atomic(path, body, n, lbuf, strlen(lbuf), err);
  free(body);
  free(old);
  return st;
}

dab_status dab_proof_append_line(const char *path, const char *header, const char *line, dab_err *err) {
  size_t n = strlen(line);
  char *lbuf = malloc(n + 2);
  if (!lbuf) return dab_fail(err, DAB_ENOMEM, "out of memory");
  memcpy(lbuf, line, n);
  lbuf[n] = '\n', lbuf[n + 1] = 0;
  dab_status st = DAB_OK;
  int fd = open(path, O_RDWR | O_APPEND);
  struct stat sb;
  char last = '\n';
  if (fd < 0 && errno == ENOENT) { /* a new file appears whole, header first */
    const char *h = header ? header : "";
    st = write_atomic(path, h, strlen(h), lbuf, n + 1, err);
  } else if (fd < 0 || fstat(fd, &sb) != 0) {
    st = dab_fail(err, DAB_EIO, "cannot open %s: %s", path, strerror(errno));
  } else if (sb.st_size > 0 && pread(fd, &last, 1, sb.st_size - 1) == 1 && last != '\n') {
    st = append_after_torn(path, lbuf, err);
  } else {
    /* One write of one line, so that a file grows by whole lines and a
    ** record costs its own bytes, not the file's (rank 0 of an MPI proof
    ** appends every record). */
    size_t off = 0;
    while (off <= n && !st) {
      ssize_t w = write(fd, lbuf + off, n + 1 - off);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        st = dab_fail(err, DAB_EIO, "cannot write %s: %s", path, strerror(errno));
        if (ftruncate(fd, sb.st_size) != 0) { /* the cut line stays: the next append comments it out */ }
      } else
        off += (size_t)w;
    }
    if (!st && fsync(fd) != 0) st = dab_fail(err, DAB_EIO, "cannot flush %s: %s", path, strerror(errno));
  }
  if (fd >= 0) close(fd);
  free(lbuf);
  return st;
}

const char *dab_proof_rec_header(void) {
  return "# dab proof records (docs/proofs.md), one proved subresult per line:\n"
         "# POSITION CLAIM RESULT BOUND nodes= seconds= threads= date= host=\n"
         "# RESULT: proved (the claim holds) or refuted (BOUND holds instead).\n";
}

dab_status dab_proof_write_spec(const char *dir, const dab_proof_spec *spec, dab_err *err) {
  dab_status st = mkdir_p(dir, err);
  if (st) return st;
  char path[4200], body[1024], pos[DAB_MAX_LINES + 32], claim[24], date[24];
  snprintf(path, sizeof path, "%s/README.md", dir);
  if (access(path, F_OK) != 0) {
    const char *readme =
        "A divisible dab proof (docs/proofs.md): proof.txt says what is proved, rec-*.txt hold the proved "
        "subresults; `dab solve POS --proof DIR` continues it, `--verify` checks it.\n";
    st = write_atomic(path, readme, strlen(readme), "", 0, err);
    if (st) return st;
  }
  dab_geom g;
  st = dab_geom_init(&g, spec->rows, spec->cols, err);
  if (st) return st;
  dab_lineset ls = dab_ls_from_word(spec->root);
  dab_format_dbn(&g, &ls, pos, sizeof pos);
  dab_proof_utc_now(date, sizeof date);
  int n = snprintf(body, sizeof body,
                   "# dab divisible proof (docs/proofs.md).  Written by the first run; every run checks it.\n"
                   "board %dx%d\nroot %s\nclaim %s\ndepth %d\ncreated %s\n",
                   spec->rows, spec->cols, pos, dab_proof_spec_claim_text(spec, claim), spec->depth, date);
  snprintf(path, sizeof path, "%s/proof.txt", dir);
  return write_atomic(path, body, (size_t)n, "", 0, err);
}

dab_status dab_proof_read_spec(const char *dir, dab_proof_spec *spec, bool *exists, dab_err *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/proof.txt", dir);
  size_t len;
  bool missing;
  char *text;
  *exists = false;
  dab_status rst = read_all(path, &text, &len, &missing, err);
  if (rst || missing) return rst;
  memset(spec, 0, sizeof *spec);
  bool have_board = false, have_root = false, have_claim = false, have_depth = false;
  dab_status st = DAB_OK;
  int lineno = 0;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    lineno++;
    if (line[0] == '#' || !line[0]) continue;
    char key[32], val[256];
    if (sscanf(line, "%31s %255s", key, val) != 2) continue;
    dab_err e2;
    if (!strcmp(key, "board")) {
      size_t used;
      if (dab_parse_board(val, &spec->rows, &spec->cols, &used, &e2) || val[used]) goto bad;
      have_board = true;
    } else if (!strcmp(key, "root")) {
      dab_parsed p;
      if (dab_parse_position(val, &p, &e2) || !dab_geom_fast(&p.geom)) goto bad;
      spec->root = dab_ls_word(&p.game.lines);
      have_root = true;
      if (have_board && (p.geom.rows != spec->rows || p.geom.cols != spec->cols)) goto bad;
    } else if (!strcmp(key, "claim")) {
      if (dab_proof_parse_claim(val, spec, &e2)) goto bad;
      have_claim = true;
    } else if (!strcmp(key, "depth")) {
      char *end;
      long d = strtol(val, &end, 10);
      if (*end || d < 0 || d > DAB_PROOF_MAX_DEPTH) goto bad;
      spec->depth = (int)d;
      have_depth = true;
    }
    continue;
  bad:
    st = dab_fail(err, DAB_ECORRUPT, "%s:%d: bad line '%s'", path, lineno, line);
    break;
  }
  free(text);
  if (st) return st;
  if (!have_board || !have_root || !have_claim || !have_depth)
    return dab_fail(err, DAB_ECORRUPT, "%s lacks one of board, root, claim, depth", path);
  *exists = true;
  return DAB_OK;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void note_problem(dab_proof_load_info *info, const char *file, int line, const char *what) {
  if (!info->first_problem[0])
    snprintf(info->first_problem, sizeof info->first_problem, "%s:%d: %s", file, line, what);
}


/* True when line t carries a date= after pf's until date. */
static bool dated_after_until(const dab_proof *pf, const char *t) {
  const char *until = dab_proof_until(pf);
  if (!until[0]) return false;
  const char *d = strstr(t, " date=");
  if (!d) return false;
  d += 6;
  char date[24];
  snprintf(date, sizeof date, "%.*s", (int)strcspn(d, " \t\r"), d);
  if (!strcmp(date, "-")) return false; /* undated */
  /* only the until date's length counts: "2026-11-22" keeps that whole day */
  return strncmp(date, until, strlen(until)) > 0;
}

dab_status dab_proof_load_dir(dab_proof *pf, const char *dir, dab_proof_load_info *info, dab_err *err) {
  memset(info, 0, sizeof *info);
  DIR *d = opendir(dir);
  if (!d) return dab_fail(err, DAB_EIO, "cannot read directory %s: %s", dir, strerror(errno));
  char **names = NULL;
  size_t nn = 0, cap = 0;
  bool nomem = false;
  for (struct dirent *e; (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (strncmp(e->d_name, "rec-", 4) || l < 8 || strcmp(e->d_name + l - 4, ".txt")) continue;
    /* A name it cannot hold is an error, not a skipped file: the proof
    ** would read as open where a record closed it. */
    if (nn == cap) {
      char **nb = realloc(names, (cap ? 2 * cap : 64) * sizeof *nb);
      if (!nb) {
        nomem = true;
        break;
      }
      names = nb;
      cap = cap ? 2 * cap : 64;
    }
    if (!(names[nn] = strdup(e->d_name))) {
      nomem = true;
      break;
    }
    nn++;
  }
  closedir(d);
  dab_status st = DAB_OK;
  if (nomem) {
    st = dab_fail(err, DAB_ENOMEM, "out of memory listing %s", dir);
    goto out;
  }
  if (nn) qsort(names, nn, sizeof *names, cmp_str);
  for (size_t i = 0; i < nn; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    size_t len;
    bool missing;
    char *text;
    if ((st = read_all(path, &text, &len, &missing, err))) break;
    if (missing) continue;
    int src = dab_proof_add_source(pf, names[i]);
    if (src < 0) {
      free(text);
      st = dab_fail(err, DAB_ENOMEM, "out of memory");
      break;
    }
    const char *name = names[i];
    names[i] = NULL;
    info->files++;
    int lineno = 0;
    for (char *s = text; *s;) {
      char *nl = strchr(s, '\n');
      lineno++;
      if (!nl) { /* torn: the write that made it never finished */
        info->torn++;
        note_problem(info, name, lineno, "unterminated last line ignored (torn write)");
        break;
      }
      *nl = 0;
      char *t = s;
      s = nl + 1;
      while (*t == ' ' || *t == '\t') t++;
      if ((*t != '#' || !strncmp(t, "# open ", 7)) && dated_after_until(pf, t)) {
        info->later++;
        continue;
      }
      if (!strncmp(t, "# open ", 7)) {
        dab_proof_note(pf, t);
        continue;
      }
      if (!*t || *t == '#' || *t == '\r') continue;
      dab_proof_rec r;
      dab_err e2;
      dab_status ps = dab_proof_parse_rec(pf, t, &r, &e2);
      if (!ps) {
        r.source = src;
        r.line = lineno;
        ps = dab_proof_add(pf, &r, &e2);
        if (ps == DAB_ENOMEM) {
          free(text);
          st = dab_fail(err, ps, "%s", e2.msg);
          goto out;
        }
      }
      if (ps) {
        info->bad++;
        note_problem(info, name, lineno, e2.msg);
      } else info->lines++;
    }
    free(text);
  }
out:
  for (size_t i = 0; i < nn; i++) free(names[i]);
  free(names);
  return st;
}

