#!/bin/sh
# az_matches.sh: az models (or checkpoints) against chain, mcts-bz and
# perfect on 3x3 (or BOARD=RxC), with the search and with the policy head
# alone; one Markdown table row per match: wins, win rate [95%], margin,
# and the boxes each side lost against perfect play per game (the
# oracle's metrics).
# Usage: bench/az_matches.sh [GAMES] LABEL=MODEL...   (default 100 games)
# Each match: dab arena --board $BOARD --games GAMES --seed 7, each side first
# in half; ends with wall time and peak RSS of the whole run.
# See Copyright Notice in README.md
set -e
cd "$(dirname "$0")/.."
GAMES=100
case ${1:-} in [0-9]*) GAMES=$1; shift ;; esac
[ $# -ge 1 ] || { echo "usage: bench/az_matches.sh [GAMES] LABEL=MODEL..." >&2; exit 2; }
DAB=${DAB:-bin/dab}
BOARD=${BOARD:-3x3}
t0=$(date +%s.%N)
ROW=$(mktemp)
trap 'rm -f "$ROW" /tmp/az_matches.rss' EXIT
cat > "$ROW" <<'PY'
import json, sys
d = json.load(sys.stdin)
a, b, g = d["p1"], d["p2"], d["games"]
label, sims, opp = sys.argv[1:4]
lo, hi = a["win_rate_ci95"]
half = (a["margin_ci95"][1] - a["margin_ci95"][0]) / 2
lost_a = a["boxes_lost_per_move"] * a["moves"] / g
lost_b = b["boxes_lost_per_move"] * b["moves"] / g
shown = sims if sims != "0" else "0 (policy)"
print(f"| {label} | {shown} | {opp} | {a['wins']}/{g} | {a['win_rate']:.2f} [{lo:.2f}, {hi:.2f}] | "
      f"{a['margin']:+.2f} +- {half:.2f} | {lost_a:.1f} | {lost_b:.1f} |")
PY
echo "| model | sims | opponent | az wins | win rate [95%] | margin | az lost/game | opp. lost/game |"
echo "|---|---|---|---|---|---|---|---|"
for lm in "$@"; do
  label=${lm%%=*} model=${lm#*=}
  for sims in 48 0; do
    for opp in chain mcts-bz:sims=100 mcts-bz:sims=1000 perfect; do
      /usr/bin/time -f "%M" -o /tmp/az_matches.rss "$DAB" arena --board "$BOARD" --p1 "az:$model,sims=$sims" \
        --p2 "$opp" --games "$GAMES" --seed 7 --json |
        /usr/bin/python3 "$ROW" "$label" "$sims" "$opp"
      rss=$(cat /tmp/az_matches.rss)
      [ "${peak:-0}" -ge "$rss" ] || peak=$rss
    done
  done
done
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v r="${peak:-0}" 'BEGIN { printf "wall %.1f s, peak RSS %d MiB\n", b - a, r / 1024 }'
