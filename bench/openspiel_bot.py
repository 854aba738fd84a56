#!/usr/bin/env python3
"""bench/openspiel_bot.py: dab.openspiel.ExactBot against OpenSpiel's own
MCTSBot (random-rollout evaluator), the table in docs/PERFORMANCE.md
("OpenSpiel ExactBot").

  .venv/bin/python bench/openspiel_bot.py [--games N] [--sims S]

For each board (3x3 from the empty board; 4x4 and 5x5 from mid-game
positions reached by K seeded random moves, where the search is quick),
ExactBot plays N games against MCTSBot(uct_c=2, S simulations, one random
rollout), half from each side, utility_margin=true.  Per board: ExactBot's
moves/s (its step() calls, node limit given), MCTSBot's moves/s in the same
games (the baseline), the record (wins/draws/losses of ExactBot) and the
least final margin minus the exact value of the start for ExactBot's side
(>= 0 when every ExactBot move was optimal), and the process's peak RSS
so far (getrusage).  Wall time at the end.  Each board's oracle is opened before
the games (its time apart: the 3x3 tablebase is read, 4x4 and 5x5 search).
"""
import argparse
import os
import random
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import mcts  # noqa: E402

import dab.openspiel as dos  # noqa: E402

# board, random opening moves, node limit of ExactBot's searches
BOARDS = [((3, 3), 0, 0), ((4, 4), 16, 2_000_000), ((5, 5), 34, 2_000_000)]


def start_value(state, side):
    """The exact final margin for side from state under optimal play."""
    d = dos.from_pyspiel(state)
    p = d.current_player()
    v = d.score[p] - d.score[1 - p] + d.value()
    return v if p == side else -v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=4)
    ap.add_argument("--sims", type=int, default=200)
    args = ap.parse_args()
    t0 = time.time()
    rows = []
    for (r, c), opening, limit in BOARDS:
        g = pyspiel.load_game("dots_and_boxes", {"num_rows": r, "num_cols": c, "utility_margin": True})
        bot = dos.ExactBot(g, node_limit=limit, seed=1)
        t = time.perf_counter()
        bot.oracle(r, c)                       # open the board's oracle (not in the moves/s)
        topen = time.perf_counter() - t
        tb, nb, tm, nm, inexact = 0.0, 0, 0.0, 0, 0
        wdl, worst = [0, 0, 0], None
        for k in range(args.games):
            side = k % 2
            rng = random.Random(1000 * r + k // 2)
            s = g.new_initial_state()
            for _ in range(opening):
                s.apply_action(rng.choice(s.legal_actions()))
            exact = start_value(s, side)
            rs = np.random.RandomState(k)
            opp = mcts.MCTSBot(g, 2, args.sims, mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
            while not s.is_terminal():
                t = time.perf_counter()
                if s.current_player() == side:
                    a = bot.step(s)
                    tb += time.perf_counter() - t
                    nb += 1
                    inexact += not bot.last_exact
                else:
                    a = opp.step(s)
                    tm += time.perf_counter() - t
                    nm += 1
                s.apply_action(a)
            margin = s.returns()[side]
            wdl[0 if margin > 0 else 1 if margin == 0 else 2] += 1
            worst = margin - exact if worst is None else min(worst, margin - exact)
        rows.append(("%dx%d" % (r, c), opening, limit or "-", topen, nb, nb / tb, inexact, nm, nm / tm,
                     args.games, "%d/%d/%d" % tuple(wdl), worst,
                     resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
        print("done %dx%d %.1f s" % (r, c, time.time() - t0), file=sys.stderr)
    print("| board | start (moves) | node limit | oracle open | ExactBot moves | ExactBot moves/s | not proved "
          "| MCTSBot moves | MCTSBot moves/s (baseline) | games | W/D/L | min margin - exact | peak RSS |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    for row in rows:
        print("| %s | %d | %s | %.2f s | %d | %.0f | %d | %d | %.1f | %d | %s | %+d | %.0f MiB |" % row)
    print("MCTSBot: uct_c=2, %d simulations, one random rollout; wall %.1f s"
          % (args.sims, time.time() - t0))


if __name__ == "__main__":
    main()
