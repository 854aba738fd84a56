#!/usr/bin/env bash
# bench/tb_layered.sh: the layered tablebase builder against the full-array
# (retrograde table) builder on the same board in the same run: wall time,
# peak RSS, equal layer checksums, the plan's estimate against the real
# time, probe rate of the layered file; then the plans of 3x5 and 4x4 and
# their time scaled from the measured rate (their builds are not run).
# Usage: bench/tb_layered.sh [BOARD...]   (default: 3x4 2x6)
# Needs: bin/dab and build/bench/tb_probe (./build.sh); DAB and PROBE
# override them.
set -euo pipefail
cd "$(dirname "$0")/.."
DAB=${DAB:-bin/dab}
PROBE=${PROBE:-build/bench/tb_probe}
[ -x "$DAB" ] && [ -x "$PROBE" ] || ./build.sh >/dev/null
boards=("$@")
[ ${#boards[@]} -gt 0 ] || boards=(3x4 2x6)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
timed() {  # label, command... -> "label wall_s peak_rss_MB cpu_s"
  local label=$1; shift
  local t
  t=$( { /usr/bin/time -f "%e %M %U %S" "$@" >"$dir/out"; } 2>&1 | tail -n 1)
  echo "$label $(awk '{printf "%.2f %.0f %.2f", $1, $2/1024, $3 + $4}' <<<"$t")"
}
echo "# machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# date: $(date -u '+%F %H:%M UTC')   commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "# label wall_s peak_rss_MB cpu_s (user + sys: other jobs share the cores)"
rate_sum=0
for B in "${boards[@]}"; do
  plan=$($DAB build "$B" -o "$dir/$B.l.dab" --plan | sed -n 's/^estimated time: \(.*\) of CPU time.*/\1/p')
  timed "$B layered" $DAB build "$B" -o "$dir/$B.l.dab" --threads 2
  solve=$(sed -n 's/^time: layers \([0-9.]*\) s.*/\1/p' "$dir/out")
  idx=$(sed -n 's/.*blocks, \([0-9]*\) indexed.*/\1/p' "$dir/out")
  timed "$B full-array (baseline)" $DAB build "$B" -o "$dir/$B.f.dab" --threads 2 --full-array
  if cmp -s <($DAB info "$dir/$B.l.dab" --layers | grep -E 'xxh3_128|canonical|value_empty') \
            <($DAB info "$dir/$B.f.dab" --layers | grep -E 'xxh3_128|canonical|value_empty'); then
    echo "$B: layered and full-array files hold identical layers (every XXH3-128, count and the value)"
  else
    echo "$B: FILES DIFFER"; exit 1
  fi
  rate=$(awk -v n="$idx" -v s="$solve" 'BEGIN {printf "%.0f", n / s}')
  echo "$B: layered solve $solve s for $idx indexed entries: $rate entries/s on 2 threads; plan estimated $plan of CPU time"
  rm -f "$dir/$B.f.dab"
  $PROBE "$dir/$B.l.dab" 2000000 | grep -E "1 thread, warm"
  rate_sum=$rate
done
for B in 3x5 4x4; do
  $DAB build "$B" -o "$dir/$B.dab" --plan >"$dir/plan"
  n=$(sed -n 's/^indexed entries: \([0-9]*\).*/\1/p' "$dir/plan")
  echo "$B plan: $(grep -E '^(peak memory|temporary disk|estimated time)' "$dir/plan" | tr '\n' ' ')"
  echo "$B at the ${boards[-1]} rate ($rate_sum entries/s): $(awk -v n="$n" -v r="$rate_sum" 'BEGIN {printf "%.1f min", n / r / 60}') (not built here)"
done
