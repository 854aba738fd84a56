"""test_az_fit.py: dab.az_fit, a BoxesZero net trained on exact labels.

On a small 3x3 data set: the encoding equals the planes az_train.py's
samples carry (the C side's encoder, through `dab play` at sims=0: the
policy argmax of the file's net, read by C, equals PyTorch's on quiet
positions); every board symmetry maps the oracle's optimal moves of a
position onto those of its image; the model file is one dab reads and
plays (arena against random); a few epochs raise the test split's
optimal-move share over the untrained net's; --init resumes a shape and
refuses another; bad input.

Run with /usr/bin/python3 (needs numpy and torch; skipped without torch).
Ends with "test_az_fit.py: N passed, M failed".
"""
import json
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
tmp = tempfile.mkdtemp(prefix="dab-test-azfit-")
os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
import numpy as np  # noqa: E402

from checks import check, report  # noqa: E402

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DAB = os.environ.get("DAB_BIN", os.path.join(root, "bin", "dab"))
try:
    import torch  # noqa: F401,E402
except ImportError:
    print("test_az_fit.py: PyTorch missing: skipped")
    report("test_az_fit.py")
    sys.exit(0)

import dab  # noqa: E402
from dab import az_fit, az_train  # noqa: E402
import dab.dataset as dds  # noqa: E402

ds = os.path.join(tmp, "ds")
r = subprocess.run([DAB, "dataset", "3x3", "--steps", "3-20", "--count", "150", "--explore", "0.3",
                    "--jobs", "1", "-o", ds], capture_output=True, text=True)
check(r.returncode == 0,
      "a 3x3 data set for the tests (%s)" % r.stderr.strip()[-200:])
d = dds.load(ds, obs_dtype=None)
R, C, L = 3, 3, 24


def line_text(lines):
    return "3x3:" + "".join("1" if lines >> i & 1 else "0" for i in range(L))


# Every symmetry maps the optimal set of a position onto its image's.
o = dab.Oracle("3x3")
syms = az_fit.symmetries(R, C)
check(len(syms) == 8 and all(sorted(p.tolist()) == list(range(L)) for _, p in syms),
      "a square board has 8 symmetries, each a permutation of the lines")
bad = 0
for i in range(0, len(d), 97):
    lines = int(d["lines"][i])
    opt = set(np.nonzero(d["optimal"][i])[0].tolist())
    for t, perm in syms:
        img = sum(1 << int(perm[b]) for b in range(L) if lines >> b & 1)
        want = set(int(perm[m]) for m in opt)
        if set(o.best_moves(line_text(img))) != want:
            bad += 1
check(bad == 0,
      "the oracle's optimal moves follow every symmetry (%d mismatches)" % bad)

# The planes under a symmetry are the planes of the image position.
x = torch.from_numpy(az_fit.encode(d["lines"][:50], d["score_diff"][:50], R, C))
ok = True
for t, perm in syms:
    imgs = np.array([sum(1 << int(perm[b]) for b in range(L) if int(v) >> b & 1) for v in d["lines"][:50]],
                    dtype=np.uint64)
    y = torch.from_numpy(az_fit.encode(imgs, d["score_diff"][:50], R, C))
    ok &= bool(torch.equal(az_fit.apply_grid(x, t), y))
check(ok,
      "apply_grid of the planes equals the planes of the permuted lines, every symmetry")

# Untrained (identity blocks) against three epochs.
out0, out = os.path.join(tmp, "n0.az"), os.path.join(tmp, "n.az")
common = [ds, "--blocks", "1", "--filters", "8", "--vhidden", "16", "--threads", "1", "--seed", "3"]


def fit(args):
    r = subprocess.run([sys.executable, "-m", "dab.az_fit"] + args, capture_output=True, text=True,
                       cwd=os.path.join(root, "python"))
    try:
        return r.returncode, json.loads(r.stdout.strip().splitlines()[-1]), r.stderr
    except (ValueError, IndexError):
        return r.returncode, None, r.stderr


rc0, j0, e0 = fit(common + ["--out", out0, "--epochs", "1", "--lr", "1e-9"])
rc, j, e = fit(common + ["--out", out, "--epochs", "25", "--batch", "64"])
check(rc0 == 0 and rc == 0 and j and j0,
      "az_fit exits 0 (%s)" % e.strip()[-200:])
