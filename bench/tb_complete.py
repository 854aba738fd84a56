#!/usr/bin/python3
"""bench/tb_complete.py: a complete tablebase (3x5, 4x4) against exact search.

Samples N positions by uniform random play from the empty board, stopped
after a uniformly drawn number of lines in [MIN_LINES, all], and compares
the table's value of each with the searching oracle's (no table: the
oracle's own alpha-beta, DAB_TB_NO_PROJECT=1 and an empty --tb).  Every
K-th position also compares every move's value.  Prints wall time, CPU
time, peak RSS, positions compared and mismatches, and the probe rate of
the table on the same positions (the baseline beside the search rate).

Usage: /usr/bin/python3 bench/tb_complete.py FILE.dab [N [MIN_LINES [SEED]]]
       (defaults: N=10000, MIN_LINES=12, SEED=1)
"""
import os
import random
import resource
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python"))
os.environ["DAB_TB_NO_PROJECT"] = "1"
import dab  # noqa: E402


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        sys.exit(2)
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    min_lines = int(sys.argv[3]) if len(sys.argv) > 3 else 12
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    tb = dab.Tablebase(path)
    rows, cols, nl = tb.rows, tb.cols, tb.nlines
    empty = tempfile.mkdtemp(prefix="dab-tbc-")
    o = dab.Oracle("%dx%d" % (rows, cols), tb_dir=empty, search=True, hash_mb=256, threads=1)
    positions = []
    for _ in range(n):
        lines = list(range(nl))
        rng.shuffle(lines)
        k = rng.randint(min(min_lines, nl), nl)
        p = 0
        for m in lines[:k]:
            p |= 1 << m
        positions.append(p)
    t0, c0 = time.time(), time.process_time()
    bad = moves_checked = 0
    for i, p in enumerate(positions):
        if o.value(p) != tb.value(p):
            bad += 1
            print("MISMATCH value %dx%d pos 0x%x: table %d, search %d" % (rows, cols, p, tb.value(p), o.value(p)))
        if i % 20 == 0:
            moves_checked += 1
            if o.move_values(p) != tb.move_values(p):
                bad += 1
                print("MISMATCH move values %dx%d pos 0x%x" % (rows, cols, p))
        if sys.stderr.isatty() and i % 100 == 0:
            el = time.time() - t0
            print("\r%d/%d  %.0f/s  ETA %.0fs " % (i, n, (i + 1) / el if el else 0,
                                                  (n - i) * el / (i + 1)), end="", file=sys.stderr)
    wall, cpu = time.time() - t0, time.process_time() - c0
    t1 = time.time()
    for p in positions:
        tb.value(p)
    probe_s = time.time() - t1
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print("board %dx%d  positions %d (lines %d..%d)  move vectors %d  mismatches %d"
          % (rows, cols, n, min_lines, nl, moves_checked, bad))
    print("search+table: wall %.1f s  cpu %.1f s  peak RSS %.0f MB" % (wall, cpu, rss))
    print("table alone (baseline): %.0f probes/s from Python" % (n / probe_s if probe_s else 0))
    sys.exit(1 if bad else 0)


main()
