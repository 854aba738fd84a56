#!/usr/bin/env bash
# bench/minimax_study.sh: the OpenSpiel project's minimax study (its Table 2
# and Figure 5): naive minimax, a transposition table, a table keyed by the
# canonical symmetric image, a table storing every image, and dab's
# retrograde solver, on 1x1, 1x2, 2x2, 2x3 and 3x3; time, nodes expanded,
# table bytes, keys stored.  Each solver's value of the empty board is
# checked against the oracle's (the program exits 1 on a mismatch).
#
# Usage: bench/minimax_study.sh [NAIVE_LIMIT_S=120]
#   BUILD=DIR   build tree with bench/minimax_study (default build)
#   OUT=DIR     where the CSV goes (default $BUILD/bench-out)
#   PLOT=1      also draw docs/img/minimax_study.png (gnuplot, log scales)
#   PLOT_ONLY=1 only redraw the plot from the CSV of an earlier run
# Prints the table, then wall time and peak RSS of the whole run.  About
# 20 s and 400 MB: 3x3's position-keyed tables hold 2^24 keys.
set -euo pipefail
cd "$(dirname "$0")/.."
LIMIT=${1:-120}
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/bench-out}
prog=$BUILD/bench/minimax_study
[ -x "$prog" ] || make -j2 BUILD="$BUILD" "$prog" >/dev/null
mkdir -p "$OUT"
csv=$OUT/minimax_study.csv
echo "# minimax_study $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?)," \
     "$(nproc) cores:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
if [ "${PLOT_ONLY:-0}" != 1 ]; then
  /usr/bin/time -f "wall %e s, peak RSS %M KB" "$prog" --naive-limit "$LIMIT" --csv "$csv"
  echo "csv: $csv"
fi
[ "${PLOT:-0}" = 1 ] || [ "${PLOT_ONLY:-0}" = 1 ] || exit 0

# One data block per solver (gnuplot index), x = states, rows that ran.
dat=$OUT/minimax_study.dat
for s in naive tt tt-canonical tt-all-images dab-retro; do
  awk -F, -v s="$s" '$4==s && $5=="ok" {print $3, ($8>1e-6?$8:1e-6), $9, $10, $11, $1}' "$csv"
  printf '\n\n'
done >"$dat"
mkdir -p docs/img
gnuplot <<GP
set terminal pngcairo size 1200,900 font "sans,10"
set output "docs/img/minimax_study.png"
set multiplot layout 2,2 title "Minimax for small Dots-and-Boxes (dab's rerun of the OpenSpiel project's Figure 5; x: 2^{lines} states, 1x1..3x3)"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set key top left
set grid
set xlabel "states (2^{lines})"
set xrange [8:3.4e7]
names = "naive tt tt-canonical tt-all-images dab-retro"
titles = "'naive minimax' 'table (position key)' 'table (canonical key)' 'table (all images stored)' 'dab retrograde'"
set style line 1 lc rgb "#d62728" lw 2 pt 7 ps 1.2
set style line 2 lc rgb "#1f77b4" lw 2 pt 5 ps 1.2
set style line 3 lc rgb "#2ca02c" lw 2 pt 9 ps 1.4
set style line 4 lc rgb "#ff7f0e" lw 2 pt 11 ps 1.2 dt 2
set style line 5 lc rgb "#7f7f7f" lw 2 pt 13 ps 1.2
set key bottom right
set title "(a) time (s; 1e-6 = below the clock's resolution)"
set ylabel "seconds"
plot for [i=0:4] "$dat" index i using 1:2 with linespoints ls (i+1) title word(titles, i+1)
set title "(b) nodes expanded"
set ylabel "nodes"
plot for [i=0:4] "$dat" index i using 1:3 with linespoints ls (i+1) title word(titles, i+1)
set key top left
set title "(c) table size (bytes allocated)"
set ylabel "bytes"
plot for [i=1:4] "$dat" index i using 1:4 with linespoints ls (i+1) title word(titles, i+1)
set title "(d) keys stored"
set ylabel "keys"
plot for [i=1:4] "$dat" index i using 1:5 with linespoints ls (i+1) title word(titles, i+1)
unset multiplot
GP
echo "plot: docs/img/minimax_study.png"
