#!/usr/bin/env bash
# test_fuzz_smoke.sh: the CI smoke run of the fuzzers: every harness of
# tests/fuzz/ for a few seconds (FUZZ_SMOKE_SECONDS, default 8; two at a
# time) under ASan/UBSan, after replaying its seed corpus (which holds every
# input a fuzzer once crashed on).  A parser regression fails here.
# Needs Debian's clang (build.sh installs it).
set -u
cd "$(dirname "$0")/.." || exit 1
pass=0 fail=0
if ! command -v clang >/dev/null; then
  echo "FAIL: clang is missing (apt-get install clang; build.sh installs it)" >&2
  echo "test_fuzz_smoke: 0 passed, 1 failed"; exit 1
fi
# The tablebase seeds must be files of the current format: a seed that no
# longer opens leaves the tb harness fuzzing the header parser alone.
for f in tests/fuzz/corpus/tb/seed-*; do
  if bin/dab verify "$f" >/dev/null 2>&1; then pass=$((pass + 1))
  else fail=$((fail + 1)); echo "FAIL: $f does not verify (rebuild it: bin/dab build RxC -o $f)" >&2; fi
done
out=$(FUZZ_JOBS=2 bench/fuzz.sh "${FUZZ_SMOKE_SECONDS:-8}" 2>&1); rc=$?
while read -r line; do
  case "$line" in
    *" findings 0  exit 0") pass=$((pass + 1)) ;;
    *findings*) fail=$((fail + 1)); echo "FAIL: $line" >&2 ;;
  esac
done <<<"$out"
((pass + fail == 7 + $(ls tests/fuzz/corpus/tb/seed-* | wc -l))) || { printf '%s\n' "$out" | tail -20 >&2; fail=$((fail + 1)); }
((rc == 0)) || ((fail)) || fail=1
echo "test_fuzz_smoke: $pass passed, $fail failed"
((fail == 0))
