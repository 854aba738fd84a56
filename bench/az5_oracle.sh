#!/usr/bin/env bash
# bench/az5_oracle.sh: the oracle-taught 5x5 BoxesZero net, from nothing:
# exact labels (dab dataset), the net trained on them (dab.az_fit), and
# its grades at 800 simulations and as its policy alone (sims=0): on seed
# paper 001's positions at steps 22-30 and at steps 18-21 (bench/az5_steps,
# chain self-play of seed 2026: games no data set used), and on the data
# set's held-out games with the value head's errors (bench/az5_errors.py).
# docs/agents.md has the figures it printed.
#
# Usage: bench/az5_oracle.sh
#   DATA=DIR      data sets (default runs/az5-oracle); a rerun continues them
#   OUT=FILE      the net (default data/models/az-5x5-oracle.az)
#   COUNT=N       positions per step at steps 22-30 (default 11112: 10^5)
#   COUNT18=N     positions per step at steps 18-21 (default 0: none; each
#                 costs seconds to label)
#   JOBS=N        labelling processes (default: all cores)
#   BLOCKS, FILTERS, VHIDDEN, EPOCHS, BATCH, LR   the net and its training
#                 (default 6, 32, 64, 10, 256, 0.002)
#   PER=N, PER18=N  graded positions per step at steps 22-30 (default 200)
#                 and 18-21 (default 50; 0: none)
#   GRADE=0       skip the grading
# Each stage prints its wall and CPU time and peak RSS.  The data set's
# CPU is in its manifest (label_cpu_seconds).  Labels at steps 22-30 cost
# about 3.6 CPU-hours for 10^5 positions (docs/PERFORMANCE.md, "Data
# sets"); training 6 x 32 on 2 cores about 1-2 CPU-hours; grading about
# 1.6 CPU-s a move at 800 simulations, 16 CPU-s a position to grade at step 18.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-runs/az5-oracle} OUT=${OUT:-data/models/az-5x5-oracle.az}
COUNT=${COUNT:-11112} COUNT18=${COUNT18:-0} JOBS=${JOBS:-$(nproc)}
BLOCKS=${BLOCKS:-6} FILTERS=${FILTERS:-32} VHIDDEN=${VHIDDEN:-64} EPOCHS=${EPOCHS:-10}
BATCH=${BATCH:-256} LR=${LR:-0.002}
[ -x bin/dab ] || ./build.sh >/dev/null
stage() {  # NAME COMMAND...: runs it, then prints its wall, CPU and peak RSS
  local name=$1; shift
  local t0; t0=$(date +%s.%N)
  /usr/bin/time -f '%U %S %M' -o "$DATA/.time" "$@"
  read -r u s m < "$DATA/.time"
  printf '# %s: wall %.0f s, CPU %.0f s, peak RSS %d MiB\n' "$name" "$(echo "$(date +%s.%N) - $t0" | bc -l)" \
    "$(echo "$u + $s" | bc -l)" $((m / 1024))
}
mkdir -p "$DATA"
echo "# az5_oracle $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?), $(nproc) cores"
sets=("$DATA/s22-30")
stage "labels, steps 22-30" bin/dab dataset 5x5 --steps 22-30 --count "$COUNT" --sampler chain --explore 0.1 \
  --dedup --seed 1 --jobs "$JOBS" -o "$DATA/s22-30"
if [ "$COUNT18" -gt 0 ]; then
  stage "labels, steps 18-21" bin/dab dataset 5x5 --steps 18-21 --count "$COUNT18" --sampler chain --explore 0.1 \
    --dedup --seed 2 --jobs "$JOBS" -o "$DATA/s18-21"
  sets+=("$DATA/s18-21")
fi
stage "training" env PYTHONPATH=python /usr/bin/python3 -m dab.az_fit "${sets[@]}" --out "$OUT" \
  --blocks "$BLOCKS" --filters "$FILTERS" --vhidden "$VHIDDEN" --epochs "$EPOCHS" --batch "$BATCH" --lr "$LR" \
  --threads "$(nproc)" --log "$DATA/fit.csv"
if [ "${GRADE:-1}" != 0 ]; then
  PER=${PER:-200} PER18=${PER18:-50}
  prog=build/bench/az5_steps
  [ -x "$prog" ] || make -j2 "$prog" >/dev/null
  grade=(--board 5x5 --cache "$DATA/grades.txt" --nodes 0 --hash 1024 --seed 2026 --sampler chain --eval 0
         --metric opt --player "az:$OUT,sims=800" --player "az:$OUT,sims=0")
  stage "grading, steps 22-30" "$prog" "${grade[@]}" --per "$PER" --steps 22-30
  if [ "$PER18" -gt 0 ]; then
    stage "grading, steps 18-21" "$prog" "${grade[@]}" --per "$PER18" --steps 18-21
  fi
  stage "held-out games, value errors" /usr/bin/python3 bench/az5_errors.py "$DATA/s22-30" "$OUT" --per 50 \
    --graded "$DATA/grades.txt"
fi
