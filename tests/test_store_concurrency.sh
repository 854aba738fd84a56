#!/usr/bin/env bash
# test_store_concurrency.sh: 16 readers probe a 2x5 tablebase (against a
# retrograde solve) and look up solved records while one writer adds them,
# as processes and as threads, for a few seconds each: no errors, no wrong
# values, and no lock file left once they are all done
# (build/bench/store_concurrency; bench/store_concurrency.sh runs
# the 60-second version; DAB_CONCURRENCY_SECONDS sets the seconds, and
# tests/run.sh --tsan runs it on the ThreadSanitizer build).
source "$(dirname "${BASH_SOURCE[0]}")/clitest.sh"
B=${DAB_BENCH_DIR:-build/bench}/store_concurrency
check "the concurrency program is built" test -x "$B"
"$DAB" build 2x5 -o "$T/2x5.dab" --threads 1 >/dev/null 2>&1
check "2x5 built" test -f "$T/2x5.dab"
for mode in procs threads; do
  out=$("$B" "$T/2x5.dab" "${DAB_CONCURRENCY_SECONDS:-3}" 16 $mode 2>&1); rc=$?
  echo "$out"
  check "$mode: exit 0" test "$rc" = 0
  check "$mode: no errors, no wrong values" grep -q "errors 0, wrong 0" <<<"$out"
  check "$mode: the writer committed records" grep -qE "writer [1-9][0-9]* records" <<<"$out"
  # Processes spend their first seconds opening and decompressing (16 on
  # 2 cores): they must look records up; threads must also find some.
  check "$mode: readers looked records up" grep -qE " [1-9][0-9]* store lookups" <<<"$out"
  [ $mode = threads ] && check "threads: readers found stored records" grep -qE "lookups \([1-9][0-9]* found\)" <<<"$out"
done
check "the last user removed the lock file" test ! -e "$T/2x5.dab-lock"
run check "$T/2x5.dab"
check "the file passes check afterwards" test "$rc" = 0
run verify "$T/2x5.dab" --threads 1
check "the file verifies afterwards" test "$rc" = 0
finish test_store_concurrency.sh
