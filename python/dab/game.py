"""dab.game: Game and State, with OpenSpiel's dots_and_boxes names and
meanings, and exact labels on every state through the oracle.

The rules are kept here in plain Python integers (a line set per state),
so one State steps in microseconds without a call into C; batches of many
states (dab.States) step in C.  Labels (value, move_values, best_moves,
wdl) ask the game's one Oracle (dab.Oracle), opened on first use.
"""
import ctypes
import re
import sys
from collections import namedtuple

from ._lib import _Err, _load, _raise
from .errors import DabBoardError, DabCanceledError, DabInputError
from .oracle import Oracle, _read_only_arg

TERMINAL = -4          # OpenSpiel's kTerminalPlayerId
_UTILITIES = ("margin", "wdl")
# The one default utility of Game, load_game, State.from_dbn and from_text:
# OpenSpiel's (utility_margin=false), so a program written for pyspiel gets
# the same returns.  The margin stays one argument away (utility="margin"),
# and the labels (value, move_values) are margins either way.
DEFAULT_UTILITY = "wdl"
_RESULT_NAME = {1: "win", 0: "draw", -1: "loss"}

WDL = namedtuple("WDL", "result keep exact")
WDL.__doc__ = """state.wdl(): result "win", "draw" or "loss" (None when a node
limit left it open), keep the moves that reach it (sorted; None when not
known), exact False when a node limit stopped the search."""


class Bounds(namedtuple("Bounds", "lower upper")):
    """A value a node-limited search could only bound: lower <= value <=
    upper.  Exact values are returned as dab.game.Value (an int) instead;
    both have .exact, so `v.exact` tells them apart."""
    __slots__ = ()
    exact = False


class Value(int):
    """An exact value (an int) with .exact = True, .lower == .upper == itself."""
    exact = True

    @property
    def lower(self):
        return int(self)

    @property
    def upper(self):
        return int(self)


class ActionTypeError(TypeError, ValueError):
    """An action that is not an integer (a float, a str, a bool, None, a
    list...): a TypeError, and also a ValueError, which the environments
    raised for a malformed action before (docs/python.md)."""


def _type_name(x):
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else "%s.%s" % (t.__module__, t.__name__)


def _short(x):
    """repr(x) on one line, at most about 40 characters."""
    r = " ".join(repr(x).split())
    return r if len(r) <= 40 else r[:37] + "..."


def _is_int(x):
    """True for a Python int (an int subclass such as dab.game.Value too) or
    a numpy integer; False for a bool and everything else.  numpy is not
    imported here: without it loaded, no numpy integer exists."""
    if type(x) is int:
        return True
    if isinstance(x, int):
        return not isinstance(x, bool)
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.integer)


def as_action(action, what="action"):
    """action as a Python int when it is an int or a numpy integer (not a
    bool); else ActionTypeError (a TypeError and a ValueError) naming its
    type.  Whether the line is legal is the caller's question."""
    if type(action) is int:             # the usual case, quickly
        return action
    if _is_int(action):
        return int(action)
    raise ActionTypeError("%s %s: expected an integer line number (int or numpy integer), not %s"
                          % (what, _short(action), _type_name(action)))


def _illegal_why(game, lines, m):
    """Why line m is not legal in line set lines (None when it is), in the
    command line's words."""
    if m < 0 or m >= game.nlines:
        return "line %d does not exist (a %dx%d board has lines 0..%d)" % (m, game.rows, game.cols,
                                                                          game.nlines - 1)
    if lines >> m & 1:
        return "line %d is already drawn" % m
    return None


_MOVE_RE = re.compile(r"\s*([0-9]+)\s*\Z")


def _label(lo, hi):
    return Value(lo) if lo == hi else Bounds(lo, hi)


def _sign(x):
    return (x > 0) - (x < 0)


