#!/usr/bin/env bash
# serve_load.sh: load on `dab serve`, loopback only, bounded in time (wrk
# from Debian).  1. 100 connections for DUR s (default 30) of GET /analyze
# on 1000 random 3x4 positions (the 3x4 table; built first if missing).
# 2. The same while one client runs 4x4 searches back to back: the table
# answers' p99.  3. Abuse (bench/serve_abuse.py): 200 slow clients, 10,000
# malformed requests, 20 oversized bodies, then one good request.
# A baseline first: GET /health, the HTTP path without the oracle.
# Prints requests/s, p50/p99, errors, the load average, wall time and the
# server's peak RSS.  Usage: bench/serve_load.sh [DUR]
set -euo pipefail
cd "$(dirname "$0")/.."
DAB=${DAB_BIN:-$PWD/bin/dab}
DUR=${1:-30}
T=$(mktemp -d /tmp/dab-load-XXXXXX)
t_start=$SECONDS
command -v wrk >/dev/null || { echo "serve_load: wrk missing (apt-get install wrk)" >&2; exit 1; }

"$DAB" probe 3x4 3x4 >/dev/null 2>&1 || { echo "serve_load: building the 3x4 table first" >&2; "$DAB" build 3x4 >&2; }

"$DAB" serve --port 0 >"$T/serve.out" 2>"$T/serve.err" &
spid=$!
# (under set -e a failing kill in the trap, e.g. of no searcher, would
# make the exit status 2)
trap 'kill $spid 2>/dev/null || true; [ -z "$bg" ] || kill $bg 2>/dev/null || true; rm -rf "$T"' EXIT
bg=
for _ in $(seq 100); do grep -q http "$T/serve.out" && break; sleep 0.1; done
U=$(grep -o 'http://[^ ]*' "$T/serve.out"); PORT=${U#http://127.0.0.1:}; PORT=${PORT%/}
src=$(curl -s "${U}api/v1/analyze?pos=3x4" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["source"])')
echo "serve_load: 3x4 answered from: $src"

# 1000 random 3x4 positions (random move sequences) as a wrk script.
/usr/bin/python3 - >"$T/positions.lua" <<'EOF'
import random
r = random.Random(1)
paths = []
for _ in range(1000):
    lines = list(range(31)); r.shuffle(lines)
    paths.append("/api/v1/analyze?pos=3x4@" + ",".join(map(str, lines[:r.randrange(0, 28)])))
print("paths = {" + ",".join('"%s"' % p.replace("@,", "@").rstrip("@") for p in paths) + "}")
print("counter = 0")
print("request = function() counter = counter + 1; return wrk.format('GET', paths[(counter % #paths) + 1]) end")
EOF

run_wrk() {  # label [script]
  local load
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  wrk -t2 -c100 -d"${DUR}s" --latency -s "${2:-$T/positions.lua}" "http://127.0.0.1:$PORT" >"$T/wrk.txt" 2>&1
  local rps p50 p99 non2xx errs
  rps=$(awk '/Requests\/sec/ {print $2}' "$T/wrk.txt")
  p50=$(awk '$1=="50%" {print $2}' "$T/wrk.txt")
  p99=$(awk '$1=="99%" {print $2}' "$T/wrk.txt")
  non2xx=$(awk '/Non-2xx/ {print $5}' "$T/wrk.txt"); non2xx=${non2xx:-0}
  errs=$(awk '/Socket errors/ {print $0}' "$T/wrk.txt")
  echo "serve_load: $1: ${rps} req/s, p50 ${p50}, p99 ${p99}, non-2xx ${non2xx}, ${errs:-no socket errors}; load average before: $load"
}

echo "request = function() return wrk.format('GET', '/api/v1/health') end" >"$T/health.lua"
run_wrk "baseline: GET /health (no oracle), 100 connections, ${DUR} s" "$T/health.lua"
run_wrk "3x4 GET /analyze, 100 connections, ${DUR} s"

# The same while one client searches 4x4 positions back to back.
( while :; do
    for pos in 4x4@5 4x4@5,12,20 4x4@0,7,33,21,9 4x4@5,12,20,33,1,38,9,27,16,22 4x4@1,2,3,4,5,6,7,8; do
      curl -s -o /dev/null -w '%{time_total}\n' "${U}api/v1/analyze?pos=$pos" >>"$T/search.txt"
    done
  done ) &
bg=$!
sleep 1
run_wrk "the same while one client runs 4x4 searches"
kill $bg 2>/dev/null; wait $bg 2>/dev/null || true; bg=
echo "serve_load: 4x4 searches answered meanwhile: $(wc -l <"$T/search.txt"), mean $(awk '{s+=$1} END {printf "%.2f", s/NR}' "$T/search.txt") s each"

/usr/bin/python3 bench/serve_abuse.py "$PORT" --slow 200 --malformed 10000 --oversized 20 --hold 3 | sed 's/^/serve_load: /'
kill -0 $spid && echo "serve_load: server still up"
rss=$(awk '/VmHWM/ {print $2 / 1024 " MiB"}' /proc/$spid/status)
echo "serve_load: wall $((SECONDS - t_start)) s, server peak RSS $rss, load average now $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
