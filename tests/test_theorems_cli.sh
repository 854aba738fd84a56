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
run theorems check --level 7
check "bad level exits 2" test "$rc" = 2
finish test_theorems_cli.sh
