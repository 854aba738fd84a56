"""test_game.py: dab.Game / dab.State / dab.States against the C engine,
brute force and OpenSpiel's layout written out by hand.

Run with /usr/bin/python3 (tests/run.sh does).  Ends with the line
"test_game.py: N passed, M failed".
"""
import json
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DAB_TB_NO_PROJECT", "1")   # no user tables: the oracle solves in memory
import numpy as np  # noqa: E402
import dab  # noqa: E402

from checks import check, report  # noqa: E402


root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
dab_bin = os.environ.get("DAB_BIN", os.path.join(root, "bin", "dab"))


def all_states(game, check_steps=None):
    """Every distinct state (lines, score, player) of game, each reached
    through the State API: the C batch expands a layer's every move, and
    each new state is made in Python by State.apply_action from the first
    parent that reaches it.  check_steps(python_child, batch, j) compares
    the two; returns the states in layer order."""
    states = [game.new_initial_state()]
    layer = states
    while layer:
        b = dab.States.from_states(layer)
        par, act = np.nonzero(b.legal_actions_mask())
        kids = dab.States(game, len(par))
        for name in ("lines", "by1", "box1", "score", "to_move"):
            getattr(kids, name)[...] = getattr(b, name)[par]
        kids.apply_actions(act)
        key = (kids.lines.astype(np.int64) | kids.score[:, 0].astype(np.int64) << 40
               | kids.score[:, 1].astype(np.int64) << 48 | kids.to_move.astype(np.int64) << 56)
        _, first = np.unique(key, return_index=True)
        nxt = []
        for j in first:
            c = layer[par[j]].clone()
            c.apply_action(int(act[j]))
            if check_steps:
                check_steps(c, kids, j)
            nxt.append(c)
        states += nxt
        layer = nxt
    return states


def to_batch(states):
    return dab.States.from_states(states)


# ---- Every state of 2x2 and 2x3 against the C engine ---------------------
ALL = {}
for rows, cols in ((2, 2), (2, 3)):
    g = dab.Game(rows, cols, utility="margin")
    gw = dab.Game(rows, cols, utility="wdl")
    L = g.nlines
    diff = [0]

    def same(c, kids, j):
        diff[0] += (c.lines, c.by1, c.box1, c.score[0], c.score[1], c.player) != (
            int(kids.lines[j]), int(kids.by1[j]), int(kids.box1[j]), int(kids.score[j, 0]),
            int(kids.score[j, 1]), int(kids.to_move[j]))

    states = all_states(g, same)
    ALL[rows, cols] = states
    check(diff[0] == 0, "%dx%d: %d states made by State.apply_action equal the C step (%d differ)"
          % (rows, cols, len(states), diff[0]))
    b = to_batch(states)
    # Legal moves: the C mask against legal_actions().
    mask = b.legal_actions_mask()
    bad = sum(list(np.flatnonzero(mask[i])) != s.legal_actions() for i, s in enumerate(states))
    check(bad == 0, "%dx%d: legal actions of %d states equal the C mask (%d differ)" % (rows, cols, len(states), bad))
    # Player and returns in both utility modes.
    cp = b.current_player()
    check(all(cp[i] == s.current_player() for i, s in enumerate(states)), "%dx%d: current_player" % (rows, cols))
    term = [s for s in states if s.is_terminal()]
    check(len(term) > 0 and all(s.current_player() == -4 for s in term) and
          all(s.current_player() in (0, 1) for s in states if not s.is_terminal()),
          "%dx%d: -4 exactly at the end (%d terminal states)" % (rows, cols, len(term)))
    rb, bw = b.returns(), to_batch(states)
    bw.game = gw
    rw = bw.returns()
    bad = 0
    for i, s in enumerate(states):
        d = s.score[0] - s.score[1] if s.is_terminal() else 0
        sw = dab.State(gw, s.lines, s.by1, s.box1, s.score, s.player)
        want_m, want_w = [d, -d], [np.sign(d), -np.sign(d)]
        bad += s.returns() != want_m or list(rb[i]) != want_m or sw.returns() != want_w or list(rw[i]) != want_w
        bad += s.rewards() != s.returns()
    check(bad == 0, "%dx%d: returns and rewards in margin and wdl modes (%d differ)" % (rows, cols, bad))
    check(sum(s.score[0] + s.score[1] for s in term) == rows * cols * len(term), "%dx%d: every box scored" % (rows, cols))

    # The CLI's engine on a sample: dab show's DBN, player and score.
    rng = random.Random(rows * 7 + cols)
    bad = n = 0
    for _ in range(60 if rows * cols == 4 else 40):
        s, moves = g.new_initial_state(), []
        for _ in range(rng.randrange(L)):
            a = rng.choice(s.legal_actions())
            moves.append(a)
            s.apply_action(a)
        text = "%dx%d@%s" % (rows, cols, ",".join(map(str, moves)))
        out = subprocess.run([dab_bin, "show", text if moves else "%dx%d" % (rows, cols), "--json"],
                             capture_output=True, text=True)
        j = json.loads(out.stdout)
        bad += (j["dbn"], j.get("to_move", 0), j.get("score", [0, 0])) != (s.text(), s.player, s.score)
        bad += dab.State.from_text(text if moves else "%dx%d" % (rows, cols), game=g) != s
        n += 1
    check(bad == 0, "%dx%d: %d random positions equal `dab show` (%d differ)" % (rows, cols, n, bad))

