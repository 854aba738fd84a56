#!/usr/bin/python3
"""bench/oracle_search.py: what a query to a searching oracle costs (Python
dab.Oracle, search=True), the figures in docs/python-oracle.md and the
one-thread threshold in docs/solver.md.

  /usr/bin/python3 bench/oracle_search.py [moves|threads|all]

moves:   move_values() of 4x4 positions reached by K random quiet moves (no
         box given away yet: the hardest middle games), one thread; median
         and max over 8 positions for each K.
threads: mean value() time of random 4x4 line subsets with F free lines,
         on one thread and on all cores.
Prints wall time and peak RSS at the end.  Run on a quiet machine.
"""
import os
import random
import resource
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
os.environ["DAB_TB_NO_PROJECT"] = "1"   # no stored results: every query searches
import dab  # noqa: E402

R = C = 4
NLINES = R * (C + 1) + (R + 1) * C


def box_lines(b):
    r, c = divmod(b, C)
    return [r * C + c, (r + 1) * C + c, (R + 1) * C + r * (C + 1) + c, (R + 1) * C + r * (C + 1) + c + 1]


BOXES_OF = [[b for b in range(R * C) if m in box_lines(b)] for m in range(NLINES)]


def sides(p, b):
    return sum(p >> m & 1 for m in box_lines(b))


def quiet_position(rng, moves):
    """K random lines that never give a box its third side."""
    p = 0
    for _ in range(moves):
        safe = [m for m in range(NLINES)
                if not p >> m & 1 and all(sides(p, b) < 2 for b in BOXES_OF[m])]
        if not safe:
            break
        p |= 1 << rng.choice(safe)
    return p


def bench_moves():
    o = dab.Oracle("4x4", search=True, hash_mb=512, threads=1)
    rng = random.Random(5)
    print("quiet moves played | median s | max s   (move_values, 4x4, one thread, 8 positions)")
    for k in (16, 14, 12, 10, 8):
        ts = []
        for _ in range(8):
            p = quiet_position(rng, k)
            t = time.perf_counter()
            o.move_values(p)
            ts.append(time.perf_counter() - t)
        print("%18d | %8.4f | %.4f" % (k, statistics.median(ts), max(ts)), flush=True)
    o.close()


def bench_threads():
    print("free lines | one thread us | all cores us   (value, 4x4 random line subsets)")
    for free in (18, 22, 24, 26):
        res = []
        for threads in (1, 0):
            o = dab.Oracle("4x4", search=True, hash_mb=256, threads=threads)
            rng = random.Random(free)
            n = 200 if free < 26 else 60
            t = time.perf_counter()
            for _ in range(n):
                p = 0
                for m in rng.sample(range(NLINES), NLINES - free):
                    p |= 1 << m
                o.value(p)
            res.append((time.perf_counter() - t) / n * 1e6)
            o.close()
        print("%10d | %13.0f | %.0f" % (free, res[0], res[1]), flush=True)


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    if what not in ("moves", "threads", "all"):
        sys.exit("usage: bench/oracle_search.py [moves|threads|all]")
    t0 = time.time()
    if what in ("moves", "all"):
        bench_moves()
    if what in ("threads", "all"):
        bench_threads()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("wall %.1f s, peak RSS %.0f MiB" % (time.time() - t0, rss))


if __name__ == "__main__":
    main()
