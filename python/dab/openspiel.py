"""dab.openspiel: dab beside OpenSpiel's own dots_and_boxes (pyspiel).

    import pyspiel
    import dab.openspiel as dos

    game = pyspiel.load_game("dots_and_boxes", {"num_rows": 3, "num_cols": 3})
    bot = dos.ExactBot(game, seed=1)            # a pyspiel.Bot: optimal moves
    s = game.new_initial_state()
    s.apply_action(bot.step(s))
    d = dos.from_pyspiel(s)                      # dab.State: value(), move_values()...
    p = dos.to_pyspiel(d)                        # back to a pyspiel state
    ev = dos.ExactEvaluator(game)                # exact leaves for OpenSpiel's MCTSBot

Contracts
- pyspiel is imported only when needed: `import dab.openspiel` works
  without OpenSpiel; ExactBot and ExactEvaluator (subclasses of pyspiel.Bot
  and of open_spiel's mcts.Evaluator) are made on first access and raise
  ImportError naming the missing package there.
- What is read from a pyspiel state: its lines (dbn_string()), the player
  to move (current_player(); -4 at the end), its score (the box owners of
  its drawing, str(state): exactly the points OpenSpiel counts, also for a
  state made by NewInitialState(dbn), whose complete boxes belong to no
  one) and its board and utility (the game's parameters, OpenSpiel's
  defaults 2x2, utility_margin=false where a parameter is not given).
- Values are dab's: the net boxes the player to move gains from here under
  optimal play, from the board's dab.Oracle (its tablebase, a table solved
  in memory for boards of up to 24 lines, else alpha-beta search, under
  node_limit when given: then only bounds where the search stopped).
- from_pyspiel(state) -> dab.State and to_pyspiel(dab_state, game=None) ->
  pyspiel state carry lines, who drew each line, box owners, score, player
  to move and history exactly when the state's history starts from the
  empty board (both replay it).  DBN starts: see each function.
- Bad input raises one exception with a one-line message: TypeError for an
  object that is not a state of the kind expected, ValueError for a state of
  another game, a board other than the one a bot or game plays, a board of
  more than 64 lines, an illegal action, a finished game where a move is
  asked for.
- OpenSpiel's UndoAction is wrong (it clears both lines of the move's cell):
  a state it has undone can hold history actions whose line is no longer
  drawn; from_pyspiel refuses such a state (ValueError).  Use clone().
"""
import random

from dab import Game, State
from dab.game import as_action

__all__ = ["from_pyspiel", "to_pyspiel", "board_of", "ExactBot", "ExactEvaluator", "MAX_LINES"]

MAX_LINES = 64          # dab's boards: at most 64 lines (5x5 has 60)
TERMINAL = -4           # OpenSpiel's kTerminalPlayerId


def _pyspiel():
    try:
        import pyspiel
    except ImportError as e:
        raise ImportError("dab.openspiel needs OpenSpiel's Python package (pip install open-spiel): %s"
                          % e) from None
    return pyspiel


def _nlines(rows, cols):
    return rows * (cols + 1) + (rows + 1) * cols


def _game_of(state):
    """The pyspiel game of state, after checking it is a dots_and_boxes state."""
    try:
        ok = isinstance(state, _pyspiel().State)
    except ImportError:
        ok = False
    if not ok:
        raise TypeError("expected a pyspiel dots_and_boxes state, got %s" % (
            "a dab.State (to_pyspiel converts it)" if isinstance(state, State) else type(state).__name__))
    game = state.get_game()
    name = game.get_type().short_name
    if name != "dots_and_boxes":
        raise ValueError("a state of OpenSpiel's %r: dab.openspiel plays only dots_and_boxes" % name)
    return game


_BOARDS = {}


def board_of(game):
    """(rows, cols, utility_margin) of a pyspiel dots_and_boxes game (or of
    a state's game); ValueError for another game or a board past 64 lines."""
    if not hasattr(game, "get_type") or not hasattr(game, "get_parameters"):
        if isinstance(game, State) or hasattr(game, "get_game"):
            game = _game_of(game)
        else:
            raise TypeError("expected a pyspiel game, got %s" % type(game).__name__)
    key = str(game)
    b = _BOARDS.get(key)
    if b is None:
        name = game.get_type().short_name
        if name != "dots_and_boxes":
            raise ValueError("OpenSpiel's %r: dab.openspiel plays only dots_and_boxes" % name)
        p = game.get_parameters()
        rows, cols = int(p.get("num_rows", 2)), int(p.get("num_cols", 2))
        b = (rows, cols, bool(p.get("utility_margin", False)))
        if _nlines(rows, cols) > MAX_LINES:
            raise ValueError("%dx%d has %d lines: dab plays boards of at most %d lines (up to 5x5)"
                             % (rows, cols, _nlines(rows, cols), MAX_LINES))
        _BOARDS[key] = b
    return b


