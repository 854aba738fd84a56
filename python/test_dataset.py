"""test_dataset.py: `dab dataset` and dab.dataset.

Makes small 3x3 data sets with the command (2 jobs), and checks every
label of every position against the oracle (value, every move's value,
the optimal set, win/draw/loss and keep) and the observation against
State.observation_tensor; the split by game; dedup by graph key (no two
positions left that a board symmetry maps onto each other); that a
damaged shard is refused by load() and redone by a rerun; that a run
interrupted (SIGINT) after its first shard resumes to the files of an
uninterrupted run; the bounds a node limit leaves (3x4 by search); the
torch adapter; bad input.

Run with /usr/bin/python3 (tests/run.sh does); DAB_BIN names the dab
program (default bin/dab).  Ends with "test_dataset.py: N passed, M failed".
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
tmp = tempfile.mkdtemp(prefix="dab-test-dataset-")
# tables and stores go to a scratch cache: the 3x4 checks need search, not
# a 3x4 table the user built
os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
os.environ["DAB_TB_NO_PROJECT"] = "1"
os.environ.pop("DAB_TB_PATH", None)
import numpy as np  # noqa: E402

import dab  # noqa: E402
import dab.dataset as dds  # noqa: E402
from dab import _dataset_make as mk  # noqa: E402

from checks import check, report  # noqa: E402

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
dab_bin = os.environ.get("DAB_BIN", os.path.join(root, "bin", "dab"))


def run(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([dab_bin, "dataset"] + list(args), capture_output=True, text=True, env=e, timeout=600)
    return r.returncode, r.stdout, r.stderr


def shard_sums(path):
    m = dds.read_manifest(path)
    return [(s["file"], s.get("sha256")) for s in m["shards"]], m["positions_file"]["sha256"]


def d(name):
    return os.path.join(tmp, name)


def sym_perms(R, C):
    """The line permutations of the board's symmetries (as symmetry/sym.h)."""
    nh = (R + 1) * C

    def line_id(a, b):
        (r1, c1), (r2, c2) = sorted([a, b])
        return r1 * C + c1 if r1 == r2 else nh + r1 * (C + 1) + c1

    ends = [((r, c), (r, c + 1)) for r in range(R + 1) for c in range(C)] + \
           [((r, c), (r + 1, c)) for r in range(R) for c in range(C + 1)]
    maps = [lambda i, j: (i, j), lambda i, j: (R - i, j), lambda i, j: (i, C - j), lambda i, j: (R - i, C - j)]
    if R == C:
        maps += [lambda i, j: (j, i), lambda i, j: (C - j, R - i), lambda i, j: (j, R - i), lambda i, j: (C - j, i)]
    return [[line_id(f(*a), f(*b)) for a, b in ends] for f in maps]


def canon(lines, perms):
    best = None
    for p in perms:
        img = sum(1 << p[m] for m in range(len(p)) if lines >> m & 1)
        best = img if best is None or img < best else best
    return best


