"""test_errors.py: dab's exceptions: each C error code raises its own
class (dab.errors), bad arguments are ValueError or TypeError, out of
memory is MemoryError, and every one is still a dab.DabError with .status.

Run with /usr/bin/python3 (tests/run.sh does).  Ends with the line
"test_errors.py: N passed, M failed".
"""
import ctypes
import os
import pickle
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dab  # noqa: E402
from dab import errors  # noqa: E402

from checks import check, report  # noqa: E402


def raised(fn):
    """The exception fn() raises (None when it returns)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (the test looks at its class)
        return e
    return None


def check_raises(fn, cls, builtin, status, what):
    """fn() raises cls, which is also builtin (or None) and a DabError of status."""
    e = raised(fn)
    ok = isinstance(e, cls) and isinstance(e, dab.DabError) and e.status == status
    if builtin is not None:
        ok = ok and isinstance(e, builtin)
    check(ok, "%s: %r" % (what, e))


# The mapping itself, for every code (ENOMEM and EINTERNAL are hard to provoke).
want = {1: (dab.DabInputError, ValueError), 2: (dab.DabBoardError, ValueError),
        3: (dab.DabMemoryError, MemoryError), 4: (dab.DabIOError, OSError),
        5: (dab.DabCorruptError, None), 6: (dab.DabCanceledError, None),
        7: (dab.DabInternalError, None)}
for code, (cls, builtin) in want.items():
    check(dab.error_class(code) is cls and issubclass(cls, dab.DabError), "code %d -> %s" % (code, cls.__name__))
    if builtin:
        check(issubclass(cls, builtin), "%s is a %s" % (cls.__name__, builtin.__name__))
    e = errors.dab_error(code, "")
    check(type(e) is cls and e.status == code and str(e), "dab_error(%d): %r" % (code, e))
check(dab.error_class(99) is dab.DabError and type(errors.dab_error(99)) is dab.DabError,
      "an unknown code raises a plain DabError")
check(len(set(want[c][0] for c in want)) == 7, "seven codes, seven classes")
check(not issubclass(dab.DabCorruptError, ValueError) and not issubclass(dab.DabInputError, OSError),
      "the classes do not overlap")

# _raise (what every binding calls) raises the class of the C status with C's message.
err = dab._Err()
err.msg = b"plan needs 9 GiB"
e = raised(lambda: dab._raise(3, err))
check(isinstance(e, MemoryError) and isinstance(e, dab.DabError) and e.status == 3 and str(e) == "plan needs 9 GiB",
      "a C DAB_ENOMEM raises MemoryError with C's message: %r" % e)
e = raised(lambda: dab._raise(4, dab._Err()))
check(isinstance(e, OSError) and str(e) == "i/o error" and e.errno is None,
      "an empty C message becomes the code's name: %r" % e)
e = pickle.loads(pickle.dumps(dab.DabCorruptError(5, "bad block")))
check(type(e) is dab.DabCorruptError and e.status == 5 and str(e) == "bad block", "exceptions pickle")

# Provoked through the library.
tmp = tempfile.mkdtemp(prefix="dab-test-errors-")
try:
    o = dab.Oracle("2x2")
    check_raises(lambda: o.value("2x2@99"), dab.DabInputError, ValueError, 1, "a line beyond the board")
    check_raises(lambda: o.value("3x3"), dab.DabInputError, ValueError, 1, "text of another board")
    e = raised(lambda: o.value(None))
    check(type(e) is TypeError and "position" in str(e), "a position of the wrong type: TypeError: %r" % e)
    e = raised(lambda: o.value(1.5))
    check(type(e) is TypeError, "a float is not a line set: %r" % e)
    o.close()
    check_raises(lambda: o.value(0), dab.DabInputError, ValueError, 1, "a closed oracle")
    check_raises(lambda: dab.Oracle("big"), dab.DabInputError, ValueError, 1, "a board that is not RxC")
    check_raises(lambda: dab.Oracle("9x9"), dab.DabBoardError, ValueError, 2, "a board past 64 lines")
    check_raises(lambda: dab.Game(9, 9), dab.DabBoardError, ValueError, 2, "dab.Game past 64 lines")
    check_raises(lambda: dab.Game(2, 2, utility="points"), dab.DabInputError, ValueError, 1, "an unknown utility")
    check_raises(lambda: dab.Game(2, 2).new_initial_state().apply_action(99), dab.DabInputError, ValueError, 1,
                 "an illegal action")
    check_raises(lambda: dab.build("three", os.path.join(tmp, "x.dab")), dab.DabInputError, ValueError, 1,
                 "build of a board that is not RxC")
    check_raises(lambda: dab.Tablebase(os.path.join(tmp, "2x2.dab")), dab.DabInputError, ValueError, 1,
                 "a file name that names no file")
    os.environ["DAB_TB_NO_PROJECT"] = "1"       # no cache, no data/tb/: only the directory given
    check_raises(lambda: dab.Tablebase("2x2", tb_dir=os.path.join(tmp, "none")), dab.DabIOError, OSError, 4,
                 "no directory to build a table in")
    path = os.path.join(tmp, "2x2.dab")
    dab.build("2x2", path)
    data, kinds = bytearray(open(path, "rb").read()), set()
    for off in range(0, 4096, 7):               # the header and the first blocks
        d = bytearray(data)
        d[off] ^= 0xff
        with open(path, "wb") as f:
            f.write(d)
        e = raised(lambda: dab.Tablebase(path).check())
        kinds.add(type(e).__name__ if e is None or isinstance(e, dab.DabError) else "not DabError")
    check("DabCorruptError" in kinds and "not DabError" not in kinds,
          "a damaged file raises DabCorruptError (%s)" % sorted(kinds))
    # A tablebase cut short is damaged, not bad input: DabCorruptError.
    dab.build("2x2", path)
    whole = open(path, "rb").read()
    for cut in (100, 5000, len(whole) // 2):
        with open(path, "wb") as f:
            f.write(whole[:cut])
        check_raises(lambda: dab.Tablebase(path), dab.DabCorruptError, None, 5, "a table cut to %d bytes" % cut)

    # Batches past a damaged block: on_error="mask" answers every other
    # position, masks the damaged ones and warns once; "raise" raises.
    import warnings
    import numpy as np
    good_path, bad_dir = os.path.join(tmp, "good33.dab"), os.path.join(tmp, "bad33")
    os.mkdir(bad_dir)
    dab.build("3x3", good_path)
    d = bytearray(open(good_path, "rb").read())
    offs, at = [], 0
    while True:
        at = d.find(b"DBK1", at)
        if at < 0:
            break
        offs.append(at)
        at += 4
    big = [o for o in offs if o % 4096 == 16]   # the biggest block record, in overflow pages
    o = max(big, key=lambda o: min([x for x in offs if x > o] + [len(d)]) - o)
    d[o + 100] ^= 0x5A
    bad_path = os.path.join(bad_dir, "3x3.dab")
    with open(bad_path, "wb") as f:
        f.write(d)
    rng = np.random.default_rng(7)
    pos = (rng.integers(0, 2, size=(2000, 24)) << np.arange(24)).sum(axis=1).astype(np.uint64)
    want = dab.Tablebase(good_path).values(pos)
    for name, make in (("Tablebase", lambda: dab.Tablebase(bad_path)),
                       ("Oracle", lambda: dab.Oracle("3x3", tb_dir=bad_dir, read_only=True))):
        h = make()
        check_raises(lambda: h.values(pos), dab.DabCorruptError, None, 5, "%s.values on a damaged block" % name)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            got = h.values(pos, on_error="mask")
        nbad = int(np.ma.count_masked(got))
        check(isinstance(got, np.ma.MaskedArray) and 1 <= nbad < len(pos) // 2,
              "%s.values(on_error='mask'): %d of %d masked" % (name, nbad, len(pos)))
        check(np.array_equal(got.compressed(), want[~np.ma.getmaskarray(got)]),
              "%s.values(on_error='mask'): every answer equals the intact table's" % name)
        check(len(seen) == 1 and "block" in str(seen[0].message),
              "%s.values(on_error='mask'): one warning naming the block (%d)" % (name, len(seen)))
        e = raised(lambda: h.values(pos, on_error="skip"))
        check(isinstance(e, ValueError), "%s.values: an unknown on_error is a ValueError" % name)
        h.close()
    s44 = dab.Oracle("4x4", search=True, node_limit=1000, hash_mb=16)
    check_raises(lambda: s44.value("4x4"), dab.DabCanceledError, None, 6, "a node limit")
    s44.close()

    class _Short(ctypes.Structure):
        _fields_ = [("msg", ctypes.c_char * 8)]
    check_raises(lambda: dab._check_abi(dab._load(), [(_Short, "dab_err")]), dab.DabInternalError, None, 7,
                 "a struct that differs from the library's")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

report("test_errors.py")
