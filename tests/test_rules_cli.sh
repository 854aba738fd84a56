#!/usr/bin/env bash
# test_rules_cli.sh: `dab train erl` / `dab train econ`, their rule files as
# players, `dab rules show --oracle`, `dab rules grade`, damaged files refused.
set -uo pipefail
source "$(dirname "$0")/clitest.sh"
tmp=$T
mkdir -p "$tmp/tb"; export DAB_TB_PATH="$tmp/tb"

run train erl --board 3x3 --games 600 --snapshot 200 --snap-games=20 --eval-games=40 --log "$tmp/erl.csv" --out "$tmp/erl.rules"
check "train erl exit 0 ($err)" [ "$rc" -eq 0 ]
check "train erl log: header + 3 rows" [ "$(wc -l <"$tmp/erl.csv")" -eq 4 ]
check "erl rule file: magic" [ "$(head -c 8 "$tmp/erl.rules")" = DABRULES ]
run train econ --board 3x3 --games 400 --full-games=200 --snapshot 200 --snap-games=20 --log "$tmp/econ.csv" --out "$tmp/econ.rules"
check "train econ exit 0 ($err)" [ "$rc" -eq 0 ]
check "econ log has the curriculum" grep -q "opp_random,prefill" "$tmp/econ.csv"
# Same seed, same run.
run train erl --board 3x3 --games 600 --snapshot 200 --snap-games=20 --eval-games=40 --out "$tmp/erl2.rules"
check "erl reproducible" cmp -s "$tmp/erl.rules" "$tmp/erl2.rules"
# A run's first N games are an N-game run's (beta follows the games played,
# not the run's length): the shorter log is the longer one's first rows.
run train erl --board 3x3 --games 400 --snapshot 200 --snap-games=20 --eval-games=40 --beta=to20 --log "$tmp/erl_short.csv" --out "$tmp/erl_short.rules"
run train erl --board 3x3 --games 600 --snapshot 200 --snap-games=20 --eval-games=40 --beta=to20 --log "$tmp/erl_long.csv" --out "$tmp/erl_long.rules"
check "erl: the first 400 of 600 games are a 400-game run's" \
  [ "$(cut -d, -f1,3- "$tmp/erl_short.csv")" = "$(head -3 "$tmp/erl_long.csv" | cut -d, -f1,3-)" ]
run train erl --board 3x3 --games 200 --snapshot 200 --snap-games=20 --eval-games=20 --beta=const20 --log "$tmp/erl_c20.csv" --out "$tmp/erl_c20.rules"
check "erl --beta=const20 exit 0 ($err)" [ "$rc" -eq 0 ]
check "erl --beta=const20 in the params" grep -q "beta=const20" "$tmp/erl_c20.rules"
check "erl --beta=const20: beta 20 in the log" [ "$(tail -1 "$tmp/erl_c20.csv" | cut -d, -f12)" = 20 ]

# Stopped (--stop-at) and resumed: the same rule file, and the log's rows
# but the seconds column.
run train erl --board 3x3 --games 600 --snapshot 200 --snap-games=20 --eval-games=40 --log "$tmp/erl3.csv" --out "$tmp/erl3.rules" --stop-at 333
check "erl --stop-at exit 0 ($err)" [ "$rc" -eq 0 ]
check "erl --stop-at names the checkpoint" grep -q -- "--resume $tmp/erl3.rules.ckpt" <<<"$err"
run train erl --board 3x3 --snap-games=5 --resume "$tmp/erl3.rules.ckpt" --out "$tmp/erl3.rules"
check "resume with a kind option: exit 2 (got $rc)" [ "$rc" -eq 2 ]
run train erl --board 3x3 --threads 2 --log "$tmp/erl3.csv" --resume "$tmp/erl3.rules.ckpt" --out "$tmp/erl3.rules"
check "erl --resume exit 0 ($err)" [ "$rc" -eq 0 ]
check "erl resumed = straight" cmp -s "$tmp/erl.rules" "$tmp/erl3.rules"
check "erl resumed log = straight log (but seconds)" \
  cmp -s <(cut -d, -f1,3- "$tmp/erl.csv") <(cut -d, -f1,3- "$tmp/erl3.csv")
run train econ --board 3x3 --games 400 --full-games=200 --snapshot 200 --snap-games=20 --pay=oracle --out "$tmp/econo.rules" --stop-at 250
check "econ --pay=oracle --stop-at exit 0 ($err)" [ "$rc" -eq 0 ]
run train econ --board 3x3 --resume "$tmp/econo.rules.ckpt" --out "$tmp/econo.rules"
check "econ --pay=oracle resumed exit 0 ($err)" [ "$rc" -eq 0 ]
check "econ rule file records the pay" grep -q "pay=oracle" "$tmp/econo.rules"
run train econ --board 3x3 --games 400 --pay=oracle --grade=0 --out "$tmp/x.rules"
check "econ --pay=oracle without grading: exit 2 (got $rc)" [ "$rc" -eq 2 ]
run rules show "$tmp/erl.rules" --oracle --games 60 --threads 1
o1=$out
run rules show "$tmp/erl.rules" --oracle --games 60 --threads 3
check "rules show --oracle: same grades on 1 and 3 threads" [ "$o1" = "$out" ]

for k in erl econ; do
  run arena --board 3x3 --p1 "$k:$tmp/$k.rules" --p2 chain --games 10
  check "arena $k:FILE exit 0 ($err)" [ "$rc" -eq 0 ]
  run rules show "$tmp/$k.rules" --oracle --games 50 --top 5
  check "rules show $k --oracle exit 0 ($err)" [ "$rc" -eq 0 ]
  check "rules show $k lists the best rules" grep -q "best rules" <<<"$out"
done
run rules grade --games 50 "x0n => x0 - n" "l0(1+)x1n => l0(1+)[0] - n"
check "rules grade exit 0 ($err)" [ "$rc" -eq 0 ]
check "taking an edge box is always optimal" grep -qE "1\.0000 +0\.0000  x0n => x0 - n" <<<"$out"
run rules grade "x0n => x0 - w"
check "rules grade: bad rule exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "rules grade: error names the column" grep -q "column 13" <<<"$err"

# Damage: one changed byte is refused, by the player and by rules show.
sed '6s/=/:/' "$tmp/erl.rules" >"$tmp/bad.rules"
run rules show "$tmp/bad.rules"
check "damaged file refused (got $rc)" [ "$rc" -ne 0 ]
check "damaged file: one-line error" [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]
run arena --board 3x3 --p1 "erl:$tmp/bad.rules" --p2 chain --games 2
check "damaged file refused as a player" [ "$rc" -ne 0 ]
run arena --board 2x2 --p1 "erl:$tmp/erl.rules" --p2 chain --games 2
check "another board refused (got $rc)" [ "$rc" -eq 2 ]

finish test_rules_cli
