#!/usr/bin/env bash
# test_pdb_cli.sh: `dab pdb` as a user meets it: build (plan, refusal),
# info, check, verify, probe (text and JSON, against dab solve), and bad
# input: one line, exit 2.
set -u
source "$(dirname "$0")/clitest.sh"
export DAB_TB_PATH="$T/path" XDG_CACHE_HOME="$T/cache" # not the user's own files
mkdir -p "$T/path"

run pdb build --plan --max-strings 12
check "plan exits 0" test "$rc" = 0
check "plan names the chosen size" grep -q "<- --max-strings" <<<"$out"
run pdb build --max-strings 99
check "--max-strings 99 exits 2" test "$rc" = 2
check "... with one line" test "$(wc -l <<<"$err")" = 1
run pdb build --max-strings 24
check "--max-strings 24 (too big for memory) exits 2" test "$rc" = 2
check "... saying how much it needs" grep -q "GiB" <<<"$err"

run pdb build --max-strings 9
check "build 9 exits 0" test "$rc" = 0
f="$T/path/components.dabpdb"
check "build writes beside the tablebases" test -s "$f"
check "no temporaries left" test "$(ls "$T/path" | grep -c tmp)" = 0
run pdb info --json
check "info: 2511 components" test "$(json_get "$out" 'd["components"]')" = 2511
run pdb check
check "check ok" grep -q ": ok" <<<"$out"
run pdb verify
check "verify ok" grep -q "re-derived" <<<"$out"
run check "$f"
check "dab check FILE.dabpdb checks it" grep -q "every checksum matches" <<<"$out"
run verify "$f"
check "dab verify FILE.dabpdb verifies it" grep -q "re-derived" <<<"$out"

# probe: a position whose components the database holds; its value equals solve's
pos="3x3@0,5,12,17,1,2,3,4,6,7,8"
run pdb probe "$pos" --json
check "probe covered" test "$(json_get "$out" 'd["covered"]')" = True
v=$(json_get "$out" 'd["value"]')
run solve "$pos" --json
check "probe value equals solve" test "$v" = "$(json_get "$out" 'd["value"]')"
run pdb probe 3x3
check "probe of the empty 3x3: not covered" grep -q "not in the database" <<<"$out"
run pdb probe 3x3@99
check "a position that is not one exits 2" test "$rc" = 2
check "... with one line" test "$(wc -l <<<"$err")" = 1
run pdb probe 6x6
check "a board past 64 lines exits 2" test "$rc" = 2

# damaged and foreign files: one line, exit 2
cp "$f" "$T/bad.dabpdb"
size=$(stat -c %s "$T/bad.dabpdb")
printf '\x55\x55\x55\x55' | dd of="$T/bad.dabpdb" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
run pdb check "$T/bad.dabpdb"
check "a damaged file exits 2" test "$rc" = 2
check "... with one line" test "$(wc -l <<<"$err")" = 1
echo "hello" > "$T/foreign.dabpdb"
run pdb info "$T/foreign.dabpdb"
check "a foreign file exits 2" test "$rc" = 2
run pdb verify "$T/nothing.dabpdb"
check "a missing file exits 2" test "$rc" = 2
run pdb frob
check "an unknown subcommand exits 2" test "$rc" = 2

# Ctrl-C: the components made so far are saved, each complete; a rerun reuses them
mkdir -p "$T/int"
"$DAB" pdb build --max-strings 12 --tb "$T/int" >/dev/null 2>"$T/int.err" &
pid=$!
sleep 4
kill -INT "$pid"
wait "$pid"
check "Ctrl-C exits 1" test "$?" = 1
check "... saying what it kept" grep -q "keeps" "$T/int.err"
run pdb verify --tb "$T/int"
check "the kept file verifies" test "$rc" = 0
run pdb build --max-strings 9 --tb "$T/int"
check "a rerun reuses it" grep -q "reusing" <<<"$err"

# solve --pdb uses the database found beside the tables, and agrees with --no-pdb
run solve "3x3@0,5,12,17" --search --pdb --json
a=$out
run solve "3x3@0,5,12,17" --search --no-pdb --json
check "solve with and without the database agree" test "$(json_get "$a" 'd["moves"]')" = "$(json_get "$out" 'd["moves"]')"
finish test_pdb_cli
