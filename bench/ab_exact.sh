#!/usr/bin/env bash
# bench/ab_exact.sh: the alpha-beta exactness test at a larger scale than CI:
# SCALE=10 (default) compares 10^6 random positions each of 3x3 and 2x5 and
# 2*10^4 of 3x4 (plus every position of 2x3 and 1x6) with the retrograde
# tables.  Prints the test's per-board lines, wall time and peak RSS.
set -uo pipefail
cd "$(dirname "$0")/.."
./build.sh >/dev/null || { echo "bench/ab_exact.sh: build failed" >&2; exit 1; }
DAB_AB_TEST_SCALE=${SCALE:-10} /usr/bin/time -f 'wall %e s, peak RSS %M KiB' nice -n 5 build/tests/test_ab
