#!/usr/bin/env bash
# bench/fuzz.sh: coverage-guided fuzzing of every parser and file reader
# (tests/fuzz/fuzz_*.c) with libFuzzer from Debian's clang, under ASan and
# UBSan.  Builds the library with clang into $FUZZ_BUILD (default
# build-fuzz/), then runs each harness for SECONDS on a working corpus
# seeded from tests/fuzz/corpus/NAME/ (kept in $FUZZ_BUILD/corpus/NAME, so
# later runs start where earlier ones stopped).
# Usage: bench/fuzz.sh [SECONDS] [NAME...]   (default 60 s, every harness;
#        NAME: position sle player proof tb model rules)
# Prints one line per harness: executions, exec/s, coverage (libFuzzer's
# "cov", edges reached), corpus size, peak RSS,
# wall time and findings (crash/leak/timeout files in $FUZZ_BUILD/findings/);
# exits 1 when any harness found something.  FUZZ_JOBS=N runs N harnesses
# at once (default 1).
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}; shift || true
names=("$@")
((${#names[@]})) || names=(position sle player proof tb model rules)
B=${FUZZ_BUILD:-build-fuzz}
command -v clang >/dev/null || { echo "bench/fuzz.sh: clang is missing (apt-get install clang)" >&2; exit 2; }
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
# Debian's clang 14 knows no "x86-64-v3" CPU name at run time: the fuzz
# build takes the portable paths (-DDAB_ISA_HAVE_V3=0).
mkdir -p "$B"
make -s -j2 CC=clang BUILD="$B" BIN="$B/bin" \
  OPT="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $SAN -DDAB_ISA_HAVE_V3=0" \
  "$B/libdab.a" >"$B/make.log" 2>&1 || { tail -20 "$B/make.log"; echo "bench/fuzz.sh: library build failed" >&2; exit 1; }
LIBS="-llmdb -lzstd -lxxhash -lpthread -lm $(pkg-config --libs libmicrohttpd jansson 2>/dev/null || echo -lmicrohttpd -ljansson)"
mkdir -p "$B/fuzz" "$B/findings"
for n in "${names[@]}"; do
  src=tests/fuzz/fuzz_$n.c
  [ -f "$src" ] || { echo "bench/fuzz.sh: no harness $src" >&2; exit 2; }
  if [ ! -x "$B/fuzz/$n" ] || [ "$src" -nt "$B/fuzz/$n" ] || [ "$B/libdab.a" -nt "$B/fuzz/$n" ]; then
    clang -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer $SAN -I. \
      "$src" "$B/libdab.a" $LIBS -o "$B/fuzz/$n" || exit 1
  fi
done

run_one() {  # name: runs the harness, prints its line
  local n=$1 c="$B/corpus/$1" log="$B/fuzz/$1.log"
  mkdir -p "$c"
  [ -d "tests/fuzz/corpus/$n" ] && cp -n tests/fuzz/corpus/"$n"/* "$c"/ 2>/dev/null
  local dict=(); [ -f "tests/fuzz/$n.dict" ] && dict=(-dict="tests/fuzz/$n.dict")
  local t0=$SECONDS
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$B/fuzz/$n" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$B/findings/$n-" "${dict[@]}" "$c" >"$log" 2>&1
  local rc=$? wall=$((SECONDS - t0))
  local execs rate rss cov
  cov=$(sed -nE 's/^#[0-9]+\t(DONE|INITED) +cov: ([0-9]+).*/\2/p' "$log" | tail -1)
  execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)
  rate=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+).*/\1/p' "$log" | tail -1)
  rss=$(sed -nE 's/^stat::peak_rss_mb: *([0-9]+).*/\1/p' "$log" | tail -1)
  local found; found=$(ls "$B/findings" 2>/dev/null | grep -c "^$n-")
  printf '%-9s executions %10s  exec/s %7s  cov %5s  corpus %5d  peak RSS %5s MB  wall %4d s  findings %d  exit %d\n' \
    "$n" "${execs:-0}" "${rate:-0}" "${cov:-?}" "$(ls "$c" | wc -l)" "${rss:-?}" "$wall" "$found" "$rc"
  ((rc == 0 && found == 0))
}

status=0 jobs=${FUZZ_JOBS:-1}
if ((jobs > 1)); then
  for n in "${names[@]}"; do
    run_one "$n" >"$B/fuzz/$n.line" &
    while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
  done
  wait
  for n in "${names[@]}"; do cat "$B/fuzz/$n.line"; grep -q "findings 0  exit 0" "$B/fuzz/$n.line" || status=1; done
else
  for n in "${names[@]}"; do run_one "$n" || status=1; done
fi
((status)) && echo "bench/fuzz.sh: findings in $B/findings/ (reproduce: $B/fuzz/NAME FILE)"
exit $status
