"""conftest.py: the pytest side of dab's Python checks.

tests/run.sh runs `.venv/bin/python -m pytest python/tests` (the venv of
python/mkvenv.sh, with the pinned OpenSpiel, PettingZoo and Gymnasium).
The package under test is python/dab of this checkout, over the libdab.so
that $DAB_LIB names (tests/run.sh sets it; else build/libdab.so).
"""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("DAB_LIB", os.path.join(ROOT, "build", "libdab.so"))
os.environ.setdefault("DAB_BIN", os.path.join(ROOT, "bin", "dab"))
