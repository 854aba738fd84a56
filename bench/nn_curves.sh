#!/bin/sh
# nn_curves.sh: the learning curves of every `dab train nn` method on 3x3
# (seed paper 002), one run after another on one thread, plotted with
# `dab plot`.  Usage: bench/nn_curves.sh [DAB] [OUTDIR]  (default bin/dab,
# /tmp/nn-curves); writes OUTDIR/METHOD.{csv,model,png} and times each run.
set -e
DAB=${1:-bin/dab}
OUT=${2:-/tmp/nn-curves}
mkdir -p "$OUT"
run() {
  name=$1; shift
  /usr/bin/time -f "$name: %e s wall, %M KiB peak RSS" \
    "$DAB" train nn "$@" --threads 1 --seed 1 --out "$OUT/$name.model" --log "$OUT/$name.csv"
  "$DAB" plot "$OUT/$name.csv" -o "$OUT/$name.png"
}
run direct-l0   --method=direct --opponent=level0 --mutation=0.00072 --games 1000000
run direct-l1   --method=direct --opponent=level1 --mutation=0.00072 --games 1000000
run roundrobin  --method=roundrobin --mutation=0.00072 --games 1000000
run ifs         --method=ifs --mutation=0.00072 --games 1000000
run direct-l0-hi --method=direct --opponent=level0 --mutation=0.005 --games 1000000
run ifs-hi      --method=ifs --mutation=0.005 --games 1000000
run oracle-fitness --method=oracle-fitness --opponent=level1 --mutation=0.00072 --games 1000000
run backprop    --method=backprop --generations 200
run oracle      --method=oracle --generations 60
# Beyond the paper: more hidden units, and softmax targets (the goal's net).
run oracle-h64  --method=oracle --hidden=64 --rate=0.05 --generations 60
run oracle-best --method=oracle --hidden=128 --loss=softmax --rate=0.05 --positions=400000 --generations 100
