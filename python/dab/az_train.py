#!/usr/bin/python3
"""dab.az_train: the BoxesZero / AlphaZero network and its trainer (PyTorch).

`dab train az` runs this once per iteration; it never runs at play time.
It is started by path (agents/az_train.c: python/dab/az_train.py beside
the program, the installed package's copy, $DAB_AZ_TRAINER or
--trainer=FILE) or as `python3 -m dab.az_train COMMAND ...`; it needs no
libdab.so and imports nothing else of the package.
The net's layout and the weight blob's order are documented in
agents/az.h; the C forward pass (agents/az_net.c) must agree with
`Net.forward` to 1e-5 (tests/test_az.c checks it through `selftest`).

Commands (every one prints one result line on stdout):
  serve     answers the commands below from stdin, one per line (see serve)
  init      --rows R --cols C --blocks B --filters F --vhidden V [--vfilters N] --seed S --out W.bin
  train     (same net options) --weights W.bin --samples S.bin --out W2.bin
            [--epochs 5] [--batch 1024] [--lr 0.001] [--l2 1e-4] [--seed S]
            [--threads N] [--max-steps N] [--min-batches 32] [--opt-state FILE]
            [--device D]
            --min-batches: the batch shrinks (to no fewer than 16 samples)
            so that an epoch makes at least this many steps (0: never)
            --opt-state: Adam's moments are read from FILE when it exists
            (the learning rate and L2 are this call's) and written back
            after the pass, so Adam runs on across iterations
  bench     (same net options) [--batch 1024] [--threads N] [--max-steps N] [--device D]
            training steps per second on random samples (N timed steps)
  selftest  (same net options) --seed S --dir DIR [--n N]
            random weights (every layer non-zero), N random inputs, and
            PyTorch's logits and values: DIR/w.bin, DIR/x.bin, DIR/ref.bin
--device: where train and bench run: cpu (default), cuda, cuda:N, or auto
(cuda where PyTorch sees a GPU, else cpu); $DAB_AZ_DEVICE sets the default,
so `dab train az` trains on a GPU with DAB_AZ_DEVICE=cuda in its
environment.  Weights and Adam's state are written as CPU tensors either
way, so a run can move between machines with and without a GPU.
Samples file (written by agents/az_train.c), little-endian:
  "AZS1", int32 n, int32 nlines, int32 hw, then n records of float32
  planes[3*hw], pi[nlines], z, weight.
"""
import argparse
import ctypes
import os
import struct
import sys
import time

if not __package__:
    # Run by path: Python put this file's folder, the package's, first on
    # sys.path, where dab/pdb.py would shadow the standard library's pdb
    # for torch and numpy.  The package's folder leaves the path.
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _here]


