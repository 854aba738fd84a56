"""dab._dataset_make: what `dab dataset` runs (cli/cmd_dataset.c starts
`main` under /usr/bin/python3): positions sampled from self-play, labelled
by the exact oracle in worker processes, written as the shards and
manifest that dab.dataset reads.  Internal; docs/CLI.md and docs/python.md
("Data sets") are the reference.

Why Python: the labels, the observations, the players and the keys are
all one call each into libdab through the package (capi/vec.h batch
labels, dab.Player), and .npz and JSON are numpy's and Python's own.

Determinism: the games come in chunks of CHUNK_GAMES, each played by a
player seeded from (seed, chunk) alone, and positions are taken in game
order, so the selection does not depend on --jobs; labels are exact (a
node-limited search gets a fresh table per shard), and the .npz writer
stamps no time: a rerun, interrupted or not, writes the same bytes.

DAB_DATASET_TEST_SLEEP=S (tests only): a worker sleeps S seconds after
each shard it writes, so a test can interrupt a run between shards.
"""
import hashlib
import json
import math
import os
import signal
import subprocess
import sys
import time

import numpy as np

from . import dataset as ds
from .errors import DabError

CMD = "dab dataset"
CHUNK_GAMES = 16          # games per sampling task, each chunk with its own seeded player
PROCESS_BYTES = 96 << 20  # a worker (Python, numpy, libdab: ~40 MiB measured) and its share of the parent (~40 MiB)
KEYCACHE_BYTES = 48 << 20 # the search's graph-key cache beside its table (solver/ab.h default)
# the default table's cap: 3x5 in 1 GiB and 4x4 in 2 GiB search as fast as
# in 4 and 8 GiB (oracle.c), and a data set runs a table per job
DEFAULT_HASH_MAX = 2 << 30


class Usage(Exception):
    """Bad input: one line, exit 2, nothing written."""


class Failure(Exception):
    """A run that cannot go on (i/o, a worker that died): one line, exit 1."""


# ---- Arguments -----------------------------------------------------------------

_VALUED = {"-o": "out", "--out": "out", "--sampler": "sampler", "--steps": "steps", "--count": "count",
           "--test-fraction": "test_fraction", "--obs": "obs", "--node-limit": "node_limit",
           "--hash": "hash", "--jobs": "jobs", "--seed": "seed", "--shard-size": "shard_size",
           "--explore": "explore", "--max-games": "max_games", "--tb": "tb"}
_FLAGS = {"--dedup": "dedup"}


def parse_size(s):
    """As cli_parse_size: 512M, 4G, 64k, 1048576 (an optional iB or B);
    bytes, or 0 when s is not a size of 64 bytes to 10^13."""
    t = s.strip()
    i = 0
    while i < len(t) and (t[i].isdigit() or t[i] in ".eE+-"):
        i += 1
    try:
        v = float(t[:i])
    except ValueError:
        return 0
    rest = t[i:]
    mul = 1
    if rest[:1] in ("k", "K"):
        mul, rest = 1 << 10, rest[1:]
    elif rest[:1] in ("m", "M"):
        mul, rest = 1 << 20, rest[1:]
    elif rest[:1] in ("g", "G"):
        mul, rest = 1 << 30, rest[1:]
    if rest in ("iB", "B"):
        rest = ""
    b = v * mul
    return 0 if rest or v <= 0 or b < 64 or b > 1e13 else int(b)


def _count(opt, text, lo=1, hi=10 ** 12):
    try:
        v = int(text, 10)
    except ValueError:
        v = None
    if v is None or v < lo or v > hi:
        raise Usage("%s needs a whole number from %d to %d, got '%s'" % (opt, lo, hi, text))
    return v


def _fraction(opt, text, hi_open):
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not (0 <= v < 1 if hi_open else 0 <= v <= 1):
        raise Usage("%s needs a number from 0 to %s1, got '%s'" % (opt, "below " if hi_open else "", text))
    return v


def parse_steps(text, L):
    """"all", or numbers and ranges: "22-30", "18,20", "4-8,12"; sorted,
    each 0 <= step < L (a position with a move left)."""
    if text.strip() == "all":
        return list(range(L))
    out = set()
    for item in text.split(","):
        item = item.strip()
        a, sep, b = item.partition("-")
        try:
            lo = int(a, 10)
            hi = int(b, 10) if sep else lo
        except ValueError:
            raise Usage("--steps '%s': '%s' is not a step or a range A-B (moves played, e.g. 22-30 or 18,20)"
                        % (text, item)) from None
        if lo > hi:
            raise Usage("--steps '%s': range %s is empty" % (text, item))
        if lo < 0 or hi >= L:
            raise Usage("--steps '%s': %s is past the board's %d lines (steps 0 to %d have a move left)"
                        % (text, item, L, L - 1))
        out.update(range(lo, hi + 1))
    return sorted(out)


