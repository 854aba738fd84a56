#!/usr/bin/env bash
# test_theorems_cli.sh: `dab theorems value|explain|check` as a user meets
# them: the spec's regression values, JSON keys, exit codes, errors.
set -u
source "$(dirname "$0")/clitest.sh"

# The regression table of the spec (G, c or -, v).
while read -r g c v; do
  run theorems value "$g" --json
  check "value $g exits 0" test "$rc" = 0
  check "v($g) = $v" test "$(json_get "$out" 'd["v"]')" = "$v"
  [ "$c" != - ] && check "c($g) = $c" test "$(json_get "$out" 'd["c"]')" = "$c"
done <<'TABLE'
3 3 3
3+3 2 2
3+3+3+3 0 2
4+5+6 7 7
L4+L4 0 0
L4+L4+L4 -4 4
3+L4 1 1
3+3+L4 0 2
3+3+3+L4 -1 1
3+L6+L6 1 3
5+L4+L4 -3 3
1 - 1
2 - 2
1+1 - 0
1+2 - -1
1+3 - -2
1+2+3 - 2
2+2+L4 - 4
1+1+3+3 - 2
1+L4 - -3
2+L4 - -2
3+3+3+3+8+L4 - 0
TABLE

run theorems value 3+3+L4 --json --exact
check "value json keys" test "$(json_get "$out" 'all(k in d for k in ["v","c","fcv","tb","open","reply"])')" = True
check "3+3+L4 opens the 4-loop (Allcock rule 2)" test "$(json_get "$out" 'd["open"], d["allcock_rule"]')" = "('L4', 2)"
check "theory-free game value agrees" test "$(json_get "$out" 'd["game_v"]')" = 2
run theorems value "3+L2"
check "a 2-loop is refused with exit 2" test "$rc" = 2
check "the error names the column" grep -q "column 3" <<<"$err"
run theorems value "3+x"
check "garbage is refused with exit 2" test "$rc" = 2
run theorems frobnicate
check "unknown action exits 2" test "$rc" = 2

# explain: a 1x3 board with both long sides drawn is one 3-chain.
run theorems explain "1x3@0,1,2,3,4,5" --json
check "explain exits 0" test "$rc" = 0
check "explain finds the 3-chain" test "$(json_get "$out" 'd["G"], d["v"], d["value"], d["agrees"]')" = "('3', 3, -3, True)"
run theorems explain 2x2
check "explain of a non-SLE exits 0" test "$rc" = 0
check "explain says not an SLE" grep -q "not a simple loony endgame" <<<"$out"

# check: a small run exits 0 with the issue's JSON form; a bad level is 2.
run theorems check --level 0 --max-boxes 16 --json
check "check level 0 exits 0" test "$rc" = 0
check "check json form" test "$(json_get "$out" 'all(set(["id","level","max_size","cases","counterexamples","expected"]) <= set(c) for c in d["claims"]) and d["ok"]')" = True
check "controls fail as expected" test "$(json_get "$out" 'all(c["counterexamples"] > 0 for c in d["claims"] if c["expected"] == "fail")')" = True
check "a complete run says it was not interrupted" test "$(json_get "$out" 'd["interrupted"]')" = False
run theorems check --level 7
check "bad level exits 2" test "$rc" = 2

# check prints each claim's row as it is settled, flushed, so a pipe sees
# results while later levels run; Ctrl-C prints a summary of what was
# settled and exits 1.  Level 1 at 28 boxes (about 6 s alone) keeps the run
# going well past level 0 (about 0.1 s) on any machine.
wait_for() {  # file regex: true once a line matches, within 10 s
  local _
  for _ in $(seq 100); do
    grep -Eq "$2" "$1" && return 0
    sleep 0.1
  done
  return 1
}
alive() { kill -0 "$1" 2>/dev/null; }
stop() {  # pid: SIGINT, then its exit status in $rc
  kill -INT "$1" 2>/dev/null
  wait "$1"; rc=$?
}
"$DAB" theorems check --max-boxes1 28 >"$T/live.out" 2>"$T/live.err" &
pid=$!
wait_for "$T/live.out" '^BC +0 '; seen=$?
alive $pid; running=$?
check "piped: the first claim's row is out within 10 s" test "$seen" = 0
check "piped: ... while the run is still going" test "$running" = 0
stop $pid

"$DAB" theorems check --max-boxes1 28 >"$T/int.out" 2>"$T/int.err" &
pid=$!
wait_for "$T/int.out" '^LIB +0 '  # level 0 settled
sleep 0.3
alive $pid; running=$?
stop $pid
check "SIGINT: the run was still going when stopped" test "$running" = 0
check "SIGINT exits 1 (interrupted)" test "$rc" = 1
summary='^interrupted in level [0-5] after [0-9.]+ s: ([0-9]+) claims? settled above'
check "SIGINT prints the summary as the last line" grep -Eq "$summary" <(tail -n 1 "$T/int.out")
said=$(sed -nE "s/$summary.*/\1/p" "$T/int.out")
rows=$(grep -cE '^[A-Z0-9-]+ +[0-5] ' "$T/int.out")
check "the summary counts the rows printed ($said, $rows)" test "${said:-x}" = "$rows"
check "the rows of level 0 are all there" test "$rows" -ge 21
# Level 0's rows, from the table header to LIB, match a run of level 0
# alone but for the time column.
untimed() { sed -E 's/ +[0-9]+\.[0-9]{2}s  / T  /' "$1" | sed -n '1,/^LIB /p'; }
"$DAB" theorems check >"$T/l0.out" --level 0 2>/dev/null
check "the rows before the summary are intact" cmp -s <(untimed "$T/int.out") <(untimed "$T/l0.out")
check "SIGINT: no error line" test ! -s "$T/int.err"

"$DAB" theorems check --max-boxes1 28 --json >"$T/int.json" 2>/dev/null &
pid=$!
wait_for "$T/int.json" '"id":"LIB"'
stop $pid
check "SIGINT --json exits 1" test "$rc" = 1
js=$(cat "$T/int.json")
check "SIGINT --json: one object, interrupted, not ok" \
  test "$(json_get "$js" 'd["interrupted"], d["ok"], d["stopped_level"] >= 0, len(d["claims"]) >= 21')" = \
  "(True, False, True, True)"
finish test_theorems_cli.sh
