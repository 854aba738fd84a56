#!/usr/bin/env bash
# test_agents_cli.sh: `dab train q`, its model as a player spec, checkpoints
# and resume, bad input, and `dab plot`.
set -uo pipefail
source "$(dirname "$0")/clitest.sh"
tmp=$T
mkdir -p "$tmp/tb"; export DAB_TB_PATH="$tmp/tb"

# Train on 2x2: a model, a log with a header and one row per snapshot.
run train q --board 2x2 --games 30000 --snapshot 10000 --grade-games 20 --log "$tmp/q.csv" --out "$tmp/q.dab"
check "train q exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
check "train q writes the model" [ -s "$tmp/q.dab" ]
check "train q log: header + 4 rows" [ "$(wc -l <"$tmp/q.csv")" -eq 5 ]
check "train q log: first column games" [ "$(head -c 6 "$tmp/q.csv")" = "games," ]
check "train q log: last row at 30000 games" [ "$(tail -1 "$tmp/q.csv" | cut -d, -f1)" = 30000 ]
$PY - "$tmp/q.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for k in ("games", "seconds", "rmse", "opt_all", "win_random", "win_level1", "optimal", "kept", "lost"):
    assert k in rows[0], k
last = rows[-1]
assert 0 <= float(last["optimal"]) <= float(last["kept"]) <= 1, last
assert float(rows[0]["opt_all"]) < float(last["opt_all"]), "learning improves the optimal-move rate"
PY
check "train q log: columns and learning" [ $? -eq 0 ]

# A kind's option takes its value after '=' or as the next word.
run train q --board 2x2 --games 100 --alpha 7 --out "$tmp/q2.dab"
check "--alpha 7 (space) is read as the value and refused" grep -q "got '7'" <<<"$err"
run train q --board 2x2 --games 100 --alpha 0.5 --out "$tmp/q2.dab"
check "--alpha 0.5 (space) trains (got $rc: $err)" [ "$rc" -eq 0 ]

# The model plays in the arena and in dab play.
run arena --board 2x2 --p1 "q:$tmp/q.dab" --p2 random --games 20 --json
check "arena q:FILE exit 0 ($err)" [ "$rc" -eq 0 ]
check "arena q:FILE names the agent" grep -q "q:$tmp/q.dab" <<<"$out"
run play 2x2 --player "q:$tmp/q.dab"
check "play q:FILE exit 0 ($err)" [ "$rc" -eq 0 ]

# Stop half way, resume: the same model as the straight run.
run train q --board 2x2 --games 20000 --seed 4 --out "$tmp/a.dab"
run train q --board 2x2 --games 20000 --seed 4 --stop-at 7777 --out "$tmp/b.dab" --checkpoint "$tmp/b.ckpt"
check "stop-at exit 0 ($err)" [ "$rc" -eq 0 ]
check "stop-at: says how to resume" grep -q -- "--resume" <<<"$err"
check "stop-at: no model yet" [ ! -e "$tmp/b.dab" ]
run train q --board 2x2 --resume "$tmp/b.ckpt" --out "$tmp/b.dab"
check "resume exit 0 ($err)" [ "$rc" -eq 0 ]
check "resume: identical model" cmp -s "$tmp/a.dab" "$tmp/b.dab"

# Ctrl-C delivered twice at once (`timeout -s INT` signals its child, then
# the child's process group) is one request: a clean stop with a checkpoint.
for i in 1 2 3; do
  "$DAB" train q --board 2x3 --games 100000000 --seed 4 --out "$tmp/s.dab" --checkpoint "$tmp/s$i.ckpt" \
    2>"$tmp/s.err" &
  pid=$!
  sleep 0.5
  kill -INT "$pid"; kill -INT "$pid"
  wait "$pid"; rc=$?
  check "double Ctrl-C $i: exit 130 (got $rc)" [ "$rc" -eq 130 ]
  check "double Ctrl-C $i: checkpoint written" [ -s "$tmp/s$i.ckpt" ]
  check "double Ctrl-C $i: says how to resume" grep -q -- "--resume" "$tmp/s.err"
done

# Bad input: one line on stderr, exit 2, nothing written.
cp "$tmp/q.dab" "$tmp/bad.dab"
printf '\x55' | dd of="$tmp/bad.dab" bs=1 seek=100 conv=notrunc 2>/dev/null
for args in "nosuch --out $tmp/x.dab" "q --board 2y2 --out $tmp/x.dab" "q --board 3x3 --out $tmp/x.dab" \
            "q --board 2x2" "q --board 2x2 --out /no/such/dir/x.dab" "q --board 2x2 --games 0 --out $tmp/x.dab" \
            "q --board 2x2 --bogus=1 --out $tmp/x.dab" "q --board 2x2 --policy=nope --out $tmp/x.dab" \
            "q --board 2x2 --resume $tmp/nosuch --out $tmp/x.dab" "q --board 2x2 --resume $tmp/q.dab --out $tmp/x.dab"; do
  run train $args
  check "train $args: exit 2 (got $rc)" [ "$rc" -eq 2 ]
  check "train $args: one-line error" [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
  check "train $args: no model" [ ! -e "$tmp/x.dab" ]
done
run train q --board 2x2 --resume "$tmp/bad.dab" --out "$tmp/x.dab"
check "damaged checkpoint: exit 1 (corrupt data; got $rc)" [ "$rc" -eq 1 ]
check "damaged checkpoint: one line naming the file" grep -q "bad.dab.*checksum" <<<"$err"
check "damaged checkpoint: no model" [ ! -e "$tmp/x.dab" ]
run arena --board 2x2 --p1 "q:$tmp/bad.dab" --p2 random --games 2
check "damaged model refused by arena (rc $rc)" [ "$rc" -ne 0 ]
check "damaged model: one line naming the file" bash -c "[ \$(printf '%s\n' \"\$1\" | wc -l) -eq 1 ] && grep -q bad.dab <<<\"\$1\"" _ "$err"
run arena --board 2x3 --p1 "q:$tmp/q.dab" --p2 random --games 2
check "model of another board refused (rc $rc)" [ "$rc" -eq 2 ]

# dab plot: a PNG from the log; bad input exits 2.
run plot "$tmp/q.csv" -o "$tmp/q.png"
check "plot exit 0 ($err)" [ "$rc" -eq 0 ]
check "plot writes a PNG" bash -c "head -c 8 '$tmp/q.png' | od -An -c | grep -q 'P   N   G'"
printf 'x,y\n1,2\n' >"$tmp/bad.csv"
for args in "$tmp/nosuch.csv -o $tmp/p.png" "$tmp/bad.csv -o $tmp/p.png" "$tmp/q.csv"; do
  run plot $args
  check "plot $args: exit 2 (got $rc)" [ "$rc" -eq 2 ]
  check "plot $args: one-line error" [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
done

finish test_agents_cli
