"""dab.gymnasium: Dots-and-Boxes as a single-agent Gymnasium environment
against any dab player, and a vector form that steps a whole dab.States
batch per call (docs/python.md, "Gymnasium").

    import dab.gymnasium                       # registers "dab/DotsAndBoxes-v0"
    env = gymnasium.make("dab/DotsAndBoxes-v0", rows=3, cols=3, opponent="level2")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))

    venv = dab.gymnasium.DabVectorEnv(1024, 3, 3, opponent="random")

Needs gymnasium; `import dab` does not.  `import gymnasium` below is the
PyPI package (absolute imports), not this module.
"""
try:
    import gymnasium
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space
except ImportError as _e:          # pragma: no cover - depends on the interpreter
    raise ImportError("dab.gymnasium needs the gymnasium package (pip install 'gymnasium>=1.1'; "
                      "python/requirements-dev.txt pins it): %s" % _e) from _e

import numpy as np

from . import _rl
from .batch import NONE, integer_actions
from .game import ActionTypeError

ENV_ID = "dab/DotsAndBoxes-v0"


def _spaces(game, observer, dict_obs):
    n = game.nlines
    box = gymnasium.spaces.Box(0, 1, observer.shape, dtype=observer.dtype)
    mask = gymnasium.spaces.Box(0, 1, (n,), dtype=np.int8)
    obs = gymnasium.spaces.Dict({"observation": box, "action_mask": mask}) if dict_obs else box
    return obs, gymnasium.spaces.Discrete(n)


def _check_player(player):
    if player not in (0, 1, None):
        raise ValueError("player=%r: expected 0 (the agent moves first), 1 or None (a random side "
                         "each episode)" % (player,))
    return player


