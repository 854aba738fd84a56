#!/usr/bin/env bash
# test_tb_cli.sh: the tablebase commands as a user meets them: build,
# probe (one and batch), info, check, verify; bad files exit 2; a damaged
# block exits 1 naming it; builds killed with -9 leave no file or a good one.
set -u
source "$(dirname "$0")/clitest.sh"
export DAB_TB_PATH="$T/path" XDG_CACHE_HOME="$T/cache" # not the user's own tables
mkdir -p "$T/path"

run build 3x3 -o "$T/3x3.dab" --threads 2
check "build 3x3 exits 0" test "$rc" = 0
check "build names the file" grep -q "3x3.dab" <<<"$out"
check "3x3 file <= 1 MB" test "$(stat -c %s "$T/3x3.dab")" -le 1000000
check "no temporaries left" test "$(ls "$T" | grep -c -E '\.(tmp|compact)\.')" = 0

run probe "$T/3x3.dab" 3x3 --json
p=$out
run solve 3x3 --json
check "probe 3x3 --json equals solve 3x3 --json" test "$p" = "$out"
run probe "$T/3x3.dab" "3x3@0,1,2,3,12"
check "probe text output" grep -q "^value" <<<"$out"
run probe "$T/3x3.dab" "3x3@0,1,2,3,12" --json
p=$out
run solve "3x3@0,1,2,3,12" --json
check "probe equals solve on a position with a capture" test "$p" = "$out"

# Batch: one JSON line per input, equal to the single-position output.
$PY - "$T/pos.txt" <<'PYEOF'
import random, sys
r = random.Random(3)
with open(sys.argv[1], "w") as f:
    for _ in range(2000):
        f.write("3x3:" + "".join(r.choice("01") for _ in range(24)) + "\n")
PYEOF
"$DAB" probe "$T/3x3.dab" - <"$T/pos.txt" >"$T/batch.txt"; rc=$?
check "batch exits 0" test "$rc" = 0
check "batch: one line per position" test "$(wc -l <"$T/batch.txt")" = 2000
same=1
for i in 1 7 500 1999; do
  pos=$(sed -n "${i}p" "$T/pos.txt")
  one=$("$DAB" probe "$T/3x3.dab" "$pos" --json)
  [ "$one" = "$(sed -n "${i}p" "$T/batch.txt")" ] || same=0
done
check "batch lines equal single probes" test "$same" = 1
printf '3x3\n2x2\n3x3:01\n3x3@0\n' | "$DAB" probe "$T/3x3.dab" - >"$T/b2.txt"; rc=$?
check "batch with bad lines exits 2" test "$rc" = 2
check "batch bad lines give error objects" test "$(grep -c '"error"' "$T/b2.txt")" = 2
check "batch good lines still answered" test "$(grep -c '"value"' "$T/b2.txt")" = 2

# A model is no tablebase: info says what it is; the docs never name a
# model *.dab (the tablebase extension).
run info data/models/az-3x3-forward.az
check "info on a model: exit 2, says it is a trained agent's model" \
  bash -c '[ "$1" = 2 ] && grep -q "trained agent.s model" <<<"$2"' _ "$rc" "$err"
check "docs: no trained model written as *.dab" \
  bash -c '! grep -n "dab train .*--out [^ ]*\.dab" README.md docs/*.md python/README.md'

# DAB_TB_PATH naming a directory that is not there: info and solve agree
# that nothing is written, and nothing is.
out=$(DAB_TB_PATH="$T/nodir" "$DAB" info --json)
check "info: a missing DAB_TB_PATH directory is 'nowhere'" \
  test "$(json_get "$out" 'd["write"].startswith("nowhere") and "nodir" in d["write"]')" = True
DAB_TB_PATH="$T/nodir" "$DAB" solve 2x5 --json >/dev/null 2>"$T/nodir.err"
check "solve: says the same directory does not exist" grep -q "nodir does not exist" "$T/nodir.err"
check "... and writes nothing" test ! -e "$T/nodir"
check "solve's warning is no error line" bash -c '! grep -q "^dab " "$1"' _ "$T/nodir.err"

