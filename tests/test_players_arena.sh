#!/usr/bin/env bash
# test_players_arena.sh: `dab arena` options, errors, JSON keys, determinism.
set -uo pipefail
source "$(dirname "$0")/clitest.sh"
tmp=$T
# Tablebases built on first use go here, not into the project's data/tb/.
mkdir -p "$tmp/tb"; export DAB_TB_PATH="$tmp/tb"

# Bad input: one line on stderr, exit 2, nothing on stdout.
for args in "--board 3x3 --p1 nosuch --p2 random" "--board 3x3 --p1 mcts:sims=0 --p2 random" \
            "--board 3x3 --p1 random --p2 sw:2x2,agg=x" "--board 3x3 --p1 random" \
            "--board 3y3 --p1 random --p2 random" "--board 3x3 --p1 random --p2 random --games 0" \
            "--board 3x3 --p1 random --p2 random --start random:2" \
            "--board 4x4 --p1 perfect --p2 random" "--board 3x3 --p1 random --p2 random --bogus"; do
  $DAB arena $args >"$tmp/out" 2>"$tmp/err"; rc=$?
  check "arena $args: exit 2 (got $rc)" [ "$rc" -eq 2 ]
  check "arena $args: one-line error" [ "$(wc -l <"$tmp/err")" -eq 1 ]
  check "arena $args: no output" [ ! -s "$tmp/out" ]
done

# JSON summary with oracle metrics on 3x3; CSV and SVG written.
$DAB arena --board 3x3 --p1 level2 --p2 random --games 40 --threads 2 --seed 3 --json \
  --csv "$tmp/g.csv" --svg "$tmp/g.svg" >"$tmp/a.json"
check "arena json exit" [ $? -eq 0 ]
/usr/bin/python3 - "$tmp/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in ("p1", "p2"):
    for k in ("name", "wins", "losses", "ties", "margin", "optimal_rate", "boxes_lost_per_move", "blunders"):
        assert k in d[p], (p, k)
assert d["p1"]["wins"] + d["p1"]["losses"] + d["p1"]["ties"] == 40
assert d["p1"]["wins"] == d["p2"]["losses"] and abs(d["p1"]["margin"] + d["p2"]["margin"]) < 1e-9
assert 0 <= d["p1"]["optimal_rate"] <= 1 and d["p1"]["optimal_rate"] > d["p2"]["optimal_rate"]
PY
check "arena json keys and consistency" [ $? -eq 0 ]
check "arena csv rows" [ "$(wc -l <"$tmp/g.csv")" -eq 41 ]
check "arena svg is well-formed" /usr/bin/python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$tmp/g.svg"

# Same seed, any thread count: the same games.
a=$($DAB arena --board 4x4 --p1 chain --p2 mcts:sims=20 --games 12 --threads 1 --seed 9 --csv "$tmp/t1.csv" --json)
b=$($DAB arena --board 4x4 --p1 chain --p2 mcts:sims=20 --games 12 --threads 2 --seed 9 --csv "$tmp/t2.csv" --json)
check "arena no oracle on 4x4" bash -c "! grep -q optimal_rate <<<'$a'"
check "arena determinism across threads" [ "$(cut -d, -f1-7 "$tmp/t1.csv")" = "$(cut -d, -f1-7 "$tmp/t2.csv")" ]

# --oracle-search: the metrics of a board no table covers come from exact
# search, and equal the table's where both score every move (2x5).
export DAB_TB_NO_PROJECT=1
mkdir -p "$tmp/tb25"
$DAB arena --board 2x5 --p1 chain --p2 level2 --games 8 --seed 5 --oracle-search 100000000 --json \
  >"$tmp/s.json" 2>/dev/null
check "arena --oracle-search exit" [ $? -eq 0 ]
$DAB build 2x5 --tb "$tmp/tb25" >/dev/null 2>&1
$DAB arena --board 2x5 --p1 chain --p2 level2 --games 8 --seed 5 --tb "$tmp/tb25" --json >"$tmp/t.json"
/usr/bin/python3 - "$tmp/s.json" "$tmp/t.json" <<'PY'
import json, sys
s, t = (json.load(open(f)) for f in sys.argv[1:3])
assert s["oracle"] and s["oracle_source"] == "search" and s["oracle_search_nodes"] == 100000000, s
assert t["oracle"] and t["oracle_source"] == "table", t
for p in ("p1", "p2"):
    for k in ("optimal_rate", "boxes_lost_per_move", "scored_moves", "blunders", "moves"):
        assert s[p][k] == t[p][k], (p, k, s[p][k], t[p][k])
    assert s[p]["scored_moves"] == s[p]["moves"] > 0
PY
check "arena --oracle-search metrics equal the 2x5 table's" [ $? -eq 0 ]
o=$($DAB arena --board 4x4 --p1 chain --p2 level2 --games 2 --oracle-search 20000 --json 2>/dev/null)
check "arena --oracle-search on 4x4 scores only what it proves" /usr/bin/python3 -c "
import json, sys
d = json.loads(sys.argv[1])
assert d['oracle_source'] == 'search'
assert all(0 < d[p]['scored_moves'] < d[p]['moves'] for p in ('p1', 'p2')), d
" "$o"

# Starts: a fixed position, and random starts shared by each pair of games.
$DAB arena --p1 level1 --p2 level1 --start "3x3@0,1,2" --games 4 --csv "$tmp/s.csv" >/dev/null
check "arena --start POS" bash -c "[ \"\$(tail -n +2 '$tmp/s.csv' | cut -d, -f3 | sort -u)\" = 3 ]"
$DAB arena --board 5x5 --p1 level2 --p2 chain --start random:0.3 --games 6 --csv "$tmp/r.csv" >/dev/null
# 6 games = 3 pairs: 3 different starts, each shared by its pair.
check "arena --start random" bash -c "[ \$(tail -n +2 '$tmp/r.csv' | cut -d, -f14 | sort -u | wc -l) -eq 3 ]"

# dab play: one move; with an oracle, the analysis and the move's value.
out=$($DAB play "2x2@0,1" --json)
check "play json" /usr/bin/python3 -c "
import json, sys
d = json.loads(sys.argv[1])
assert d['move'] in d['best'] and d['move_value'] == d['value'] and d['player'].startswith('perfect')
" "$out"
out=$($DAB play 9x9 --player chain --seed 4)
check "play 9x9 chain" grep -q "^chain plays [0-9]" <<<"$out"
$DAB play 3x3 --player mcts:c=x >/dev/null 2>"$tmp/err"; rc=$?
check "play bad spec: exit 2, one line" bash -c "[ $rc -eq 2 ] && [ \$(wc -l <'$tmp/err') -eq 1 ]"

finish test_players_arena.sh
