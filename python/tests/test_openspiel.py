"""test_openspiel.py: dab beside OpenSpiel's own dots_and_boxes (pyspiel).

- Differential: random games played side by side (dab.State and pyspiel's
  state) on eleven board shapes, both utility settings, compared at every
  step.  Where OpenSpiel is wrong (MaxGameLength, the tensor of a DBN start,
  UndoAction) the test pins OpenSpiel's wrong answer, so that an upstream
  fix shows up here as a failure.
- dab.openspiel: the converter both ways, ExactBot against OpenSpiel's
  MCTSBot, ExactEvaluator inside MCTSBot, and one clear exception for bad
  input.
"""
import os
import random
import subprocess
import sys

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel's Python package (open-spiel) is not "
                              "installed: the OpenSpiel checks need it (python/requirements-dev.txt)")
np = pytest.importorskip("numpy", reason="numpy is not installed")
mcts = pytest.importorskip("open_spiel.python.algorithms.mcts",
                           reason="open_spiel.python.algorithms.mcts is missing from open-spiel")

import dab  # noqa: E402
import dab.openspiel as dos  # noqa: E402
from conftest import ROOT  # noqa: E402

SHAPES = [(1, 1), (1, 4), (4, 1), (2, 2), (2, 3), (3, 2), (3, 3), (2, 5), (3, 4), (4, 4), (5, 5)]


def nlines(r, c):
    return r * (c + 1) + (r + 1) * c


def ps_game(r, c, margin=True):
    return pyspiel.load_game("dots_and_boxes", {"num_rows": r, "num_cols": c, "utility_margin": margin})


def same(d, p, where):
    """dab state d and pyspiel state p agree on everything both define."""
    assert d.current_player() == p.current_player(), where
    assert d.is_terminal() == p.is_terminal(), where
    assert d.legal_actions() == p.legal_actions(), where
    assert d.legal_actions_mask() == p.legal_actions_mask(), where
    assert d.rewards() == p.rewards(), where
    assert d.returns() == p.returns(), where
    assert d.dbn() == p.dbn_string(), where
    assert str(d) == str(p), where
    assert d.history() == p.history() and d.move_number() == p.move_number(), where
    for player in (0, 1):
        assert d.player_return(player) == p.player_return(player), where
        assert np.array_equal(d.observation_tensor(player), np.asarray(p.observation_tensor(player),
                                                                        dtype=np.float32)), where
        assert d.observation_string(player) == p.observation_string(player), where