class DabEnv(gymnasium.Env):
    """The agent plays one side of rows x cols Dots-and-Boxes; `opponent`
    (a dab player spec, a dab.Player or a callable f(dab.State) -> action)
    plays the other, its replies made inside step().  docs/python.md
    ("Gymnasium") is the reference."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(self, rows=3, cols=3, opponent="random", exact_labels=False, player=0, reward="boxes",
                 layout="openspiel", dict_obs=False, obs_dtype=np.float32, render_mode=None,
                 node_limit=0, tb_dir=None, search=None):
        self.game = _rl.make_game(rows, cols, exact_labels, node_limit, tb_dir, search)
        self.reward_mode = _rl.check_choice("reward", reward, _rl.REWARDS)
        self.render_mode = _rl.check_choice("render_mode", render_mode, (None, "human", "ansi"))
        self.player = _check_player(player)
        self.exact_labels = bool(exact_labels)
        self.dict_obs = bool(dict_obs)
        self.observer = _rl.Observer(self.game, layout, obs_dtype)
        self.opponent = _rl.Opponent(opponent, self.game)
        self.observation_space, self.action_space = _spaces(self.game, self.observer, self.dict_obs)
        self.state = None
        self.side = 0
        self._done = False

    def _obs_info(self):
        s = self.state
        live = not s.is_terminal()
        mask = self.observer.mask(s) if live else self.observer.zeros_mask()
        t = self.observer.observe(s, self.side)
        info = {"action_mask": mask, "player": self.side, "score": (s.score[self.side], s.score[1 - self.side])}
        if self.exact_labels and live:
            info.update(_rl.labels(s))
        obs = {"observation": t, "action_mask": mask} if self.dict_obs else t
        return obs, info

    def _play_opponent(self):
        s = self.state
        while not s.is_terminal() and s.player != self.side:
            s.apply_action(self.opponent.move(s, self.np_random))

    def reset(self, *, seed=None, options=None):
        """A new game (or options["position"], a dab.State or "RxC@m1,m2,...",
        with options["player"] the agent's side there); the opponent's moves
        up to the agent's first turn are played here."""
        super().reset(seed=seed)
        if seed is not None:
            self.opponent.reseed(int(self.np_random.integers(2 ** 31)))
        options = options or {}
        side = options.get("player", self.player)
        side = _check_player(side)
        self.side = int(self.np_random.integers(2)) if side is None else side
        if options.get("position") is not None:
            self.state = _rl.position(self.game, options["position"])
        else:
            self.state = self.game.new_initial_state()
        self._play_opponent()
        self._done = self.state.is_terminal()
        if self.render_mode == "human":
            self.render()
        return self._obs_info()

    def step(self, action):
        """Plays the agent's line, then the opponent's replies (a box keeps
        the turn, so the agent may move again at once, or the opponent
        several times).  ValueError for an illegal action; RuntimeError
        before reset() or after the episode ended."""
        if self.state is None:
            raise RuntimeError("step() before reset(): call reset() first")
        if self._done:
            raise RuntimeError("step() after the episode ended (terminated): call reset()")
        s = self.state
        a = _rl.check_action(s, action)
        before = tuple(s.score)
        s.apply_action(a)
        self._play_opponent()
        self._done = s.is_terminal()
        reward = _rl.reward_of(self.reward_mode, s, before, self.side)
        obs, info = self._obs_info()
        if self.render_mode == "human":
            self.render()
        return obs, reward, self._done, False, info

    def action_masks(self):
        """The legal lines as a bool array (sb3-contrib's MaskablePPO asks this)."""
        if self.state is None:
            raise RuntimeError("action_masks() before reset(): call reset() first")
        return self.observer.mask(self.state).astype(bool)

    def render(self):
        names = ("agent", "opponent") if self.side == 0 else ("opponent", "agent")
        return _rl.render(self.state, names, self.render_mode)

    def close(self):
        opp = self.opponent
        if opp.player is not None and isinstance(opp.spec, str):
            opp.player.close()


class DabVectorEnv(VectorEnv):
    """num_envs games of DabEnv held in one dab.States batch: the agents'
    moves of all games are one C call, a "random" opponent's replies one C
    call per round of replies (other opponents: one dab.Player call per game that
    needs a reply), observations and masks one C call each.  Autoreset as
    gymnasium's default (AutoresetMode.NEXT_STEP: the step after a game
    ends resets it and ignores its action) or SAME_STEP (the reset
    observation at once, the final one in infos["final_obs"])."""

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, num_envs=16, rows=3, cols=3, opponent="random", exact_labels=False, player=0,
                 reward="boxes", layout="openspiel", obs_dtype=np.float32,
                 autoreset_mode=AutoresetMode.NEXT_STEP, node_limit=0, tb_dir=None, search=None):
        try:
            n = int(num_envs)
        except (TypeError, ValueError):
            raise ValueError("num_envs=%r: expected a positive integer" % (num_envs,)) from None
        if n < 1:
            raise ValueError("num_envs=%r: expected a positive integer" % (num_envs,))
        self.num_envs = n
        self.game = _rl.make_game(rows, cols, exact_labels, node_limit, tb_dir, search)
        self.reward_mode = _rl.check_choice("reward", reward, _rl.REWARDS)
        self.player = _check_player(player)
        self.exact_labels = bool(exact_labels)
        self.layout = _rl.check_choice("layout", layout, _rl.LAYOUTS)
        self.obs_dtype = np.dtype(obs_dtype)
        mode = AutoresetMode(autoreset_mode) if not isinstance(autoreset_mode, AutoresetMode) else autoreset_mode
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError("autoreset_mode=%r: DabVectorEnv takes NEXT_STEP or SAME_STEP" % (autoreset_mode,))
        self.autoreset_mode = mode
        self.metadata = dict(self.metadata, autoreset_mode=mode)
        self.observer = _rl.Observer(self.game, layout, obs_dtype)
        self.opponent = _rl.Opponent(opponent, self.game)
        self.single_observation_space, self.single_action_space = _spaces(self.game, self.observer, False)
        self.observation_space = batch_space(self.single_observation_space, n)
        self.action_space = batch_space(self.single_action_space, n)
        self.batch = self.game.new_states(n)
        self.side = np.zeros(n, dtype=np.int8)
        self._needs_reset = np.zeros(n, dtype=bool)
        self._started = False
        self._idx = np.arange(n)
        self._all = np.uint64(self.game.all_lines)

    # ---- helpers ----------------------------------------------------------
    def _reset_games(self, which):
        b = self.batch
        b.lines[which] = 0
        b.by1[which] = 0
        b.box1[which] = 0
        b.score[which] = 0
        b.to_move[which] = 0
        k = int(np.count_nonzero(which))
        if self.player is None:
            self.side[which] = self.np_random.integers(2, size=k)
        else:
            self.side[which] = self.player

    def _play_opponent(self, active):
        """Opponent replies in the games of mask active until it is the
        agent's turn or the game is over."""
        b = self.batch
        while True:
            opp = active & (b.lines != self._all) & (b.to_move != self.side)
            if not opp.any():
                return
            if self.opponent.is_random:
                acts = b.random_actions(_rl.draw_seed(self.np_random))   # one C call for the batch
                acts[~opp] = -1
            else:
                acts = np.full(self.num_envs, -1, dtype=np.int64)
                for i in np.flatnonzero(opp):
                    acts[i] = self.opponent.move(b.state(i), self.np_random)
            b.apply_actions(acts)

    def _obs_info(self):
        b = self.batch
        live = b.lines != self._all
        t = b.observation_tensor(self.layout, player=self.side).astype(self.obs_dtype, copy=False)
        mask = b.legal_actions_mask().astype(np.int8)
        info = {"action_mask": mask, "_action_mask": np.ones(self.num_envs, dtype=bool),
                "player": self.side.copy(), "_player": np.ones(self.num_envs, dtype=bool)}
        if self.exact_labels:
            mv, exact = b.move_values()
            best = mv.max(axis=1, keepdims=True)
            info["move_values"] = mv
            info["value"] = np.where(live & exact, best[:, 0], NONE).astype(np.int8)
            info["optimal"] = ((mv == best) & (mask == 1) & exact[:, None]).astype(np.int8)
            info["exact"] = exact & live
            for k in ("move_values", "value", "optimal", "exact"):
                info["_" + k] = live.copy()
        return t, info

    # ---- the VectorEnv API ------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """All games anew.  seed seeds the environment's generator (the
        random opponent's draws and random sides)."""
        super().reset(seed=seed)
        if seed is not None:
            self.opponent.reseed(int(self.np_random.integers(2 ** 31)))
        everything = np.ones(self.num_envs, dtype=bool)
        self._reset_games(everything)
        self._play_opponent(everything)
        self._needs_reset[:] = False
        self._started = True
        return self._obs_info()

    def step(self, actions):
        """One agent move per game (NEXT_STEP: ignored in games being
        reset).  ValueError naming the first game whose action is not
        legal; then no game changed."""
        if not self._started:
            raise RuntimeError("step() before reset(): call reset() first")
        n, b = self.num_envs, self.batch
        a, bad = integer_actions(actions)
        if a.shape not in ((n,), (n, 1)) or bad:
            raise (ActionTypeError if bad else ValueError)(
                "actions: expected %d integer line numbers, %s"
                % (n, "but %s" % bad if bad else "got %s %s" % (a.dtype, a.shape)))
        a = a.reshape(n).astype(np.int64)
        resetting = self._needs_reset.copy()
        live = ~resetting & (b.lines != self._all)
        bad = live & ((a < 0) | (a >= self.game.nlines))
        if not bad.any():
            drawn = (b.lines >> np.clip(a, 0, self.game.nlines - 1).astype(np.uint64)) & np.uint64(1)
            bad = live & (drawn == 1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError("actions[%d] = %d: not a legal line of game %d (%s)" % (
                i, a[i], i, "beyond the %d lines" % self.game.nlines if not 0 <= a[i] < self.game.nlines
                else "already drawn; info['action_mask'] marks the legal lines"))
        if resetting.any():
            self._reset_games(resetting)
        before = b.score.copy()
        b.apply_actions(np.where(live, a, -1))
        self._play_opponent(np.ones(n, dtype=bool))
        me, other = self.side.astype(np.int64), 1 - self.side.astype(np.int64)
        sc = b.score.astype(np.int64)
        done = (b.lines == self._all) & ~resetting
        if self.reward_mode == "boxes":
            reward = (sc[self._idx, me] - before[self._idx, me]) - (sc[self._idx, other] - before[self._idx, other])
        else:
            d = sc[self._idx, me] - sc[self._idx, other]
            reward = np.where(done, d if self.reward_mode == "margin" else np.sign(d), 0)
        reward = reward.astype(np.float64)
        obs, info = self._obs_info()
        truncated = np.zeros(n, dtype=bool)
        if self.autoreset_mode == AutoresetMode.SAME_STEP and done.any():
            info["final_obs"] = np.where(done.reshape((n,) + (1,) * (obs.ndim - 1)), obs, 0)
            info["_final_obs"] = done.copy()
            info["final_info"] = {"action_mask": info["action_mask"].copy(), "_action_mask": done.copy()}
            self._reset_games(done)
            self._play_opponent(done)
            obs, new_info = self._obs_info()
            new_info.update({k: v for k, v in info.items() if k.startswith(("final", "_final"))})
            info = new_info
            self._needs_reset[:] = False
        else:
            self._needs_reset = done.copy()
        return obs, reward, done, truncated, info

    def close_extras(self, **kwargs):
        opp = self.opponent
        if opp.player is not None and isinstance(opp.spec, str):
            opp.player.close()


def register():
    """Registers ENV_ID ("dab/DotsAndBoxes-v0"), with DabVectorEnv as its
    vector entry point; done on import of dab.gymnasium."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="dab.gymnasium:DabEnv",
                           vector_entry_point="dab.gymnasium:DabVectorEnv")


register()