# ---- undo restores every 2x2 state ---------------------------------------
g22 = dab.Game(2, 2)
states22 = ALL[2, 2]
bad = 0
for s in states22:
    before = (s.lines, s.by1, s.box1, list(s.score), s.player, s.history())
    for a in s.legal_actions():
        s.apply_action(a)
        s.undo()
        bad += (s.lines, s.by1, s.box1, list(s.score), s.player, s.history()) != before
check(bad == 0, "2x2: apply then undo restores all %d states exactly" % len(states22))
s = g22.new_initial_state()
for a in (0, 1, 2):
    s.apply_action(a)
s.undo_action(0, 2) if s.hist[-1][1] == 0 else s.undo_action(1, 2)
check(s.history() == [0, 1], "undo_action(player, action)")
try:
    s.undo_action(0, 7)
    check(False, "undo_action of a move never made raises")
except dab.DabError:
    check(True, "undo_action of a move never made raises")

# ---- wdl() against a brute-force outcome search ---------------------------


def brute_wdl_table(rows, cols, dmax):
    """W[p, d + dmax]: the best result (1/0/-1) for the mover at line set p
    with score difference d so far, by retrograde over every line set:
    outcomes only, no margins."""
    g = dab.Game(rows, cols)
    L, N = g.nlines, 1 << g.nlines
    D = 2 * dmax + 1
    p = np.arange(N, dtype=np.int64)
    pop = np.array([bin(x).count("1") for x in range(N)])
    W = np.zeros((N, D), dtype=np.int8)
    ds = np.arange(-dmax, dmax + 1)
    W[N - 1] = np.sign(ds)
    masks = np.array(g.box_mask, dtype=np.int64)
    for k in range(L - 1, -1, -1):
        ps = p[pop == k]
        best = np.full((len(ps), D), -2, dtype=np.int8)
        for m in range(L):
            ok = (ps >> m & 1) == 0
            q = ps[ok] | (1 << m)
            done = ((q[:, None] & masks[None, :]) == masks[None, :]) & ((masks >> m & 1) == 1)[None, :]
            gain = done.sum(axis=1)
            res = np.empty((ok.sum(), D), dtype=np.int8)
            for j, d in enumerate(ds):
                dd_keep = np.clip(d + gain, -dmax, dmax) + dmax    # same mover
                dd_pass = np.clip(-d, -dmax, dmax) + dmax          # turn passes
                res[:, j] = np.where(gain > 0, W[q, dd_keep], -W[q, dd_pass])
            best[ok] = np.maximum(best[ok], res)
        W[ps] = best
    return W


