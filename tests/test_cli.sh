#!/usr/bin/env bash
# test_cli.sh: the dab command as a user meets it: outputs, exit codes,
# one-line errors, --help everywhere.
set -u
source "$(dirname "$0")/clitest.sh"

run solve 3x3 --json
check "solve 3x3 exits 0" test "$rc" = 0
check "3x3 value -3" test "$(json_get "$out" 'd["value"]')" = -3
check "3x3 has 24 moves all -3" test "$(json_get "$out" 'sorted(set(m["value"] for m in d["moves"])) == [-3] and len(d["moves"]) == 24')" = True
check "3x3 json has the stable keys" test "$(json_get "$out" '{"rows","cols","value","moves","best"} <= set(d)')" = True

run solve 2x2@0,6,2
check "solve a move-list position" test "$rc" = 0
run solve 2x2:000000000000 --json
check "DBN form agrees with the empty form" test "$(json_get "$out" 'd["best"]')" = "[0, 1, 4, 5, 6, 8, 9, 11]"

# Every bad input: exit 2, exactly one line on stderr naming the problem.
for bad in "3x3:0101" "3y3" "2x2@1,1" "2x2@99" "0x2" "2x2#" ""; do
  run solve "$bad"
  check "solve '$bad' exits 2" test "$rc" = 2
  check "solve '$bad' prints one line" test "$(printf '%s\n' "$err" | wc -l)" = 1
  check "solve '$bad' prints nothing on stdout" test -z "$out"
done
run solve 3x3:0101
check "DBN length error names the expected length" grep -q "needs 24" <<<"$err"
run solve 3x3 --bogus
check "unknown option exits 2" test "$rc" = 2
run solve 3x3 --threads 0
check "bad --threads exits 2" test "$rc" = 2
run frobnicate
check "unknown command exits 2" test "$rc" = 2
run
check "no command exits 2" test "$rc" = 2
run --help
check "dab --help exits 0 and lists solve" test "$rc" = 0 -a -n "$(grep -w solve <<<"$out")"
for cmd in $("$DAB" --help | awk '/^commands:/{on=1;next} on && NF {print $1}'); do
  run "$cmd" --help
  check "dab $cmd --help" test "$rc" = 0 -a -n "$(grep -i usage <<<"$out")"
done

run show 2x2@0,6,2,7
check "show draws the box owner" grep -q "| B |" <<<"$out"
run show 1x1 --ids
check "show --ids labels lines" grep -q " 0 " <<<"$out"
run show 5x5 --json
check "show --json parses" test "$(json_get "$out" 'd["rows"]*100+d["cols"]')" = 505

run retro 2x3 --json
check "retro 2x3 value -2" test "$(json_get "$out" 'd["value"]')" = -2
run retro 4x4
check "retro 4x4 refused with exit 2 (too many lines)" test "$rc" = 2
run demo
check "demo ends with the final score" grep -q "final score A 3, B 6" <<<"$out"

finish test_cli