class Game:
    """Dots-and-Boxes on rows x cols boxes (at most 64 lines: up to 5x5).

    utility: what returns() and rewards() give at the end: "wdl" (the
    default, DEFAULT_UTILITY, as OpenSpiel's utility_margin=false and
    load_game: +1/0/-1 for a win, draw or loss) or "margin" (the final box
    margin, utility_margin=true).  The labels (State.value, move_values)
    are box margins in both.  The oracle options
    (tb_dir, search, node_limit, hash_mb, threads, read_only; readonly is
    read_only's deprecated name) are those of dab.Oracle; search=None
    searches only where no table covers the board.
    """

    def __init__(self, rows=2, cols=2, utility=DEFAULT_UTILITY, tb_dir=None, search=None, node_limit=0,
                 hash_mb=None, threads=1, readonly=None, read_only=False):
        if utility not in _UTILITIES:
            raise DabInputError(1, "utility %r: expected 'margin' or 'wdl'" % (utility,))
        rows, cols = int(rows), int(cols)
        nlines = rows * (cols + 1) + (rows + 1) * cols
        if rows < 1 or cols < 1 or nlines > 64:
            raise DabBoardError(2, "%dx%d: dab.Game takes boards of 1 to 64 lines (up to 5x5)" % (rows, cols))
        self.rows, self.cols, self.utility = rows, cols, utility
        self.nlines, self.nboxes, self.nhoriz = nlines, rows * cols, (rows + 1) * cols
        self.all_lines = (1 << nlines) - 1
        R, C, nh = rows, cols, self.nhoriz
        self.box_mask = [(1 << (r * C + c)) | (1 << ((r + 1) * C + c)) | (1 << (nh + r * (C + 1) + c))
                         | (1 << (nh + r * (C + 1) + c + 1)) for r in range(R) for c in range(C)]
        self.line_boxes = [[b for b in range(self.nboxes) if self.box_mask[b] >> m & 1]
                           for m in range(nlines)]
        self._oracle_opts = dict(tb_dir=tb_dir, search=search, node_limit=node_limit,
                                 hash_mb=hash_mb, threads=threads,
                                 read_only=_read_only_arg(read_only, readonly))
        self._oracle = None
        self._vec = None

    # ---- OpenSpiel's Game API -------------------------------------------
    def num_distinct_actions(self):
        return self.nlines

    def max_game_length(self):
        """Every line is drawn once: nlines (OpenSpiel's own answer, 2C(R+1),
        is wrong on non-square boards)."""
        return self.nlines

    def num_players(self):
        return 2

    def min_utility(self):
        return -float(self.nboxes) if self.utility == "margin" else -1.0

    def max_utility(self):
        return float(self.nboxes) if self.utility == "margin" else 1.0

    def utility_sum(self):
        return 0.0

    def observation_tensor_shape(self, layout="openspiel"):
        """[3, (R+1)(C+1), 3] (openspiel) or [4, R+1, C+1] (planes)."""
        cells = (self.rows + 1) * (self.cols + 1)
        if layout == "openspiel":
            return [3, cells, 3]
        if layout == "planes":
            return [4, self.rows + 1, self.cols + 1]
        raise DabInputError(1, "layout %r: expected 'openspiel' or 'planes'" % (layout,))

    def observation_tensor_size(self, layout="openspiel"):
        s = self.observation_tensor_shape(layout)
        return s[0] * s[1] * s[2]

    def new_initial_state(self):
        return State(self)

    def new_states(self, n):
        """n initial states as one numpy-backed batch (dab.States)."""
        from .batch import States
        return States(self, n)

    def deserialize_state(self, text):
        return State.deserialize(text, self)

    def get_parameters(self):
        return {"num_rows": self.rows, "num_cols": self.cols, "utility_margin": self.utility == "margin"}

    def __str__(self):
        return "dots_and_boxes(num_cols=%d,num_rows=%d,utility_margin=%s)" % (
            self.cols, self.rows, "true" if self.utility == "margin" else "false")

    __repr__ = __str__

    def __eq__(self, other):
        return isinstance(other, Game) and (self.rows, self.cols, self.utility) == (
            other.rows, other.cols, other.utility)

    def __hash__(self):
        return hash((self.rows, self.cols, self.utility))

    # ---- dab ------------------------------------------------------------
    def oracle(self):
        """The game's dab.Oracle (opened on first use, then shared)."""
        if self._oracle is None:
            o = dict(self._oracle_opts)
            board = "%dx%d" % (self.rows, self.cols)
            search = o.pop("search")
            if search is None:
                try:
                    self._oracle = Oracle(board, search=False, **o)
                except DabBoardError:
                    self._oracle = Oracle(board, search=True, **o)
            else:
                self._oracle = Oracle(board, search=search, **o)
        return self._oracle

    def _vech(self):
        """The C geometry for batches (dab_vec), made once."""
        if self._vec is None:
            lib = _load()
            h, err = ctypes.c_void_p(), _Err()
            st = lib.dab_vec_new(self.rows, self.cols, ctypes.byref(h), ctypes.byref(err))
            if st:
                _raise(st, err)
            self._vec = h
        return self._vec

    def __del__(self):
        try:
            if self._vec is not None:
                _load().dab_vec_free(self._vec)
                self._vec = None
        except Exception:
            pass

    def completed(self, lines):
        """Box mask of the boxes complete in line set lines."""
        out = 0
        for b, m in enumerate(self.box_mask):
            if lines & m == m:
                out |= 1 << b
        return out