for rows, cols, diffs in ((2, 2, (-3, -1, 0, 1, 2)), (2, 3, (-4, -2, -1, 0, 1, 3))):
    g = dab.Game(rows, cols)
    dmax = rows * cols + 1
    W = brute_wdl_table(rows, cols, dmax)
    N = 1 << g.nlines
    # batch: every line set at every score difference, one C call each
    bad = 0
    for d in diffs:
        b = dab.States(g, N)
        b.lines[:] = np.arange(N, dtype=np.uint64)
        b.score[:, 0] = d
        res, keep = b.wdl()
        want = W[np.arange(N), d + dmax]
        bad += int((res != want).sum())
        # keep = the moves whose outcome equals the best
        sample = np.random.default_rng(d + 10).integers(0, N - 1, 300)
        for p in sample:
            p = int(p)
            s = dab.State(g, p, 0, 0, (0, 0), 0)
            kk = []
            for m in s.legal_actions():
                c = s.child(m)
                gain = c.score[0]
                r = W[c.lines, min(d + gain, dmax) + dmax] if gain else -W[c.lines, -d + dmax]
                if r == want[p]:
                    kk.append(m)
            bad += list(np.flatnonzero(keep[p])) != kk
    check(bad == 0, "%dx%d: States.wdl() of all %d line sets at %d score differences equals brute force (%d differ)"
          % (rows, cols, N, len(diffs), bad))
    # State.wdl() on states reached by play: every 2x2 state, a sample of 2x3
    sts = ALL[rows, cols]
    if rows * cols > 4:
        sts = random.Random(5).sample(sts, 1500)
    names = {1: "win", 0: "draw", -1: "loss"}
    bad = 0
    for s in sts:
        d = s.score[s.player] - s.score[1 - s.player]
        w = s.wdl()
        want = W[s.lines, d + dmax] if not s.is_terminal() else np.sign(d)
        bad += w.result != names[int(want)] or not w.exact
    check(bad == 0, "%dx%d: State.wdl() of %d states reached by play equals brute force (%d differ)"
          % (rows, cols, len(sts), bad))

# ---- values, move values and best moves on states ---------------------------
g = dab.Game(2, 3)
o = g.oracle()
rng = random.Random(3)
bad = 0
for _ in range(300):
    s = g.new_initial_state()
    for _ in range(rng.randrange(g.nlines)):
        s.apply_action(rng.choice(s.legal_actions()))
    mv = s.move_values()
    bad += mv != o.move_values(s.lines) or s.value() != o.value(s.lines) or not s.value().exact
    bad += s.best_moves() != o.best_moves(s.lines)
check(bad == 0, "State.value / move_values / best_moves equal the oracle's")
b = dab.States.from_states([g.new_initial_state()] * 3)
lab = b.values()
check(list(lab.value) == [o.value(0)] * 3 and lab.exact.all(), "States.values()")
mvb, ex = b.move_values()
check(ex.all() and list(mvb[0]) == [o.move_values(0)[m] for m in range(g.nlines)], "States.move_values()")

# A node-limited search answers with bounds, exact=False, instead of raising.
g44 = dab.Game(4, 4, search=True, node_limit=20000, hash_mb=16)
s44 = g44.new_initial_state()
v = s44.value()
check(not v.exact and v.lower <= -2 <= v.upper if not v.exact else v == -2,
      "4x4 empty board under a node limit: bounds %r" % (v,))
check(not v.exact, "the node limit leaves the 4x4 empty board inexact")
w = s44.wdl()
check(w.exact is False and w.keep is None, "wdl() under the node limit: exact False")
late = dab.State.from_dbn(4, 4, "1" * 26 + "0" * 14, score=(2, 2), player=0, game=g44)
check(late.value().exact and late.best_moves().exact, "a late 4x4 position is exact within the limit")
lb = dab.States.from_states([s44, late]).values()
check(list(lb.exact) == [False, True] and lb.lower[0] < lb.upper[0] and lb.value[0] == -128,
      "States.values() mixes bounds and exact labels")

# ---- OpenSpiel's observation tensor, 1x1 by hand -----------------------------
g11 = dab.Game(1, 1)
s = g11.new_initial_state()
check(g11.observation_tensor_shape() == [3, 4, 3], "1x1 shape [3, 4, 3]")
empty = np.zeros((3, 4, 3), dtype=np.float32)
empty[0, :, :] = 1
check((s.observation_tensor().reshape(3, 4, 3) == empty).all(), "1x1 empty board: all empty")
for a in (0, 2, 1, 3):     # P0 top, P1 left, P0 bottom, P1 right (completes the box)
    s.apply_action(a)
