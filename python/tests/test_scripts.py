"""test_scripts.py: the package's script tests (python/test_*.py), one
pytest item each.

Each script counts its own checks and ends with "NAME: N passed, M
failed".  They run under Debian's /usr/bin/python3, which sees the numpy
and torch that training uses (the venv running pytest does not), each in
its own process as a user would run it.
"""
import glob
import os
import re
import subprocess

import pytest

from conftest import ROOT

SCRIPTS = sorted(glob.glob(os.path.join(ROOT, "python", "test_*.py")))


def test_found_the_scripts():
    assert len(SCRIPTS) >= 5, SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS, ids=os.path.basename)
def test_script(script):
    r = subprocess.run(["/usr/bin/python3", script], capture_output=True, text=True, timeout=1800)
    out = r.stdout + r.stderr
    m = re.findall(r"^[\w.-]+: (\d+) passed, (\d+) failed", out, re.M)
    assert m, "no summary line:\n" + out[-2000:]
    passed, failed = map(int, m[-1])
    assert r.returncode == 0 and failed == 0 and passed > 0, out[-2000:]