def parse_args(argv):
    """The options of `dab dataset` as a dict; Usage on bad input."""
    o = {"sampler": "chain", "count": "100", "test_fraction": "0.1", "obs": "openspiel", "node_limit": "0",
         "seed": "1", "explore": "0", "dedup": False}
    words = []
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, val = a.partition("=") if a.startswith("--") else (a, "", "")
        if name in _FLAGS:
            if eq:
                raise Usage("%s takes no value" % name)
            o[_FLAGS[name]] = True
        elif name in _VALUED:
            if not eq:
                if i + 1 >= len(argv):
                    raise Usage("%s needs a value" % name)
                i += 1
                val = argv[i]
            o[_VALUED[name]] = val
        elif a.startswith("-") and a != "-":
            raise Usage("unknown option '%s' (dab dataset --help)" % a)
        else:
            words.append(a)
        i += 1
    if not words:
        raise Usage("expected a board, e.g. `dab dataset 3x3 --steps 4-12 -o DIR` (dab dataset --help)")
    if len(words) > 1:
        raise Usage("unexpected extra argument '%s' (dab dataset --help)" % words[1])
    cfg = {}
    b = words[0].lower().split("x")
    if len(b) != 2 or not all(x.isdigit() for x in b):
        raise Usage("board '%s': expected RxC, e.g. 3x3 or 5x5" % words[0])
    R, C = int(b[0]), int(b[1])
    L = ds.nlines(R, C)
    if R < 1 or C < 1 or L > 64:
        raise Usage("board %dx%d: dab dataset takes boards of 1 to 64 lines (up to 5x5)" % (R, C))
    cfg.update(board="%dx%d" % (R, C), rows=R, cols=C, nlines=L)
    if "out" not in o:
        raise Usage("-o DIR is required: the folder the data set goes to")
    cfg["out"] = o["out"]
    if "steps" not in o:
        raise Usage("--steps is required: moves played, e.g. --steps 22-30, 18,20 or all")
    cfg["steps"] = parse_steps(o["steps"], L)
    cfg["count"] = _count("--count", o["count"], 1, 10 ** 9)
    cfg["sampler"] = o["sampler"]
    cfg["dedup"] = "graph" if o["dedup"] else "none"
    cfg["test_fraction"] = _fraction("--test-fraction", o["test_fraction"], True)
    cfg["explore"] = _fraction("--explore", o["explore"], False)
    if o["obs"] not in ds.OBS_LAYOUTS:
        raise Usage("--obs '%s': expected openspiel or planes" % o["obs"])
    cfg["obs"] = o["obs"]
    cfg["node_limit"] = _count("--node-limit", o["node_limit"], 0, 2 ** 62)
    cfg["seed"] = _count("--seed", o["seed"], 0, 2 ** 64 - 1)
    cfg["hash"] = None
    if "hash" in o:
        h = parse_size(o["hash"])
        if h < 1 << 20:
            raise Usage("--hash '%s': expected a size like 256M or 2G (at least 1M)" % o["hash"])
        cfg["hash"] = h >> 20 << 20
    cfg["jobs"] = _count("--jobs", o["jobs"], 1, 256) if "jobs" in o else None
    cfg["shard_size"] = _count("--shard-size", o["shard_size"], 1, 10 ** 7) if "shard_size" in o else None
    cfg["max_games"] = _count("--max-games", o["max_games"], 1, 10 ** 12) if "max_games" in o else None
    cfg["tb"] = o.get("tb")
    if cfg["tb"] is not None and not os.path.isdir(cfg["tb"]):
        raise Usage("--tb %s: %s" % (cfg["tb"], "not a directory" if os.path.exists(cfg["tb"])
                                      else "no such directory"))
    return cfg


# ---- Seeds -------------------------------------------------------------------

def mix(seed, tag, i):
    """A 64-bit number from (seed, tag, i): BLAKE2b, the same on every
    machine and Python."""
    h = hashlib.blake2b(("%d:%s:%d" % (seed, tag, i)).encode(), digest_size=8).digest()
    return int.from_bytes(h, "little")


def is_test(seed, game, fraction):
    """Game `game` feeds the test split: mix(seed, "split", game) / 2^64 < fraction."""
    return fraction > 0 and mix(seed, "split", game) < fraction * 2.0 ** 64


# ---- Library calls this module adds -------------------------------------------

def _lib():
    import ctypes
    from ._lib import _load
    lib = _load()
    if not getattr(lib, "_dataset_sigs", False):
        P, U64 = ctypes.c_void_p, ctypes.c_uint64
        lib.dab_vec_geom.restype, lib.dab_vec_geom.argtypes = P, [P]
        lib.dab_sckey64.restype, lib.dab_sckey64.argtypes = None, [P, U64, P]
        lib.dab_oracle_search_hash.restype = U64
        lib.dab_oracle_search_hash.argtypes = [ctypes.c_int, U64, U64]
        lib.dab_oracle_expected_seconds.restype = ctypes.c_double
        lib.dab_oracle_expected_seconds.argtypes = [ctypes.c_int]
        lib._dataset_sigs = True
    return lib


def graph_keys(game, lines):
    """(key, check) uint64 arrays: the canonical Strings-and-Coins graph key
    of each line set (dab_sckey64, symmetry/sckey.h, public): positions
    whose graphs are isomorphic, board symmetries included, share both."""
    import ctypes
    lib = _lib()
    geom = lib.dab_vec_geom(game._vech())
    # dab_sckey starts with key and check (uint64 each); the buffer is
    # larger than the whole struct (120 bytes), which only C fills in.
    buf = (ctypes.c_uint64 * 64)()
    key = np.empty(len(lines), dtype=np.uint64)
    check = np.empty(len(lines), dtype=np.uint64)
    for i, p in enumerate(lines):
        lib.dab_sckey64(geom, int(p), buf)
        key[i], check[i] = buf[0], buf[1]
    return key, check


def mem_available():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _mib(b):
    if b < 1 << 20:
        return "%.0f KiB" % (b / 1024.0)
    return "%.0f MiB" % (b / 2.0 ** 20) if b < 10 << 30 else "%.1f GiB" % (b / 2.0 ** 30)


# ---- Sampling ----------------------------------------------------------------

_POS_FIELDS = (("lines", np.uint64), ("by1", np.uint64), ("box1", np.uint64), ("score", np.int16),
               ("to_move", np.int8), ("step", np.int16), ("game", np.int64), ("key", np.uint64),
               ("check", np.uint64), ("test", np.bool_))


