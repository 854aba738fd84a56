#!/bin/sh
# az_seed_curves.sh: the learning curves of a bench/az_seeds.sh matrix on
# one chart: for each run DIR/VARIANT-sSEED, the share of the snapshot
# positions where the search move is optimal against CPU-hours, one colour
# per variant, one line per seed, with the 0.95 goal line.
# Usage: bench/az_seed_curves.sh DIR OUT.png [BOARD]   (BOARD names the board
# in the title, default 3x3)
set -e
[ $# = 2 ] || [ $# = 3 ] || { echo "usage: bench/az_seed_curves.sh DIR OUT.png [BOARD]" >&2; exit 2; }
dir=$1 out=$2 board=${3:-3x3}
colours="#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b"
plot="" variants="" i=0
for log in "$dir"/*-s*/log.csv; do
  [ -s "$log" ] || continue
  run=$(basename "$(dirname "$log")")
  variant=${run%-s*}
  case " $variants " in *" $variant "*) ;; *) variants="$variants $variant" ;; esac
  k=0
  for v in $variants; do [ "$v" = "$variant" ] && break; k=$((k + 1)); done
  colour=$(echo $colours | cut -d' ' -f$((k % 6 + 1)))
  # the first run of a variant names it in the key
  case " $seen " in *" $variant "*) title="notitle" ;; *) title="title \"$variant\""; seen="$seen $variant" ;; esac
  plot="$plot${plot:+, }\"$log\" using (column(\"cpu_seconds\")/3600):\"optimal\" every ::1 with lines lw 1.5 lc rgb \"$colour\" $title"
  i=$((i + 1))
done
[ $i -gt 0 ] || { echo "az_seed_curves: no DIR/*-s*/log.csv under $dir" >&2; exit 2; }
gnuplot <<GP
set terminal pngcairo size 900,520 font ",10"
set output "$out"
set datafile separator ","
set key bottom right
set grid
set xlabel "CPU-hours of training (self-play, trainer, snapshots)"
set ylabel "search move optimal (oracle; 20 positions a step)"
set yrange [0.7:1]
set xrange [0:*]
set arrow from graph 0, first 0.95 to graph 1, first 0.95 nohead dt 3 lc rgb "#2ca02c"
set label "goal 0.95" at graph 0.01, first 0.955 tc rgb "#2ca02c"
set title "$board: $i runs, one line per seed"
plot $plot
GP
