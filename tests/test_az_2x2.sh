#!/usr/bin/env bash
# test_az_2x2.sh: `dab train az` learns 2x2 in under two CPU-minutes: a
# fixed seed and a fixed number of iterations (the run is the same every
# time on one machine: 0.995 twice), then `dab arena` against `perfect`
# scores every move of the az player by the oracle (>= 0.99 optimal).
# Needs python3-torch (skipped without it).  AZ_2X2_ITERS=N: N iterations
# instead (30: 0.928, 45: 0.961, 60: 0.995).  Last, a stopped run is
# exported (`dab train az --export`) and must play as its checkpoint.
set -uo pipefail
source "$(dirname "$0")/clitest.sh"
tmp=$T
mkdir -p "$tmp/tb"; export DAB_TB_PATH="$tmp/tb"

if ! $PY -c 'import torch' 2>/dev/null; then
  echo "test_az_2x2.sh: PyTorch (python3-torch) missing: skipped"
  finish test_az_2x2.sh
  exit
fi

# Forward (AlphaZero), the default net and search; 20 games an iteration
# and lr 0.003 train faster per CPU-second on this board than the paper's
# 50 and 0.001.  92-132 CPU-s with the grading (load changes the CPU time).
run train az --board 2x2 --seed 1 --generations "${AZ_2X2_ITERS:-60}" --iter-games 20 --lr 0.003 \
  --eval-per-step 0 --out "$tmp/az.model"
check "train az exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
run arena --board 2x2 --p1 "az:$tmp/az.model" --p2 perfect --games 200 --json
check "arena exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
opt=$(json_get "$out" "d['p1']['optimal_rate']" 2>/dev/null || echo 0)
echo "test_az_2x2.sh: az optimal-move rate against perfect: $opt"
check "az optimal-move rate $opt >= ${AZ_2X2_MIN:-0.99}" \
  $PY -c "import sys; sys.exit(not float('$opt') >= float('${AZ_2X2_MIN:-0.99}'))"

# --init=FILE: a run that starts from the trained model's net plays as
# it does after one iteration at a negligible learning rate, where a fresh
# net's run does not; a net of another shape is taken as it is.  Bad
# --init use is one line, exit 2, and no model written.
for w in warm fresh; do
  init=(); [ $w = warm ] && init=(--init="$tmp/az.model")
  run train az --board 2x2 --seed 7 --generations 1 --iter-games 20 --lr 1e-7 --eval-per-step 0 \
    "${init[@]}" --out "$tmp/$w.model"
  check "$w run exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
  run arena --board 2x2 --p1 "az:$tmp/$w.model" --p2 perfect --games 200 --json
  declare "opt_$w=$(json_get "$out" "d['p1']['optimal_rate']" 2>/dev/null || echo 0)"
done
echo "test_az_2x2.sh: --init run $opt_warm, fresh run $opt_fresh optimal against perfect"
check "--init: plays as the trained model ($opt_warm >= 0.99)" \
  $PY -c "import sys; sys.exit(not float('$opt_warm') >= 0.99)"
check "--init: above a fresh net's run ($opt_fresh)" $PY -c "import sys; sys.exit(not $opt_fresh < $opt_warm)"
run train az --board 2x2 --blocks=1 --filters=8 --vhidden=16 --generations 1 --iter-games 10 --eval-per-step 0 \
  --out "$tmp/small.model"
run train az --board 2x2 --init="$tmp/small.model" --generations 1 --iter-games 10 --eval-per-step 0 \
  --out "$tmp/small2.model"
