#!/usr/bin/python3
"""az_value_features.py: can extra input planes make the az value head
fit 3x3?  Trains a value net on exact labels (the oracle's margin plus the
score so far, over 9) of random-play positions (2,000 games, seed 77) and
reports the value MSE on held-out positions (300 games, seed 2026).  A
diagnostic, like az_supervised: self-play never sees the oracle.

Usage: /usr/bin/python3 bench/az_value_features.py VARIANT [GAMES] [EPOCHS] [SEED]
  VARIANT  base: dab's planes (lines, completed boxes, score);
           deg:  + boxes of degree 2 and 3, safe lines (drawing them gives
                 no box away);
           comp: + for each degree-2 box, its chain's length / 9 and a loop flag;
           mlpbase, mlpcomp: the same planes into a 256-256 MLP instead of
                 the 2-block, 16-filter conv trunk (4 value channels, hidden 32).
Needs python3-torch and libdab (./build.sh); one thread.
See Copyright Notice in README.md
"""
import os
import resource
import sys
import random
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'python'))
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from dab import az_train  # noqa: E402
from dab.oracle import Oracle  # noqa: E402

R = C = 3
NL = R * (C + 1) + (R + 1) * C
NB = R * C
H, W = 2 * R + 1, 2 * C + 1
cell = [None] * NL
for r in range(R + 1):
    for c in range(C):
        cell[r * C + c] = (2 * r, 2 * c + 1)
for r in range(R):
    for c in range(C + 1):
        cell[(R + 1) * C + r * (C + 1) + c] = (2 * r + 1, 2 * c)
box_lines = []
for r in range(R):
    for c in range(C):
        box_lines.append([r * C + c, (r + 1) * C + c, (R + 1) * C + r * (C + 1) + c,
                          (R + 1) * C + r * (C + 1) + c + 1])
line_boxes = [[b for b in range(NB) if l in box_lines[b]] for l in range(NL)]
box_cell = [(2 * (b // C) + 1, 2 * (b % C) + 1) for b in range(NB)]


def deg(lines, b):
    return sum((lines >> l) & 1 for l in box_lines[b])


def positions(ngames, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(ngames):
        lines, sr = 0, 0
        while True:
            free = [l for l in range(NL) if not (lines >> l) & 1]
            if not free:
                break
            out.append((lines, sr))
            l = rng.choice(free)
            got = sum(1 for b in line_boxes[l] if deg(lines | (1 << l), b) == 4)
            lines |= 1 << l
            sr = sr + got if got else -sr
    return out


def planes(lines, sr, variant):
    n = 3 if variant == 'base' else 6 if variant == 'deg' else 8
    x = np.zeros((n, H, W), np.float32)
    for l in range(NL):
        if (lines >> l) & 1:
            x[0][cell[l]] = 1
    d = [deg(lines, b) for b in range(NB)]
    for b in range(NB):
        if d[b] == 4:
            x[1][box_cell[b]] = 1
    x[2][:] = sr / NB
    if variant == 'base':
        return x
    for b in range(NB):
        if d[b] == 2:
            x[3][box_cell[b]] = 1
        if d[b] == 3:
            x[4][box_cell[b]] = 1
    for l in range(NL):
        if not (lines >> l) & 1 and all(d[b] < 2 for b in line_boxes[l]):
            x[5][cell[l]] = 1          # safe: gives the opponent no box
    if variant == 'deg':
        return x
    # chains/loops among degree-2 boxes: component length and closed flag
    seen = [False] * NB
    for b in range(NB):
        if d[b] != 2 or seen[b]:
            continue
        comp, stack, ends = [], [b], 0
        seen[b] = True
        while stack:
            a = stack.pop()
            comp.append(a)
            for l in box_lines[a]:
                if (lines >> l) & 1:
                    continue
                other = [o for o in line_boxes[l] if o != a]
                if not other or d[other[0]] != 2:
                    ends += 1
                    continue
                if not seen[other[0]]:
                    seen[other[0]] = True
                    stack.append(other[0])
        for a in comp:
            x[6][box_cell[a]] = len(comp) / NB
            x[7][box_cell[a]] = 1.0 if ends == 0 else 0.0
    return x


class ValueNet(nn.Module):
    """dab's az net (python/dab/az_train.py) with a stem for cin planes
    and 4 value channels; only its value output trains."""

    def __init__(self, cin):
        super().__init__()
        self.net = az_train.Net(R, C, 2, 16, 32, vfilters=4)
        self.net.stem = nn.Conv2d(cin, 16, 3, padding=1)

    def forward(self, x):
        return self.net(x)[1]


class MLP(nn.Module):
    def __init__(self, nin, hidden=256):
        super().__init__()
        self.f = nn.Sequential(nn.Flatten(), nn.Linear(nin, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                               nn.ReLU(), nn.Linear(hidden, 1), nn.Tanh())

    def forward(self, x):
        return self.f(x).squeeze(1)


def data(pos, o, variant):
    X = np.stack([planes(l, s, variant) for l, s in pos])
    Z = np.array([(s + o.value(l)) / NB for l, s in pos], np.float32)
    return torch.from_numpy(X), torch.from_numpy(Z)


def main():
    arch = 'mlp' if sys.argv[1].startswith('mlp') else 'conv'
    variant = sys.argv[1][3:] if arch == 'mlp' else sys.argv[1]
    ntrain = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    epochs = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    torch.set_num_threads(1)
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1   # the net's initialisation and batches
    torch.manual_seed(seed)
    o = Oracle('3x3')
    t0 = time.time()
    Xtr, Ztr = data(positions(ntrain, 77), o, variant)
    Xte, Zte = data(positions(300, 2026), o, variant)
    net = ValueNet(Xtr.shape[1]) if arch == 'conv' else MLP(Xtr[0].numel())
    variant = f"{arch}-{variant} seed {seed}"
    opt = torch.optim.Adam(net.parameters(), lr=0.001, weight_decay=1e-4)
    n = Xtr.shape[0]
    for e in range(1, epochs + 1):
        perm = torch.randperm(n)
        for i in range(0, n, 256):
            idx = perm[i:i + 256]
            loss = ((net(Xtr[idx]) - Ztr[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        if e in (1, 2, 4, 8, 16, 30, 60) or e == epochs:
            with torch.no_grad():
                tr = ((net(Xtr[:20000]) - Ztr[:20000]) ** 2).mean().item()
                eb = (net(Xte) - Zte).abs() * NB     # held-out error in boxes
                te = ((eb / NB) ** 2).mean().item()
            print(f"{variant} n={n} epoch {e}: train mse {tr:.4f} test mse {te:.4f} "
                  f"(rmse {te ** 0.5 * NB:.2f} boxes; |err|<0.5 box {(eb < 0.5).float().mean():.3f}) "
                  f"{time.time() - t0:.0f}s", flush=True)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(f"wall {time.time() - t0:.1f} s, CPU {ru.ru_utime + ru.ru_stime:.1f} s, peak RSS {ru.ru_maxrss} KiB")


if __name__ == '__main__':
    main()
