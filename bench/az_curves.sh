#!/bin/sh
# az_curves.sh: BoxesZero against AlphaZero on one chart: the share of the
# snapshot positions where the search move and the policy argmax are
# optimal, and backward training's start step, against CPU-hours (the
# cpu_seconds column of `dab train az --log`).
# Usage: bench/az_curves.sh BACKWARD.csv FORWARD.csv OUT.png [BOARD]  (BOARD
# names the board in the title, default 3x3)
set -e
[ $# = 3 ] || [ $# = 4 ] || { echo "usage: bench/az_curves.sh BACKWARD.csv FORWARD.csv OUT.png [BOARD]" >&2; exit 2; }
board=${4:-3x3}
gnuplot <<GP
set terminal pngcairo size 900,520 font ",10"
set output "$3"
set datafile separator ","
set key bottom right
set grid
set xlabel "CPU-hours of training (self-play, trainer, snapshots)"
set ylabel "share of optimal moves (oracle)"
set y2label "backward start step k (lines before the end)"
set yrange [0.4:1]
set y2range [0:*]
set xrange [0:*]
set arrow from graph 0, first 0.95 to graph 1, first 0.95 nohead dt 3 lc rgb "#2ca02c"
set label "goal 0.95" at graph 0.01, first 0.957 tc rgb "#2ca02c"
set ytics nomirror
set y2tics
set title "$board, seed 1: BoxesZero (backward) and AlphaZero (forward), graded against the oracle"
plot "$1" using (column("cpu_seconds")/3600):"optimal" every ::1 with lines lw 2 lc rgb "#1f77b4" title "backward: search move", \
     "$1" using (column("cpu_seconds")/3600):"opt_policy" every ::1 with lines dt 2 lc rgb "#1f77b4" title "backward: policy argmax", \
     "$2" using (column("cpu_seconds")/3600):"optimal" every ::1 with lines lw 2 lc rgb "#d62728" title "forward: search move", \
     "$2" using (column("cpu_seconds")/3600):"opt_policy" every ::1 with lines dt 2 lc rgb "#d62728" title "forward: policy argmax", \
     "$1" using (column("cpu_seconds")/3600):"step" every ::1 axes x1y2 with steps lc rgb "#7f7f7f" title "backward: k (right axis)"
GP