check "--init: a b1 f8 v16 net trains on (got $rc: $err)" [ "$rc" -eq 0 ]
check "--init: ... as a b1 f8 v16 net" grep -aq "blocks=1,filters=8,vhidden=16," "$tmp/small2.model"
m="--init=$tmp/az.model"
for bad in "$m --blocks=3" "$m --value=wdl" "$m --resume $tmp/stopped.ckpt" "$m --board 3x3" "--init=$tmp/none" "--init="; do
  # shellcheck disable=SC2086  # each case is a word list
  run train az --board 2x2 $bad --generations 1 --out "$tmp/bad.model"
  check "--init with $bad: exit 2 (got $rc)" [ "$rc" -eq 2 ]
  check "--init with $bad: one line ($err)" [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
  check "--init with $bad: no model written" [ ! -e "$tmp/bad.model" ]
done

# A stopped run's checkpoint, exported: the model file is a fraction of the
# checkpoint's size and plays exactly as the checkpoint does (same net,
# same search; the arena's games are seeded), about 3 CPU-s.
run train az --board 2x2 --seed 1 --generations 5 --iter-games 20 --stop-at 20 --eval-per-step 0 \
  --out "$tmp/stopped.model" --checkpoint "$tmp/stopped.ckpt"
check "stopped run exit 0 with a checkpoint (got $rc: $err)" [ "$rc" -eq 0 -a -s "$tmp/stopped.ckpt" ]
run train az --export "$tmp/stopped.ckpt" --out "$tmp/exported.model"
check "export exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
check "export under a quarter of the checkpoint" \
  [ $(($(stat -c %s "$tmp/exported.model") * 4)) -lt "$(stat -c %s "$tmp/stopped.ckpt")" ]
play_as() { "$DAB" arena --board 2x2 --p1 "az:$1" --p2 perfect --games 40 --json |
  $PY -c 'import json,sys; p=json.load(sys.stdin)["p1"]; print(p["wins"], p["losses"], p["optimal_rate"], p["moves"])'; }
a=$(play_as "$tmp/exported.model") b=$(play_as "$tmp/stopped.ckpt")
check "exported model plays as its checkpoint ($a against $b)" [ -n "$a" -a "$a" = "$b" ]

# A resumed run keeps its checkpoint's settings: one given that differs
# is one line naming it and exit 2; --hours is the one that may change
# (a spent budget ends the run at once, before --generations 3).
sum=$(cksum <"$tmp/stopped.ckpt")
for bad in --lr=0.01 --no-theorems --iter-games=30 --backward; do
  run train az --board 2x2 --resume "$tmp/stopped.ckpt" $bad --out "$tmp/resumed.model"
  check "resume with $bad: exit 2 (got $rc)" [ "$rc" -eq 2 ]
  check "resume with $bad: one line naming the setting ($err)" \
    bash -c '[ $(printf "%s\n" "$1" | wc -l) -eq 1 ] && grep -q "the checkpoint trains with" <<<"$1"' _ "$err"
  check "resume with $bad: checkpoint unchanged, no model" \
    [ "$(cksum <"$tmp/stopped.ckpt")" = "$sum" -a ! -e "$tmp/resumed.model" ]
done
run train az --board 2x2 --resume "$tmp/stopped.ckpt" --iter-games 20 --hours=0.0000001 --generations 3 \
  --out "$tmp/resumed.model"
check "resume with --hours: exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
check "resume with --hours: the new budget ends it at 20 games" grep -aq ",games=20," "$tmp/resumed.model"

# The trainer's device (DAB_AZ_DEVICE): auto resumes the stopped run on
# what this machine has.  A name that is no device is refused up front
# (exit 2); one this machine lacks (cuda without a GPU) only the trainer
# finds (exit 1).  Either way it is one line naming it, and the checkpoint
# stays as it was.
run train az --board 2x2 --iter-games 20 --eval-per-step 0 --resume "$tmp/stopped.ckpt" --stop-at 40 --out "$tmp/stopped.model" \
  --checkpoint "$tmp/auto.ckpt"
check "DAB_AZ_DEVICE unset: resumed (got $rc: $err)" [ "$rc" -eq 0 -a -s "$tmp/auto.ckpt" ]
export DAB_AZ_DEVICE=auto
run train az --board 2x2 --iter-games 20 --eval-per-step 0 --resume "$tmp/stopped.ckpt" --stop-at 40 --out "$tmp/stopped.model" \
  --checkpoint "$tmp/auto2.ckpt"
check "DAB_AZ_DEVICE=auto: resumed (got $rc: $err)" [ "$rc" -eq 0 -a -s "$tmp/auto2.ckpt" ]
sum=$(cksum <"$tmp/stopped.ckpt")
bad_devices=(nosuch=2 cuda:x=2 cuda:=2 CPU=2)
$PY -c 'import torch, sys; sys.exit(torch.cuda.is_available())' && bad_devices+=(cuda=1 cuda:0=1)
for spec in "${bad_devices[@]}"; do
  d=${spec%=*} want=${spec##*=}
  export DAB_AZ_DEVICE=$d
  run train az --board 2x2 --iter-games 20 --eval-per-step 0 --resume "$tmp/stopped.ckpt" --stop-at 40 --out "$tmp/stopped.model" \
    --checkpoint "$tmp/stopped.ckpt"
  check "DAB_AZ_DEVICE=$d: exit $want (got $rc)" [ "$rc" -eq "$want" ]
  check "DAB_AZ_DEVICE=$d: one line naming it ($err)" \
    bash -c '[ $(printf "%s\n" "$1" | wc -l) -eq 1 ] && grep -Fq -e "--device $2" -e "DAB_AZ_DEVICE=$2:" <<<"$1"' _ "$err" "$d"
  check "DAB_AZ_DEVICE=$d: checkpoint unchanged" [ "$(cksum <"$tmp/stopped.ckpt")" = "$sum" ]
done
unset DAB_AZ_DEVICE

finish test_az_2x2.sh
