# clitest.sh: shared helpers of the shell tests (source it, don't run it).
#   check DESC CMD...   counts a pass when CMD succeeds, else prints FAIL
#   run ARGS...         runs dab; sets $out (stdout), $err (stderr), $rc
#   json_get JSON EXPR  evaluates a Python expression over d = the JSON
#   finish NAME         prints "NAME: N passed, N failed"; exit status
# Sets DAB (bin/dab, or $DAB_BIN), PY (Debian's python3) and T, a scratch
# directory removed on exit.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
DAB=${DAB_BIN:-$PWD/bin/dab}
PY=/usr/bin/python3
T=$(mktemp -d /tmp/dab-test-XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

check() {
  local d=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d" >&2; fi
}
run() { out=$("$DAB" "$@" 2>"$T/.stderr"); rc=$?; err=$(cat "$T/.stderr"); }
json_get() { $PY -c "import json,sys; d=json.loads(sys.argv[1]); print(eval(sys.argv[2]))" "$1" "$2"; }
finish() {
  echo "$1: $pass passed, $fail failed"
  ((fail == 0))
}
