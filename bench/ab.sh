#!/usr/bin/env bash
# bench/ab.sh: alpha-beta solver benchmarks: value, nodes, search time,
# wall time of the whole run (table set-up included) and peak RSS per board, with every technique on, and with each switched off
# (A/B in the same run; the machine is shared, so compare within a run and
# repeat with REPEAT=3 for medians).
# Usage: bench/ab.sh [BOARD...]            default: 3x4 2x6 2x7 3x5 4x4
#   VARIANTS="default no-sle ..." selects configurations (see below)
#   HASH=MiB (default 4096)  THREADS=N (default 1)  REPEAT=N (default 1)
#   LIMIT=NODES stops a run early (reported as "stopped")
#   BASE=PATH adds variant "base": that ab_bench binary (an older build, e.g.
#     from a git worktree of the last release) with its defaults, as the
#     same-run baseline
set -uo pipefail
cd "$(dirname "$0")/.."
./build.sh >/dev/null || { echo "bench/ab.sh: build failed" >&2; exit 1; }
boards=("$@")
((${#boards[@]})) || boards=(3x4 2x6 2x7 3x5 4x4)
HASH=${HASH:-4096} THREADS=${THREADS:-1} REPEAT=${REPEAT:-1} LIMIT=${LIMIT:-0}
VARIANTS=${VARIANTS:-"default no-graph no-etc no-etcfull etc no-chainmoves no-handouts no-junction no-loony no-sle no-decline no-border no-sacorder no-parity"}
flags() {
  case "$1" in
    default|base) echo "" ;;
    no-sle) echo "--no-sle" ;;
    no-decline) echo "--no-decline" ;;
    no-border) echo "--no-border" ;;
    no-sacorder) echo "--no-sacorder" ;;
    no-parity) echo "--no-parity" ;;
    no-loony) echo "--no-loony" ;;
    no-chainmoves) echo "--no-chainmoves" ;;
    no-handouts) echo "--no-handouts" ;;
    no-junction) echo "--no-junction" ;;
    no-graph) echo "--no-graph" ;;
    graph0) echo "--graph 0" ;;
    etc) echo "--etc 0" ;;
    no-etc) echo "--no-etc" ;;
    no-etcfull) echo "--etc-full 0" ;;
    no-rotate) echo "--no-rotate" ;;
    rotate) echo "--rotate" ;;
    no-abdada) echo "--no-abdada" ;;
    plain) echo "--plain" ;;
    always) echo "--policy always" ;;
    direct) echo "--policy direct" ;;
    *) echo "bench/ab.sh: unknown variant $1" >&2; exit 2 ;;
  esac
}
printf '# %s, %s, hash %s MiB, %s thread(s)\n' "$(date -u +%FT%TZ)" "$(uname -n)" "$HASH" "$THREADS"
printf '%-6s %-12s %6s %14s %9s %9s %9s\n' board variant value nodes seconds wall rss_MiB
for b in "${boards[@]}"; do
  for v in $VARIANTS; do
    for ((r = 0; r < REPEAT; r++)); do
      lim=()
      ((LIMIT > 0)) && lim=(--limit "$LIMIT")
      bin=build/bench/ab_bench
      [ "$v" = base ] && bin=${BASE:?BASE=path/to/ab_bench needed for variant base}
      out=$( { /usr/bin/time -f 'RSS %M WALL %e' nice -n 5 "$bin" "$b" $(flags "$v") \
               --hash "$HASH" --threads "$THREADS" "${lim[@]}"; } 2>&1 )
      val=$(sed -nE 's/.* value ([-+0-9]+) .*/\1/p' <<<"$out" | tail -1)
      nodes=$(sed -nE 's/.* nodes ([0-9]+) .*/\1/p' <<<"$out" | tail -1)
      secs=$(sed -nE 's/.* seconds ([0-9.]+) .*/\1/p' <<<"$out" | tail -1)
      rss=$(sed -nE 's/^RSS ([0-9]+).*/\1/p' <<<"$out")
      wall=$(sed -nE 's/^RSS [0-9]+ WALL ([0-9.]+)/\1/p' <<<"$out")
      grep -q '^stopped' <<<"$out" && val="stopped"
      printf '%-6s %-12s %6s %14s %9s %9s %9s\n' "$b" "$v" "$val" "$nodes" "$secs" "$wall" "$((rss / 1024))"
    done
  done
done
