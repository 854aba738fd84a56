#!/bin/bash
# az_gpu.sh: BoxesZero / AlphaZero on a machine with a GPU: the trainer's
# Adam steps a second on its CPU and on the GPU, then stopped `dab train az`
# runs resumed there for SECONDS (self-play on THREADS cores, passes on CUDA).
#
# Usage: bench/az_gpu.sh SECONDS BOARD DIR="ARGS" [DIR="ARGS"...]
#   e.g. bench/az_gpu.sh 380 5x5 runs/bz="--backward --mit=20" runs/az=
# Each DIR holds a run as bench/az_seeds.sh leaves it (model.az.ckpt,
# log.csv; SEED=1; HOURS=H makes its CPU budget H hours, by default it
# keeps its checkpoint's): it trains on in segments of SEG
# games (default 1000; bench/az_run.sh), each ending with a checkpoint,
# until SECONDS have passed, then stops with its checkpoint, ready to
# resume anywhere.
#   THREADS=8   self-play threads per run      DEV=cuda   the trainer's device
#   BENCH=0     skip the trainer benchmark     OUT=DIR    copies of each run's
#               checkpoint and log every 20 s (a machine that goes away keeps them)
# Prints the benchmark lines, then games, wall s, iteration, k and CPU s of
# each run every 20 s.  bin/dab and python/dab/az_train.py of this checkout
# run; DAB_PYTHON names the interpreter (default: the first of
# /usr/bin/python3 and python3 on the PATH that imports torch).
# See Copyright Notice in README.md
set -u
[ $# -ge 3 ] || { sed -n 2,20p "$0" >&2; exit 2; }
secs=$1 board=$2
shift 2
specs=("$@")
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${DAB_PYTHON:-}" ]; then
  for DAB_PYTHON in /usr/bin/python3 "$(command -v python3)"; do
    "$DAB_PYTHON" -c "import torch" 2>/dev/null && break
  done
fi
PY=$DAB_PYTHON
export DAB_PYTHON
for spec in "${specs[@]}"; do
  dir=${spec%%=*}
  [ -f "$dir/model.az.ckpt" ] && [ -f "$dir/log.csv" ] || { echo "az_gpu: $dir: no run to resume" >&2; exit 2; }
done
TR=$root/python/dab/az_train.py DAB=$root/bin/dab DEV=${DEV:-cuda}
R=${board%x*} C=${board#*x}
if [ "${BENCH:-1}" = 1 ]; then
  nvidia-smi -L 2>/dev/null
  echo "cores $(nproc), $("$PY" -c 'import torch; print("torch", torch.__version__)')"
  for dev in cpu "$DEV"; do
    for b in "3 3" "$R $C"; do
      set -- $b
      "$PY" "$TR" bench --rows "$1" --cols "$2" --threads 1 --max-steps 30 --device "$dev"
    done
  done
  "$PY" "$TR" bench --rows "$R" --cols "$C" --threads "$(nproc)" --max-steps 30 --device cpu
  "$PY" "$TR" bench --rows "$R" --cols "$C" --blocks 6 --filters 64 --vhidden 64 --max-steps 100 --device "$DEV"
fi
end=$(($(date +%s) + secs))

# Each run resumes in segments (bench/az_run.sh) under a time limit:
# timeout --foreground signals az_run.sh alone, which stops dab with one
# SIGINT and its checkpoint.
dirs=()
for spec in "${specs[@]}"; do
  dir=${spec%%=*}
  # shellcheck disable=SC2086  # ARGS is a word list by design
  SEG=${SEG:-1000} DAB_AZ_DEVICE=$DEV timeout --foreground -s TERM "$secs" bash "$root/bench/az_run.sh" \
    "$DAB" "$TR" "$dir" "$board" "${SEED:-1}" "${HOURS:--}" --threads "${THREADS:-8}" ${spec#*=} &
  dirs+=("$dir")
done
keep() { # copies in OUT, named after each run's folder
  [ -n "${OUT:-}" ] || return 0
  for d in "${dirs[@]}"; do
    n=$(basename "$d")
    cp "$d/model.az.ckpt" "$OUT/$n.ckpt"; cp "$d/log.csv" "$OUT/$n.log.csv"; cp "$d/train.err" "$OUT/$n.err"
  done
}
while [ "$(date +%s)" -lt "$end" ] && [ -n "$(jobs -rp)" ]; do
  sleep 20
  for d in "${dirs[@]}"; do echo "$(date +%T) $d $(tail -1 "$d/log.csv" | cut -d, -f1,2,3,4,15)"; done
  keep
done
wait
keep