# Search path: a board name finds DAB_TB_PATH, small boards are built.
run probe 1x7 1x7 --json   # a board no other test builds into data/tb/
check "1x7 built on first use" test "$rc" = 0 -a -f "$T/path/1x7.dab"
# 2x6 (32 lines, 4 GiB to build) is never built by the tests or the README
# tour, so it is missing even where a user has built 3x4 into data/tb/.
run probe 2x6 2x6
check "2x6 missing exits 2" test "$rc" = 2
check "2x6 missing names the build command" grep -q "dab build 2x6" <<<"$err"

# Eight processes asking at once for a board nobody built: one builds it.
mkdir -p "$T/first"
for i in 1 2 3 4 5 6 7 8; do
  DAB_TB_NO_PROJECT=1 DAB_TB_PATH="$T/first" "$DAB" probe 2x3 2x3 --json >"$T/first/out.$i" 2>&1 &
done
wait
check "8 first uses at once all answer" test "$(cat "$T"/first/out.* | grep -c '"value"')" = 8
check "8 first uses at once leave one good file" "$DAB" check "$T/first/2x3.dab"

run info "$T/3x3.dab"
check "info exits 0" test "$rc" = 0
check "info shows magic and board" grep -q "dab-tablebase" <<<"$out"
check "info: the summary comes first" test "$(head -n 2 <<<"$out" | cut -c1-6 | tr -d ' \n')" = "filecovers"
check "info: no per-layer lines without --layers" bash -c '! grep -q "^layer\." <<<"$1"' _ "$out"
check "info: at most 40 lines without --layers ($(wc -l <<<"$out"))" test "$(wc -l <<<"$out")" -le 40
run info "$T/3x3.dab" --layers
check "info --layers shows layer checksums" grep -q "layer.12.xxh3_128" <<<"$out"

run info "$T/3x3.dab" --json
check "info --json parses" $PY -c "import json,sys; d=json.loads(sys.argv[1]); assert d['meta']['rows']=='3'" "$out"
run check "$T/3x3.dab"
check "check exits 0 on a good file" test "$rc" = 0
run verify "$T/3x3.dab"
check "verify passes on 3x3" test "$rc" = 0
check "verify counts values" grep -q "stored values agree" <<<"$out"

# Bad files: not a tablebase exits 2, a tablebase cut short is damaged
# (exit 1, as a flipped byte is), each with a one-line error.
head -c 30000 "$T/3x3.dab" >"$T/trunc.dab"
head -c 5000 "$T/3x3.dab" >"$T/trunc5k.dab"
head -c 20000 /dev/urandom >"$T/random.dab"
echo "hello" >"$T/text.dab"
for f in "$T/missing.dab" "$T/trunc.dab" "$T/trunc5k.dab" "$T/random.dab" "$T/text.dab"; do
  want=2; case $f in *trunc*) want=1 ;; esac
  for cmd in probe info check verify; do
    if [ $cmd = probe ]; then run probe "$f" 3x3; else run $cmd "$f"; fi
    check "$cmd $(basename "$f") exits $want" test "$rc" = "$want"
    check "$cmd $(basename "$f") prints one line" test "$(printf '%s\n' "$err" | wc -l)" = 1
  done
done
run probe "$T/3x3.dab" 2x2
check "wrong board for the position exits 2" test "$rc" = 2
check "wrong board names both boards" grep -q "2x2.*3x3" <<<"$err"

# A damaged block: check exits 1 naming it; probes never print a wrong value.
$PY - "$T/3x3.dab" "$T/dmg.dab" <<'PYEOF'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
offs = []
s = 0
while True:
    s = d.find(b"DBK1", s)
    if s < 0: break
    offs.append(s); s += 4
