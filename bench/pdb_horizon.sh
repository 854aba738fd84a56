#!/usr/bin/env bash
# bench/pdb_horizon.sh: the 5x5 horizon with and without the pattern
# database: at each step, the share of chain self-play positions whose every
# move's value `dab solve --search` proves within LIMIT seconds on one thread.
# The horizon is the earliest step where that share reaches 95%.
#   K=5 LIMIT=60 STEPS="16 18 20 22 24" PDB=FILE bench/pdb_horizon.sh
set -euo pipefail
cd "$(dirname "$0")/.."
K=${K:-5} LIMIT=${LIMIT:-60} STEPS=${STEPS:-"16 18 20 22 24"}
BUILD=${BUILD:-build}
make -s -j2 "$BUILD/bench/pdb_profile" bin/dab >/dev/null
dir=$(mktemp -d /tmp/dab-horizon-XXXXXX)
trap 'rm -rf "$dir"' EXIT
if [ -n "${PDB:-}" ]; then cp "$PDB" "$dir/components.dabpdb"; else bin/dab pdb build --max-strings 12 -o "$dir/components.dabpdb"; fi
export DAB_TB_PATH=$dir XDG_CACHE_HOME=$dir/cache DAB_TB_NO_PROJECT=1
echo "# pdb_horizon $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), K=$K, LIMIT=$LIMIT s, $(bin/dab pdb info | sed -n 2p)"
printf "%5s %-30s %-30s\n" step "without: solved, median s" "with: solved, median s"
for step in $STEPS; do
  args=()
  for s in $step; do args+=(--chain 5x5 "$s" "$K" 7); done
  res=()
  for variant in --no-pdb --pdb; do
    times=()
    ok=0
    while read -r _ pos _; do
      t0=$(date +%s.%N)
      if timeout "$LIMIT" bin/dab solve "$pos" --search --no-store --threads 1 --json $variant >/dev/null 2>&1; then
        ok=$((ok + 1)); times+=("$(echo "$(date +%s.%N) - $t0" | bc)")
      else times+=("$LIMIT"); fi
    done < <("$BUILD/bench/pdb_profile" --list "${args[@]}")
    med=$(printf "%s\n" "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
    res+=("$ok/$K, $med")
  done
  printf "%5d %-30s %-30s\n" "$step" "${res[0]}" "${res[1]}"
done
