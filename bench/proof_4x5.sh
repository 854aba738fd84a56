#!/usr/bin/env bash
# bench/proof_4x5.sh: one budgeted slice of the divisible 4x5 proof
# (docs/proofs.md): resumes data/proofs/4x5, solves open subproblems for
# BUDGET seconds on THREADS threads, then prints the proof's state, the
# CPU time recorded so far, the median subproblem time and the estimate of
# what remains, plus wall time and peak RSS of the slice.
#   BUDGET=3600 THREADS=2 HASH=16G DIRECT=900 LEAF=1200 bench/proof_4x5.sh [extra dab options]
# Defaults: every core in one process (lazy SMP gave 1.76x on two threads on
# a cold 4x5 leaf, and one warm table serves the siblings), a 16 GiB table
# (plus 1.5 GiB of key cache: 17.5 GiB of the machine's 24), and leaves that
# run past LEAF seconds split further (docs/proofs.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BUDGET=${BUDGET:-3600} THREADS=${THREADS:-$(nproc)} HASH=${HASH:-16G} DIRECT=${DIRECT:-900} LEAF=${LEAF:-1200}
DIR=${DIR:-data/proofs/4x5}
./build.sh >/dev/null
/usr/bin/time -f "slice: %e s wall, %M KiB peak RSS" \
  nice -n "${NICE:-10}" bin/dab solve 4x5 --proof "$DIR" --budget "$BUDGET" --threads "$THREADS" \
  --hash "$HASH" --direct "$DIRECT" --leaf-limit "$LEAF" "$@"
bin/dab solve 4x5 --proof "$DIR" --verify --json || true
