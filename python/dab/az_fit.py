#!/usr/bin/python3
"""dab.az_fit: trains a BoxesZero net on exact labels (a `dab dataset`).

    /usr/bin/python3 -m dab.az_fit DATA_DIR [DATA_DIR ...] --out NET.az
        [--blocks 6] [--filters 32] [--vhidden 64] [--epochs 20] [--batch 256]
        [--lr 0.002] [--l2 1e-4] [--value-weight 1] [--seed 1] [--threads N] [--device cpu|cuda|auto]
        [--sims 800] [--init NET.az] [--partial] [--no-augment] [--log FILE.csv]

The net is az_train.py's (agents/az.h: the same layout and weight blob), so
the file plays as az:NET.az in dab arena, dab play and bench/az5_steps.sh,
with the search settings of a trained model (sims, c = 2, chain-loop macro
moves, exact loony endgames).  Targets, from the oracle's labels:
  policy  uniform over the optimal moves;
  value   (mover's boxes so far - the other's + the exact value) / boxes,
          the final margin a `value=margin` net predicts.
Rows whose labels a node limit left open are skipped.  The train split
trains, the test split (whole games) is graded after every epoch: the
share of positions whose policy argmax is optimal, and the value head's
mean error in boxes, overall and per step.  Each batch is seen under one
random board symmetry (8 on a square board, 4 otherwise) unless
--no-augment.  --init starts from an az model's weights (same shape).  The net is written
after every epoch, so Ctrl-C leaves the last finished epoch's net (exit 130).
Needs numpy and PyTorch (python3-torch); runs on the CPU unless --device.
"""
import argparse
import ctypes
import json
import math
import os
import signal
import struct
import sys
import time
import types

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]
    sys.path.insert(0, os.path.dirname(_here))

import numpy as np  # noqa: E402

from dab import dataset as dsmod  # noqa: E402
from dab.errors import DabError  # noqa: E402

MODEL_MAGIC = b"DABMODEL"


# ---- The board's geometry -----------------------------------------------------

def line_cells(rows, cols):
    """(y, x) grid cell of every line, in OpenSpiel's numbering."""
    cells = []
    for r in range(rows + 1):
        for c in range(cols):
            cells.append((2 * r, 2 * c + 1))
    for r in range(rows):
        for c in range(cols + 1):
            cells.append((2 * r + 1, 2 * c))
    return np.array(cells, dtype=np.int64)


def box_lines(rows, cols):
    """The four lines of every box, [boxes, 4]."""
    out = []
    for r in range(rows):
        for c in range(cols):
            out.append([r * cols + c, (r + 1) * cols + c,
                        (rows + 1) * cols + r * (cols + 1) + c, (rows + 1) * cols + r * (cols + 1) + c + 1])
    return np.array(out, dtype=np.int64)


def symmetries(rows, cols):
    """The board's symmetries as (grid transform, line permutation) pairs:
    grid(x) maps a [..., H, W] array, perm[l] is the image of line l."""
    h, w = 2 * rows + 1, 2 * cols + 1
    cells = line_cells(rows, cols)
    index = {(int(y), int(x)): i for i, (y, x) in enumerate(cells)}
    out = []
    for transpose in ([False, True] if rows == cols else [False]):
        for fy in (False, True):
            for fx in (False, True):
                perm = np.empty(len(cells), dtype=np.int64)
                for i, (y, x) in enumerate(cells):
                    y2, x2 = (h - 1 - y if fy else y), (w - 1 - x if fx else x)
                    if transpose:
                        y2, x2 = x2, y2
                    perm[i] = index[(int(y2), int(x2))]
                out.append(((transpose, fy, fx), perm))
    return out


def apply_grid(x, t):
    """x [..., H, W] under transform t = (transpose, flip y, flip x)."""
    transpose, fy, fx = t
    if fy:
        x = x.flip(-2)
    if fx:
        x = x.flip(-1)
    if transpose:
        x = x.transpose(-2, -1)
    return x


