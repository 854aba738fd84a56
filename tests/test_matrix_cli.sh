#!/usr/bin/env bash
# test_matrix_cli.sh: `dab matrix` as a user meets it: the equilibria and
# the published claims, payoff files good and bad, learning logs that repeat
# from a seed, and the plot (when gnuplot is installed).
set -u
source "$(dirname "$0")/clitest.sh"

run matrix bos --nash
check "bos exits 0" test "$rc" = 0
check "bos mixed NE exact" grep -q "row (3/5, 2/5) col (2/5, 3/5)" <<<"$out"
check "bos (M,O)/(O,M) claim refuted" grep -q 'DOES NOT HOLD 3.2 (b): "the pure NEs are (M,O)' <<<"$out"
check "bos 0.6/0.4 claim holds" grep -q 'holds .*probability 0.6 and 0.4' <<<"$out"

run matrix rps
check "rps NE exact" grep -q "mixed row (1/16, 5/8, 5/16) col (1/16, 5/8, 5/16)" <<<"$out"
check "rps (P,P) claim refuted" grep -q 'DOES NOT HOLD 3.2 (d): "one pure NE at (P,P)"' <<<"$out"
check "rps payoffs printed exactly" grep -q -- "-0.05, 0.05" <<<"$out"

run matrix pd
check "pd: one NE, (D,D), not Pareto" grep -q "1. pure  (D,D) .*not Pareto optimal" <<<"$out"

printf 'name stag hunt\nrows S H\ncols S H\n4,4 0,3\n3,0 3,3\n' >"$T/stag.txt"
run matrix --payoff "$T/stag.txt" --nash
check "payoff file read" test "$rc" = 0
check "stag hunt: 3 NEs" grep -q "Nash equilibria (exact): 3" <<<"$out"
check "stag hunt mixed NE" grep -q "row (3/4, 1/4) col (3/4, 1/4)" <<<"$out"

printf 'rows A B\n1,1 2,2\n3,3 4\n' >"$T/bad.txt"
run matrix --payoff "$T/bad.txt"
check "bad file exits 2" test "$rc" = 2
check "bad file: one line naming file:line" test "$(wc -l <<<"$err")" = 1
check "bad file: file:line" grep -q "$T/bad.txt:3: 3 numbers" <<<"$err"
run matrix --payoff "$T/missing.txt"
check "missing file exits 2" test "$rc" = 2
run matrix chess
check "unknown game exits 2" test "$rc" = 2
run matrix pd --learn sarsa
check "unknown learner exits 2" test "$rc" = 2
run matrix pd --payoff "$T/stag.txt"
check "game and --payoff refused" test "$rc" = 2

run matrix pd --learn egreedy --log "$T/a.csv" --seed 5
check "learn exits 0" test "$rc" = 0
check "learn ends at (D,D)" grep -q "ends at .*at NE (D,D)" <<<"$out"
check "log header" test "$(head -1 "$T/a.csv")" = "run,episode,row_C,row_D,col_C,col_D"
check "log rows: episodes 0..10000" test "$(wc -l <"$T/a.csv")" = 10002
check "log ends with D" $PY -c "
import sys; r=open(sys.argv[1]).read().split()[-1].split(','); sys.exit(not (r[1]=='10000' and float(r[3])>0.99 and float(r[5])>0.99))" "$T/a.csv"
run matrix pd --learn egreedy --log "$T/b.csv" --seed 5
check "same seed, same log" cmp -s "$T/a.csv" "$T/b.csv"
run matrix bos --learn lenient --log "$T/c.csv" --seed 6 --every 100 --runs 3 --kappa 2
check "lenient log: 3 runs x 101 rows" test "$(wc -l <"$T/c.csv")" = 304
check "kappa printed" grep -q "kappa = 2" <<<"$out"

printf 'zerosum\n0 1 2\n3 0 1\n1 1 0\n' >"$T/asym.txt"
run matrix --payoff "$T/asym.txt" --plot "$T/x.png"
check "plot of an asymmetric 3x3 refused" test "$rc" = 2
if command -v gnuplot >/dev/null; then
  run matrix rps --plot "$T/rps.png" --episodes 2000
  check "rps plot exits 0" test "$rc" = 0
  check "rps plot written" test -s "$T/rps.png"
  run matrix dispersion --learn egreedy --plot "$T/d.png" --runs 2 --episodes 1000
  check "2x2 plot written" test -s "$T/d.png"
fi
finish test_matrix_cli