def _keep_freed_memory():
    """glibc returns each freed tensor over 128 KiB to the kernel (mmap
    threshold, trim threshold), so every training step faults its
    activations back in page by page: 578,000 minor faults and a third of
    the CPU in the kernel for 40 steps, 3.0 steps/s.  Keeping freed
    memory in the heap gives 26.9 steps/s on the same batch."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 32 << 20)      # M_MMAP_THRESHOLD: glibc's maximum
        libc.mallopt(-1, 1 << 30)       # M_TRIM_THRESHOLD
        libc.mallopt(-2, 64 << 20)      # M_TOP_PAD
    except OSError:                     # not glibc: run as is
        pass


if os.environ.get('DAB_AZ_MALLOC') != 'default':   # 'default': glibc's (the benchmark's baseline)
    _keep_freed_memory()

import numpy as np  # noqa: E402  (after mallopt, so torch's first buffers follow it)
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


class Net(nn.Module):
    def __init__(self, rows, cols, blocks, filters, vhidden, vfilters=1):
        super().__init__()
        self.h, self.w = 2 * rows + 1, 2 * cols + 1
        hw = self.h * self.w
        nlines = rows * (cols + 1) + cols * (rows + 1)
        self.stem = nn.Conv2d(3, filters, 3, padding=1)
        self.blocks = nn.ModuleList()
        for _ in range(blocks):
            self.blocks.append(nn.ModuleList([nn.Conv2d(filters, filters, 3, padding=1),
                                              nn.Conv2d(filters, filters, 3, padding=1)]))
        self.pconv = nn.Conv2d(filters, 2, 1)
        self.pfc = nn.Linear(2 * hw, nlines)
        self.vconv = nn.Conv2d(filters, vfilters, 1)
        self.vfc1 = nn.Linear(vfilters * hw, vhidden)
        self.vfc2 = nn.Linear(vhidden, 1)

    def forward(self, x):
        a = F.relu(self.stem(x))
        for c1, c2 in self.blocks:
            a = F.relu(a + c2(F.relu(c1(a))))
        p = F.relu(self.pconv(a)).flatten(1)
        v = F.relu(self.vconv(a)).flatten(1)
        v = torch.tanh(self.vfc2(F.relu(self.vfc1(v))))
        return self.pfc(p), v.squeeze(1)

    def params_in_order(self):
        out = [self.stem.weight, self.stem.bias]
        for c1, c2 in self.blocks:
            out += [c1.weight, c1.bias, c2.weight, c2.bias]
        out += [self.pconv.weight, self.pconv.bias, self.pfc.weight, self.pfc.bias,
                self.vconv.weight, self.vconv.bias, self.vfc1.weight, self.vfc1.bias,
                self.vfc2.weight, self.vfc2.bias]
        return out


def make_net(a):
    return Net(a.rows, a.cols, a.blocks, a.filters, a.vhidden, a.vfilters)


def pick_device(name):
    """The torch.device for --device NAME; exits with a message where it
    cannot run (an unknown name, or cuda on a machine without one)."""
    if name == 'auto':
        name = 'cuda' if torch.cuda.is_available() else 'cpu'
    try:
        dev = torch.device(name)
    except RuntimeError as e:
        sys.exit(f"az_train: --device {name}: {e}")
    if dev.type == 'cuda' and not torch.cuda.is_available():
        sys.exit(f"az_train: --device {name}: PyTorch sees no CUDA device here")
    if dev.type not in ('cpu', 'cuda'):
        sys.exit(f"az_train: --device {name}: only cpu and cuda are supported")
    return dev


def to_cpu(obj):
    """obj (a state dict: dicts, lists, tensors) with every tensor on the CPU."""
    if torch.is_tensor(obj):
        return obj.cpu()
    if isinstance(obj, dict):
        return {k: to_cpu(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_cpu(v) for v in obj)
    return obj


def save_blob(net, path):
    flat = np.concatenate([p.detach().cpu().numpy().astype('<f4').ravel()
                           for p in net.params_in_order()])
    with open(path, 'wb') as f:
        f.write(flat.tobytes())
    return flat.size


def load_blob(net, path):
    load_flat(net, np.fromfile(path, dtype='<f4'), path)


def load_flat(net, flat, what="weights"):
    """Copies the float32 blob flat (agents/az.h's order) into net."""
    want = sum(p.numel() for p in net.params_in_order())
    if flat.size != want:
        sys.exit(f"az_train: {what}: {flat.size} weights, the net has {want}")
    at = 0
    with torch.no_grad():
        for p in net.params_in_order():
            k = p.numel()
            p.copy_(torch.from_numpy(flat[at:at + k].copy()).view_as(p))
            at += k


def cmd_init(a):
    torch.manual_seed(a.seed)
    net = make_net(a)
    with torch.no_grad():
        for _, c2 in net.blocks:      # each block starts as the identity
            c2.weight.zero_()
            c2.bias.zero_()
    n = save_blob(net, a.out)
    return f"init weights={n}"


def read_samples(path, hw, nlines):
    with open(path, 'rb') as f:
        head = f.read(16)
        if head[:4] != b'AZS1':
            sys.exit(f"az_train: {path}: not a samples file")
        n, nl, h = struct.unpack('<iii', head[4:16])
        if nl != nlines or h != hw:
            sys.exit(f"az_train: {path}: board mismatch")
        rec = 3 * hw + nlines + 2
        data = np.fromfile(f, dtype='<f4', count=n * rec)
    if data.size != n * rec:
        sys.exit(f"az_train: {path}: truncated")
    data = data.reshape(n, rec)
    x = data[:, :3 * hw]
    pi = data[:, 3 * hw:3 * hw + nlines]
    z = data[:, 3 * hw + nlines]
    w = data[:, 3 * hw + nlines + 1]
    return x, pi, z, w


def cmd_train(a):
    dev = pick_device(a.device)
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    net = make_net(a)
    load_blob(net, a.weights)
    net.to(dev)
    hw = net.h * net.w
    nlines = net.pfc.out_features
    x, pi, z, w = read_samples(a.samples, hw, nlines)
    n = x.shape[0]
    # The whole window goes to the device once; batches are gathered there.
    X = torch.from_numpy(x.copy()).view(n, 3, net.h, net.w).to(dev)
    PI = torch.from_numpy(pi.copy()).to(dev)
    Z = torch.from_numpy(z.copy()).to(dev)
    Wt = torch.from_numpy(w.copy()).to(dev)
    # L2 in the loss: Adam's (coupled) weight_decay adds l2 * w to each gradient.
    opt = torch.optim.Adam(net.parameters(), lr=a.lr, weight_decay=a.l2)
    if a.opt_state and os.path.exists(a.opt_state):
        # Adam's load_state_dict moves the moments to the parameters' device.
        opt.load_state_dict(torch.load(a.opt_state, map_location='cpu'))
        for grp in opt.param_groups:        # this call's settings, not the saved ones
            grp['lr'], grp['weight_decay'] = a.lr, a.l2
    t0 = time.time()
    steps = 0
    lp_sum = lv_sum = 0.0
    g = torch.Generator().manual_seed(a.seed)
    # A small buffer (a 2x2 board, the first backward steps) would get a
    # step or two an epoch at batch 1024; the batch shrinks so that an
    # epoch makes at least --min-batches steps (never below 16 samples).
    bs = a.batch if a.min_batches <= 0 else min(a.batch, max(16, -(-n // a.min_batches)))
    for _ in range(a.epochs):
        perm = torch.randperm(n, generator=g)
        for i in range(0, n, bs):
            if a.max_steps and steps >= a.max_steps:
                break
            idx = perm[i:i + bs].to(dev)
            lp, lv = train_step(net, opt, X[idx], PI[idx], Z[idx], Wt[idx])
            steps += 1
            lp_sum += lp
            lv_sum += lv
    save_blob(net, a.out)
    if a.opt_state:
        torch.save(to_cpu(opt.state_dict()), a.opt_state + '.tmp')
        os.replace(a.opt_state + '.tmp', a.opt_state)
    dt = time.time() - t0
    return (f"train samples={n} batch={bs} steps={steps} policy_loss={lp_sum / max(steps, 1):.5f} "
          f"value_loss={lv_sum / max(steps, 1):.5f} seconds={dt:.3f} "
          f"steps_per_s={steps / max(dt, 1e-9):.2f}")


def train_step(net, opt, x, pi, z, ww):
    """One optimiser step on a batch; returns (policy loss, value loss)."""
    logits, v = net(x)
    lp = -(ww * (pi * F.log_softmax(logits, 1)).sum(1)).sum() / ww.sum()
    lv = (ww * (v - z) ** 2).sum() / ww.sum()
    loss = lp + lv
    opt.zero_grad()
    loss.backward()
    opt.step()
    return lp.item(), lv.item()


def cmd_bench(a):
    """Training steps per second on random samples (the train command's step)."""
    dev = pick_device(a.device)
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    net = make_net(a).to(dev)
    nlines = net.pfc.out_features
    x = (torch.rand(a.batch, 3, net.h, net.w) > 0.5).float().to(dev)
    pi = F.softmax(torch.rand(a.batch, nlines) * 4, 1).to(dev)
    z = (torch.rand(a.batch) * 2 - 1).to(dev)
    ww = torch.ones(a.batch).to(dev)
    opt = torch.optim.Adam(net.parameters(), lr=a.lr, weight_decay=a.l2)
    for _ in range(3):                          # warm-up (kernel choice, caches), not timed
        train_step(net, opt, x, pi, z, ww)
    steps = max(a.max_steps, 1)
    t0, c0 = time.time(), time.process_time()
    for _ in range(steps):
        train_step(net, opt, x, pi, z, ww)
    dt, dc = time.time() - t0, time.process_time() - c0
    t1 = time.time()                            # baseline: forward passes only
    with torch.no_grad():
        for _ in range(steps):
            net(x)
        if dev.type == 'cuda':
            torch.cuda.synchronize()
    df = time.time() - t1
    return (f"bench rows={a.rows} cols={a.cols} blocks={a.blocks} filters={a.filters} "
          f"batch={a.batch} threads={a.threads} device={dev} steps={steps} seconds={dt:.3f} "
          f"cpu_seconds={dc:.3f} steps_per_s={steps / dt:.3f} samples_per_s={steps * a.batch / dt:.0f} "
          f"forward_only_per_s={steps / df:.3f}")


def cmd_selftest(a):
    torch.manual_seed(a.seed)
    net = make_net(a)
    with torch.no_grad():
        for p in net.params_in_order():
            p.uniform_(-0.3, 0.3)
    net.eval()
    save_blob(net, a.dir + '/w.bin')
    x = torch.rand(a.n, 3, net.h, net.w)
    x[:, :2] = (x[:, :2] > 0.5).float()
    x[:, 2] = (torch.rand(a.n, 1, 1) * 2 - 1).expand(a.n, net.h, net.w)
    with torch.no_grad():
        logits, v = net(x)
    x.numpy().astype('<f4').tofile(a.dir + '/x.bin')
    np.concatenate([logits.numpy().ravel(), v.numpy().ravel()]).astype('<f4').tofile(
        a.dir + '/ref.bin')
    return f"selftest n={a.n} torch={torch.__version__}"


COMMANDS = {'init': cmd_init, 'train': cmd_train, 'bench': cmd_bench, 'selftest': cmd_selftest}


def make_parser():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('cmd', choices=list(COMMANDS) + ['serve'])
    for k, d in [('rows', 3), ('cols', 3), ('blocks', 2), ('filters', 16), ('vhidden', 32), ('vfilters', 1),
                 ('seed', 1), ('epochs', 5), ('batch', 1024), ('threads', 1), ('n', 16),
                 ('max-steps', 0), ('min-batches', 32)]:
        ap.add_argument('--' + k, type=int, default=d)
    ap.add_argument('--lr', type=float, default=0.001)
    ap.add_argument('--l2', type=float, default=1e-4)
    for k in ('out', 'weights', 'samples', 'dir', 'opt-state'):
        ap.add_argument('--' + k)
    ap.add_argument('--device', default=os.environ.get('DAB_AZ_DEVICE') or 'cpu')
    return ap


def serve():
    """Answers requests until stdin ends: one command line per request,
    its arguments separated by tabs; one answer line each, "ok LINE
    cpu_s=X" or "error MESSAGE".  X is this process's CPU seconds so far,
    which the caller cannot read from its children's rusage while this
    process lives.  Importing torch costs 2.3 s, paid once here instead
    of once per training pass."""
    ap = make_parser()
    out = sys.stdout
    sys.stdout = sys.stderr            # a stray print must not break the protocol
    # A killed caller (SIGKILL skips its cleanup) must not leave this
    # process training on for minutes: ask Linux for SIGTERM when it dies.
    parent = os.getppid()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, 15)   # PR_SET_PDEATHSIG, SIGTERM
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:         # it died before the request above
        return
    for req in sys.stdin:
        req = req.rstrip('\n')
        if not req:
            continue
        try:
            a = ap.parse_args(req.split('\t'))
            if a.cmd == 'serve':
                raise ValueError("serve inside serve")
            answer = 'ok ' + COMMANDS[a.cmd](a)
        except SystemExit as e:        # sys.exit(message) and argparse's errors
            answer = 'error ' + (str(e.code) if isinstance(e.code, str) else f"bad request: {req}")
        except Exception as e:         # noqa: BLE001  (the caller reports it, the server lives on)
            answer = f"error {type(e).__name__}: {e}"
        answer = answer.replace('\n', ' ')
        out.write(f"{answer} cpu_s={time.process_time():.3f}\n")
        out.flush()


def main():
    a = make_parser().parse_args()
    if a.cmd == 'serve':
        serve()
    else:
        print(COMMANDS[a.cmd](a))


if __name__ == '__main__':
    main()