def encode(lines, score_diff, rows, cols):
    """agents/az.h's three planes for positions (lines: uint64 bit masks,
    score_diff: the mover's boxes minus the other's): float32 [n, 3, H, W]."""
    n = len(lines)
    L = rows * (cols + 1) + cols * (rows + 1)
    h, w = 2 * rows + 1, 2 * cols + 1
    bits = ((lines.astype(np.uint64)[:, None] >> np.arange(L, dtype=np.uint64)[None, :]) & np.uint64(1)).astype(np.float32)
    planes = np.zeros((n, 3, h, w), dtype=np.float32)
    cells = line_cells(rows, cols)
    planes[:, 0, cells[:, 0], cells[:, 1]] = bits
    bl = box_lines(rows, cols)
    taken = bits[:, bl].min(axis=2)
    by = 2 * np.repeat(np.arange(rows), cols) + 1
    bx = 2 * np.tile(np.arange(cols), rows) + 1
    planes[:, 1, by, bx] = taken
    planes[:, 2] = (score_diff.astype(np.float32) / (rows * cols))[:, None, None]
    return planes


# ---- Model files --------------------------------------------------------------

def _xxh3(data):
    lib = ctypes.CDLL("libxxhash.so.0")
    lib.XXH3_64bits.restype = ctypes.c_uint64
    lib.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    return lib.XXH3_64bits(data, len(data))


def write_model(path, rows, cols, params, blob):
    """A model file (agents/agent.h's format, kind "az"), written durably:
    PATH.tmp.PID, fsync, rename."""
    p = params.encode()
    head = MODEL_MAGIC + struct.pack("<IHH", 1, rows, cols) + b"az".ljust(16, b"\0") + \
        struct.pack("<IQ", len(p), len(blob))
    body = head + p + blob
    data = body + struct.pack("<Q", _xxh3(body))
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    try:
        d = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
        os.fsync(d)
        os.close(d)
    except OSError:
        pass


def read_model(path):
    """(rows, cols, params dict, float32 weights) of an az model file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != MODEL_MAGIC:
        sys.exit("az_fit: %s: not a model file" % path)
    _, rows, cols = struct.unpack("<IHH", data[8:16])
    kind = data[16:32].rstrip(b"\0").decode()
    plen, n = struct.unpack("<IQ", data[32:44])
    if kind != "az":
        sys.exit("az_fit: %s: a %s model, not az" % (path, kind))
    if len(data) != 44 + plen + n + 8 or struct.unpack("<Q", data[-8:])[0] != _xxh3(data[:-8]):
        sys.exit("az_fit: %s: damaged (length or checksum)" % path)
    params = dict(kv.split("=", 1) for kv in data[44:44 + plen].decode().split(",") if "=" in kv)
    return rows, cols, params, np.frombuffer(data[44 + plen:44 + plen + n], dtype="<f4").copy()


def new_net(rows, cols, blocks, filters, vhidden, vfilters=1):
    """az_train's net of that shape (PyTorch), as az_train initialises it."""
    from dab import az_train
    return az_train.make_net(types.SimpleNamespace(rows=rows, cols=cols, blocks=blocks, filters=filters,
                                                   vhidden=vhidden, vfilters=vfilters))


def load_net(path):
    """(net, rows, cols, params) of the az model file at path, its weights
    in the net (PyTorch)."""
    from dab import az_train
    rows, cols, p, w = read_model(path)
    net = new_net(rows, cols, int(p["blocks"]), int(p["filters"]), int(p["vhidden"]), int(p.get("vfilters", 1)))
    az_train.load_flat(net, w, path)
    return net, rows, cols, p


# ---- Training -----------------------------------------------------------------

def load_data(dirs, partial):
    """Every data set in dirs, one board: (rows, cols, arrays) with the
    rows whose labels are exact."""
    keep = ("lines", "score_diff", "step", "game", "value", "optimal", "exact", "test", "move_values", "legal")
    parts, board = [], None
    for d in dirs:
        data = dsmod.load(d, partial=partial, obs_dtype=None)
        b = (data.manifest["rows"], data.manifest["cols"])
        if board and b != board:
            sys.exit("az_fit: %s is %dx%d, %s is %dx%d" % (d, b[0], b[1], dirs[0], board[0], board[1]))
        board = b
        parts.append({k: data[k] for k in keep})
    a = {k: np.concatenate([p[k] for p in parts]) for k in keep}
    ok = a["exact"].astype(bool)
    return board[0], board[1], {k: v[ok] for k, v in a.items()}