# dots: 0=(0,0) 1=(0,1) 2=(1,0) 3=(1,1); parts: h right, v below, box lower right
want = np.array([
    # cell state 0 (empty)
    [[0, 0, 0],      # dot 0: h0 by P0, v(0,0) by P1, box by P1
     [1, 0, 1],      # dot 1: no h right of it, v(0,1) by P1, no box
     [0, 1, 1],      # dot 2: h1 by P0, nothing below, no box
     [1, 1, 1]],     # dot 3: nothing
    # cell state 1 (player 1 = id 0)
    [[1, 0, 0],
     [0, 0, 0],
     [1, 0, 0],
     [0, 0, 0]],
    # cell state 2 (player 2 = id 1)
    [[0, 1, 1],
     [0, 1, 0],
     [0, 0, 0],
     [0, 0, 0]],
], dtype=np.float32)
t = s.observation_tensor()
check(t.dtype == np.float32 and t.shape == (36,) and (t.reshape(3, 4, 3) == want).all(),
      "1x1 tensor after 0,2,1,3 equals the hand-written one")
check(s.score == [0, 1] and s.returns() == [-1.0, 1.0] and s.current_player() == -4, "1x1 result")
bt = dab.States.from_states([s]).observation_tensor()
check(bt.shape == (1, 3, 4, 3) and (bt[0] == want).all(), "the C tensor equals the hand-written one")
planes = s.observation_tensor(layout="planes", player=1).reshape(4, 2, 2)
check(planes[0].tolist() == [[1, 0], [1, 0]] and planes[1].tolist() == [[1, 1], [0, 0]] and
      planes[2].tolist() == [[1, 0], [0, 0]] and planes[3].sum() == 0, "1x1 planes from player 1's side")
# C and Python tensors agree on every 2x3 state, both layouts
st23 = ALL[2, 3][::7]
b = dab.States.from_states(st23)
for lay in ("openspiel", "planes"):
    tc = b.observation_tensor(layout=lay).reshape(len(st23), -1)
    tp = np.stack([x.observation_tensor(layout=lay) for x in st23])
    check((tc == tp).all(), "2x3 %s tensors: C equals Python on %d states" % (lay, len(st23)))

# ---- metadata, strings, serialization ----------------------------------------
g = dab.Game(2, 3, utility="margin")
check((g.num_distinct_actions(), g.max_game_length(), g.num_players(), g.min_utility(), g.max_utility())
      == (17, 17, 2, -6.0, 6.0), "2x3 metadata (margin)")
gw = dab.Game(2, 3, utility="wdl")
check((gw.min_utility(), gw.max_utility()) == (-1.0, 1.0), "2x3 metadata (wdl)")
og = dab.load_game("dots_and_boxes", {"num_rows": 2, "num_cols": 3})
check(og.utility == "wdl" and (og.rows, og.cols) == (2, 3), "load_game follows OpenSpiel's defaults")
# One default utility: Game, load_game, from_dbn and from_text all give
# OpenSpiel's win/draw/loss unless told otherwise.
dflt = [dab.Game(2, 3), dab.load_game("dots_and_boxes(num_rows=2,num_cols=3)"),
        dab.State.from_dbn(2, 3, "0" * 17).game, dab.State.from_text("2x3@0").game]
check(dab.game.DEFAULT_UTILITY == "wdl" and all(x.utility == "wdl" for x in dflt) and len(set(dflt)) == 1
      and dflt[0].get_parameters()["utility_margin"] is False and (dflt[0].min_utility(), dflt[0].max_utility())
      == (-1.0, 1.0), "one default utility, win/draw/loss: %s" % [x.utility for x in dflt])
won = dab.State.from_dbn(2, 3, "1" * 17, score=(4, 2))
check(won.returns() == [1.0, -1.0] and won.value() == 0
      and won.game.new_initial_state().value() == dab.Game(2, 3, utility="margin").new_initial_state().value() == -2,
      "by default returns are +1/-1, the labels still margins")
check(dab.load_game("dots_and_boxes(num_rows=3,num_cols=2,utility_margin=true)").utility == "margin",
      "load_game with a parameter string")
s = g.new_initial_state()
check(s.action_to_string(0) == "P1(h,0,0)" and s.action_to_string(1, 9) == "P2(v,0,0)", "action_to_string")
for a in (0, 9, 3, 10, 16):
    s.apply_action(a)
s2 = g.deserialize_state(s.serialize())
check(s2 == s and s2.history() == s.history(), "serialize / deserialize")
check(s.dbn() == s.text().split(":")[1] and len(s.dbn()) == 17, "dbn()")
d = dab.State.from_dbn(2, 3, "11111111" + "0" * 9, player=1)
check(d.player == 1 and d.score == [0, 0] and d.history() == [] and dab.Game(2, 3).deserialize_state(d.serialize()) == d,
      "from_dbn without boxes")