if j and j0:
    check(j["test_optimal"] > j0["test_optimal"] + 0.05,
      "training raises the test split's optimal-move share (%.3f -> %.3f)"
          % (j0["test_optimal"], j["test_optimal"]))
    check(j["test_value_err_boxes"] < j0["test_value_err_boxes"],
      "... and lowers the value error (%.2f -> %.2f boxes)"
          % (j0["test_value_err_boxes"], j["test_value_err_boxes"]))
    check(sorted(map(int, j["per_step"])) ==
          sorted(set(d["step"][d["test"]].tolist())),
      "per-step figures for every step of the test split")

# The file: dab reads it, and C's forward pass agrees with PyTorch's.
rows_, cols_, params, w = az_fit.read_model(out)
check((rows_, cols_) == (3, 3) and params["blocks"] == "1" and params["sims"] == "800" and
      params["value"] == "margin" and int(params["weights"]) == w.size,
      "the model file names its net and search (%s)" % ",".join(sorted(params)))


net = az_fit.new_net(3, 3, 1, 8, 16)
w.astype("<f4").tofile(os.path.join(tmp, "w.bin"))
az_train.load_blob(net, os.path.join(tmp, "w.bin"))
agree = tried = 0
for i in range(len(d)):
    lines = int(d["lines"][i])
    if d["score_diff"][i] != 0 or tried >= 25:
        continue
    # quiet: no box with three sides (the player's rules act there, not the net)
    bl = az_fit.box_lines(R, C)
    if any(sum(lines >> int(b) & 1 for b in box) == 3 for box in bl):
        continue
    tried += 1
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(az_fit.encode(np.array([lines], dtype=np.uint64),
                                                       np.array([0]), R, C)))
    logits = logits[0].numpy()
    logits[[b for b in range(L) if lines >> b & 1]] = -1e9
    r = subprocess.run([DAB, "play", line_text(lines), "--player", "az:%s,sims=0" % out, "--json"],
                       capture_output=True, text=True)
    try:
        agree += json.loads(r.stdout)["move"] == int(np.argmax(logits))
    except ValueError:
        pass
check(tried >= 10 and agree == tried,
      "C plays the PyTorch net's argmax from the file (%d of %d quiet positions)" % (agree, tried))

r = subprocess.run([DAB, "arena", "--board", "3x3", "--p1", "az:%s,sims=30" % out, "--p2", "random",
                    "--games", "20", "--json"], capture_output=True, text=True)
check(r.returncode == 0,
      "the file plays in dab arena (exit %d)" % r.returncode)

# --init: same shape resumes, another is refused.
rc, j2, e = fit(common + ["--out", os.path.join(tmp, "n2.az"), "--epochs", "1", "--init", out, "--lr", "1e-9"])
check(rc == 0 and j2 and abs(j2["test_optimal"] - j["test_optimal"]) < 0.02,
      "--init from the trained net keeps what it learned (%s)" % (j2 and j2["test_optimal"]))
rc, _, e = fit([ds, "--blocks", "2", "--filters", "8", "--vhidden", "16", "--out", os.path.join(tmp, "n3.az"),
                "--epochs", "1", "--init", out])
check(rc != 0 and "shape" in e,
      "--init of another shape is refused (%s)" % e.strip()[-120:])
rc, _, e = fit([os.path.join(tmp, "nothing"), "--out", os.path.join(tmp, "n4.az")])
check(rc != 0 and "Traceback" not in e,
      "a folder that holds no data set is refused (exit %d)" % rc)

# Ctrl-C after the first epoch: the file holds the last finished epoch.
out5 = os.path.join(tmp, "n5.az")
pr = subprocess.Popen([sys.executable, "-m", "dab.az_fit"] + common + ["--out", out5, "--epochs", "400", "--batch", "16"],
                      stderr=subprocess.PIPE, text=True, cwd=os.path.join(root, "python"))
seen = ""
for ln in pr.stderr:
    seen += ln
    if "epoch 1/" in ln:
        pr.send_signal(signal.SIGINT)
        break
rest = pr.stderr.read()
rc5 = pr.wait()
ep5 = int(az_fit.read_model(out5)[2]["epochs"]) if os.path.exists(out5) else -1
check(rc5 == 130 and ep5 >= 1 and ("holds epoch %d" % ep5) in rest,
      "Ctrl-C keeps the last finished epoch's net (exit %d, epochs=%d: %s)" % (rc5, ep5, rest.strip()[-100:]))

report("test_az_fit.py")
