"""dab._answers: what Tablebase and Oracle share (internal): position
arguments, value, move_values, analyze, result, best_moves and closing.
"""
import ctypes
import operator
import warnings

from ._lib import _Closing, _Err, _raise
from .errors import DabCorruptError, DabInputError, DabIOError

_ON_ERROR = ("raise", "mask")


def _board(name):
    """(rows, cols) of "RxC", or None."""
    parts = name.lower().split("x")
    if len(parts) == 2 and all(x.isdigit() for x in parts):
        return int(parts[0]), int(parts[1])
    return None


_RESULTS = {1: "win", 0: "draw", -1: "loss"}


def _sign(x):
    return (x > 0) - (x < 0)


class _Answers(_Closing):
    """What Tablebase and Oracle share: the questions and closing.  A subclass
    sets _lib, _h, rows and cols, and names its C calls in _calls: close,
    parse (text -> line set), value and move_values, whose signatures are
    the same for dabtb_* and dab_oracle_*."""

    _h = None
    _calls = {}

    def _c(self, what):
        return getattr(self._lib, self._calls[what])

    def _check_on_error(self, on_error):
        if on_error not in _ON_ERROR:
            raise DabInputError(1, "on_error must be 'raise' or 'mask', got %r" % (on_error,))

    def _values_masked(self, line_sets):
        """values(..., on_error="mask"): one query per position; a position
        whose answer needs a damaged block of the file is masked, and the
        first such failure is said once per handle as a RuntimeWarning."""
        import numpy as np
        out = np.zeros(len(line_sets), dtype=np.int8)
        mask = np.zeros(len(line_sets), dtype=bool)
        for i, p in enumerate(line_sets):
            try:
                out[i] = self.value(int(p))
            except (DabCorruptError, DabIOError) as e:
                mask[i] = True
                if not getattr(self, "_damage_said", False):
                    self._damage_said = True
                    warnings.warn("dab: %s (positions that need a damaged block are masked)" % e,
                                  RuntimeWarning, stacklevel=3)
        return np.ma.masked_array(out, mask=mask)

    def close(self):
        if self._h:
            self._c("close")(self._h)
            self._h = None

    def _pos(self, pos):
        """pos as a line set: text is parsed by the C library (DabInputError
        when malformed or of another board); an integer is taken as is;
        anything else raises TypeError."""
        if self._h is None:
            raise DabInputError(1, "%s is closed" % type(self).__name__)
        if isinstance(pos, str):
            out, err = ctypes.c_uint64(), _Err()
            st = self._c("parse")(self._h, pos.encode(), ctypes.byref(out), ctypes.byref(err))
            if st:
                _raise(st, err)
            return out.value
        try:
            return operator.index(pos)
        except TypeError:
            raise TypeError("position must be text (RxC, RxC:DBN or RxC@m1,...) or an int line set, "
                            "got %s" % type(pos).__name__) from None

    def value(self, pos):
        """Value of pos (text like "4x4@0,1" or an int line set)."""
        v, err = ctypes.c_int(), _Err()
        st = self._c("value")(self._h, self._pos(pos), ctypes.byref(v), ctypes.byref(err))
        if st:
            _raise(st, err)
        return v.value

    def move_values(self, pos):
        """{line: value for the mover} for every legal move of pos."""
        moves, vals = (ctypes.c_int16 * 64)(), (ctypes.c_int16 * 64)()
        n, err = ctypes.c_int(), _Err()
        st = self._c("move_values")(self._h, self._pos(pos), moves, vals, ctypes.byref(n),
                                    ctypes.byref(err))
        if st:
            _raise(st, err)
        return {moves[i]: vals[i] for i in range(n.value)}

    def _line_sets(self, positions):
        """positions (line sets, or 0/1 rows of nlines columns) as a flat
        contiguous uint64 numpy array."""
        import numpy as np
        if self._h is None:
            raise DabInputError(1, "%s is closed" % type(self).__name__)
        a = np.asarray(positions)
        if a.ndim == 2:
            if a.shape[1] != self.nlines:
                raise DabInputError(1, "rows of %d columns expected (one per line), got %d"
                               % (self.nlines, a.shape[1]))
            weights = np.left_shift(np.uint64(1), np.arange(self.nlines, dtype=np.uint64))
            a = (a.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
        return np.ascontiguousarray(a.reshape(-1), dtype=np.uint64)

    def analyze(self, pos):
        """{"rows","cols","value","moves":[{"move","value"}...],"best":[...]},
        the JSON object `dab solve --json` and `dab probe` print."""
        mv = self.move_values(pos)
        value = max(mv.values()) if mv else 0
        return {"rows": self.rows, "cols": self.cols, "value": value,
                "moves": [{"move": m, "value": v} for m, v in sorted(mv.items())],
                "best": sorted(m for m, v in mv.items() if v == value)}

    def result(self, pos, score_diff=0):
        """Win/draw/loss: (result, keep) where result is "win", "draw" or
        "loss", the best the player to move can reach when the score so far
        is score_diff (the mover's boxes minus the opponent's), and keep the
        moves that reach it, in increasing order.  It follows from the
        margins: result = sign(score_diff + value)."""
        mv = self.move_values(pos)
        value = max(mv.values()) if mv else 0
        want = _sign(score_diff + value)
        return _RESULTS[want], sorted(m for m, v in mv.items() if _sign(score_diff + v) == want)

    def best_moves(self, pos):
        """The optimal lines of pos, in increasing order ([] on a full board)."""
        mv = self.move_values(pos)
        if not mv:
            return []
        best = max(mv.values())
        return sorted(m for m, v in mv.items() if v == best)
