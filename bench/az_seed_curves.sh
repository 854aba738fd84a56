#!/bin/sh
# az_seed_curves.sh: the learning curves of a bench/az_seeds.sh matrix on
# one chart: for each run DIR/VARIANT-sSEED, the share of the snapshot
# positions where the search move is optimal against CPU-hours, one colour
# per variant, one line per seed, with the 0.95 goal line; then prints the
# chart's numbers: window means per run and variant, paired differences.
# Usage: [WINDOW=H] [BASE=V] bench/az_seed_curves.sh DIR OUT.png [BOARD]
#   BOARD names the board in the title (default 3x3); WINDOW: CPU-hours a
#   window (0.5); BASE: the variant the others are compared with (default:
#   the first by name; it also takes the first colour)
set -e
[ $# = 2 ] || [ $# = 3 ] || { echo "usage: bench/az_seed_curves.sh DIR OUT.png [BOARD]" >&2; exit 2; }
dir=$1 out=$2 board=${3:-3x3}
awk -v w="${WINDOW:-0.5}" 'BEGIN { exit !(w + 0 > 0 && w ~ /^[0-9.]+$/) }' ||
  { echo "az_seed_curves: WINDOW must be a number of CPU-hours > 0, got '${WINDOW:-}'" >&2; exit 2; }
colours="#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b"
plot="" variants="" i=0
# BASE, when it ran, takes the first colour, so charts against one base agree
[ -n "${BASE:-}" ] && ls "$dir/$BASE"-s*/log.csv >/dev/null 2>&1 && variants=" $BASE"
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

# The numbers behind the chart: each run's mean snapshot score per window
# of WINDOW CPU-hours (default 0.5; the untrained first row left out), each
# variant's mean over its seeds, and each variant's difference from the
# first, paired by seed (a seed starts every variant from the same net),
# with a 95% t-interval over the seeds that ran in both.  The snapshot
# positions are the run's own (20 random-play positions a step, drawn from
# its seed), so a variant's runs of one seed are scored on the same ones.
. "$(dirname "$0")/t95.sh"
for log in "$dir"/*-s*/log.csv; do
  [ -s "$log" ] || continue
  run=$(basename "$(dirname "$log")")
  awk -F, -v run="$run" -v w="${WINDOW:-0.5}" '
    NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "cpu_seconds") c = i; if ($i == "optimal") o = i } next }
    NR > 2 { k = int($c / 3600 / w); n[k]++; s[k] += $o; if (k > kmax) kmax = k; last = $c }
    END {
      # a sliver past the last whole window (a run ends a little over
      # its budget) joins that window rather than standing alone
      if (kmax > 0 && last / 3600 - kmax * w < w / 10) { n[kmax - 1] += n[kmax]; s[kmax - 1] += s[kmax]; n[kmax] = 0 }
      for (k = 0; k <= kmax; k++) if (n[k]) printf "%s %d %.6f\n", run, k, s[k] / n[k] }' "$log"
done | awk -v w="${WINDOW:-0.5}" -v order="$variants" "$T95_AWK"'
  { v = $1; sub(/-s[0-9]+$/, "", v); seed = substr($1, length(v) + 3)
    if (!((v, seed) in has)) { has[v, seed] = 1; seeds[v] = seeds[v] " " seed; runs[++nr] = $1; rv[nr] = v; rs[nr] = seed }
    m[v, seed, $2] = $3; if ($2 + 1 > nk) nk = $2 + 1 }
  END {
    nv = split(order, vs, " ")  # BASE, when it ran, leads the order
    # the name column fits the longest run or "variant (mean)"
    wid = 24
    for (i = 1; i <= nr; i++) if (length(runs[i]) > wid) wid = length(runs[i])
    for (j = 1; j <= nv; j++) if (length(vs[j]) + 7 > wid) wid = length(vs[j]) + 7
    name = "%-" wid "s"
    printf "snapshot score (search move optimal), mean per %s CPU-hours:\n" name, w, "run"
    for (k = 0; k < nk; k++) printf " %9s", sprintf("%g-%g", k * w, (k + 1) * w)
    printf "\n"
    for (i = 1; i <= nr; i++) {
      printf name, runs[i]
      for (k = 0; k < nk; k++) printf " %9s", ((rv[i], rs[i], k) in m) ? sprintf("%.3f", m[rv[i], rs[i], k]) : "-"
      printf "\n"
    }
    for (j = 1; j <= nv; j++) {
      printf name, vs[j] " (mean)"
      ns = split(seeds[vs[j]], ss, " ")
      for (k = 0; k < nk; k++) {
        s = 0; n = 0
        for (i = 1; i <= ns; i++) if ((vs[j], ss[i], k) in m) { s += m[vs[j], ss[i], k]; n++ }
        printf " %9s", n ? sprintf("%.3f", s / n) : "-"
      }
      printf "\n"
    }
    for (j = 2; j <= nv; j++) {
      printf "%s - %s, paired by seed [95%% t]:\n", vs[j], vs[1]
      ns = split(seeds[vs[j]], ss, " ")
      for (k = 0; k < nk; k++) {
        n = 0
        for (i = 1; i <= ns; i++)
          if ((vs[1], ss[i], k) in m && (vs[j], ss[i], k) in m) d[++n] = m[vs[j], ss[i], k] - m[vs[1], ss[i], k]
        if (!n) continue
        mean = mean_of(d, n); h = half95_of(d, n)
        printf "  %g-%g CPU-h: %+.3f [%+.3f, %+.3f] over %d seeds\n", k * w, (k + 1) * w, mean, mean - h, mean + h, n
      }
    }
  }'
