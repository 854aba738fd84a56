#!/usr/bin/env bash
# bench/pdb.sh: the pattern database's effect on the search (docs/pdb.md),
# each position searched with and without it in the same run, one thread:
# nodes (board + database search), wall time, peak RSS.
#   - 4x5 chain self-play positions at steps 9, 10, 11 (K games each);
#   - 5x5 chain self-play positions at steps 18, 20, 22 (K games each);
#   each searched as one null-window test (value >= 0), cold;
#   - FULL=1: also the empty 4x4 and 3x5 (value only, ~2 and ~4 min each).
# Usage: bench/pdb.sh [K]    (K = 3 games per step by default)
#   PDB=FILE     the database (default: build one of N strings in $OUT)
#   N=12         its size when built here
#   HASH=1024    the search table, MiB
#   BUILD=DIR    build tree (default build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/bench-out}
K=${1:-3}
N=${N:-12}
HASH=${HASH:-1024}
make -s -j2 BUILD="$BUILD" "$BUILD/bench/ab_bench" "$BUILD/bench/pdb_profile" bin/dab >/dev/null
mkdir -p "$OUT"
PDB=${PDB:-$OUT/components-$N.dabpdb}
echo "# pdb.sh $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo ?)," \
     "$(nproc) cores:$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
if [ ! -s "$PDB" ]; then
  /usr/bin/time -f "build: %e s wall, %M KiB peak RSS" bin/dab pdb build --max-strings "$N" -o "$PDB"
fi
bin/dab pdb info "$PDB" | head -2

# one run: prints "nodes pdb_nodes seconds rss_kib holds" (nodes include the
# database search's; holds: 1 when value >= bound was proved)
one() {
  local pos=$1 bound=$2; shift 2
  local log
  log=$(/usr/bin/time -f "rss %M" "$BUILD/bench/ab_bench" "$pos" --threads 1 --hash "$HASH" --test "$bound" "$@" 2>&1)
  local nodes secs pn rss
  nodes=$(sed -nE 's/.* nodes ([0-9]+) .*/\1/p' <<<"$log" | tail -1)
  secs=$(sed -nE 's/.* seconds ([0-9.]+) .*/\1/p' <<<"$log" | tail -1)
  pn=$(sed -nE 's/^pdb_leaves [0-9]+ pdb_nodes ([0-9]+)/\1/p' <<<"$log")
  rss=$(sed -nE 's/^rss ([0-9]+)/\1/p' <<<"$log")
  holds=$(grep -c ': holds' <<<"$log" || true)
  echo "$nodes ${pn:-0} $secs $rss $holds"
}

row() { # label pos bound
  local a b
  a=$(one "$2" "$3")
  b=$(one "$2" "$3" --pdb "$PDB")
  awk -v l="$1" -v p="$2" -v a="$a" -v b="$b" 'BEGIN {
    split(a, x, " "); split(b, y, " ");
    if (x[5] != y[5]) { printf "VALUES DIFFER on %s: without %s, with %s\n", p, x[5], y[5]; exit 1 }
    printf "%-8s %-12s %12d %8.2f %7.0f | %12d %10d %8.2f %7.0f | %6.2f %6.2f\n", l, substr(p, 5, 12), x[1], x[3],
      x[4] / 1024, y[1], y[2], y[3], y[4] / 1024, x[1] / y[1], x[3] / y[3] }'
}

header() {
  printf "\n%-8s %-12s %12s %8s %7s | %12s %10s %8s %7s | %6s %6s\n" set position "nodes" "s" "MiB" "nodes" "pdb nodes" \
    "s" "MiB" "nodes" "time"
  printf "%-8s %-12s %30s | %41s | %13s\n" "" "" "without the database" "with it" "ratio (w/o / w)"
}

header
# chain self-play positions: 4x5 at steps 9-11 (1-50 s each cold), 5x5 at
# steps 18-22 (0.1-5 s); the 4x5 proof's own leaves take minutes to hours cold
"$BUILD/bench/pdb_profile" --list --chain 4x5 9 "$K" 7 --chain 4x5 10 "$K" 7 --chain 4x5 11 "$K" 7 \
  --chain 5x5 18 "$K" 7 --chain 5x5 20 "$K" 7 --chain 5x5 22 "$K" 7 |
  while read -r label pos bound; do row "$label" "$pos" "$bound"; done | tee "$OUT/pdb_rows.txt"

if [ "${FULL:-0}" = 1 ]; then
  for b in 4x4 3x5; do
    for arg in "" "--pdb $PDB"; do
      /usr/bin/time -f "$b ${arg:+with the database}: %e s wall, %M KiB peak RSS" "$BUILD/bench/ab_bench" "$b" --threads 1 \
        --hash 2048 $arg | tail -1
    done
  done
fi

echo
awk '{ set = $1; nr[set]++; a[set, nr[set]] = $(NF - 1); t[set, nr[set]] = $NF }
  END { for (s in nr) { n = nr[s];
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) {
        if (a[s, j] < a[s, i]) { x = a[s, i]; a[s, i] = a[s, j]; a[s, j] = x }
        if (t[s, j] < t[s, i]) { x = t[s, i]; t[s, i] = t[s, j]; t[s, j] = x } }
      printf "%-8s %2d positions: median ratio (without / with) nodes %.2f, time %.2f\n", s, n,
        (n % 2 ? a[s, (n + 1) / 2] : (a[s, n / 2] + a[s, n / 2 + 1]) / 2),
        (n % 2 ? t[s, (n + 1) / 2] : (t[s, n / 2] + t[s, n / 2 + 1]) / 2) } }' "$OUT/pdb_rows.txt" | sort
