#!/bin/sh
# econ_paper.sh: `dab train econ` (seed paper 000) at the paper's length on
# 3x3: 5 x 10^5 games under the curriculum, then 3 x 10^6 against the
# unrestricted `chain`, the team second, over seeds, graded as the arena
# grades every player; the table "The economy at the paper's length" of
# docs/agents.md and its plot (docs/img/econ_paper.png).
#
# Usage: bench/econ_paper.sh [OUTDIR]      (default /tmp/econ-paper)
#   RUNS="win:1,2,3 oracle:1 both:1"   pay:seeds (win is the paper's)
#   GAMES=500000 FULL=3000000          curriculum and unrestricted games
#   PLOT=FILE.png    where the plot goes (default OUTDIR/econ_paper.png)
# Each run: OUTDIR/PAY_sSEED.{rules,csv,time,arena}.  Ctrl-C stops a run
# with a checkpoint (OUTDIR/PAY_sSEED.ckpt) and the next call resumes it
# (its .time then holds the last part only; the log's `seconds` column
# holds the whole run's).  A run whose rule file is there is not trained again,
# an arena file not played again.  The first call copies bin/dab into
# OUTDIR (commit in OUTDIR/COMMIT), so every run of a table trains with the
# same code.  Runs go one after another, on one thread, under nice.
# Writes OUTDIR/summary.csv (one row per run, then a mean and a 95%
# t-interval half-width row per pay) and prints it as a table.
#
# CPU time (2026-11-29, a shared 2-core AMD EPYC): a run of 3.5 x 10^6
# games, with the snapshots' greedy games and the oracle's grades of every
# team move, 710-920 CPU-s with the published pay, 1,400-1,510 with the
# oracle's; the default RUNS 5,300 CPU-s, 1.5 CPU-hours.
#
# Columns: seconds = the run's training time (the log's, resumed parts
# included); online_end = the share of games won in the last 10^5 (the last
# snapshots; the paper's figure: about 40% after 3 x 10^6 unrestricted
# games); online_trained = the same over the first 10^5 unrestricted games
# (paper: 5-12%); greedy = the trainer's 2,000 greedy games (highest bid)
# at the end, the team's colour (eval_win); level1/level2/chain = `dab
# arena --p1 econ:FILE --p2 X --games 2000 --seed 5` (colours alternate);
# optimal, lost/move, lost/game = the oracle's grades of the team's moves
# in the match against chain.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/econ-paper}
RUNS=${RUNS:-"win:1,2,3 oracle:1 both:1"}
GAMES=${GAMES:-500000}
FULL=${FULL:-3000000}
PLOT=${PLOT:-$out/econ_paper.png}
every=$(((GAMES + FULL) / 100))
. "$root/bench/rule_arena.sh"
rule_pin_dab "$root" "$out"
dab=$out/dab

for spec in $RUNS; do
  p=${spec%%:*}
  for s in $(echo "${spec#*:}" | tr , ' '); do
    t=$out/${p}_s$s
    if [ ! -f "$t.rules" ]; then
      echo "econ_paper: pay $p seed $s, $GAMES + $FULL games" >&2
      if [ -f "$t.ckpt" ]; then
        set -- --resume "$t.ckpt"
      else
        set -- --board 3x3 --seed "$s" --games "$GAMES" --full-games="$FULL" --snapshot "$every" \
          --colour=second --snap-games=400 --pay="$p"
      fi
      /usr/bin/time -f "%U %S %e %M" -o "$t.time" nice -n 5 "$dab" train econ "$@" --checkpoint "$t.ckpt" \
        --out "$t.rules" --log "$t.csv" >/dev/null
    fi
    [ -s "$t.arena" ] || rule_arena "$dab" "econ:$t.rules" "$t.arena"
  done
done