full = "1" * 17
try:
    dab.State.from_dbn(2, 3, full)
    check(False, "a DBN with complete boxes needs a score")
except dab.DabError:
    check(True, "a DBN with complete boxes needs a score")
f = dab.State.from_dbn(2, 3, full, score=(4, 2), player=1, utility="margin")
check(f.is_terminal() and f.returns() == [2.0, -2.0] and f.current_player() == -4, "from_dbn, full board")
sd = dab.State.from_dbn(2, 3, "1" * 11 + "0" * 6, score=(1, 0), player=0)
rt = dab.Game(2, 3).deserialize_state(sd.serialize())
check(rt == sd, "serialize of a from_dbn state")
board = s.observation_string()
check(board.count("\n") == 5 and board.startswith("┌───┬"), "observation_string draws OpenSpiel's board")


# ---- An action is an int or a numpy integer; bad position text says where --
def raised(fn):
    """The exception fn() raises (None when it returns)."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (the test looks at its class)
        return e
    return None


base = dab.Game(3, 3).new_initial_state()
base.apply_action(5)
for bad in (1.5, "3", True, np.True_, None, [1], np.float64(2.0), np.array(3)):
    for what in ("apply_action", "child", "undo_action", "action_to_string"):
        s = base.clone()
        e = raised(lambda: s.undo_action(0, bad) if what == "undo_action" else getattr(s, what)(bad))
        check(isinstance(e, TypeError) and isinstance(e, ValueError) and "\n" not in str(e)
              and type(bad).__name__ in str(e) and s.history() == [5],
              "%s(%r) raises a one-line TypeError naming the type, and plays nothing: %r" % (what, bad, e))
ok = []
for good in (1, np.int64(2), np.uint8(3), np.int32(4), dab.game.Value(6)):
    c = dab.Game(3, 3).new_initial_state()
    c.apply_action(good)
    ok.append(c.history()[-1] == int(good) and type(c.history()[-1]) is int)
check(all(ok), "apply_action takes ints, numpy integers and int subclasses (history holds ints): %s" % ok)
s = dab.Game(3, 3).new_initial_state()
s.apply_action(5)
e = raised(lambda: s.undo_action(True, 5))
check(isinstance(e, TypeError) and "bool" in str(e) and s.history() == [5], "undo_action(True, 5): TypeError")
e = raised(lambda: s.action_to_string(99))
check(isinstance(e, dab.DabInputError) and "line 99 does not exist" in str(e), "action_to_string(99): %r" % e)
for bad in ([True, 1, 2], [0.0, 1, 2], np.array([0.5, 1.5, 2.5]), np.array([True, False, True]), ["0", "1", "2"]):
    b = dab.Game(2, 2).new_states(3)
    e = raised(lambda: b.apply_actions(bad))
    check(isinstance(e, TypeError) and "\n" not in str(e) and not b.lines.any(),
          "States.apply_actions(%r): TypeError, no state changed: %r" % (bad, e))
b = dab.Game(2, 2).new_states(3)
b.apply_actions((0, np.int64(1), -1))
check(list(b.lines) == [1, 2, 0], "States.apply_actions takes ints and numpy integers")
for text, want in (("3x3@0,0", ["move 2 of 2 (column 7)", "line 0 is already drawn"]),
                   ("3x3@0,x", ["move 2 of 2 (column 7)", "expected a line number, got 'x'"]),
                   ("3x3@0,99", ["move 2 of 2 (column 7)", "line 99 does not exist (a 3x3 board has lines 0..23)"]),
                   ("3x3@4,,1", ["move 2 of 3 (column 7)", "got ''"]),
                   ("2x2@1, 2,1", ["move 3 of 3 (column 10)", "line 1 is already drawn"])):
    e = raised(lambda: dab.State.from_text(text))
    check(isinstance(e, dab.DabInputError) and str(e).startswith("position %r: " % text)
          and all(w in str(e) for w in want), "from_text(%r) names the position and the move: %r" % (text, e))
check(dab.State.from_text("3x3@ 1, 2").history() == [1, 2], "from_text still takes spaces around moves")
try:
    dab.State.from_text("3x3@")
    check(False, "from_text('3x3@') is refused")
except dab.DabInputError as e:
    check("'3x3'" in str(e) and "column 5" in str(e), "from_text('3x3@') is refused as the CLI does: %s" % e)

report("test_game.py")
