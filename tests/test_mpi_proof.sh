#!/usr/bin/env bash
# test_mpi_proof.sh: `mpirun -np 3 dab solve POS --proof DIR --mpi` (rank 0
# hands subproblems to two workers and alone writes DIR) proves what one
# process proves, its records verify, a worker killed mid-run loses only
# the searches in flight (the rerun finishes the proof), and a bad option
# or a dab without MPI is refused.  Needs a dab built with MPI (make MPI=1;
# $DAB_MPI_BIN names it) and mpirun; without them it checks nothing.
set -u
source "$(dirname "$0")/clitest.sh"
export DAB_TB_NO_PROJECT=1 XDG_CACHE_HOME="$T/cache"
# Open MPI refuses root unless told; CI containers run as root.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIDAB=${DAB_MPI_BIN:-$DAB}

run solve 2x2 --proof "$T/x" --claim =2 --mpi --verify
check "--mpi --verify is refused (exit 2, one line)" test "$rc" = 2 -a "$(wc -l <<<"$err")" = 1
if ! command -v mpirun >/dev/null; then
  echo "test_mpi_proof: no mpirun (apt-get install openmpi-bin libopenmpi-dev; make MPI=1): skipped"
  finish test_mpi_proof
  exit
fi
if "$MPIDAB" solve 2x2 --proof "$T/probe" --claim =2 --mpi 2>&1 | grep -q "built without MPI"; then
  echo "test_mpi_proof: $MPIDAB was built without MPI (make MPI=1): skipped"
  finish test_mpi_proof
  exit
fi
mpi() { mpirun --oversubscribe -np "$1" "$MPIDAB" "${@:2}"; }
records() { cat "$1"/rec-*.txt 2>/dev/null | grep -c '^3x4'; }

# The same proof as one process, and records that verify.
"$DAB" solve 3x4 --proof "$T/one" --claim =0 --depth 3 --hash 16M --no-store >"$T/one.out" 2>&1
check "one process proves 3x4 = 0" grep -q "): proved" "$T/one.out"
mpi 3 solve 3x4 --proof "$T/mpi" --claim =0 --depth 3 --hash 16M --no-store --mpi >"$T/mpi.out" 2>"$T/mpi.err"
rc=$?
check "mpirun -np 3 --mpi exits 0" test "$rc" = 0
[ "$rc" = 0 ] || tail -n 5 "$T/mpi.err" >&2
check "--mpi proves 3x4 = 0" grep -q "): proved" "$T/mpi.out"
check "--mpi: one summary, from rank 0" test "$(grep -c '^proof of value' "$T/mpi.out")" = 1
check "--mpi: one records file (rank 0 writes alone)" test "$(ls "$T/mpi"/rec-*.txt | wc -l)" = 1
n1=$(records "$T/one") n3=$(records "$T/mpi")
check "--mpi: at least the records of one process ($n3 >= $n1)" test "$n3" -ge "$n1" -a "$n1" -gt 0
run solve 3x4 --proof "$T/mpi" --verify --no-store
check "--mpi records verify" test "$rc" = 0
check "--mpi records: the claim proved" grep -q "verified: the records prove value(3x4) =+0" <<<"$out"

# One rank alone searches itself.
mpi 1 solve 2x3 --proof "$T/alone" --claim =-2 --depth 2 --no-store --mpi >"$T/alone.out" 2>&1
check "-np 1 --mpi: rank 0 searches alone" grep -q "): proved" "$T/alone.out"

# kill -9 a worker mid-run: mpirun ends the job, the records stay, the
# rerun continues from them and finishes.
mpi 3 solve 3x4 --proof "$T/kill" --claim =0 --depth 5 --hash 16M --no-store --mpi >"$T/k1.out" 2>&1 &
job=$!
victim=""
for _ in $(seq 400); do
  [ "$(records "$T/kill")" -ge 100 ] && break
  sleep 0.05
done
for pid in $(pgrep -f "proof $T/kill"); do
  grep -qz '^OMPI_COMM_WORLD_RANK=1$' "/proc/$pid/environ" 2>/dev/null && victim=$pid
done
check "a worker (rank 1) to kill" test -n "$victim"
[ -n "$victim" ] && kill -9 "$victim"
wait "$job"
rc=$?
before=$(records "$T/kill")
check "the killed job fails ($rc) with records kept ($before)" test "$rc" != 0 -a "$before" -ge 100
run solve 3x4 --proof "$T/kill" --verify --no-store
check "the records of the killed job are sound but open (exit 1)" test "$rc" = 1
mpi 3 solve 3x4 --proof "$T/kill" --hash 16M --no-store --mpi >"$T/k2.out" 2>&1
check "the rerun finishes the proof" grep -q "): proved" "$T/k2.out"
run solve 3x4 --proof "$T/kill" --verify --no-store
check "the records after the rerun verify" test "$rc" = 0

finish test_mpi_proof
