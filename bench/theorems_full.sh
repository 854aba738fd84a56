#!/usr/bin/env bash
# theorems_full.sh: the full endgame-theorem check, level by level, with
# wall time and peak RSS of each run, then the speed of dab_sle_value.
#   level 0: every SLE up to 46 boxes (also with 1-/2-chains)
#   level 1: every extended SLE up to 34 boxes against the string game
#   level 2: Nimstring on graphs up to 20 strings
#   level 3: every position of boards up to 3x4 (31 lines, 2 GiB table)
#   level 4: turn identity on optimal and random games
# Usage: bench/theorems_full.sh [OUTDIR]   (about 10 minutes on 2 cores)
set -uo pipefail
cd "$(dirname "$0")/.."
./build.sh >/dev/null || exit 1
out=${1:-/tmp/dab_theorems_full}
mkdir -p "$out"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(date -u +%Y-%m-%dT%H:%MZ)"
status=0
run() {  # name, check options...
  local name=$1; shift
  nice -n 5 /usr/bin/time -v bin/dab theorems check "$@" --json >"$out/$name.json" 2>"$out/$name.time"
  local rc=$?
  ((rc == 0)) || status=1
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$out/$name.time")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f MiB", $2/1024}' "$out/$name.time")
  echo
  echo "== $name: dab theorems check $*   (exit $rc, wall $wall, peak RSS $rss)"
  /usr/bin/python3 - "$out/$name.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["claims"]:
    print(f'{c["id"]:8} L{c["level"]} {c["part"][:46]:46} {c["domain"][:28]:28} {c["max_size"]:>4} {c["unit"]:7} '
          f'{c["cases"]:>10} {c["counterexamples"]:>7}  {c["verdict"]}')
for e in d.get("nonsle", []):
    print(f'nonsle {e["board"]} junctions {e["junctions"]}: {e["positions"]} positions, '
          f'{100.0*e["exact"]/max(1,e["positions"]):.1f}% exact, mean |err| {e["mean_abs_err"]:.3f}, max {e["max_abs_err"]}')
PY
}
run level0 --level 0 --max-boxes 46 --max-boxes-ext 46
run level1 --level 1 --max-boxes1 34 --max-boxes-l3 24
run level2 --level 2 --max-strings 20 --graphs 1000
run level3 --level 3 --max-lines 31 --constructed 400 --games 2000
run level4 --level 4 --max-lines 31 --games 2000
echo
echo "== dab_sle_value speed (ns per call, median of 5 runs)"
nice -n 5 build/bench/theorems_speed 200000
exit $status
