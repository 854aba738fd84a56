"""dab.tablebase: Tablebase, one open tablebase file (RxC.dab), and build,
which writes one.  Values follow Wilson's convention (docs/python-oracle.md).
"""
import ctypes
import os

from ._answers import _Answers, _board
from ._lib import _Coverage, _Err, _load, _raise
from .errors import ECORRUPT, EIO, DabInputError

__all__ = ["Tablebase", "build"]


class Tablebase(_Answers):
    """An open tablebase file (usable from many threads).

    path_or_board: a file, or a board ("3x3") found on the search path
    (tb_dir first, docs/python.md); a board of up to 24 lines with no file
    yet is built there on first use, unless read_only=True or the process
    is in read-only mode (DAB_READONLY): then it raises DabIOError and
    writes nothing.  The file itself is only ever read.
    RAISES: DabInputError (a ValueError) for a path that names no file or
    not a tablebase; DabIOError, DabBoardError, DabCorruptError."""

    _calls = {"close": "dabtb_close", "parse": "dabtb_parse", "value": "dabtb_value",
              "move_values": "dabtb_move_values"}

    def __init__(self, path_or_board, tb_dir=None, read_only=False):
        lib = _load()
        self._lib = lib
        self._h = ctypes.c_void_p()
        err = _Err()
        name = str(path_or_board)
        board = _board(name.replace(".dab", ""))
        if not os.path.exists(name) and "/" not in name and board:
            rows, cols = board
            st = lib.dabtb_open_board_mode(rows, cols, tb_dir.encode() if tb_dir else None,
                                           bool(read_only), ctypes.byref(self._h), ctypes.byref(err))
        else:
            st = lib.dabtb_open(name.encode(), None, ctypes.byref(self._h), ctypes.byref(err))
        if st:
            self._h = None
            _raise(st, err)
        self.read_only = bool(read_only)
        cov = _Coverage()
        lib.dabtb_get_coverage(self._h, ctypes.byref(cov))
        self.rows, self.cols, self.nlines = cov.rows, cov.cols, cov.nlines
        self.positions, self.canonical = cov.positions, cov.canonical

    def values(self, positions, on_error="raise"):
        """Batch: int8 numpy array of the values of positions, given as a numpy
        array of line sets (any integer dtype), or of 0/1 rows of nlines
        columns (bit i = line i, as OpenSpiel's observation of lines).
        on_error="raise" (the default) raises the first failure, e.g.
        DabCorruptError for a damaged block; "mask" answers every position
        it can and returns a numpy masked array, masked where the answer
        needs a damaged block (said once as a RuntimeWarning)."""
        import numpy as np
        self._check_on_error(on_error)
        a = self._line_sets(positions)
        out = np.empty(a.shape[0], dtype=np.int8)
        err = _Err()
        st = self._lib.dabtb_value_batch(self._h, a.ctypes.data, a.shape[0], out.ctypes.data,
                                         ctypes.byref(err))
        if st in (ECORRUPT, EIO) and on_error == "mask":
            return self._values_masked(a)
        if st:
            _raise(st, err)
        return np.ma.masked_array(out, mask=False) if on_error == "mask" else out

    def check(self):
        """Integrity check of every block; raises DabError (status 5) when damaged."""
        err = _Err()
        st = self._lib.dabtb_check(self._h, None, None, None, ctypes.byref(err))
        if st:
            _raise(st, err)


def build(board, path, threads=0):
    """Builds the tablebase of board ("3x3") into path (see `dab build`).
    RAISES: DabInputError (a ValueError) for a board that is not RxC; the
    library's error otherwise (DabBoardError, DabMemoryError, DabIOError)."""
    rc = _board(str(board))
    if not rc:
        raise DabInputError(1, "board %r: expected RxC, e.g. 3x3" % (board,))
    lib = _load()
    err = _Err()
    st = lib.dabtb_build(rc[0], rc[1], os.fsencode(path), None, None, ctypes.byref(err))
    if st:
        _raise(st, err)
