/*
** postext.c: parsing and printing of positions.
** See Copyright Notice in README.md
*/
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "game/postext.h"

/* Reads a decimal number of at most 9 digits; returns -1 if none. */
static long read_number(const char *s, size_t *used) {
  size_t i = 0;
  long v = 0;
  while (isdigit((unsigned char)s[i]) && i < 9) v = v * 10 + (s[i++] - '0');
  *used = i;
  return i ? v : -1;
}

dab_status dab_parse_board(const char *text, int *rows, int *cols, size_t *used, dab_err *err) {
  size_t n1, n2;
  long r = read_number(text, &n1);
  if (r < 0)
    return dab_fail(err, DAB_EINPUT, "position '%s': column 1: expected a board like 3x3", text);
  if (text[n1] != 'x' && text[n1] != 'X')
    return dab_fail(err, DAB_EINPUT, "position '%s': column %zu: expected 'x' after the row count",
                    text, n1 + 1);
  long c = read_number(text + n1 + 1, &n2);
  if (c < 0)
    return dab_fail(err, DAB_EINPUT, "position '%s': column %zu: expected the column count", text,
                    n1 + 2);
  if (r < 1 || c < 1 || r > DAB_MAX_SIDE || c > DAB_MAX_SIDE)
    return dab_fail(err, DAB_EBOARD, "position '%s': board %ldx%ld: each side must be 1..%d boxes",
                    text, r, c, DAB_MAX_SIDE);
  *rows = (int)r;
  *cols = (int)c;
  *used = n1 + 1 + n2;
  return DAB_OK;
}

static dab_status parse_dbn(const char *text, const char *dbn, size_t col0, dab_parsed *out,
                            dab_err *err) {
  const dab_geom *g = &out->geom;
  size_t len = strlen(dbn);
  for (size_t i = 0; i < len; i++)
    if (dbn[i] != '0' && dbn[i] != '1')
      return dab_fail(err, DAB_EINPUT, "position '%s': column %zu: DBN digit must be 0 or 1, got '%c'",
                      text, col0 + i + 1, dbn[i]);
  if (len != (size_t)g->nlines)
    return dab_fail(err, DAB_EINPUT,
                    "position '%s': DBN has %zu digits, a %dx%d board needs %d (one per line)", text,
                    len, g->rows, g->cols, g->nlines);
  for (int m = 0; m < g->nlines; m++)
    if (dbn[m] == '1') dab_ls_set(&out->game.lines, m);
  for (int b = 0; b < g->nboxes; b++)
    if (dab_box_sides(g, &out->game.lines, b) == 4) out->game.owner[b] = -2;
  out->game.nmoves = (int16_t)dab_ls_count(&out->game.lines);
  return DAB_OK;
}

static dab_status parse_moves(const char *text, const char *list, size_t col0, dab_parsed *out,
                              dab_err *err) {
  const dab_geom *g = &out->geom;
  size_t i = 0;
  /* "RxC@" with no moves is refused: it is most often a list cut off, and
  ** the empty board has one spelling, "RxC". */
  if (!*list)
    return dab_fail(err, DAB_EINPUT, "position '%s': column %zu: expected a line number after '@' (the empty "
                    "board is written '%dx%d')", text, col0 + 1, g->rows, g->cols);
  for (;;) {
    size_t used;
    long m = read_number(list + i, &used);
    if (m < 0)
      return dab_fail(err, DAB_EINPUT, "position '%s': column %zu: expected a line number", text,
                      col0 + i + 1);
    if (m >= g->nlines)
      return dab_fail(err, DAB_EINPUT,
                      "position '%s': column %zu: line %ld does not exist (a %dx%d board has lines 0..%d)",
                      text, col0 + i + 1, m, g->rows, g->cols, g->nlines - 1);
    if (dab_game_play(g, &out->game, (int)m) < 0)
      return dab_fail(err, DAB_EINPUT, "position '%s': column %zu: line %ld is already drawn", text,
                      col0 + i + 1, m);
    i += used;
    if (!list[i]) return DAB_OK;
    if (list[i] != ',')
      return dab_fail(err, DAB_EINPUT, "position '%s': column %zu: expected ',' between moves, got '%c'",
                      text, col0 + i + 1, list[i]);
    i++;
  }
}

