#!/usr/bin/env bash
# bench/tb_size.sh: tablebase size and build time against zstd level, block
# size and don't-care fill, on one board (default 3x4).
# Usage: bench/tb_size.sh [BOARD] [CONFIGS...]   CONFIG = level:block_entries[:true]
# Prints one row per config: file bytes, blocks, encode and total build time.
set -euo pipefail
cd "$(dirname "$0")/.."
BOARD=${1:-3x4}; shift || true
CONFIGS=("$@")
((${#CONFIGS[@]})) || CONFIGS=(3:1048576 9:1048576 15:1048576 19:1048576 19:65536 19:262144 19:4194304 19:1048576:true)
DAB=bin/dab
[ -x $DAB ] || ./build.sh >/dev/null
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "# $BOARD  machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); date: $(date -u +%F)"
printf '%-8s %-10s %-6s %12s %7s %9s %9s %9s\n' level block fill bytes blocks retro_s encode_s total_s
for c in "${CONFIGS[@]}"; do
  IFS=: read -r level block fill <<<"$c"
  extra=(); [ "${fill:-}" = true ] && extra=(--fill-true)
  out=$($DAB build "$BOARD" -o "$dir/t.dab" --level "$level" --block-entries "$block" "${extra[@]}")
  bytes=$(stat -c %s "$dir/t.dab")
  blocks=$(sed -nE 's/.* ([0-9]+) blocks.*/\1/p' <<<"$out")
  read -r r e t < <(sed -nE 's/time: retrograde ([0-9.]+) s, encode ([0-9.]+) s, write [0-9.]+ s, total ([0-9.]+) s/\1 \2 \3/p' <<<"$out")
  printf '%-8s %-10s %-6s %12s %7s %9s %9s %9s\n' "$level" "$block" "${fill:-prev}" "$bytes" "$blocks" "$r" "$e" "$t"
done
