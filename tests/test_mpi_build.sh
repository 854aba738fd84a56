#!/usr/bin/env bash
# test_mpi_build.sh: `mpirun -np 3 dab build RxC --mpi` (ranks computing
# slices of every layer, rank 0 writing) gives the same file, byte for
# byte, as the one-process build: 3x4 (31 M entries, 13 layers of several
# slices) and 2x3 (layers smaller than the ranks: empty slices).  Needs a
# dab built with MPI (make MPI=1; $DAB_MPI_BIN names another binary) and
# mpirun; without them it says so and checks nothing.
set -u
source "$(dirname "$0")/clitest.sh"
export DAB_TB_NO_PROJECT=1 SOURCE_DATE_EPOCH=1700000000
# Open MPI refuses root unless told; CI containers run as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIDAB=${DAB_MPI_BIN:-$DAB}

if ! command -v mpirun >/dev/null; then
  echo "test_mpi_build: no mpirun (apt-get install openmpi-bin libopenmpi-dev; make MPI=1): skipped"
  finish test_mpi_build
  exit
fi
if "$MPIDAB" build 2x2 -o "$T/probe.dab" --mpi 2>&1 | grep -q "built without MPI"; then
  echo "test_mpi_build: $MPIDAB was built without MPI (make MPI=1): skipped"
  finish test_mpi_build
  exit
fi
mpi() { mpirun --oversubscribe -np "$1" "$MPIDAB" "${@:2}"; }

for board in 2x3 3x4; do
  "$DAB" build "$board" -o "$T/$board.one.dab" --threads 2 >"$T/one.out" 2>&1
  check "$board one-process build exits 0" test $? = 0
  mpi 3 build "$board" -o "$T/$board.mpi.dab" --mpi --threads 1 >"$T/mpi.out" 2>"$T/mpi.err"
  rc=$?
  check "$board mpirun -np 3 --mpi exits 0" test "$rc" = 0
  [ "$rc" = 0 ] || tail -n 5 "$T/mpi.err" >&2
  check "$board --mpi: one report line, from rank 0" test "$(grep -c "$board.mpi.dab: $board" "$T/mpi.out")" = 1
  check "$board --mpi file byte-identical to one process" cmp -s "$T/$board.one.dab" "$T/$board.mpi.dab"
  check "$board --mpi leaves no layers directory" test ! -e "$T/$board.mpi.dab.layers"
done
check "3x4 --mpi value 0" grep -q "value +0" "$T/mpi.out"

# The MPI build writes through the layered builder only.
mpi 1 build 2x2 -o "$T/fa.dab" --mpi --full-array >/dev/null 2>"$T/fa.err"
check "--mpi --full-array exits 2" test $? = 2
check "--mpi --full-array names the reason" grep -q "layered builder" "$T/fa.err"

finish test_mpi_build
