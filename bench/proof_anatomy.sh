#!/usr/bin/env bash
# bench/proof_anatomy.sh: where a divisible proof's CPU goes, against one
# search of the same board (docs/proofs.md, "Where the proof's CPU goes").
#   BOARD=3x5 DEPTH=4 HASH=1024 bench/proof_anatomy.sh
# Runs, each on one thread from a cold process, with HASH MiB of table:
#   search      the root's value by one search (the root driver's tests)
#   tests       the two null-window tests a proof of "= v" needs (>= v, >= v+2)
#   warm        the proof at DEPTH in one process (the table kept leaf to leaf)
#   direct      the same with --direct (each node two plies above the leaves
#               first tried as one search)
#   cold        every leaf the warm run recorded, each in a fresh process
#   warm/4, warm*4   the warm proof with a quarter and four times the table
# and prints CPU seconds, nodes, leaves and the ratio to "tests", then wall
# time and peak RSS of the whole script.  NICE (default 10) sets the priority.
set -euo pipefail
cd "$(dirname "$0")/.."
BOARD=${BOARD:-3x5} DEPTH=${DEPTH:-4} HASH=${HASH:-1024} NICE=${NICE:-10}
COLD_MAX=${COLD_MAX:-100000}     # re-solve at most this many leaves cold
./build.sh >/dev/null
AB=build/bench/ab_bench DAB=bin/dab
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
start=$(date +%s.%N)
run() { /usr/bin/time -f %M -a -o "$T/rss" nice -n "$NICE" "$@"; }
field() { sed -nE "s/.* $1 ([-+0-9.]+).*/\\1/p" | tail -n 1; }

# One search of the root, then the two tests that prove its value.
run $AB "$BOARD" --threads 1 --hash "$HASH" > "$T/search" 2>/dev/null
value=$(field value < "$T/search")
s_sec=$(field seconds < "$T/search") s_nodes=$(field nodes < "$T/search")
t_sec=0 t_nodes=0
for b in "$value" "$((value + 2))"; do
  run $AB "$BOARD" --threads 1 --hash "$HASH" --test "$b" > "$T/test" 2>/dev/null
  t_sec=$(echo "$t_sec + $(field seconds < "$T/test")" | bc -l)
  t_nodes=$((t_nodes + $(field nodes < "$T/test")))
done

# A proof at DEPTH: CPU seconds and nodes summed over its records.
proof() {  # NAME HASH_MIB [options]
  local name=$1 hash=$2; shift 2
  rm -rf "$T/$name"
  run $DAB solve "$BOARD" --proof "$T/$name" --claim "=$value" --depth "$DEPTH" --threads 1 \
    --hash "${hash}M" --no-store --json "$@" > "$T/$name.json" 2>/dev/null
  grep -q '"state":"proved"' "$T/$name.json" || { echo "proof_anatomy: $name did not prove =$value" >&2; exit 1; }
}
sum_records() {  # DIR: "cpu_seconds nodes records"
  grep -hv '^#' "$1"/rec-*.txt | awk '{
    for (i = 5; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    cpu += f["seconds"] * f["threads"]; nodes += f["nodes"]; n++ }
    END { printf "%.3f %d %d\n", cpu, nodes, n }'
}
proof warm "$HASH"
proof direct "$HASH" --direct 100000
proof small $((HASH / 4))
proof large $((HASH * 4))

# Cold: each leaf of the warm proof from a fresh process and table.
c_sec=0 c_nodes=0 c_n=0
while read -r pos claim _; do
  [ "$c_n" -ge "$COLD_MAX" ] && break
  b=${claim#??}; b=$((b))
  case $claim in '<='*) b=$((b + 1)) ;; esac
  run $AB "$pos" --threads 1 --hash "$HASH" --test "$b" > "$T/cold" 2>/dev/null
  c_sec=$(echo "$c_sec + $(field seconds < "$T/cold")" | bc -l)
  c_nodes=$((c_nodes + $(field nodes < "$T/cold")))
  c_n=$((c_n + 1))
done < <(grep -hv '^#' "$T"/warm/rec-*.txt)

json() { sed -nE "s/.*\"$2\":([0-9]+).*/\\1/p" "$T/$1.json"; }
printf '%s = %s, proof depth %s, %s MiB table, one thread\n' "$BOARD" "$value" "$DEPTH" "$HASH"
printf '%-8s %10s %14s %8s %8s %8s %9s\n' run cpu_s nodes records used refuted "x tests"
row() { printf '%-8s %10.2f %14d %8s %8s %8s %9.2f\n' "$1" "$2" "$3" "$4" "$5" "$6" "$(echo "$2 / $t_sec" | bc -l)"; }
row search "$s_sec" "$s_nodes" - - - ; row tests "$t_sec" "$t_nodes" - - -
for r in warm direct small large; do
  read -r sec nodes n < <(sum_records "$T/$r")
  row "$r" "$sec" "$nodes" "$n" "$(json "$r" used)" "$(json "$r" refuted)"
done
row cold "$c_sec" "$c_nodes" "$c_n" - -
printf 'wall %.1f s, peak RSS %d MiB (the largest single run)\n' "$(echo "$(date +%s.%N) - $start" | bc -l)" \
  "$(( $(sort -n "$T/rss" | tail -n 1) / 1024 ))"
