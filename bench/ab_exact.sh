#!/usr/bin/env bash
# bench/ab_exact.sh: the alpha-beta exactness check at the issue's scale:
# the default solver against the retrograde tables on 10^6 random positions
# each of 3x3, 2x5 and 3x4 (EXACT="RxC=N,..." to change).  SCALE=N instead
# runs the whole test_ab suite with its counts times N.
# Prints the per-board lines, wall time and peak RSS.
set -uo pipefail
cd "$(dirname "$0")/.."
./build.sh >/dev/null || { echo "bench/ab_exact.sh: build failed" >&2; exit 1; }
if [ -n "${SCALE:-}" ]; then
  export DAB_AB_TEST_SCALE=$SCALE
else
  export DAB_AB_EXACT=${EXACT:-3x3=1000000,2x5=1000000,3x4=1000000}
fi
/usr/bin/time -f 'wall %e s, peak RSS %M KiB' nice -n 5 build/tests/test_ab
