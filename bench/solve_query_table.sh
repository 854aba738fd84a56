#!/usr/bin/env bash
# bench/solve_query_table.sh: a quick 4x4 query (8 lines drawn, every
# move's value, no store) with the table the old board-sized default gave
# (2 GiB), the query-sized default (dab_oracle_search_hash: 128 MiB at 32
# free lines) and --hash 256M.  Prints wall, CPU (user + sys: the kernel
# zeroing a big table shows as sys), peak RSS and nodes for each.
# Usage: bench/solve_query_table.sh [RUNS] [POS]
cd "$(dirname "$0")/.." || exit 1
DAB=${DAB_BIN:-bin/dab}
RUNS=${1:-2}
POS=${2:-4x4@0,4,8,12,16,20,24,28}
T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT
for r in $(seq "$RUNS"); do
  for h in "--hash 2G" "" "--hash 256M"; do
    /usr/bin/time -f "%e %U %S %M" -o "$T/time" "$DAB" solve "$POS" --no-store --tb "$T" $h --json >"$T/out" 2>/dev/null
    read -r wall user sys rss <"$T/time"
    nodes=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"])' "$T/out")
    printf '%-12s run %d: wall %6.2f s  cpu %6.2f s (sys %5.2f)  peak RSS %5.0f MB  nodes %s\n' \
      "${h:-default}" "$r" "$wall" "$(echo "$user + $sys" | bc)" "$sys" "$(echo "$rss / 1024" | bc)" "$nodes"
  done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
