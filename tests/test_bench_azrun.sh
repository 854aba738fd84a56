#!/usr/bin/env bash
# test_bench_azrun.sh: bench/az_run.sh, the one piece that resumes a
# `dab train az` run in checkpointed segments for bench/az_seeds.sh and
# bench/az_gpu.sh: segments add up to a straight run, a finished run is
# left alone, SIGTERM stops it with its checkpoint, and az_gpu.sh's time
# limit (on the CPU here) does the same.  Real 2x2 runs, about a minute.
# Needs python3-torch (skipped without it).
set -uo pipefail
source "$(dirname "$0")/clitest.sh"
if ! $PY -c 'import torch' 2>/dev/null; then
  echo "test_bench_azrun.sh: PyTorch (python3-torch) missing: skipped"
  finish test_bench_azrun.sh
  exit
fi
export DAB_TB_PATH="$T/tb" DAB_PYTHON=$PY
mkdir -p "$DAB_TB_PATH"
TR=python/dab/az_train.py
ARGS=(--iter-games 20 --eval-per-step 0)
stops() { grep -c "^dab train: stopped after" "$1/train.err"; }
last_games() { tail -n 1 "$1/train.err" | sed -n 's/.*(\([0-9]*\) games).*/\1/p'; }

bash bench/az_run.sh "$DAB" "$TR" "$T/x" 2>"$T/usage"
check "az_run: too few arguments exit 2" test $? = 2
check "az_run: ... and print the usage" grep -q "Usage: bench/az_run.sh" "$T/usage"

# A budget of 0.005 CPU-hours (18 s) in segments of 20 games (one
# iteration each): several segments, then model.az.  Each segment starts
# a trainer whose start-up counts as CPU (about 3 s under load), so a
# budget of two or three start-ups could end after the first segment.
SEG=20 bash bench/az_run.sh "$DAB" "$TR" "$T/a" 2x2 1 0.005 "${ARGS[@]}" 2>"$T/a.err"
check "az_run: a finished run exits 0 ($(cat "$T/a.err"))" test $? = 0
check "az_run: model.az written" test -s "$T/a/model.az"
check "az_run: trained in segments ($(stops "$T/a") stops)" test "$(stops "$T/a")" -ge 2
check "az_run: each segment one iteration on from the last" \
  bash -c 'grep -o "after [0-9]* iterations" "$1/train.err" | awk "{ if (\$2 != NR) bad = 1 } END { exit bad }"' _ "$T/a"
sum=$(cksum <"$T/a/model.az.ckpt")
SEG=20 bash bench/az_run.sh "$DAB" "$TR" "$T/a" 2x2 1 0.005 "${ARGS[@]}"
check "az_run: a finished run is left alone (exit $?)" test "$(cksum <"$T/a/model.az.ckpt")" = "$sum"

# --init=FILE among the ARGS starts the run only: the later segments
# resume (dab refuses --init with --resume).  Three iterations of 20 games
# in segments of 20: three segments whatever the machine's load (a CPU
# budget this small can be spent in the first segment's start-up).
SEG=20 bash bench/az_run.sh "$DAB" "$TR" "$T/i" 2x2 1 1 --init="$T/a/model.az" --generations 3 "${ARGS[@]}" 2>"$T/i.err"
check "az_run --init: finished in segments (exit $?, $(stops "$T/i") stops; $(cat "$T/i.err"))" \
  bash -c '[ -s "$1/model.az" ] && [ "$(grep -c "^dab train: stopped after" "$1/train.err")" -ge 2 ]' _ "$T/i"

# SIGTERM in the middle of a long segment: the checkpoint is written,
# exit 130, and the next call resumes it.
SEG=100000 bash bench/az_run.sh "$DAB" "$TR" "$T/b" 2x2 1 1 "${ARGS[@]}" &
pid=$!
for _ in $(seq 120); do
  [ "$(tail -n 1 "$T/b/log.csv" 2>/dev/null | cut -d, -f1)" -ge 40 ] 2>/dev/null && break
  sleep 0.5
done
kill -TERM "$pid"
wait "$pid"
check "az_run: SIGTERM exits 130 (got $?)" test $? = 130
check "az_run: ... with a checkpoint ($(tail -n 1 "$T/b/train.err"))" \
  grep -q "continue with --resume $T/b/model.az.ckpt" "$T/b/train.err"
check "az_run: ... and no model" test ! -e "$T/b/model.az"
g=$(last_games "$T/b")
SEG=20 timeout 60 bash bench/az_run.sh "$DAB" "$TR" "$T/b" 2x2 1 1 "${ARGS[@]}" &
sleep 1
while [ "$(stops "$T/b")" -lt 2 ] && kill -0 $! 2>/dev/null; do sleep 0.5; done
kill -TERM $! 2>/dev/null
wait
check "az_run: resumed from $g games ($(last_games "$T/b"))" test "$(last_games "$T/b")" -gt "${g:-999999}"

# az_gpu.sh with the trainer on the CPU and a 6-second limit: the run
# stops with its checkpoint, a copy lands in OUT, nothing is left running.
g=$(last_games "$T/b")
mkdir -p "$T/out"
OUT="$T/out" DEV=cpu BENCH=0 THREADS=1 SEG=100000 \
  bash bench/az_gpu.sh 6 2x2 "$T/b=${ARGS[*]}" >"$T/gpu.out" 2>&1
check "az_gpu: exit 0 ($(tail -n 2 "$T/gpu.out"))" test $? = 0
check "az_gpu: stopped with its checkpoint past $g games ($(last_games "$T/b"))" \
  test "$(last_games "$T/b")" -gt "${g:-999999}"
check "az_gpu: the copy in OUT is the checkpoint" cmp -s "$T/out/b.ckpt" "$T/b/model.az.ckpt"
check "az_gpu: nothing left running" bash -c '! pgrep -f "az_run.sh .* $1/b " >/dev/null' _ "$T"
SEG=20 bash bench/az_run.sh "$DAB" "$TR" "$T/c" 2x2 1 - "${ARGS[@]}" 2>"$T/c.err"
check "az_run: HOURS - without a run exits 2" test $? = 2
check "az_run: ... and says so" grep -q "HOURS - needs a run to resume" "$T/c.err"
bash bench/az_gpu.sh 6 2x2 "$T/none=" 2>"$T/gpu.err"
check "az_gpu: a folder with no run exits 2" test $? = 2
check "az_gpu: ... and names it" grep -q "$T/none: no run to resume" "$T/gpu.err"

finish test_bench_azrun.sh
