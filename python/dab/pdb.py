"""dab.pdb: the pattern database of Strings-and-Coins components (docs/pdb.md)."""
import ctypes

from ._lib import _Closing, _Err, _load, _raise
from .errors import DabBoardError, DabInputError

_MAX_COMP = 32
LOONY = -1


class _ProbeComp(ctypes.Structure):
    """dab_pdb_probe_comp (pdb/pdb.h)."""
    _fields_ = [("first_box", ctypes.c_int), ("coins", ctypes.c_int), ("strings", ctypes.c_int),
                ("id", ctypes.c_int64), ("nimber", ctypes.c_int), ("value", ctypes.c_int),
                ("flags", ctypes.c_int)]


class _ProbeResult(ctypes.Structure):
    """dab_pdb_probe_result (pdb/pdb.h)."""
    _fields_ = [("ncomp", ctypes.c_int), ("comp", _ProbeComp * _MAX_COMP), ("covered", ctypes.c_int),
                ("nimber", ctypes.c_int), ("value", ctypes.c_int), ("nodes", ctypes.c_uint64)]


_FREE, _CHAIN, _LOOP = 1, 4, 8
_bound = False


def _lib():
    global _bound
    lib = _load()
    if not _bound:
        P, I, E = ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(_Err)
        sig = {
            "dab_pdb_load": (I, [ctypes.c_char_p, ctypes.POINTER(P), E]),
            "dab_pdb_free": (None, [P]),
            "dab_pdb_count": (ctypes.c_uint32, [P]),
            "dab_pdb_max_strings": (I, [P]),
            "dab_pdb_probe": (I, [P, ctypes.c_char_p, ctypes.POINTER(_ProbeResult), E]),
            "dabtb_find_file": (I, [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, E]),
        }
        for name, (res, args) in sig.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        from ._lib import _check_abi
        _check_abi(lib, ((_ProbeComp, "dab_pdb_probe_comp"), (_ProbeResult, "dab_pdb_probe_result")))
        _bound = True
    return lib


class PatternDB(_Closing):
    """A pattern database file (`dab pdb build`): every grid component of up to
    max_strings strings with its Nimstring value and its value played alone.
    path=None finds components.dabpdb where tablebases are found (tb_dir,
    $DAB_TB_PATH, the cache).  Read-only; usable from many threads.

    probe(position) -> {"components": [{"first_box", "coins", "strings", "id",
    "kind", "nimber", "value", "free"}...], "covered": bool, and when covered
    "nimber" (int, or "loony") and "value" (exact, for the player to move)}.
    An uncovered component has id None.  Raises DabInputError (a ValueError, status 1) for text
    that is not a position, (2) for a board past 64 lines, (4/5) for a
    missing or damaged file."""

    def __init__(self, path=None, tb_dir=None):
        lib = _lib()
        self._lib = lib
        err = _Err()
        if path is None:
            buf = ctypes.create_string_buffer(4200)
            st = lib.dabtb_find_file(b"components.dabpdb", tb_dir.encode() if tb_dir else None, buf,
                                     len(buf), ctypes.byref(err))
            if st:
                _raise(st, err)
            path = buf.value.decode()
        self.path = str(path)
        self._h = ctypes.c_void_p()
        st = lib.dab_pdb_load(self.path.encode(), ctypes.byref(self._h), ctypes.byref(err))
        if st:
            self._h = None
            _raise(st, err)
        self.count = int(lib.dab_pdb_count(self._h))
        self.max_strings = int(lib.dab_pdb_max_strings(self._h))

    def probe(self, position):
        if self._h is None:
            raise DabInputError(1, "PatternDB is closed")
        if not isinstance(position, str):
            raise TypeError("position must be text (RxC, RxC:DBN or RxC@moves), got %s" %
                            type(position).__name__)
        r, err = _ProbeResult(), _Err()
        st = self._lib.dab_pdb_probe(self._h, position.encode(), ctypes.byref(r), ctypes.byref(err))
        if st:
            _raise(st, err)
        comps = []
        for i in range(min(r.ncomp, _MAX_COMP)):
            c = r.comp[i]
            d = {"first_box": c.first_box, "coins": c.coins, "strings": c.strings,
                 "id": None if c.id < 0 else int(c.id)}
            if c.id >= 0:
                d["kind"] = "chain" if c.flags & _CHAIN else "loop" if c.flags & _LOOP else "other"
                d["nimber"] = "loony" if c.nimber == LOONY else c.nimber
                d["value"] = c.value
                d["free"] = bool(c.flags & _FREE)
            comps.append(d)
        out = {"components": comps, "covered": bool(r.covered)}
        if r.covered:
            out["nimber"] = "loony" if r.nimber == LOONY else r.nimber
            out["value"] = r.value
        return out

    def close(self):
        if self._h is not None:
            self._lib.dab_pdb_free(self._h)
            self._h = None

