#!/usr/bin/env bash
# tests/run.sh: build, then run every test program and the Python tests.
# Usage: tests/run.sh [--quick] [--san | --tsan]
#   --quick  the edit-test loop, about a minute: every C test at its
#            sanitizer sizes (DAB_TEST_SAN=1; test_ab only its threaded
#            checks), the fast shell tests; leaves out the slow ones
#            (QUICK_SKIP below) and the Python tests.  The full suite (no
#            option) is the test command of README and CI.
#   --san    build and run the C tests under ASan/UBSan (build-san/)
#   --tsan   build and run the threaded tests under ThreadSanitizer
#            (build-tsan/: test_ab's lazy-SMP and analysis-thread checks,
#            test_oracle's threads sharing one searching oracle, test_az's
#            self-play on two threads, and test_store_concurrency.sh:
#            readers beside a writer)
# BUILD=DIR tests/run.sh [--quick] builds and tests in DIR instead of build/.
# Ends with one line "N passed, N failed"; exits 1 if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."

san=0 tsan=0 quick=0
for a in "$@"; do
  case "$a" in
    --quick) quick=1 ;;
    --san) san=1 ;;
    --tsan) san=1 tsan=1 ;;
    *) echo "tests/run.sh: unknown option '$a' (use --quick, --san or --tsan)" >&2; exit 2 ;;
  esac
done
# What --quick leaves out: tests of 5 s or more at their smallest sizes.
QUICK_SKIP=(test_proof.sh test_solvestore.sh test_bad_input.sh test_serve.sh test_serve_browser.sh
            test_tb_cli.sh test_players_arena.sh test_rules_cli.sh test_mpi_build.sh test_mpi_proof.sh
            test_store_concurrency.sh test_az_2x2.sh test_bench_azrun.sh test_plans.sh test_cache.sh)
skip() {  # name: true when --quick leaves it out
  ((quick)) || return 1
  local n; for n in "${QUICK_SKIP[@]}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}

if ((tsan)); then
  ./build.sh SAN=thread tests build-tsan/bench/store_concurrency >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
  dir=build-tsan/tests
  export TSAN_OPTIONS=halt_on_error=1:report_signal_unsafe=0
  export DAB_TEST_TSAN=1
elif ((san)); then
  ./build.sh SAN=1 tests >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
  dir=build-san/tests
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
  export DAB_TEST_SAN=1
else
  # BUILD=DIR: build and test in DIR (binary in DIR/bin), not build/ and bin/.
  b=${BUILD:-build} bin=bin
  [ -n "${BUILD:-}" ] && bin=$BUILD/bin
  ./build.sh BUILD="$b" BIN="$bin" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
  dir=$b/tests
  # test_mpi_build.sh runs the Open MPI binary (make MPI=1) under mpirun.
  if ((!quick)) && command -v mpicc >/dev/null; then
    make -s -j"$(nproc)" MPI=1 build-mpi/bin/dab >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
    export DAB_MPI_BIN="$PWD/build-mpi/bin/dab"
  fi
fi
export DAB_BIN="$PWD/${bin:-bin}/dab" DAB_LIB="$PWD/${b:-build}/libdab.so"
((quick && !san)) && export DAB_TEST_SAN=1
# the fuzz smoke run: 3 s a harness in the edit-test loop, 8 s in the full suite
((quick)) && export FUZZ_SMOKE_SECONDS=${FUZZ_SMOKE_SECONDS:-3}

# pytest over python/tests, its summary as "pytest: N passed, M failed".
python_tests_pytest() {
  local out rc sum p f
  out=$(.venv/bin/python -m pytest -q -rfEs -p no:cacheprovider python/tests 2>&1); rc=$?
  printf '%s\n' "$out" | grep -E '^(FAILED|ERROR|SKIPPED)' | head -n 40
  sum=$(printf '%s\n' "$out" | tail -n 1)
  p=$(grep -oE '[0-9]+ passed' <<<"$sum" | grep -oE '[0-9]+' || echo 0)
  f=$(( $(grep -oE '[0-9]+ failed' <<<"$sum" | grep -oE '[0-9]+' || echo 0) + $(grep -oE '[0-9]+ errors?' <<<"$sum" | grep -oE '[0-9]+' || echo 0) ))
  ((rc != 0 && f == 0)) && { printf '%s\n' "$out" | tail -n 20; f=1; }
  echo "pytest: $p passed, $f failed"
}

passed=0 failed=0
run_one() {  # name, command...
  local name=$1; shift
  local out rc line
  local t0=$SECONDS
  out=$("$@" 2>&1); rc=$?
  line=$(printf '%s\n' "$out" | grep -E '^[A-Za-z0-9_.-]+: [0-9]+ passed, [0-9]+ failed' | tail -n 1)
  if [ -z "$line" ]; then
    printf '%s\n' "$out" | tail -n 20
    echo "$name: crashed or printed no summary (exit $rc)"
    failed=$((failed + 1)); return
  fi
  local p f
  p=$(sed -E 's/.*: ([0-9]+) passed.*/\1/' <<<"$line")
  f=$(sed -E 's/.*passed, ([0-9]+) failed.*/\1/' <<<"$line")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  ((f)) && printf '%s\n' "$out" | grep -E 'FAIL|ERROR|runtime error|Sanitizer' | head -n 20
  # test_alloc_fail's coverage: scenarios, failure points, sites swept
  printf '%s\n' "$out" | grep -E '^alloc-fail: [0-9]+ scenarios'
  echo "$line  ($((SECONDS - t0)) s)"
  passed=$((passed + p)); failed=$((failed + f))
}

for t in "$dir"/test_*; do
  [ -x "$t" ] || continue
  if ((tsan)); then
    case "$(basename "$t")" in test_ab | test_oracle | test_pdb | test_az) ;; *) continue ;; esac
  fi
  if ((tsan)) && [ "$(basename "$t")" = test_pdb ]; then
    run_one test_pdb env DAB_TEST_TSAN=1 "$t"; continue
  fi
  if ((quick && !tsan)) && [ "$(basename "$t")" = test_ab ]; then
    run_one test_ab env DAB_TEST_TSAN=1 "$t"; continue
  fi
  skip "$(basename "$t")" || run_one "$(basename "$t")" "$t"
done
if ((tsan)); then
  run_one test_store_concurrency.sh env DAB_BENCH_DIR=build-tsan/bench DAB_CONCURRENCY_SECONDS=6 \
    bash tests/test_store_concurrency.sh
fi
if ((!san)); then
  for s in tests/test_*.sh; do
    [ -f "$s" ] && ! skip "$(basename "$s")" && run_one "$(basename "$s")" bash "$s"
  done
  # The Python tests, with pytest from .venv/ (python/mkvenv.sh makes it
  # with the pinned PyPI packages): python/tests/, which also runs each
  # python/test_*.py script under /usr/bin/python3.  pytest's summary
  # becomes this runner's "pytest: N passed, M failed" (skips are listed
  # with their reasons, and count as neither).
  if ((!quick)); then
    python/mkvenv.sh
    if [ -x .venv/bin/python ] && .venv/bin/python -c 'import pytest' 2>/dev/null; then
      run_one pytest python_tests_pytest
    else
      echo "pytest: .venv/ has no pytest (PyPI unreachable?): running the script tests alone; the ecosystem tests did not run"
      for p in python/test_*.py; do
        [ -f "$p" ] && run_one "$(basename "$p")" /usr/bin/python3 "$p"
      done
    fi
  fi
fi
echo "$passed passed, $failed failed"
((failed == 0))