def check_labels(path, obs, what):
    """Every label of every position of the data set against the oracle
    and the observation function."""
    data = dds.load(path)
    m = data.manifest
    R, C = m["rows"], m["cols"]
    game = dab.Game(R, C)
    o = dab.Oracle("%dx%d" % (R, C))
    L = game.nlines
    bad = {}

    def note(kind, i):
        bad.setdefault(kind, i)

    for i in range(len(data)):
        lines = int(data["lines"][i])
        s = dab.State(game, lines, int(data["by1"][i]), int(data["box1"][i]),
                      tuple(int(x) for x in data["score"][i]), int(data["to_move"][i]))
        me = s.player
        diff = s.score[me] - s.score[1 - me]
        if int(data["score_diff"][i]) != diff:
            note("score_diff", i)
        if int(data["step"][i]) != bin(lines).count("1"):
            note("step", i)
        if sum(s.score) != bin(game.completed(lines)).count("1"):
            note("score vs complete boxes", i)
        mv = o.move_values(lines)
        v = max(mv.values())
        if int(data["value"][i]) != v or int(data["lower"][i]) != v or int(data["upper"][i]) != v:
            note("value", i)
        if not data["exact"][i]:
            note("exact", i)
        want = np.full(L, -128)
        for mm, x in mv.items():
            want[mm] = x
        for name in ("move_values", "move_lower", "move_upper"):
            if not np.array_equal(data[name][i].astype(int), want):
                note(name, i)
        best = np.zeros(L, dtype=np.uint8)
        best[o.best_moves(lines)] = 1
        if not np.array_equal(data["optimal"][i], best):
            note("optimal", i)
        r, keep = o.result(lines, diff)
        if int(data["wdl"][i]) != {"win": 1, "draw": 0, "loss": -1}[r]:
            note("wdl", i)
        k = np.zeros(L, dtype=np.uint8)
        k[keep] = 1
        if not np.array_equal(data["keep"][i], k):
            note("keep", i)
        if not np.array_equal(data["legal"][i], np.array(s.legal_actions_mask(), dtype=np.uint8)):
            note("legal", i)
        x = s.observation_tensor(layout=obs).reshape(game.observation_tensor_shape(obs))
        if data["obs"][i].dtype != np.float32 or not np.array_equal(data["obs"][i], x):
            note("obs", i)
    check(not bad, "%s: every label of %d positions matches the oracle (first bad row per label: %s)"
          % (what, len(data), bad))
    check(data["obs"].shape == (len(data),) + tuple(game.observation_tensor_shape(obs)),
          "%s: obs shape %s" % (what, data["obs"].shape))
    return data