# the biggest block record sits in overflow pages (at a page start + 16)
big = [o for o in offs if o % 4096 == 16]
o = max(big, key=lambda o: min([x for x in offs if x > o] + [len(d)]) - o)
d[o + 100] ^= 0x5A
open(sys.argv[2], "wb").write(d)
PYEOF
run check "$T/dmg.dab"
check "check of a damaged block exits 1" test "$rc" = 1
check "check names the bad block" grep -q "layer [0-9]* block [0-9]*" <<<"$err"
"$DAB" probe "$T/dmg.dab" - <"$T/pos.txt" >"$T/dmg_batch.txt" 2>"$T/err"; rc=$?
check "batch on a damaged file fails (exit 1)" test "$rc" = 1
# Every line gets one answer: the intact file's, or an error object naming
# its line; the batch goes on past the damaged block; stderr says it once.
dmg_lines() {  # prints "answered errors wrong"
  $PY - "$T/pos.txt" "$T/batch.txt" "$T/dmg_batch.txt" <<'PYEOF'
import json, sys
pos = open(sys.argv[1]).read().splitlines()
good = open(sys.argv[2]).read().splitlines()
got = open(sys.argv[3]).read().splitlines()
answered = errors = wrong = 0
for i, line in enumerate(got):
    o = json.loads(line)
    if "error" in o:
        errors += 1
        wrong += o["line"] != i + 1 or o["input"] != pos[i] or "block" not in o["error"]
    else:
        answered += 1
        wrong += line != good[i]
wrong += len(got) != len(pos)
print(answered, errors, wrong)
PYEOF
}
read -r dmg_ok dmg_err dmg_wrong < <(dmg_lines)
check "batch on a damaged file: one output line per input line" test "$(wc -l <"$T/dmg_batch.txt")" = 2000
check "batch on a damaged file: answers equal the intact file's, errors name their line" test "$dmg_wrong" = 0
check "batch on a damaged file: goes on past the damaged block ($dmg_ok answered, $dmg_err failed)" \
  test "$dmg_err" -ge 1 -a "$dmg_ok" -ge 1000
check "batch on a damaged file: stderr names the damage once" test "$(grep -c 'layer [0-9]* block [0-9]*' "$T/err")" = 1
# The same through `dab solve -` with the damaged file as the board's table.
mkdir -p "$T/dtb" && cp "$T/dmg.dab" "$T/dtb/3x3.dab"
DAB_READONLY=1 "$DAB" solve - --tb "$T/dtb" <"$T/pos.txt" >"$T/dmg_batch.txt" 2>"$T/err"; rc=$?
read -r dmg_ok dmg_err dmg_wrong < <(dmg_lines)
check "solve - on a damaged table: exit 1" test "$rc" = 1
check "solve - on a damaged table: one output line per input line" test "$(wc -l <"$T/dmg_batch.txt")" = 2000
check "solve - on a damaged table: answers right, errors name their line" test "$dmg_wrong" = 0
check "solve - on a damaged table: goes on ($dmg_ok answered, $dmg_err failed)" \
  test "$dmg_err" -ge 1 -a "$dmg_ok" -ge 1000
check "solve - on a damaged table: stderr names the damage once" \
  test "$(grep -c 'layer [0-9]* block [0-9]*' "$T/err")" = 1

# kill -9 at random points: no file or a correct file; a rerun just works.
mkdir -p "$T/k"
# kill points spread over 1.3x one build's time
t0=$(date +%s.%N); "$DAB" build 3x3 -o "$T/k/t.dab" --threads 1 >/dev/null 2>&1; t1=$(date +%s.%N)
kill_span=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b - a) * 1.3}')
rm -f "$T/k/t.dab"
outcomes=""
for i in 1 2 3 4 5 6; do
  rm -f "$T/k/3x3.dab"
  "$DAB" build 3x3 -o "$T/k/3x3.dab" --threads 1 >/dev/null 2>&1 &
  pid=$!
  sleep "$(awk -v r=$RANDOM 'BEGIN {printf "%.3f", (r % 1000) / 1000 * '"$kill_span"'}')"
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  if [ -e "$T/k/3x3.dab" ]; then
    ok=1
    "$DAB" check "$T/k/3x3.dab" >/dev/null 2>&1 || ok=0
    v=$("$DAB" probe "$T/k/3x3.dab" 3x3 --json | $PY -c "import json,sys; print(json.load(sys.stdin)['value'])")
    [ "$v" = -3 ] || ok=0
    check "kill $i: the file left is correct" test $ok = 1
    outcomes="$outcomes file"
  else
    check "kill $i: no file" true
    outcomes="$outcomes none"
  fi
done
run build 3x3 -o "$T/k/3x3.dab"
check "build after kills exits 0" test "$rc" = 0
check "build after kills removes stale temporaries" test "$(ls "$T/k" | grep -c -E '\.(tmp|compact)\.')" = 0
run check "$T/k/3x3.dab"
check "rebuilt file checks" test "$rc" = 0
echo "kill -9 outcomes:$outcomes"

