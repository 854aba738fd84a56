#!/usr/bin/env bash
# bench/ab_cross.sh: cross-checks two builds of the search beyond the boards
# the retrograde tables cover: random positions of 4x4, 3x5, 2x7 and 4x5
# (uniform line subsets, sparse enough to be middle games) are solved with
# every move's value by bin/dab and by BASE (an older dab binary), and every
# value, move value and best-move list must agree.  Prints the positions,
# move values, disagreements, nodes and time of each build.
# Usage: BASE=PATH bench/ab_cross.sh [COUNT]     COUNT per board, default 50
#   SEED=N (default 13)  HASH=SIZE (default 1G)
set -uo pipefail
cd "$(dirname "$0")/.."
[ -n "${BASE:-}" ] || { echo "bench/ab_cross.sh: set BASE to the dab binary to compare with" >&2; exit 2; }
./build.sh >/dev/null || { echo "bench/ab_cross.sh: build failed" >&2; exit 1; }
COUNT=${1:-50} SEED=${SEED:-13} HASH=${HASH:-1G}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$COUNT" "$SEED" >"$tmp/positions" <<'EOF'
import random, sys
count, seed = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(seed)
# (rows, cols, fewest and most lines drawn): middle games, each a few seconds at most
for rows, cols, lo, hi in [(4, 4, 6, 12), (3, 5, 6, 12), (2, 7, 6, 10), (4, 5, 18, 24)]:
    n = 2 * rows * cols + rows + cols
    for _ in range(count):
        lines = rng.sample(range(n), rng.randint(lo, hi))
        print(f"{rows}x{cols}@" + ",".join(map(str, lines)))
EOF
echo "# $(date -u +%FT%TZ) $(uname -n): $(wc -l <"$tmp/positions") positions, seed $SEED, hash $HASH, one thread"
for nb in "new=bin/dab" "base=$BASE"; do
  name=${nb%%=*} bin=${nb#*=}
  /usr/bin/time -f "$name: %e s wall, %M KiB peak" -o "$tmp/time.$name" \
    "$bin" solve - --search --json --no-store --threads 1 --hash "$HASH" <"$tmp/positions" >"$tmp/$name.json" 2>/dev/null
  cat "$tmp/time.$name"
done
/usr/bin/python3 - "$tmp/new.json" "$tmp/base.json" <<'EOF'
import json, sys
new = [json.loads(l) for l in open(sys.argv[1])]
base = [json.loads(l) for l in open(sys.argv[2])]
keys = ("value", "moves", "best")
bad = [i for i, (x, y) in enumerate(zip(new, base)) if any(x.get(k) != y.get(k) for k in keys)]
bad += list(range(min(len(new), len(base)), max(len(new), len(base))))
moves = sum(len(x.get("moves", [])) for x in new)
print(f"{len(new)} positions, {moves} move values, {len(bad)} disagreements"
      + (f" (first: line {bad[0] + 1})" if bad else ""))
print("nodes: new %d, base %d" % (sum(x.get("nodes", 0) for x in new), sum(x.get("nodes", 0) for x in base)))
sys.exit(1 if bad else 0)
EOF