try:
    # ---- help and bad input ------------------------------------------------
    r = subprocess.run([dab_bin, "dataset", "--help"], capture_output=True, text=True)
    check(r.returncode == 0 and "--steps" in r.stdout and "--node-limit" in r.stdout and "chain" in r.stdout,
          "dataset --help: exit 0, the options and the players (%d)" % r.returncode)
    for args, what in ((["3x3", "--steps", "24", "-o", d("bad")], "a step past the board"),
                       (["3x3", "--steps", "4", "-o", d("bad"), "--sampler", "nosuch"], "an unknown sampler"),
                       (["3x3", "--steps", "4"], "no -o"),
                       (["3x3", "-o", d("bad")], "no --steps"),
                       (["3x3", "--steps", "4", "-o", d("bad"), "--obs", "pixels"], "an unknown --obs"),
                       (["3x3", "--steps", "4", "-o", d("bad"), "--jobs", "0"], "--jobs 0"),
                       (["3x3", "--steps", "4", "-o", d("bad"), "--test-fraction", "1"], "--test-fraction 1"),
                       (["3x3", "--steps", "4", "-o", d("bad"), "--hash", "12Q"], "a bad --hash"),
                       (["6x6", "--steps", "4", "-o", d("bad")], "a board past 64 lines"),
                       (["3x3", "--steps", "4", "-o", d("no/such/dir")], "-o in a missing folder"),
                       (["3x3", "--steps", "4", "-o", d("bad"), "--frobnicate"], "an unknown option"),
                       (["3x4", "--steps", "9", "-o", d("bad"), "--jobs", "256", "--hash", "9G"],
                        "a memory plan that does not fit")):
        rc, out, err = run(*args)
        lines = err.strip().splitlines()
        check(rc == 2 and len(lines) == 1 and lines[0].startswith("dab dataset: ") and not out,
              "bad input (%s): exit 2 and one line, got %d %r" % (what, rc, err[-300:]))
        check(not os.path.exists(d("bad")), "bad input (%s): nothing written" % what)

    # ---- a 3x3 data set: 200 positions, 2 jobs --------------------------------
    common = ["3x3", "--steps", "3,8,13,18", "--count", "50", "--test-fraction", "0.25", "--seed", "5",
              "--shard-size", "30", "--sampler", "level2"]
    rc, out, err = run(*common, "--jobs", "2", "-o", d("a"))
    check(rc == 0, "3x3 data set: exit 0 (got %d: %s)" % (rc, err[-500:]))
    check("note: plan:" in err and "2 jobs x" in err, "the plan and its memory are said first: %r" % err[:300])
    m = dds.read_manifest(d("a"))
    check(m["complete"] and m["positions"] == 200 and m["per_step"] == {"3": 50, "8": 50, "13": 50, "18": 50},
          "manifest: complete, 200 positions, 50 a step (%s %s)" % (m["positions"], m["per_step"]))
    check(m["dab"]["version"] and "library" in m["dab"] and m["labels"]["oracle"] in ("tablebase", "memory"),
          "manifest: dab version and the oracle (%s)" % (m["dab"], ))
    check(len(m["shards"]) >= 6 and all(s["sha256"] and s["positions"] <= 30 for s in m["shards"]),
          "manifest: shards of at most 30 positions, each with its SHA-256")
    check(dds.verify(d("a")) == [], "verify(): every shard sound")
    data = check_labels(d("a"), "openspiel", "3x3 openspiel")
    check(any(data["score_diff"] != 0) and set(np.unique(data["wdl"])) >= {-1, 1},
          "the labelled positions include scores and both results (so W/D/L is tested)")

    # the split: by game, no game in both, the manifest's hash rule
    tr, te = dds.load(d("a"), split="train"), dds.load(d("a"), split="test")
    gtr, gte = set(tr["game"].tolist()), set(te["game"].tolist())
    check(len(tr) + len(te) == 200 and len(te) > 0 and len(tr) > 0, "split: %d train + %d test" % (len(tr), len(te)))
    check(not gtr & gte, "split: no game feeds both (%d shared)" % len(gtr & gte))
    check(all(mk.is_test(5, g, 0.25) for g in gte) and not any(mk.is_test(5, g, 0.25) for g in gtr),
          "split: test games are those the seed's hash puts there")
    check(not tr["test"].any() and te["test"].all() and data["test"].sum() == len(te),
          "split: the test column marks the test rows")

    # the same options with one job: the same files
    rc, out, err = run(*common, "--jobs", "1", "-o", d("a1"))
    check(rc == 0 and shard_sums(d("a1")) == shard_sums(d("a")),
          "one job writes the files two jobs write (same SHA-256s)")

    # rerun of a finished data set: nothing redone, same files
    rc, out, err = run(*common, "--jobs", "2", "-o", d("a"))
    check(rc == 0 and "continuing" in err and "redoing" not in err and shard_sums(d("a1")) == shard_sums(d("a")),
          "a rerun of a finished data set keeps it (%d %r)" % (rc, err[-300:]))
    # other options in the same folder: refused, nothing changed
    before = shard_sums(d("a"))
    rc, out, err = run(*(common[:4] + ["60"] + common[5:]), "-o", d("a"))
    check(rc == 2 and "other options" in err and shard_sums(d("a")) == before,
          "other options into a data set's folder: exit 2, nothing changed (%d %r)" % (rc, err))

    # ---- a damaged shard: load refuses it, a rerun redoes it ----------------------
    shutil.copytree(d("a"), d("dmg"))
    victim = m["shards"][1]["file"]
    f = os.path.join(d("dmg"), victim)
    raw = bytearray(open(f, "rb").read())
    raw[len(raw) // 2] ^= 0x40
    open(f, "wb").write(bytes(raw))
    try:
        dds.load(d("dmg"))
        check(False, "load() of a damaged shard raises")
    except dab.DabCorruptError as e:
        check(victim in str(e), "load() refuses the damaged shard, naming it: %s" % e)
    check(dds.verify(d("dmg")) == [victim], "verify() names the damaged shard")
    rc, out, err = run(*common, "--jobs", "2", "-o", d("dmg"))
    check(rc == 0 and "redoing 1 shard" in err and victim in err, "a rerun redoes the damaged shard (%r)" % err[-300:])
    check(shard_sums(d("dmg")) == shard_sums(d("a")) and len(dds.load(d("dmg"))) == 200,
          "after the rerun the files are the original ones and load")
    # a missing shard too
    os.unlink(os.path.join(d("dmg"), m["shards"][0]["file"]))
    rc, out, err = run(*common, "-o", d("dmg"))
    check(rc == 0 and shard_sums(d("dmg")) == shard_sums(d("a")), "a rerun rewrites a missing shard")

    # ---- an interrupted run resumes to the same files ---------------------------
    args = common + ["--jobs", "1", "--shard-size", "20", "-o", d("int")]
    ref_args = common + ["--jobs", "2", "--shard-size", "20", "-o", d("ref")]
    rc, out, err = run(*ref_args)
    check(rc == 0, "reference run: exit 0")
    env = dict(os.environ, DAB_DATASET_TEST_SLEEP="0.5")
    p = subprocess.Popen([dab_bin, "dataset"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env)
    t0 = time.time()
    done = 0
    while time.time() - t0 < 120 and p.poll() is None:
        try:
            done = sum(1 for s in dds.read_manifest(d("int"))["shards"] if s.get("sha256"))
        except dab.DabError:
            done = 0
        if done >= 1:
            break
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    mi = dds.read_manifest(d("int"))
    ndone = sum(1 for s in mi["shards"] if s.get("sha256"))
    check(p.returncode == 1 and "interrupted" in err and "to resume, run: dab dataset" in err,
          "SIGINT after the first shard: exit 1, says how to resume (%s %r)" % (p.returncode, err[-400:]))
    check(1 <= ndone < len(mi["shards"]) and not mi["complete"],
          "interrupted: %d of %d shards kept, manifest incomplete" % (ndone, len(mi["shards"])))
    check(not [x for x in os.listdir(d("int")) if ".tmp-" in x], "interrupted: no temporary file left")
    try:
        dds.load(d("int"))
        check(False, "load() of an unfinished data set raises")
    except dab.DabInputError as e:
        check("unfinished" in str(e), "load() says the data set is unfinished: %s" % e)
    part = dds.load(d("int"), partial=True)
    check(len(part) == sum(s["positions"] for s in mi["shards"] if s.get("sha256")),
          "load(partial=True) gives the finished shards (%d positions)" % len(part))
    rc, out, err = run(*args)
    check(rc == 0 and "redoing" not in err, "the rerun finishes (%d %r)" % (rc, err[-300:]))
    check(shard_sums(d("int")) == shard_sums(d("ref")),
          "interrupted + resumed = uninterrupted: the same SHA-256 for every shard")
    check(len(dds.load(d("int"))) == 200, "the resumed data set loads")

    # ---- SIGINT with megabytes of tasks queued: the run still exits ----------
    big = ["3x3", "--steps", "4-20", "--count", "2000", "--shard-size", "16", "--jobs", "1", "-o", d("big")]
    p = subprocess.Popen([dab_bin, "dataset"] + big, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, DAB_DATASET_TEST_SLEEP="0.5"))
    t0 = time.time()
    while time.time() - t0 < 120 and p.poll() is None:
        try:
            if any(s.get("sha256") for s in dds.read_manifest(d("big"))["shards"]):
                break
        except dab.DabError:
            pass
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=30)
        exited = True
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        exited = False
    nshards = len(dds.read_manifest(d("big"))["shards"])
    check(exited and p.returncode == 1 and "interrupted" in err,
          "SIGINT with %d shards' tasks queued: exit 1 within 30 s (%s, %s)" % (nshards, exited, p.returncode))

    # ---- dedup by graph key --------------------------------------------------
    rc, out, err = run("3x3", "--steps", "2,9", "--count", "40", "--dedup", "--sampler", "random", "--jobs", "2",
                       "--max-games", "400", "-o", d("dd"))
    check(rc == 0, "dedup run: exit 0 (%d %r)" % (rc, err[-300:]))
    dd = dds.load(d("dd"))
    mdd = dd.manifest
    perms = sym_perms(3, 3)
    k2 = {}
    for i in range(len(dd)):
        k2.setdefault(int(dd["step"][i]), []).append(canon(int(dd["lines"][i]), perms))
    check(all(len(v) == len(set(v)) for v in k2.values()),
          "dedup: no two positions are images of each other under the board's symmetries")
    key, chk = mk.graph_keys(dab.Game(3, 3), dd["lines"])
    check(len(set(zip(key.tolist(), chk.tolist()))) == len(dd) and np.array_equal(key, dd["key"]),
          "dedup: every graph key once, and the key column is the library's")
    # 3x3 with 2 lines drawn has few classes: the step runs short and says so
    check(mdd["per_step"]["9"] == 40 and 0 < mdd["per_step"]["2"] < 40 and mdd["shortfall"] == {
        "2": 40 - mdd["per_step"]["2"]} and "fewer positions than asked" in err,
        "dedup: step 2 runs out of distinct positions (%s), step 9 does not" % mdd["per_step"])
    rc, out, err = run("3x3", "--steps", "2", "--count", "40", "--sampler", "random", "-o", d("nodd"))
    nd = dds.load(d("nodd"))
    c2 = [canon(int(x), perms) for x in nd["lines"]]
    check(rc == 0 and len(nd) == 40 and len(set(c2)) < 40, "without --dedup the same positions repeat")

    # ---- planes ------------------------------------------------------------
    rc, out, err = run("3x3", "--steps", "5,15", "--count", "20", "--obs", "planes", "--jobs", "2",
                       "--sampler", "random", "-o", d("pl"))
    check(rc == 0, "planes: exit 0 (%r)" % err[-300:])
    check_labels(d("pl"), "planes", "3x3 planes")
    raw = dds.load(d("pl"), obs_dtype=None)
    check(raw["obs"].dtype == np.uint8, "obs_dtype=None keeps the file's uint8")

    # ---- a node limit: bounds that hold (3x4 by search) --------------------------
    rc, out, err = run("3x4", "--steps", "9", "--count", "12", "--node-limit", "300", "--hash", "16M",
                       "--jobs", "2", "--sampler", "random", "--shard-size", "6", "-o", d("nl"))
    check(rc == 0 and "exact search" in err, "3x4 by search with --node-limit: exit 0 (%r)" % err[-400:])
    nl = dds.load(d("nl"))
    check(nl.manifest["labels"]["oracle"] == "search", "3x4 is labelled by search")
    ex = dab.Oracle("3x4", search=True, read_only=True)
    ok = True
    sgn = lambda x: (x > 0) - (x < 0)   # noqa: E731
    for i in range(len(nl)):
        lines = int(nl["lines"][i])
        mv = ex.move_values(lines)
        v = max(mv.values())
        lo, hi = int(nl["lower"][i]), int(nl["upper"][i])
        diff = int(nl["score_diff"][i])
        ok &= lo <= v <= hi and (nl["exact"][i] == (lo == hi and all(
            nl["move_lower"][i][m] == nl["move_upper"][i][m] for m in mv)))
        ok &= int(nl["value"][i]) == (v if lo == hi else -128)
        for mm, x in mv.items():
            ok &= int(nl["move_lower"][i][mm]) <= x <= int(nl["move_upper"][i][mm])
            ok &= int(nl["move_values"][i][mm]) in (x, -128)
            if x == v:
                ok &= bool(nl["optimal"][i][mm])        # a true best move is never marked worse
        want = sgn(diff + v)
        ok &= int(nl["wdl"][i]) in (want, -128)
        r, keep = ex.result(lines, diff)
        ok &= set(np.flatnonzero(nl["keep"][i]).tolist()) <= set(keep)
    check(ok, "node limit: bounds hold the exact values, moves too; optimal keeps the best; W/D/L and keep "
              "only where proved")
    check((~nl["exact"]).sum() > 0, "node limit 300 leaves some 3x4 positions at step 9 open (%d of %d)"
          % ((~nl["exact"]).sum(), len(nl)))

    # ---- torch -------------------------------------------------------------
    try:
        import torch
    except ImportError:
        torch = None
        print("note: torch not importable: the TorchDataset checks did not run")
    if torch is not None:
        t = dds.TorchDataset(d("a"), split="test")
        item = t[0]
        check(len(t) == len(te) and isinstance(t, torch.utils.data.Dataset), "TorchDataset: a Dataset of the split")
        check(item["obs"].dtype == torch.float32 and tuple(item["obs"].shape) == (3, 16, 3)
              and item["move_values"].shape == (24,), "TorchDataset: item tensors of the right shapes")
        batch = next(iter(torch.utils.data.DataLoader(t, batch_size=8)))
        check(tuple(batch["obs"].shape) == (8, 3, 16, 3) and batch["value"].shape == (8,)
              and np.array_equal(batch["value"].numpy(), te["value"][:8]), "TorchDataset: DataLoader batches")
    r = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, %r); import dab, dab.dataset; "
                        "print('torch' in sys.modules)" % os.path.dirname(os.path.abspath(__file__))],
                       capture_output=True, text=True)
    check(r.stdout.strip() == "False", "import dab.dataset does not import torch (%r)" % (r.stdout + r.stderr))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

report("test_dataset.py")
