#!/bin/bash
# az_run.sh: one `dab train az` run, started or resumed in its own folder,
# in segments of SEG games (default 3000), each ending with a checkpoint,
# so a machine that goes away loses one segment at most.
#
# Usage: bench/az_run.sh DAB TRAINER RUNDIR BOARD SEED HOURS [ARGS...]
#   e.g. bench/az_run.sh bin/dab python/dab/az_train.py runs/bz 5x5 1 8 --backward
# HOURS is the run's CPU budget (a resumed run takes it as its new one), or
# - to keep the checkpoint's.  ARGS go to every segment but --init=FILE,
# which starts the run only.
# RUNDIR gets model.az (the finished run), model.az.ckpt, log.csv,
# train.out and train.err; a run whose model.az exists is left alone.  A
# stopped and resumed run trains as a straight one.  SIGTERM (or SIGINT)
# stops the segment under way with its checkpoint (dab gets one SIGINT:
# `timeout --foreground -s TERM SECS bench/az_run.sh ...` is a time limit
# that loses nothing) and exits 130.  Exit 0 when model.az is written, or
# dab's exit status (train.err says why) when a segment fails.
# See Copyright Notice in README.md
set -u
[ $# -ge 6 ] || { sed -n 2,17p "$0" >&2; exit 2; }
dab=$1 trainer=$2 rd=$3 board=$4 seed=$5 hours=$6
shift 6
child="" target=0
# dab takes a second SIGINT a second or more after the first as "exit
# now, no checkpoint", so the first signal here, however it came, is
# passed on once and any later one is ignored while dab writes.
stop() {
  trap '' TERM INT
  [ -n "$child" ] && kill -INT "$child" 2>/dev/null
  wait
  exit 130
}
trap stop TERM INT
budget=(--hours "$hours")
if [ "$hours" = - ]; then
  budget=()
  [ -f "$rd/model.az.ckpt" ] || [ -f "$rd/model.az" ] || { echo "az_run: $rd: HOURS - needs a run to resume" >&2; exit 2; }
fi
mkdir -p "$rd" || exit 2
# Segments count from the games in the checkpoint's header (the log's
# last row can lag it by a snapshot interval).
[ -f "$rd/model.az.ckpt" ] &&
  target=$(head -c 4096 "$rd/model.az.ckpt" | tr ',' '\n' | sed -n 's/^games=\([0-9]*\)$/\1/p' | head -n 1)
case $target in '' | *[!0-9]*) target=0 ;; esac
while [ ! -f "$rd/model.az" ]; do
  res=() args=("$@")
  # --init=FILE starts the run; a resumed one has its net in the checkpoint
  if [ -f "$rd/model.az.ckpt" ]; then
    res=(--resume "$rd/model.az.ckpt") args=()
    for a in "$@"; do case $a in --init=*) ;; *) args+=("$a") ;; esac; done
  fi
  target=$((target + ${SEG:-3000}))
  "$dab" train az --board "$board" --seed "$seed" "${budget[@]}" --stop-at "$target" \
    --trainer="$trainer" --out "$rd/model.az" --checkpoint "$rd/model.az.ckpt" \
    --log "$rd/log.csv" "${res[@]}" "${args[@]}" 2>>"$rd/train.err" >>"$rd/train.out" &
  child=$!
  wait "$child"
  rc=$?
  child=""
  [ "$rc" = 0 ] || { echo "az_run: $rd: dab train exited $rc (see train.err)" >&2; exit "$rc"; }
done
