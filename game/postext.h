/*
** postext.h: the three position texts (RxC, RxC:DBN, RxC@m1,m2,...) and
** the ASCII diagram.
** See Copyright Notice in README.md
*/
#ifndef DAB_POSTEXT_H
#define DAB_POSTEXT_H

#include <stddef.h>
#include "game/board.h"
#include "game/dabapi.h"

/* A parsed position: its geometry and the game it describes.  For the
** RxC@moves form the game (scores, owners, player to move) is exact; for
** RxC:DBN only the lines are known, complete boxes have owner -2, and
** to_move is 0. */
typedef struct dab_parsed {
  dab_geom geom;
  dab_game game;
  bool has_history;   /* true for the @ form */
} dab_parsed;

/*
** Parses text (leading/trailing blanks ignored) into out.
** RETURN: DAB_OK; DAB_EINPUT with a one-line message naming the column
** and the problem (e.g. the DBN length a board needs); DAB_EBOARD for a
** board size outside 1..DAB_MAX_SIDE.  On error *out is unspecified.
*/
DAB_API dab_status dab_parse_position(const char *text, dab_parsed *out, dab_err *err);

/*
** Parses "RxC" at text into *rows, *cols; *used gets the characters read.
** RETURN: DAB_OK or DAB_EINPUT/DAB_EBOARD with a message.
*/
DAB_API dab_status dab_parse_board(const char *text, int *rows, int *cols, size_t *used, dab_err *err);

/*
** Writes "RxC:DBN" for the line set s into buf (size len; needs
** nlines + 16 bytes).  RETURN: buf, or NULL (buf untouched) if too small.
*/
DAB_API char *dab_format_dbn(const dab_geom *g, const dab_lineset *s, char *buf, size_t len);

/*
** Draws game as ASCII: '+' dots, "---"/'|' drawn lines, box owners as
** 'A' (first player), 'B' (second), '#' (complete, owner unknown).  With
** show_ids, undrawn lines show their ids instead of blanks.
** RETURN: characters written (excluding NUL), or 0 when len is too
** small (then buf holds a truncated, NUL-terminated drawing).
*/
DAB_API size_t dab_diagram(const dab_geom *g, const dab_game *game, bool show_ids, char *buf, size_t len);

#endif
