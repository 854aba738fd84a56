#!/usr/bin/env bash
# test_serve_browser.sh: the web analysis board in headless Chromium
# (tests/serve_browser.py).  A missing chromium or chromium-driver is a
# failure, never a silent skip: ./build.sh installs both.
cd "$(dirname "$0")/.." || exit 1
exec /usr/bin/python3 tests/serve_browser.py "$@"
