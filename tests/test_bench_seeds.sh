#!/usr/bin/env bash
# test_bench_seeds.sh: the arithmetic behind the over-seeds tables in
# docs/agents.md: bench/t95.sh's interval, bench/az_seeds.sh's summary and
# bench/az_seed_curves.sh's window means, on made-up runs worked by hand.
set -u
source "$(dirname "$0")/clitest.sh"

# t95: values 1, 2, 3 (mean 2, squared deviations 2): 4.303 * sqrt(2/2/3)
. bench/t95.sh
half() { awk "$T95_AWK"' BEGIN { printf "%.4f", half95('"$1"', '"$2"') }'; }
check "t95: 3 values" test "$(half 2 3)" = 2.4843
check "t95: 1 value has no interval" test "$(half 0 1)" = 0.0000
check "t95: past 11 values the 10-df quantile" test "$(half 11 12)" = "$(awk 'BEGIN { printf "%.4f", 2.228 * sqrt(1 / 12) }')"

# az_seeds.sh, summary only (ONLY_GRADE=1 with every grade file present,
# and a stand-in DIR/dab so nothing is copied): variant a scores 0.80,
# 0.90, 0.85 over seeds 1-3 (mean 0.85, half-width 4.303 * sqrt(0.005/6)
# = 0.124); b scores 0.02, 0.03, 0.01 more (paired: 0.02 +- 0.025).
m="$T/matrix"
mkdir -p "$m" && printf '#!/bin/sh\nexit 1\n' >"$m/dab" && chmod +x "$m/dab"
grade() { # NAME SEED SEARCH: a run's model, log and grade file
  mkdir -p "$m/$1-s$2" && : >"$m/$1-s$2/model.az"
  printf 'games,cpu_seconds\n100,720%s\n' "$2" >"$m/$1-s$2/log.csv"
  printf 'header\nall  2300  0.700  %s  0.9  0.9  rmse 0.3\nall  2300  0.600  0.800  0.9  0.9  rmse 0.3\n' "$3" \
    >"$m/$1-s$2/grade-100-48.txt"
}
grade a 1 0.800; grade a 2 0.900; grade a 3 0.850
grade b 1 0.820; grade b 2 0.930; grade b 3 0.860
out=$(ONLY_GRADE=1 bash bench/az_seeds.sh "$m" 2 3x3 "1 2 3" a=--backward b= 2>"$T/err")
check "az_seeds summary exits 0" test $? = 0
check "az_seeds: mean and interval of a" grep -Eq "^a  3  0.850 \[0.726, 0.974\]  0.700  0.800  s1=0.800 s2=0.900 s3=0.850  7201 7202 7203$" <<<"$out"
check "az_seeds: b - a paired by seed" grep -q "^b - a  3  +0.020 \[-0.005, +0.045\]  s1=+0.020 s2=+0.030 s3=+0.010" <<<"$out"
rm "$m/b-s3/grade-100-48.txt" "$m/b-s3/model.az"
out=$(ONLY_GRADE=1 bash bench/az_seeds.sh "$m" 2 3x3 "1 2 3" a=--backward b= 2>"$T/err")
check "az_seeds: an unfinished run is named" grep -q "b-s3 not finished" "$T/err"
check "az_seeds: pairs only seeds graded in both" grep -q "^b - a  2  +0.025 \[-0.039, +0.089\]" <<<"$out"

# az_seed_curves.sh: snapshots at CPU-seconds 900 and 1500 (window 0-0.5 h)
# and 2700, 3400 (0.5-1 h); a's seed 1 goes on to 3700 s, a sliver of
# 0.03 h that joins the 0.5-1 window.  Each log's first row (the untrained
# net) is left out.
c="$T/curves"
curve() { # RUN SCORE@SECONDS...
  mkdir -p "$c/$1"
  { echo "games,optimal,cpu_seconds"; echo "0,0.100,10"; }>"$c/$1/log.csv"
  local run=$1 p; shift
  for p in "$@"; do echo "1,${p%@*},${p#*@}" >>"$c/$run/log.csv"; done
}
curve a-s1 0.80@900 0.82@1500 0.86@2700 0.88@3400 0.90@3700
curve a-s2 0.74@900 0.76@1500 0.80@2700 0.84@3400
curve b-s1 0.83@900 0.85@1500 0.90@2700 0.92@3400
curve b-s2 0.77@900 0.79@1500 0.83@2700
if command -v gnuplot >/dev/null; then
  out=$(bash bench/az_seed_curves.sh "$c" "$T/curves.png" 2>"$T/err")
  check "curves exit 0" test $? = 0
  check "curves: a PNG" test "$(head -c 4 "$T/curves.png" | od -An -c | tr -d ' ')" = '211PNG'
  check "curves: window means of a run (the sliver joins 0.5-1)" grep -Eq "^a-s1 +0.810 +0.880$" <<<"$out"
  check "curves: a run with one snapshot in a window" grep -Eq "^b-s2 +0.780 +0.830$" <<<"$out"
  check "curves: variant means" grep -Eq "^a \(mean\) +0.780 +0.850$" <<<"$out"
  check "curves: b - a, equal differences" grep -q "0-0.5 CPU-h: +0.030 \[+0.030, +0.030\] over 2 seeds" <<<"$out"
  check "curves: b - a, 12.706 * 0.01 either side" grep -q "0.5-1 CPU-h: +0.020 \[-0.107, +0.147\] over 2 seeds" <<<"$out"
  out=$(BASE=b bash bench/az_seed_curves.sh "$c" "$T/curves.png" 2>"$T/err")
  check "curves: BASE=b turns the difference round" grep -q "^a - b, paired" <<<"$out"
  check "curves: BASE=b, 0-0.5" grep -q "0-0.5 CPU-h: -0.030" <<<"$out"
else
  echo "test_bench_seeds.sh: gnuplot not installed; the curves' numbers not checked"
fi
WINDOW=half bash bench/az_seed_curves.sh "$c" "$T/x.png" 2>"$T/err"
check "curves: a bad WINDOW exits 2" test $? = 2
check "curves: ... and says so" grep -q "WINDOW must be a number" "$T/err"
bash bench/az_seed_curves.sh "$T/nothing" "$T/x.png" 2>"$T/err"
check "curves: no runs exits 2" test $? = 2

finish test_bench_seeds.sh
