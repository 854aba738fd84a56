"""test_readonly.py: read-only handles: Oracle(read_only=True),
Tablebase(read_only=True) and Game(read_only=True) never create a file,
while another handle of the same process may; DAB_READONLY=1 and
dab.set_readonly stay the process-wide default.

Run with /usr/bin/python3 (tests/run.sh does).  Ends with the line
"test_readonly.py: N passed, M failed".
"""
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
os.environ["DAB_TB_NO_PROJECT"] = "1"     # only the directories given: no cache, no data/tb/
os.environ.pop("DAB_TB_PATH", None)
os.environ.pop("DAB_READONLY", None)
import dab  # noqa: E402

from checks import check, report  # noqa: E402


def raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return e
    return None


tmp = tempfile.mkdtemp(prefix="dab-test-ro-")
try:
    d = os.path.join(tmp, "a")
    os.mkdir(d)
    # Read-only handles write nothing...
    e = raised(lambda: dab.Tablebase("2x2", tb_dir=d, read_only=True))
    check(isinstance(e, dab.DabIOError) and "read-only handle" in str(e) and os.listdir(d) == [],
          "a read-only Tablebase does not build 2x2.dab: %r, %s" % (e, os.listdir(d)))
    ro = dab.Oracle("2x2", tb_dir=d, read_only=True)
    check(ro.source == "memory" and ro.read_only and os.listdir(d) == [],
          "a read-only 2x2 Oracle solves in memory (%s, %s)" % (ro.source, os.listdir(d)))
    s = dab.Game(2, 2, tb_dir=d, read_only=True).new_initial_state()
    check(s.value() == ro.value(0) and os.listdir(d) == [], "a read-only Game labels and writes nothing")
    check("DAB_READONLY" not in os.environ and not dab.readonly(), "the environment is left alone")
    # No oracle writes a small board's table (it is solved in memory in
    # milliseconds); a Tablebase that may write builds the file it needs.
    rw = dab.Oracle("2x2", tb_dir=d)
    check(rw.source == "memory" and not rw.read_only and os.listdir(d) == [],
          "a writing 2x2 Oracle solves in memory and writes nothing (%s, %s)" % (rw.source, os.listdir(d)))
    check(rw.value(0) == ro.value(0) and rw.move_values(0) == ro.move_values(0), "both agree")
    built = dab.Tablebase("2x2", tb_dir=d)
    check(not built.read_only and os.listdir(d) == ["2x2.dab"],
          "a Tablebase beside them builds 2x2.dab, and no lock file (%s)" % os.listdir(d))
    tb = dab.Tablebase("2x2", tb_dir=d, read_only=True)
    check(tb.read_only and tb.value(0) == ro.value(0), "a read-only Tablebase opens the file that exists")
    for h in (ro, rw, built, tb):
        h.close()

    # readonly= is read_only's deprecated name, for this handle only.
    d2 = os.path.join(tmp, "b")
    os.mkdir(d2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        o = dab.Oracle("2x2", tb_dir=d2, readonly=True)
    check(any(issubclass(x.category, DeprecationWarning) for x in w) and o.read_only
          and o.source == "memory" and os.listdir(d2) == [] and "DAB_READONLY" not in os.environ,
          "readonly=True warns, makes the handle read-only, leaves the environment alone")
    o.close()

    # The process-wide default: set_readonly and DAB_READONLY=1.
    dab.set_readonly(True)
    o = dab.Oracle("2x2", tb_dir=d2)
    check(dab.readonly() and o.source == "memory" and os.listdir(d2) == [],
          "set_readonly(True): a handle that does not say is read-only")
    o.close()
    dab.set_readonly(False)
    check(not dab.readonly(), "set_readonly(False)")
    code = ("import dab, os, sys; d = sys.argv[1]; o = dab.Oracle('2x2', tb_dir=d)\n"
            "try:\n    dab.Tablebase('2x2', tb_dir=d); e = None\n"
            "except dab.DabIOError as x:\n    e = str(x)\n"
            "print(dab.readonly(), o.source, 'DAB_READONLY' in (e or ''), len(os.listdir(d)))")
    env = dict(os.environ, DAB_READONLY="1", PYTHONPATH=here)
    r = subprocess.run([sys.executable, "-c", code, d2], capture_output=True, text=True, env=env, timeout=120)
    check(r.stdout.split() == ["True", "memory", "True", "0"],
          "DAB_READONLY=1 is the default of every handle: %s %s" % (r.stdout, r.stderr[-300:]))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

report("test_readonly.py")