dab_status dab_parse_position(const char *text, dab_parsed *out, dab_err *err) {
  char buf[4 * DAB_MAX_LINES + 32];
  while (isspace((unsigned char)*text)) text++;
  size_t len = strlen(text);
  while (len && isspace((unsigned char)text[len - 1])) len--;
  if (len == 0) return dab_fail(err, DAB_EINPUT, "empty position: expected RxC, RxC:DBN or RxC@m1,m2,...");
  if (len >= sizeof buf)
    return dab_fail(err, DAB_EINPUT, "position text is %zu characters, longer than any board needs", len);
  memcpy(buf, text, len);
  buf[len] = 0;

  int rows, cols;
  size_t used;
  dab_status st = dab_parse_board(buf, &rows, &cols, &used, err);
  if (st) return st;
  memset(out, 0, sizeof *out);
  if ((st = dab_geom_init(&out->geom, rows, cols, err))) return st;
  dab_game_init(&out->geom, &out->game);
  switch (buf[used]) {
    case 0: return DAB_OK;
    case ':': return parse_dbn(buf, buf + used + 1, used + 1, out, err);
    case '@': out->has_history = true; return parse_moves(buf, buf + used + 1, used + 1, out, err);
    default:
      return dab_fail(err, DAB_EINPUT,
                      "position '%s': column %zu: expected ':' (DBN) or '@' (moves) after the board, got '%c'",
                      buf, used + 1, buf[used]);
  }
}

char *dab_format_dbn(const dab_geom *g, const dab_lineset *s, char *buf, size_t len) {
  int n = snprintf(NULL, 0, "%dx%d:", g->rows, g->cols);
  if (len < (size_t)n + (size_t)g->nlines + 1) return NULL;
  snprintf(buf, len, "%dx%d:", g->rows, g->cols);
  for (int m = 0; m < g->nlines; m++) buf[n + m] = dab_ls_has(s, m) ? '1' : '0';
  buf[n + g->nlines] = 0;
  return buf;
}

/* Appends to a bounded buffer, remembering overflow. */
typedef struct sink {
  char *buf;
  size_t len, pos;
  bool overflow;
} sink;

static void put(sink *k, const char *s) {
  for (; *s; s++) {
    if (k->pos + 1 >= k->len) { k->overflow = true; return; }
    k->buf[k->pos++] = *s;
    k->buf[k->pos] = 0;
  }
}

size_t dab_diagram(const dab_geom *g, const dab_game *game, bool show_ids, char *buf, size_t len) {
  sink k = {buf, len, 0, false};
  if (len) buf[0] = 0;
  /* Dots and vertical slots are 1 wide, or 3 wide to hold an id. */
  const char *dot = show_ids ? " + " : "+";
  char cell[16];
  for (int r = 0; r <= g->rows; r++) {
    for (int c = 0; c < g->cols; c++) {
      int m = r * g->cols + c;
      put(&k, dot);
      if (dab_ls_has(&game->lines, m)) put(&k, "---");
      else if (show_ids) { snprintf(cell, sizeof cell, "%3d", m); put(&k, cell); }
      else put(&k, "   ");
    }
    put(&k, dot);
    put(&k, "\n");
    if (r == g->rows) break;
    for (int c = 0; c <= g->cols; c++) {
      int m = g->nhoriz + r * (g->cols + 1) + c;
      if (dab_ls_has(&game->lines, m)) put(&k, show_ids ? " | " : "|");
      else if (show_ids) { snprintf(cell, sizeof cell, "%-3d", m); put(&k, cell); }
      else put(&k, " ");
      if (c == g->cols) break;
      int o = game->owner[r * g->cols + c];
      put(&k, o == 0 ? " A " : o == 1 ? " B " : o == -2 ? " # " : "   ");
    }
    put(&k, "\n");
  }
  return k.overflow ? 0 : k.pos;
}
