#!/usr/bin/env bash
# bench/tb_checksums.sh: a complete table's layers against the checksums
# recorded in docs/tablebase-checksums.md, so any rebuild can be compared.
# Usage: bench/tb_checksums.sh FILE.dab          compare (exit 1 on a difference)
#        bench/tb_checksums.sh --print FILE.dab  print the table's markdown rows
set -euo pipefail
cd "$(dirname "$0")/.."
DAB=${DAB:-bin/dab}
print=0
[ "${1:-}" = "--print" ] && { print=1; shift; }
[ $# -eq 1 ] || { echo "usage: bench/tb_checksums.sh [--print] FILE.dab" >&2; exit 2; }
rows() {  # the file's layers as "| RxC | layer | entries | canonical | xxh3_128 |"
  "$DAB" info "$1" --layers | awk '
    $1 == "rows" { r = $2 } $1 == "cols" { c = $2 }
    $1 ~ /^layer\.[0-9]+\.entries$/   { split($1, p, "."); e[p[2]] = $2 }
    $1 ~ /^layer\.[0-9]+\.canonical$/ { split($1, p, "."); k[p[2]] = $2 }
    $1 ~ /^layer\.[0-9]+\.xxh3_128$/  { split($1, p, "."); x[p[2]] = $2; n++ }
    END { for (i = 0; i < n; i++) { l = sprintf("%02d", i)
            printf "| %sx%s | %d | %d | %d | %s |\n", r, c, i, e[l], k[l], x[l] } }'
}
got=$(rows "$1")
[ -n "$got" ] || { echo "tb_checksums: $1: no layer checksums (not a tablebase?)" >&2; exit 2; }
if ((print)); then echo "$got"; exit 0; fi
board=$(head -n 1 <<<"$got" | cut -d'|' -f2 | tr -d ' ')
want=$(grep -E "^\| $board \|" docs/tablebase-checksums.md || true)
[ -n "$want" ] || { echo "tb_checksums: no checksums recorded for $board" >&2; exit 1; }
if diff <(echo "$want") <(echo "$got") >/dev/null; then
  echo "$1: all $(wc -l <<<"$got") layers of $board equal the recorded checksums"
else
  echo "$1: layers differ from docs/tablebase-checksums.md:" >&2
  diff <(echo "$want") <(echo "$got") | grep '^[<>]' >&2
  exit 1
fi
