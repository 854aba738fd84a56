#!/usr/bin/env bash
# test_headers.sh: every header `make install` ships (each *.h of the
# Makefile's LIBDIRS) compiles in a strict C11 consumer: -std=c11
# -pedantic -Werror, no _GNU_SOURCE, each header alone and all together.
# A header that leans on POSIX names (PATH_MAX, ...) fails here.
set -u
cd "$(dirname "$0")/.."
CC=${CC:-cc}
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
strict() { "$CC" -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only -I. "$@"; }
check() {  # description, condition command...
  local d=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d" >&2; fi
}

dirs=$(sed -n 's/^LIBDIRS *:= *//p' Makefile)
check "LIBDIRS read from the Makefile" test -n "$dirs"
: >"$tmp/all.c"
n=0
for d in $dirs; do
  for h in "$d"/*.h; do
    [ -f "$h" ] || continue
    printf '#include "%s"\n' "$h" >"$tmp/one.c"
    echo 'int dab_header_check(void); int dab_header_check(void) { return 0; }' >>"$tmp/one.c"
    check "$h alone under -std=c11 -pedantic" strict "$tmp/one.c"
    printf '#include "%s"\n' "$h" >>"$tmp/all.c"
    n=$((n + 1))
  done
done
echo 'int dab_header_check(void); int dab_header_check(void) { return 0; }' >>"$tmp/all.c"
check "found the public headers ($n)" test "$n" -ge 20
check "all $n headers together under -std=c11 -pedantic" strict "$tmp/all.c"

# The check itself is strict: PATH_MAX without _GNU_SOURCE is refused.
printf '#include <limits.h>\nchar p[PATH_MAX];\n' >"$tmp/bad.c"
check "a header using PATH_MAX fails the strict compile" bash -c "! $CC -std=c11 -pedantic -Werror -fsyntax-only $tmp/bad.c 2>/dev/null"

echo "test_headers.sh: $pass passed, $fail failed"
((fail == 0))
