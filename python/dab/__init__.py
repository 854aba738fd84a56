"""dab: Dots-and-Boxes for Python: the game as OpenSpiel users know it,
exact labels on any state, batches of games, every player, tablebases and
the oracle, through ctypes on libdab.so.

    import dab
    game = dab.Game(3, 3)                      # utility="margin" or "wdl"
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    state.observation_tensor()                 # OpenSpiel's [3, (R+1)(C+1), 3]
    state.value(); state.move_values(); state.best_moves(); state.wdl()
    batch = game.new_states(4096)              # numpy-backed, stepped in C
    dab.Player("perfect", "3x3").move(state)   # any player spec, q:FILE...

    from dab import Tablebase, Oracle          # as before (docs/python-oracle.md)

Values follow Wilson's convention: the net boxes the player to move gains
from here under optimal play.  A position is a line set: bit i set = line i
drawn (OpenSpiel dots_and_boxes action ids).  docs/python.md has the whole
reference.  libdab.so is found through $DAB_LIB, then this package's own
folder, then the source tree's build/ (when the package runs from python/ of
a dab checkout), then the install prefix (`make install`, sys.prefix/lib).
Thread safety: one Tablebase or Oracle may be used from many threads at
once (an Oracle that searches answers one query at a time); a State, a
States batch or a Player by one thread at a time.
"""
import ctypes
import os
import sys

__all__ = ["Tablebase", "Oracle", "DabError", "library_path", "Game", "State", "States", "Player",
           "load_game", "set_readonly", "readonly", "where", "Bounds", "WDL", "Labels"]

_STATUS = {1: "bad input", 2: "unsupported board", 3: "out of memory", 4: "i/o error",
           5: "corrupt data", 6: "canceled", 7: "internal error"}


class DabError(Exception):
    """A failed dab call; .status is the dab_status code (5 = corrupt file)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class _Err(ctypes.Structure):
    _fields_ = [("msg", ctypes.c_char * 256)]


class _Coverage(ctypes.Structure):
    _fields_ = [("rows", ctypes.c_int), ("cols", ctypes.c_int), ("nlines", ctypes.c_int),
                ("positions", ctypes.c_uint64), ("indexed", ctypes.c_uint64),
                ("canonical", ctypes.c_uint64), ("solved", ctypes.c_uint64),
                ("shapes", ctypes.c_uint64), ("format_version", ctypes.c_int)]


class _OracleOpts(ctypes.Structure):
    """dab_oracle_opts (oracle/oracle.h)."""
    _fields_ = [("tb_dir", ctypes.c_char_p), ("max_build_free", ctypes.c_int),
                ("threads", ctypes.c_int), ("search", ctypes.c_bool),
                ("search_hash", ctypes.c_uint64), ("search_node_limit", ctypes.c_uint64),
                # zero (None) keeps the default of each field from here on
                ("retro_free", ctypes.c_int), ("only", ctypes.c_int), ("store", ctypes.c_int),
                ("mem_limit", ctypes.c_uint64), ("checkpoint_seconds", ctypes.c_double),
                ("search_opts", ctypes.c_void_p), ("progress", ctypes.c_void_p),
                ("progress_ctx", ctypes.c_void_p), ("warn", ctypes.c_void_p),
                ("warn_ctx", ctypes.c_void_p), ("cancel", ctypes.c_void_p), ("pdb", ctypes.c_int)]


# Every struct this module mirrors, with its C name: _check_abi compares
# each against the library's own layout (capi/abi.h) when it loads.
_MIRRORED = ((_Err, "dab_err"), (_Coverage, "dabtb_coverage"), (_OracleOpts, "dab_oracle_opts"))


def _abi_mismatch(lib, cls, cname):
    """None when ctypes class cls has exactly the fields, order, offsets and
    size of C struct cname in lib; else one line saying what differs."""
    c_fields = lib.dab_abi_fields(cname.encode())
    if c_fields is None:
        return "libdab.so does not know struct %s" % cname
    c_names = c_fields.decode().split(",")
    py_names = [f[0] for f in cls._fields_]
    if py_names != c_names:
        return "%s fields differ: C has %s, Python %s" % (cname, ",".join(c_names), ",".join(py_names))
    for name in c_names:
        c_off, py_off = lib.dab_abi_offsetof(cname.encode(), name.encode()), getattr(cls, name).offset
        if c_off != py_off:
            return "%s.%s is at byte %d in C, %d in Python" % (cname, name, c_off, py_off)
        c_sz, py_sz = lib.dab_abi_fieldsize(cname.encode(), name.encode()), getattr(cls, name).size
        if c_sz != py_sz:
            return "%s.%s is %d bytes in C, %d in Python" % (cname, name, c_sz, py_sz)
    c_size, py_size = lib.dab_abi_sizeof(cname.encode()), ctypes.sizeof(cls)
    if c_size != py_size:
        return "%s is %d bytes in C, %d in Python" % (cname, c_size, py_size)
    return None


def _check_abi(lib, mirrored=None):
    """Raises DabError (status 7) when a struct this module mirrors differs
    from the library's: using it would let C write past a Python buffer."""
    for cls, cname in mirrored or _MIRRORED:
        why = _abi_mismatch(lib, cls, cname)
        if why:
            raise DabError(7, "python/dab does not match %s: %s (rebuild libdab.so with "
                           "./build.sh, or update python/dab)" % (library_path(), why))


