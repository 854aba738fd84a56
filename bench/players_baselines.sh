#!/usr/bin/env bash
# players_baselines.sh: reproduce the published player baselines and measure
# the players' speed targets.  Prints wall time and peak RSS of each run.
#
#   3x3: level1 vs random, level2 vs random, level2 vs level1 (>= 10^4 games);
#   7x7: sliding window (2x2, plain) vs MCTS with 80 simulations (200 games),
#        dab's sliding-window variants on the same match, best vs plain;
#   oracle metrics of every player on 3x3 and 3x4 (3x4 from a tablebase in
#   TB=DIR, default build/bench-tb/, built on the first run);
#   speed: sliding-window moves/s on 7x7 (3x3 windows), MCTS playouts/s on 5x5.
#
# Usage: bench/players_baselines.sh [GAMES3=10000] [GAMES7=200]
#        TB=DIR bench/players_baselines.sh     (tablebases from DIR)
# Runs niced; the arena uses both cores.
set -euo pipefail
cd "$(dirname "$0")/.."
G3=${1:-10000}
G7=${2:-200}
DAB=bin/dab
PY=/usr/bin/python3
[ -x "$DAB" ] && [ -x build/bench/players_speed ] || ./build.sh >/dev/null
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Tablebases (built on first use, and 3x4 below) live in build/bench-tb/,
# not in data/tb/, whose contents some tests rely on.
export DAB_TB_PATH="${TB:-$PWD/build/bench-tb}"
mkdir -p "$DAB_TB_PATH"
echo "# players_baselines $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"

# arena ARGS...: one JSON summary into $tmp/last.json; wall time and peak RSS.
arena() {
  /usr/bin/time -v nice -n 5 "$DAB" arena --json "$@" >"$tmp/last.json" 2>"$tmp/time" || {
    cat "$tmp/time" >&2; exit 1; }
  local wall rss
  wall=$(grep -E 'Elapsed \(wall' "$tmp/time" | awk '{print $NF}')
  rss=$(grep -E 'Maximum resident' "$tmp/time" | awk '{print $NF}')
  $PY - "$tmp/last.json" "$wall" "$rss" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p1, p2 = d["p1"], d["p2"]
lo, hi = p1["win_rate_ci95"]
print(f"{d['rows']}x{d['cols']} {p1['name']:>26} vs {p2['name']:<18} games {d['games']:6d}  "
      f"p1 wins {100*p1['win_rate']:5.1f}% [{100*lo:.1f}, {100*hi:.1f}]  ties {d['ties']:4d}  "
      f"margin {p1['margin']:+6.2f} [{p1['margin_ci95'][0]:+.2f}, {p1['margin_ci95'][1]:+.2f}]  "
      f"ms/move {p1['ms_per_move']:.4f} vs {p2['ms_per_move']:.4f}  "
      f"wall {sys.argv[2]}  RSS {int(sys.argv[3])/1024:.0f} MiB")
if "optimal_rate" in p1:
    for k, p in (("p1", p1), ("p2", p2)):
        b, n = p["blunders"], p["phase_moves"]
        print(f"      {k} {p['name']:<24} optimal {100*p['optimal_rate']:5.1f}%  boxes lost/move "
              f"{p['boxes_lost_per_move']:.3f}  blunder rate opening {b['opening']/max(1,n['opening']):.3f} "
              f"middle {b['middle']/max(1,n['middle']):.3f} endgame {b['endgame']/max(1,n['endgame']):.3f}")
PY
}

echo
echo "## 3x3 baselines (published: level1 beats random ~99.6%, level2 beats random ~99.7%, level2 beats level1 ~84%)"
arena --board 3x3 --p1 level1 --p2 random --games "$G3" --seed 1
arena --board 3x3 --p1 level2 --p2 random --games "$G3" --seed 2
arena --board 3x3 --p1 level2 --p2 level1 --games "$G3" --seed 3

echo
echo "## 7x7 sliding window vs MCTS(80 simulations, random rollouts) (published: 100-0 for the 2x2 window, ~500x faster)"
for sw in sw:2x2 sw:3x3 sw+:2x2 sw+:3x3; do
  arena --board 7x7 --p1 "$sw" --p2 mcts:sims=80 --games "$G7" --seed 4
done
echo
echo "## 7x7 best sliding-window variant vs the plain published one"
arena --board 7x7 --p1 sw+:3x3 --p2 sw:2x2 --games "$G7" --seed 5
arena --board 7x7 --p1 sw+:3x3 --p2 sw:3x3 --games "$G7" --seed 6
arena --board 7x7 --p1 sw+:3x3 --p2 level2 --games "$G7" --seed 7
arena --board 7x7 --p1 sw:2x2 --p2 level2 --games "$G7" --seed 7

echo
echo "## Oracle metrics of every player on 3x3 (each against level2, 400 games)"
for p in random level1 level2 chain mcts:sims=1000 mcts-bz:sims=1000 sw:2x2 sw+:2x2 sw:2x3 sw+:2x3 ab:depth=4 perfect; do
  arena --board 3x3 --p1 "$p" --p2 level2 --games 400 --seed 8
done
# 3x4: from the tablebase in $DAB_TB_PATH (built there once with `dab build
# 3x4`: ~16 s, 2 GiB while building, 3 MB on disk), else solved in memory
# per run (2 GiB and ~20 s each).
if [ -f "$DAB_TB_PATH/3x4.dab" ] || nice -n 5 "$DAB" build 3x4 -o "$DAB_TB_PATH/3x4.dab" >/dev/null 2>&1; then
  src=(); what="3x4 tablebase $DAB_TB_PATH/3x4.dab"
else src=(--oracle-lines 31); what="in-memory 3x4 oracle, 2 GiB"; fi
echo
echo "## Oracle metrics on 3x4 ($what; each against level2, 200 games)"
for p in random level1 level2 chain mcts:sims=1000 mcts-bz:sims=1000 sw:2x2 sw+:3x3 ab:depth=4 perfect; do
  arena --board 3x4 --p1 "$p" --p2 level2 --games 200 --seed 9 "${src[@]}"
done

echo
echo "## Speed (one core)"
/usr/bin/time -v nice -n 5 build/bench/players_speed 5 2>"$tmp/time"
echo "wall $(grep -E 'Elapsed \(wall' "$tmp/time" | awk '{print $NF}')"
echo
echo "## Arena scaling: the same 5x5 match on 1 and 2 threads (identical games)"
for t in 1 2; do
  /usr/bin/time -f "threads $t: wall %e s, peak RSS %M KiB" nice -n 5 "$DAB" arena --board 5x5 \
    --p1 mcts:sims=1000 --p2 chain --games 40 --threads "$t" --seed 10 | sed -n 2p
done
