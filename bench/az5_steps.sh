#!/usr/bin/env bash
# bench/az5_steps.sh: seed paper 001's accuracy-per-step table on 5x5, steps
# 22-30, every move graded exactly by the searching oracle.  First the
# paper's model-free "Random" column under position samplers and metrics
# (bench/az5_steps.c documents both), then the players.
#
# Usage: bench/az5_steps.sh
#   BUILD=DIR   build tree with bench/az5_steps (default build)
#   OUT=DIR     output folder (default $BUILD/bench-out)
#   CACHE=FILE  grading cache (default $OUT/az5_grades_5x5.txt): graded
#               positions are kept there, so a rerun grades nothing again
#   PER=N       positions per step for the players (default 200)
#   PLAYERS="SPEC ..."  more players for the two players tables, e.g. trained
#               models: PLAYERS="az:bz.model,sims=800 az:az.model,sims=800"
#               (a training checkpoint plays too)
#   FULL=1      also the sampler study at steps 24-30 with level1, safe and
#               mcts-bz self-play (the mcts-bz self-play and its grading
#               take several CPU-minutes on a cold cache)
# Cold cache: about 3 CPU-minutes of grading for the default run (steps
# 22-23 cost ~0.2 s a position, 24-30 ~10 ms), then the players, about 1
# CPU-minute per position set at PER=200.  Each part prints its wall and
# CPU time and peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/bench-out}
PER=${PER:-200}
prog=$BUILD/bench/az5_steps
[ -x "$prog" ] || make -j2 BUILD="$BUILD" "$prog" >/dev/null
mkdir -p "$OUT"
CACHE=${CACHE:-$OUT/az5_grades_5x5.txt}
echo "# az5_steps $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?)," \
     "$(nproc) cores:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
common=(--board 5x5 --cache "$CACHE" --nodes 50000000 --hash 256 --seed 2026)

if [ "${FULL:-0}" = 1 ]; then
  echo "## sampler study, steps 24-30, 200 games per sampler"
  "$prog" "${common[@]}" --per 200 --steps 24-30 --sampler random --sampler level1 --sampler safe \
    --sampler chain --sampler mcts-bz:sims=1000 --sampler mcts-bz:sims=10000
fi

echo "## Random column: chain and random self-play, steps 22-30, 200 games each"
"$prog" "${common[@]}" --per 200 --steps 22-30 --sampler chain --sampler random

az0=$OUT/az0_5x5.model
players=(--player random --player chain --player mcts-bz:sims=1000 --player mcts-bz:sims=10000
         --player mcts-os --player mcts-os:sims=10000 --player "az:$az0,sims=800")
for spec in ${PLAYERS:-}; do players+=(--player "$spec"); done
echo "## players on chain self-play positions (the chosen sampler), $PER per step"
"$prog" "${common[@]}" --per "$PER" --steps 22-30 --sampler chain --sampler random --eval 0 \
  --metric opt --az0 "$az0" "${players[@]}"
echo "## players on random-play positions, $PER per step"
"$prog" "${common[@]}" --per "$PER" --steps 22-30 --sampler chain --sampler random --eval 1 \
  --metric opt --az0 "$az0" "${players[@]}"
