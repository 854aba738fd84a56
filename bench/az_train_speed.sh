#!/bin/sh
# az_train_speed.sh: training steps per second of python/dab/az_train.py (PyTorch,
# batch 1024, 3x3), default net and the paper's "6b", one and two threads;
# baselines in the same run: forward passes alone on the same batch, and the
# default net's steps with glibc's default malloc (DAB_AZ_MALLOC=default:
# freed tensors go back to the kernel and fault in again every step).
# Usage: bench/az_train_speed.sh [STEPS]   (timed steps per figure, default 10)
# See Copyright Notice in README.md
set -e
cd "$(dirname "$0")/.."
STEPS=${1:-10}
PY=${DAB_PYTHON:-/usr/bin/python3}
echo "baseline: glibc's default malloc, default net, one thread"
DAB_AZ_MALLOC=default /usr/bin/time -f "  wall %e s, peak RSS %M KiB" $PY python/dab/az_train.py bench \
  --threads 1 --max-steps "$STEPS"
for net in "2 16 32" "6 64 64"; do
  set -- $net
  for th in 1 2; do
    /usr/bin/time -f "  wall %e s, peak RSS %M KiB" $PY python/dab/az_train.py bench \
      --blocks "$1" --filters "$2" --vhidden "$3" --threads "$th" --max-steps "$STEPS"
  done
done