def _candidates():
    """Where libdab.so may be, in the order library_path tries them."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = [os.path.join(here, "libdab.so")]
    tree = os.path.normpath(os.path.join(here, "..", ".."))   # python/dab -> the checkout
    if os.path.isfile(os.path.join(tree, "Makefile")) and os.path.isdir(os.path.join(tree, "oracle")):
        out.append(os.path.join(tree, "build", "libdab.so"))
    try:
        from . import _install                                 # written by `make install`
        out.append(os.path.join(_install.LIBDIR, "libdab.so"))
    except ImportError:
        pass
    out += [os.path.join(sys.prefix, "lib", "libdab.so"), "/usr/local/lib/libdab.so", "/usr/lib/libdab.so"]
    return out


def library_path():
    """libdab.so: $DAB_LIB, else the first that exists of this package's
    folder, the checkout's build/libdab.so (package run from python/), the
    prefix `make install` used, sys.prefix/lib, /usr/local/lib, /usr/lib
    (the first candidate when none exists, for the error message)."""
    env = os.environ.get("DAB_LIB")
    if env:
        return env
    cands = _candidates()
    for c in cands:
        if os.path.exists(c):
            return c
    return cands[1] if len(cands) > 1 and "build" in cands[1] else cands[0]


_lib = None


def _load():
    global _lib
    if _lib is not None:
        return _lib
    path = library_path()
    if not os.path.exists(path):
        raise DabError(4, "%s not found: run ./build.sh in the dab project (or make install), "
                       "or set DAB_LIB to libdab.so" % path)
    lib = ctypes.CDLL(path)
    P, U64, I = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int
    E = ctypes.POINTER(_Err)
    sig = {
        "dabtb_open": (I, [ctypes.c_char_p, P, ctypes.POINTER(P), E]),
        "dabtb_open_board": (I, [I, I, ctypes.c_char_p, ctypes.POINTER(P), E]),
        "dabtb_close": (None, [P]),
        "dabtb_value": (I, [P, U64, ctypes.POINTER(I), E]),
        "dabtb_value_batch": (I, [P, P, ctypes.c_size_t, P, E]),
        "dabtb_move_values": (I, [P, U64, ctypes.POINTER(ctypes.c_int16),
                                  ctypes.POINTER(ctypes.c_int16), ctypes.POINTER(I), E]),
        "dabtb_parse": (I, [P, ctypes.c_char_p, ctypes.POINTER(U64), E]),
        "dabtb_get_coverage": (None, [P, ctypes.POINTER(_Coverage)]),
        "dabtb_check": (I, [P, P, P, P, E]),
        "dabtb_build": (I, [I, I, ctypes.c_char_p, P, P, E]),
        "dab_oracle_open": (I, [I, I, ctypes.POINTER(_OracleOpts), ctypes.POINTER(P), E]),
        "dab_oracle_close": (None, [P]),
        "dab_oracle_source": (ctypes.c_char_p, [P]),
        "dab_oracle_value64": (I, [P, U64, ctypes.POINTER(I), E]),
        "dab_oracle_move_values": (I, [P, U64, ctypes.POINTER(ctypes.c_int16),
                                       ctypes.POINTER(ctypes.c_int16), ctypes.POINTER(I), E]),
        "dab_oracle_parse": (I, [P, ctypes.c_char_p, ctypes.POINTER(U64), E]),
        "dab_oracle_result": (I, [P, U64, I, ctypes.POINTER(I), ctypes.POINTER(ctypes.c_int16),
                                  ctypes.POINTER(I), E]),
        "dab_oracle_bounds64": (I, [P, U64, ctypes.POINTER(I), ctypes.POINTER(I), E]),
        "dabtb_readonly": (ctypes.c_bool, []),
        "dabtb_where": (None, [ctypes.c_char_p, P, ctypes.c_size_t, P, ctypes.c_size_t]),
        "dab_vec_new": (I, [I, I, ctypes.POINTER(P), E]),
        "dab_vec_free": (None, [P]),
        "dab_vec_step": (I, [P, ctypes.c_size_t, P, P, P, P, P, P, P, E]),
        "dab_vec_legal": (None, [P, ctypes.c_size_t, P, P]),
        "dab_vec_random_moves": (None, [P, ctypes.c_size_t, P, U64, P]),
        "dab_vec_observe": (ctypes.c_long, [P, I, ctypes.c_size_t, P, P, P, P, P]),
        "dab_vec_observe_size": (ctypes.c_long, [P, I]),
        "dab_vec_values": (I, [P, P, ctypes.c_size_t, P, P, P, E]),
        "dab_vec_move_values": (I, [P, P, ctypes.c_size_t, P, P, P, E]),
        "dab_vec_wdl": (I, [P, P, ctypes.c_size_t, P, P, P, P, E]),
        "dab_capi_player_new": (I, [ctypes.c_char_p, I, I, ctypes.c_char_p, U64, ctypes.POINTER(P), E]),
        "dab_capi_player_free": (None, [P]),
        "dab_capi_player_name": (ctypes.c_char_p, [P]),
        "dab_capi_player_move": (I, [P, U64, I, I, I, ctypes.POINTER(I), E]),
        "dab_abi_sizeof": (ctypes.c_long, [ctypes.c_char_p]),
        "dab_abi_offsetof": (ctypes.c_long, [ctypes.c_char_p, ctypes.c_char_p]),
        "dab_abi_fieldsize": (ctypes.c_long, [ctypes.c_char_p, ctypes.c_char_p]),
        "dab_abi_fields": (ctypes.c_char_p, [ctypes.c_char_p]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    _check_abi(lib)
    _lib = lib
    return lib


def _raise(st, err):
    raise DabError(st, err.msg.decode(errors="replace") or _STATUS.get(st, "error %d" % st))


def set_readonly(on=True):
    """Read-only mode for this process (and the programs it starts): no
    query creates or changes a file.  Tables are then never built on first
    use (an oracle of a board of up to 24 lines solves it in memory
    instead) and no store is written; a refused write raises DabError
    naming DAB_READONLY.  The same as DAB_READONLY=1 in the environment
    (the library reads it there) or `dab --read-only`."""
    if on:
        os.environ["DAB_READONLY"] = "1"
    else:
        os.environ.pop("DAB_READONLY", None)


def readonly():
    """True in read-only mode (set_readonly, or DAB_READONLY=1)."""
    return bool(_load().dabtb_readonly())


def where(tb_dir=None):
    """{"lookup": [directories searched for RxC.dab, in order], "write": the
    directory a table built on demand goes to (or "nowhere (why)"),
    "read_only": bool}: what `dab info` prints."""
    lib = _load()
    look, wr = ctypes.create_string_buffer(8192), ctypes.create_string_buffer(4200)
    lib.dabtb_where(tb_dir.encode() if tb_dir else None, look, len(look), wr, len(wr))
    dirs = [d for d in look.value.decode().split(":") if d]
    return {"lookup": dirs, "write": wr.value.decode(), "read_only": bool(lib.dabtb_readonly())}


def build(board, path, threads=0):
    """Builds the tablebase of board ("3x3") into path (see `dab build`)."""
    lib = _load()
    rows, cols = (int(x) for x in board.lower().split("x"))
    err = _Err()
    st = lib.dabtb_build(rows, cols, path.encode(), None, None, ctypes.byref(err))
    if st:
        _raise(st, err)


def _board(name):
    """(rows, cols) of "RxC", or None."""
    parts = name.lower().split("x")
    if len(parts) == 2 and all(x.isdigit() for x in parts):
        return int(parts[0]), int(parts[1])
    return None


_RESULTS = {1: "win", 0: "draw", -1: "loss"}


def _sign(x):
    return (x > 0) - (x < 0)


class _Answers:
    """What Tablebase and Oracle share: the questions and closing.  A subclass
    sets _lib, _h, rows and cols, and names its C calls in _calls: close,
    parse (text -> line set), value and move_values, whose signatures are
    the same for dabtb_* and dab_oracle_*."""

    _h = None
    _calls = {}

    def _c(self, what):
        return getattr(self._lib, self._calls[what])

    def close(self):
        if self._h:
            self._c("close")(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _pos(self, pos):
        if isinstance(pos, str):
            out, err = ctypes.c_uint64(), _Err()
            st = self._c("parse")(self._h, pos.encode(), ctypes.byref(out), ctypes.byref(err))
            if st:
                _raise(st, err)
            return out.value
        return int(pos)

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
        a = np.asarray(positions)
        if a.ndim == 2:
            if a.shape[1] != self.nlines:
                raise DabError(1, "rows of %d columns expected (one per line), got %d"
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


class Tablebase(_Answers):
    """An open tablebase file (read-only; usable from many threads)."""

    _calls = {"close": "dabtb_close", "parse": "dabtb_parse", "value": "dabtb_value",
              "move_values": "dabtb_move_values"}

    def __init__(self, path_or_board, tb_dir=None):
        lib = _load()
        self._lib = lib
        self._h = ctypes.c_void_p()
        err = _Err()
        name = str(path_or_board)
        board = _board(name.replace(".dab", ""))
        if not os.path.exists(name) and "/" not in name and board:
            rows, cols = board
            st = lib.dabtb_open_board(rows, cols, tb_dir.encode() if tb_dir else None,
                                      ctypes.byref(self._h), ctypes.byref(err))
        else:
            st = lib.dabtb_open(name.encode(), None, ctypes.byref(self._h), ctypes.byref(err))
        if st:
            self._h = None
            _raise(st, err)
        cov = _Coverage()
        lib.dabtb_get_coverage(self._h, ctypes.byref(cov))
        self.rows, self.cols, self.nlines = cov.rows, cov.cols, cov.nlines
        self.positions, self.canonical = cov.positions, cov.canonical

    def values(self, positions):
        """Batch: int8 numpy array of the values of positions, given as a numpy
        array of line sets (any integer dtype), or of 0/1 rows of nlines
        columns (bit i = line i, as OpenSpiel's observation of lines)."""
        import numpy as np
        a = self._line_sets(positions)
        out = np.empty(a.shape[0], dtype=np.int8)
        err = _Err()
        st = self._lib.dabtb_value_batch(self._h, a.ctypes.data, a.shape[0], out.ctypes.data,
                                         ctypes.byref(err))
        if st:
            _raise(st, err)
        return out

    def check(self):
        """Integrity check of every block; raises DabError (status 5) when damaged."""
        err = _Err()
        st = self._lib.dabtb_check(self._h, None, None, None, ctypes.byref(err))
        if st:
            _raise(st, err)


class Oracle(_Answers):
    """The best exact source for a board, as dab_oracle (oracle/oracle.h):
    its tablebase file, a table built in memory (3x3 and smaller), or, with
    search=True, alpha-beta search for boards of up to 64 lines (4x4, 3x5,
    4x5...), which first looks in the board's store of what `dab solve`
    proved.  A search's table stays warm between queries, so the positions
    of one game get cheaper as it goes; hash_mb=None (the default) sizes it
    by each query's free lines and node_limit and grows it when a later
    query needs more, hash_mb=N fixes it at N MiB.  A query that needs
    more than node_limit nodes (0 = no limit) raises DabError with status
    6; early positions of big boards can take minutes (4x4's empty board
    ~95 s), so learners usually set one.  threads: search threads a query
    (default 1: a small query answers in ~20 us on one thread and ~70 us on
    two, which cost more to start than they save; 0 = all cores, for a few
    big queries).  readonly=True/False sets read-only mode for the whole
    process (set_readonly); None leaves it as it is.  pdb=True: the search
    uses the pattern database (components.dabpdb beside the tables; exact,
    measured no faster: docs/pdb.md)."""

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

    def values(self, positions):
        """Batch, as Tablebase.values: an int8 numpy array (one query per
        position; a searching oracle answers them one by one)."""
        import numpy as np
        return np.array([self.value(int(p)) for p in self._line_sets(positions)], dtype=np.int8)

    def __init__(self, board, tb_dir=None, search=False, hash_mb=None, node_limit=0, threads=1,
                 readonly=None, pdb=False):
        if readonly is not None:
            set_readonly(readonly)
        lib = _load()
        self._lib = lib
        rc = _board(str(board))
        if not rc:
            raise DabError(1, "board %r: expected RxC, e.g. 4x4" % (board,))
        self.rows, self.cols = rc
        self.nlines = self.rows * (self.cols + 1) + (self.rows + 1) * self.cols
        opts = _OracleOpts(tb_dir.encode() if tb_dir else None, 0, threads, bool(search),
                           int(hash_mb or 0) << 20, int(node_limit))
        opts.pdb = 1 if pdb else 0
        h, err = ctypes.c_void_p(), _Err()
        st = lib.dab_oracle_open(self.rows, self.cols, ctypes.byref(opts), ctypes.byref(h),
                                 ctypes.byref(err))
        if st:
            _raise(st, err)
        self._h = h
        self.source = lib.dab_oracle_source(h).decode()   # "tablebase", "memory" or "search"


from .game import Game, State, Bounds, WDL, load_game  # noqa: E402
from .batch import States, Labels  # noqa: E402
from .player import Player  # noqa: E402
from .pdb import PatternDB  # noqa: E402
