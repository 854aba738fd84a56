"""test_dab.py: the Python binding against the C library and the CLI.

Run with /usr/bin/python3 (tests/run.sh does).  Ends with the line
"test_dab.py: N passed, M failed".
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import dab  # noqa: E402

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what, file=sys.stderr)


root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
dab_bin = os.environ.get("DAB_BIN", os.path.join(root, "bin", "dab"))
tmp = tempfile.mkdtemp(prefix="dab-test-py-")
try:
    path = os.path.join(tmp, "3x3.dab")
    dab.build("3x3", path)
    tb = dab.Tablebase(path)
    check((tb.rows, tb.cols, tb.nlines) == (3, 3, 24), "geometry")
    check(tb.value("3x3") == -3, "3x3 empty board is -3 (known value)")
    mv = tb.move_values("3x3")
    check(sorted(mv) == list(range(24)) and set(mv.values()) == {-3}, "3x3 first moves all -3")
    check(tb.best_moves(0) == list(range(24)), "best moves of the empty board")
    full = (1 << 24) - 1
    check(tb.value(full) == 0 and tb.move_values(full) == {} and tb.best_moves(full) == [],
          "full board")

    # The same values as `dab probe FILE -` (the C path, via the CLI).
    rng = random.Random(7)
    pos = [rng.getrandbits(24) for _ in range(3000)]
    texts = ["3x3:" + "".join("1" if p >> i & 1 else "0" for i in range(24)) for p in pos]
    out = subprocess.run([dab_bin, "probe", path, "-"], input="\n".join(texts) + "\n",
                         capture_output=True, text=True, check=False)
    lines = out.stdout.splitlines()
    check(out.returncode == 0 and len(lines) == len(pos), "dab probe batch ran")
    same = all(json.loads(l)["value"] == tb.value(p) for l, p in zip(lines, pos))
    check(same, "Python values equal dab probe's")
    same_moves = all({m["move"]: m["value"] for m in json.loads(l)["moves"]} == tb.move_values(p)
                     for l, p in zip(lines[:500], pos[:500]))
    check(same_moves, "Python move values equal dab probe's")
    check(tb.value(texts[5]) == tb.value(pos[5]), "text and int positions agree")
    check(all(json.loads(l) == tb.analyze(p) for l, p in zip(lines[:300], pos[:300])),
          "analyze() equals dab probe's JSON objects")

    # numpy batches: line sets and 0/1 rows.
    arr = np.array(pos, dtype=np.uint64)
    vals = tb.values(arr)
    check(vals.dtype == np.int8 and list(vals) == [tb.value(p) for p in pos], "numpy batch")
    bits = ((arr[:, None] >> np.arange(24, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)
    check(list(tb.values(bits)) == list(vals), "numpy 0/1 rows")

    # Errors.
    try:
        tb.value("2x2")
        check(False, "wrong board raises")
    except dab.DabError as e:
        check(e.status == 1 and "2x2" in str(e), "wrong board raises DabError")
    try:
        tb.values(np.array([1 << 30], dtype=np.uint64))
        check(False, "line beyond the board raises")
    except dab.DabError as e:
        check(e.status == 1, "line beyond the board raises DabError")
    try:
        dab.Tablebase(os.path.join(tmp, "missing.dab"))
        check(False, "missing file raises")
    except dab.DabError as e:
        check("missing.dab" in str(e), "missing file raises DabError")
    tb.check()
    check(True, "check passes")
    tb.close()

    # A damaged block is reported, never a wrong value.
    data = bytearray(open(path, "rb").read())
    bad = os.path.join(tmp, "bad.dab")
    wrong = reported = 0
    for trial in range(30):
        d = bytearray(data)
        off = rng.randrange(len(d))
        d[off] ^= rng.randrange(1, 256)
        open(bad, "wb").write(d)
        try:
            t = dab.Tablebase(bad)
            got = t.values(arr)
            wrong += int(list(got) != list(vals))
            t.close()
        except dab.DabError:
            reported += 1
    check(wrong == 0, "no corrupted copy returned a wrong value (%d reported)" % reported)

    # The search path: a board name finds the file.
    os.environ["DAB_TB_PATH"] = tmp
    with dab.Tablebase("3x3") as t2:
        check(t2.value(7) == t2.value("3x3@0,1,2") and t2.value(0) == -3,
              "board name via DAB_TB_PATH")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print("test_dab.py: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