def sample_chunk(cfg, chunk):
    """The positions at cfg's steps of games chunk*CHUNK_GAMES ... of
    self-play: a dict of arrays (one row per game and step, in game order),
    each chunk from a player seeded by (seed, chunk) alone."""
    from .game import Game
    from .player import Player
    R, C, L = cfg["rows"], cfg["cols"], cfg["nlines"]
    game = Game(R, C)
    steps = cfg["steps"]
    last = steps[-1]
    explore = cfg["explore"]
    rng = np.random.default_rng(mix(cfg["seed"], "explore", chunk))
    player = Player(cfg["sampler"], (R, C), seed=mix(cfg["seed"], "player", chunk), tb_dir=cfg["tb"])
    rec = []
    try:
        for g in range(chunk * CHUNK_GAMES, (chunk + 1) * CHUNK_GAMES):
            s = game.new_initial_state()
            k = 0
            for st in range(last + 1):
                if st == steps[k]:
                    rec.append((s.lines, s.by1, s.box1, s.score[0], s.score[1], s.player, st, g))
                    k += 1
                    if k == len(steps):
                        break
                if explore and rng.random() < explore:
                    free = [m for m in range(L) if not s.lines >> m & 1]
                    a = free[int(rng.integers(len(free)))]
                else:
                    a = player.move_lines(s.lines, s.score, s.player)
                s.apply_action(a)
    finally:
        player.close()
    n = len(rec)
    out = {"lines": np.array([r[0] for r in rec], dtype=np.uint64),
           "by1": np.array([r[1] for r in rec], dtype=np.uint64),
           "box1": np.array([r[2] for r in rec], dtype=np.uint64),
           "score": np.array([(r[3], r[4]) for r in rec], dtype=np.int16).reshape(n, 2),
           "to_move": np.array([r[5] for r in rec], dtype=np.int8),
           "step": np.array([r[6] for r in rec], dtype=np.int16),
           "game": np.array([r[7] for r in rec], dtype=np.int64)}
    out["key"], out["check"] = graph_keys(game, out["lines"])
    return out


class Selection:
    """Takes positions game by game, in game order, until every step has
    its count (or max_games games are used): with dedup, a position whose
    graph key was taken before is skipped."""

    def __init__(self, cfg, max_games):
        self.cfg, self.max_games = cfg, max_games
        self.need = {s: cfg["count"] for s in cfg["steps"]}
        self.left = cfg["count"] * len(cfg["steps"])
        self.seen = set()
        self.taken = []         # (chunk arrays, [row indices taken from it])
        self.games = 0
        self.done = False

    def add(self, a):
        dedup = self.cfg["dedup"] != "none"
        for i in range(len(a["lines"])):
            g = int(a["game"][i])
            if g >= self.max_games:
                self.done = True
                return
            self.games = g + 1
            st = int(a["step"][i])
            if self.need[st] <= 0:
                continue
            if dedup:
                k = (int(a["key"][i]), int(a["check"][i]))
                if k in self.seen:
                    continue
                self.seen.add(k)
            self.need[st] -= 1
            self.left -= 1
            if not self.taken or self.taken[-1][0] is not a:
                self.taken.append((a, []))
            self.taken[-1][1].append(i)
            if not self.left:
                self.done = True
                return

    def arrays(self):
        cfg = self.cfg
        out = {}
        for name, dt in _POS_FIELDS:
            if name == "test":
                continue
            if self.taken:
                out[name] = np.concatenate([a[name][np.array(ix, dtype=np.int64)] for a, ix in self.taken]).astype(dt)
            else:
                out[name] = np.zeros((0, 2) if name == "score" else 0, dtype=dt)
        out["score"] = out["score"].reshape(-1, 2)
        out["test"] = np.array([is_test(cfg["seed"], int(g), cfg["test_fraction"]) for g in out["game"]],
                               dtype=np.bool_)
        return out


# ---- Labelling ----------------------------------------------------------------

def _sign(x):
    return np.sign(x).astype(np.int8)


def label(game, pos, obs, progress=None, batch=256):
    """Every array of ds.schema for the positions pos (a dict with lines,
    by1, box1, score, to_move, step, game, key), through game's oracle."""
    from .batch import States
    n = len(pos["lines"])
    L = game.nlines
    sch = ds.schema(game.rows, game.cols, obs)
    out = {name: np.zeros((n,) + tuple(shape), dtype=dt) for name, dt, shape in sch}
    for name in ("lines", "by1", "box1", "score", "to_move", "step", "game", "key"):
        out[name][...] = pos[name]
    idx = np.arange(n)
    p = out["to_move"].astype(np.int64)
    out["score_diff"] = (out["score"][idx, p] - out["score"][idx, 1 - p]).astype(np.int16)
    for a in range(0, n, batch):
        sl = slice(a, min(n, a + batch))
        b = States(game, sl.stop - a)
        b.lines[:], b.by1[:], b.box1[:] = out["lines"][sl], out["by1"][sl], out["box1"][sl]
        b.score[:], b.to_move[:] = out["score"][sl], out["to_move"][sl]
        out["obs"][sl] = b.observation_tensor(obs)
        legal = b.legal_actions_mask()
        out["legal"][sl] = legal
        # every move's value first: the value and W/D/L then come from the
        # warm table almost free (5x5, step 22: 15.3 CPU s in this order,
        # 16.6 s with the value first)
        mv, mexact = b.move_values()
        res, keep = b.wdl()
        lab = b.values()
        lo, hi = lab.lower.astype(np.int16), lab.upper.astype(np.int16)
        mlo, mhi = mv.astype(np.int16), mv.astype(np.int16)
        exact = lab.exact & mexact & (res != ds.NONE)
        open_rows = np.flatnonzero(~exact)
        if len(open_rows):
            _bound_moves(game, b, open_rows, mexact, mlo, mhi)
        is_legal = legal.astype(bool)
        best_lo = np.where(is_legal, mlo, -999).max(axis=1)
        best_hi = np.where(is_legal, mhi, -999).max(axis=1)
        # a move's bounds bound the value: the tighter of the two
        lo = np.maximum(lo, best_lo)
        hi = np.minimum(hi, best_hi)
        moves_exact = np.all(~is_legal | (mlo == mhi), axis=1)
        row_exact = (lo == hi) & moves_exact
        d = out["score_diff"][sl].astype(np.int16)
        r_lo, r_hi = _sign(d + lo), _sign(d + hi)
        result = np.where(r_lo == r_hi, r_lo, ds.NONE).astype(np.int8)
        kept = is_legal & (_sign(d[:, None] + mlo) == result[:, None]) & (_sign(d[:, None] + mhi) == result[:, None])
        # the library's own W/D/L where its search finished (the same rule:
        # sign(score so far + value)); bounds elsewhere
        lib_ok = res != ds.NONE
        result = np.where(lib_ok, res, result).astype(np.int8)
        kept = np.where(lib_ok[:, None], keep.astype(bool), kept)
        opt_exact = is_legal & (mlo == lo[:, None])
        opt_open = is_legal & (mhi >= best_lo[:, None])
        out["value"][sl] = np.where(lo == hi, lo, ds.NONE)
        out["lower"][sl], out["upper"][sl] = lo, hi
        out["exact"][sl] = row_exact
        out["move_values"][sl] = np.where(is_legal & (mlo == mhi), mlo, ds.NONE)
        out["move_lower"][sl] = np.where(is_legal, mlo, ds.NONE)
        out["move_upper"][sl] = np.where(is_legal, mhi, ds.NONE)
        out["optimal"][sl] = np.where(row_exact[:, None], opt_exact, opt_open)
        out["wdl"][sl] = result
        out["keep"][sl] = kept
        if progress:
            progress(sl.stop - a)
    return [(name, out[name]) for name, _, _ in sch]


