#!/usr/bin/env bash
# test_bad_input.sh: every subcommand x every class of bad input (board,
# position, option value, file, stdin line).  Each row must exit 2 with
# exactly one line on stderr, nothing on stdout (a stdin-line row: exactly
# one {"line":N,"input":...,"error":...} line), and no file written
# anywhere under the scratch directory (the working directory, --tb, -o).
set -u
source "$(dirname "$0")/clitest.sh"
W="$T/work"; mkdir -p "$W" "$T/tb" "$T/home"
export DAB_TB_PATH="$T/tb" HOME="$T/home" DAB_TB_NO_PROJECT=1
# Fixtures, made before the table: a good 2x2 file, a junk file, a model.
"$DAB" build 2x2 -o "$T/2x2.dab" >/dev/null 2>&1
cp "$T/2x2.dab" "$T/tb/2x2.dab"  # the oracle's 2x2 file, as a first use would build it
head -c 3000 /dev/urandom >"$T/junk.dab"
head -c 3000 /dev/urandom >"$T/junk.model"
: >"$T/empty"
snapshot() { (cd "$T" && find . -mindepth 1 -newer "$T/.mark" -not -name .stderr -not -name .mark | sort); }

# row CLASS STDIN ARGS...  (STDIN "-": none; the stdin class gives its text)
row() {
  local cls=$1 input=$2; shift 2
  touch "$T/.mark"; sleep 0.01
  local o e n
  if [ "$input" = - ]; then
    o=$(cd "$W" && "$DAB" "$@" </dev/null 2>"$T/.stderr"); rc=$?
  else
    o=$(cd "$W" && printf '%s\n' "$input" | "$DAB" "$@" 2>"$T/.stderr"); rc=$?
  fi
  e=$(cat "$T/.stderr"); n=$(grep -c '' "$T/.stderr")
  local what="[$cls] dab $*"
  check "$what: exit 2 (got $rc: $e)" test "$rc" = 2
  check "$what: one stderr line (got $n: $e)" test "$n" = 1
  if [ "$cls" = stdin ]; then
    check "$what: one batch error line" test "$(grep -c '' <<<"$o")" = 1
    check "$what: batch error shape" $PY -c 'import json,sys; d=json.loads(sys.argv[1]); assert set(d)=={"line","input","error"} and d["line"]>=1' "$o"
  else
    check "$what: nothing on stdout (got: ${o:0:80})" test -z "$o"
  fi
  local new; new=$(snapshot)
  check "$what: nothing written (got: $new)" test -z "$new"
}

# --- board ------------------------------------------------------------------
for b in 0x3 3x 99x99 abc 3x3x3 -1x2 99999999999999999999x2; do
  row board - solve "$b"
  row board - retro "$b"
  row board - show "$b"
  row board - play "$b"
  row board - build "$b" -o "$T/out.dab"
  row board - arena --p1 random --p2 random --board "$b" --games 2
done
row board - retro 4x4
row board - solve 4x4 --retro
row board - build 5x5 -o "$T/out.dab"
row board - demo 99x99
row board - probe 99x99 3x3
row board - info 99x99
row board - check 99x99
row board - verify 99x99
row board - theorems explain 99x99
row board - rules grade --board 0x3 random
row board - train q --board 0x0 --out "$T/q.model" --games 10

# --- position ---------------------------------------------------------------
for p in 3x3:0101 3x3:01x1010101010101010101010 "3x3@0,0" "3x3@999" "3x3@1,,2" "2x2@-1" "3x3:" "3x3@"; do
  row position - solve "$p"
  row position - show "$p"
  row position - play "$p"
  row position - retro "$p"
  row position - probe "$T/2x2.dab" "$p"
  row position - theorems explain "$p"
  row position - arena --p1 random --p2 random --start "$p" --games 2
done
row position - probe "$T/2x2.dab" 3x3
row position - theorems value "3+3+Q9"
row position - theorems value "L"

# --- option value -----------------------------------------------------------
row option - solve 2x2 --threads 0
row option - solve 2x2 --threads x
row option - solve 2x2 --hash 12Q
row option - solve 2x2 --node-limit -5
row option - solve 2x2 --score 999
row option - solve 2x2 --bogus
row option - solve 2x2 --tb "$T/nonexistent"
row option - solve 2x2 --tb "$T/2x2.dab"
row option - retro 2x2 --threads 0
row option - show 2x2 --bogus
row option - play 2x2 --player nosuch
row option - play 2x2 --player "mcts:sims=0"
row option - play 2x2 --seed -3
row option - play 2x2 --tb "$T/nonexistent"
row option - probe "$T/2x2.dab" 2x2 --tb "$T/nonexistent"
row option - build 2x2 --threads 0 -o "$T/out.dab"
row option - build 2x2 --tb "$T/nonexistent"
row option - info --tb "$T/nonexistent"
row option - check 2x2 --tb "$T/nonexistent"
row option - verify "$T/2x2.dab" --threads 0
row option - arena --p1 random --p2 random --board 2x2 --games 0
row option - arena --p1 random --p2 random --board 2x2 --games 100000001
row option - arena --p1 random --p2 nosuch --board 2x2 --games 2
row option - arena --p1 "mcts:c=x" --p2 random --board 2x2 --games 2
row option - arena --p1 "sw:9x9" --p2 random --board 2x2 --games 2
row option - arena --p1 random --p2 random --board 2x2 --seed x
row option - arena --p1 random --p2 random --board 2x2 --start random:2
row option - arena --p1 random --p2 random --board 2x2 --tb "$T/nonexistent"
row option - arena --p1 random --board 2x2
row option - theorems check --level 99
row option - theorems value 3+3 --bogus
row option - rules grade --games 0 random
row option - matrix nosuchgame
row option - matrix pd --episodes 0
row option - train nosuchkind --out "$T/m.model"
row option - train q --out "$T/m.model" --games 0
row option - train q --out "$T/m.model" --tb "$T/nonexistent"
row option - serve --port abc
row option - serve --port 99999
row option - serve --tb "$T/nonexistent"
row option - plot "$T/empty"

