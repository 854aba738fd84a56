"""dab.player: every player spec of dab (players/player.h) and every
trained agent (q:FILE, nn:FILE, az:FILE, econ:FILE, erl:FILE) from Python.

    p = dab.Player("mcts:sims=200", "3x3", seed=1)
    p = dab.Player("q:model.dab-model", game)
    state.apply_action(p.move(state))
"""
import ctypes

from ._lib import _Closing, _Err, _load, _raise
from .errors import DabBoardError, DabInputError


def _board(board):
    if hasattr(board, "rows") and hasattr(board, "cols"):
        return int(board.rows), int(board.cols)
    if isinstance(board, (tuple, list)):
        return int(board[0]), int(board[1])
    parts = str(board).lower().split("x")
    if len(parts) == 2 and all(x.isdigit() for x in parts):
        return int(parts[0]), int(parts[1])
    raise DabInputError(1, "board %r: expected RxC, (rows, cols) or a dab.Game" % (board,))


class Player(_Closing):
    """The player of spec ("random", "level1", "chain", "mcts:sims=N",
    "perfect", "q:FILE", "az:FILE"...; `dab play --help` lists them) on
    board ("RxC", (rows, cols) or a dab.Game).  seed fixes its random
    choices; tb_dir goes to its oracles.  Used by one thread at a time."""

    def __init__(self, spec, board, seed=0, tb_dir=None):
        lib = _load()
        self._lib = lib
        self._h = None
        self.rows, self.cols = _board(board)
        h, err = ctypes.c_void_p(), _Err()
        st = lib.dab_capi_player_new(str(spec).encode(), self.rows, self.cols,
                                     tb_dir.encode() if tb_dir else None, int(seed) & (2 ** 64 - 1),
                                     ctypes.byref(h), ctypes.byref(err))
        if st:
            _raise(st, err)
        self._h = h
        self.name = lib.dab_capi_player_name(h).decode()

    def move(self, state):
        """The player's action in state (a dab.State of this board, not over)."""
        g = state.game
        if (g.rows, g.cols) != (self.rows, self.cols):
            raise DabBoardError(2, "the player plays %dx%d, the state is %dx%d" % (self.rows, self.cols, g.rows,
                                                                             g.cols))
        return self.move_lines(state.lines, state.score, state.player)

    def move_lines(self, lines, score=(0, 0), to_move=0):
        """The action for a bare position: a line set, the score of players 0
        and 1, the player to move."""
        m, err = ctypes.c_int(), _Err()
        st = self._lib.dab_capi_player_move(self._h, int(lines), int(score[0]), int(score[1]),
                                            int(to_move), ctypes.byref(m), ctypes.byref(err))
        if st:
            _raise(st, err)
        return m.value

    def step(self, state):
        """Plays the player's move in state; returns the action."""
        a = self.move(state)
        state.apply_action(a)
        return a

    def close(self):
        if self._h:
            self._lib.dab_capi_player_free(self._h)
            self._h = None

    def __repr__(self):
        return "<dab.Player %s on %dx%d>" % (self.name, self.rows, self.cols)
