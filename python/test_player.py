"""test_player.py: dab.Player for built-in specs and a trained q:FILE model.

Run with /usr/bin/python3 (tests/run.sh does).  Ends with the line
"test_player.py: N passed, M failed".
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DAB_TB_NO_PROJECT", "1")
import dab  # noqa: E402

from checks import check, report  # noqa: E402


def play(game, players):
    """One game between players[0] and players[1]; returns (actions, state)
    or raises on an illegal move."""
    s = game.new_initial_state()
    acts = []
    while not s.is_terminal():
        a = players[s.current_player()].move(s)
        if a not in s.legal_actions():
            raise AssertionError("illegal move %d by %s" % (a, players[s.current_player()].name))
        s.apply_action(a)
        acts.append(a)
    return acts, s


root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
dab_bin = os.environ.get("DAB_BIN", os.path.join(root, "bin", "dab"))
tmp = tempfile.mkdtemp(prefix="dab-test-player-")
try:
    g = dab.Game(2, 3)
    for spec in ("random", "level1", "level2", "chain", "mcts:sims=40", "mcts-os:sims=40", "ab:depth=3",
                 "perfect", "sw:2x2"):
        try:
            p = dab.Player(spec, g, seed=3)
            r = dab.Player("random", "2x3", seed=4)
            ok = all(play(g, (p, r) if k % 2 else (r, p))[1].is_terminal() for k in range(4))
            check(ok, "%s plays legal moves through whole games" % spec)
        except (dab.DabError, AssertionError) as e:
            check(False, "%s: %s" % (spec, e))

    # perfect plays only optimal moves; the same seed gives the same game
    perf = dab.Player("perfect", (2, 3), seed=1)
    s = g.new_initial_state()
    bad = 0
    while not s.is_terminal():
        a = perf.move(s)
        bad += a not in s.best_moves()
        s.apply_action(a)
    check(bad == 0, "perfect's every move is among best_moves()")
    a1 = play(g, (dab.Player("mcts:sims=30", g, seed=9), dab.Player("random", g, seed=2)))[0]
    a2 = play(g, (dab.Player("mcts:sims=30", g, seed=9), dab.Player("random", g, seed=2)))[0]
    check(a1 == a2, "one seed, one game")
    check(dab.Player("chain", "3x3").name.startswith("chain"), "name is the canonical spec")

    # a bare position, and errors
    c = dab.Player("chain", "2x2")
    check(c.move_lines(0b111111111110, (0, 0), 1) == 0, "the one undrawn line")
    for bad_args, status in ((("no-such-player", "2x2"), 1), (("mcts:sims=x", "2x2"), 1),
                             (("q:" + os.path.join(tmp, "missing.model"), "2x2"), None)):
        try:
            dab.Player(*bad_args)
            check(False, "%s refused" % bad_args[0])
        except dab.DabError as e:
            check(status is None or e.status == status, "%s refused: %s" % (bad_args[0], e))
    try:
        c.move(dab.Game(3, 3).new_initial_state())
        check(False, "a state of another board is refused")
    except dab.DabError:
        check(True, "a state of another board is refused")

    # A trained agent: tabular Q on 2x2, trained here, then a spec.
    model = os.path.join(tmp, "q.model")
    out = subprocess.run([dab_bin, "train", "q", "--board", "2x2", "--games", "20000", "--grade-games", "20",
                          "--seed", "1", "--out", model], capture_output=True, text=True)
    check(out.returncode == 0 and os.path.isfile(model), "dab train q wrote a model (%s)" % out.stderr[-200:])
    g22 = dab.Game(2, 2)
    q = dab.Player("q:" + model, g22, seed=1)
    check(q.name.startswith("q:"), "q:FILE player named %s" % q.name)
    wins = games = 0
    opt = moves = 0
    for k in range(20):
        r = dab.Player("random", g22, seed=100 + k)
        s = g22.new_initial_state()
        qside = k % 2
        while not s.is_terminal():
            if s.current_player() == qside:
                a = q.move(s)
                opt += a in s.best_moves()
                moves += 1
            else:
                a = r.move(s)
            s.apply_action(a)
        games += 1
        wins += s.returns()[qside] > 0
    check(moves > 0 and opt / moves > 0.8, "the Q agent plays optimal moves (%d of %d)" % (opt, moves))
    check(wins >= 10, "the Q agent beats random (%d of %d games)" % (wins, games))
    try:
        dab.Player("q:" + model, "2x3")
        check(False, "a 2x2 model refused on 2x3")
    except dab.DabError as e:
        check("2x2" in str(e), "a 2x2 model refused on 2x3: %s" % e)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

report("test_player.py")