def _read(state, board=None):
    """(rows, cols, margin, lines, score, player) of a pyspiel state.
    board=(rows, cols): the board the caller plays; another raises ValueError."""
    rows, cols, margin = board_of(_game_of(state))
    if board is not None and (rows, cols) != tuple(board[:2]):
        raise ValueError("the state is %dx%d dots_and_boxes, this plays %dx%d"
                         % (rows, cols, board[0], board[1]))
    dbn = state.dbn_string()
    lines = int(dbn[::-1], 2)
    drawing = str(state)
    score = (drawing.count("1"), drawing.count("2"))
    return rows, cols, margin, lines, score, state.current_player()


def _dab_game(rows, cols, margin, **oracle):
    return Game(rows, cols, "margin" if margin else "wdl", **oracle)


def from_pyspiel(state, game=None, start_score=None):
    """The dab.State of a pyspiel dots_and_boxes state.

    A state whose history starts from the empty board is replayed: lines,
    who drew each, box owners, score, player and history all agree.  A
    state made by OpenSpiel's NewInitialState(dbn) starts from that DBN
    with score 0-0 and player 0 (OpenSpiel counts the DBN's complete boxes
    for neither player): its dab.State is State.from_dbn(start, score,
    player=0) plus the history; when the DBN holds complete boxes, dab
    needs their owners: pass start_score=(a, b) (else ValueError); the
    returns then count them, OpenSpiel's do not.
    game: the dab.Game to use (its board must match; it carries oracle
    options), else a new one with the state's board and utility."""
    rows, cols, margin, lines, score, player = _read(state)
    if game is None:
        game = _dab_game(rows, cols, margin)
    elif not isinstance(game, Game):
        raise TypeError("game: expected a dab.Game, got %s" % type(game).__name__)
    elif (game.rows, game.cols) != (rows, cols):
        raise ValueError("the state is %dx%d, the dab.Game %dx%d" % (rows, cols, game.rows, game.cols))
    hist = [int(a) for a in state.history()]
    hmask = 0
    for a in hist:
        if not lines >> a & 1 or hmask >> a & 1:
            raise ValueError("history action %d is not a drawn line once: was the state undone by "
                             "OpenSpiel's UndoAction (it clears two lines)? use clone()" % a)
        hmask |= 1 << a
    start = lines & ~hmask
    if start:
        digits = "".join("1" if start >> i & 1 else "0" for i in range(game.nlines))
        done = game.completed(start)
        if done and start_score is None:
            raise ValueError("the DBN start has %d complete boxes, which OpenSpiel counts for neither "
                             "player: pass start_score=(a, b)" % bin(done).count("1"))
        s = State.from_dbn(rows, cols, digits, score=start_score if done else (0, 0), player=0, game=game)
    else:
        s = State(game)
    for a in hist:
        s.apply_action(a)
    if s.current_player() != player:
        raise ValueError("replaying the history gives player %d to move, the state says %d"
                         % (s.current_player(), player))
    return s


def _parse_serialized(dstate):
    """(start (lines, score, player) or None, actions) of a dab.State, from
    its public serialize() text."""
    rows = dstate.serialize().strip("\n").split("\n")
    start = None
    if rows and rows[0].startswith("dbn "):
        f = rows.pop(0).split()
        lines = sum(1 << i for i, ch in enumerate(f[1]) if ch == "1")
        start = (lines, tuple(int(x) for x in f[2].split(",")), int(f[3]))
    return start, [int(a) for a in rows if a.strip()]


