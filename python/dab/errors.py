"""dab.errors: the exceptions dab raises, one class per C error code.

Every failure of a dab call raises a DabError; .status is the C library's
code (game/err.h: dab_status), and the class says which one:

    DabError(Exception)                     any failed dab call (.status)
      DabInputError(DabError, ValueError)   1 DAB_EINPUT: a bad argument or text
      DabBoardError(DabError, ValueError)   2 DAB_EBOARD: a board this call does not handle
      DabMemoryError(DabError, MemoryError) 3 DAB_ENOMEM: out of memory, or the plan would not fit
      DabIOError(DabError, OSError)         4 DAB_EIO: a file could not be read or written
                                              (also a refused write in read-only mode)
      DabCorruptError(DabError)             5 DAB_ECORRUPT: a file failed an integrity check
      DabCanceledError(DabError)            6 DAB_ECANCELED: a node limit or the cancel flag
      DabInternalError(DabError)            7 DAB_EINTERNAL: a bug in dab (or a libdab.so that
                                              does not match this package)

So `except ValueError` catches every bad argument, `except MemoryError`
and `except OSError` what they usually mean, and `except dab.DabError`
everything dab raises (as before these classes existed).  A code the
package does not know (a newer library) raises a plain DabError.
"""

__all__ = ["DabError", "DabInputError", "DabBoardError", "DabMemoryError", "DabIOError",
           "DabCorruptError", "DabCanceledError", "DabInternalError", "error_class", "dab_error"]

# dab_status (game/err.h)
EINPUT, EBOARD, ENOMEM, EIO, ECORRUPT, ECANCELED, EINTERNAL = 1, 2, 3, 4, 5, 6, 7

_STATUS_NAMES = {EINPUT: "bad input", EBOARD: "unsupported board", ENOMEM: "out of memory",
                 EIO: "i/o error", ECORRUPT: "corrupt data", ECANCELED: "canceled",
                 EINTERNAL: "internal error"}


class DabError(Exception):
    """A failed dab call; .status is the dab_status code (5 = corrupt file)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status

    def __reduce__(self):
        return type(self), (self.status, str(self))


class DabInputError(DabError, ValueError):
    """DAB_EINPUT (1): a malformed argument, position text or option."""


class DabBoardError(DabError, ValueError):
    """DAB_EBOARD (2): the board is outside what the call handles."""


class DabMemoryError(DabError, MemoryError):
    """DAB_ENOMEM (3): an allocation failed, or the plan would not fit."""


class DabIOError(DabError, OSError):
    """DAB_EIO (4): a file could not be found, read or written, including a
    write refused in read-only mode.  .errno is None (the message says why)."""


class DabCorruptError(DabError):
    """DAB_ECORRUPT (5): a file failed an integrity check."""


class DabCanceledError(DabError):
    """DAB_ECANCELED (6): the query passed its node limit (the message gives
    the bounds proved) or was canceled."""


class DabInternalError(DabError):
    """DAB_EINTERNAL (7): a broken invariant, or a libdab.so whose structs
    differ from this package's (rebuild one of them)."""


_CLASSES = {EINPUT: DabInputError, EBOARD: DabBoardError, ENOMEM: DabMemoryError, EIO: DabIOError,
            ECORRUPT: DabCorruptError, ECANCELED: DabCanceledError, EINTERNAL: DabInternalError}


def error_class(status):
    """The exception class of a dab_status code: DabError for an unknown
    one.  Every class returned is a subclass of DabError."""
    return _CLASSES.get(status, DabError)


def dab_error(status, message=""):
    """The exception to raise for status (a nonzero dab_status) and the C
    call's message; an empty message becomes the code's name."""
    return error_class(status)(status, message or _STATUS_NAMES.get(status, "error %d" % status))
