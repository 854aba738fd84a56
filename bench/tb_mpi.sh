#!/usr/bin/env bash
# bench/tb_mpi.sh: one layered build over the ranks of an MPI job against
# the one-process build of the same board: wall time of each and the
# files compared byte for byte (SOURCE_DATE_EPOCH fixes the build date).
# Usage: bench/tb_mpi.sh [RxC] [NP] [THREADS]   (default 3x5 3 1)
# 3x5 takes 1.9 GB per rank and tens of minutes on 2 cores: run it on an
# idle machine.  Needs a dab built with MPI (make MPI=1; $DAB names it).
set -euo pipefail
cd "$(dirname "$0")/.."
DAB=${DAB:-bin/dab}
board=${1:-3x5} np=${2:-3} threads=${3:-1}
export SOURCE_DATE_EPOCH=1700000000 DAB_TB_NO_PROJECT=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T=$(mktemp -d /tmp/dab-tbmpi-XXXXXX)
trap 'rm -rf "$T"' EXIT
t0=$(date +%s.%N)
"$DAB" build "$board" -o "$T/one.dab" --threads "$threads" >/dev/null 2>&1
t1=$(date +%s.%N)
mpirun --oversubscribe -np "$np" "$DAB" build "$board" -o "$T/mpi.dab" --mpi --threads "$threads" >/dev/null 2>&1
t2=$(date +%s.%N)
same=$(cmp -s "$T/one.dab" "$T/mpi.dab" && echo byte-identical || echo DIFFERENT)
printf '%s: one process %s thread(s) %.1f s; mpirun -np %s x %s thread(s) %.1f s; files %s\n' \
  "$board" "$threads" "$(awk "BEGIN{print $t1 - $t0}")" "$np" "$threads" "$(awk "BEGIN{print $t2 - $t1}")" "$same"
[ "$same" = byte-identical ]