def to_pyspiel(dstate, game=None, dbn_start=False):
    """The pyspiel state of a dab.State.

    game: the pyspiel game (its board must match), else OpenSpiel's
    dots_and_boxes with the state's board and utility_margin = (the dab
    game's utility is "margin").  A state whose history starts from the
    empty board is replayed: lines, who drew each, box owners, score,
    player and history agree.

    A dab state made from a DBN (State.from_dbn) has no history before the
    DBN.  When the DBN has no complete box (score 0-0) and the player to
    move is the parity of its line count, its lines are replayed in
    increasing order (no box is completed on the way) and then the history:
    the same lines, score and player (the DBN's lines drawn alternately by
    the two players).  Any other DBN start raises ValueError, unless
    dbn_start=True: then the state is OpenSpiel's NewInitialState(dbn) plus
    the history, which has score 0-0 and player 0 at the DBN (its complete
    boxes count for neither player), and whose ObservationTensor writes past
    the tensor (an OpenSpiel bug: don't call it on such a state)."""
    if not isinstance(dstate, State):
        raise TypeError("expected a dab.State, got %s" % type(dstate).__name__)
    g = dstate.game
    if game is None:
        game = _pyspiel().load_game("dots_and_boxes", {"num_rows": g.rows, "num_cols": g.cols,
                                                       "utility_margin": g.utility == "margin"})
    rows, cols, _ = board_of(game)
    if (rows, cols) != (g.rows, g.cols):
        raise ValueError("the state is %dx%d, the pyspiel game %dx%d" % (g.rows, g.cols, rows, cols))
    start, actions = _parse_serialized(dstate)
    if start is None:
        ps = game.new_initial_state()
    else:
        lines, score, player = start
        k = bin(lines).count("1")
        if not g.completed(lines) and score == (0, 0) and player == k % 2:
            ps = game.new_initial_state()
            for m in range(g.nlines):
                if lines >> m & 1:
                    ps.apply_action(m)
        elif dbn_start:
            ps = game.new_initial_state("".join("1" if lines >> i & 1 else "0" for i in range(g.nlines)))
        else:
            raise ValueError("the state starts from a DBN with score %d-%d and player %d to move, which "
                             "OpenSpiel cannot start from (its NewInitialState(dbn) gives 0-0, player 0): "
                             "pass dbn_start=True for that" % (score[0], score[1], player))
    for a in actions:
        ps.apply_action(a)
    return ps


class _Exact:
    """What ExactBot and ExactEvaluator share: one dab.Game (and so one
    oracle) per board, and the exact labels of a pyspiel state."""

    def _init_exact(self, game, node_limit, tb_dir, search):
        self._board = board_of(game)[:2] if game is not None else None
        self._opts = dict(node_limit=int(node_limit or 0), tb_dir=tb_dir, search=search)
        self._games = {}

    def _dab(self, state):
        """(dab.State of the position, margin) for a pyspiel state: the
        lines, score and player to move (the history is not needed)."""
        rows, cols, margin, lines, score, player = _read(state, self._board)
        g = self._game(rows, cols)
        return State(g, lines, 0, 0, score, player if player >= 0 else 0), margin

    def _game(self, rows, cols):
        g = self._games.get((rows, cols))
        if g is None:
            g = self._games[(rows, cols)] = _dab_game(rows, cols, True, **self._opts)
        return g

    def oracle(self, rows, cols):
        """The dab.Oracle this uses for a board (opened on first use)."""
        return self._game(rows, cols).oracle()


def _best(mv):
    """The optimal moves of {move: Value or Bounds}: the moves of the
    highest value when exact, else those of the highest proved lower bound
    (then the highest upper bound)."""
    if all(v.exact for v in mv.values()):
        top = max(mv.values())
        return sorted(m for m, v in mv.items() if v == top), True
    key = {m: (v.lower, v.upper) for m, v in mv.items()}
    top = max(key.values())
    return sorted(m for m, k in key.items() if k == top), False


def _make_bot_class():
    pyspiel = _pyspiel()

    class ExactBot(pyspiel.Bot):
        """A pyspiel.Bot that plays an optimal move of any dots_and_boxes
        state by dab's oracle: the move of the highest exact value (the
        margin-optimal move, which also keeps the best win/draw/loss
        result given the score).

        ExactBot(game=None, node_limit=0, tb_dir=None, seed=None,
        search=None): game, when given, fixes the board (a state of another
        raises ValueError); node_limit bounds each search (0: none; where it
        stops, the move with the best proved lower bound is played and
        last_exact is False; without one an early 4x4 or 5x5 position can
        take minutes or far longer); tb_dir: where tables are looked up first;
        seed: None plays the lowest-numbered optimal move, an int breaks
        ties among optimal moves at random (its own random.Random(seed));
        search: as dab.Game's (None: search only where no table covers the
        board).  The bot is stateless: each step reads the state it is
        given, so restart, restart_at and inform_action only check their
        input.  provides_policy() is True: the policy is uniform over the
        optimal moves."""

        def __init__(self, game=None, node_limit=0, tb_dir=None, seed=None, search=None):
            pyspiel.Bot.__init__(self)
            _Exact._init_exact(self, game, node_limit, tb_dir, search)
            self._seed = seed
            self._rng = random.Random(seed) if seed is not None else None
            self.last_exact = True

        _dab = _Exact._dab
        _game = _Exact._game
        oracle = _Exact.oracle

        def optimal_moves(self, state):
            """The optimal actions of a pyspiel state, sorted (under a node
            limit: those of the best proved lower bound; last_exact says)."""
            s, _ = self._dab(state)
            if s.is_terminal():
                raise ValueError("the game is over: no move to play")
            moves, self.last_exact = _best(s.move_values())
            return moves

        def step(self, state):
            moves = self.optimal_moves(state)
            return self._rng.choice(moves) if self._rng else moves[0]

        def provides_policy(self):
            return True

        def get_policy(self, state):
            moves = set(self.optimal_moves(state))
            p = 1.0 / len(moves)
            return [(a, p if a in moves else 0.0) for a in state.legal_actions()]

        def step_with_policy(self, state):
            moves = self.optimal_moves(state)
            p = 1.0 / len(moves)
            policy = [(a, p if a in moves else 0.0) for a in state.legal_actions()]
            return policy, (self._rng.choice(moves) if self._rng else moves[0])

        def restart(self):
            pass

        def restart_at(self, state):
            _read(state, self._board)

        def inform_action(self, state, player_id, action):
            """Checks that action is legal for player_id in state (ValueError
            if not; dab.game.ActionTypeError, a TypeError and a ValueError,
            for an action that is not an int or a numpy integer); the bot
            keeps no state."""
            _read(state, self._board)
            if player_id != state.current_player():
                raise ValueError("player %r is not to move (player %d is)" % (player_id, state.current_player()))
            action = as_action(action)
            if action not in state.legal_actions():
                raise ValueError("action %r is not legal here (drawn, or not a line of the board)" % (action,))

        def is_clonable(self):
            return True

        def clone(self):
            seed = None if self._rng is None else self._rng.randrange(1 << 62)
            b = ExactBot(None, self._opts["node_limit"], self._opts["tb_dir"], seed, self._opts["search"])
            b._board, b._games = self._board, self._games
            return b

    ExactBot.__module__ = __name__
    return ExactBot


