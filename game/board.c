/*
** board.c: board geometry tables and the move rules.
** See Copyright Notice in README.md
*/
#include <string.h>
#include "game/board.h"
#include "game/dabassert.h"

dab_status dab_geom_init(dab_geom *g, int rows, int cols, dab_err *err) {
  if (rows < 1 || cols < 1 || rows > DAB_MAX_SIDE || cols > DAB_MAX_SIDE)
    return dab_fail(err, DAB_EBOARD, "board %dx%d: each side must be 1..%d boxes", rows, cols,
                    DAB_MAX_SIDE);
  memset(g, 0, sizeof *g);
  g->rows = rows;
  g->cols = cols;
  g->nboxes = rows * cols;
  g->nhoriz = (rows + 1) * cols;
  g->nlines = g->nhoriz + rows * (cols + 1);
  for (int i = 0; i < g->nlines; i++) g->line_box[i][0] = g->line_box[i][1] = -1;
  for (int r = 0; r < rows; r++) {
    for (int c = 0; c < cols; c++) {
      int b = r * cols + c;
      int lines[4] = {r * cols + c, (r + 1) * cols + c, g->nhoriz + r * (cols + 1) + c,
                      g->nhoriz + r * (cols + 1) + c + 1};
      for (int s = 0; s < 4; s++) {
        int m = lines[s];
        g->box_line[b][s] = (int16_t)m;
        g->line_box[m][g->line_box[m][0] < 0 ? 0 : 1] = (int16_t)b;
        if (m < 64) {
          g->box_mask[b] |= 1ull << m;
          g->side_mask[s] |= 1ull << m;
        }
      }
    }
  }
  for (int b = 0; b < g->nboxes; b++)
    for (int s = 0; s < 4; s++) {
      int m = g->box_line[b][s];
      if (g->line_box[m][1] < 0) {
        g->box_border[b]++;
        if (b < 64) g->edge_boxes[s] |= 1ull << b;
      }
    }
  g->all_lines = g->nlines >= 64 ? ~0ull : (1ull << g->nlines) - 1;
  return DAB_OK;
}

void dab_game_init(const dab_geom *g, dab_game *game) {
  memset(game, 0, sizeof *game);
  for (int b = 0; b < g->nboxes; b++) game->owner[b] = -1;
}

int dab_game_play(const dab_geom *g, dab_game *game, int m) {
  if (m < 0 || m >= g->nlines || dab_ls_has(&game->lines, m)) return -1;
  int k = 0;
  dab_ls_set(&game->lines, m);
  for (int j = 0; j < 2; j++) {
    int b = g->line_box[m][j];
    if (b >= 0 && dab_box_sides(g, &game->lines, b) == 4) {
      game->owner[b] = (int8_t)game->to_move;
      k++;
    }
  }
  game->score[game->to_move] = (int16_t)(game->score[game->to_move] + k);
  if (k == 0) game->to_move ^= 1u;
  game->nmoves++;
  DAB_ASSERT(game->score[0] + game->score[1] <= g->nboxes && game->nmoves <= g->nlines);
  return k;
}

int dab_legal_moves(const dab_geom *g, const dab_lineset *s, int16_t *moves) {
  int n = 0;
  for (int m = 0; m < g->nlines; m++)
    if (!dab_ls_has(s, m)) moves[n++] = (int16_t)m;
  return n;
}
