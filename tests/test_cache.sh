#!/usr/bin/env bash
# test_cache.sh: what dab keeps in the user's cache, and `dab cache`.
# Searches keep a file there only for real work (DAB_CACHE_MIN_SECONDS, a
# checkpoint period for a stopped search's table), never one of trivial
# bounds; small boards are solved in memory and write nothing; no lock file
# outlives its users; the search files stay within DAB_CACHE_MAX, least
# recently used out first, tables never; `dab cache` lists and clears.
# Every cache is a temp directory (XDG_CACHE_HOME); the boards (1x8, 1x9,
# 1x10, 2x6, 2x7, 4x4) are ones no other test stores.
source "$(dirname "${BASH_SOURCE[0]}")/clitest.sh"
unset DAB_TB_PATH DAB_TB_NO_PROJECT DAB_READONLY DAB_CACHE_MAX DAB_CACHE_MIN_SECONDS DAB_CHECKPOINT_SECONDS
export HOME="$T/home"
S=(--threads 1 --hash 16M)

# files DIR: the names in DIR, one line (empty when none or no DIR).
files() { LC_ALL=C ls -A "$1" 2>/dev/null | tr '\n' ' ' | sed 's/ $//'; }
locks() { ls -A "$1" 2>/dev/null | grep -c -- '-lock$'; }

# The issue's scenarios, at the defaults: nothing is left.
export XDG_CACHE_HOME="$T/c1"
run solve 4x4 --node-limit 100000 --json "${S[@]}"
check "4x4 --node-limit 100000 stops (exit 1)" test "$rc" = 1
check "... and leaves no file in the cache (trivial bounds)" test -z "$(files "$T/c1/dab")"
"$DAB" solve 2x7 "${S[@]}" >/dev/null 2>&1 &
pid=$!
sleep 2
kill -INT $pid 2>/dev/null
wait $pid
check "2x7 stopped by Ctrl-C after 2 s leaves no file (48 MB before)" test -z "$(files "$T/c1/dab")"
run solve 2x7 --node-limit 3000000 "${S[@]}"
check "2x7 stopped at 3 M nodes (over 1 s, bounds trivial) leaves no file" test -z "$(files "$T/c1/dab")"
for b in 1x1 1x5 2x2 2x3 1x6; do
  run solve $b --json
  check "solve $b exits 0" test "$rc" = 0
done
run solve 2x2@0,1 --wdl
check "a tiny board's positions are answered" test "$rc" = 0
check "tiny boards (<= 20 lines) are solved in memory: nothing written" test -z "$(files "$T/c1/dab")"
run solve 1x8 --json "${S[@]}"
check "1x8 (a search of ~0.1 s) is answered" test "$(json_get "$out" 'd["value"]')" = 0
check "... its JSON names no store" test "$(json_get "$out" 'd["store"]')" = None
check "... and the cache keeps nothing of it" test -z "$(files "$T/c1/dab")"
run solve 1x8 "${S[@]}"
check "the text says why nothing was kept" grep -q "stored: nothing (a search under 1 s" <<<"$out"
run solve 3x3 --json
check "3x3 (24 lines, 0.2 s in memory) gets its table, and no lock file" \
  test "$rc" = 0 -a "$(files "$T/c1/dab")" = "3x3.dab"
run check "$T/c1/dab/3x3.dab"
check "... a complete one" grep -q "every checksum matches" <<<"$out"

# Worth keeping: a finished search (DAB_CACHE_MIN_SECONDS=0 stands for a
# long one) is kept and answers the rerun; no lock file stays.
export XDG_CACHE_HOME="$T/c2" DAB_CACHE_MIN_SECONDS=0
run solve 1x8 --json "${S[@]}"
check "min 0 s: 1x8 is kept in the cache" test "$(json_get "$out" 'd["store"]')" = "$T/c2/dab/1x8.dab"
check "... with no lock file left" test "$(files "$T/c2/dab")" = "1x8.dab"
run solve 1x8 --json "${S[@]}"
check "the rerun is answered from it" test "$(json_get "$out" 'd["source"]')" = stored
check "... and leaves no lock file" test "$(locks "$T/c2/dab")" = 0
DAB_CACHE_MIN_SECONDS=1000 "$DAB" solve 1x9 "${S[@]}" >/dev/null 2>&1
check "min 1000 s: 1x9 is not kept" test ! -e "$T/c2/dab/1x9.dab"
DAB_CACHE_MIN_SECONDS=1000 "$DAB" solve 1x8@0 --json "${S[@]}" >"$T/o" 2>/dev/null
check "a file that exists takes any result" test "$(json_get "$(cat "$T/o")" 'd["store"]')" = "$T/c2/dab/1x8.dab"
run solve 4x4 --node-limit 100000 --json "${S[@]}"
check "min 0 s: trivial bounds alone still make no file" test ! -e "$T/c2/dab/4x4.dab"
run solve 1x8 --json "${S[@]}" --no-store
check "--no-store still reads the cache" test "$(json_get "$out" 'd["source"]')" = stored

