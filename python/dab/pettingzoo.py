"""dab.pettingzoo: Dots-and-Boxes as a PettingZoo AEC environment, with
exact labels and dab players as opponents (docs/python.md, "PettingZoo").

    from dab.pettingzoo import env
    e = env(rows=3, cols=3, exact_labels=True, opponents={"player_1": "level2"})
    e.reset(seed=0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0])
        e.step(action)

Needs pettingzoo (and gymnasium, which it brings); `import dab` does not.
"""
try:
    import gymnasium
    from pettingzoo import AECEnv
except ImportError as _e:          # pragma: no cover - depends on the interpreter
    raise ImportError("dab.pettingzoo needs the pettingzoo package (pip install 'pettingzoo>=1.24'; "
                      "python/requirements-dev.txt pins it): %s" % _e) from _e

import numpy as np

from . import _rl

AGENTS = ("player_0", "player_1")


class DabAECEnv(AECEnv):
    """Dots-and-Boxes on rows x cols boxes for agents "player_0" (moves
    first) and "player_1".  docs/python.md ("PettingZoo") is the reference;
    env() makes one."""

    metadata = {"render_modes": ["human", "ansi"], "name": "dab_dots_and_boxes_v0",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, rows=3, cols=3, render_mode=None, exact_labels=False, opponents=None,
                 reward="boxes", layout="openspiel", obs_dtype=np.float32, node_limit=0, tb_dir=None,
                 search=None):
        super().__init__()
        self.game = _rl.make_game(rows, cols, exact_labels, node_limit, tb_dir, search)
        self.reward_mode = _rl.check_choice("reward", reward, _rl.REWARDS)
        self.render_mode = _rl.check_choice("render_mode", render_mode, (None, "human", "ansi"))
        self.exact_labels = bool(exact_labels)
        self.observer = _rl.Observer(self.game, layout, obs_dtype)
        opponents = dict(opponents or {})
        unknown = set(opponents) - set(AGENTS)
        if unknown:
            raise ValueError("opponents for %s: the agents are %s" % (", ".join(sorted(map(repr, unknown))),
                                                                      ", ".join(AGENTS)))
        if len(opponents) == 2:
            raise ValueError("opponents for both agents: leave at least one agent to the learner")
        self.opponents = {AGENTS.index(a): _rl.Opponent(spec, self.game, seed=i)
                          for i, (a, spec) in enumerate(sorted(opponents.items()))}
        self.possible_agents = [a for i, a in enumerate(AGENTS) if i not in self.opponents]
        n = self.game.nlines
        obs_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0, 1, self.observer.shape, dtype=self.observer.dtype),
            "action_mask": gymnasium.spaces.Box(0, 1, (n,), dtype=np.int8)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(n) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.state = None
        self.agents = []

    # ---- spaces ---------------------------------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ---- the AEC API ----------------------------------------------------
    def reset(self, seed=None, options=None):
        """A new game (or options["position"]: a dab.State or "RxC@m1,m2,..."
        to start from).  seed seeds the opponents; the opponents' turns up
        to the first learner's turn are played here."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            for i, opp in self.opponents.items():
                opp.reseed(int(self._rng.integers(2 ** 31)) + i)
        options = options or {}
        if options.get("position") is not None:
            self.state = _rl.position(self.game, options["position"])
        else:
            self.state = self.game.new_initial_state()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        before = tuple(self.state.score)
        self._play_opponents()
        self._after_moves(before, clear=False)
        if self.render_mode == "human":
            self.render()

    def _play_opponents(self):
        s = self.state
        while not s.is_terminal() and s.player in self.opponents:
            s.apply_action(self.opponents[s.player].move(s, self._rng))

    def _after_moves(self, before, clear=True):
        """Rewards, terminations, the next agent and the labels after a
        learner's move and the opponents' replies."""
        s = self.state
        for a in self.agents:
            self.rewards[a] = _rl.reward_of(self.reward_mode, s, before, AGENTS.index(a))
        if s.is_terminal():
            for a in self.agents:
                self.terminations[a] = True
            if self.agent_selection_ok():
                # the other learner (if any) first: it sees the final reward
                others = [a for a in self.agents if a != self.agent_selection]
                self.agent_selection = others[0] if others else self.agent_selection
            else:
                self.agent_selection = self.agents[0]
        else:
            self.agent_selection = AGENTS[s.player]
        for a in self.agents:
            self.infos[a] = {}
        if self.exact_labels and not s.is_terminal():
            self.infos[self.agent_selection] = _rl.labels(s)
        self._accumulate_rewards()

    def agent_selection_ok(self):
        return getattr(self, "agent_selection", None) in self.agents

    def observe(self, agent):
        """{"observation": the tensor from agent's side, "action_mask": int8,
        1 on the free lines when agent is to move, all 0 otherwise}."""
        if self.state is None:
            raise RuntimeError("observe() before reset(): call reset() first")
        if agent not in AGENTS:
            raise ValueError("agent %r: the agents are %s" % (agent, ", ".join(AGENTS)))
        s, p = self.state, AGENTS.index(agent)
        mine = not s.is_terminal() and s.player == p
        return {"observation": self.observer.observe(s, p),
                "action_mask": self.observer.mask(s) if mine else self.observer.zeros_mask()}

    def step(self, action):
        """Draws line `action` for env.agent_selection (None once its game
        has ended: that removes the agent).  Raises ValueError for an
        illegal action, RuntimeError before reset() or once every agent
        is done."""
        if self.state is None:
            raise RuntimeError("step() before reset(): call reset() first")
        if not self.agents:
            raise RuntimeError("step() after the game ended and every agent stepped with None: "
                               "call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError("step(%r) for %s, whose game has ended: the only action now is None"
                                 % (action, agent))
            self._was_dead_step(None)
            return
        s = self.state
        a = _rl.check_action(s, action)
        self._cumulative_rewards[agent] = 0.0
        before = tuple(s.score)
        s.apply_action(a)
        self._play_opponents()
        self._after_moves(before)
        if self.render_mode == "human":
            self.render()

    def render(self):
        """The board and score: returned as text ("ansi"), printed
        ("human"); None without a render_mode."""
        return _rl.render(self.state, AGENTS, self.render_mode)

    def close(self):
        for opp in self.opponents.values():
            if opp.player is not None and isinstance(opp.spec, str):
                opp.player.close()

    def __str__(self):
        return "dab_dots_and_boxes_v0(%dx%d)" % (self.game.rows, self.game.cols)


def env(rows=3, cols=3, render_mode=None, exact_labels=False, opponents=None, reward="boxes",
        layout="openspiel", obs_dtype=np.float32, node_limit=0, tb_dir=None, search=None):
    """The AEC environment (docs/python.md, "PettingZoo"):

    rows, cols      the board (1 to 64 lines: up to 5x5)
    render_mode     None, "ansi" (render() returns the board) or "human" (prints it)
    exact_labels    infos[agent to move] = {"value", "value_bounds",
                    "move_values", "optimal", "exact"} from dab's oracle
    opponents       {"player_1": "level2"}: that agent's turns are played by
                    the spec (a dab player spec, a dab.Player or a callable
                    f(dab.State) -> action) and it leaves env.agents
    reward          "boxes" (each step: boxes won minus boxes lost since the
                    agent last moved), "margin" (the final box margin at the
                    end) or "wdl" (+1/0/-1 at the end)
    layout          "openspiel" ([3, (R+1)(C+1), 3]) or "planes" ([4, R+1, C+1],
                    boxes from the observing agent's side)
    node_limit, tb_dir, search   the oracle's options (dab.Game)
    """
    return DabAECEnv(rows, cols, render_mode=render_mode, exact_labels=exact_labels, opponents=opponents,
                     reward=reward, layout=layout, obs_dtype=obs_dtype, node_limit=node_limit,
                     tb_dir=tb_dir, search=search)


raw_env = env
