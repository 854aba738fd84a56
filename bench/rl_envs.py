#!/usr/bin/env python3
"""bench/rl_envs.py: environment steps per second of dab's PettingZoo and
Gymnasium environments (docs/python.md), with and without exact labels,
and of DabVectorEnv against gymnasium's SyncVectorEnv over DabEnv; the
baseline is OpenSpiel's dots_and_boxes (pyspiel) stepped from Python.

    .venv/bin/python bench/rl_envs.py [--seconds S] [--repeats K]

Every row plays random legal moves (drawn from the action mask) for about
S seconds (default 1), K times (default 3), and counts env.step calls
(vector rows: games stepped, num_envs per call): the median and range of
steps per wall second, and the median per CPU second of the process (the
fairer figure on a loaded machine).  A Gymnasium step includes the opponent's
replies.  5x5 with exact labels starts each game from a position with 45
of the 60 lines drawn (random moves), where the search is quick; labels of
earlier 5x5 positions can take much longer.  Prints the table, the wall
time and the peak RSS.
"""
import argparse
import os
import platform
import random
import resource
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("DAB_LIB", os.path.join(ROOT, "build", "libdab.so"))

import dab                                        # noqa: E402
import dab.gymnasium as dg                        # noqa: E402
from dab.pettingzoo import env as pz_env          # noqa: E402


def timed(seconds, run_one):
    """Calls run_one() (which returns steps) until seconds pass: (steps per
    wall second, steps per CPU second of this process)."""
    steps, t0, c0 = 0, time.perf_counter(), time.process_time()
    while True:
        steps += run_one()
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return steps / dt, steps / max(time.process_time() - c0, 1e-9)


def pyspiel_row(rows, cols, seconds, observe=False):
    """OpenSpiel's game from Python: random legal moves; observe: also the
    observation tensor as numpy and the legal-action mask each step (what
    an environment hands a learner)."""
    import pyspiel
    game = pyspiel.load_game("dots_and_boxes", {"num_rows": rows, "num_cols": cols})
    rnd = random.Random(0)

    def one():
        s, n = game.new_initial_state(), 0
        while not s.is_terminal():
            if observe:
                np.asarray(s.observation_tensor(s.current_player()), dtype=np.float32)
                np.asarray(s.legal_actions_mask(), dtype=np.int8)
            s.apply_action(rnd.choice(s.legal_actions()))
            n += 1
        return n
    return timed(seconds, one)


def start_position(game, lines_drawn, rng):
    s = game.new_initial_state()
    for _ in range(lines_drawn):
        s.apply_action(int(rng.choice(s.legal_actions())))
    return s


def pz_row(rows, cols, seconds, exact=False, start=0):
    e = pz_env(rows, cols, exact_labels=exact, node_limit=2_000_000 if rows * cols > 9 else 0)
    rng = np.random.default_rng(0)

    def one():
        opts = {"position": start_position(e.game, start, rng)} if start else None
        e.reset(seed=int(rng.integers(1 << 30)), options=opts)
        n = 0
        for _ in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(len(legal))]))
            n += 1
        return n
    return timed(seconds, one)


def gym_row(rows, cols, seconds, exact=False, start=0, opponent="random"):
    e = dg.DabEnv(rows, cols, opponent=opponent, exact_labels=exact,
                  node_limit=2_000_000 if rows * cols > 9 else 0)
    rng = np.random.default_rng(0)

    def one():
        opts = {"position": start_position(e.game, start, rng)} if start else None
        _, info = e.reset(seed=int(rng.integers(1 << 30)), options=opts)
        n, done = 0, e.state.is_terminal()
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, done, _, info = e.step(int(legal[rng.integers(len(legal))]))
            n += 1
        return n
    return timed(seconds, one)


def pick(mask, rng):
    """A uniformly random legal line per row of mask (rows without one: 0)."""
    k = np.floor(rng.random(mask.shape[0]) * mask.sum(axis=1)).astype(np.int64)
    return np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1)