@pytest.mark.parametrize("margin", [True, False], ids=["margin", "wdl"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "%dx%d" % s)
def test_differential(shape, margin):
    r, c = shape
    params = {"num_rows": r, "num_cols": c, "utility_margin": margin}
    pg, dg = pyspiel.load_game("dots_and_boxes", params), dab.load_game("dots_and_boxes", params)
    assert str(dg).lower() == str(pg).lower()      # OpenSpiel spells a bool True, dab true
    assert dg.num_distinct_actions() == pg.num_distinct_actions() == nlines(r, c)
    assert dg.observation_tensor_shape() == pg.observation_tensor_shape()
    assert (dg.min_utility(), dg.max_utility(), dg.num_players()) == (
        pg.min_utility(), pg.max_utility(), pg.num_players())
    rng = random.Random(r * 100 + c * 10 + margin)
    games = max(6, 2400 // nlines(r, c))
    for g in range(games):
        d, p = dg.new_initial_state(), pg.new_initial_state()
        same(d, p, (g, "start"))
        while not p.is_terminal():
            a = rng.choice(p.legal_actions())
            assert d.action_to_string(d.current_player(), a) == p.action_to_string(p.current_player(), a)
            if rng.random() < 0.1:                       # clones step alike too
                d, p = d.clone(), p.clone()
            d.apply_action(a)
            p.apply_action(a)
            same(d, p, (g, d.history()))
        assert d.serialize() == p.serialize()
        assert p.returns()[0] == (np.sign(d.score[0] - d.score[1]) if not margin else d.score[0] - d.score[1])


# ---- OpenSpiel's three bugs, pinned ------------------------------------------

@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "%dx%d" % s)
def test_pinned_max_game_length(shape):
    """OpenSpiel's MaxGameLength() is 2C(R+1), not the number of lines (wrong
    where R != C); dab's is the number of lines."""
    r, c = shape
    assert ps_game(r, c).max_game_length() == 2 * c * (r + 1)
    assert dab.Game(r, c).max_game_length() == nlines(r, c)
    assert (2 * c * (r + 1) == nlines(r, c)) == (r == c)


def test_pinned_dbn_tensor():
    """OpenSpiel's ObservationTensor on a NewInitialState(dbn) state writes
    the DBN's lines (cell state kSet = 3) past the [3, cells, 3] tensor: in
    the tensor they appear in no plane, and the write corrupts the heap (a
    separate process, which may crash on exit)."""
    code = ("import pyspiel, numpy as np, sys, os\n"
            "g = pyspiel.load_game('dots_and_boxes', {'num_rows': 2, 'num_cols': 3})\n"
            "s = g.new_initial_state('1' * 8 + '0' * 9)\n"
            "t = np.asarray(s.observation_tensor()).reshape(3, 12, 3)\n"
            "print('planes', ''.join(str(int(x)) for x in t.sum(axis=0)[:, 0]))\n"
            "print('player', s.current_player(), 'history', len(s.history()))\n"
            "sys.stdout.flush(); os._exit(0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    # horizontal lines of dots 0-2, 4-6 and 8-9 are drawn: in no plane (a fix would put a 1 there)
    assert "planes 000100010011" in out, out
    assert "player 0 history 0" in out, out


def test_pinned_undo():
    """OpenSpiel's UndoAction clears both lines of the move's cell (the
    horizontal and the vertical line at its dot) and gives back one box
    only; dab's undo is exact."""
    for a, b in ((0, 6), (6, 0)):                 # 2x2: h(0,0) = 0 and v(0,0) = 6 share dot 0
        p, d = ps_game(2, 2).new_initial_state(), dab.Game(2, 2).new_initial_state()
        for m in (a, b):
            p.apply_action(m)
            d.apply_action(m)
        p.undo_action(0 if b == a else 1, b)
        d.undo_action(1, b)
        assert p.dbn_string() == "0" * 12                          # both lines gone
        assert d.dbn() == "".join("1" if i == a else "0" for i in range(12))
    # 1x2: the middle line v(0,1) = 5 completes both boxes; undo gives back one
    p, d = ps_game(1, 2).new_initial_state(), dab.Game(1, 2).new_initial_state()
    for m in (0, 1, 2, 3, 4, 6, 5):
        p.apply_action(m)
        d.apply_action(m)
    assert str(p).count("1") == 2 and d.scores() == (2, 0)
    p.undo_action(0, 5)
    d.undo_action(0, 5)
    assert p.dbn_string() == "1011101" and d.dbn() == "1111101"    # OpenSpiel also cleared h(0,1)
    assert str(p).count("1") == 1 and d.scores() == (0, 0)         # and kept box (0,0)'s owner
    with pytest.raises(ValueError, match="UndoAction"):
        dos.from_pyspiel(p)


# ---- the converter ---------------------------------------------------------

def random_pair(r, c, margin, moves, seed):
    rng = random.Random(seed)
    p = ps_game(r, c, margin).new_initial_state()
    for _ in range(moves):
        if p.is_terminal():
            break
        p.apply_action(rng.choice(p.legal_actions()))
    return p


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (4, 1), (3, 3), (5, 5)], ids=lambda s: "%dx%d" % s)
def test_convert_both_ways(shape):
    r, c = shape
    for seed in range(12):
        margin = seed % 2 == 0
        p = random_pair(r, c, margin, seed * nlines(r, c) // 11, seed)
        d = dos.from_pyspiel(p)
        assert isinstance(d, dab.State) and d.game.utility == ("margin" if margin else "wdl")
        assert d.scores() == (str(p).count("1"), str(p).count("2"))
        same(d, p, seed)
        q = dos.to_pyspiel(d)
        assert q.get_game().get_parameters()["utility_margin"] == margin
        assert q.serialize() == p.serialize() and str(q) == str(p)
        assert q.current_player() == p.current_player() and q.returns() == p.returns()
        # both play on alike
        while not p.is_terminal():
            a = p.legal_actions()[-1]
            for s in (p, q, d):
                s.apply_action(a)
            same(d, q, seed)
        assert q.returns() == p.returns()


def test_convert_scores_and_player():
    # 1x2, player 0 takes both boxes with the middle line: 2-0, player 0 to move at the end
    p = ps_game(1, 2).new_initial_state()
    for m in (0, 1, 2, 3, 4, 6):
        p.apply_action(m)
    d = dos.from_pyspiel(p)
    assert d.scores() == (0, 0) and d.current_player() == p.current_player() == 0
    d.apply_action(5)
    assert d.scores() == (2, 0) and d.returns() == [2.0, -2.0]
    q = dos.to_pyspiel(d)
    assert q.returns() == [2.0, -2.0] and q.current_player() == -4 and str(q).count("1") == 2
    # a box taken mid-game keeps the mover's turn on both sides
    d = dab.State.from_text("2x2@0,2,6,7")          # v(0,1) = 7 completes box 0 for player 1
    assert d.scores() == (0, 1) and d.current_player() == 1
    q = dos.to_pyspiel(d)
    assert q.current_player() == 1 and str(q).count("2") == 1 and q.history() == [0, 2, 6, 7]


def test_convert_dbn_starts():
    g = ps_game(2, 2)
    # OpenSpiel's DBN start: 0-0, player 0; no complete box: from_dbn + history
    p = g.new_initial_state("110000100000")
    p.apply_action(3)
    d = dos.from_pyspiel(p)
    assert d.dbn() == p.dbn_string() and d.history() == [3] and d.current_player() == p.current_player() == 1
    assert d.serialize().startswith("dbn 110000100000 0,0 0\n")
    # a complete box in the DBN: OpenSpiel counts it for no one; dab needs its owner
    p = g.new_initial_state("101000110000")     # box 0: h(0,0), h(1,0), v(0,0), v(0,1)
    assert str(p).count("1") + str(p).count("2") == 0 and p.current_player() == 0
    with pytest.raises(ValueError, match="start_score"):
        dos.from_pyspiel(p)
    d = dos.from_pyspiel(p, start_score=(0, 1))
    bot = dos.ExactBot(g)                        # the bot reads any state, a DBN start too
    assert bot.step(p) in d.best_moves()         # (the moves' values depend on the lines only)
    v = int(np.sign(d.value()))                  # the box counts for no one in OpenSpiel: 0-0 so far
    assert list(dos.ExactEvaluator(g).evaluate(p)) == [v, -v]
    assert d.scores() == (0, 1) and d.current_player() == 0 and d.dbn() == p.dbn_string()
    # dab -> pyspiel: a DBN start without a box whose player is the parity of its lines is replayed
    d = dab.State.from_dbn(2, 2, "110000100000", player=1)
    q = dos.to_pyspiel(d)
    assert q.history() == [0, 1, 6] and q.current_player() == 1 and q.dbn_string() == d.dbn()
    assert np.array_equal(np.asarray(q.observation_tensor()).reshape(3, 9, 3).sum(axis=0), np.ones((9, 3)))
    # other DBN starts: OpenSpiel cannot start there (score or player): ValueError, or its own DBN start
    for d in (dab.State.from_dbn(2, 2, "110000100000", player=0),
              dab.State.from_dbn(2, 2, "101000110000", score=(1, 0), player=1)):
        with pytest.raises(ValueError, match="dbn_start=True"):
            dos.to_pyspiel(d)
        q = dos.to_pyspiel(d, dbn_start=True)
        assert q.dbn_string() == d.dbn() and q.current_player() == 0 and q.history() == []
        assert str(q).count("1") + str(q).count("2") == 0


# ---- ExactBot -------------------------------------------------------------

def exact_value(game, state, player):
    """The exact final margin for player from pyspiel state under optimal play."""
    d = dos.from_pyspiel(state)
    mover = d.current_player()
    v = d.score[mover] - d.score[1 - mover] + d.value()
    return v if mover == player else -v


@pytest.mark.parametrize("shape,games", [((2, 3), 4), ((3, 3), 4)], ids=["2x3", "3x3"])
def test_exact_bot_vs_mcts(shape, games):
    r, c = shape
    g = ps_game(r, c, margin=True)
    for side in (0, 1):
        for k in range(games):
            rs = np.random.RandomState(10 * k + side)
            opp = mcts.MCTSBot(g, 2, 100, mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
            bot = dos.ExactBot(g, seed=k)
            state = g.new_initial_state()
            rng = random.Random(k)
            for _ in range(k % 3):                       # a random opening for variety
                state.apply_action(rng.choice(state.legal_actions()))
            start = exact_value(g, state, side)
            bots = [bot, opp] if side == 0 else [opp, bot]
            returns = pyspiel.evaluate_bots(state, bots, k)
            assert returns[side] >= start, (shape, side, k, returns, start)
            if start > 0:
                assert returns[side] > 0


def test_board_of():
    assert dos.board_of(pyspiel.load_game("dots_and_boxes")) == (2, 2, False)     # OpenSpiel's defaults
    g = pyspiel.load_game("dots_and_boxes(num_rows=3,num_cols=2,utility_margin=true)")
    assert dos.board_of(g) == (3, 2, True) and dos.board_of(g.new_initial_state()) == (3, 2, True)


def test_exact_bot_wdl_game_and_policy():
    g = ps_game(3, 3, margin=False)
    bot = dos.ExactBot(g)
    s = g.new_initial_state()
    for a in (0, 5, 12, 17):
        s.apply_action(a)
    assert bot.provides_policy()
    policy, a = bot.step_with_policy(s)
    d = dos.from_pyspiel(s)
    assert a == min(d.best_moves()) and a == bot.step(s)
    assert {m for m, prob in policy if prob > 0} == set(d.best_moves())
    assert abs(sum(prob for _, prob in policy) - 1) < 1e-9
    assert [m for m, _ in bot.get_policy(s)] == s.legal_actions()
    # two ExactBots: the game ends at the exact value (3x3 is worth -3 to the first player)
    returns = pyspiel.evaluate_bots(g.new_initial_state(), [dos.ExactBot(g, seed=1), dos.ExactBot(g, seed=2)], 0)
    assert returns == [-1.0, 1.0]
    gm = ps_game(3, 3, margin=True)
    returns = pyspiel.evaluate_bots(gm.new_initial_state(), [dos.ExactBot(gm, seed=3), dos.ExactBot(gm, seed=4)], 0)
    assert returns == [-3.0, 3.0]


def test_exact_bot_node_limit():
    """4x4 from a mid-game position under a node limit: a legal move, and
    last_exact says whether it was proved optimal."""
    g = ps_game(4, 4)
    s = g.new_initial_state()
    for a in (0, 1, 2, 3, 5, 10, 11, 13, 14, 18, 26, 31, 35, 6, 21, 24, 29, 33, 38):
        s.apply_action(a)
    bot = dos.ExactBot(g, node_limit=200000, seed=3)
    a = bot.step(s)
    assert a in s.legal_actions()
    if bot.last_exact:
        assert a in dos.from_pyspiel(s).best_moves()


# ---- ExactEvaluator ----------------------------------------------------------

def test_evaluator_values():
    g = ps_game(3, 3, margin=True)
    ev = dos.ExactEvaluator(g)
    s = g.new_initial_state()
    assert list(ev.evaluate(s)) == [-3.0, 3.0]
    s.apply_action(0)
    assert list(ev.evaluate(s)) == [-3.0, 3.0]
    gw = ps_game(3, 3, margin=False)
    assert list(dos.ExactEvaluator(gw).evaluate(gw.new_initial_state())) == [-1.0, 1.0]
    pri = ev.prior(s)
    assert [a for a, _ in pri] == s.legal_actions() and abs(sum(x for _, x in pri) - 1) < 1e-9
    opt = dos.ExactEvaluator(g, prior="optimal", eps=0.0).prior(s)
    best = set(dos.from_pyspiel(s).best_moves())
    assert all((x > 0) == (a in best) for a, x in opt)


@pytest.mark.parametrize("shape", [(2, 2), (2, 3)], ids=["2x2", "2x3"])
@pytest.mark.parametrize("margin", [True, False], ids=["margin", "wdl"])
def test_mcts_with_exact_evaluator_plays_optimally(shape, margin):
    """MCTSBot(evaluator=ExactEvaluator(prior="optimal"), PUCT, solve=False)
    with 8 simulations a move: every move optimal by the oracle (margin:
    of the best value; win/draw/loss: keeps the best result)."""
    g = ps_game(*shape, margin=margin)
    ev = dos.ExactEvaluator(g, prior="optimal")
    moves = 0
    for seed in range(4):
        bot = mcts.MCTSBot(g, 2, 8, ev, solve=False, random_state=np.random.RandomState(seed),
                           child_selection_fn=mcts.SearchNode.puct_value)
        s = g.new_initial_state()
        rng = random.Random(seed)
        for _ in range(seed):
            s.apply_action(rng.choice(s.legal_actions()))
        while not s.is_terminal():
            a = bot.step(s)
            d = dos.from_pyspiel(s)
            assert a in (d.best_moves() if margin else d.wdl().keep), (seed, d.history(), a)
            s.apply_action(a)
            moves += 1
    assert moves > 20


# ---- bad input: one clear exception ------------------------------------------

def test_bad_input():
    g = ps_game(3, 3)
    bot, ev = dos.ExactBot(g), dos.ExactEvaluator(g)
    ttt = pyspiel.load_game("tic_tac_toe").new_initial_state()
    for f in (bot.step, ev.evaluate, ev.prior, dos.from_pyspiel, bot.restart_at):
        with pytest.raises(ValueError, match="tic_tac_toe"):
            f(ttt)
    small = ps_game(2, 2).new_initial_state()
    for f in (bot.step, ev.evaluate, bot.restart_at):
        with pytest.raises(ValueError, match="2x2 dots_and_boxes, this plays 3x3"):
            f(small)
    with pytest.raises(ValueError, match="the state is 2x2, the pyspiel game 3x3"):
        dos.to_pyspiel(dab.Game(2, 2).new_initial_state(), game=g)
    with pytest.raises(ValueError, match="the state is 2x2, the dab.Game 3x3"):
        dos.from_pyspiel(small, game=dab.Game(3, 3))
    with pytest.raises(ValueError, match="84 lines: dab plays boards of at most 64 lines"):
        dos.ExactBot(ps_game(6, 6))
    with pytest.raises(ValueError, match="84 lines"):
        dos.from_pyspiel(ps_game(6, 6).new_initial_state())
    s = g.new_initial_state()
    s.apply_action(4)
    with pytest.raises(ValueError, match="action 4 is not legal"):
        bot.inform_action(s, 1, 4)
    with pytest.raises(ValueError, match="action 99 is not legal"):
        bot.inform_action(s, 1, 99)
    for bad in (True, 1.0, "1"):                  # line 1 is legal: the type is what is wrong
        with pytest.raises(TypeError, match="expected an integer line number"):
            bot.inform_action(s, 1, bad)
    with pytest.raises(ValueError, match="player 0 is not to move"):
        bot.inform_action(s, 0, 5)
    bot.inform_action(s, 1, 5)
    with pytest.raises(TypeError, match="expected a pyspiel dots_and_boxes state, got a dab.State"):
        bot.step(dab.Game(3, 3).new_initial_state())
    with pytest.raises(TypeError, match="expected a dab.State"):
        dos.to_pyspiel(s)
    with pytest.raises(ValueError, match="prior"):
        dos.ExactEvaluator(g, prior="greedy")
    end = ps_game(1, 1).new_initial_state()
    for a in range(4):
        end.apply_action(a)
    with pytest.raises(ValueError, match="the game is over"):
        dos.ExactBot().step(end)
    for e in (ValueError, TypeError):            # each message is one line
        try:
            bot.step(ttt if e is ValueError else 3)
        except e as x:
            assert "\n" not in str(x)


def test_without_openspiel():
    """Under Debian's python3 (no pyspiel): dab and dab.openspiel import; the
    bot says which package it needs."""
    r = subprocess.run(["/usr/bin/python3", "-c", "import pyspiel"], capture_output=True)
    if r.returncode == 0:
        pytest.skip("/usr/bin/python3 has pyspiel: nothing to check")
    code = ("import sys; sys.path.insert(0, %r)\n"
            "import dab, dab.openspiel as dos\n"
            "print(dos.from_pyspiel.__name__, dab.Game(2, 2).new_initial_state().value())\n"
            "try:\n    dos.ExactBot\nexcept ImportError as e:\n    print('ImportError', e)\n"
            % os.path.join(ROOT, "python"))
    r = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "from_pyspiel" in r.stdout and "ImportError dab.openspiel needs OpenSpiel" in r.stdout, r.stdout
