#!/usr/bin/env bash
# bench/solve_json.sh: the issue's end-to-end commands, `dab solve RxC
# --json` (value and every move's value by search, nothing stored), timed
# whole: value, whether every first move has one value, nodes, seconds of
# search, wall time and peak RSS per run.
# Usage: bench/solve_json.sh [BOARD...]        default: 4x4 3x5
#   REPEAT=N (default 1)  THREADS=N (default: dab's, all cores)
#   HASH=SIZE (default: dab's, by board)  BASE=PATH adds the same runs with
#   another dab binary (an older build) as the same-run baseline
set -uo pipefail
cd "$(dirname "$0")/.."
./build.sh >/dev/null || { echo "bench/solve_json.sh: build failed" >&2; exit 1; }
boards=("$@")
((${#boards[@]})) || boards=(4x4 3x5)
REPEAT=${REPEAT:-1}
opts=(--json --no-store)
[ -n "${THREADS:-}" ] && opts+=(--threads "$THREADS")
[ -n "${HASH:-}" ] && opts+=(--hash "$HASH")
bins=("dab=bin/dab")
[ -n "${BASE:-}" ] && bins+=("base=$BASE")
# one result line from dab's JSON (file, board, binary name, wall, RSS KiB)
report='
import json, sys
path, board, name, wall, rss = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
d = json.load(open(path))
vals = sorted({m["value"] for m in d["moves"]})
moves = "all %+d" % vals[0] if len(vals) == 1 else "mixed"
print("%-6s %-5s %+6d %-10s %12d %9.2f %9.2f %9.0f" % (board, name, d["value"], moves, d.get("nodes", 0),
      d.get("seconds", 0.0), wall, rss / 1024))
'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '# %s, %s, options: %s\n' "$(date -u +%FT%TZ)" "$(uname -n)" "${opts[*]}"
printf '%-6s %-5s %6s %-10s %12s %9s %9s %9s\n' board bin value moves nodes seconds wall rss_MiB
for b in "${boards[@]}"; do
  for ((r = 0; r < REPEAT; r++)); do
    for nb in "${bins[@]}"; do
      name=${nb%%=*} bin=${nb#*=}
      DAB_TB_NO_PROJECT=1 DAB_TB_PATH="$tmp" /usr/bin/time -f '%e %M' -o "$tmp/time" \
        "$bin" solve "$b" "${opts[@]}" >"$tmp/out" 2>"$tmp/err"
      rc=$?
      read -r wall rss <"$tmp/time"
      if [ $rc -ne 0 ]; then
        printf '%-6s %-5s failed (exit %d): %s\n' "$b" "$name" "$rc" "$(tail -n 1 "$tmp/err")"
        continue
      fi
      /usr/bin/python3 -c "$report" "$tmp/out" "$b" "$name" "$wall" "$rss"
    done
  done
done
