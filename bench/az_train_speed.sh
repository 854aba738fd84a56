#!/bin/sh
# az_train_speed.sh: training (Adam) steps per second of python/dab/az_train.py
# (PyTorch, batch 1024) on 2x2, 3x3 and 5x5 with the default net, one thread
# (the trainer's steps and forward passes do not depend on forward or
# backward training: both train on the same samples), and on 3x3 the
# paper's "6b" and two threads; baselines in the same run: forward passes
# alone on the same batch (forward_only_per_s), and the default net's
# steps with glibc's default malloc (DAB_AZ_MALLOC=default: freed tensors
# go back to the kernel and fault in again every step).
# Usage: bench/az_train_speed.sh [STEPS]   (timed steps per figure, default 10)
# See Copyright Notice in README.md
set -e
cd "$(dirname "$0")/.."
STEPS=${1:-10}
PY=${DAB_PYTHON:-/usr/bin/python3}
tm() { /usr/bin/time -f "  wall %e s, peak RSS %M KiB" "$@"; }
echo "baseline: glibc's default malloc, default net, 3x3, one thread"
tm env DAB_AZ_MALLOC=default $PY python/dab/az_train.py bench --threads 1 --max-steps "$STEPS"
for b in "2 2" "3 3" "5 5"; do
  set -- $b
  tm $PY python/dab/az_train.py bench --rows "$1" --cols "$2" --threads 1 --max-steps "$STEPS"
done
for net in "2 16 32 2" "6 64 64 1" "6 64 64 2"; do
  set -- $net
  tm $PY python/dab/az_train.py bench --blocks "$1" --filters "$2" --vhidden "$3" --threads "$4" \
    --max-steps "$STEPS"
done
