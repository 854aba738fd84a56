#!/usr/bin/env bash
# bench/retro.sh: retrograde speed targets (issue: foundation).
#   3x4, all 2^31 positions: <= 25 s wall, <= 2.6 GB peak; baseline = plain
#   single-threaded loop over every move, measured in the same run.
#   3x3, all 2^24 positions: <= 0.3 s.
# Usage: bench/retro.sh [REPS]   (default 3; prints every run and the medians)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-3}
DAB=bin/dab
[ -x $DAB ] || ./build.sh >/dev/null

measure() {  # label, dab args...  -> prints "label wall_s rss_mb"
  local label=$1; shift
  local t
  t=$( { /usr/bin/time -f "%e %M" $DAB "$@" >/dev/null; } 2>&1 | tail -n 1)
  echo "$label $(awk '{printf "%.3f %.0f", $1, $2/1024}' <<<"$t")"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

echo "# machine: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "# date: $(date -u +%F)   reps: $REPS   (label wall_s peak_rss_MB)"
log=$(mktemp)
for i in $(seq "$REPS"); do
  measure 3x3 retro 3x3 | tee -a "$log"
  measure 3x4 retro 3x4 | tee -a "$log"
  measure 3x4-plain-1thread retro 3x4 --plain --threads 1 | tee -a "$log"
done
for l in 3x3 3x4 3x4-plain-1thread; do
  w=$(awk -v l=$l '$1==l {print $2}' "$log" | median)
  r=$(awk -v l=$l '$1==l {print $3}' "$log" | median)
  echo "median $l: wall $w s, peak RSS $r MB"
done
f=$(awk '$1=="3x4" {print $2}' "$log" | median)
b=$(awk '$1=="3x4-plain-1thread" {print $2}' "$log" | median)
awk -v f="$f" -v b="$b" 'BEGIN {printf "3x4 speed-up over the plain single-thread baseline: %.1fx; positions/s %.3g\n", b/f, 2^31/f}'
rm -f "$log"