_GAME_RE = re.compile(r"^\s*dots_and_boxes\s*(?:\((.*)\))?\s*$")


def load_game(name, params=None):
    """OpenSpiel's entry point: load_game("dots_and_boxes", {"num_rows": 2,
    "num_cols": 3, "utility_margin": True}) or load_game(
    "dots_and_boxes(num_rows=2,num_cols=3)").  Defaults are OpenSpiel's
    and Game's: 2x2 and utility_margin=False (win/draw/loss,
    DEFAULT_UTILITY)."""
    m = _GAME_RE.match(name)
    if not m:
        raise DabInputError(1, "game %r: dab plays only dots_and_boxes" % (name,))
    p = {}
    if m.group(1):
        for kv in m.group(1).split(","):
            if kv.strip():
                k, _, v = kv.partition("=")
                p[k.strip()] = v.strip()
    p.update(params or {})
    unknown = set(p) - {"num_rows", "num_cols", "utility_margin"}
    if unknown:
        raise DabInputError(1, "unknown dots_and_boxes parameter(s): %s" % ", ".join(sorted(unknown)))
    margin = p.get("utility_margin", False)
    if isinstance(margin, str):
        margin = margin.lower() in ("true", "1", "yes")
    return Game(int(p.get("num_rows", 2)), int(p.get("num_cols", 2)), "margin" if margin else "wdl")


