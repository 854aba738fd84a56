"""test_pdb.py: dab.PatternDB: probe against the oracle, errors as exceptions.

Run with /usr/bin/python3 (tests/run.sh does).  Ends with the line
"test_pdb.py: N passed, M failed".
"""
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DAB_TB_NO_PROJECT", "1")
import dab  # noqa: E402

from checks import check, report  # noqa: E402


root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "components.dabpdb")
    r = subprocess.run([os.path.join(root, "bin", "dab"), "pdb", "build", "--max-strings", "9", "-o", path],
                       capture_output=True, text=True)
    check(r.returncode == 0, "dab pdb build: " + r.stderr)
    db = dab.PatternDB(path)
    check(db.count == 2511 and db.max_strings == 9, "count %d, max %d" % (db.count, db.max_strings))
    # found beside the tables when no path is given
    db2 = dab.PatternDB(tb_dir=d)
    check(db2.count == db.count, "found by tb_dir")
    db2.close()
    # every covered random 3x3 position: the probe's value equals the oracle's
    oracle = dab.Oracle("3x3")
    rng = random.Random(5)
    covered = 0
    for _ in range(400):
        lines = [m for m in range(24) if rng.random() < 0.6]
        pos = "3x3@" + ",".join(map(str, lines)) if lines else "3x3"
        p = db.probe(pos)
        if not p["covered"]:
            continue
        covered += 1
        check(p["value"] == oracle.value(pos), "%s: probe %d, oracle %d" % (pos, p["value"], oracle.value(pos)))
        check(all(c["id"] is not None and c["strings"] <= 9 for c in p["components"]), pos)
    check(covered > 50, "only %d covered positions" % covered)
    p = db.probe("3x3")
    check(not p["covered"] and p["components"][0]["id"] is None, "empty 3x3 is one uncovered component")
    for bad, exc in (("3x3@99", dab.DabError), ("7x7", dab.DabError), (42, TypeError)):
        try:
            db.probe(bad)
            check(False, "%r accepted" % (bad,))
        except exc:
            check(True, "")
    with open(os.path.join(d, "foreign.dabpdb"), "w") as f:
        f.write("not a database\n")
    try:
        dab.PatternDB(os.path.join(d, "foreign.dabpdb"))
        check(False, "a foreign file loaded")
    except dab.DabError as e:
        check(e.status == 5, "a foreign file: status %r" % (e.status,))
    # an oracle whose search uses the database agrees with one without
    o1 = dab.Oracle("3x4", tb_dir=d, search=True, pdb=True)
    o2 = dab.Oracle("3x4", tb_dir=d, search=True)
    for pos in ("3x4@0,5,12,17,20,22", "3x4@1,2,9,11,14,21,30", "3x4@3,8,13,18,24,26,27,29"):
        check(o1.move_values(pos) == o2.move_values(pos), "oracle with and without pdb: " + pos)
    db.close()
    with dab.PatternDB(path) as db3:
        check(db3.probe("2x2@0,1,2")["covered"], "context manager")

report("test_pdb.py")