# A stopped search keeps its table (a checkpoint) once it ran a checkpoint
# period (60 s; DAB_CHECKPOINT_SECONDS=0.2 here).
run solve 2x6 --node-limit 2000000 --json "${S[@]}"
check "2x6 stopped at 2 M nodes proves a bound" test "$(json_get "$out" 'd["lower"] > -12 or d["upper"] < 12')" = True
run info "$T/c2/dab/2x6.dab" --json
check "... kept without a checkpoint (before a checkpoint period)" test "$(json_get "$out" 'd["solved"] + d["shapes"]')" = 1
DAB_CHECKPOINT_SECONDS=0.2 "$DAB" solve 2x6 --node-limit 2000000 --json "${S[@]}" >/dev/null 2>"$T/e"
run info "$T/c2/dab/2x6.dab" --json
check "2x6 stopped after a checkpoint period keeps its checkpoint" \
  test "$(json_get "$out" 'd["solved"] + d["shapes"] > 1000')" = True
check "... and no lock file" test "$(locks "$T/c2/dab")" = 0
run check "$T/c2/dab/2x6.dab"
check "... which passes check" test "$rc" = 0

# `dab cache list`: board, kind, size, how much is exact.
run probe 2x2 2x2 --json
check "probe builds the 2x2 table it needs" test -f "$T/c2/dab/2x2.dab" -a "$(locks "$T/c2/dab")" = 0
run cache list --json
check "cache list exits 0" test "$rc" = 0
check "cache list: dir and cap (2 GiB default)" \
  test "$(json_get "$out" '(d["dir"], d["cap"], d["min_seconds"])')" = "('$T/c2/dab', 2147483648, 0)"
check "cache list: boards and kinds" \
  test "$(json_get "$out" '[(e["board"], e["kind"]) for e in d["entries"]]')" = \
       "[('1x8', 'search'), ('2x2', 'table'), ('2x6', 'search')]"
check "cache list: 1x8 is all exact, value 0" \
  test "$(json_get "$out" '[(e["exact_share"], e["empty_board"]) for e in d["entries"] if e["board"] == "1x8"][0]')" = \
       "(1.0, {'lower': 0, 'upper': 0})"
check "cache list: 2x6 is partly exact, its empty board unsolved" \
  test "$(json_get "$out" '[0 < e["exact_share"] < 1 and e["records"] + e["shapes"] > 1000 and (e["empty_board"] is None or e["empty_board"]["lower"] < e["empty_board"]["upper"]) for e in d["entries"] if e["board"] == "2x6"][0]')" = True
check "cache list: a table is every position, with its value" \
  test "$(json_get "$out" '[(e["exact_share"], e["empty_board"]) for e in d["entries"] if e["board"] == "2x2"][0]')" = \
       "(1.0, {'lower': 2, 'upper': 2})"
check "cache list: sizes add up" test "$(json_get "$out" 'd["bytes"] == sum(e["bytes"] for e in d["entries"]) and d["search_bytes"] < d["bytes"]')" = True
run cache
check "cache (text) names each board" bash -c 'grep -q "^1x8 *search" <<<"$1" && grep -q "^2x2 *table.*every position" <<<"$1"' _ "$out"
check "cache (text) states the cap" grep -q "2.0 GiB cap" <<<"$out"

# The cap: least recently used search files go; never the one just
# written, never a table.
XDG_CACHE_HOME="$T/scratch" "$DAB" solve 1x10 "${S[@]}" >/dev/null 2>&1
ten=$(stat -c %b "$T/scratch/dab/1x10.dab")   # its size, to set a cap that holds two files
export XDG_CACHE_HOME="$T/c3"
"$DAB" solve 1x8 "${S[@]}" >/dev/null 2>&1
"$DAB" solve 1x9 "${S[@]}" >/dev/null 2>&1
"$DAB" probe 2x2 2x2 >/dev/null 2>&1
touch -d 2020-01-01 "$T/c3/dab/1x8.dab"
touch -d 2019-01-01 "$T/c3/dab/2x2.dab"
check "three files before the cap" test "$(files "$T/c3/dab")" = "1x8.dab 1x9.dab 2x2.dab"
one=$(stat -c %b "$T/c3/dab/1x9.dab")
DAB_CACHE_MAX=$(((one + ten) * 512)) "$DAB" solve 1x10 "${S[@]}" >/dev/null 2>"$T/e"
check "over the cap: the least recently used search file went" test "$(files "$T/c3/dab")" = "1x10.dab 1x9.dab 2x2.dab"
check "... and a warning names it" grep -q "removed the least recently used: 1x8.dab" "$T/e"
DAB_CACHE_MAX=1000 "$DAB" solve 1x8 "${S[@]}" >/dev/null 2>"$T/e"
check "a tiny cap keeps the file just written and the table" test "$(files "$T/c3/dab")" = "1x8.dab 2x2.dab"
DAB_CACHE_MAX=1000 "$DAB" solve 1x8 --json "${S[@]}" >"$T/o" 2>/dev/null
check "... which answers the rerun" test "$(json_get "$(cat "$T/o")" 'd["source"]')" = stored
DAB_CACHE_MAX=lots "$DAB" solve 1x9 "${S[@]}" >/dev/null 2>"$T/e"
check "a bad DAB_CACHE_MAX is a warning for solve" grep -q "DAB_CACHE_MAX='lots' is not a size" "$T/e"
DAB_CACHE_MAX=lots run cache
check "... and bad input for cache (exit 2)" test "$rc" = 2

