#!/usr/bin/env bash
# test_serve.sh: `dab serve` over HTTP with curl: every endpoint, every
# error class, answers equal to `dab solve`, concurrent clients (table
# probes stay fast while a search runs), abuse, clean shutdown.
set -uo pipefail
source "$(dirname "$0")/clitest.sh"
mkdir -p "$T/tb"; export DAB_TB_PATH="$T/tb" XDG_CACHE_HOME="$T/cache"   # no tables from elsewhere

"$DAB" serve --port 0 --max-batch 20 --max-body 64k --search-node-limit 300000 >"$T/serve.out" 2>"$T/serve.err" &
pid=$!
for _ in $(seq 100); do grep -q http "$T/serve.out" && break; sleep 0.1; done
U=$(grep -o 'http://[^ ]*' "$T/serve.out")
check "serve prints its URL on loopback" [ -n "$U" ]
[ -n "$U" ] || { kill "$pid"; finish test_serve; exit 1; }
A="${U}api/v1"
PORT=${U#http://127.0.0.1:}; PORT=${PORT%/}

get() { code=$(curl -s -o "$T/body" -w '%{http_code}' "$@"); body=$(cat "$T/body"); }
is_err() {  # status kind: the last reply is that status with {"error":...,"kind":kind}
  [ "$code" = "$1" ] && [ "$(json_get "$body" 'd["kind"]')" = "$2" ] && [ -n "$(json_get "$body" 'd["error"]')" ]
}

# health and boards
get "$A/health"
check "health: 200 ok" [ "$code" = 200 -a "$(json_get "$body" 'd["status"]')" = ok ]
get "$A/boards"
check "boards: 49 boards" [ "$(json_get "$body" 'len(d["boards"])')" = 49 ]
check "boards: 3x3 from memory, 4x4 searched, 7x7 none" [ "$(json_get "$body" \
  '",".join(b["source"] for b in d["boards"] if b["board"] in ("3x3","4x4","7x7"))')" = "memory,search,none" ]

# analyze equals dab solve --json (table and search)
for pos in 3x3@0,5 2x2 3x3:111001110110110101100000 2x3@0,1,2 4x4@0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17; do
  get "$A/analyze?pos=$pos"
  want=$("$DAB" solve "$pos" --json --no-store 2>/dev/null)
  check "analyze $pos: 200, exact, same as dab solve" [ "$code" = 200 ] && check "... same as dab solve" $PY -c '
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
sys.exit(0 if b["exact"] and (a["value"], a["moves"], a["best"]) == (b["value"], b["moves"], b["best"]) else 1)' "$want" "$body"
done
get "$A/analyze?pos=4x4@0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"
check "analyze 4x4: source search with nodes" [ "$(json_get "$body" 'd["source"], d["nodes"] >= 0')" = "('search', True)" ]
get "$A/analyze?pos=3x3@0,5"
check "analyze: history keys" [ "$(json_get "$body" 'd["to_move"], d["score"], d["dbn"]')" = "(0, [0, 0], '3x3:100001000000000000000000')" ]
get "$A/analyze?pos=4x4@5"
check "analyze 4x4 over the node budget: exact false, bounds" \
  [ "$(json_get "$body" 'd["exact"], d["value"] is None or d["lower"] == d["upper"], -16 <= d["lower"] <= d["upper"] <= 16, d["moves"]')" = "(False, True, True, [])" ]
get -I "$A/health"
check "HEAD health: 200" [ "$code" = 200 ]

# batch
get -X POST -H 'Content-Type: application/json' --data '["2x2","3x3@0,5","2x2:000000000000"]' "$A/analyze"
check "batch: 3 results in order" [ "$(json_get "$body" '[(r["pos"], r["value"]) for r in d["results"]]')" = "[('2x2', 2), ('3x3@0,5', -3), ('2x2:000000000000', 2)]" ]
get -X POST --data '{"positions":["3x3"]}' "$A/analyze"
check "batch: {positions:[...]} form" [ "$code" = 200 -a "$(json_get "$body" 'd["results"][0]["value"]')" = -3 ]
get -X POST --data '[]' "$A/analyze"
check "batch: empty list" [ "$code" = 200 -a "$(json_get "$body" 'd["results"]')" = "[]" ]

# play: legal, repeatable with a seed, default player
get "$A/play?pos=3x3@0,5&player=mcts:sims=300&seed=42"; m1=$(json_get "$body" 'd["move"]')
get "$A/play?pos=3x3@0,5&player=mcts:sims=300&seed=42"; m2=$(json_get "$body" 'd["move"]')
check "play: same seed, same move ($m1 $m2)" [ "$code" = 200 -a "$m1" = "$m2" ]
check "play: a legal line" [ "$m1" -ge 1 -a "$m1" -le 23 -a "$m1" != 5 ]
check "play: seed echoed, canonical player" [ "$(json_get "$body" 'd["seed"], d["player"].startswith("mcts:sims=300")')" = "('42', True)" ]
get "$A/play?pos=3x3@0,5"
check "play: default perfect, optimal move" [ "$(json_get "$body" 'd["player"].startswith("perfect"), d["move_value"] == d["value"]')" = "(True, True)" ]
get "$A/play?pos=7x7@0&player=chain&seed=1"
check "play: 7x7 with chain" [ "$code" = 200 -a "$(json_get "$body" 'd["move"] > 0')" = True ]

# every error class
get "$A/analyze?pos=3x3:0101";       check "malformed DBN: 400 bad_position" is_err 400 bad_position
get "$A/analyze?pos=3x3@0,0";        check "repeated move: 400 bad_position" is_err 400 bad_position
get "$A/analyze?pos=hello";          check "garbage: 400 bad_position" is_err 400 bad_position
get "$A/analyze";                    check "missing pos: 400 bad_position" is_err 400 bad_position
get "$A/analyze?pos=%ff%fe";         check "non-UTF-8 pos: 400 bad_position" is_err 400 bad_position
get "$A/analyze?pos=99x99";          check "board too large: 422 unknown_board" is_err 422 unknown_board
get "$A/analyze?pos=6x6";            check "board over 64 lines: 422 unknown_board" is_err 422 unknown_board
get "$A/play?pos=3x3&player=nosuch"; check "unknown player: 400 bad_player" is_err 400 bad_player
get "$A/play?pos=3x3&player=mcts:sims=0"; check "bad player option: 400 bad_player" is_err 400 bad_player
get "$A/play?pos=4x4&player=perfect"; check "player without oracle: 422 unknown_board" is_err 422 unknown_board
get "$A/play?pos=3x3&seed=-1";        check "bad seed: 400 bad_seed" is_err 400 bad_seed
get "$A/play?pos=1x1:1111";           check "game over: 422 game_over" is_err 422 game_over
get -X POST --data '[1,' "$A/analyze";       check "bad JSON: 400 bad_json" is_err 400 bad_json
get -X POST --data '{"a":1}' "$A/analyze";   check "not a list: 400 bad_json" is_err 400 bad_json
get -X POST --data '["3x3",7]' "$A/analyze"; check "batch item not a string: 400 bad_position" is_err 400 bad_position
get -X POST --data '["3x3","3x3:01"]' "$A/analyze"
check "batch bad position names its index" [ "$code" = 400 ] && check "... positions[1]" grep -q 'positions\[1\]' "$T/body"
get -X POST --data "[$(printf '"2x2",%.0s' $(seq 20))\"2x2\"]" "$A/analyze"
check "21 positions, max 20: 400 too_many_positions" is_err 400 too_many_positions
head -c 70000 /dev/zero | tr '\0' ' ' >"$T/big"
get -X POST --data-binary @"$T/big" "$A/analyze";  check "body over 64k: 413 body_too_large" is_err 413 body_too_large
get -X POST -H 'Transfer-Encoding: chunked' --data-binary @"$T/big" "$A/analyze"
check "chunked body over 64k: 413 body_too_large" is_err 413 body_too_large
get -X DELETE "$A/analyze";          check "DELETE: 405 method_not_allowed" is_err 405 method_not_allowed
curl -s -D "$T/hdr" -o /dev/null -X PUT "$A/boards"
check "405 has Allow: GET, HEAD" grep -qi '^Allow: GET, HEAD' "$T/hdr"
get -X POST --data x "$A/play";      check "POST play: 405" is_err 405 method_not_allowed
get "$A/nosuch";                     check "unknown endpoint: 404 not_found" is_err 404 not_found
get "${U}nosuch.html";               check "unknown page: 404" is_err 404 not_found
get "${U}";                          check "the board page" [ "$code" = 200 ] && check "... is HTML" grep -q 'board.js' "$T/body"
get "${U}board.js";                  check "board.js served" [ "$code" = 200 ]

# concurrent clients: 8 clients x 25 table probes while one client searches 4x4
curl -s -o "$T/search.json" "$A/analyze?pos=4x4@5,12,20,33,1,38,9,27,16,22" &
spid=$!
cpids=()
for c in $(seq 8); do
  (for i in $(seq 25); do curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "$A/analyze?pos=3x3@$c,$((c + 9))"; done >"$T/c$c") &
  cpids+=($!)
done
wait "$spid" "${cpids[@]}"
check "concurrent: 200 answers, all 200" [ "$(cat "$T"/c* | grep -c '^200 ')" = 200 ]
slowest=$(cat "$T"/c* | awk '{print $2}' | sort -g | tail -1)
check "concurrent: slowest table probe ${slowest}s < 1 s while searching" $PY -c "import sys; sys.exit(0 if $slowest < 1 else 1)"
check "concurrent: the search answered" [ "$(json_get "$(cat "$T/search.json")" 'd["source"]')" = search ]

# abuse: slow clients, malformed requests, oversized bodies; then a good answer
$PY bench/serve_abuse.py "$PORT" --slow 30 --malformed 500 --oversized 4 --hold 1 >"$T/abuse" 2>&1
check "abuse: server answers the next good request" grep -q 'abuse: ok' "$T/abuse" || cat "$T/abuse" >&2
check "abuse: server still running" kill -0 "$pid"

# shutdown: SIGTERM stops cleanly
kill -TERM "$pid"
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
wait "$pid"; rc=$?
check "SIGTERM: exit 0 (got $rc)" [ "$rc" = 0 ]
check "SIGTERM: says stopped" grep -q 'stopped after' "$T/serve.err"

"$DAB" serve --port 0 >"$T/one.out" 2>"$T/one.err" &
opid=$!
for _ in $(seq 100); do grep -q http "$T/one.out" && break; sleep 0.1; done
curl -s -o /dev/null "$(grep -o 'http://[^ ]*' "$T/one.out")api/v1/health"
kill -TERM "$opid"; wait "$opid"
check "one request: 'stopped after 1 request ('" grep -q 'stopped after 1 request (' "$T/one.err"

# A damaged table: a batch answers every other item; the damaged ones fail
# alone (kind corrupt_table); stderr says it once; /health counts them.
mkdir -p "$T/dtb"
"$DAB" build 3x3 -o "$T/dtb/good.dab" >/dev/null 2>&1
$PY - "$T/dtb/good.dab" "$T/dtb/3x3.dab" <<'PYEOF'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
offs, s = [], 0
while True:
    s = d.find(b"DBK1", s)
    if s < 0: break
    offs.append(s); s += 4
big = [o for o in offs if o % 4096 == 16]     # the biggest block record, in overflow pages
o = max(big, key=lambda o: min([x for x in offs if x > o] + [len(d)]) - o)
d[o + 100] ^= 0x5A
open(sys.argv[2], "wb").write(d)
PYEOF
$PY -c '
import json, random
r = random.Random(5)
print(json.dumps(["3x3:" + "".join(r.choice("01") for _ in range(24)) for _ in range(200)]))' >"$T/dbatch.json"
DAB_READONLY=1 "$DAB" serve --port 0 --tb "$T/dtb" --max-batch 1000 >"$T/dserve.out" 2>"$T/dserve.err" &
dpid=$!
for _ in $(seq 100); do grep -q http "$T/dserve.out" && break; sleep 0.1; done
DU=$(grep -o 'http://[^ ]*' "$T/dserve.out")api/v1
get -X POST --data-binary @"$T/dbatch.json" "$DU/analyze"
check "damaged table: the batch answers 200" [ "$code" = 200 ]
check "damaged table: one result per item, failed ones alone" $PY -c '
import json, subprocess, sys
d, items = json.loads(sys.argv[1]), json.load(open(sys.argv[2]))
res = d["results"]
bad = [r for r in res if "error" in r]
assert len(res) == len(items) and d["failed"] == len(bad) and 1 <= len(bad) < len(items) // 2, (len(res), len(bad))
assert all(r["kind"] == "corrupt_table" and "block" in r["error"] and r["pos"] == items[i]
           for i, r in enumerate(res) if "error" in r)
good = [(i, r) for i, r in enumerate(res) if "error" not in r][:5]
for i, r in good:   # answers equal the intact table
    want = json.loads(subprocess.check_output([sys.argv[3], "probe", sys.argv[4], items[i], "--json"]))
    assert (r["value"], r["moves"], r["best"]) == (want["value"], want["moves"], want["best"])
' "$body" "$T/dbatch.json" "$DAB" "$T/dtb/good.dab"
get "$DU/health"
check "damaged table: /health counts the failed answers" [ "$(json_get "$body" 'd["damaged"]')" -ge 1 ]
kill -TERM "$dpid"; wait "$dpid"
check "damaged table: stderr names the damage once" [ "$(grep -c 'layer [0-9]* block [0-9]*' "$T/dserve.err")" = 1 ]

# bad options
"$DAB" serve --port 99999 >/dev/null 2>"$T/e"; check "bad port: exit 2" [ $? = 2 ]
"$DAB" serve --bind nowhere --port 0 >/dev/null 2>"$T/e"; check "bad bind: exit 2" [ $? = 2 ]
finish test_serve
