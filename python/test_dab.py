"""test_dab.py: the Python binding against the C library and the CLI.

Run with /usr/bin/python3 (tests/run.sh does).  Ends with the line
"test_dab.py: N passed, M failed".
"""
import ctypes
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

from checks import check, report  # noqa: E402


def check_raises(fn, status, text, what):
    """fn() must raise DabError with this status and text in its message."""
    try:
        fn()
        check(False, what + ": no error raised")
    except dab.DabError as e:
        check(e.status == status and text in str(e), "%s (%d: %s)" % (what, e.status, e))


root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
dab_bin = os.environ.get("DAB_BIN", os.path.join(root, "bin", "dab"))
tmp = tempfile.mkdtemp(prefix="dab-test-py-")
try:
    # The ABI check: every mirrored struct matches, and a struct that lost
    # or gained a field on one side only is refused before any call.
    lib = dab._load()
    check(all(dab._abi_mismatch(lib, cls, name) is None for cls, name in dab._MIRRORED),
          "every mirrored struct matches libdab.so")
    check(ctypes.sizeof(dab._Coverage) == lib.dab_abi_sizeof(b"dabtb_coverage") == 64,
          "dabtb_coverage is 64 bytes on both sides")

    class _OldCoverage(ctypes.Structure):   # the layout before `shapes`
        _fields_ = [f for f in dab._Coverage._fields_ if f[0] != "shapes"]

    class _ExtraOpts(ctypes.Structure):     # a field Python added alone
        _fields_ = dab._OracleOpts._fields_ + [("spare", ctypes.c_int)]

    class _SwappedErr(ctypes.Structure):     # right names, wrong size
        _fields_ = [("msg", ctypes.c_char * 128)]

    check_raises(lambda: dab._check_abi(lib, [(_OldCoverage, "dabtb_coverage")]), 7, "shapes",
                 "a Python struct missing a C field is refused")
    check_raises(lambda: dab._check_abi(lib, [(_ExtraOpts, "dab_oracle_opts")]), 7, "spare",
                 "a Python struct with an extra field is refused")
    check_raises(lambda: dab._check_abi(lib, [(_SwappedErr, "dab_err")]), 7, "bytes",
                 "a Python struct of the wrong size is refused")
    check_raises(lambda: dab._check_abi(lib, [(_SwappedErr, "no_such_struct")]), 7, "does not know",
                 "an unknown C struct is refused")

    # Win/draw/loss on 2x2 and 2x3 against a brute-force outcome search.
    def brute_wdl(g_lines, boxes, p, d, memo):
        left = sum(1 for b in boxes if p & b != b)
        if abs(d) > left or left == 0:
            return (d > 0) - (d < 0)
        key = (p, d)
        if key not in memo:
            best = -2
            for m in range(g_lines):
                if p >> m & 1:
                    continue
                q = p | 1 << m
                k = sum(1 for b in boxes if b >> m & 1 and q & b == b)
                r = brute_wdl(g_lines, boxes, q, d + k, memo) if k else -brute_wdl(g_lines, boxes, q, -d, memo)
                best = max(best, r)
            memo[key] = best
        return memo[key]

    def box_masks(rows, cols):
        nh = (rows + 1) * cols
        return [(1 << (r * cols + c)) | (1 << ((r + 1) * cols + c)) | (1 << (nh + r * (cols + 1) + c))
                | (1 << (nh + r * (cols + 1) + c + 1)) for r in range(rows) for c in range(cols)]

    names = {1: "win", 0: "draw", -1: "loss"}
    for rows, cols, count in ((2, 2, 400), (2, 3, 60)):
        nl = rows * (cols + 1) + (rows + 1) * cols
        boxes, memo, bad = box_masks(rows, cols), {}, 0
        rng0 = random.Random(rows * 10 + cols)
        with dab.Oracle("%dx%d" % (rows, cols)) as o:
            for _ in range(count):
                p = rng0.getrandbits(nl) & rng0.getrandbits(nl)
                d = rng0.randint(-rows * cols, rows * cols)
                want = brute_wdl(nl, boxes, p, d, memo)
                keep = []
                for m in range(nl):
                    if not p >> m & 1:
                        q = p | 1 << m
                        k = sum(1 for b in boxes if b >> m & 1 and q & b == b)
                        r = brute_wdl(nl, boxes, q, d + k, memo) if k else -brute_wdl(nl, boxes, q, -d, memo)
                        if r == want:
                            keep.append(m)
                bad += o.result(p, d) != (names[want], keep)
                bad += dab._Answers.result(o, p, d) != (names[want], keep)
        check(bad == 0, "%dx%d: Oracle.result equals a brute-force outcome search (%d differ)"
              % (rows, cols, bad))
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
    check_raises(lambda: tb.value("2x2"), 1, "2x2", "wrong board")
    check_raises(lambda: tb.values(np.array([1 << 30], dtype=np.uint64)), 1, "",
                 "line beyond the board")
    check_raises(lambda: dab.Tablebase(os.path.join(tmp, "missing.dab")), 1, "missing.dab",
                 "missing file")
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

    # Oracle: a table where one covers the board, else (search=True) exact
    # search, checked against a 2x5 tablebase.
    os.environ["DAB_TB_NO_PROJECT"] = "1"   # the user's own data/tb/ stays out
    del os.environ["DAB_TB_PATH"]
    tbdir, empty = os.path.join(tmp, "tb25"), os.path.join(tmp, "empty")
    os.mkdir(tbdir)
    os.mkdir(empty)
    dab.build("2x5", os.path.join(tbdir, "2x5.dab"))
    with dab.Tablebase(os.path.join(tbdir, "2x5.dab")) as t25, \
            dab.Oracle("2x5", tb_dir=tbdir) as by_table, \
            dab.Oracle("2x5", tb_dir=empty, search=True, hash_mb=64, threads=1) as by_search:
        check(by_table.source == "tablebase" and by_search.source == "search",
              "oracle sources: %s, %s" % (by_table.source, by_search.source))
        pos = [rng.getrandbits(27) & rng.getrandbits(27) for _ in range(800)]
        check(all(by_search.value(p) == t25.value(p) == by_table.value(p) for p in pos),
              "searched 2x5 values equal the tablebase's")
        check(all(by_search.move_values(p) == t25.move_values(p) for p in pos[:60] + [0]),
              "searched 2x5 move values equal the tablebase's")
        check(by_search.analyze("2x5@0,1") == t25.analyze("2x5@0,1"), "analyze() through search")
        arr25 = np.array(pos[:200], dtype=np.uint64)
        bits25 = ((arr25[:, None] >> np.arange(27, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)
        check(list(by_search.values(bits25)) == list(t25.values(arr25)),
              "Oracle.values() of 0/1 rows equals the tablebase's batch")
        check_raises(lambda: by_search.value("3x3"), 1, "3x3", "another board's text")
    check_raises(lambda: dab.Oracle("4x4", tb_dir=empty), 2, "search", "4x4 without search")
    with dab.Oracle("4x4", tb_dir=empty, search=True, hash_mb=64, node_limit=200000) as o44:
        check_raises(lambda: o44.value(0), 6, "node limit", "the empty 4x4 board under a node limit")
        late = "4x4:" + "1" * 26 + "0" * 14
        check(o44.best_moves(late) and set(o44.best_moves(late)) <= set(range(26, 40)),
              "a late 4x4 position answers within the limit")
        want = o44.value(late)
    # hash_mb left out: the table is sized by the query (14 free lines), not
    # the 512 MiB a fixed hash_mb=512 allocates and zeroes.
    def rss_mib():
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:")) / 1024
    rss0 = rss_mib()
    with dab.Oracle("4x4", tb_dir=empty, search=True) as sized:
        check(sized.value(late) == want, "a query-sized oracle answers as a 64 MiB one")
        grown = rss_mib() - rss0
        check(grown < 256, "a query-sized search table stays small (%.0f MiB, want < 256)" % grown)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

report("test_dab.py")
