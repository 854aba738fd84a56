#!/usr/bin/env bash
# test_ab_cli.sh: `dab solve` on the search path: values against the
# oracle, JSON keys, the principal variation, stdin mode, bad input.
set -u
cd "$(dirname "$0")/.."
DAB=${DAB_BIN:-bin/dab}
PY=/usr/bin/python3
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {  # description, condition command...
  local d=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d" >&2; fi
}
run() { out=$("$DAB" "$@" 2>"$tmp/err"); rc=$?; err=$(cat "$tmp/err"); }
py() { $PY -c "$1" "${@:2}"; }

# Search and oracle agree on every move of a few 3x3 positions.
for pos in 3x3 3x3@4 3x3@4,17,0 3x3@0,1,2,3,12,13; do
  run solve "$pos" --json --search --hash 16M --threads 1
  s=$out
  run solve "$pos" --json
  o=$out
  check "$pos: search equals the oracle" py '
import json,sys
a=json.loads(sys.argv[1]); b=json.loads(sys.argv[2])
ok=a["value"]==b["value"] and a["moves"]==b["moves"] and a["best"]==b["best"]
sys.exit(0 if ok else 1)' "$s" "$o"
done

# The search answer carries a principal variation of optimal moves, and stats.
run solve 2x4 --json --search --hash 16M
check "2x4 search exits 0" test "$rc" = 0
check "2x4 value +2 with pv, nodes, seconds, tt" py '
import json,sys
d=json.loads(sys.argv[1])
ok=d["value"]==2 and d["source"]=="search" and len(d["pv"])==22 and d["nodes"]>0 \
   and "seconds" in d and d["tt"]["capacity"]>0 and d["pv"][0] in d["best"]
sys.exit(0 if ok else 1)' "$out"

# --hash takes any size: 3M is 49,152 buckets of 4 entries (a power-of-two
# rounding would give 2M, 32,768 buckets).
run solve 2x4 --json --search --hash 3M --no-store
check "--hash 3M: a 3 MiB table" py '
import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if d["tt"]["capacity"]==3*2**20//64*4 else 1)' "$out"

# Text output names pv and search statistics.
run solve 2x3 --search --hash 16M
check "text output has pv and nodes" grep -q "^pv " <<<"$out"
check "text output has search line" grep -q "^search: .* nodes" <<<"$out"

# --value-only
run solve 3x4@18 --search --value-only --json --hash 64M --no-store
check "3x4@18 value-only: 0 for the player after the tie move" py '
import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if d["value"]==0 and d["moves"]==[] else 1)' "$out"

# stdin: one JSON per line, a bad line answered in place, exit 2.
out=$(printf '2x2\nnonsense\n1x3@0\n' | "$DAB" solve - --search --hash 16M 2>"$tmp/err"); rc=$?
check "stdin: three lines out" test "$(wc -l <<<"$out")" = 3
check "stdin: bad line exits 2" test "$rc" = 2
check "stdin: bad line answered with error" py '
import json,sys
l=[json.loads(x) for x in sys.argv[1].splitlines()]
sys.exit(0 if l[0]["value"]==2 and l[1]["line"]==2 and "error" in l[1] and l[2]["rows"]==1 else 1)' "$out"
check "stdin: one-line error on stderr" test "$(wc -l <"$tmp/err")" = 1

# A successful run's notes look like notes ("note: ..."); "dab solve:" is
# kept for errors, so a script can tell them apart.
out=$("$DAB" solve 2x5 --search --no-store 2>"$tmp/note.err"); rc=$?
check "notes: 2x5 search exits 0" test "$rc" = 0
check "notes: the memory plan is a note" grep -q '^note: .*MiB of memory' "$tmp/note.err"
check "notes: no line of a successful run starts like an error" bash -c '! grep -q "^dab " "$1"' _ "$tmp/note.err"

# stdin, Ctrl-C during a search: that line gets the bounds object
# (exact:false, "value" once proved), not an error string; the batch ends.
mkfifo "$tmp/in"
"$DAB" solve - --search --hash 64M --no-store <"$tmp/in" >"$tmp/int.out" 2>"$tmp/int.err" &
spid=$!
exec 7>"$tmp/in"
printf '2x2\n4x4\n' >&7
for _ in $(seq 100); do [ -s "$tmp/int.out" ] && break; sleep 0.1; done
sleep 1.5
kill -INT "$spid"; printf '2x2\n' >&7; exec 7>&-
wait "$spid"; rc=$?
check "stdin, Ctrl-C: exit 1 (got $rc)" test "$rc" = 1
check "stdin, Ctrl-C: the stopped line is the bounds object, the batch ends" py '
import json,sys
l=[json.loads(x) for x in open(sys.argv[1]).read().splitlines()]
b=l[-1]
ok = len(l)==2 and l[0]["value"]==2 and "error" not in b and b["exact"] is False and b["lower"]<=b["upper"]
ok = ok and (("value" in b) == (b["lower"]==b["upper"])) and b["rows"]==4
sys.exit(0 if ok else 1)' "$tmp/int.out"

# Bad options: exit 2, one line.
for bad in "--hash 0" "--hash 12Q" "--threads 0"; do
  run solve 3x3 --search $bad
  check "solve $bad exits 2" test "$rc" = 2
  check "solve $bad one line" test "$(printf '%s\n' "$err" | wc -l)" = 1
done
run solve 3x3 --search --retro
check "--search --retro exits 2" test "$rc" = 2

# An empty board with a divisible proof in data/proofs/ (4x5) names it before
# a long search; other boards and other positions do not.  No tablebase
# path, so that a stored result cannot answer first.
note() {  # board: the stderr of a short `dab solve BOARD`
  DAB_TB_NO_PROJECT=1 DAB_TB_PATH="$tmp/none" "$DAB" solve "$1" --value-only --hash 64M \
    --node-limit 100000 2>&1 >/dev/null
}
check "4x5: points to its proof" grep -q "data/proofs/4x5 holds a divisible proof" <<<"$(note 4x5)"
check "4x5@0: no proof note" bash -c '! grep -q "divisible proof" <<<"$1"' _ "$(note 4x5@0)"
check "4x4: no proof note" bash -c '! grep -q "divisible proof" <<<"$1"' _ "$(note 4x4)"

echo "test_ab_cli: $pass passed, $fail failed"
((fail == 0))
