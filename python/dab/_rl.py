"""dab._rl: what dab.pettingzoo and dab.gymnasium share (numpy only, no
PettingZoo or Gymnasium here): argument checks, opponents, observations,
action masks, rewards, exact labels and the text drawing.

Bad input raises ValueError (an illegal or malformed action, a board dab
does not play, an unknown player spec, a bad option); an action that is not
an integer raises dab.game.ActionTypeError, a ValueError that is also a
TypeError (dab.game.as_action: the check State.apply_action makes too).
Using an environment out of order (step before reset, step after the
episode ended) raises RuntimeError.
"""
import numpy as np

from .game import ActionTypeError, Game, State, as_action
from .batch import NONE, States
from .player import Player

REWARDS = ("boxes", "margin", "wdl")
LAYOUTS = ("openspiel", "planes")


def make_game(rows, cols, exact_labels=False, node_limit=0, tb_dir=None, search=None):
    """The dab.Game of an environment; ValueError for a board dab does not
    play (1 to 64 lines: up to 5x5)."""
    try:
        rows, cols = int(rows), int(cols)
    except (TypeError, ValueError):
        raise ValueError("board %r x %r: rows and cols must be integers" % (rows, cols)) from None
    nlines = rows * (cols + 1) + (rows + 1) * cols
    if rows < 1 or cols < 1 or nlines > 64:
        raise ValueError("board %dx%d: dab plays boards of 1 to 64 lines (1x1 up to 5x5, 4x6...)"
                         % (rows, cols))
    return Game(rows, cols, utility="margin", tb_dir=tb_dir, search=search, node_limit=node_limit)


def check_choice(name, value, choices):
    if value not in choices:
        raise ValueError("%s=%r: expected one of %s" % (name, value, ", ".join(repr(c) for c in choices)))
    return value


def obs_shape(game, layout):
    return tuple(game.observation_tensor_shape(check_choice("layout", layout, LAYOUTS)))


class Opponent:
    """A player that moves for one side: a dab player spec (any spec of
    `dab play --help`: "random", "level2", "chain", "mcts:sims=200",
    "perfect", "az:FILE", "q:FILE"...), a dab.Player, or a callable
    f(dab.State) -> action.

    "random" draws a seed from the environment's numpy generator for each
    move and takes dab.States.random_actions(seed) (the same draw in the
    single and the vector environment, so that equal seeds give equal
    games; a batch draws once per round for all its games); other specs are a dab.Player, made again
    with a seed from the environment's generator on each seeded reset.
    """

    def __init__(self, spec, game, seed=0):
        self.spec, self.game = spec, game
        self.player = None
        self.fn = None
        self._one = None
        if isinstance(spec, str):
            if spec.strip().lower() != "random":
                self.player = self._make(spec, seed)
        elif isinstance(spec, Player):
            if (spec.rows, spec.cols) != (game.rows, game.cols):
                raise ValueError("opponent %r plays %dx%d, the environment is %dx%d"
                                 % (spec, spec.rows, spec.cols, game.rows, game.cols))
            self.player = spec
        elif callable(spec):
            self.fn = spec
        else:
            raise ValueError("opponent %r: expected a dab player spec (a string such as 'random', "
                             "'level2', 'mcts:sims=200', 'az:FILE'), a dab.Player or a callable "
                             "f(dab.State) -> action" % (spec,))

    @property
    def is_random(self):
        return self.player is None and self.fn is None

    def _make(self, spec, seed):
        try:
            return Player(spec, self.game, seed=int(seed))
        except Exception as e:          # DabError: unknown spec, missing model file...
            raise ValueError("opponent %r: not a dab player spec this board takes (%s); "
                             "`dab play --help` lists them" % (spec, e)) from None

    def reseed(self, seed):
        """A fresh player of the spec with this seed (string specs only)."""
        if isinstance(self.spec, str) and self.player is not None:
            self.player.close()
            self.player = self._make(self.spec, seed)

    def move(self, state, rng):
        """The opponent's action in state (a dab.State, not over)."""
        if self.fn is not None:
            a = self.fn(state)
            return check_action(state, a, who="the opponent")
        if self.player is not None:
            return self.player.move_lines(state.lines, state.score, state.player)
        if self._one is None:
            self._one = States(self.game, 1)
        self._one.lines[0] = state.lines
        return int(self._one.random_actions(draw_seed(rng))[0])


def draw_seed(rng):
    """The seed of one round of random moves (dab.States.random_actions)."""
    return int(rng.integers(2 ** 63))