def _bound_moves(game, b, rows, mexact, mlo, mhi):
    """Each move's bounds in the rows a node limit left open: a move that
    completes k boxes keeps the turn (k + the child's bounds), any other
    passes it (minus the child's), as State.move_values does."""
    o = game.oracle()
    for i in rows:
        if mexact[i]:
            continue
        s = b.state(int(i))
        me = s.player
        for m in s.legal_actions():
            c = s.child(m)
            k = c.score[me] - s.score[me]
            clo, chi = (0, 0) if c.is_terminal() else o.bounds(c.lines)
            mlo[i, m], mhi[i, m] = (k + clo, k + chi) if k else (-chi, -clo)


# ---- Workers ------------------------------------------------------------------

def _labelling_game(cfg):
    from .game import Game
    return Game(cfg["rows"], cfg["cols"], search=None, node_limit=cfg["node_limit"],
                hash_mb=(cfg["hash_bytes"] >> 20) if cfg["hash_bytes"] else None, tb_dir=cfg["tb"],
                read_only=True)


def worker(cfg, tasks, results, cutoff):
    """One process: sampling chunks and labelling shards from tasks until
    None.  Ctrl-C goes to the parent alone (it stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sleep = float(os.environ.get("DAB_DATASET_TEST_SLEEP") or 0)
    game = None
    while True:
        t = tasks.get()
        if t is None:
            return
        kind = t[0]
        try:
            if kind == "sample":
                if t[1] >= cutoff.value:
                    results.put(("skipped", t[1]))
                    continue
                c0 = time.process_time()
                a = sample_chunk(cfg, t[1])
                results.put(("sampled", t[1], a, time.process_time() - c0))
            elif kind == "label":
                _, name, pos = t
                if game is None:
                    # opened before the clock starts: the label time is the
                    # labelling's, and the opening (a table solved in memory:
                    # ~0.1 s) is counted apart
                    c0 = time.process_time()
                    game = _labelling_game(cfg)
                    game.oracle()
                    results.put(("opened", time.process_time() - c0))
                c0 = time.process_time()
                arrays = label(game, pos, cfg["obs"], progress=lambda k: results.put(("progress", k)),
                               batch=256 if cfg["source"] != "search" else 4)
                cpu = time.process_time() - c0
                data = ds.npz_bytes(arrays)
                ds.durable_write(os.path.join(cfg["out"], name), data)
                nexact = int(dict(arrays)["exact"].sum())
                results.put(("labelled", name, ds.sha256(data), len(data), cpu, nexact))
                if cfg["node_limit"] and cfg["source"] == "search":
                    # a node-limited search proves what its table lets it: a
                    # fresh table per shard keeps a shard's bounds the same
                    # whichever worker, and after which shard, labels it
                    game.oracle().close()
                    game = None
                if sleep:
                    time.sleep(sleep)
        except BaseException as e:
            msg = str(e) or type(e).__name__
            results.put(("error", kind, t[1], msg.splitlines()[0] if msg else type(e).__name__))
            return


class Pool:
    """jobs worker processes (spawned: none inherits a library handle),
    a task queue, a result queue."""

    def __init__(self, cfg, jobs):
        import multiprocessing as mp
        ctx = mp.get_context("spawn")
        self.tasks, self.results = ctx.Queue(), ctx.Queue()
        self.cutoff = ctx.Value("q", 2 ** 62)
        # started with SIGINT ignored, so a Ctrl-C while one starts up does
        # not print its traceback (Python keeps an inherited SIG_IGN)
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            self.procs = [ctx.Process(target=worker, args=(cfg, self.tasks, self.results, self.cutoff),
                                      daemon=True) for _ in range(jobs)]
            for p in self.procs:
                p.start()
        finally:
            signal.signal(signal.SIGINT, old)

    def get(self, cancel):
        """The next result; None after 0.25 s without one.  Raises
        Interrupted on Ctrl-C, Failure when a worker died."""
        import queue
        if cancel():
            raise Interrupted()
        try:
            return self.results.get(timeout=0.25)
        except queue.Empty:
            pass
        if cancel():
            raise Interrupted()
        for p in self.procs:
            if p.exitcode is not None:
                raise Failure("a worker process died (exit %s)%s" % (
                    p.exitcode, ": out of memory?" if p.exitcode == -9 else ""))
        return None

    def drain(self):
        """Results already waiting, without blocking."""
        import queue
        out = []
        while True:
            try:
                out.append(self.results.get_nowait())
            except (queue.Empty, OSError, EOFError, ValueError):
                return out

    def stop(self):
        for _ in self.procs:
            self.tasks.put(None)
        for p in self.procs:
            p.join(10)
        self.kill()

    def kill(self):
        for p in self.procs:
            if p.exitcode is None:
                p.terminate()
        for p in self.procs:
            p.join(5)
        # Tasks still buffered for a pipe no worker reads any more would
        # hold the exit forever (a Queue flushes its buffer at exit): a
        # stopped 5x5 run's queue holds megabytes of positions.
        self.tasks.cancel_join_thread()
        self.results.cancel_join_thread()


class Interrupted(Exception):
    pass


# ---- Progress and Ctrl-C, as cli/cliutil.c's --------------------------------

class Progress:
    """The progress line of cli_progress (cli/cliutil.h), drawn on stderr
    only when it is a terminal: what, percent, rate, ETA."""

    def __init__(self, what, total):
        self.what, self.total, self.done = what, total, 0
        self.t0 = time.monotonic()
        self.last = 0.0
        self.tty = sys.stderr.isatty()
        self.drawn = False

    def add(self, k):
        self.done += k
        self.draw()

    def draw(self):
        now = time.monotonic()
        if not self.tty or now - self.last < 0.25:
            return
        self.last = now
        el = now - self.t0
        rate = self.done / el if el > 0 else 0
        left = (self.total - self.done) / rate if rate > 0 else 0
        sys.stderr.write("\r%s: %5.1f%%  %.3g/s  ETA %.0fs   " % (self.what, 100.0 * self.done / max(1, self.total),
                                                               rate, left))
        sys.stderr.flush()
        self.drawn = True

    def end(self):
        if self.drawn:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
        self.drawn = False


class Cancel:
    """SIGINT/SIGTERM as cli_cancel_on_signal: the first asks for a clean
    stop; one a second or more later exits at once (two together are one
    request: `timeout -s INT` signals the child, then its group)."""

    def __init__(self):
        self.flag = False
        self.first = 0.0
        signal.signal(signal.SIGINT, self.on_signal)
        signal.signal(signal.SIGTERM, self.on_signal)

    def on_signal(self, sig, frame):
        now = time.monotonic()
        if not self.flag:
            self.flag, self.first = True, now
        elif now - self.first >= 1.0:
            os._exit(128 + sig)

    def __call__(self):
        return self.flag


# ---- The run -----------------------------------------------------------------

def _identity(cfg):
    """The options that decide the files: a rerun with the same ones
    continues the data set, one with others is refused."""
    keys = ("board", "sampler", "steps", "count", "dedup", "seed", "test_fraction", "obs", "node_limit",
            "shard_size", "explore", "max_games")
    out = {k: cfg[k] for k in keys}
    if cfg["node_limit"] and cfg["source"] == "search":
        out["hash_bytes"] = cfg["hash_bytes"]    # bounds depend on the table then
    return out


def _dab_version():
    here = os.path.dirname(os.path.abspath(__file__))
    version = None
    try:
        from importlib import metadata
        version = metadata.version("dab")
    except Exception:
        pass
    if version is None:
        try:
            with open(os.path.join(here, "..", "pyproject.toml")) as f:
                for line in f:
                    if line.startswith("version"):
                        version = line.split("=", 1)[1].strip().strip('"')
                        break
        except OSError:
            pass
    commit = None
    try:
        r = subprocess.run(["git", "-C", here, "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        if r.returncode == 0:
            commit = r.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        pass
    from ._lib import library_path
    return {"version": version, "commit": commit, "library": library_path()}


def _json(x, indent=""):
    """JSON with one key a line, and lists of numbers or short lists on
    one line (shapes, steps), for a manifest a person reads."""
    if isinstance(x, dict):
        if not x:
            return "{}"
        inner = indent + " "
        return "{\n" + ",\n".join("%s%s: %s" % (inner, json.dumps(k), _json(v, inner)) for k, v in x.items()) \
            + "\n" + indent + "}"
    if isinstance(x, list) and any(isinstance(v, dict) for v in x):
        inner = indent + " "
        return "[\n" + ",\n".join(inner + _json(v, inner) for v in x) + "\n" + indent + "]"
    return json.dumps(x)


def _now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _steps_text(steps):
    """22,23,24,30 -> "22-24,30"."""
    out, i = [], 0
    while i < len(steps):
        j = i
        while j + 1 < len(steps) and steps[j + 1] == steps[j] + 1:
            j += 1
        out.append(str(steps[i]) if i == j else "%d-%d" % (steps[i], steps[j]))
        i = j + 1
    return ",".join(out)


def _quote(a):
    ok = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%")
    return a if a and set(a) <= ok else "'" + a.replace("'", "'\\''") + "'"


def _check_libs(cfg):
    """What needs the library before anything is written: the sampler
    plays this board, the oracle covers it; cfg gets source, hash_bytes,
    jobs, shard_size, max_games."""
    from .game import Game
    from .player import Player
    R, C = cfg["rows"], cfg["cols"]
    try:
        p = Player(cfg["sampler"], (R, C), seed=0, tb_dir=cfg["tb"])
        cfg["sampler_name"] = p.name
        p.close()
    except DabError as e:
        raise Usage("--sampler '%s': %s" % (cfg["sampler"], e)) from None
    g = Game(R, C, search=None, tb_dir=cfg["tb"], read_only=True)
    try:
        o = g.oracle()
    except DabError as e:
        raise Usage("%s: no exact oracle: %s" % (cfg["board"], e)) from None
    cfg["source"] = o.source
    o.close()
    avail = mem_available()
    cfg["mem_available"] = avail
    jobs = cfg["jobs"] or os.cpu_count() or 1
    cfg["jobs"] = jobs
    free_most = cfg["nlines"] - cfg["steps"][0]
    if cfg["source"] == "search":
        if cfg["hash"] is None:
            # the oracle's own sizing for the earliest step, on this job's
            # share of the memory
            per = (avail // jobs) if avail else 0
            h = min(_lib().dab_oracle_search_hash(free_most, cfg["node_limit"], per), DEFAULT_HASH_MAX)
            cfg["hash_bytes"] = max(1 << 20, h >> 20 << 20)
        else:
            cfg["hash_bytes"] = cfg["hash"]
        keycache = KEYCACHE_BYTES if not (cfg["node_limit"] and cfg["hash_bytes"] < 64 << 20) else 1 << 20
        table = cfg["hash_bytes"] + keycache
        table_text = "search table %s + key cache %s" % (_mib(cfg["hash_bytes"]), _mib(keycache))
    else:
        cfg["hash_bytes"] = None
        table = (1 << cfg["nlines"]) if cfg["source"] == "memory" else 0
        table_text = ("in-memory table %s" % _mib(table) if table else "tablebase file (mapped, shared)")
    per_job = table + PROCESS_BYTES
    cfg["plan_bytes"] = jobs * per_job
    cfg["plan_text"] = "%d job%s x (%s + process %s) = %s" % (jobs, "s" if jobs > 1 else "", table_text,
                                                              _mib(PROCESS_BYTES), _mib(jobs * per_job))
    if avail and jobs * per_job > avail:
        raise Usage("--jobs %d x %s = %s does not fit in the %s of memory available: use fewer --jobs%s"
                    % (jobs, _mib(per_job), _mib(jobs * per_job), _mib(avail),
                       " or a smaller --hash" if cfg["source"] == "search" else ""))
    if cfg["shard_size"] is None:
        cfg["shard_size"] = 4096 if cfg["source"] != "search" else 256
    if cfg["max_games"] is None:
        cfg["max_games"] = max(1000, 20 * cfg["count"])


def _prepare_dir(cfg):
    """The output folder: made when missing (its parent must exist); an
    existing one must be empty or hold this data set's manifest made with
    the same options.  RETURN: the manifest found, or None."""
    out = cfg["out"]
    if os.path.exists(out) and not os.path.isdir(out):
        raise Usage("-o %s: not a directory" % out)
    if not os.path.isdir(out):
        parent = os.path.dirname(os.path.abspath(out))
        if not os.path.isdir(parent):
            raise Usage("-o %s: no such directory %s" % (out, parent))
        return None
    mpath = os.path.join(out, ds.MANIFEST)
    if not os.path.exists(mpath):
        stray = [f for f in os.listdir(out) if f != ".lock" and not (f.startswith(".") and ".tmp-" in f)]
        if stray:
            raise Usage("-o %s: the folder holds other files (%s) and no %s: give an empty or new folder"
                        % (out, stray[0], ds.MANIFEST))
        return None
    try:
        m = ds.read_manifest(out)
    except DabError as e:
        raise Usage("-o %s: %s" % (out, e)) from None
    want = _identity(cfg)
    have = m.get("options", {})
    for k in want:
        if have.get(k) != want[k]:
            raise Usage("-o %s holds a data set made with other options (%s: %s there, %s here): give "
                        "another folder, or the options it was made with" % (out, k, json.dumps(have.get(k)),
                                                                              json.dumps(want[k])))
    return m


def _lock(out):
    import fcntl
    fd = os.open(os.path.join(out, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise Failure("-o %s: another `dab dataset` is writing this folder" % out) from None
    return fd


def _clean_tmp(out):
    for f in os.listdir(out):
        if f.startswith(".") and ".tmp-" in f:
            try:
                os.unlink(os.path.join(out, f))
            except OSError:
                pass


class Run:
    def __init__(self, cfg, argv):
        self.cfg, self.argv = cfg, argv
        self.out = cfg["out"]
        self.manifest = None
        self.open_cpu = 0.0     # this run's oracle openings (not labelling)
        self.dirty = False      # shards finished since the manifest was last written
        self.last_write = 0.0

    # -- manifest --
    def flush(self, force=False):
        """Writes the manifest when shards finished since the last write:
        at once, then at most once a second (a data set of thousands of
        shards would otherwise rewrite its manifest thousands of times);
        a shard finished but not yet listed is redone by a rerun."""
        if self.dirty and (force or time.monotonic() - self.last_write >= 1.0):
            self.write_manifest()

    def write_manifest(self):
        self.dirty = False
        self.last_write = time.monotonic()
        m = self.manifest
        m["updated"] = _now()
        done = [s for s in m["shards"] if s.get("sha256")]
        m["complete"] = len(done) == len(m["shards"])
        m["label_cpu_seconds"] = round(sum(s.get("cpu_seconds", 0) for s in done), 6)
        npos = sum(s["positions"] for s in done)
        m["labels_per_cpu_second"] = round(npos / m["label_cpu_seconds"], 3) if m["label_cpu_seconds"] else None
        m["positions_labelled"] = npos
        m["oracle_open_cpu_seconds"] = round(self.open_cpu, 6)
        ds.durable_write(os.path.join(self.out, ds.MANIFEST), (_json(m) + "\n").encode())

    def new_manifest(self, sel, pos_file, sample_cpu, old):
        cfg = self.cfg
        pos = sel
        n = len(pos["lines"])
        shards = []
        for split in ds.SPLITS:
            idx = np.flatnonzero(pos["test"] == (split == "test"))
            for k, a in enumerate(range(0, len(idx), cfg["shard_size"])):
                part = idx[a:a + cfg["shard_size"]]
                # rows: [first, end) among the split's positions, in order
                shards.append({"file": "%s-%05d.npz" % (split, k), "split": split, "positions": int(len(part)),
                               "rows": [a, a + int(len(part))]})
        per_step = {str(s): int((pos["step"] == s).sum()) for s in cfg["steps"]}
        short = {k: cfg["count"] - v for k, v in per_step.items() if v < cfg["count"]}
        self.manifest = {
            "format": ds.FORMAT, "format_version": ds.FORMAT_VERSION,
            "board": cfg["board"], "rows": cfg["rows"], "cols": cfg["cols"], "lines": cfg["nlines"],
            "obs": cfg["obs"], "obs_shape": list(ds.obs_shape(cfg["rows"], cfg["cols"], cfg["obs"])),
            "options": _identity(cfg),
            "sampler": {"spec": cfg["sampler"], "player": cfg["sampler_name"], "self_play": True,
                        "explore": cfg["explore"], "chunk_games": CHUNK_GAMES},
            "seeds": {"seed": cfg["seed"],
                      "players": "chunk c (games 16c..16c+15) is played by one player seeded "
                                 "mix(seed, 'player', c); --explore draws from mix(seed, 'explore', c)",
                      "split": "game g is a test game when mix(seed, 'split', g) / 2^64 < test_fraction",
                      "mix": "mix(s, tag, i) = BLAKE2b-64 of the text 's:tag:i', little-endian"},
            "dedup": {"none": None, "graph": "Strings-and-Coins graph key (dab_sckey64, symmetry/sckey.h): "
                                             "the first position of each key, in game order"}[cfg["dedup"]],
            "labels": {"oracle": cfg["source"], "node_limit": cfg["node_limit"], "hash_bytes": cfg["hash_bytes"],
                       "jobs": cfg["jobs"], "threads_per_job": 1},
            "dab": _dab_version(),
            "games": int(self.games), "positions": n, "train": int((~pos["test"]).sum()),
            "test": int(pos["test"].sum()), "per_step": per_step, "shortfall": short,
            "sample_cpu_seconds": round(sample_cpu, 6),
            "positions_file": pos_file,
            "arrays": [[name, np.dtype(dt).str, list(shape)] for name, dt, shape in
                       ds.schema(cfg["rows"], cfg["cols"], cfg["obs"])],
            "shards": shards,
            "created": old.get("created", _now()) if old else _now(),
        }

    # -- phases --
    def sample(self, pool, cancel):
        cfg = self.cfg
        sel = Selection(cfg, cfg["max_games"])
        prog = Progress("sampling %s" % cfg["board"], sel.left)
        max_chunks = math.ceil(cfg["max_games"] / CHUNK_GAMES)
        window = 2 * cfg["jobs"]
        sent = processed = 0
        buffered = {}
        cpu = 0.0
        try:
            while not sel.done and processed < max_chunks:
                while sent < max_chunks and sent - processed < window:
                    pool.tasks.put(("sample", sent))
                    sent += 1
                msg = pool.get(cancel)
                if msg is None:
                    continue
                if msg[0] == "error":
                    raise Failure("sampling games %d-%d: %s" % (msg[2] * CHUNK_GAMES, msg[2] * CHUNK_GAMES
                                                                + CHUNK_GAMES - 1, msg[3]))
                if msg[0] != "sampled":
                    continue
                buffered[msg[1]] = (msg[2], msg[3])
                while processed in buffered and not sel.done:
                    a, c = buffered.pop(processed)
                    cpu += c
                    before = sel.left
                    sel.add(a)
                    processed += 1
                    prog.add(before - sel.left)
        finally:
            pool.cutoff.value = processed     # the workers skip the chunks not needed
            prog.end()
        self.games = sel.games
        return sel.arrays(), cpu

    def label(self, pool, cancel, todo, sel):
        prog = Progress("labelling %s" % self.cfg["board"], sum(s["positions"] for s in todo))
        pending = {}
        for s in todo:
            idx = self.shard_rows[s["file"]]
            pos = {k: v[idx] for k, v in sel.items() if k != "test"}
            pool.tasks.put(("label", s["file"], pos))
            pending[s["file"]] = s
        try:
            while pending:
                msg = pool.get(cancel)
                if msg is None:
                    prog.draw()
                    self.flush()
                    continue
                if msg[0] == "progress":
                    prog.add(msg[1])
                elif msg[0] == "error":
                    raise Failure("%s: %s" % (msg[2], msg[3]))
                elif msg[0] == "labelled":
                    self._record(pending, msg)
                elif msg[0] == "opened":
                    self.open_cpu += msg[1]
        except Interrupted:
            # shards a worker finished just before the stop are kept too
            for msg in pool.drain():
                if msg[0] == "labelled" and msg[1] in pending:
                    self._record(pending, msg)
            raise
        finally:
            prog.end()

    def _record(self, pending, msg):
        _, name, sha, size, cpu, nexact = msg
        s = pending.pop(name)
        s.update(sha256=sha, bytes=size, cpu_seconds=round(cpu, 6), exact=nexact)
        self.dirty = True
        self.flush()

    def run(self):
        cfg = self.cfg
        old = _prepare_dir(cfg)
        os.makedirs(self.out, exist_ok=True)
        lock = _lock(self.out)
        try:
            return self._run(old)
        finally:
            os.close(lock)

    def _plan_notes(self, old):
        cfg = self.cfg
        total = cfg["count"] * len(cfg["steps"])
        print("note: plan: %s -> %s: %d positions (%d at each of step%s %s), self-play of %s, seed %d, "
              "%s; test games %g%%" % (cfg["board"], self.out, total, cfg["count"],
                                       "s" if len(cfg["steps"]) > 1 else "", _steps_text(cfg["steps"]),
                                       cfg["sampler"], cfg["seed"],
                                       "deduplicated by graph key" if cfg["dedup"] == "graph" else "no dedup",
                                       100 * cfg["test_fraction"]), file=sys.stderr)
        src = {"tablebase": "its tablebase", "memory": "a table solved in memory",
               "search": "exact search" + (", at most %d nodes a query (bounds past it)" % cfg["node_limit"]
                                           if cfg["node_limit"] else "")}[cfg["source"]]
        print("note: labels from %s; memory %s of %s available" % (src, cfg["plan_text"],
                                                                   _mib(cfg["mem_available"]) if cfg["mem_available"]
                                                                   else "(unknown)"), file=sys.stderr)
        free = cfg["nlines"] - cfg["steps"][0]
        hard = _lib().dab_oracle_expected_seconds(free) if cfg["source"] == "search" else 0
        if hard > 3600 and not cfg["node_limit"]:
            print("note: step %d leaves %d lines; an exact search of an empty board that size takes about %.2g "
                  "CPU hours (positions in play usually far less): --node-limit N bounds each query"
                  % (cfg["steps"][0], free, hard / 3600), file=sys.stderr)
        if old:
            print("note: continuing the data set in %s" % self.out, file=sys.stderr)

    def _run(self, old):
        cfg = self.cfg
        _clean_tmp(self.out)
        self._plan_notes(old)
        cancel = Cancel()
        pool = Pool(cfg, cfg["jobs"])
        try:
            return self._phases(old, pool, cancel)
        except Interrupted:
            pool.kill()
            _clean_tmp(self.out)
            return self._interrupted()
        except BaseException:
            pool.kill()
            _clean_tmp(self.out)
            raise
        finally:
            pool.kill()

    def _interrupted(self):
        m = self.manifest
        if m is None:
            print("%s: interrupted while sampling, before any shard; nothing kept but the folder" % CMD,
                  file=sys.stderr)
        else:
            self.flush(force=True)
            done = sum(1 for s in m["shards"] if s.get("sha256"))
            print("%s: interrupted: %d of %d shards finished and kept in %s" % (CMD, done, len(m["shards"]),
                                                                              self.out), file=sys.stderr)
        print("%s: to resume, run: dab dataset %s" % (CMD, " ".join(_quote(a) for a in self.argv)),
              file=sys.stderr)
        return 1

    def _load_positions(self, old):
        """The selection a previous run wrote, when its checksum holds."""
        pf = old and old.get("positions_file")
        if not pf:
            return None
        try:
            with open(os.path.join(self.out, pf["file"]), "rb") as f:
                data = f.read()
        except OSError:
            return None
        if ds.sha256(data) != pf["sha256"]:
            return None
        a = ds.npz_read(data, pf["file"])
        return a

    def _phases(self, old, pool, cancel):
        cfg = self.cfg
        sel = self._load_positions(old)
        if sel is not None:
            self.games = old["games"]
            sample_cpu = old.get("sample_cpu_seconds", 0)
            pos_file = dict(old["positions_file"])
        else:
            sel, sample_cpu = self.sample(pool, cancel)
            data = ds.npz_bytes([(name, sel[name]) for name, _ in _POS_FIELDS])
            pos_file = {"file": ds.POSITIONS, "sha256": ds.sha256(data), "bytes": len(data)}
            if old and (old.get("positions_file") or {}).get("sha256") != pos_file["sha256"]:
                old = None       # another selection (a sampler with a time limit?): every shard anew
            ds.durable_write(os.path.join(self.out, ds.POSITIONS), data)
        self.new_manifest(sel, pos_file, sample_cpu, old)
        # the rows of each shard: its split's positions, in order, cut in shard_size pieces
        self.shard_rows = {}
        for s in self.manifest["shards"]:
            idx = np.flatnonzero(sel["test"] == (s["split"] == "test"))
            self.shard_rows[s["file"]] = idx[s["rows"][0]:s["rows"][1]]
        # keep what an earlier run finished, where the file still matches
        have = {s["file"]: s for s in (old or {}).get("shards", []) if s.get("sha256")}
        todo, redo = [], []
        for s in self.manifest["shards"]:
            h = have.get(s["file"])
            if h and h["positions"] == s["positions"] and h.get("rows") == s["rows"]:
                try:
                    with open(os.path.join(self.out, s["file"]), "rb") as f:
                        ok = ds.sha256(f.read()) == h["sha256"]
                except OSError:
                    ok = False
                if ok:
                    s.update({k: h[k] for k in ("sha256", "bytes", "cpu_seconds", "exact") if k in h})
                    continue
                redo.append(s["file"])
            todo.append(s)
        if redo:
            print("note: redoing %d shard%s that fail%s the checksum or are missing: %s" % (
                len(redo), "s" if len(redo) > 1 else "", "" if len(redo) > 1 else "s", ", ".join(redo)),
                file=sys.stderr)
        self.write_manifest()
        if todo:
            self.label(pool, cancel, todo, sel)
        self.flush(force=True)
        pool.stop()
        m = self.manifest
        _clean_tmp(self.out)
        print("%s: %d positions (%d train, %d test) from %d games in %d shard%s; labels %.3g CPU s "
              "(%.4g positions per CPU second)" % (
                  self.out, m["positions"], m["train"], m["test"], m["games"], len(m["shards"]),
                  "s" if len(m["shards"]) != 1 else "",
                  m["label_cpu_seconds"], m["labels_per_cpu_second"] or 0))
        if m["shortfall"]:
            print("note: fewer positions than asked at step%s %s (%s): %s in %d games" % (
                "s" if len(m["shortfall"]) > 1 else "", ",".join(m["shortfall"]),
                ", ".join("%s short" % v for v in m["shortfall"].values()),
                "the distinct positions ran out" if cfg["dedup"] != "none" else "--max-games reached",
                m["games"]), file=sys.stderr)
        return 0


def main(argv):
    try:
        cfg = parse_args(argv)
        _check_libs(cfg)
        return Run(cfg, argv).run()
    except Usage as e:
        print("%s: %s" % (CMD, e), file=sys.stderr)
        return 2
    except Failure as e:
        print("%s: %s" % (CMD, e), file=sys.stderr)
        return 1
    except DabError as e:
        print("%s: %s" % (CMD, str(e).splitlines()[0] if str(e) else type(e).__name__), file=sys.stderr)
        return 1
    except OSError as e:
        print("%s: %s%s" % (CMD, "%s: " % e.filename if e.filename else "", e.strerror or e), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # before the workers start (checking the sampler, the oracle)
        print("%s: interrupted before any work; nothing written" % CMD, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
