#!/usr/bin/env bash
# bench/pdb_cross.sh: every move's value with and without the pattern
# database must agree: random middle games (uniform random line sets) of
# 4x4, 3x5, 4x5 and 5x5 with F free lines, each analysed by the search
# (build/bench/ab_bench --analyze, one thread) both ways.
#   COUNT=25 FREE="22 24" PDB=FILE bench/pdb_cross.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
COUNT=${COUNT:-25} FREE=${FREE:-"22 24"}
make -s -j2 "$BUILD/bench/ab_bench" bin/dab >/dev/null
tmp=$(mktemp -d /tmp/dab-pdbcross-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
PDB=${PDB:-$tmp/components.dabpdb}
[ -s "$PDB" ] || bin/dab pdb build --max-strings 12 -o "$PDB" >/dev/null
echo "# pdb_cross $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), COUNT=$COUNT per board and F"
moves=0 positions=0 differ=0 used=0
for board in 4x4 3x5 4x5 5x5; do
  for f in $FREE; do
    /usr/bin/python3 - "$board" "$f" "$COUNT" >"$tmp/pos" <<'PY'
import random, sys
b, f, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r, c = map(int, b.split("x"))
lines = r * (c + 1) + (r + 1) * c
rng = random.Random(f * 1000 + lines)
for _ in range(n):
    drawn = sorted(rng.sample(range(lines), lines - f))
    print("%s@%s" % (b, ",".join(map(str, drawn))))
PY
    t0=$(date +%s.%N)
    while read -r pos; do
      a=$("$BUILD/bench/ab_bench" "$pos" --analyze --threads 1 --hash 256 2>/dev/null | grep '^moves' || true)
      out=$("$BUILD/bench/ab_bench" "$pos" --analyze --threads 1 --hash 256 --pdb "$PDB" 2>/dev/null)
      b=$(grep '^moves' <<<"$out" || true)
      grep -qE '^pdb_leaves [1-9]' <<<"$out" && used=$((used + 1))
      positions=$((positions + 1))
      moves=$((moves + $(wc -w <<<"$a") - 1))
      if [ "$a" != "$b" ]; then differ=$((differ + 1)); echo "DIFFER: $pos" >&2; fi
    done <"$tmp/pos"
    printf "%s F=%d: %d positions, %.1f s\n" "$board" "$f" "$COUNT" "$(echo "$(date +%s.%N) - $t0" | bc)"
  done
done
echo "$positions positions ($used used the database), $moves move values compared, $differ differ"
[ "$differ" = 0 ]