def check_action(state, action, who="the action"):
    """action as an int, or why not: ActionTypeError (dab.game's, a
    TypeError and a ValueError) for anything but an int or a numpy integer
    (a bool, a float, a str, None...), ValueError for a line not legal in
    state."""
    if action is None:
        raise ActionTypeError("%s is None: the player to move must draw a line (None is only for an "
                              "agent whose game has ended)" % who)
    a = as_action(action, who)
    if a < 0 or a >= state.game.nlines:
        raise ValueError("%s %d: beyond the board's %d lines (0..%d)" % (who, a, state.game.nlines,
                                                                         state.game.nlines - 1))
    if state.lines >> a & 1:
        raise ValueError("%s %d: line already drawn (illegal; the action mask marks the legal lines)"
                         % (who, a))
    return a


class Observer:
    """Observations and masks of dab.State objects of one game, made with
    a few numpy operations from index maps of the layout (the same tensors
    as State.observation_tensor and the batches' C code; a test checks)."""

    def __init__(self, game, layout, dtype=np.float32):
        self.game, self.layout, self.dtype = game, layout, np.dtype(dtype)
        self.shape = obs_shape(game, layout)
        self.size = int(np.prod(self.shape))
        g, R, C = game, game.rows, game.cols
        W = C + 1
        self.shifts = np.arange(g.nlines, dtype=np.uint64)
        self.bshifts = np.arange(g.nboxes, dtype=np.uint64)
        self.box_lines = np.array([[m for m in range(g.nlines) if g.box_mask[b] >> m & 1]
                                   for b in range(g.nboxes)], dtype=np.int64)
        line_rc = [(m // C, m % C) if m < g.nhoriz else ((m - g.nhoriz) // W, (m - g.nhoriz) % W)
                   for m in range(g.nlines)]
        if layout == "openspiel":
            self.cellparts = (R + 1) * W * 3           # entries per cell state
            self.pos_line = np.array([(r * W + c) * 3 + (0 if m < g.nhoriz else 1)
                                      for m, (r, c) in enumerate(line_rc)], dtype=np.int64)
            self.pos_box = np.array([((b // C) * W + b % C) * 3 + 2 for b in range(g.nboxes)],
                                    dtype=np.int64)
            self.all_pos = np.arange(self.cellparts, dtype=np.int64)
        else:
            plane = (R + 1) * W
            self.pos_line = np.array([(0 if m < g.nhoriz else plane) + r * W + c
                                      for m, (r, c) in enumerate(line_rc)], dtype=np.int64)
            self.pos_box = np.array([2 * plane + (b // C) * W + b % C for b in range(g.nboxes)],
                                    dtype=np.int64)
            self.plane = plane
        self._pl, self._pb = self.pos_line.tolist(), self.pos_box.tolist()
        self._empty = np.zeros(self.size, dtype=self.dtype)
        if layout == "openspiel":
            self._empty[:self.cellparts] = 1                 # every part empty
        self._cache = {}          # pov -> (lines, by1, box1, complete boxes, flat tensor)

    def _entries(self, lines, boxes, B1, O, pov):
        """(off, on): the flat entries to clear and to set for drawn lines
        `lines` and complete boxes `boxes` (iterables of ids)."""
        pl, pb = self._pl, self._pb
        off, on = [], []
        if self.layout == "openspiel":
            cp = self.cellparts
            for m in lines:
                p = pl[m]
                off.append(p)
                on.append((2 if B1 >> m & 1 else 1) * cp + p)
            for b in boxes:
                p = pb[b]
                off.append(p)
                on.append((2 if O >> b & 1 else 1) * cp + p)
        else:
            theirs = self.plane if int(pov) == 0 else 0     # plane 3 for boxes of the other side
            mine = self.plane - theirs
            on = [pl[m] for m in lines]
            on += [pb[b] + (theirs if O >> b & 1 else mine) for b in boxes]
        return off, on

    def observe(self, state, pov):
        """state's tensor (self.shape, self.dtype); pov: the side whose
        boxes are plane 2 of "planes" (the openspiel layout has no side).
        Plain Python over the lines, then numpy assignments (the fastest
        way measured for one state); when state grew from the state last
        observed (a game going on), only its new lines and boxes."""
        L, B1, O = state.lines, state.by1, state.box1
        g = self.game
        bm = g.box_mask
        key = 0 if self.layout == "openspiel" else int(pov)
        c = self._cache.get(key)
        if c is not None and L & c[0] == c[0] and B1 & c[0] == c[1] and O & c[3] == c[2]:
            cl, _, _, done, t = c
            new_lines, new_boxes, fresh = [], [], L & ~cl
            while fresh:
                low = fresh & -fresh
                m = low.bit_length() - 1
                fresh ^= low
                new_lines.append(m)
                for b in g.line_boxes[m]:
                    if L & bm[b] == bm[b] and not done >> b & 1:
                        done |= 1 << b
                        new_boxes.append(b)
            off, on = self._entries(new_lines, new_boxes, B1, O, pov)
        else:
            done = 0
            for b, mk in enumerate(bm):
                if L & mk == mk:
                    done |= 1 << b
            t = self._empty.copy()
            off, on = self._entries([m for m in range(g.nlines) if L >> m & 1],
                                    [b for b in range(g.nboxes) if done >> b & 1], B1, O, pov)
        if off:
            t[off] = 0
        if on:
            t[on] = 1
        self._cache[key] = (L, B1, O & done, done, t)
        return t.reshape(self.shape).copy()

    def mask(self, state):
        free = np.uint64(self.game.all_lines & ~state.lines)
        return ((free >> self.shifts) & np.uint64(1)).astype(np.int8)

    def zeros_mask(self):
        return np.zeros(self.game.nlines, dtype=np.int8)


def labels(state):
    """The exact labels of the player to move in state (docs/python.md,
    "PettingZoo"): value, move_values (int8 per line, -128 for drawn lines
    and for moves a node limit left unproved), optimal (int8 mask), exact."""
    g = state.game
    mv = state.move_values()
    vals = np.full(g.nlines, NONE, dtype=np.int8)
    opt = np.zeros(g.nlines, dtype=np.int8)
    exact = all(v.exact for v in mv.values())
    for m, v in mv.items():
        if v.exact:
            vals[m] = int(v)
    best_lo = max(v.lower for v in mv.values())
    opt[[m for m, v in mv.items() if v.upper >= best_lo]] = 1     # exact: the moves of the best value
    if exact:
        value = max(int(v) for v in mv.values())
        bounds = (value, value)
    else:
        value = None
        bounds = (max(v.lower for v in mv.values()), max(v.upper for v in mv.values()))
    return {"value": value, "value_bounds": bounds, "move_values": vals, "optimal": opt, "exact": exact}


def reward_of(mode, state, before, player):
    """player's reward for the moves from score `before` to state: boxes
    (net boxes won in those moves), margin (the final margin at the end, 0
    before) or wdl (+1/0/-1 at the end)."""
    me, other = state.score[player], state.score[1 - player]
    if mode == "boxes":
        return float((me - before[player]) - (other - before[1 - player]))
    if not state.is_terminal():
        return 0.0
    d = me - other
    return float(d if mode == "margin" else (d > 0) - (d < 0))


def position(game, pos):
    """A start position from reset options: a dab.State of the game's
    board, or dab's text "RxC@m1,m2,..." / "RxC:DBN"."""
    if isinstance(pos, State):
        s = pos
    elif isinstance(pos, str):
        try:
            s = State.from_text(pos)
        except Exception as e:          # from_text's own messages name the position already
            msg = str(e)
            raise ValueError(msg if msg.startswith("position ") else "position %r: %s" % (pos, msg)) from None
    else:
        raise ValueError("position %r: expected a dab.State or text such as '3x3@0,5,12'" % (pos,))
    if (s.game.rows, s.game.cols) != (game.rows, game.cols):
        raise ValueError("position %r is %dx%d, the environment %dx%d" % (pos, s.game.rows, s.game.cols,
                                                                          game.rows, game.cols))
    c = State(game, s.lines, s.by1, s.box1, s.score, s.player)
    return c


def draw(state, names=("player_0", "player_1")):
    """The board (OpenSpiel's drawing) with the score and who moves."""
    out = state.observation_string()
    sc = state.score
    if state.is_terminal():
        d = sc[0] - sc[1]
        tail = "final %d-%d: %s" % (sc[0], sc[1], "draw" if d == 0 else "%s wins" % names[0 if d > 0 else 1])
    else:
        tail = "score %d-%d, %s to move" % (sc[0], sc[1], names[state.player])
    return out + tail + "\n"


def render(state, names, mode):
    """An environment's render(): the drawing (draw) returned for "ansi",
    printed for "human", None otherwise; RuntimeError before reset()."""
    if state is None:
        raise RuntimeError("render() before reset(): call reset() first")
    text = draw(state, names)
    if mode == "ansi":
        return text
    if mode == "human":
        print(text)
    return None