. "$root/bench/t95.sh"
sum=$out/summary.csv
echo "pay,seed,games,seconds,online_trained,online_end,greedy,level1,level2,chain,optimal,lost_move,lost_game" >"$sum"
for spec in $RUNS; do
  p=${spec%%:*}
  for s in $(echo "${spec#*:}" | tr , ' '); do
    t=$out/${p}_s$s
    # the log's seconds (column 2) count the whole run, resumed parts included
    secs=$(tail -n 1 "$t.csv" | awk -F, '{printf "%.0f", $2}')
    # rows are snapshots of $every games: 10^5 games are about 3 of them
    k=$(((100000 + every - 1) / every))
    trained=$(awk -F, -v g="$GAMES" -v k="$k" 'NR > 1 && $1 > g && n < k {w += $3; n++} END {printf "%.4f", n ? w / n : 0}' "$t.csv")
    online=$(tail -n "$k" "$t.csv" | awk -F, '{w += $3} END {printf "%.4f", w / NR}')
    greedy=$(sed -n 's/^params .*eval_win=\([0-9.]*\).*/\1/p' "$t.rules")
    awk -v p="$p" -v s="$s" -v n="$((GAMES + FULL))" -v secs="$secs" -v tr="$trained" -v on="$online" -v gr="$greedy" '
      {w[$1] = $2} $1 == "chain" {opt = $3; lm = $4; lg = $4 * $5 / $6}
      END {printf "%s,%s,%s,%s,%s,%s,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.3f\n", p, s, n, secs, tr, on, gr, w["level1"],
           w["level2"], w["chain"], opt, lm, lg}' "$t.arena" >>"$sum"
  done
done
t95_append "$sum" 4 13   # mean and 95% half-width per group
column -s, -t "$sum"

# Learning curves: the on-line win rate of every run, and the paper's
# figures (about 0.1 from 5 x 10^5 unrestricted games on, its best about
# 0.4 after 3 x 10^6) in black; a grey line where the curriculum ends.
gp=$out/econ_paper.gp
{
  echo "set terminal pngcairo size 1000,600 font ',10'"
  echo "set output '$PLOT'"
  echo "set title 'economy (paper 000) on 3x3, second player: on-line win rate, every run; black: the paper (unrestricted chain)'"
  echo "set xlabel 'games (thousands)'; set ylabel 'share of snapshot games won'; set yrange [0:0.8]; set grid"
  echo "set key right center"
  echo "set datafile separator ','"
  echo "set arrow from $((GAMES / 1000)), graph 0 to $((GAMES / 1000)), graph 1 nohead lc rgb '#888888'"
  echo "set label 'curriculum | unrestricted chain' at $((GAMES / 1000)), graph 0.95 center"
  printf "plot "
  sep=""
  for spec in $RUNS; do
    p=${spec%%:*}
    case $p in win) c='#0072b2' ;; oracle) c='#d55e00' ;; *) c='#009e73' ;; esac
    ns=$(echo "${spec#*:}" | tr , ' ' | wc -w)
    title="title 'pay $p, $ns seed(s)'"
    for s in $(echo "${spec#*:}" | tr , ' '); do
      printf "%s'%s' using (\$1 / 1000):3 with lines lw 1.2 lc rgb '%s' %s" "$sep" "$out/${p}_s$s.csv" "$c" "$title"
      title=notitle
      sep=", "
    done
  done
  x1=$(((GAMES + 500000) / 1000)) x2=$(((GAMES + FULL) / 1000))
  printf ", '-' using 1:2 with lines dt (8,4) lw 3 lc rgb '#000000' title 'paper: about 0.10 (peaks 0.20) from 5x10^5 unrestricted games'"
  printf ", '-' using 1:2 with points pt 7 ps 2 lc rgb '#000000' title 'paper: about 0.40, its best, after 3x10^6'\n"
  printf '%s,0.10\n%s,0.10\ne\n%s,0.40\ne\n' "$x1" "$x2" "$x2"
} >"$gp"
gnuplot "$gp"
echo "econ_paper: $sum, $PLOT" >&2
