#!/usr/bin/env bash
# test_models.sh: the trained az models shipped in data/models load and
# play.  The 3x3 ones, against `perfect` in the arena, keep the optimal-
# move rate they were shipped with (0.872 forward, 0.885 backward over 100
# games, seed 7; random plays 0.627 there); the 5x5 ones (no oracle) play
# a legal move in positions from the empty board to the endgame, and each
# file's params name the method of the run it came from (oracle: the net
# dab.az_fit taught, at 800 simulations).
set -uo pipefail
source "$(dirname "$0")/clitest.sh"
mkdir -p "$T/tb"; export DAB_TB_PATH="$T/tb"
M=data/models

for v in forward backward; do
  run arena --board 3x3 --p1 "az:$M/az-3x3-$v.az" --p2 perfect --games 100 --seed 7 --json
  check "3x3 $v: arena exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
  opt=$(json_get "$out" "d['p1']['optimal_rate']" 2>/dev/null || echo 0)
  check "3x3 $v: optimal-move rate $opt >= 0.86" $PY -c "import sys; sys.exit(not float('$opt') >= 0.86)"
done

for v in forward backward oracle; do
  f="$M/az-5x5-$v.az"
  check "$f: params say method=$v" grep -aq "method=$v" "$f"
  for pos in 5x5 "5x5@0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19" \
      "5x5@30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,0,1,2,3,4,5"; do
    run play --player "az:$f" "$pos" --json
    check "5x5 $v in $pos: exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
    mv=$(json_get "$out" "d['move']" 2>/dev/null || echo -1)
    drawn=",${pos#5x5@},"
    check "5x5 $v in $pos: a legal move (got $mv)" \
      bash -c "[ '$mv' -ge 0 ] && [ '$mv' -lt 60 ] && [[ '$drawn' != *',$mv,'* ]]"
  done
done

finish test_models.sh
