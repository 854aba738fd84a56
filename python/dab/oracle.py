"""dab.oracle: Oracle, the best exact source for a board (dab_oracle,
oracle/oracle.h): its tablebase file, a table built in memory, or search.
"""
import ctypes
import warnings

from ._answers import _Answers, _board, _RESULTS
from ._lib import _Err, _OracleOpts, _load, _raise
from .errors import DabInputError

__all__ = ["Oracle"]


def _read_only_arg(read_only, readonly):
    """The handle's read-only flag from read_only= and the deprecated
    readonly= (True or False; None: not given)."""
    if readonly is not None:
        warnings.warn("readonly= is deprecated: read_only= makes this handle read-only (it no "
                      "longer switches the whole process; dab.set_readonly does)", DeprecationWarning,
                      stacklevel=3)
        read_only = read_only or bool(readonly)
    return bool(read_only)


class Oracle(_Answers):
    """The best exact source for a board, as dab_oracle (oracle/oracle.h):
    its tablebase file, a table built in memory (3x3 and smaller), or, with
    search=True, alpha-beta search for boards of up to 64 lines (4x4, 3x5,
    4x5...), which first looks in the board's store of what `dab solve`
    proved.  A search's table stays warm between queries, so the positions
    of one game get cheaper as it goes; hash_mb=None (the default) sizes it
    by each query's free lines and node_limit and grows it when a later
    query needs more, hash_mb=N fixes it at N MiB.  A query that needs
    more than node_limit nodes (0 = no limit) raises DabCanceledError
    (status 6); early positions of big boards can take minutes (4x4's
    empty board ~95 s), so learners usually set one.  threads: search threads a query
    (default 1: a small query answers in ~20 us on one thread and ~70 us on
    two, which cost more to start than they save; 0 = all cores, for a few
    big queries).  read_only=True: this oracle never creates or changes a
    file, whatever the environment says (no table built on first use: a
    board of up to 24 lines is solved in memory instead; the search's store
    is read, never written; a board of up to 20 lines is solved in memory by
    every Oracle); False (the default) follows the process
    default, read-only when DAB_READONLY is set (dab.set_readonly).
    readonly= is its old, deprecated name (it used to switch the whole
    process).  pdb=True: the search uses the pattern database
    (components.dabpdb beside the tables; exact, measured no faster:
    docs/pdb.md).
    RAISES: DabInputError (a ValueError) for a board that is not RxC;
    DabBoardError (a ValueError) when no source covers the board (search
    off and no table, or more than 64 lines); DabMemoryError; DabIOError
    or DabCorruptError for a tablebase file that cannot be used.  Queries
    raise DabInputError for text that is not a position of this board,
    TypeError for a position that is neither text nor an int,
    DabCanceledError past node_limit."""

    _calls = {"close": "dab_oracle_close", "parse": "dab_oracle_parse",
              "value": "dab_oracle_value64", "move_values": "dab_oracle_move_values"}

    def result(self, pos, score_diff=0):
        """As Tablebase.result, through the oracle's own call (dab_oracle_result)."""
        r, keep, n, err = ctypes.c_int(), (ctypes.c_int16 * 64)(), ctypes.c_int(), _Err()
        st = self._lib.dab_oracle_result(self._h, self._pos(pos), int(score_diff), ctypes.byref(r),
                                         keep, ctypes.byref(n), ctypes.byref(err))
        if st:
            _raise(st, err)
        return _RESULTS[r.value], [keep[i] for i in range(n.value)]

    def bounds(self, pos):
        """(lower, upper): the value of pos as proved bounds; lower == upper
        when exact, lower < upper when a search stopped at node_limit (no
        error then)."""
        lo, hi, err = ctypes.c_int(), ctypes.c_int(), _Err()
        st = self._lib.dab_oracle_bounds64(self._h, self._pos(pos), ctypes.byref(lo), ctypes.byref(hi),
                                           ctypes.byref(err))
        if st:
            _raise(st, err)
        return lo.value, hi.value

    def values(self, positions, on_error="raise"):
        """Batch, as Tablebase.values: an int8 numpy array (one query per
        position; a searching oracle answers them one by one); on_error as
        there ("mask": a masked array, masked where a damaged block failed)."""
        import numpy as np
        self._check_on_error(on_error)
        if on_error == "mask":
            return self._values_masked(self._line_sets(positions))
        return np.array([self.value(int(p)) for p in self._line_sets(positions)], dtype=np.int8)

    def __init__(self, board, tb_dir=None, search=False, hash_mb=None, node_limit=0, threads=1,
                 readonly=None, pdb=False, read_only=False):
        read_only = _read_only_arg(read_only, readonly)
        lib = _load()
        self._lib = lib
        rc = _board(str(board))
        if not rc:
            raise DabInputError(1, "board %r: expected RxC, e.g. 4x4" % (board,))
        self.rows, self.cols = rc
        self.nlines = self.rows * (self.cols + 1) + (self.rows + 1) * self.cols
        opts = _OracleOpts(tb_dir.encode() if tb_dir else None, 0, threads, bool(search),
                           int(hash_mb or 0) << 20, int(node_limit))
        opts.pdb = 1 if pdb else 0
        opts.read_only = read_only
        self.read_only = read_only
        h, err = ctypes.c_void_p(), _Err()
        st = lib.dab_oracle_open(self.rows, self.cols, ctypes.byref(opts), ctypes.byref(h),
                                 ctypes.byref(err))
        if st:
            _raise(st, err)
        self._h = h
        self.source = lib.dab_oracle_source(h).decode()   # "tablebase", "memory" or "search"