# Four builds of one file at once: the last rename wins, the file is whole.
for i in 1 2 3 4; do "$DAB" build 2x3 -o "$T/k/2x3.dab" --threads 1 >/dev/null 2>&1 & done
wait
run check "$T/k/2x3.dab"
check "concurrent builds leave a good file" test "$rc" = 0
check "concurrent builds leave no temporaries" test "$(ls "$T/k" | grep -c -E '\.(tmp|compact)\.')" = 0

# The layered builder (issue 22): the plan, a refusal on a small memory
# limit, a kill -9 inside a layer and the resume, hints that name a
# command that works.
run build 2x5 -o "$T/L/2x5.dab" --plan
check "plan exits 0" test "$rc" = 0
check "plan: entries of layer 10 (exact)" grep -qE '^ +10 +538984 ' <<<"$out"
check "plan: peak memory, disk and time" grep -q "peak memory.*fits" <<<"$out"
check "plan builds nothing" test ! -e "$T/L/2x5.dab" -a ! -e "$T/L/2x5.dab.layers"
mkdir -p "$T/L"
run build 2x5 -o "$T/L/2x5.dab" --mem-limit 1M
check "a build over --mem-limit is refused (exit 1)" test "$rc" = 1
check "the refusal gives the figure" grep -q "needs 0.0[0-9] GiB.*--plan" <<<"$err"
"$DAB" build 2x5 -o "$T/L/2x5.dab" --threads 1 >/dev/null 2>&1 &
pid=$!
for i in $(seq 200); do  # until a layer of the middle is on disk
  [ -e "$T/L/2x5.dab.layers/14" ] && break
  sleep 0.02
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
kept=$(ls "$T/L/2x5.dab.layers" 2>/dev/null | grep -c -E '^[0-9]+$')
check "kill -9: no file, finished layers kept ($kept)" test ! -e "$T/L/2x5.dab" -a "$kept" -ge 1
run build 2x5 -o "$T/L/2x5.dab"
check "the rerun resumes" grep -q "resumed: $kept finished layers" <<<"$out"
check "resumed file checks" "$DAB" check "$T/L/2x5.dab"
check "resumed file: value -2" grep -q "value -2" <<<"$out"
check "the layers are removed" test ! -e "$T/L/2x5.dab.layers"
# Ctrl-C in an -o build: the hint is the command that resumes this build,
# its options included; run as printed, it resumes into the same file.
mkdir -p "$T/L/o d"
"$DAB" build 2x5 -o "$T/L/o d/2x5.dab" --threads 1 --level 3 >/dev/null 2>"$T/int.err" &
pid=$!
for i in $(seq 200); do
  [ -e "$T/L/o d/2x5.dab.layers/14" ] && break
  sleep 0.02
done
kill -INT $pid 2>/dev/null
wait $pid 2>/dev/null
hint=$(sed -n 's/^dab build: to resume, run: dab //p' "$T/int.err")
check "Ctrl-C: the resume hint names -o and the options ($hint)" \
  test "$hint" = "build 2x5 -o '$T/L/o d/2x5.dab' --threads 1 --level 3"
out=$(eval "\"\$DAB\" $hint" 2>/dev/null)
check "the hint run as printed resumes" grep -q "resumed: [0-9]* finished layers" <<<"$out"
check "... into the -o file, not the cache" test -s "$T/L/o d/2x5.dab" -a ! -e "$T/cache/dab/2x5.dab"
run build 2x5 -o "$T/L/f.dab" --full-array
check "full-array build" test "$rc" = 0
check "layered and full-array files hold the same layers" \
  cmp -s <("$DAB" info "$T/L/2x5.dab" --layers | grep xxh3_128) <("$DAB" info "$T/L/f.dab" --layers | grep xxh3_128)
run probe 5x5 5x5
check "5x5: no build hint, a search hint" grep -q "dab solve 5x5" <<<"$err"
check "5x5: no hint to a build that refuses" test "$(grep -c 'dab build 5x5' <<<"$err")" = 0
run build 5x5
check "build 5x5 refuses (exit 2)" test "$rc" = 2
run build 4x4 --plan -o "$T/L/4x4.dab"
check "4x4 plan: 6067255234 entries" grep -q "indexed entries: 6067255234" <<<"$out"

finish test_tb_cli.sh