# `dab cache clear`: by board, in use left (exit 1), then all; leftovers.
export XDG_CACHE_HOME="$T/c4"
mkdir -p "$T/c4/dab"
"$DAB" solve 1x8 "${S[@]}" >/dev/null 2>&1
"$DAB" solve 1x9 "${S[@]}" >/dev/null 2>&1
: >"$T/c4/dab/3x3.dab-lock"        # what small boards' builds used to leave
: >"$T/c4/dab/1x8.dab.new.999999"  # a dead creator's file
run cache list --json
check "leftovers are listed" test "$(json_get "$out" 'sorted(e["name"] for e in d["entries"] if e["kind"] == "leftover")')" = \
  "['1x8.dab.new.999999', '3x3.dab-lock']"
run cache clear 1x9
check "clear 1x9 removes 1x9 only" test "$rc" = 0 -a "$(files "$T/c4/dab")" = "1x8.dab 1x8.dab.new.999999 3x3.dab-lock"
check "... and says so" grep -q "removed 1x9.dab" <<<"$out"
# (a checkpoint period of 0.2 s: its first checkpoint makes the file)
DAB_CHECKPOINT_SECONDS=0.2 "$DAB" solve 2x7 "${S[@]}" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do [ -e "$T/c4/dab/2x7.dab" ] && break; sleep 0.1; done
run cache clear 2x7 --json
check "a file in use is left (exit 1)" test "$rc" = 1 -a -e "$T/c4/dab/2x7.dab"
check "... and named" test "$(json_get "$out" 'd["in_use"]')" = "['2x7.dab']"
kill -INT $pid 2>/dev/null
wait $pid
check "the stopped search left no lock file" test ! -e "$T/c4/dab/2x7.dab-lock"
mkdir -p "$T/c4/dab/5x5.dab.layers"   # an interrupted build's layers
: >"$T/c4/dab/5x5.dab.layers/lock"
head -c 5000 /dev/zero >"$T/c4/dab/5x5.dab.layers/30"
run cache list --json
check "a build's layers are listed, with their size" \
  test "$(json_get "$out" '[(e["kind"], e["bytes"] >= 4096) for e in d["entries"] if e["board"] == "5x5"]')" = "[('build', True)]"
if command -v flock >/dev/null; then
  flock "$T/c4/dab/5x5.dab.layers/lock" sleep 3 &
  fpid=$!
  sleep 0.5
  run cache clear 5x5
  check "layers a build holds are left (exit 1)" test "$rc" = 1 -a -d "$T/c4/dab/5x5.dab.layers"
  wait $fpid
fi
run cache clear
check "clear removes everything" test "$rc" = 0 -a -z "$(files "$T/c4/dab")"
run cache clear 2x7
check "clearing an empty cache is fine" test "$rc" = 0
run cache clear 7
check "a bad board is bad input (exit 2)" test "$rc" = 2
check "... said on one line" test "$(printf '%s\n' "$err" | wc -l)" = 1
run cache purge
check "an unknown subcommand is bad input" test "$rc" = 2
DAB_READONLY=1 run cache clear
check "read-only mode clears nothing (exit 2)" test "$rc" = 2
XDG_CACHE_HOME="$T/none" run cache list --json
check "a cache never made lists empty" test "$rc" = 0 -a "$(json_get "$out" 'd["entries"]')" = "[]"

# --tb and $DAB_TB_PATH are the user's own places: everything is kept
# there as before (only the lock file goes).
mkdir -p "$T/tb"
DAB_CACHE_MIN_SECONDS=1000 "$DAB" solve 1x8 --tb "$T/tb" "${S[@]}" >/dev/null 2>&1
check "--tb DIR keeps a quick search" test "$(files "$T/tb")" = "1x8.dab"

finish test_cache.sh
