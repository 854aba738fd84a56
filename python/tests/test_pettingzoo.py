"""test_pettingzoo.py: dab.pettingzoo (docs/python.md, "PettingZoo"): the
AEC environment against PettingZoo's api_test, its rewards, labels,
opponents and errors, and the tabular-Q example graded by the labels."""
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="dab.pettingzoo needs pettingzoo (python/requirements-dev.txt)")
from pettingzoo.test import api_test  # noqa: E402

import dab  # noqa: E402
from dab import _rl  # noqa: E402
from dab.pettingzoo import DabAECEnv, env  # noqa: E402

from conftest import ROOT  # noqa: E402


def play(e, rng, max_steps=10_000):
    """Plays e to the end with random legal moves through the AEC loop;
    returns {agent: summed last() rewards} and the moves seen."""
    total, seen = {a: 0.0 for a in e.agents}, []
    for agent in e.agent_iter(max_steps):
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        a = int(rng.choice(legal))
        seen.append((agent, a, info))
        e.step(a)
    return total, seen


@pytest.mark.parametrize("kw", [
    dict(),
    dict(rows=2, cols=2, exact_labels=True),
    dict(rows=1, cols=1, render_mode="ansi"),
    dict(opponents={"player_1": "level2"}),
    dict(opponents={"player_0": "random"}, layout="planes", reward="margin"),
    dict(rows=2, cols=3, reward="wdl", obs_dtype=np.int8),
    dict(rows=5, cols=5, opponents={"player_1": "chain"}),
], ids=lambda kw: ",".join("%s=%s" % kv for kv in kw.items()) or "default")
def test_api_test(kw):
    e = env(**kw)
    for seed in range(3):
        api_test(e, num_cycles=100)
        e.reset(seed=seed)
    assert isinstance(e, DabAECEnv)


def test_observer_matches_state_tensors():
    """The environments' tensors (updated line by line along a game, made
    anew for an unrelated state) equal State.observation_tensor."""
    rng = np.random.default_rng(3)
    for rows, cols in ((1, 1), (2, 3), (3, 3), (5, 5), (4, 6)):
        g = dab.Game(rows, cols)
        for layout in ("openspiel", "planes"):
            ob = _rl.Observer(g, layout)
            for k in range(12):
                s = g.new_initial_state()
                if k % 3 == 2:                   # a start without history: lines player 0's
                    for _ in range(rng.integers(g.nlines)):
                        s.apply_action(int(rng.choice(s.legal_actions())))
                    done = bin(g.completed(s.lines)).count("1")
                    a = int(rng.integers(done + 1))
                    s = dab.State.from_dbn(rows, cols, s.dbn(), score=(a, done - a), game=g)
                while True:
                    for pov in ((0, 1) if k % 2 else (1,)):
                        want = s.observation_tensor(pov, layout=layout)
                        got = ob.observe(s, pov)
                        assert got.shape == tuple(g.observation_tensor_shape(layout))
                        assert np.array_equal(got.reshape(-1), want), (rows, cols, layout, s)
                    if s.is_terminal() or rng.random() < 0.05:
                        break
                    s.apply_action(int(rng.choice(s.legal_actions())))
            t = ob.observe(s, 0)
            t[...] = 7                           # a returned tensor is the caller's own
            assert np.array_equal(ob.observe(s, 0).reshape(-1), s.observation_tensor(0, layout=layout))


@pytest.mark.parametrize("reward", ["boxes", "margin", "wdl"])
def test_rewards_add_up_to_the_result(reward):
    rng = np.random.default_rng(0)
    e = env(3, 3, reward=reward)
    for seed in range(20):
        e.reset(seed=seed)
        total, _ = play(e, rng)
        s = e.state
        d = s.score[0] - s.score[1]
        want = d if reward != "wdl" else np.sign(d)
        assert total == {"player_0": want, "player_1": -want}


def test_a_box_keeps_the_turn_and_masks():
    e = env(1, 1)
    e.reset()
    for a in (0, 1, 2):
        agent = e.agent_selection
        obs = e.observe(agent)
        other = "player_1" if agent == "player_0" else "player_0"
        assert obs["action_mask"].tolist() == [0 if m < a else 1 for m in range(4)]
        assert not e.observe(other)["action_mask"].any()
        e.step(a)
        assert e.agent_selection == other
    mover = e.agent_selection
    e.step(3)                                    # completes the box: game over
    assert all(e.terminations.values())
    assert e.rewards[mover] == 1.0 and e._cumulative_rewards[mover] == 1.0
    # a box that does not end the game keeps the turn
    e = env(1, 2)
    e.reset(options={"position": "1x2@0,2,4"})  # top, bottom, left of box 0
    agent = e.agent_selection
    assert agent == "player_1"
    e.step(5)                                    # the middle line closes box 0
    assert e.agent_selection == agent and e.rewards[agent] == 1.0
    assert e.rewards["player_0"] == -1.0 and not any(e.terminations.values())


def test_exact_labels_are_the_oracle():
    rng = np.random.default_rng(1)
    e = env(3, 3, exact_labels=True)
    e.reset(seed=0)
    n = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            assert info == {}
            e.step(None)
            continue
        s = e.state
        mv = s.move_values()
        assert info["exact"] and info["value"] == s.value() == max(mv.values())
        assert info["value_bounds"] == (info["value"], info["value"])
        for m in range(e.game.nlines):
            assert info["move_values"][m] == (mv[m] if m in mv else -128)
        assert np.flatnonzero(info["optimal"]).tolist() == list(s.best_moves())
        other = [a for a in e.agents if a != agent]
        assert all(e.infos[o] == {} for o in other)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        n += 1
    assert n >= 12