# --- file -------------------------------------------------------------------
for cmd in probe info check verify; do
  extra=(); [ "$cmd" = probe ] && extra=(2x2)
  row file - "$cmd" "$T/junk.dab" "${extra[@]}"
  row file - "$cmd" "$T/empty" "${extra[@]}"
  row file - "$cmd" "$T/nonexistent.dab" "${extra[@]}"
  row file - "$cmd" "$T" "${extra[@]}"
done
row file - play 2x2 --player "q:$T/junk.model"
row file - arena --p1 "q:$T/junk.model" --p2 random --board 2x2 --games 2
row file - rules show "$T/junk.model"
row file - rules show "$T/nonexistent"
row file - matrix --payoff "$T/nonexistent"
row file - matrix --payoff "$T/junk.model"
row file - plot "$T/nonexistent.csv" -o "$T/x.png"
row file - train q --out "$T/m.model" --resume "$T/junk.model"
row file - train az --export "$T/junk.model" --out "$T/m.model"
row file - train az --export "$T/nonexistent" --out "$T/m.model"
row option - train q --export "$T/junk.model" --out "$T/m.model"
row option - train az --export "$T/junk.model"
row option - train az --export "$T/junk.model" --out "$T/m.model" --board 2x2
row option - train az --export "$T/junk.model" --out "$T/m.model" --sims=8

row file - build 2x2 -o "$T/nonexistent/dir/x.dab"
check "build names the user's path, not a temporary" grep -q "nonexistent/dir/x.dab: no such directory" "$T/.stderr"
row file - build 2x2 -o "$T/2x2.dab/x.dab"

# Damaged tablebase (right magic, a block failing its checksum): exit 1, one
# line naming the file once.
"$DAB" build 3x3 -o "$T/3x3.dab" >/dev/null 2>&1
$PY - "$T/3x3.dab" "$T/bad3.dab" <<'PYEOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
# flip one byte in every 4 KiB page past the LMDB meta pages: data blocks
for off in range(3 * 4096 + 100, len(b) - 4096, 4096):
    b[off] ^= 0x20
open(sys.argv[2], "wb").write(b)
PYEOF
for cmd in verify check; do
  out=$("$DAB" "$cmd" "$T/bad3.dab" 2>"$T/.stderr"); rc=$?
  check "$cmd damaged: exit 1 (got $rc)" test "$rc" = 1
  check "$cmd damaged: one stderr line" test "$(grep -c '' "$T/.stderr")" = 1
  check "$cmd damaged: the path named once" test "$(grep -o "bad3.dab" "$T/.stderr" | wc -l)" = 1
done

# Stopped search: JSON with the proven bounds and "exact": false (exit 1).
out=$(cd "$W" && "$DAB" solve 5x5 --json --node-limit 1000 --no-store 2>"$T/.stderr"); rc=$?
check "node-limit: exit 1" test "$rc" = 1
check "node-limit: JSON with bounds" $PY -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["exact"] is False and d["lower"] <= d["upper"] and d["rows"] == 5 and 0 < d["nodes"] < 100000' "$out"
out=$(cd "$W" && printf '5x5\n2x2\n' | "$DAB" solve - --node-limit 1000 --no-store 2>"$T/.stderr"); rc=$?
check "node-limit batch: two lines, the second exact" $PY -c 'import json,sys; l=sys.argv[1].splitlines(); assert len(l)==2 and json.loads(l[0])["exact"] is False and json.loads(l[1])["value"]==2' "$out"

# Ctrl-C in the arena stops a long move at once (games dropped, exit 1).
(cd "$W" && exec "$DAB" arena --p1 mcts:sims=100000000 --p2 random --board 3x3 --games 2 --threads 1 \
   --no-oracle >"$T/arena.out" 2>&1) &
apid=$!
sleep 1
kill -INT "$apid"
t0=$SECONDS
for _ in $(seq 50); do kill -0 "$apid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$apid" 2>/dev/null && kill -9 "$apid"
wait "$apid"; rc=$?
check "arena: one Ctrl-C ends a long move within 5 s (exit $rc)" test "$rc" = 1
check "arena: interrupted report" grep -q "interrupted" "$T/arena.out"

# --- stdin line -------------------------------------------------------------
row stdin "foo" solve -
row stdin "3x3@0,0" solve -
row stdin "9x9" solve -
row stdin "foo" probe "$T/2x2.dab" -
row stdin "3x3" probe "$T/2x2.dab" -
row stdin "2x2@0,0" probe "$T/2x2.dab" -

# An unknown player is named first, before the missing board.
row option - arena --p1 foo --p2 chain
check "arena --p1 foo without --board: names 'foo', not the board" grep -q "unknown player 'foo'" "$T/.stderr"
row option - arena --p1 chain --p2 "bar:x=1" --games 2
check "arena --p2 bar:x=1 without --board: names 'bar'" grep -q "unknown player 'bar'" "$T/.stderr"

finish test_bad_input
