#!/bin/bash
# az_seeds.sh: a matrix of `dab train az` runs (variants x seeds) at equal
# CPU budgets, resumable across stops, then graded against the oracle with
# az_steps and summarised as means over seeds with 95% t-intervals.
#
# Usage: bench/az_seeds.sh DIR HOURS BOARD "SEEDS" NAME="ARGS" [NAME="ARGS"...]
#   e.g. bench/az_seeds.sh /work/runs/az3x3 2 3x3 "1 2 3" backward=--backward forward=
# Each run lives in DIR/NAME-sSEED (model.az, model.az.ckpt, log.csv,
# train.err).  A finished run (model.az) is skipped, a stopped one
# (model.az.ckpt) resumed; Ctrl-C (or SIGTERM) stops every run with its
# checkpoint, so the matrix goes on from there next time.  A run trains in
# segments of SEG games (default 3000), each ending with a checkpoint
# (bench/az_run.sh).
# The first call copies bin/dab, the trainer and az_steps into DIR (with
# the commit in DIR/COMMIT) and every later call uses those copies, so all
# runs of a matrix train with the same code even as the checkout moves on.
#   PAR=N       runs at a time (default 2: one core each)
#   GRADE=0     train only;  ONLY_GRADE=1  grade and summarise only
#   PER=100 SIMS=48   az_steps positions per step and search simulations
# The summary ends with each variant's paired difference from the first.
set -u
[ $# -ge 5 ] || { sed -n 2,20p "$0" >&2; exit 2; }
dir=$1 hours=$2 board=$3 seeds=$4
shift 4
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dir" || exit 2
if [ ! -x "$dir/dab" ]; then
  cp "$root/bin/dab" "$root/build/bench/az_steps" "$root/python/dab/az_train.py" "$dir/" || exit 2
  (cd "$root" && git rev-parse --short HEAD; git status --short | grep -q . && echo "(with local changes)") \
    >"$dir/COMMIT"
fi
PAR=${PAR:-2} PER=${PER:-100} SIMS=${SIMS:-48}

pids=()
stop() {
  echo "az_seeds: stopping; each run writes its checkpoint" >&2
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  wait
  exit 130
}
trap stop INT TERM

if [ "${ONLY_GRADE:-0}" != 1 ]; then
  for s in $seeds; do # seed-major: a stopped matrix has every variant's first seeds
    for spec in "$@"; do
      name=${spec%%=*} args=${spec#*=}
      [ -f "$dir/$name-s$s/model.az" ] && continue
      while [ "$(jobs -rp | wc -l)" -ge "$PAR" ]; do wait -n; done
      echo "az_seeds: $name seed $s ($hours CPU-h): $dir/$name-s$s" >&2
      # shellcheck disable=SC2086  # ARGS is a word list by design
      bash "$root/bench/az_run.sh" "$dir/dab" "$dir/az_train.py" "$dir/$name-s$s" "$board" "$s" "$hours" $args &
      pids+=($!)
    done
  done
  wait
fi
[ "${GRADE:-1}" = 0 ] && exit 0

# grade each finished model once (az_steps' output kept beside it)
for spec in "$@"; do
  name=${spec%%=*}
  for s in $seeds; do
    rd="$dir/$name-s$s"
    [ -f "$rd/model.az" ] || { echo "az_seeds: $rd not finished" >&2; continue; }
    [ -s "$rd/grade-$PER-$SIMS.txt" ] || "$dir/az_steps" "$PER" "$SIMS" "$rd/model.az" >"$rd/grade-$PER-$SIMS.txt"
  done
done

. "$root/bench/t95.sh"

# Summary: the "all" lines of az_steps (random play first, own games second);
# fields: all N policy mcts kept_policy kept_mcts rmse VALUE
echo "variant  seeds  search(random) mean [95% t]  policy(random)  search(own)  per seed search(random)  CPU-s"
for spec in "$@"; do
  name=${spec%%=*}
  for s in $seeds; do
    g="$dir/$name-s$s/grade-$PER-$SIMS.txt"
    [ -s "$g" ] || continue
    cpu=$(tail -1 "$dir/$name-s$s/log.csv" | awk -F, '{print $NF}')
    awk -v s="$s" -v cpu="$cpu" '/^all/ {k++; if (k == 1) {m = $4; p = $3} else o = $4} END {print s, m, p, o, cpu}' "$g"
  done | awk -v name="$name" "$T95_AWK"'
    { n++; m[n] = $2; p[n] = $3; o[n] = $4; seed[n] = $1; cpu = cpu " " int($5) }
    END {
      if (!n) exit
      for (i = 1; i <= n; i++) { sp += p[i]; so += o[i]; per = per sprintf(" s%s=%.3f", seed[i], m[i]) }
      mm = mean_of(m, n); h = half95_of(m, n)
      printf "%s  %d  %.3f [%.3f, %.3f]  %.3f  %.3f %s  %s\n", name, n, mm, mm - h, mm + h, sp / n, so / n, per, substr(cpu, 2)
    }'
done

# Paired differences against the first variant: each seed starts every
# variant from the same initial net, so a seed's difference removes its
# own luck; the interval is over seeds graded in both.
first=${1%%=*}
shift
[ $# -gt 0 ] && echo "variant - $first, paired by seed: search(random) mean difference [95% t]  per seed"
for spec in "$@"; do
  name=${spec%%=*}
  for s in $seeds; do
    a="$dir/$first-s$s/grade-$PER-$SIMS.txt" b="$dir/$name-s$s/grade-$PER-$SIMS.txt"
    [ -s "$a" ] && [ -s "$b" ] || continue
    echo "$s $(awk '/^all/ {print $4; exit}' "$a") $(awk '/^all/ {print $4; exit}' "$b")"
  done | awk -v name="$name" -v first="$first" "$T95_AWK"'
    { n++; d[n] = $3 - $2; per = per sprintf(" s%s=%+.3f", $1, d[n]) }
    END {
      if (!n) exit
      m = mean_of(d, n); h = half95_of(d, n)
      printf "%s - %s  %d  %+.3f [%+.3f, %+.3f] %s\n", name, first, n, m, m - h, m + h, per
    }'
done
