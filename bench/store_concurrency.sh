#!/usr/bin/env bash
# store_concurrency.sh: 16 reader processes, then 16 reader threads, probe
# a 2x5 tablebase and look up solved records for SECONDS (default 60)
# while one writer adds records to the same file; every answer checked
# against a retrograde solve.  Prints one line per mode (throughput,
# errors, wrong values, peak RSS) and the baseline: one reader alone.
set -eu
cd "$(dirname "$0")/.."
SECONDS_RUN=${1:-60}
make -s build/bench/store_concurrency
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bin/dab build 2x5 -o "$T/2x5.dab" --threads 1 >/dev/null 2>&1
build/bench/store_concurrency "$T/2x5.dab" "$SECONDS_RUN" 1 threads
build/bench/store_concurrency "$T/2x5.dab" "$SECONDS_RUN" 16 procs
build/bench/store_concurrency "$T/2x5.dab" "$SECONDS_RUN" 16 threads
bin/dab check "$T/2x5.dab" && bin/dab verify "$T/2x5.dab" --threads 1