class State:
    """A game in progress: the lines, who drew each, the owner of each box,
    the score, the player to move and the history (for undo).

    Player ids are OpenSpiel's: 0 moves first; current_player() is -4
    (TERMINAL) once every line is drawn.
    """

    __slots__ = ("game", "lines", "by1", "box1", "score", "player", "hist", "_start")

    def __init__(self, game, lines=0, by1=0, box1=0, score=(0, 0), player=0):
        self.game = game
        self.lines, self.by1, self.box1 = lines, by1, box1
        self.score = [int(score[0]), int(score[1])]
        self.player = int(player)
        self.hist = []                  # (action, mover, boxes completed as a mask)
        self._start = None              # (lines, by1, box1, score, player) of a DBN start

    # ---- construction ---------------------------------------------------
    @classmethod
    def from_dbn(cls, rows, cols, dbn, score=None, player=0, utility=DEFAULT_UTILITY, game=None):
        """A state from a DBN (one 0/1 per line, OpenSpiel's DbnString, with
        or without "RxC:").  A DBN carries no score: give score=(a, b), the
        boxes of players 0 and 1, whenever a box is complete (a + b must be
        the complete boxes), and the player to move.  Who drew each line is
        unknown: in the OpenSpiel tensor such lines count as player 0's, and
        the complete boxes, in box order, as player 0's first score[0], then
        player 1's.  utility is that of the Game made when game is None."""
        game = game or Game(rows, cols, utility)
        if (game.rows, game.cols) != (rows, cols):
            raise DabInputError(1, "game is %dx%d, the DBN's board %dx%d" % (game.rows, game.cols, rows, cols))
        d = dbn.split(":", 1)[1] if ":" in dbn else dbn
        if len(d) != game.nlines or set(d) - {"0", "1"}:
            raise DabInputError(1, "DBN %r: expected %d digits 0/1 for %dx%d" % (dbn, game.nlines, rows, cols))
        lines = sum(1 << i for i, ch in enumerate(d) if ch == "1")
        done = [b for b in range(game.nboxes) if lines & game.box_mask[b] == game.box_mask[b]]
        if score is None:
            if done:
                raise DabInputError(1, "the DBN has %d complete boxes: pass score=(a, b)" % len(done))
            score = (0, 0)
        a, b = int(score[0]), int(score[1])
        if a < 0 or b < 0 or a + b != len(done):
            raise DabInputError(1, "score %d-%d: the position has %d complete boxes" % (a, b, len(done)))
        if player not in (0, 1):
            raise DabInputError(1, "player %r: expected 0 or 1" % (player,))
        box1 = sum(1 << x for x in done[a:])
        s = cls(game, lines, 0, box1, (a, b), player)
        s._start = (lines, 0, box1, (a, b), player)
        return s

    @classmethod
    def from_text(cls, text, score=None, player=None, utility=DEFAULT_UTILITY, game=None):
        """A state from dab's position text: "RxC" (empty), "RxC@m1,m2,..."
        (moves played from the empty board: the full history, so score and
        player follow) or "RxC:DBN" (as from_dbn: score and player given
        here, player 0 by default)."""
        m = re.match(r"^\s*(\d+)x(\d+)(?:([:@])(.*))?\s*$", text)
        if not m:
            raise DabInputError(1, "position %r: expected RxC, RxC:DBN or RxC@m1,m2,..." % (text,))
        rows, cols = int(m.group(1)), int(m.group(2))
        if m.group(3) == ":":
            return cls.from_dbn(rows, cols, m.group(4), score=score, player=player or 0,
                                utility=utility, game=game)
        if m.group(3) == "@" and not m.group(4).strip():
            # As the command line: the empty board is spelled "RxC" only.
            raise DabInputError(1, "position %r: column %d: expected a line number after '@' "
                                   "(the empty board is written '%dx%d')"
                                % (text, m.start(4) + 1, rows, cols))
        game = game or Game(rows, cols, utility)
        s = cls(game)
        if m.group(3) == "@":
            col = m.start(4)                # where the item starts in text (0-based)
            items = m.group(4).split(",")
            for i, item in enumerate(items):
                lead = len(item) - len(item.lstrip())
                where = "move %d of %d (column %d)" % (i + 1, len(items), col + lead + 1)
                mv = _MOVE_RE.match(item)
                if not mv:
                    raise DabInputError(1, "position %r: %s: expected a line number, got %r"
                                        % (text, where, item.strip()))
                a = int(mv.group(1))
                why = _illegal_why(game, s.lines, a)
                if why:
                    raise DabInputError(1, "position %r: %s: %s" % (text, where, why))
                s.apply_action(a)
                col += len(item) + 1
        return s

    @classmethod
    def deserialize(cls, text, game):
        """The inverse of serialize()."""
        lines = text.strip("\n").split("\n") if text.strip() else []
        if lines and lines[0].startswith("dbn "):
            f = lines.pop(0).split()
            s = cls.from_dbn(game.rows, game.cols, f[1], score=tuple(int(x) for x in f[2].split(",")),
                             player=int(f[3]), game=game)
        else:
            s = cls(game)
        for a in lines:
            s.apply_action(int(a))
        return s

    # ---- OpenSpiel's State API ------------------------------------------
    def current_player(self):
        return TERMINAL if self.lines == self.game.all_lines else self.player

    def is_terminal(self):
        return self.lines == self.game.all_lines

    def is_chance_node(self):
        return False

    def is_simultaneous_node(self):
        return False

    def is_player_node(self):
        return not self.is_terminal()

    def legal_actions(self, player=None):
        if player is not None and player != self.current_player():
            return []
        free = self.game.all_lines & ~self.lines
        return [m for m in range(self.game.nlines) if free >> m & 1]

    def legal_actions_mask(self, player=None):
        acts = set(self.legal_actions(player))
        return [1 if m in acts else 0 for m in range(self.game.nlines)]

    def apply_action(self, action):
        """Draws line action for the player to move; a move that completes a
        box keeps the turn.  Raises DabInputError (a ValueError, status 1) for a line beyond the
        board or already drawn, and dab.game.ActionTypeError (a TypeError) for
        an action that is not an int or a numpy integer (a bool, a float, a
        str...)."""
        g, m = self.game, as_action(action)
        if m < 0 or m >= g.nlines or self.lines >> m & 1:
            raise DabInputError(1, "action %d is not legal here: %s" % (m, _illegal_why(g, self.lines, m)))
        p = self.player
        q = self.lines | 1 << m
        boxes = 0
        for b in g.line_boxes[m]:
            if q & g.box_mask[b] == g.box_mask[b]:
                boxes |= 1 << b
        self.lines = q
        if p:
            self.by1 |= 1 << m
            self.box1 |= boxes
        k = bin(boxes).count("1")
        self.score[p] += k
        if not k and q != g.all_lines:
            self.player = 1 - p
        self.hist.append((m, p, boxes))

    def undo(self):
        """Takes back the last move (exactly: lines, owners, score, player)."""
        if not self.hist:
            raise DabInputError(1, "no move to undo")
        m, p, boxes = self.hist.pop()
        self.lines &= ~(1 << m)
        self.by1 &= ~(1 << m)
        self.box1 &= ~boxes
        self.score[p] -= bin(boxes).count("1")
        self.player = p

    def undo_action(self, player, action):
        """OpenSpiel's UndoAction(player, action): undo() after checking that
        the last move was action by player (integers: ActionTypeError, a
        TypeError, for anything else)."""
        action = as_action(action)
        if not _is_int(player):
            raise ActionTypeError("player %s: expected 0 or 1 (an int), not %s"
                                  % (_short(player), _type_name(player)))
        if not self.hist or self.hist[-1][:2] != (action, int(player)):
            raise DabInputError(1, "the last move was not %d by player %d" % (action, player))
        self.undo()

    def child(self, action):
        c = self.clone()
        c.apply_action(action)
        return c

    def clone(self):
        c = State.__new__(State)
        c.game, c.lines, c.by1, c.box1 = self.game, self.lines, self.by1, self.box1
        c.score, c.player, c.hist, c._start = list(self.score), self.player, list(self.hist), self._start
        return c

    def returns(self):
        """[r0, r1] at the end (margin: the box margins; wdl: +1/0/-1), else [0, 0]."""
        if not self.is_terminal():
            return [0.0, 0.0]
        d = self.score[0] - self.score[1]
        if self.game.utility == "wdl":
            d = _sign(d)
        return [float(d), float(-d)]

    def rewards(self):
        """As OpenSpiel's terminal reward model: returns() at the end, else [0, 0]."""
        return self.returns()

    def player_return(self, player):
        return self.returns()[player]

    def history(self):
        """The actions applied (after the DBN start, for from_dbn states)."""
        return [h[0] for h in self.hist]

    def history_str(self):
        return ", ".join(str(a) for a in self.history())

    def full_history(self):
        return self.history()

    def move_number(self):
        return bin(self.lines).count("1")

    def num_players(self):
        return 2

    def get_game(self):
        return self.game

    def serialize(self):
        """OpenSpiel's format: one action per line; a from_dbn state starts
        with a line "dbn DBN a,b player"."""
        out = ""
        if self._start:
            lines, _, _, sc, pl = self._start
            out = "dbn %s %d,%d %d\n" % (self._dbn(lines), sc[0], sc[1], pl)
        return out + "".join("%d\n" % a for a in self.history())

    def _dbn(self, lines):
        return "".join("1" if lines >> i & 1 else "0" for i in range(self.game.nlines))

    def dbn(self):
        """The 0/1 digits of the drawn lines (OpenSpiel's DbnString)."""
        return self._dbn(self.lines)

    def text(self):
        """dab's position text "RxC:DBN" (what the CLI takes)."""
        return "%dx%d:%s" % (self.game.rows, self.game.cols, self.dbn())

    def scores(self):
        return tuple(self.score)

    def _line_state(self, m):
        if not self.lines >> m & 1:
            return 0
        return 2 if self.by1 >> m & 1 else 1

    def _box_state(self, b):
        m = self.game.box_mask[b]
        if self.lines & m != m:
            return 0
        return 2 if self.box1 >> b & 1 else 1

    def observation_tensor(self, player=None, layout="openspiel"):
        """A flat numpy float32 array, as OpenSpiel's (reshape with
        game.observation_tensor_shape(layout)).  openspiel: [3 cell states
        (empty, player 0, player 1)][(R+1)(C+1) dots][3 parts (the line right
        of the dot, the line below it, the box to its lower right)], one-hot.
        planes: [4][R+1][C+1]: horizontal lines, vertical lines, boxes of
        player (default: the player to move, 0 at the end), boxes of the
        other.  docs/python.md draws both."""
        import numpy as np
        g = self.game
        R, C = g.rows, g.cols
        W = C + 1
        if layout == "openspiel":
            cells = (R + 1) * W
            t = np.zeros((3, cells, 3), dtype=np.float32)
            for r in range(R + 1):
                for c in range(W):
                    cell = r * W + c
                    t[self._line_state(r * C + c) if c < C else 0, cell, 0] = 1
                    t[self._line_state(g.nhoriz + r * W + c) if r < R else 0, cell, 1] = 1
                    t[self._box_state(r * C + c) if r < R and c < C else 0, cell, 2] = 1
            return t.reshape(-1)
        if layout == "planes":
            me = self._pov(player)
            t = np.zeros((4, R + 1, W), dtype=np.float32)
            for m in range(g.nlines):
                if self.lines >> m & 1:
                    if m < g.nhoriz:
                        t[0, m // C, m % C] = 1
                    else:
                        v = m - g.nhoriz
                        t[1, v // W, v % W] = 1
            for b in range(g.nboxes):
                st = self._box_state(b)
                if st:
                    t[2 if st - 1 == me else 3, b // C, b % C] = 1
            return t.reshape(-1)
        raise DabInputError(1, "layout %r: expected 'openspiel' or 'planes'" % (layout,))

    def _pov(self, player):
        if player is not None:
            return int(player)
        return self.player if not self.is_terminal() else 0

    def observation_string(self, player=None):
        """The board as OpenSpiel draws it (ObservationString / ToString)."""
        g = self.game
        R, C = g.rows, g.cols

        def hs(r, c):
            drawn = c < C and self.lines >> (r * C + c) & 1
            if c == C:
                return "┐" if r == 0 else "┘" if r == R else "┤"
            corner = "┌" if r == 0 and c == 0 else "└" if r == R and c == 0 else "├" if c == 0 \
                else "┬" if r == 0 else "┴" if r == R else "┼"
            return corner + ("───" if drawn else "╴ ╶")

        out = []
        for r in range(R):
            out.append("".join(hs(r, c) for c in range(C + 1)))
            row = ""
            for c in range(C + 1):
                row += "│" if self.lines >> (g.nhoriz + r * (C + 1) + c) & 1 else " "
                if c < C:
                    row += ("   ", " 1 ", " 2 ")[self._box_state(r * C + c)]
            out.append(row)
        out.append("".join(hs(R, c) for c in range(C + 1)))
        return "\n".join(out) + "\n"

    def __str__(self):
        return self.observation_string()

    def to_string(self):
        return self.observation_string()

    def action_to_string(self, player_or_action, action=None):
        """OpenSpiel's "P1(h,r,c)" / "P2(v,r,c)"; called as
        action_to_string(action) or action_to_string(player, action)."""
        if action is None:
            player, action = self._pov(None), player_or_action
        else:
            player = player_or_action
        g, a = self.game, as_action(action)
        if a < 0 or a >= g.nlines:
            raise DabInputError(1, "action %d: %s" % (a, _illegal_why(g, 0, a)))
        if a < g.nhoriz:
            o, r, c = "h", a // g.cols, a % g.cols
        else:
            v = a - g.nhoriz
            o, r, c = "v", v // (g.cols + 1), v % (g.cols + 1)
        return "P%d(%s,%d,%d)" % (int(player) + 1, o, r, c)

    def __eq__(self, other):
        return isinstance(other, State) and self.game == other.game and (
            self.lines, self.by1, self.box1, self.score, self.player) == (
            other.lines, other.by1, other.box1, other.score, other.player)

    def __repr__(self):
        return "<dab.State %s score %d-%d to move %d>" % (self.text(), self.score[0], self.score[1],
                                                          self.current_player())

    # ---- exact labels ---------------------------------------------------
    def _diff(self):
        p = self.player
        return self.score[p] - self.score[1 - p]

    def value(self):
        """Net boxes the player to move gains from here under optimal play:
        a dab.game.Value (an int, .exact True), or dab.Bounds(lower, upper)
        (.exact False) when the oracle's node limit stopped its search.
        0 at the end."""
        if self.is_terminal():
            return Value(0)
        return _label(*self.game.oracle().bounds(self.lines))

    def move_values(self):
        """{action: value of the move for the mover} (Value each), every
        legal action.  When a node limit stops the search, each move's value
        is bounded instead (Bounds where it could not be proved)."""
        if self.is_terminal():
            return {}
        o = self.game.oracle()
        try:
            return {m: Value(v) for m, v in o.move_values(self.lines).items()}
        except DabCanceledError:
            pass
        out = {}
        for m in self.legal_actions():
            c = self.child(m)
            k = c.score[self.player] - self.score[self.player]
            lo, hi = o.bounds(c.lines)
            out[m] = _label(k + lo, k + hi) if k else _label(-hi, -lo)
        return out

    def best_moves(self):
        """The optimal actions, sorted.  Under a node limit: the actions not
        proved worse than another (a list with .exact False)."""
        mv = self.move_values()
        if not mv:
            return _Moves([], True)
        best_lo = max(v.lower for v in mv.values())
        exact = all(v.exact for v in mv.values())
        if exact:
            return _Moves(sorted(m for m, v in mv.items() if v == best_lo), True)
        return _Moves(sorted(m for m, v in mv.items() if v.upper >= best_lo), False)

    def wdl(self):
        """WDL(result, keep, exact): the best result ("win", "draw",
        "loss") the player to move can reach given the score so far, and the
        moves that keep it.  At the end: the final result for the player who
        moved last, keep []."""
        d = self._diff()
        if self.is_terminal():
            return WDL(_RESULT_NAME[_sign(d)], [], True)
        o = self.game.oracle()
        try:
            r, keep = o.result(self.lines, d)
            return WDL(r, keep, True)
        except DabCanceledError:
            pass
        lo, hi = o.bounds(self.lines)
        r = _sign(d + lo) if _sign(d + lo) == _sign(d + hi) else None
        return WDL(_RESULT_NAME.get(r), None, False)


class _Moves(list):
    """A list of actions with .exact."""

    def __init__(self, items, exact):
        super().__init__(items)
        self.exact = exact
