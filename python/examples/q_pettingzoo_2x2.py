#!/usr/bin/env python3
"""Tabular Q-learning through dab's PettingZoo API on 2x2 Dots-and-Boxes,
graded by the exact labels.

Training is self-play: both agents share one table.  With reward="boxes"
an agent's reward for a move is the boxes it completed, so the value of a
move is its reward plus the value of the next position to whoever moves
there: the same player after a box (+), the opponent otherwise (-).  The
table is keyed on the drawn lines only (planes 0 and 1 of layout="planes"),
up to the 8 symmetries of the square: under optimal play the boxes still
to be won depend on nothing else.  Episodes start from random positions
(exploring starts), and each episode's updates are made at its end, last
move first, so that a move's target uses values just updated after it.

Grading: every position of 2x2 with a move left (all 4095 line sets) is set
up through reset(options={"position": ...}) of an environment with
exact_labels=True; the greedy move counts as optimal where
infos[agent]["optimal"] marks it.  Printed: the fraction over all
positions, and over the positions the greedy policy can meet (playing
either side against any opponent).

    .venv/bin/python python/examples/q_pettingzoo_2x2.py [--episodes N] [--seed S]
"""
import argparse
import os
import sys
import time
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import dab                                       # noqa: E402
from dab.pettingzoo import env as dab_env        # noqa: E402

N = 2                                            # the board: N x N boxes
GAME = dab.Game(N, N)
NH = (N + 1) * N                                 # horizontal lines come first


def _line_ends(m):
    """Line m as its two dots (row, col) (OpenSpiel's numbering)."""
    if m < NH:
        r, c = divmod(m, N)
        return frozenset({(r, c), (r, c + 1)})
    r, c = divmod(m - NH, N + 1)
    return frozenset({(r, c), (r + 1, c)})


def _symmetries():
    """The 8 symmetries of the square as permutations of the lines."""
    ends = {_line_ends(m): m for m in range(GAME.nlines)}
    maps = [lambda r, c: (r, c), lambda r, c: (c, N - r), lambda r, c: (N - r, N - c),
            lambda r, c: (N - c, r), lambda r, c: (r, N - c), lambda r, c: (N - r, c),
            lambda r, c: (c, r), lambda r, c: (N - c, N - r)]
    return [[ends[frozenset(f(*d) for d in _line_ends(m))] for m in range(GAME.nlines)] for f in maps]


SYMS = _symmetries()
# planes layout: h(r,c) at plane 0 [r][c], v(r,c) at plane 1 [r][c] ([4, N+1, N+1])
LINE_AT = [(0, m // N, m % N) if m < NH else (1, (m - NH) // (N + 1), (m - NH) % (N + 1))
           for m in range(GAME.nlines)]


def lines_of(obs):
    t = obs["observation"]
    return [m for m, (p, r, c) in enumerate(LINE_AT) if t[p, r, c]]


def canonical(obs):
    """(key, perm): the smallest line set among the symmetric images and
    the permutation that makes it (line m -> perm[m])."""
    drawn = lines_of(obs)
    return min((sum(1 << p[m] for m in drawn), tuple(p)) for p in SYMS)


def greedy(q, obs):
    k, perm = canonical(obs)
    legal = np.flatnonzero(obs["action_mask"])
    row = q[k]
    return int(max(legal, key=lambda a: row[perm[a]]))


def random_start(rng):
    """Exploring starts: a position after a random number of random moves."""
    s = GAME.new_initial_state()
    for _ in range(rng.integers(GAME.nlines)):
        s.apply_action(int(rng.choice(s.legal_actions())))
    return s


def train(episodes, seed, eps=0.8):
    rng = np.random.default_rng(seed)
    e = dab_env(rows=N, cols=N, layout="planes", reward="boxes")
    q = defaultdict(lambda: np.zeros(GAME.nlines))
    for ep in range(episodes):
        e.reset(seed=seed + ep, options={"position": random_start(rng)})
        moves = []                                   # (obs, action, reward, same mover, next obs)
        for agent in e.agent_iter():
            obs, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            a = int(legal[rng.integers(len(legal))]) if rng.random() < eps else greedy(q, obs)
            e.step(a)
            r = e.rewards[agent]                     # boxes this move completed
            nxt = None if e.terminations[agent] else e.observe(e.agent_selection)
            moves.append((obs, a, r, e.agent_selection == agent, nxt))
        for obs, a, r, same, nxt in reversed(moves):  # alpha = 1: the game is deterministic
            target = r
            if nxt is not None:
                k2, p2 = canonical(nxt)
                best = max(q[k2][p2[b]] for b in np.flatnonzero(nxt["action_mask"]))
                target = r + best if same else r - best
            k, perm = canonical(obs)
            q[k][perm[a]] = target
    e.close()
    return q


def grade(q):
    """{lines: greedy move optimal?} over every position with a move left."""
    e = dab_env(rows=N, cols=N, layout="planes", exact_labels=True)
    out = {}
    for lines in range(GAME.all_lines):
        s = dab.State(GAME, lines, 0, 0, (bin(GAME.completed(lines)).count("1"), 0), 0)
        e.reset(options={"position": s})
        obs, _, _, _, info = e.last()
        out[lines] = bool(info["optimal"][greedy(q, obs)])
    e.close()
    return out


def met(q):
    """The positions (line sets) where the greedy policy moves when it plays
    either side against every possible opponent."""
    seen, stack = set(), []
    for me in (0, 1):
        stack.append((GAME.new_initial_state(), me))
        while stack:
            s, me_ = stack.pop()
            if s.is_terminal():
                continue
            if s.player == me_:
                seen.add(s.lines)
                e_obs = {"observation": s.observation_tensor(layout="planes").reshape(4, N + 1, N + 1),
                         "action_mask": np.array(s.legal_actions_mask(), dtype=np.int8)}
                stack.append((s.child(greedy(q, e_obs)), me_))
            else:
                stack.extend((s.child(a), me_) for a in s.legal_actions())
    return seen


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--episodes", type=int, default=6000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    t = time.time()
    q = train(args.episodes, args.seed)
    t_train = time.time() - t
    ok = grade(q)
    reach = met(q)
    all_frac = sum(ok.values()) / len(ok)
    met_frac = sum(ok[x] for x in reach) / len(reach)
    print("trained %d self-play episodes in %.1f s; %d positions (up to symmetry) in the table"
          % (args.episodes, t_train, len(q)))
    print("greedy policy optimal in %d of %d positions: %.3f" % (sum(ok.values()), len(ok), all_frac))
    print("... in %d of the %d positions it meets (either side, any opponent): %.3f"
          % (sum(ok[x] for x in reach), len(reach), met_frac))
    return all_frac, met_frac


if __name__ == "__main__":
    main()
