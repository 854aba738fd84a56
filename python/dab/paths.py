"""dab.paths: where tablebases are looked for and written, and the
process-wide read-only mode (DAB_READONLY).
"""
import ctypes
import os

from ._lib import _load

__all__ = ["set_readonly", "readonly", "where"]


def set_readonly(on=True):
    """The process-wide default of read-only mode, for every handle that
    does not say (and the Players and programs this process starts): no
    query creates or changes a file.  Tables are then never built on first
    use (an oracle of a board of up to 24 lines solves it in memory
    instead) and no store is written; a refused write raises DabIOError
    naming DAB_READONLY.  It sets DAB_READONLY in os.environ, which the
    library reads: the same as DAB_READONLY=1 in the environment or `dab
    --read-only`.  To make one handle read-only, leaving the others free
    to write, pass read_only=True to Oracle, Tablebase or Game instead."""
    if on:
        os.environ["DAB_READONLY"] = "1"
    else:
        os.environ.pop("DAB_READONLY", None)


def readonly():
    """True when the process default is read-only (set_readonly, or
    DAB_READONLY=1); a handle opened with read_only=True is read-only
    whatever this says."""
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
