"""checks.py: the counter behind the script tests (python/test_*.py).

check(cond, what) counts one check and prints "FAIL what" on stderr when
cond is false; report(name) prints the summary line tests/run.sh and
python/tests/test_scripts.py read, "NAME: N passed, M failed", and exits
1 when anything failed.  One script per process, so module state is fine.
"""
import sys

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what, file=sys.stderr)


def report(name):
    print("%s: %d passed, %d failed" % (name, passed, failed))
    sys.exit(1 if failed else 0)
