#!/usr/bin/env bash
# test_headers.sh: the library's edge, as a user of an installed libdab sees it.
# `make install` into a scratch prefix, then: only the public headers are
# there; each compiles alone and all together in a strict C11 consumer
# (-std=c11 -pedantic -Werror, no _GNU_SOURCE); libdab.so exports exactly
# the DAB_API functions those headers declare; it links no HTTP or JSON
# library; and a small program builds with `pkg-config --cflags --libs dab`
# alone, runs against the installed libdab.so and gets a known value.
# Needs a built tree (tests/run.sh builds first).  BUILD=DIR for another tree.
set -u
cd "$(dirname "$0")/.."
CC=${CC:-cc}
B=${BUILD:-build}
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() {  # description, condition command...
  local d=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d" >&2; fi
}

prefix=$tmp/prefix
# make install wants bin/dab of the same tree; BUILD=DIR trees keep it in DIR/bin.
bin=bin; [ "$B" != build ] && bin=$B/bin
check "make install into a scratch prefix" \
  make -s install BUILD="$B" BIN="$bin" PREFIX="$prefix" PYDIR="$tmp/py" >"$tmp/install.log" 2>&1
inc=$prefix/include/dab
lib=$prefix/lib

# ---- only the public headers are installed ----------------------------------
public=$(make -s public-headers)
check "PUBLIC_HEADERS read from the Makefile" test -n "$public"
installed=$(cd "$inc" && find . -name '*.h' | sed 's#^\./##' | sort)
expected=$(printf '%s\n' $public dab.h | sort)
check "the installed headers are exactly PUBLIC_HEADERS and dab.h" test "$installed" = "$expected"
check "no internal header is installed (ab_int.h, tb_internal.h)" \
  test ! -e "$inc/solver/ab_int.h" -a ! -e "$inc/tablebase/tb_internal.h"
for h in $public; do
  check "$h says what it is in its banner" grep -q "^\*\* $(basename "$h"): " "$h"
