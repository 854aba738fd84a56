#!/bin/sh
# erl_paper.sh: `dab train erl` (seed paper 003) at the paper's length, 10^6
# games on 3x3 against `chain`, over seeds, graded as the arena grades
# every player; the table "At the paper's length" of docs/agents.md and its
# plot (docs/img/erl_paper.png).
#
# Usage: bench/erl_paper.sh [OUTDIR]      (default /tmp/erl-paper)
#   RUNS="to20:1,2,3 const10:1,2,3 to10:1 const20:1 const10+oracle:1 const10+both:1"
#     schedule:seeds; SCHED+REWARD also names the reward (const10+oracle:
#     --beta=const10 --reward=oracle; the published reward is score)
#   GAMES=1000000    training games a run (the paper's 10^6)
#   PLOT=FILE.png    where the plot goes (default OUTDIR/erl_paper.png)
# Each run: OUTDIR/SCHED_sSEED.{rules,csv,time,arena}; a run whose rule file
# is there is not trained again, an arena file not played again.  The
# first call copies bin/dab into OUTDIR (commit in OUTDIR/COMMIT), so every
# run of a table trains with the same code.  Runs go one after another,
# on one thread, under nice.  Writes OUTDIR/summary.csv (one row per run,
# then a mean and a 95% t-interval half-width row per schedule) and prints
# it as a table.
#
# CPU time (2026-11-29, a shared 2-core AMD EPYC): a run 175-870 CPU-s
# (one in its learning state matches more rules a move than one stuck low,
# and costs up to 3x as much); the arena grading of a run under 1 CPU-s.
# The default RUNS: about 4,400 CPU-s (to20 1,195, const10 2,109, to10 175,
# const20 243, const10+oracle 435, const10+both 232), 1.2 CPU-hours.
#
# Columns: online = the share of training games won in the last 10^5 games
# (the paper's figure: on-line, random colour, against its opponent);
# greedy = the trainer's 10^4 greedy games at the end (random colour,
# eval_win); level1/level2/chain = `dab arena --p1 erl:FILE --p2 X --games
# 2000 --seed 5` (colours alternate); optimal, lost/move, lost/game = the
# oracle's grades of the team's moves in the match against chain.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/erl-paper}
RUNS=${RUNS:-"to20:1,2,3 const10:1,2,3 to10:1 const20:1 const10+oracle:1 const10+both:1"}
GAMES=${GAMES:-1000000}
PLOT=${PLOT:-$out/erl_paper.png}
. "$root/bench/rule_arena.sh"
rule_pin_dab "$root" "$out"
dab=$out/dab

for spec in $RUNS; do
  b=${spec%%:*}
  for s in $(echo "${spec#*:}" | tr , ' '); do
    t=$out/${b}_s$s
    if [ ! -f "$t.rules" ]; then
      echo "erl_paper: $b seed $s, $GAMES games" >&2
      case $b in *+*) reward=${b#*+} ;; *) reward=score ;; esac
      /usr/bin/time -f "%U %S %e %M" -o "$t.time" nice -n 5 "$dab" train erl --board 3x3 --seed "$s" --games "$GAMES" \
        --snapshot 4000 --beta="${b%%+*}" --reward="$reward" --snap-games=400 --eval-games=10000 --out "$t.rules" --log "$t.csv" >/dev/null
    fi
    [ -s "$t.arena" ] || rule_arena "$dab" "erl:$t.rules" "$t.arena"
  done
done

. "$root/bench/t95.sh"
sum=$out/summary.csv
echo "schedule,seed,games,cpu_s,online,greedy,level1,level2,chain,optimal,lost_move,lost_game" >"$sum"
for spec in $RUNS; do
  b=${spec%%:*}
  for s in $(echo "${spec#*:}" | tr , ' '); do
    t=$out/${b}_s$s
    cpu=$(awk '{printf "%.0f", $1 + $2}' "$t.time")
    online=$(tail -n 25 "$t.csv" | awk -F, '{w += $3} END {printf "%.4f", w / NR}')
    greedy=$(sed -n 's/^params .*eval_win=\([0-9.]*\).*/\1/p' "$t.rules")
    awk -v b="$b" -v s="$s" -v n="$GAMES" -v cpu="$cpu" -v on="$online" -v gr="$greedy" '
      {w[$1] = $2} $1 == "chain" {opt = $3; lm = $4; lg = $4 * $5 / $6}
      END {printf "%s,%s,%s,%s,%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f\n", b, s, n, cpu, on, gr, w["level1"], w["level2"],
           w["chain"], opt, lm, lg}' "$t.arena" >>"$sum"
  done
done
t95_append "$sum" 4 12   # mean and 95% half-width per group
column -s, -t "$sum"

# Learning curves: the on-line win rate of every run (4,000-game
# snapshots), and the paper's figures as dashed lines (0.40 beta 10, 0.50
# to 20, 0.35 to 10) in the schedule's colour (const20 is not the paper's).
gp=$out/erl_paper.gp
{
  echo "set terminal pngcairo size 1000,600 font ',10'"
  echo "set output '$PLOT'"
  echo "set title 'erl (paper 003) on 3x3 against chain: on-line win rate, every run (4,000-game snapshots); dashed: the paper'"
  echo "set xlabel 'games (thousands)'; set ylabel 'share of training games won'; set yrange [0:0.7]; set grid"
  echo "set key top left"
  echo "set datafile separator ','"
  printf "plot "
  sep=""
  for spec in $RUNS; do
    b=${spec%%:*}
    case $b in
      const10) c='#9400d3' p=0.40 ;; to20) c='#009e73' p=0.50 ;; to10) c='#e69f00' p=0.35 ;;
      *+oracle) c='#56b4e9' p= ;; *+both) c='#cc79a7' p= ;; *) c='#d55e00' p= ;;
    esac
    ns=$(echo "${spec#*:}" | tr , ' ' | wc -w)
    title="title '$b, $ns seed(s)'"
    for s in $(echo "${spec#*:}" | tr , ' '); do
      printf "%s'%s' using (\$1 / 1000):3 with lines lw 1.2 lc rgb '%s' %s" "$sep" "$out/${b}_s$s.csv" "$c" "$title"
      title=notitle
      sep=", "
    done
    [ -z "$p" ] || printf ", %s with lines dt (8,4) lw 3 lc rgb '%s' title 'paper, %s: %s'" "$p" "$c" "$b" "$p"
  done
  echo
} >"$gp"
gnuplot "$gp"
echo "erl_paper: $sum, $PLOT" >&2
