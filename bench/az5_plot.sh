#!/bin/bash
# az5_plot.sh: the 5x5 grades of BoxesZero / AlphaZero checkpoints as one
# PNG: left, the share of margin-optimal moves over steps 22-30 against the
# run's CPU-hours; right, that share per step for each run's latest
# checkpoint beside the paper's columns and a random move.
#
# Usage: bench/az5_plot.sh GRADES.csv OUT.png
# GRADES.csv, one row per graded player (the rows of bench/az5_steps.sh's
# "players on chain positions, metric opt" table, with what the run was):
#   name,cpu_h,s22,s23,s24,s25,s26,s27,s28,s29,s30,all
# name: a run (bz, az, or any name; cpu_h, its checkpoint's CPU-hours,
# given), or a reference drawn as is (random, az0, "paper ..."; cpu_h
# empty); an empty step cell is a step not given.
# Needs gnuplot (Debian package gnuplot-nox).
# See Copyright Notice in README.md
set -u
[ $# = 2 ] || { sed -n 2,14p "$0" >&2; exit 2; }
csv=$1 png=$2
[ -r "$csv" ] || { echo "az5_plot: $csv: cannot read" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "az5_plot: gnuplot missing (apt-get install gnuplot-nox)" >&2; exit 2; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# Left: "cpu_h all" per run; right: "step share" per series, the runs'
# latest rows (the highest cpu_h) and every reference row.
awk -F, -v d="$tmp" '
  NR == 1 || $1 == "" { next }
  $2 != "" {
    if (!($1 in run)) { run[$1] = ++nrun; print $1 > (d "/runs") }
    print $2, $12 > (d "/curve_" run[$1])
    if (!($1 in best) || $2 + 0 > best[$1] + 0) { best[$1] = $2; row[$1] = $0 }
    next
  }
  { ref[++n] = $0; if ($12 != "") print $12, $1 > (d "/level") }
  END {
    for (r in row) ref[++n] = row[r]   # the runs last
    for (i = 1; i <= n; i++) {
      split(ref[i], f, ",")
      name = f[1]
      if (f[2] != "") name = name " at " f[2] " CPU-h"
      file = d "/step_" i
      print name > (d "/names")
      for (s = 22; s <= 30; s++) if (f[s - 19] != "") print s, f[s - 19] > file
      close(file)
    }
  }' "$csv"
[ -s "$tmp/names" ] || { echo "az5_plot: $csv: no rows" >&2; exit 2; }

# bz and az keep their colours; other runs take the next of the rest
others=("#2ca02c" "#9467bd" "#ff7f0e" "#8c564b" "#e377c2")
colour() { case $1 in "bz" | "bz at"*) echo "#1f77b4" ;; az0*) echo "#bcbd22" ;; "az" | "az at"*) echo "#d62728" ;;
  random*) echo "#7f7f7f" ;; *BoxesZero*90*) echo "#000000" ;; *BoxesZero*) echo "#17becf" ;; *AlphaZero*) echo "#ff9896" ;;
  *oracle*policy*) echo "#e377c2" ;; *oracle*) echo "#9467bd" ;;
  *) local k; k=$(grep -Fxn -- "${1% at *}" "$tmp/runs" | cut -d: -f1); echo "${others[$(((${k:-1} - 1) % 5))]}" ;; esac; }
left="" right="" i=0 k=0
while IFS= read -r v; do
  k=$((k + 1))
  sort -n "$tmp/curve_$k" >"$tmp/curve_$k.s"
  left="$left${left:+, }\"$tmp/curve_$k.s\" using 1:2 with linespoints lw 2 pt 7 lc rgb \"$(colour "$v")\" title \"$v\""
done < <([ -s "$tmp/runs" ] && cat "$tmp/runs")
[ -s "$tmp/level" ] && while read -r val name; do
  left="$left${left:+, }$val with lines lw 1.5 dt 2 lc rgb \"$(colour "$name")\" title \"$name\""
done <"$tmp/level"
while IFS= read -r name; do
  i=$((i + 1))
  style="linespoints lw 2 pt 7"
  case $name in paper*) style="points pt 5 ps 1.3" ;; random* | az0*) style="lines lw 1.5 dt 2" ;; esac
  right="$right${right:+, }\"$tmp/step_$i\" using 1:2 with $style lc rgb \"$(colour "$name")\" title \"$name\""
done <"$tmp/names"
gnuplot <<GP || exit 1
set terminal pngcairo size 1200,500 font ",10"
set output "$png"
set multiplot layout 1,2
set grid
set key top left
set xlabel "CPU-hours of training"
set ylabel "share of margin-optimal moves, steps 22-30"
set yrange [0:1]
set title "5x5 checkpoints, 800 simulations, chain self-play positions"
plot $left
set xlabel "step (lines drawn)"
set ylabel "share of margin-optimal moves"
set xrange [21.5:30.5]
set title "per step: latest checkpoints beside the paper"
plot $right
unset multiplot
GP
echo "az5_plot: wrote $png"
