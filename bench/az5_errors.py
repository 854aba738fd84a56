#!/usr/bin/python3
"""bench/az5_errors.py: an az net graded on a data set's held-out games,
and where its mistakes sit against its value head's error.

    /usr/bin/python3 bench/az5_errors.py DATA NET.az [--per 50] [--sims 800]
        [--steps A-B] [--seed 1] [--json FILE] [--graded CACHE ...]

DATA is a `dab dataset` folder (its test split: whole games no training
on the train split saw); NET an az model (dab.az_fit or dab train az).
Per step, --per positions drawn from the test split: the share whose move
is optimal (margin-optimal, the oracle's optimal set) for the net's policy
alone (sims=0) and for the az player at --sims simulations; the value
head's error in boxes, |net's final margin - (score so far + exact value)|;
and the share of the player's errors that sit where that error is >= 2
boxes.  --graded: az5_steps grading caches, whose positions are counted
against the train split (how many share a Strings-and-Coins graph key,
symmetries included, with a position the net trained on).  Prints wall
and CPU time and peak RSS.  Needs PyTorch for the
value head.
"""
import argparse
import json
import os
import resource
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python"))

import numpy as np  # noqa: E402

import dab  # noqa: E402
from dab import az_fit  # noqa: E402
from dab import dataset as dsmod  # noqa: E402


def value_errors(path, d, rows, cols):
    """|net value - target| in boxes for every row of d (PyTorch, CPU)."""
    import torch
    net = az_fit.load_net(path)[0]
    net.eval()
    boxes = rows * cols
    x = torch.from_numpy(az_fit.encode(d["lines"], d["score_diff"], rows, cols))
    with torch.no_grad():
        _, v = net(x)
    target = d["score_diff"].astype(np.float64) + d["value"].astype(np.float64)
    return np.abs(v.numpy().astype(np.float64) * boxes - target)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data")
    ap.add_argument("net")
    ap.add_argument("--per", type=int, default=50)
    ap.add_argument("--sims", type=int, default=800)
    ap.add_argument("--steps", help="A-B (default: every step of the data set)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="also write the figures as JSON")
    ap.add_argument("--graded", nargs="*", default=[], help="az5_steps grading caches to check against the train split")
    a = ap.parse_args(argv)
    t0 = time.time()
    try:
        data = dsmod.load(a.data, split="test", obs_dtype=None)
    except dab.DabError as e:          # not a data set, unfinished, damaged: one line
        print("az5_errors: %s" % e, file=sys.stderr)
        return 2
    rows, cols = data.manifest["rows"], data.manifest["cols"]
    keep = ("lines", "score", "to_move", "score_diff", "step", "value", "optimal", "exact")
    d = {k: data[k] for k in keep}
    ok = d["exact"].astype(bool)
    if a.steps:
        lo, hi = (int(x) for x in a.steps.split("-"))
        ok &= (d["step"] >= lo) & (d["step"] <= hi)
    rng = np.random.default_rng(a.seed)
    pick = []
    for s in np.unique(d["step"][ok]):
        idx = np.nonzero(ok & (d["step"] == s))[0]
        pick.extend(sorted(rng.choice(idx, size=min(a.per, len(idx)), replace=False)))
    pick = np.array(pick, dtype=np.int64)
    d = {k: v[pick] for k, v in d.items()}
    verr = value_errors(a.net, d, rows, cols)
    search = dab.Player("az:%s,sims=%d" % (a.net, a.sims), (rows, cols), seed=a.seed)
    policy = dab.Player("az:%s,sims=0" % a.net, (rows, cols), seed=a.seed)
    hit_s = np.zeros(len(pick), dtype=bool)
    hit_p = np.zeros(len(pick), dtype=bool)
    for i in range(len(pick)):
        lines, sc, tm = int(d["lines"][i]), tuple(int(x) for x in d["score"][i]), int(d["to_move"][i])
        hit_s[i] = bool(d["optimal"][i][search.move_lines(lines, sc, tm)])
        hit_p[i] = bool(d["optimal"][i][policy.move_lines(lines, sc, tm)])
        if sys.stderr.isatty():
            print("\r%d/%d positions" % (i + 1, len(pick)), end="", file=sys.stderr, flush=True)
    if sys.stderr.isatty():
        print(file=sys.stderr)
    big = verr >= 2
    out = {"data": a.data, "net": a.net, "sims": a.sims, "per": a.per, "steps": {}}
    print("# az5_errors %s: %s on the test split of %s, %d positions" % (
        time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()), a.net, a.data, len(pick)))
    print("| step | n | policy (sims=0) | az, sims=%d | value error (boxes) | share with error >= 2 |"
          " errors at sims=%d | of them with value error >= 2 |" % (a.sims, a.sims))
    print("|---|---|---|---|---|---|---|---|")
    steps = list(np.unique(d["step"])) + ["all"]
    for s in steps:
        m = np.ones(len(pick), dtype=bool) if s == "all" else d["step"] == s
        n, errs = int(m.sum()), int((m & ~hit_s).sum())
        row = {"n": n, "policy": float(hit_p[m].mean()), "search": float(hit_s[m].mean()),
               "value_err": float(verr[m].mean()), "big_share": float(big[m].mean()),
               "errors": errs, "errors_big": int((m & ~hit_s & big).sum())}
        out["steps"][str(s)] = row
        print("| %s | %d | %.3f | %.3f | %.2f | %.3f | %d | %s |" % (
            s, n, row["policy"], row["search"], row["value_err"], row["big_share"], errs,
            "%d (%.2f)" % (row["errors_big"], row["errors_big"] / errs) if errs else "0"))
    # error rates inside and outside the value head's big misses
    for name, m in (("value error >= 2", big), ("value error < 2", ~big)):
        if m.any():
            print("# sims=%d optimal where %s: %.3f of %d" % (a.sims, name, hit_s[m].mean(), m.sum()))
    if a.graded:
        from dab._dataset_make import graph_keys
        train_keys = set(dsmod.load(a.data, split="train", obs_dtype=None)["key"].tolist())
        game = dab.Game(rows, cols)
        for f in a.graded:
            with open(f) as fh:
                text = fh.read().splitlines()
            board = "%dx%d" % (rows, cols)
            if not text or ("board %s:" % board) not in text[0]:
                print("az5_errors: %s: not a %s grading cache" % (f, board), file=sys.stderr)
                return 2
            lines = [int(ln.split()[0], 16) for ln in text if ln.strip() and not ln.startswith("#")]
            keys, _ = graph_keys(game, lines)
            seen = sum(int(k) in train_keys for k in keys)
            out.setdefault("graded", {})[f] = {"positions": len(lines), "in_train": seen}
            print("# %s: %d graded positions, %d of them share a graph key with a training position"
                  % (f, len(lines), seen))
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print("# wall %.0f s, CPU %.0f s, peak RSS %d MiB" % (time.time() - t0, ru.ru_utime + ru.ru_stime,
                                                         ru.ru_maxrss // 1024))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