done
for h in $(ls {game,symmetry,theorems,pdb,solver,tablebase,oracle,proof,verify,players,agents,capi}/*.h); do
  case " $public capi/dab.h " in *" $h "*) continue ;; esac
  check "internal $h says it is not public" grep -Eqi "internal to libdab|not a public header|not public" "$h"
done

# ---- each installed header compiles alone, and all together -----------------
strict() { "$CC" -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$@"; }
: >"$tmp/all.c"
n=0
for h in $installed; do
  printf '#include "%s"\n' "$h" >"$tmp/one.c"
  echo 'int dab_header_check(void); int dab_header_check(void) { return 0; }' >>"$tmp/one.c"
  check "$h alone under -std=c11 -pedantic" strict "$tmp/one.c"
  printf '#include "%s"\n' "$h" >>"$tmp/all.c"
  n=$((n + 1))
done
echo 'int dab_header_check(void); int dab_header_check(void) { return 0; }' >>"$tmp/all.c"
check "found the public headers ($n)" test "$n" -ge 15
check "all $n headers together under -std=c11 -pedantic" strict "$tmp/all.c"
# The check itself is strict: PATH_MAX without _GNU_SOURCE is refused.
printf '#include <limits.h>\nchar p[PATH_MAX];\n' >"$tmp/bad.c"
check "a header using PATH_MAX fails the strict compile" bash -c "! $CC -std=c11 -pedantic -Werror -fsyntax-only $tmp/bad.c 2>/dev/null"

# ---- libdab.so exports exactly the DAB_API declarations ---------------------
so=$lib/libdab.so
nm -D --defined-only "$so" | awk '$2 ~ /^[TDRBVW]$/ {print $3}' | sort -u >"$tmp/exported"
# Every name a public header declares with DAB_API (functions and the one
# exported table): the identifier before the first '(' or '['.
for h in $public; do
  awk '/^(extern )?DAB_API / { s = $0; while (s !~ /[;{]/ && (getline l) > 0) s = s " " l; print s }' "$h"
done | sed -E 's/[[(].*//; s/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*$/\1/' | sort -u >"$tmp/declared"
check "libdab.so exports something ($(wc -l <"$tmp/exported") names)" test -s "$tmp/exported"
extra=$(comm -23 "$tmp/exported" "$tmp/declared" | tr '\n' ' ')
missing=$(comm -13 "$tmp/exported" "$tmp/declared" | tr '\n' ' ')
check "every export is declared DAB_API in a public header (extra: ${extra:-none})" test -z "$extra"
check "every DAB_API declaration is exported (missing: ${missing:-none})" test -z "$missing"
# A function a public header declares without DAB_API would be silently
# hidden: every prototype at the start of a line must carry the mark.
unmarked=$(grep -nE '^(const |unsigned |struct )*[A-Za-z_][A-Za-z0-9_]*[ *]+[A-Za-z_][A-Za-z0-9_]*\(' $public |
           grep -vE ':(static|typedef|extern|DAB_API|return) ' | tr '\n' ' ')
check "every prototype in a public header is marked DAB_API (unmarked: ${unmarked:-none})" test -z "$unmarked"
printf 'dab_status dab_unmarked(void);\n' >"$tmp/unmarked.h"
check "the unmarked-prototype check finds one (negative control)" \
  bash -c "grep -qE '^(const |unsigned |struct )*[A-Za-z_][A-Za-z0-9_]*[ *]+[A-Za-z_][A-Za-z0-9_]*\\(' '$tmp/unmarked.h'"
# Negative control: an internal function is in libdab.a but not exported.
check "internal dab_ab_new is in libdab.a" bash -c "nm $B/libdab.a 2>/dev/null | grep -q ' T dab_ab_new$'"
check "internal dab_ab_new is not exported by libdab.so" bash -c "! grep -qx dab_ab_new $tmp/exported"

# ---- no HTTP or JSON library behind libdab.so -------------------------------
check "ldd libdab.so shows no libmicrohttpd or jansson" \
  bash -c "! ldd '$so' | grep -Eq 'microhttpd|jansson'"
check "ldd libdab.so still shows LMDB and zstd" bash -c "ldd '$so' | grep -q liblmdb && ldd '$so' | grep -q libzstd"

# ---- a program built with pkg-config alone ----------------------------------
cat >"$tmp/app.c" <<'EOF'
#include <dab.h>
#include <stdio.h>
/* The value of a position from its text, by the oracle: "VALUE NBEST". */
int main(int argc, char **argv) {
  dab_oracle *o = NULL;
  dab_err err = {0};
  dab_parsed p;
  if (argc != 2 || dab_parse_position(argv[1], &p, &err)) { fprintf(stderr, "%s\n", err.msg); return 2; }
  if (dab_oracle_open(p.geom.rows, p.geom.cols, NULL, &o, &err)) { fprintf(stderr, "%s\n", err.msg); return 1; }
  dab_analysis a;
  dab_status st = dab_oracle_query(o, &p.game.lines, 0, &a, NULL, &err);
  if (st) { fprintf(stderr, "%s\n", err.msg); dab_oracle_close(o); return 1; }
  printf("%d %d\n", a.value, a.nbest);
  dab_oracle_close(o);
  return 0;
}
EOF
export PKG_CONFIG_PATH="$lib/pkgconfig"
flags=$(pkg-config --cflags --libs dab 2>"$tmp/pc.err")
check "pkg-config --cflags --libs dab ($flags)" test -n "$flags"
check "a program compiles and links with the pkg-config flags alone" \
  $CC -std=c11 -pedantic -Wall -Werror -o "$tmp/app" "$tmp/app.c" $flags
want=$("$bin/dab" solve 2x3 --json | /usr/bin/python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["value"], len(r["best"]))')
out=$(LD_LIBRARY_PATH="$lib" "$tmp/app" 2x3 2>&1)
check "it runs against the installed libdab.so: 2x3 as dab solve says ('$want', got '$out')" test "$out" = "$want"
out=$(LD_LIBRARY_PATH="$lib" "$tmp/app" 2x3@99 2>&1)
check "bad input comes back as the library's one-line error (got '$out')" bash -c "[[ '$out' == *99* ]]"
check "it loaded the installed libdab.so" \
  bash -c "LD_LIBRARY_PATH='$lib' ldd '$tmp/app' | grep -q '$lib/libdab.so'"

echo "test_headers.sh: $pass passed, $fail failed"
((fail == 0))
