"""python_batch.py: states stepped per second and labels per second from
Python: dab.States (numpy arrays stepped and labelled in C, capi/vec.h)
against a plain Python implementation of the rules and a Python loop of
one oracle call per position.

usage: /usr/bin/python3 bench/python_batch.py [--board 3x3] [--n 20000] [--seed 1]

Prints one line per measurement and, at the end, wall time and peak RSS.
Everything runs on one thread.  The oracle of 3x3 is the in-memory
retrograde table (DAB_TB_NO_PROJECT=1, read-only: no file is touched).
"""
import argparse
import os
import random
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
os.environ["DAB_TB_NO_PROJECT"] = "1"
os.environ["DAB_READONLY"] = "1"
import numpy as np  # noqa: E402
import dab  # noqa: E402


class PlainState:
    """The rules in plain Python, as a learner would first write them: a
    list of 0/1 per line, boxes checked by their four lines."""

    def __init__(self, rows, cols):
        self.R, self.C = rows, cols
        self.nh = (rows + 1) * cols
        self.n = self.nh + rows * (cols + 1)
        self.drawn = [0] * self.n
        self.owner = [-1] * (rows * cols)
        self.score = [0, 0]
        self.player = 0

    def box_lines(self, r, c):
        C, nh = self.C, self.nh
        return (r * C + c, (r + 1) * C + c, nh + r * (C + 1) + c, nh + r * (C + 1) + c + 1)

    def legal(self):
        return [m for m in range(self.n) if not self.drawn[m]]

    def play(self, m):
        self.drawn[m] = 1
        got = 0
        for r in range(self.R):
            for c in range(self.C):
                b = r * self.C + c
                if self.owner[b] < 0 and all(self.drawn[x] for x in self.box_lines(r, c)):
                    self.owner[b] = self.player
                    got += 1
        self.score[self.player] += got
        if not got:
            self.player = 1 - self.player

    def over(self):
        return all(self.drawn)


def rate(count, seconds):
    return count / seconds if seconds > 0 else float("inf")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--board", default="3x3")
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rows, cols = (int(x) for x in a.board.split("x"))
    t_all = time.perf_counter()
    game = dab.Game(rows, cols)
    L = game.nlines

    # 1. Stepping: n random games to the end.
    t = time.perf_counter()
    b = game.new_states(a.n)
    steps = 0
    k = 0
    while True:
        acts = b.random_actions(a.seed * 1000 + k)
        live = int((acts >= 0).sum())
        if not live:
            break
        b.apply_actions(acts)
        steps += live
        k += 1
    t_c = time.perf_counter() - t
    print("dab.States (C batch)      %9d steps %7.3f s  %12.0f states stepped/s" % (steps, t_c, rate(steps, t_c)))

    # the same with the tensor of every state after each step (a training loop)
    t = time.perf_counter()
    b2 = game.new_states(a.n)
    k = steps2 = 0
    while True:
        acts = b2.random_actions(a.seed * 1000 + k)
        live = int((acts >= 0).sum())
        if not live:
            break
        b2.apply_actions(acts)
        b2.observation_tensor()
        steps2 += live
        k += 1
    t_ct = time.perf_counter() - t
    print("dab.States + tensors      %9d steps %7.3f s  %12.0f states stepped/s" % (steps2, t_ct, rate(steps2, t_ct)))

    rng = random.Random(a.seed)
    n_py = max(200, a.n // 20)
    t = time.perf_counter()
    steps_s = 0
    for _ in range(n_py):
        s = game.new_initial_state()
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
            steps_s += 1
    t_s = time.perf_counter() - t
    print("dab.State (one at a time) %9d steps %7.3f s  %12.0f states stepped/s" % (steps_s, t_s, rate(steps_s, t_s)))

    t = time.perf_counter()
    steps_p = 0
    for _ in range(n_py):
        s = PlainState(rows, cols)
        while not s.over():
            s.play(rng.choice(s.legal()))
            steps_p += 1
    t_p = time.perf_counter() - t
    print("plain Python rules        %9d steps %7.3f s  %12.0f states stepped/s" % (steps_p, t_p, rate(steps_p, t_p)))

    # 2. Labels: exact values of n random positions.
    pos = np.random.default_rng(a.seed).integers(0, 1 << L, size=a.n, dtype=np.uint64)
    lb = game.new_states(a.n)
    lb.lines[:] = pos
    o = game.oracle()
    o.value(0)
    t = time.perf_counter()
    lab = lb.values()
    t_v = time.perf_counter() - t
    print("States.values (C loop)    %9d labels %6.3f s  %12.0f labels/s  (oracle: %s)"
          % (a.n, t_v, rate(a.n, t_v), o.source))
    t = time.perf_counter()
    loop = [o.value(int(p)) for p in pos]
    t_l = time.perf_counter() - t
    print("Python loop of Oracle.value %7d labels %6.3f s  %12.0f labels/s" % (a.n, t_l, rate(a.n, t_l)))
    assert list(lab.value) == loop, "batch and loop labels differ"

    nm = a.n // 4
    t = time.perf_counter()
    mv, _ = lb.__class__.from_states([lb.state(i) for i in range(nm)]).move_values()
    t_mv = time.perf_counter() - t
    t = time.perf_counter()
    loopm = [o.move_values(int(p)) for p in pos[:nm]]
    t_ml = time.perf_counter() - t
    print("States.move_values        %9d states %6.3f s  %12.0f states/s (incl. from_states)" % (nm, t_mv, rate(nm, t_mv)))
    print("Python loop of move_values %8d states %6.3f s  %12.0f states/s" % (nm, t_ml, rate(nm, t_ml)))
    assert all(mv[i][m] == v for i in range(0, nm, 97) for m, v in loopm[i].items())

    wall = time.perf_counter() - t_all
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("board %s n %d  wall %.2f s  peak RSS %.0f MiB" % (a.board, a.n, wall, rss))
    print("speedup stepping (C batch / plain Python): %.0fx; labels (batch / loop): %.1fx"
          % (rate(steps, t_c) / rate(steps_p, t_p), rate(a.n, t_v) / rate(a.n, t_l)))


if __name__ == "__main__":
    main()
