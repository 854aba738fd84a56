#!/usr/bin/env bash
# test_disk_full.sh: writes into a full file system (a small tmpfs) fail
# cleanly, with the reason, and leave nothing that opens wrong: a table
# build, the solved store of a search, and a proof's records.  Needs root
# and mount (CI containers run as root); elsewhere it checks nothing.
set -u
source "$(dirname "$0")/clitest.sh"
export XDG_CACHE_HOME="$T/cache" DAB_TB_NO_PROJECT=1
M="$T/small"
mkdir -p "$M"
if ! mount -t tmpfs -o size=64k tmpfs "$M" 2>/dev/null; then
  echo "test_disk_full: cannot mount a tmpfs here (needs root): skipped"
  finish test_disk_full
  exit
fi
trap 'umount "$M" 2>/dev/null; rm -rf "$T"' EXIT
fill() {  # leaves about $1 KiB free on $M
  local free; free=$(df -k --output=avail "$M" | tail -n 1)
  [ "$free" -gt "$1" ] && dd if=/dev/zero of="$M/fill" bs=1k count=$((free - $1)) 2>/dev/null
  sync
}

# A table build: the reason, a non-zero exit, no file.
run build 3x3 -o "$M/3x3.dab"
check "build on a full disk fails (exit $rc)" test "$rc" != 0
check "build: one line naming the reason" test "$(grep -c 'No space left on device' <<<"$err")" = 1 -a "$(wc -l <<<"$err")" = 1
check "build: no file left that opens" test ! -e "$M/3x3.dab"
rm -rf "$M"/*

# The solved store of a search: the answer is still exact, the store is
# refused with the reason, and what is left checks.
P="4x4@0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19"
answer() { $PY -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["value"], d["moves"], d["best"])' "$1"; }
want=$(answer "$("$DAB" solve "$P" --no-store --json)")
fill 12
run solve "$P" --tb "$M" --json
check "search on a full disk: exit 0" test "$rc" = 0
check "search on a full disk: the same answer" test "$(answer "$out")" = "$want"
check "search on a full disk: a warning with the reason" grep -q "solved store.*disk is full\|storing failed.*disk is full" <<<"$err"
for f in "$M"/*.dab; do
  [ -e "$f" ] && check "a store left on a full disk checks" "$DAB" check "$f"
done
rm -rf "$M"/*

# A proof's records: the run fails with the reason; once there is room,
# the rerun finishes and the records verify.
"$DAB" solve 3x3 --proof "$M/p" --claim =-3 --depth 3 --budget 0.001 --no-store >/dev/null 2>&1  # creates DIR
fill 0
run solve 3x3 --proof "$M/p" --hash 16M --no-store
check "proof on a full disk fails (exit $rc)" test "$rc" != 0
check "proof: the reason" grep -q "No space left on device" <<<"$err"
rm -f "$M/fill"
run solve 3x3 --proof "$M/p" --hash 16M --no-store
check "proof: the rerun with room proves it" grep -q "): proved" <<<"$out"
run solve 3x3 --proof "$M/p" --verify --no-store
check "proof: the records verify" test "$rc" = 0

finish test_disk_full