def test_exact_labels_5x5_late_positions_and_node_limit():
    rng = np.random.default_rng(2)
    e = env(5, 5, exact_labels=True, node_limit=200_000)
    s = e.game.new_initial_state()
    for _ in range(48):
        s.apply_action(int(rng.choice(s.legal_actions())))
    e.reset(options={"position": s})
    info = e.infos[e.agent_selection]
    assert info["exact"]
    assert info["value"] == dab.Game(5, 5, node_limit=200_000).oracle().value(s.lines)
    # the empty 5x5 board is far beyond 10^3 nodes: bounds, no exact value
    e = env(5, 5, exact_labels=True, node_limit=1000)
    e.reset()
    info = e.infos["player_0"]
    assert not info["exact"] and info["value"] is None
    lo, hi = info["value_bounds"]
    assert lo <= hi and info["optimal"].sum() >= 1


def test_opponents_play_their_turns():
    rng = np.random.default_rng(4)
    for spec in ("level2", "random", "mcts:sims=50", dab.Player("chain", "3x3", seed=1),
                 lambda s: s.legal_actions()[-1]):
        e = env(3, 3, opponents={"player_1": spec})
        assert e.possible_agents == ["player_0"]
        for seed in range(3):
            e.reset(seed=seed)
            total, seen = play(e, rng)
            assert all(agent == "player_0" for agent, _, _ in seen)
            s = e.state
            assert s.is_terminal() and total["player_0"] == s.score[0] - s.score[1]
    # the learner moving second: the opponent's first move is made in reset
    e = env(2, 2, opponents={"player_0": "level2"})
    e.reset(seed=0)
    assert e.agents == ["player_1"] and e.agent_selection == "player_1"
    assert e.state.move_number() == 1
    assert e.observe("player_1")["action_mask"].sum() == 11


def test_seeds_repeat_games():
    def game(seed):
        e = env(3, 3, opponents={"player_1": "mcts:sims=20"})
        e.reset(seed=seed)
        rng = np.random.default_rng(7)
        play(e, rng)
        return e.state.history()
    assert game(5) == game(5)
    assert game(5) != game(6) or game(5) != game(7)


def test_render():
    e = env(2, 2, render_mode="ansi")
    e.reset()
    text = e.render()
    assert "player_0 to move" in text and text.count("\n") >= 5
    assert env(2, 2).reset() is None and env(2, 2).render_mode is None


def test_bad_input_raises_one_clear_exception():
    with pytest.raises(ValueError, match="board 0x3"):
        env(0, 3)
    with pytest.raises(ValueError, match="6x6"):
        env(6, 6)
    with pytest.raises(ValueError, match="opponent 'no-such-player'"):
        env(opponents={"player_1": "no-such-player"})
    with pytest.raises(ValueError, match="agents are"):
        env(opponents={"player_2": "random"})
    with pytest.raises(ValueError, match="both agents"):
        env(opponents={"player_0": "random", "player_1": "random"})
    with pytest.raises(ValueError, match="reward="):
        env(reward="points")
    with pytest.raises(ValueError, match="layout="):
        env(layout="image")
    with pytest.raises(ValueError, match="render_mode="):
        env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="opponent"):
        env(opponents={"player_1": 42})
    e = env(2, 2)
    with pytest.raises(RuntimeError, match="before reset"):
        e.step(0)
    with pytest.raises(RuntimeError, match="before reset"):
        e.observe("player_0")
    e.reset()
    e.step(0)
    for bad, why in ((0, "already drawn"), (12, "beyond"), (-1, "beyond"), (1.5, "integer"),
                     ("3", "integer"), (None, "None"), ([1], "integer"), (True, "bool")):
        with pytest.raises(ValueError, match=why):
            e.step(bad)
    for bad in (1.5, "3", True, np.True_, np.float64(2.0), None):   # a TypeError too, as apply_action's
        with pytest.raises(TypeError, match="bool|float|str|None"):
            e.step(bad)
    e.step(np.int64(1))                          # numpy integers are fine
    with pytest.raises(ValueError, match="position"):
        e.reset(options={"position": "3x3@0"})
    with pytest.raises(ValueError, match="agent"):
        e.observe("player_9")
    rng = np.random.default_rng(0)
    e.reset()
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term:
            with pytest.raises(ValueError, match="only action now is None"):
                e.step(0)
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    with pytest.raises(RuntimeError, match="call reset"):
        e.step(None)
    e.reset()                                    # and it plays again
    assert e.agents == ["player_0", "player_1"]


def test_imports_without_the_packages():
    """dab imports under Debian's python (no pettingzoo, no gymnasium);
    dab.pettingzoo there says what is missing."""
    py = "/usr/bin/python3"
    if not os.path.exists(py):
        pytest.skip("no /usr/bin/python3")
    code = ("import sys; sys.path.insert(0, %r); import dab, dab._rl\n"
            "try:\n    import pettingzoo\nexcept ImportError:\n"
            "    try:\n        import dab.pettingzoo\n    except ImportError as e:\n"
            "        assert 'needs the pettingzoo package' in str(e), e; print('clear')\n"
            "else:\n    print('has pettingzoo')\n" % os.path.join(ROOT, "python"))
    r = subprocess.run([py, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() in ("clear", "has pettingzoo")


def test_q_example_learns_2x2():
    sys.path.insert(0, os.path.join(ROOT, "python", "examples"))
    try:
        import q_pettingzoo_2x2
    finally:
        sys.path.pop(0)
    all_frac, met_frac = q_pettingzoo_2x2.main(["--episodes", "6000", "--seed", "1"])
    assert all_frac >= 0.93 and met_frac >= 0.93, (all_frac, met_frac)
