#!/usr/bin/env bash
# .ci/layers.sh: the include-layering check behind `make layers`.
# Usage: .ci/layers.sh FOLDER...   (the library folders, lowest first: the
#        Makefile passes its LIBDIRS; cli/, tests/ and bench/ sit above all)
# Every #include "..." in a .c or .h file under those folders must name a
# path from the repository root ("game/board.h", never a bare "board.h"),
# and its first folder must be the including file's own folder or one
# before it in the order.  A library folder never includes cli/, tests/ or
# bench/; those three sit side by side above every library folder (a test
# may include a benchmark's header to check it).
# Prints each offending line as "file:line: #include ... (why)" and exits
# 1 if there is one, 0 (silently) otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
if (($# == 0)); then
  echo "usage: .ci/layers.sh FOLDER... (lowest first)" >&2
  exit 2
fi
top=(cli tests bench)
dirs=()
for d in "$@" "${top[@]}"; do
  [ -d "$d" ] && dirs+=("$d")
done
for d in "$@"; do
  [ -d "$d" ] || { echo "layers: folder '$d' in the order does not exist"; bad=1; }
done
# grep -n prints "file:line:text"; awk ranks the folders and checks each.
grep -rn --include='*.c' --include='*.h' -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' \
    "${dirs[@]}" |
  awk -v order="$*" -v top="${top[*]}" '
    BEGIN {
      n = split(order, o, " ")
      for (i = 1; i <= n; i++) rank[o[i]] = i
      m = split(top, t, " ")
      for (i = 1; i <= m; i++) { rank[t[i]] = n + 1; istop[t[i]] = 1 }
      bad = 0
    }
    {
      # file:line:text (file names under these folders hold no colon)
      p1 = index($0, ":"); file = substr($0, 1, p1 - 1)
      rest = substr($0, p1 + 1); p2 = index(rest, ":")
      line = substr(rest, 1, p2 - 1); text = substr(rest, p2 + 1)
      inc = text; sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
      split(file, fp, "/"); from = fp[1]
      why = ""
      if (index(inc, "/") == 0) {
        why = "bare include: write \"" from "/" inc "\" or the owning folder"
      } else {
        split(inc, ip, "/"); to = ip[1]
        if (!(to in rank)) why = "folder " to "/ is not in the layer order"
        else if (to == from) why = ""
        else if (istop[to] && !istop[from]) why = from "/ may not include " to "/ (a top folder)"
        else if (rank[to] > rank[from]) why = from "/ sits below " to "/ in the layer order"
      }
      if (why != "") { sub(/^[[:space:]]+/, "", text); print file ":" line ": " text "  (" why ")"; bad = 1 }
    }
    END { exit bad }
  '
rc=$?
exit $(( rc || ${bad:-0} ))
