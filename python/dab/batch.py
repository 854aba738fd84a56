"""dab.batch: many games at once as numpy arrays, stepped, observed and
labelled in C (capi/vec.h), one call per batch.

    batch = dab.Game(3, 3).new_states(100_000)
    while not batch.is_terminal().all():
        batch.apply_actions(batch.random_actions(seed))   # -1 = leave a finished game
    x = batch.observation_tensor()                        # (n, 3, 16, 3) float32
    lab = batch.values()                                  # exact values, int8
"""
import ctypes
from collections import namedtuple

import numpy as np

from ._lib import _Err, _load, _raise
from .errors import DabBoardError, DabInputError
from .game import TERMINAL, ActionTypeError, State, _is_int, _short, _type_name

NONE = -128    # DAB_VEC_NONE: no value (a drawn line, or a node limit)

Labels = namedtuple("Labels", "value lower upper exact")
Labels.__doc__ = """States.values(): int8 arrays value (NONE = -128 where not
exact), lower, upper (the bounds a node limit left; equal to value where
exact) and a bool array exact."""


def integer_actions(actions):
    """(np.asarray(actions), None) when every action is an integer: an
    integer dtype (not bool), and for a list or tuple every item an int or a
    numpy integer (numpy would turn [True, 2] into ints); else (array, what
    is wrong, for a message).  An empty input passes.  The check of
    States.apply_actions and DabVectorEnv.step."""
    a = np.asarray(actions)
    if a.size == 0:
        return a, None
    if isinstance(actions, (list, tuple)):
        for i, x in enumerate(np.asarray(actions, dtype=object).reshape(-1)):
            if not _is_int(x):
                return a, "item %d is %s, a %s" % (i, _short(x), _type_name(x))
    if not np.issubdtype(a.dtype, np.integer):
        return a, "dtype %s is not an integer type" % a.dtype
    return a, None


def _p(a):
    return a.ctypes.data_as(ctypes.c_void_p) if a is not None else None


