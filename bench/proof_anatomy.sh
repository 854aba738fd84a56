#!/usr/bin/env bash
# bench/proof_anatomy.sh: where a divisible proof's CPU goes, against one
# search of the same position (docs/proofs.md, "Where the proof's CPU goes").
#   BOARD=3x5 DEPTH=4 HASH=1024 bench/proof_anatomy.sh
#   BOARD=4x5:00...0 CLAIM='<=0' DEPTH=2 HASH=4096 RUNS="tests warm cold" bench/proof_anatomy.sh
# BOARD is an empty board (its value is found by search and proved, "= v")
# or a position with CLAIM (>=B or <=B).  RUNS picks from, each on one
# thread from a cold process, with HASH MiB of table:
#   search      the root's value by one search (the root driver's tests)
#   tests       the null-window tests the claim needs (">= v" and ">= v+2"
#               for "= v"; one for a one-sided claim): one direct search
#   warm        the proof at DEPTH in one process (the table kept leaf to leaf)
#   direct      the same with --direct (each node two plies above the leaves
#               first tried as one search)
#   cold        the leaves the warm run recorded, each in a fresh process
#               (every COLD_EVERY-th leaf; its row then compares with the
#               same leaves' warm records)
#   small, large   the warm proof with a quarter and four times the table
#   restart     the proof in runs of EVERY records (--records), each a fresh
#               process with a cold table, until proved
#   rewarm      the same with --warm: each run seeded from the last one's
#               checkpoint in a scratch solved store (its CPU includes
#               seeding and checkpoints; their cost is printed apart);
#               ENTRIES sets --warm-entries
# and prints CPU seconds, nodes, records and the ratio to "tests", then wall
# time and the largest run's peak RSS.  LIMIT (seconds, default none) stops
# a run; its row then says "stopped".  NICE (default 10) sets the priority.
set -euo pipefail
cd "$(dirname "$0")/.."
BOARD=${BOARD:-3x5} DEPTH=${DEPTH:-4} HASH=${HASH:-1024} NICE=${NICE:-10} CLAIM=${CLAIM:-}
RUNS=${RUNS:-search tests warm direct small large cold} COLD_EVERY=${COLD_EVERY:-1} LIMIT=${LIMIT:-0}
EVERY=${EVERY:-25}
./build.sh >/dev/null
AB=build/bench/ab_bench DAB=bin/dab
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
start=$(date +%s.%N)
run() { /usr/bin/time -f %M -a -o "$T/rss" timeout -s INT "${LIMIT}" nice -n "$NICE" "$@"; }
[ "$LIMIT" = 0 ] && run() { /usr/bin/time -f %M -a -o "$T/rss" nice -n "$NICE" "$@"; }
field() { sed -nE "s/.* $1 ([-+0-9.]+).*/\\1/p" | tail -n 1; }
want() { [[ " $RUNS " == *" $1 "* ]]; }
declare -A SEC NODES NREC USED REF STOPPED

# The claim and the tests that prove it directly.
if [ -z "$CLAIM" ]; then
  run $AB "$BOARD" --threads 1 --hash "$HASH" > "$T/search" 2>/dev/null
  value=$(field value < "$T/search")
  SEC[search]=$(field seconds < "$T/search") NODES[search]=$(field nodes < "$T/search")
  CLAIM="=$value" bounds="$value $((value + 2))"
else
  b=${CLAIM#??}; b=$((b))
  case $CLAIM in '>='*) bounds=$b ;; '<='*) bounds=$((b + 1)) ;; *) echo "CLAIM: >=B or <=B" >&2; exit 2 ;; esac
fi
if want tests; then
  SEC[tests]=0 NODES[tests]=0
  for b in $bounds; do
    if run $AB "$BOARD" --threads 1 --hash "$HASH" --test "$b" > "$T/test" 2>/dev/null; then
      SEC[tests]=$(echo "${SEC[tests]} + $(field seconds < "$T/test")" | bc -l)
      NODES[tests]=$((NODES[tests] + $(field nodes < "$T/test")))
    else
      STOPPED[tests]=1 SEC[tests]=$(echo "${SEC[tests]} + $LIMIT" | bc -l)
    fi
  done
fi