def _make_evaluator_class():
    _pyspiel()
    try:
        from open_spiel.python.algorithms import mcts
    except ImportError as e:
        raise ImportError("dab.openspiel.ExactEvaluator needs open_spiel.python.algorithms.mcts "
                          "(pip install open-spiel): %s" % e) from None
    import numpy as np

    class ExactEvaluator(mcts.Evaluator):
        """Exact leaf values for OpenSpiel's MCTSBot (an mcts.Evaluator).

        evaluate(state): the returns of both players under optimal play from
        state, in the game's utility: with utility_margin=true the final box
        margin (the score difference so far plus the oracle's value for the
        player to move), else +1/0/-1 (its sign).  Where a node limit left
        the value open, the middle of the proved bounds (its sign's middle
        for win/draw/loss).  A finished state gives its returns().
        prior(state): "uniform" (1/n per legal action) or "optimal" (the
        optimal moves share 1 - eps, the others eps; eps=0.1, all the mass
        on the optimal moves when eps=0).
        ExactEvaluator(game=None, prior="uniform", eps=0.1, node_limit=0,
        tb_dir=None, search=None): as ExactBot's options."""

        def __init__(self, game=None, prior="uniform", eps=0.1, node_limit=0, tb_dir=None, search=None):
            if prior not in ("uniform", "optimal"):
                raise ValueError("prior %r: expected 'uniform' or 'optimal'" % (prior,))
            if not 0 <= eps < 1:
                raise ValueError("eps %r: expected 0 <= eps < 1" % (eps,))
            _Exact._init_exact(self, game, node_limit, tb_dir, search)
            self._prior, self._eps = prior, float(eps)

        _dab = _Exact._dab
        _game = _Exact._game
        oracle = _Exact.oracle

        def evaluate(self, state):
            s, margin = self._dab(state)
            if s.is_terminal():
                return np.array(state.returns(), dtype=float)
            p = s.current_player()
            d = s.score[p] - s.score[1 - p]
            v = s.value()
            if margin:
                r = d + (v.lower + v.upper) / 2.0
            else:
                lo, hi = d + v.lower, d + v.upper
                r = ((lo > 0) - (lo < 0) + (hi > 0) - (hi < 0)) / 2.0
            out = np.zeros(2)
            out[p], out[1 - p] = r, -r
            return out

        def prior(self, state):
            s, _ = self._dab(state)
            legal = s.legal_actions()
            if self._prior == "uniform" or len(legal) < 2:
                return [(a, 1.0 / len(legal)) for a in legal]
            best, _ = _best(s.move_values())
            if len(best) == len(legal):
                return [(a, 1.0 / len(legal)) for a in legal]
            good, bad = (1.0 - self._eps) / len(best), self._eps / (len(legal) - len(best))
            best = set(best)
            return [(a, good if a in best else bad) for a in legal]

    ExactEvaluator.__module__ = __name__
    return ExactEvaluator


_LAZY = {"ExactBot": _make_bot_class, "ExactEvaluator": _make_evaluator_class}


def __getattr__(name):
    """ExactBot and ExactEvaluator are made on first access (they subclass
    OpenSpiel's classes, so they need pyspiel)."""
    make = _LAZY.get(name)
    if make is None:
        raise AttributeError("module 'dab.openspiel' has no attribute %r" % name)
    cls = make()
    globals()[name] = cls
    return cls