def grade(net, torch, X, opt_mask, legal, z, steps, nboxes, dev, batch=1024):
    """(share of argmax moves that are optimal, value error in boxes),
    overall and per step, over X."""
    net.eval()
    hits, errs = [], []
    with torch.no_grad():
        for i in range(0, X.shape[0], batch):
            logits, v = net(X[i:i + batch].to(dev))
            logits = logits.cpu().masked_fill(legal[i:i + batch] == 0, -1e9)
            m = logits.argmax(1)
            hits.append(opt_mask[i:i + batch].gather(1, m[:, None]).squeeze(1).float())
            errs.append((v.cpu() - z[i:i + batch]).abs() * nboxes)
    net.train()
    h, e = torch.cat(hits).numpy(), torch.cat(errs).numpy()
    per = {int(s): (float(h[steps == s].mean()), float(e[steps == s].mean())) for s in np.unique(steps)}
    return float(h.mean()), float(e.mean()), per


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m dab.az_fit", description=__doc__.split("\n")[0])
    ap.add_argument("data", nargs="+", help="dab dataset folders (one board)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--blocks", type=int, default=6)
    ap.add_argument("--filters", type=int, default=32)
    ap.add_argument("--vhidden", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=0.002)
    ap.add_argument("--l2", type=float, default=1e-4)
    ap.add_argument("--value-weight", type=float, default=1.0, help="the value loss's weight against the policy's")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--device", default=os.environ.get("DAB_AZ_DEVICE") or "cpu")
    ap.add_argument("--sims", type=int, default=800)
    ap.add_argument("--init")
    ap.add_argument("--partial", action="store_true", help="use the finished shards of unfinished data sets")
    ap.add_argument("--no-augment", action="store_true")
    ap.add_argument("--log", help="CSV: one row per epoch")
    a = ap.parse_args(argv)

    import torch
    from dab import az_train
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    dev = az_train.pick_device(a.device)
    try:
        rows, cols, d = load_data(a.data, a.partial)
    except DabError as e:              # not a data set, unfinished, damaged: one line
        print("az_fit: %s" % e, file=sys.stderr)
        return 2
    nboxes, L = rows * cols, rows * (cols + 1) + cols * (rows + 1)
    test = d["test"].astype(bool)
    if not test.any() and a.partial:
        # an unfinished data set may have no test shard yet: every tenth game
        test = d["game"] % 10 == 0
        print("az_fit: no test shard finished yet: testing on every tenth game's positions", file=sys.stderr)
    if not (~test).any() or not test.any():
        sys.exit("az_fit: need positions in both splits (train %d, test %d)" % ((~test).sum(), test.sum()))
    X = torch.from_numpy(encode(d["lines"], d["score_diff"], rows, cols))
    opt = torch.from_numpy(d["optimal"].astype(np.float32))
    PI = opt / opt.sum(1, keepdim=True).clamp(min=1)
    Z = torch.from_numpy((d["score_diff"].astype(np.float32) + d["value"].astype(np.float32)) / nboxes)
    legal = torch.from_numpy(d["legal"].astype(np.uint8))
    tr, te = np.nonzero(~test)[0], np.nonzero(test)[0]
    tr_t = torch.from_numpy(tr)
    Xte, Ote, Lte, Zte = X[te], opt[te], legal[te], Z[te]

    net = new_net(rows, cols, a.blocks, a.filters, a.vhidden)
    if a.init:
        r0, c0, p0, w0 = read_model(a.init)
        if (r0, c0) != (rows, cols) or any(int(p0.get(k, 1)) != getattr(a, k) for k in ("blocks", "filters", "vhidden")):
            sys.exit("az_fit: --init %s: another board or net shape" % a.init)
        az_train.load_flat(net, w0, a.init)
    else:
        with torch.no_grad():
            for _, c2 in net.blocks:      # each block starts as the identity (az_train's init)
                c2.weight.zero_()
                c2.bias.zero_()
    net.to(dev)
    syms = symmetries(rows, cols)
    optim = torch.optim.Adam(net.parameters(), lr=a.lr, weight_decay=a.l2)
    steps_per_epoch = -(-len(tr) // a.batch)
    total = a.epochs * steps_per_epoch
    sched = torch.optim.lr_scheduler.LambdaLR(optim, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, total) / total)))
    g = torch.Generator().manual_seed(a.seed)
    log = open(a.log, "w") if a.log else None
    if log:
        log.write("epoch,seconds,policy_loss,value_loss,test_optimal,test_value_err_boxes\n")
    print("az_fit: %dx%d, %d train and %d test positions (exact), net %d blocks x %d filters, %d epochs of %d steps"
          % (rows, cols, len(tr), len(te), a.blocks, a.filters, a.epochs, steps_per_epoch), file=sys.stderr)
    t0, cpu0 = time.time(), time.process_time()

    def save(epochs_done):
        """Writes the net as it is after epochs_done epochs (durably)."""
        blob_path = "%s.bin.tmp.%d" % (a.out, os.getpid())
        nweights = az_train.save_blob(net, blob_path)
        with open(blob_path, "rb") as f:
            blob = f.read()
        os.remove(blob_path)
        params = ("blocks=%d,filters=%d,vhidden=%d,weights=%d,sims=%d,c=2,chainloop=1,theorems=1,value=margin,"
                  "method=oracle,positions=%d,epochs=%d,batch=%d,lr=%g,l2=%g,vweight=%g,augment=%d,seed=%d,seconds=%.1f,"
                  "cpu_seconds=%.1f"
                  % (a.blocks, a.filters, a.vhidden, nweights, a.sims, len(tr), epochs_done, a.batch, a.lr, a.l2, a.value_weight,
                     0 if a.no_augment else 1, a.seed, time.time() - t0, time.process_time() - cpu0))
        write_model(a.out, rows, cols, params, blob)

    # Ctrl-C sets a flag, read between Adam steps: a step or a save is never cut
    # in half, so the file always holds the epoch the message names.
    stop = []
    old_int = signal.signal(signal.SIGINT, lambda sig, frame: stop.append(sig))
    done = 0
    try:
        for ep in range(a.epochs):
            perm = tr_t[torch.randperm(len(tr), generator=g)]
            lp_sum = lv_sum = 0.0
            for i in range(0, len(perm), a.batch):
                if stop:
                    break
                idx = perm[i:i + a.batch]
                x, pi, z = X[idx], PI[idx], Z[idx]
                if not a.no_augment:
                    t, lperm = syms[int(torch.randint(len(syms), (1,), generator=g))]
                    x = apply_grid(x, t).contiguous()
                    pi = pi[:, torch.from_numpy(np.argsort(lperm))]
                x, pi, z = x.to(dev), pi.to(dev), z.to(dev)
                logits, v = net(x)
                lp = -(pi * torch.nn.functional.log_softmax(logits, 1)).sum(1).mean()
                lv = ((v - z) ** 2).mean()
                optim.zero_grad()
                (lp + a.value_weight * lv).backward()
                optim.step()
                sched.step()
                lp_sum += lp.item()
                lv_sum += lv.item()
            if stop:                   # a partial epoch is not kept
                break
            acc, verr, per = grade(net, torch, Xte, Ote, Lte, Zte, d["step"][te], nboxes, dev)
            n = steps_per_epoch
            line = "%d,%.1f,%.5f,%.5f,%.4f,%.3f" % (ep + 1, time.time() - t0, lp_sum / n, lv_sum / n, acc, verr)
            if log:
                log.write(line + "\n")
                log.flush()
            # every epoch is kept: a run stopped later still leaves a net that plays
            save(ep + 1)
            done = ep + 1
            print("az_fit: epoch %d/%d  %.0f s  policy loss %.4f  value loss %.4f  test: optimal %.3f, value error %.2f"
                  " boxes" % (ep + 1, a.epochs, time.time() - t0, lp_sum / n, lv_sum / n, acc, verr), file=sys.stderr)
    finally:
        signal.signal(signal.SIGINT, old_int)
    if stop:
        print("az_fit: interrupted; %s" % ("%s holds epoch %d" % (a.out, done) if done else "no epoch finished, "
                                             "nothing written"), file=sys.stderr)
        return 130
    if not done:
        save(0)                        # --epochs 0: the starting net, as it is
    secs, cpu = time.time() - t0, time.process_time() - cpu0
    acc, verr, per = grade(net, torch, Xte, Ote, Lte, Zte, d["step"][te], nboxes, dev)
    print(json.dumps({"out": a.out, "train": len(tr), "test": len(te), "test_optimal": round(acc, 4),
                      "test_value_err_boxes": round(verr, 3), "seconds": round(secs, 1), "cpu_seconds": round(cpu, 1),
                      "per_step": {s: {"optimal": round(h, 4), "value_err": round(e, 3)} for s, (h, e) in per.items()}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
