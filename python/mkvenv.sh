#!/usr/bin/env bash
# python/mkvenv.sh: makes .venv/, the Python checks' venv, with the pinned
# packages of python/requirements-dev.txt (pytest, OpenSpiel, PettingZoo,
# Gymnasium); ./build.sh and tests/run.sh call it.  The venv is isolated
# (not --system-site-packages) so its numpy 2 never meets the Debian numpy
# that python3-torch is built against.  Remade only when the requirements
# change.  Without PyPI it warns and exits 0: the build still succeeds and
# the tests that need a package skip, saying why.
set -uo pipefail
cd "$(dirname "$0")/.."
req=python/requirements-dev.txt stamp=.venv/.requirements
cmp -s "$req" "$stamp" 2>/dev/null && exit 0
echo "mkvenv: making .venv/ with $req" >&2
rm -rf .venv
if /usr/bin/python3 -m venv .venv && .venv/bin/pip install -q --disable-pip-version-check -r "$req" >&2; then
  cp "$req" "$stamp"
else
  echo "mkvenv: warning: could not install $req (no PyPI?); the tests that need it will skip" >&2
fi
exit 0
