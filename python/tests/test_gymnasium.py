"""test_gymnasium.py: dab.gymnasium (docs/python.md, "Gymnasium"):
DabEnv against gymnasium's check_env, DabVectorEnv against DabEnv (equal
seeds, equal games) and its autoreset, labels, and errors."""
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="dab.gymnasium needs gymnasium "
                                "(python/requirements-dev.txt)")
from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402

import dab  # noqa: E402
import dab.gymnasium as dg  # noqa: E402

IDS = lambda kw: ",".join("%s=%s" % kv for kv in kw.items()) or "default"  # noqa: E731


@pytest.mark.parametrize("kw", [
    dict(),
    dict(rows=2, cols=2, exact_labels=True),
    dict(opponent="level2", render_mode="ansi"),
    dict(dict_obs=True, layout="planes"),
    dict(rows=2, cols=3, reward="wdl", opponent="chain", obs_dtype=np.int8),
    dict(rows=5, cols=5, reward="margin"),
], ids=IDS)
def test_check_env(kw):
    e = gymnasium.make(dg.ENV_ID, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # the checker's warnings fail the test
        check_env(e.unwrapped, skip_render_check=kw.get("render_mode") is None)
    e.close()


def test_registered_with_a_vector_entry_point():
    assert dg.ENV_ID in gymnasium.registry
    v = gymnasium.make_vec(dg.ENV_ID, num_envs=4, vectorization_mode="vector_entry_point", rows=2, cols=2)
    assert isinstance(v, dg.DabVectorEnv)
    obs, info = v.reset(seed=0)
    assert obs.shape == (4, 3, 9, 3) and info["action_mask"].shape == (4, 12)


def first_legal_or_random(rng, mask):
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("player", [0, 1, None])
@pytest.mark.parametrize("opponent", ["random", "level2"])
def test_vector_of_one_is_the_single_env(player, opponent):
    """Equal seeds and actions: the same observations, masks, rewards and
    ends, episode after episode (the vector env resets on the next step)."""
    e = dg.DabEnv(3, 3, opponent=opponent, player=player)
    v = dg.DabVectorEnv(1, 3, 3, opponent=opponent, player=player)
    o1, i1 = e.reset(seed=5)
    o2, i2 = v.reset(seed=5)
    rng = np.random.default_rng(1)
    episodes = 0
    while episodes < 12:
        assert np.array_equal(o1, o2[0]) and np.array_equal(i1["action_mask"], i2["action_mask"][0])
        assert i1["player"] == i2["player"][0]
        a = first_legal_or_random(rng, i1["action_mask"])
        o1, r1, t1, _, i1 = e.step(a)
        o2, r2, t2, _, i2 = v.step(np.array([a]))
        assert r1 == r2[0] and t1 == t2[0]
        if t1:
            episodes += 1
            assert np.array_equal(o1, o2[0]) and not i2["action_mask"].any()
            o1, i1 = e.reset()
            o2, r2, t2, _, i2 = v.step(np.array([0]))        # NEXT_STEP: resets, action ignored
            assert r2[0] == 0 and not t2[0]


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_vector_games_are_legal_and_reset(mode):
    n = 64
    v = dg.DabVectorEnv(n, 3, 3, opponent="random", player=None, autoreset_mode=mode)
    obs, info = v.reset(seed=3)
    rng = np.random.default_rng(0)
    ret = np.zeros(n)
    ends = 0
    pending = np.zeros(n, dtype=bool)
    for _ in range(300):
        mask = info["action_mask"]
        b = v.batch
        live = b.lines != np.uint64(v.game.all_lines)
        assert np.array_equal(mask.astype(bool), b.legal_actions_mask().astype(bool) & live[:, None])
        assert np.array_equal(obs, b.observation_tensor(player=v.side))
        assert (b.to_move[live] == v.side[live]).all()      # the agent is to move in every live game
        a = np.array([first_legal_or_random(rng, m) if m.any() else 0 for m in mask])
        obs, r, term, trunc, info = v.step(a)
        ret[~pending] += r[~pending]
        assert not trunc.any()
        for i in np.flatnonzero(term):
            ends += 1
            sc = v.batch.score[i] if mode == AutoresetMode.NEXT_STEP else None
            if sc is not None:
                d = int(sc[v.side[i]]) - int(sc[1 - v.side[i]])
                assert ret[i] == d                         # boxes rewards add up to the margin
            ret[i] = 0
        if mode == AutoresetMode.SAME_STEP:
            assert info["action_mask"].any(axis=1).all()    # every game is live again at once
            if term.any():
                assert np.array_equal(info["_final_obs"], term)
        else:
            pending = term.copy()
    assert ends > 50


def test_vector_other_opponents_and_exact_labels():
    v = dg.DabVectorEnv(8, 3, 3, opponent="level2", exact_labels=True)
    obs, info = v.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(40):
        live = info["action_mask"].any(axis=1)
        for i in np.flatnonzero(live):
            s = v.batch.state(i)
            mv = s.move_values()
            assert info["value"][i] == s.value()
            assert [m for m in range(v.game.nlines) if info["optimal"][i, m]] == list(s.best_moves())
            assert all(info["move_values"][i, m] == val for m, val in mv.items())
        a = np.array([first_legal_or_random(rng, m) if m.any() else 0 for m in info["action_mask"]])
        obs, r, term, trunc, info = v.step(a)


def test_exact_labels_in_info():
    e = dg.DabEnv(2, 2, exact_labels=True, opponent="perfect")
    obs, info = e.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        s = e.state
        assert info["value"] == s.value() and info["exact"]
        assert np.flatnonzero(info["optimal"]).tolist() == list(s.best_moves())
        obs, r, done, _, info = e.step(first_legal_or_random(rng, info["action_mask"]))
    assert "value" not in info


def test_rewards_and_sides():
    rng = np.random.default_rng(5)
    for reward in ("boxes", "margin", "wdl"):
        e = dg.DabEnv(3, 3, reward=reward, player=None)
        for seed in range(10):
            obs, info = e.reset(seed=seed)
            total, done = 0.0, False
            while not done:
                obs, r, done, _, info = e.step(first_legal_or_random(rng, info["action_mask"]))
                total += r
            me, other = info["score"]
            d = me - other
            assert total == (d if reward != "wdl" else np.sign(d))
    e = dg.DabEnv(2, 2, player=1, opponent="level2")
    obs, info = e.reset(seed=0)
    assert e.state.move_number() == 1 and info["action_mask"].sum() == 11
    assert e.action_masks().sum() == 11


def test_dict_observation_and_render():
    e = dg.DabEnv(2, 2, dict_obs=True, render_mode="ansi")
    obs, info = e.reset(seed=0)
    assert set(obs) == {"observation", "action_mask"} and e.observation_space.contains(obs)
    assert np.array_equal(obs["action_mask"], info["action_mask"])
    assert "agent to move" in e.render()


def test_bad_input_raises_one_clear_exception():
    with pytest.raises(ValueError, match="board 7x7"):
        dg.DabEnv(7, 7)
    with pytest.raises(ValueError, match="integers"):
        dg.DabEnv("three", 3)
    with pytest.raises(ValueError, match="opponent 'grandmaster'"):
        dg.DabEnv(3, 3, opponent="grandmaster")
    with pytest.raises(ValueError, match="opponent"):
        dg.DabEnv(3, 3, opponent=dab.Player("random", "2x2"))
    with pytest.raises(ValueError, match="player="):
        dg.DabEnv(3, 3, player=2)
    with pytest.raises(ValueError, match="reward="):
        dg.DabEnv(3, 3, reward="score")
    with pytest.raises(ValueError, match="num_envs"):
        dg.DabVectorEnv(0)
    with pytest.raises(ValueError, match="autoreset_mode"):
        dg.DabVectorEnv(2, autoreset_mode=AutoresetMode.DISABLED)
    e = dg.DabEnv(1, 1)
    with pytest.raises(RuntimeError, match="before reset"):
        e.step(0)
    e.reset(seed=0)
    e.step(0)
    for bad, why in ((0, "already drawn"), (4, "beyond"), (2.5, "integer"), (None, "None")):
        with pytest.raises(ValueError, match=why):
            e.step(bad)
    for bad in (2.5, "3", True, np.True_):        # a TypeError too, as State.apply_action's
        with pytest.raises(TypeError, match="not (float|str|bool|numpy.bool)"):
            e.step(bad)
    while not e.state.is_terminal():
        e.step(e.state.legal_actions()[0])
    with pytest.raises(RuntimeError, match="episode ended"):
        e.step(0)
    v = dg.DabVectorEnv(3, 2, 2)
    with pytest.raises(RuntimeError, match="before reset"):
        v.step(np.zeros(3, dtype=np.int64))
    v.reset(seed=0)
    v.step(np.array([0, 1, 2]))
    lines = v.batch.lines.copy()
    free = [int(np.flatnonzero(m)[0]) for m in v.batch.legal_actions_mask()]
    with pytest.raises(ValueError, match=r"actions\[1\] = 1: .*already drawn"):
        v.step(np.array([free[0], 1, free[2]]))   # game 1 has drawn line 1 already
    assert np.array_equal(v.batch.lines, lines)   # and no game changed
    with pytest.raises(ValueError, match="3 integer"):
        v.step(np.array([0.5, 1.5, 2.5]))
    with pytest.raises(ValueError, match="3 integer"):
        v.step(np.array([3, 4]))
    with pytest.raises(TypeError, match="item 0 is True, a bool"):   # numpy alone makes it 1
        v.step([True, free[1], free[2]])
    with pytest.raises(TypeError, match="dtype bool"):
        v.step(np.array([True, True, True]))
    assert np.array_equal(v.batch.lines, lines)
    with pytest.raises(ValueError, match=r"actions\[2\] = 99: .*beyond"):
        v.step(np.array([free[0], free[1], 99]))


def test_sync_vector_env_over_the_single_env():
    """gymnasium's own SyncVectorEnv over DabEnv: each game is a
    DabVectorEnv of one with the seed SyncVectorEnv gives it."""
    n = 3
    sync = SyncVectorEnv([lambda: dg.DabEnv(2, 2) for _ in range(n)])
    ones = [dg.DabVectorEnv(1, 2, 2) for _ in range(n)]
    obs, info = sync.reset(seed=10)
    outs = [o.reset(seed=10 + i) for i, o in enumerate(ones)]
    rng = np.random.default_rng(0)
    for _ in range(60):
        assert all(np.array_equal(obs[i], outs[i][0][0]) for i in range(n))
        a = np.array([first_legal_or_random(rng, m) if m.any() else 0 for m in info["action_mask"]])
        obs, r, term, trunc, info = sync.step(a)
        outs = [o.step(a[i:i + 1]) for i, o in enumerate(ones)]
        assert np.array_equal(r, np.concatenate([x[1] for x in outs]))
        assert np.array_equal(term, np.concatenate([x[2] for x in outs]))
        outs = [(x[0], x[-1]) for x in outs]


def test_a_trained_agent_as_the_opponent(tmp_path):
    """q:FILE (a model `dab train q` wrote) opposes in DabEnv, DabVectorEnv
    and the PettingZoo environment alike."""
    import os
    import subprocess
    dab_bin = os.environ.get("DAB_BIN", "")
    if not os.path.isfile(dab_bin):
        pytest.skip("no dab binary at $DAB_BIN (%s): run make" % dab_bin)
    model = str(tmp_path / "q.model")
    out = subprocess.run([dab_bin, "train", "q", "--board", "2x2", "--games", "3000", "--grade-games", "4",
                          "--seed", "1", "--out", model], capture_output=True, text=True)
    assert out.returncode == 0 and os.path.isfile(model), out.stderr[-300:]
    spec = "q:" + model
    rng = np.random.default_rng(0)
    e = dg.DabEnv(2, 2, opponent=spec, player=None)
    for seed in range(4):
        obs, info = e.reset(seed=seed)
        done = False
        while not done:
            obs, r, done, _, info = e.step(first_legal_or_random(rng, info["action_mask"]))
    v = dg.DabVectorEnv(4, 2, 2, opponent=spec)
    obs, info = v.reset(seed=0)
    for _ in range(30):
        obs, r, term, _, info = v.step(np.array([first_legal_or_random(rng, m) if m.any() else 0
                                                 for m in info["action_mask"]]))
    pz = pytest.importorskip("dab.pettingzoo", reason="needs pettingzoo")
    p = pz.env(2, 2, opponents={"player_1": spec})
    p.reset(seed=0)
    for agent in p.agent_iter():
        o, _, term, trunc, _ = p.last()
        p.step(None if term else first_legal_or_random(rng, o["action_mask"]))
    assert p.state.is_terminal()
    with pytest.raises(ValueError, match="opponent"):
        dg.DabEnv(3, 3, opponent=spec)            # a 2x2 model on 3x3


def test_through_make_the_wrappers_keep_the_errors():
    e = gymnasium.make(dg.ENV_ID, rows=2, cols=2)
    with pytest.raises(gymnasium.error.ResetNeeded):
        e.step(0)                                 # OrderEnforcing answers first
    e.reset(seed=0)
    with pytest.raises(ValueError, match="beyond"):
        e.step(99)
    e.step(0)
    with pytest.raises(ValueError, match="already drawn"):
        e.step(0)