class States:
    """n states of one game held as numpy arrays (capi/vec.h's layout):

        lines, by1, box1   uint64 (n,)  lines drawn, lines player 1 drew,
                                        boxes player 1 owns (bit masks)
        score              int16 (n, 2) boxes of players 0 and 1
        to_move            int8 (n,)    the player to move (the last mover
                                        at the end; current_player() gives -4)

    The arrays may be read and sliced freely; write them only to set
    states up consistently (from_states does).
    """

    def __init__(self, game, n):
        self.game = game
        n = int(n)
        self.lines = np.zeros(n, dtype=np.uint64)
        self.by1 = np.zeros(n, dtype=np.uint64)
        self.box1 = np.zeros(n, dtype=np.uint64)
        self.score = np.zeros((n, 2), dtype=np.int16)
        self.to_move = np.zeros(n, dtype=np.int8)

    @classmethod
    def from_states(cls, states):
        """A batch of copies of dab.State objects of one game."""
        states = list(states)
        if not states:
            raise DabInputError(1, "from_states needs at least one state")
        b = cls(states[0].game, len(states))
        for i, s in enumerate(states):
            b.lines[i], b.by1[i], b.box1[i] = s.lines, s.by1, s.box1
            b.score[i] = s.score
            b.to_move[i] = s.player
        return b

    def __len__(self):
        return self.lines.shape[0]

    def state(self, i):
        """State i as a dab.State (without history)."""
        s = State(self.game, int(self.lines[i]), int(self.by1[i]), int(self.box1[i]),
                  (int(self.score[i, 0]), int(self.score[i, 1])), int(self.to_move[i]))
        return s

    def _check(self):
        for a, dt in ((self.lines, np.uint64), (self.by1, np.uint64), (self.box1, np.uint64),
                      (self.to_move, np.int8)):
            if a.dtype != dt or not a.flags.c_contiguous or a.shape != (len(self),):
                raise DabInputError(1, "batch arrays must stay C-contiguous of their dtypes and length")
        if self.score.dtype != np.int16 or self.score.shape != (len(self), 2) or \
                not self.score.flags.c_contiguous:
            raise DabInputError(1, "score must stay a C-contiguous int16 array (n, 2)")

    # ---- rules ----------------------------------------------------------
    def apply_actions(self, actions):
        """Plays actions[i] in state i (a negative action skips state i).
        Returns the boxes each move completed (int8).  Raises DabInputError
        (status 1) naming the first illegal action; then no state changed.
        Actions that are not integers (floats, bools, strings: an array of
        such a dtype or a list holding one) raise dab.game.ActionTypeError
        (a TypeError)."""
        self._check()
        a, bad = integer_actions(actions)
        if bad:
            raise ActionTypeError("actions: expected integer line numbers (ints or an integer array), "
                                  "but %s" % bad)
        a = np.ascontiguousarray(a, dtype=np.int64).reshape(-1)
        if a.shape[0] != len(self):
            raise DabInputError(1, "%d actions for %d states" % (a.shape[0], len(self)))
        reward = np.empty(len(self), dtype=np.int8)
        err = _Err()
        st = _load().dab_vec_step(self.game._vech(), len(self), _p(self.lines), _p(self.by1),
                                  _p(self.box1), _p(self.score), _p(self.to_move), _p(a), _p(reward),
                                  ctypes.byref(err))
        if st:
            _raise(st, err)
        return reward

    def legal_actions_mask(self):
        """uint8 (n, nlines): 1 where the line is undrawn."""
        out = np.empty((len(self), self.game.nlines), dtype=np.uint8)
        _load().dab_vec_legal(self.game._vech(), len(self), _p(self.lines), _p(out))
        return out

    def random_actions(self, seed=0):
        """int64 (n,): a uniformly random undrawn line per state (-1 where
        the game is over), from seed and the state's index."""
        out = np.empty(len(self), dtype=np.int64)
        _load().dab_vec_random_moves(self.game._vech(), len(self), _p(self.lines),
                                     int(seed) & (2 ** 64 - 1), _p(out))
        return out

    def is_terminal(self):
        return self.lines == np.uint64(self.game.all_lines)

    def current_player(self):
        """int (n,): 0 or 1, -4 where the game is over."""
        return np.where(self.is_terminal(), TERMINAL, self.to_move.astype(np.int64))

    def returns(self):
        """float64 (n, 2), OpenSpiel's returns (0 until the end)."""
        d = (self.score[:, 0].astype(np.float64) - self.score[:, 1])
        if self.game.utility == "wdl":
            d = np.sign(d)
        d = np.where(self.is_terminal(), d, 0.0)
        return np.stack([d, -d], axis=1)

    def observation_tensor(self, layout="openspiel", player=None):
        """float32 (n, *game.observation_tensor_shape(layout)); planes are
        seen from player (an int or an array; default: the player to move)."""
        lay = {"openspiel": 0, "planes": 1}.get(layout)
        if lay is None:
            raise DabInputError(1, "layout %r: expected 'openspiel' or 'planes'" % (layout,))
        self._check()
        shape = self.game.observation_tensor_shape(layout)
        out = np.empty([len(self)] + shape, dtype=np.float32)
        if player is None:
            pov = np.where(self.is_terminal(), 0, self.to_move).astype(np.int8)
        else:
            pov = np.ascontiguousarray(np.broadcast_to(np.asarray(player, dtype=np.int8), (len(self),)))
        _load().dab_vec_observe(self.game._vech(), lay, len(self), _p(self.lines), _p(self.by1),
                                _p(self.box1), _p(pov), _p(out))
        return out

    # ---- labels -----------------------------------------------------------
    def _oracle(self):
        o = self.game.oracle()
        return o._h

    def values(self):
        """Labels(value, lower, upper, exact) of every state, through the
        game's oracle in one C loop."""
        lo = np.empty(len(self), dtype=np.int8)
        hi = np.empty(len(self), dtype=np.int8)
        err = _Err()
        st = _load().dab_vec_values(self._oracle(), self.game._vech(), len(self), _p(self.lines),
                                    _p(lo), _p(hi), ctypes.byref(err))
        if st:
            _raise(st, err)
        exact = lo == hi
        return Labels(np.where(exact, lo, np.int8(NONE)).astype(np.int8), lo, hi, exact)

    def move_values(self):
        """(values int8 (n, nlines), exact bool (n,)): each move's value for
        the mover, NONE (-128) for drawn lines and for states a node limit
        stopped (exact False)."""
        out = np.empty((len(self), self.game.nlines), dtype=np.int8)
        exact = np.empty(len(self), dtype=np.uint8)
        err = _Err()
        st = _load().dab_vec_move_values(self._oracle(), self.game._vech(), len(self), _p(self.lines),
                                         _p(out), _p(exact), ctypes.byref(err))
        if st:
            _raise(st, err)
        return out, exact.astype(bool)

    def wdl(self):
        """(result int8 (n,), keep uint8 (n, nlines)): 1/0/-1, the best the
        mover can reach given the score so far (NONE where a node limit
        stopped the search), and the moves that reach it."""
        idx = np.arange(len(self))
        p = self.to_move.astype(np.int64)
        diff = np.ascontiguousarray(self.score[idx, p] - self.score[idx, 1 - p], dtype=np.int16)
        res = np.empty(len(self), dtype=np.int8)
        keep = np.empty((len(self), self.game.nlines), dtype=np.uint8)
        err = _Err()
        st = _load().dab_vec_wdl(self._oracle(), self.game._vech(), len(self), _p(self.lines), _p(diff),
                                 _p(res), _p(keep), ctypes.byref(err))
        if st:
            _raise(st, err)
        return res, keep
