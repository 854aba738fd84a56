#!/usr/bin/env bash
# build.sh: install missing Debian packages (when root), then build dab.
# Usage: ./build.sh [make arguments...]   e.g. ./build.sh SAN=1
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages dab needs to build and test.
PKGS=(gcc make pkg-config liblmdb-dev lmdb-utils libzstd-dev libxxhash-dev python3 python3-numpy gnuplot-nox python3-torch
      python3-setuptools python3-wheel python3-pip python3-venv
      libmicrohttpd-dev libjansson-dev curl wrk chromium chromium-driver clang openmpi-bin libopenmpi-dev)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "build.sh: installing ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "build.sh: missing Debian packages; run as root:" >&2
    echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

make -j"${JOBS:-$(nproc)}" "$@"

# The Python checks' venv, .venv/ (python/mkvenv.sh).
if [ $# = 0 ]; then python/mkvenv.sh; fi
# A plain build also makes the Open MPI binary for `dab build --mpi`
# (build-mpi/bin/dab; bin/dab itself needs no MPI library).
if [ $# = 0 ] && command -v mpicc >/dev/null; then
  make -j"${JOBS:-$(nproc)}" MPI=1 build-mpi/bin/dab
fi
