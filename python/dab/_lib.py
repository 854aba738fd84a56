"""dab._lib: finding and loading libdab.so through ctypes, the C structs
this package mirrors (checked against the library's own layout on load),
and turning a C status into an exception.  Internal: the public names are
re-exported by dab (library_path).
"""
import ctypes
import os
import sys

from .errors import DabInternalError, DabIOError, dab_error

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
                ("warn_ctx", ctypes.c_void_p), ("cancel", ctypes.c_void_p), ("pdb", ctypes.c_int),
                ("read_only", ctypes.c_bool)]


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
    """Raises DabInternalError (status 7) when a struct this module mirrors
    differs from the library's: using it would let C write past a Python
    buffer."""
    for cls, cname in mirrored or _MIRRORED:
        why = _abi_mismatch(lib, cls, cname)
        if why:
            raise DabInternalError(7, "python/dab does not match %s: %s (rebuild libdab.so with "
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


_handle = None   # the loaded CDLL


def _load():
    global _handle
    if _handle is not None:
        return _handle
    path = library_path()
    if not os.path.exists(path):
        raise DabIOError(4, "%s not found: run ./build.sh in the dab project (or make install), "
                         "or set DAB_LIB to libdab.so" % path)
    lib = ctypes.CDLL(path)
    P, U64, I = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int
    E = ctypes.POINTER(_Err)
    sig = {
        "dabtb_open": (I, [ctypes.c_char_p, P, ctypes.POINTER(P), E]),
        "dabtb_open_board": (I, [I, I, ctypes.c_char_p, ctypes.POINTER(P), E]),
        "dabtb_open_board_mode": (I, [I, I, ctypes.c_char_p, ctypes.c_bool, ctypes.POINTER(P), E]),
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
    _handle = lib
    return lib


def _raise(st, err):
    """Raises the exception of C status st (nonzero) with err's message
    (dab.errors.dab_error: the class follows the code)."""
    raise dab_error(st, err.msg.decode(errors="replace"))


class _Closing:
    """A handle with close(): `with` closes it, and so does garbage
    collection (quietly: the interpreter may be shutting down)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
