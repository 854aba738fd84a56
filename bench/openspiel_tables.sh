#!/usr/bin/env bash
# bench/openspiel_tables.sh: the OpenSpiel project's Tables 3 and 4 rerun on
# 7x7 with dab's players, as published, and with dab's variants beside them.
#
#   Table 3: every pairing of random, MCTS (OpenSpiel's MCTSBot: mcts-os,
#   80 simulations as the paper) and the published sliding window
#   (sw:2x2,value=wdl), each order, 100 games each with the first-named
#   player moving first; wins and total point difference.  One arena match
#   of 200 games per pair: games 2k have p1 first, 2k+1 p2 first (dab
#   arena swaps colours in pairs), so its CSV splits into the two orders.
#   Table 4: wall time of 100 self-play games per player (one thread).
#   dab's variants: sw:2x2 (value=net, the default) and mcts-os with
#   OpenSpiel's default 1000 simulations.
#
# Usage: bench/openspiel_tables.sh [GAMES_PER_ORDER=100]
#   BUILD=DIR (default build; the dab binary is DIR/bin/dab when it
#   exists, else bin/dab)   OUT=DIR (default $BUILD/bench-out)
# Prints markdown tables; each arena run's wall time and peak RSS go to
# stderr.  One thread throughout (the machine is shared); about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100}
BUILD=${BUILD:-build}
DAB=$BUILD/bin/dab
[ -x "$DAB" ] || DAB=bin/dab
[ -x "$DAB" ] || ./build.sh >/dev/null
OUT=${OUT:-$BUILD/bench-out}
mkdir -p "$OUT"
BOARD=7x7
MCTS=mcts-os:sims=80
SW=sw:2x2,value=wdl
echo "# openspiel_tables $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?)," \
     "$(nproc) cores:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $N games per order, $BOARD"

label() {
  case $1 in
    random) echo Random ;;
    mcts-os:sims=80) echo "MCTS (80)" ;;
    mcts-os:sims=1000) echo "MCTS (1000)" ;;
    sw:2x2,value=wdl) echo "SW (W/D/L, published)" ;;
    sw:2x2) echo "SW (net boxes, dab)" ;;
    *) echo "$1" ;;
  esac
}

# match A B: 2N games; prints the two rows (A first, then B first).
match() {
  local a=$1 b=$2 csv="$OUT/os_$(echo "$1-$2" | tr ':,=' '___').csv"
  /usr/bin/time -f "  [$a vs $b: wall %e s, peak RSS %M KB]" \
    "$DAB" arena --board $BOARD --p1 "$a" --p2 "$b" --games $((2 * N)) --threads 1 --seed 1 \
    --no-oracle --csv "$csv" >/dev/null
  awk -F, -v la="$(label "$a")" -v lb="$(label "$b")" '
    NR > 1 {
      d = $4 - $5
      if ($2 == 1) { n1++; w1a += (d > 0); w1b += (d < 0); p1 += d }
      else         { n2++; w2b += (d < 0); w2a += (d > 0); p2 -= d }
    }
    END {
      printf "| %s | %s | %d | %d | %+d | %+d |\n", la, lb, w1a, w1b, p1, -p1
      printf "| %s | %s | %d | %d | %+d | %+d |\n", lb, la, w2b, w2a, p2, -p2
    }' "$csv"
}

table3() {  # mcts sw
  echo
  echo "| player 1 (moves first) | player 2 | P1 wins | P2 wins | P1 point difference | P2 point difference |"
  echo "|---|---|---|---|---|---|"
  match random "$1"
  match random "$2"
  match "$1" "$2"
}

echo
echo "## Table 3 as published: $MCTS, $SW"
table3 "$MCTS" "$SW"
echo
echo "## Table 3 with dab's sliding window (value=net) and MCTS at OpenSpiel's default 1000 simulations"
table3 mcts-os:sims=1000 sw:2x2

echo
echo "## Table 4: $N self-play games on $BOARD, one thread"
echo
echo "| player | seconds (wall) | ms per move |"
echo "|---|---|---|"
for p in random "$MCTS" "$SW" sw:2x2 mcts-os:sims=1000; do
  t0=$(date +%s.%N)
  ms=$("$DAB" arena --board $BOARD --p1 "$p" --p2 "$p" --games "$N" --threads 1 --seed 2 --no-oracle --json |
       /usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin); print("%.4f" % ((j["p1"]["ms_per_move"]*j["p1"]["moves"]+j["p2"]["ms_per_move"]*j["p2"]["moves"])/(j["p1"]["moves"]+j["p2"]["moves"])))')
  t1=$(date +%s.%N)
  printf "| %s | %.3f | %s |\n" "$(label "$p")" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$ms"
done
