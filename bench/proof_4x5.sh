#!/usr/bin/env bash
# bench/proof_4x5.sh: one budgeted slice of the divisible 4x5 proof
# (docs/proofs.md): resumes data/proofs/4x5, solves open subproblems for
# BUDGET seconds on THREADS threads, then prints the proof's state, the
# CPU time recorded so far, the median subproblem time and the estimate of
# what remains, plus wall time and peak RSS of the slice.
#   BUDGET=3600 THREADS=1 HASH=4G DIRECT=900 bench/proof_4x5.sh [extra dab options]
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET=${BUDGET:-3600} THREADS=${THREADS:-1} HASH=${HASH:-4G} DIRECT=${DIRECT:-900}
DIR=${DIR:-data/proofs/4x5}
./build.sh >/dev/null
/usr/bin/time -f "slice: %e s wall, %M KiB peak RSS" \
  nice -n "${NICE:-10}" bin/dab solve 4x5 --proof "$DIR" --budget "$BUDGET" --threads "$THREADS" \
  --hash "$HASH" --direct "$DIRECT" "$@"
bin/dab solve 4x5 --proof "$DIR" --verify --json || true
