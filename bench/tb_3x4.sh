#!/usr/bin/env bash
# bench/tb_3x4.sh: the tablebase targets of issue 3 on one board (3x4).
#   size <= 80 MB; build <= 1.5x the bare retrograde (same run, medians);
#   >= 1,000,000 random probes/s on one thread (warm), scaling with threads;
#   move_values >= 100,000/s; open + first probe <= 10 ms;
#   dab probe FILE - >= 100,000 positions/s; dab verify passes;
#   10^6 random positions agree with the in-memory retrograde;
#   `dab probe 3x4.dab 3x4 --json` gives value 0 and best [18,23,28].
# Usage: bench/tb_3x4.sh [REPS] [BOARD]   (defaults 3, 3x4)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-3}
B=${2:-3x4}
DAB=bin/dab
[ -x $DAB ] && [ -x build/bench/tb_probe ] || ./build.sh >/dev/null
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
F=$dir/$B.dab
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
timed() {  # label, command... -> "label wall_s rss_MB"
  local label=$1; shift
  local t
  t=$( { /usr/bin/time -f "%e %M" "$@" >/dev/null; } 2>&1 | tail -n 1)
  echo "$label $(awk '{printf "%.2f %.0f", $1, $2/1024}' <<<"$t")"
}
echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# date: $(date -u '+%F %H:%M UTC')   board: $B   reps: $REPS   (label wall_s peak_rss_MB)"
log=$dir/log
for i in $(seq "$REPS"); do
  timed retro $DAB retro "$B" | tee -a "$log"
  timed build $DAB build "$B" -o "$F" | tee -a "$log"
done
r=$(awk '$1=="retro" {print $2}' "$log" | median)
b=$(awk '$1=="build" {print $2}' "$log" | median)
echo "median: bare retrograde $r s, build $b s, ratio $(awk -v b="$b" -v r="$r" 'BEGIN {printf "%.2f", b/r}') (target <= 1.5)"
echo "file: $(stat -c %s "$F") bytes (target <= 80 MB)"
$DAB probe "$F" "$B" --json | /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print('empty board: value', d['value'], 'best', d['best'])"
build/bench/tb_probe "$F" 2000000
/usr/bin/python3 -c "
import random
r = random.Random(1)
rows, cols = map(int, '$B'.split('x'))
n = (rows + 1) * cols + rows * (cols + 1)
with open('$dir/pos.txt', 'w') as f:
    for _ in range(200000): f.write('$B:' + ''.join(r.choice('01') for _ in range(n)) + '\n')"
$DAB probe "$F" - <"$dir/pos.txt" >/dev/null   # warm the cache of blocks in the page cache
t=$( { /usr/bin/time -f "%e %U" $DAB probe "$F" - <"$dir/pos.txt" >/dev/null; } 2>&1 | tail -n 1)
echo "dab probe FILE -: 200000 positions, $(awk '{printf "%.0f/s wall, %.0f/s per CPU second", 200000/$1, 200000/$2}' <<<"$t") (target >= 100000/s)"
timed verify $DAB verify "$F"
$DAB verify "$F"
timed compare build/bench/tb_compare "$F" 1000000
build/bench/tb_compare "$F" 1000000
