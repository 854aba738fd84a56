#!/usr/bin/env bash
# bench/persist.sh: what the solved store costs and buys (docs/persistence.md).
#   1. store overhead: the same solve with --no-store and with a store
#      (alternating, fresh directories; the CLI reports its store time);
#   2. a repeated query answered from the store: lookup and process time;
#   3. resume: a solve stopped at half its nodes, then rerun;
#   4. file sizes.
# Usage: bench/persist.sh [POS] [RUNS]   (default a 3x5 mid-game, 3 runs)
# Wall time and peak RSS per run come from /usr/bin/time -v.
set -u
cd "$(dirname "$0")/.."
DAB=${DAB_BIN:-bin/dab}
PY=/usr/bin/python3
POS=${1:-3x5@8,37,4,18,9,19}
RUNS=${2:-3}
OPTS=(--threads 1 --hash 512M)
T=$(mktemp -d /tmp/dab-bench-persist-XXXXXX)
trap 'rm -rf "$T"' EXIT
board=${POS%%[@:]*}
echo "persist bench: $POS, ${OPTS[*]}, $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"

field() { $PY -c "import json,sys; d=json.loads(sys.argv[1]); print(d$2)" "$1"; }
timed() {  # args...: sets $out, $wall, $rss
  out=$(/usr/bin/time -v -o "$T/time" "$DAB" "$@" 2>"$T/err")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$T/time")
  rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$T/time")
}

echo "-- 1. store overhead (search seconds, store ms, wall)"
for i in $(seq "$RUNS"); do
  rm -rf "$T/n" "$T/s"; mkdir -p "$T/n" "$T/s"
  timed solve "$POS" --tb "$T/n" --no-store --json "${OPTS[@]}"
  echo "no-store  nodes $(field "$out" '["nodes"]')  search $(field "$out" '["seconds"]') s  wall $wall s  rss ${rss} KB"
  timed solve "$POS" --tb "$T/s" "${OPTS[@]}"
  echo "store     $(grep '^search:' <<<"$out")"
  echo "          $(grep '^stored:' <<<"$out")  wall $wall s"
done
echo "-- 2. repeated query (answered from $T/s/$board.dab)"
for i in $(seq 5); do
  t0=$(date +%s%N)
  out=$("$DAB" solve "$POS" --tb "$T/s" --json)
  t1=$(date +%s%N)
  echo "source $(field "$out" '["source"]')  lookup $(field "$out" '["seconds"]*1e3') ms  process wall $(( (t1 - t0) / 1000 )) us"
done
echo "-- 3. resume after a stop at half the nodes"
rm -rf "$T/r"; mkdir -p "$T/r"
timed solve "$POS" --tb "$T/n" --no-store --json "${OPTS[@]}"
full=$(field "$out" '["nodes"]')
half=$((full / 2))
timed solve "$POS" --tb "$T/r" --node-limit $half "${OPTS[@]}"
echo "stopped at $half of $full nodes: $(tail -n 1 "$T/err")  wall $wall s"
timed solve "$POS" --tb "$T/r" --json "${OPTS[@]}"
echo "rerun: nodes $(field "$out" '["nodes"]') (fresh $full), value $(field "$out" '["value"]'), wall $wall s"
echo "-- 4. files"
for d in s r; do
  echo "$d: $(stat -c %s "$T/$d/$board.dab") bytes, $("$DAB" info "$T/$d/$board.dab" --json | $PY -c 'import json,sys; print(json.load(sys.stdin)["solved"])') records"
done