# A proof at DEPTH: CPU seconds and nodes summed over its records.
sum_records() {  # FILES...: "cpu_seconds nodes records"
  grep -hv '^#' "$@" | awk '{
    for (i = 5; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
    cpu += f["seconds"] * f["threads"]; nodes += f["nodes"]; n++ }
    END { printf "%.3f %d %d\n", cpu, nodes, n }'
}
json() { sed -nE "s/.*\"$2\":([0-9]+).*/\\1/p" "$T/$1.json"; }
proof() {  # NAME HASH_MIB [options]
  local name=$1 hash=$2; shift 2
  rm -rf "$T/$name"
  run $DAB solve "$BOARD" --proof "$T/$name" --claim "$CLAIM" --depth "$DEPTH" --threads 1 \
    --hash "${hash}M" --no-store --json "$@" > "$T/$name.json" 2>/dev/null || true
  grep -q '"state":"proved"' "$T/$name.json" || STOPPED[$name]=1
  read -r SEC[$name] NODES[$name] NREC[$name] < <(sum_records "$T/$name"/rec-*.txt)
  USED[$name]=$(json "$name" used) REF[$name]=$(json "$name" refuted)
}
want warm && proof warm "$HASH"
# Restarts: runs of EVERY records until the claim is decided; CPU is the
# processes' own (records, seeding and checkpoints), nodes the records'.
restarts() {  # NAME [options]
  local name=$1 n=0; shift
  rm -rf "$T/$name" "$T/$name.tb" "$T/$name.time"; mkdir -p "$T/$name.tb"
  while [ $n -lt 2000 ]; do
    n=$((n + 1))
    /usr/bin/time -f '%U %S %M' -a -o "$T/$name.time" nice -n "$NICE" $DAB solve "$BOARD" --proof "$T/$name" \
      --claim "$CLAIM" --depth "$DEPTH" --threads 1 --hash "${HASH}M" --no-store --records "$EVERY" --json "$@" \
      > "$T/$name.json" 2>/dev/null || true
    grep -q '"state":"\(proved\|refuted\)"' "$T/$name.json" && break
  done
  read -r rsec NODES[$name] NREC[$name] < <(sum_records "$T/$name"/rec-*.txt)
  SEC[$name]=$(awk '{ s += $1 + $2 } END { printf "%.3f", s }' "$T/$name.time")
  awk '{ print $3 }' "$T/$name.time" >> "$T/rss"
  USED[$name]=$(json "$name" used) REF[$name]=$(json "$name" refuted)
  printf '%s: %d runs; records %.2f CPU-s of the %.2f\n' "$name" "$n" "$rsec" "${SEC[$name]}" >&2
}
want restart && restarts restart
want rewarm && DAB_TB_PATH="$T/rewarm.tb" restarts rewarm --warm --tb "$T/rewarm.tb" ${ENTRIES:+--warm-entries "$ENTRIES"}
want direct && proof direct "$HASH" --direct 100000
want small && proof small $((HASH / 4))
want large && proof large $((HASH * 4))

# Cold: leaves of the warm proof, each from a fresh process and table.
if want cold && want warm; then
  SEC[cold]=0 NODES[cold]=0 NREC[cold]=0 i=0
  grep -hv '^#' "$T"/warm/rec-*.txt > "$T/leaves"
  : > "$T/sampled"
  while read -r pos claim line; do
    i=$((i + 1)); [ $(((i - 1) % COLD_EVERY)) = 0 ] || continue
    b=${claim#??}; b=$((b))
    case $claim in '<='*) b=$((b + 1)) ;; esac
    if run $AB "$pos" --threads 1 --hash "$HASH" --test "$b" > "$T/cold" 2>/dev/null; then
      SEC[cold]=$(echo "${SEC[cold]} + $(field seconds < "$T/cold")" | bc -l)
      NODES[cold]=$((NODES[cold] + $(field nodes < "$T/cold")))
    else
      STOPPED[cold]=1 SEC[cold]=$(echo "${SEC[cold]} + $LIMIT" | bc -l)
    fi
    NREC[cold]=$((NREC[cold] + 1))
    echo "$pos $claim $line" >> "$T/sampled"
  done < "$T/leaves"
  read -r warm_same _ _ < <(sum_records "$T/sampled")
fi

printf '%s %s, proof depth %s, %s MiB table, one thread\n' "$BOARD" "$CLAIM" "$DEPTH" "$HASH"
base=${SEC[tests]:-${SEC[search]:-1}}
printf '%-8s %10s %14s %8s %8s %8s %9s\n' run cpu_s nodes records used refuted "x tests"
for r in search tests warm direct small large cold restart rewarm; do
  [ -n "${SEC[$r]:-}" ] || continue
  printf '%-8s %10.2f %14d %8s %8s %8s %9.2f%s\n' "$r" "${SEC[$r]}" "${NODES[$r]}" "${NREC[$r]:--}" \
    "${USED[$r]:--}" "${REF[$r]:--}" "$(echo "${SEC[$r]} / $base" | bc -l)" "${STOPPED[$r]:+  (stopped: a floor)}"
done
if [ -n "${warm_same:-}" ]; then
  printf 'cold leaves: %.2f CPU-s against %.2f for the same %d leaves warm (%.2fx)\n' "${SEC[cold]}" "$warm_same" \
    "${NREC[cold]}" "$(echo "${SEC[cold]} / ($warm_same + 0.001)" | bc -l)"
fi
printf 'wall %.1f s, peak RSS %d MiB (the largest single run)\n' "$(echo "$(date +%s.%N) - $start" | bc -l)" \
  "$(( $(sort -n "$T/rss" | tail -n 1) / 1024 ))"