def vec_row(venv, seconds):
    rng = np.random.default_rng(0)
    _, info = venv.reset(seed=0)
    n = venv.num_envs
    state = {"info": info}

    def one():
        _, _, _, _, state["info"] = venv.step(pick(state["info"]["action_mask"], rng))
        return n
    r = timed(seconds, one)
    venv.close()
    return r


def git_commit():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
    except OSError:
        return "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=1.0, help="per run of a row (default 1)")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each row (default 3)")
    ap.add_argument("--num-envs", type=int, default=256, help="vector rows (default 256)")
    args = ap.parse_args()
    S, N = args.seconds, args.num_envs
    t0 = time.perf_counter()
    rows = []

    def row(name, board, fn, *a, **kw):
        runs = []
        for _ in range(args.repeats):
            if callable(a[0]) and not isinstance(a[0], int):        # a factory: a fresh env each run
                runs.append(fn(a[0](), *a[1:], **kw))
            else:
                runs.append(fn(*a, **kw))
        wall = sorted(r[0] for r in runs)
        cpu = sorted(r[1] for r in runs)
        med = wall[len(wall) // 2]
        rows.append((name, board, med, wall[0], wall[-1], cpu[len(cpu) // 2]))
        print("  %-58s %-4s %12.0f steps/s [%.0f-%.0f], %12.0f per CPU s" % (
            name, board, med, wall[0], wall[-1], cpu[len(cpu) // 2]), flush=True)

    print("dab %s, %s, Python %s, numpy %s" % (git_commit(), platform.machine(), platform.python_version(),
                                              np.__version__))
    for (r, c) in ((3, 3), (5, 5)):
        b = "%dx%d" % (r, c)
        row("pyspiel dots_and_boxes, random moves (baseline)", b, pyspiel_row, r, c, S)
        row("pyspiel, + observation_tensor and mask each step", b, pyspiel_row, r, c, S, observe=True)
        row("PettingZoo AEC, self-play, random moves", b, pz_row, r, c, S)
        if r == 3:
            row("PettingZoo AEC, exact labels", b, pz_row, r, c, S, exact=True)
        else:
            row("PettingZoo AEC, exact labels, from 45 of 60 lines", b, pz_row, r, c, S, exact=True, start=45)
        row("Gymnasium DabEnv vs random", b, gym_row, r, c, S)
        if r == 3:
            row("Gymnasium DabEnv vs random, exact labels", b, gym_row, r, c, S, exact=True)
            row("Gymnasium DabEnv vs level2", b, gym_row, r, c, S, opponent="level2")
        else:
            row("Gymnasium DabEnv, exact labels, from 45 of 60 lines", b, gym_row, r, c, S, exact=True,
                start=45)
        sync = __import__("gymnasium").vector.SyncVectorEnv
        row("SyncVectorEnv(%d x DabEnv) vs random" % N, b, vec_row,
            lambda: sync([lambda: dg.DabEnv(r, c) for _ in range(N)]), S)
        row("DabVectorEnv(%d) vs random" % N, b, vec_row, lambda: dg.DabVectorEnv(N, r, c), S)
        if r == 3:
            row("DabVectorEnv(%d) vs random, exact labels" % N, b, vec_row,
                lambda: dg.DabVectorEnv(N, r, c, exact_labels=True), S)
            row("DabVectorEnv(%d) vs level2" % N, b, vec_row,
                lambda: dg.DabVectorEnv(N, r, c, opponent="level2"), S)
    wall = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    base = {b: cpu for name, b, _, _, _, cpu in rows if name.startswith("pyspiel dots")}
    print()
    print("| environment | board | steps/s (wall, median [min-max]) | per CPU s | vs pyspiel (CPU) |")
    print("|---|---|---:|---:|---:|")
    for name, b, med, lo, hi, cpu in rows:
        print("| %s | %s | %s [%s-%s] | %s | %.2fx |" % (name, b, "{:,.0f}".format(med), "{:,.0f}".format(lo),
                                                      "{:,.0f}".format(hi), "{:,.0f}".format(cpu),
                                                      cpu / base[b]))
    print()
    print("wall %.1f s, peak RSS %.0f MiB" % (wall, rss))


if __name__ == "__main__":
    main()
