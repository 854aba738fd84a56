"""test_pkg.py: the installable package, where tables go, and read-only mode.

- pip installs python/ into a fresh virtual environment; `import dab` then
  works from another folder, with no DAB_LIB, finding the libdab.so the
  install copied into the package;
- the package finds libdab.so where `make install` put it (dab/_install.py);
- the AlphaZero trainer runs as `python3 -m dab.az_train` and by path;
- under a python3 without numpy (the first such python3 or python3.N on
  PATH: a pyenv build, say; skipped when every one has numpy), `import
  dab` fails with one ImportError line that names the interpreter and the
  ones the README means (/usr/bin/python3 with python3-numpy, .venv/);
- tables built on demand go to $XDG_CACHE_HOME/dab, and `dab info` and
  dab.where() say so;
- in read-only mode no query creates or changes a file (listing and
  timestamps before and after), and a refused write says why.

Run with /usr/bin/python3 (tests/run.sh does).  Ends with the line
"test_pkg.py: N passed, M failed".
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import dab  # noqa: E402

from checks import check, report  # noqa: E402


root = os.path.normpath(os.path.join(here, ".."))
dab_bin = os.environ.get("DAB_BIN", os.path.join(root, "bin", "dab"))
lib = dab.library_path()
py = "/usr/bin/python3"
tmp = tempfile.mkdtemp(prefix="dab-test-pkg-")
# Copies outside the checkout, so that its data/tb/ (searched after the
# cache when the program or library lives in a dab checkout) stays out.
os.makedirs(os.path.join(tmp, "inst", "bin"))
shutil.copy(lib, os.path.join(tmp, "inst", "libdab.so"))
shutil.copy(dab_bin, os.path.join(tmp, "inst", "bin", "dab"))
lib, dab_bin = os.path.join(tmp, "inst", "libdab.so"), os.path.join(tmp, "inst", "bin", "dab")


def clean_env(**extra):
    e = {k: v for k, v in os.environ.items() if not k.startswith("DAB_") and k != "PYTHONPATH"}
    e.update(extra)
    return e


def python_without_numpy():
    """(path, its sys.executable) of the first python3 or python3.N on PATH
    that cannot import numpy (from python/, with clean_env()), else None."""
    probe = ("import sys, importlib.util\n"
             "if sys.version_info >= (3, 6) and importlib.util.find_spec('numpy') is None:\n"
             "    print(sys.executable)\n")
    seen = set()
    for d in os.environ.get("PATH", "").split(os.pathsep):
        try:
            names = sorted(os.listdir(d or "."))
        except OSError:
            continue
        for n in names:
            p = os.path.join(d or ".", n)
            if not re.fullmatch(r"python3(\.\d+)?", n) or not os.access(p, os.X_OK) or os.path.realpath(p) in seen:
                continue
            seen.add(os.path.realpath(p))
            try:
                r = subprocess.run([p, "-c", probe], capture_output=True, text=True, cwd=here, env=clean_env(),
                                   timeout=60)
            except (OSError, subprocess.SubprocessError):
                continue
            if r.returncode == 0 and r.stdout.strip():
                return p, r.stdout.strip()
    return None


def snapshot(*dirs):
    """{path: (size, mtime_ns)} of every file and folder under dirs."""
    out = {}
    for d in dirs:
        for base, subdirs, files in os.walk(d):
            for n in subdirs + files:
                p = os.path.join(base, n)
                st = os.lstat(p)
                out[p] = (st.st_size, st.st_mtime_ns)
            st = os.lstat(base)
            out[base] = (st.st_size, st.st_mtime_ns)
    return out


try:
    # ---- pip install into a fresh venv, import from another folder -------
    src = os.path.join(tmp, "src")
    os.mkdir(src)
    shutil.copytree(os.path.join(here, "dab"), os.path.join(src, "dab"),
                    ignore=shutil.ignore_patterns("__pycache__", "libdab.so", "_install.py"))
    for f in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(os.path.join(here, f), src)
    venv = os.path.join(tmp, "venv")
    # --system-site-packages: numpy and wheel come from Debian (no PyPI here)
    mk = subprocess.run([py, "-m", "venv", "--system-site-packages", venv], capture_output=True, text=True)
    if mk.returncode != 0:
        print("test_pkg.py: SKIP venv install: python3 -m venv failed (install Debian's python3-venv): %s"
              % mk.stderr.strip()[-200:])
    else:
        inst = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--no-build-isolation", "--no-index",
                               "-q", src], capture_output=True, text=True, env=clean_env(DAB_LIB=lib), cwd=tmp)
        check(inst.returncode == 0, "pip install ./python into a venv (%s)" % inst.stderr.strip()[-300:])
        away = os.path.join(tmp, "elsewhere")
        os.mkdir(away)
        code = ("import dab, json; s = dab.Game(2, 2).new_initial_state(); s.apply_action(0); "
                "print(json.dumps([dab.__file__, dab.library_path(), s.value(), len(s.legal_actions())]))")
        run = subprocess.run([os.path.join(venv, "bin", "python"), "-c", code], capture_output=True, text=True,
                             cwd=away, env=clean_env(HOME=tmp, XDG_CACHE_HOME=os.path.join(tmp, "cache0")))
        ok = run.returncode == 0
        if ok:
            f, libp, v, n = json.loads(run.stdout)
            ok = f.startswith(venv) and libp.startswith(venv) and n == 11 and v == -2
        check(ok, "import dab from another folder in the venv, libdab.so from the package (%s%s)"
              % (run.stdout.strip(), run.stderr.strip()[-300:]))

    # ---- import dab under a python3 without numpy: one line, which python --
    nonp = python_without_numpy()
    if nonp is None:
        print("test_pkg.py: SKIP import dab without numpy: every python3 on PATH has numpy")
    else:
        exe, real = nonp
        run = subprocess.run([exe, "-c", "import dab"], capture_output=True, text=True, cwd=here, env=clean_env(),
                             timeout=60)
        last = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else ""
        check(run.returncode == 1 and last.startswith("ModuleNotFoundError: dab needs numpy, which this Python (%s)"
                                                      % real)
              and all(w in last for w in ("/usr/bin/python3", "python3-numpy", ".venv/", "README.md")),
              "import dab under %s (no numpy): one line naming it and the interpreter the README means: %r"
              % (exe, last))
        check(run.stderr.count("Traceback") == 1 and "During handling" not in run.stderr
              and "direct cause" not in run.stderr and "batch.py" not in run.stderr,
              "... with no chained traceback: %s" % run.stderr.strip()[-600:])
        code = ("try:\n    import dab\nexcept ImportError as e:\n"
                "    print(type(e).__name__, e.name, e.__suppress_context__, e.__cause__ is None)\n")
        run = subprocess.run([exe, "-c", code], capture_output=True, text=True, cwd=here, env=clean_env(), timeout=60)
        check(run.stdout.split() == ["ModuleNotFoundError", "numpy", "True", "True"],
              "... an ImportError (ModuleNotFoundError, .name 'numpy', raised from None): %s%s"
              % (run.stdout.strip(), run.stderr.strip()[-300:]))

    # ---- the install prefix: dab/_install.py names where libdab.so went ----
    pre = os.path.join(tmp, "prefix")
    os.makedirs(os.path.join(pre, "lib"))
    shutil.copy(lib, os.path.join(pre, "lib", "libdab.so"))
    site = os.path.join(tmp, "site")
    shutil.copytree(os.path.join(here, "dab"), os.path.join(site, "dab"),
                    ignore=shutil.ignore_patterns("__pycache__", "libdab.so"))
    with open(os.path.join(site, "dab", "_install.py"), "w") as fh:
        fh.write('LIBDIR = "%s"\n' % os.path.join(pre, "lib"))
    run = subprocess.run([py, "-c", "import dab; print(dab.library_path()); dab._load()"], capture_output=True,
                         text=True, cwd=tmp, env=clean_env(PYTHONPATH=site))
    check(run.returncode == 0 and run.stdout.strip() == os.path.join(pre, "lib", "libdab.so"),
          "a `make install`ed package finds libdab.so under its prefix (%s%s)" % (run.stdout, run.stderr[-200:]))
    run = subprocess.run([py, "-c", "import dab; print(dab.library_path())"], capture_output=True, text=True,
                         cwd=tmp, env=clean_env(PYTHONPATH=site, DAB_LIB="/x/libdab.so"))
    check(run.stdout.strip() == "/x/libdab.so", "DAB_LIB comes first")

    # ---- the AlphaZero trainer inside the package ---------------------------
    # `make install` copies python/dab/*.py: dab/az_train.py comes along and
    # runs as a module or by path (how agents/az_train.c starts it).
    if subprocess.run([py, "-c", "import torch"], capture_output=True).returncode != 0:
        print("test_pkg.py: SKIP dab.az_train: PyTorch (python3-torch) missing")
    else:
        net = ["init", "--rows", "2", "--cols", "2", "--blocks", "1", "--filters", "4", "--vhidden", "8",
               "--seed", "3", "--out"]
        outs = []
        for how, argv, env_t in (("python3 -m dab.az_train", [py, "-m", "dab.az_train"], clean_env(PYTHONPATH=site)),
                                 ("by path", [py, os.path.join(site, "dab", "az_train.py")], clean_env())):
            w = os.path.join(tmp, "w%d.bin" % len(outs))
            run = subprocess.run(argv + net + [w], capture_output=True, text=True, cwd=tmp, env=env_t, timeout=300)
            check(run.returncode == 0 and run.stdout.startswith("init weights=") and os.path.isfile(w),
                  "the trainer runs %s (%s%s)" % (how, run.stdout.strip(), run.stderr.strip()[-300:]))
            outs.append(open(w, "rb").read() if os.path.isfile(w) else None)
        check(outs[0] is not None and outs[0] == outs[1], "both ways write the same weights")

    # ---- the cache: tables built on demand, and `dab info` ------------------
    home, cache = os.path.join(tmp, "home"), os.path.join(tmp, "xdg")
    os.mkdir(home)
    env = clean_env(HOME=home, XDG_CACHE_HOME=cache, DAB_LIB=lib)
    info = subprocess.run([dab_bin, "info", "--json"], capture_output=True, text=True, env=env)
    j = json.loads(info.stdout) if info.returncode == 0 else {}
    check(j.get("write") == os.path.join(cache, "dab") and j.get("lookup", [None])[0] == os.path.join(cache, "dab")
          and j.get("read_only") is False, "dab info: the cache is where tables are looked up and written (%s)"
          % info.stdout.strip())
    env_h = clean_env(HOME=home, DAB_LIB=lib)
    info = subprocess.run([dab_bin, "info"], capture_output=True, text=True, env=env_h)
    check(os.path.join(home, ".cache", "dab") in info.stdout and "written to" in info.stdout,
          "without XDG_CACHE_HOME: ~/.cache/dab")
    info = subprocess.run([dab_bin, "--read-only", "info", "--json"], capture_output=True, text=True, env=env)
    check(info.returncode == 0 and json.loads(info.stdout)["write"].startswith("nowhere (read-only"),
          "dab --read-only info: nowhere")
    code = "import dab, json; dab.Tablebase('2x2').value(0); print(json.dumps(dab.where()))"
    run = subprocess.run([py, "-c", code], capture_output=True, text=True, cwd=tmp,
                         env=dict(env, PYTHONPATH=here))
    built = os.path.join(cache, "dab", "2x2.dab")
    check(run.returncode == 0 and os.path.isfile(built), "a table built on demand goes to the cache (%s)"
          % run.stderr[-200:])

    # ---- read-only mode: no query writes -------------------------------------
    tbdir = os.path.join(tmp, "tbpath")
    os.mkdir(tbdir)
    cwd = os.path.join(tmp, "cwd")
    os.mkdir(cwd)
    cache2 = os.path.join(tmp, "xdg2")
    os.mkdir(cache2)
    watched = (home, cache2, tbdir, cwd)
    before = snapshot(*watched)
    env_ro = clean_env(HOME=home, XDG_CACHE_HOME=cache2, DAB_TB_PATH=tbdir, DAB_LIB=lib, PYTHONPATH=here)
    code = r'''
import dab, json
dab.set_readonly(True)
out = {}
o = dab.Oracle("3x3")
out["source"] = o.source
out["v"] = o.value(0)
g = dab.Game(2, 3)
s = g.new_initial_state(); s.apply_action(4)
out["wdl"] = s.wdl().result
b = g.new_states(50); b.apply_actions(b.random_actions(1)); out["labels"] = int(b.values().exact.sum())
out["player"] = dab.Player("perfect", "3x3").move(dab.Game(3, 3).new_initial_state())
try:
    dab.Tablebase("2x2")
    out["refused"] = ""
except dab.DabError as e:
    out["refused"] = str(e)
s5 = dab.Game(2, 5, search=True, hash_mb=16).new_initial_state()
for a in range(12): s5.apply_action(a)
out["search"] = int(s5.value())
print(json.dumps(out))
'''
    run = subprocess.run([py, "-c", code], capture_output=True, text=True, cwd=cwd, env=env_ro)
    ok = run.returncode == 0
    r = json.loads(run.stdout) if ok else {}
    check(ok and r["source"] == "memory" and r["v"] == -3 and r["labels"] == 50,
          "read-only queries answer (3x3 solved in memory: %s; %s)" % (r.get("source"), run.stderr[-300:]))
    check("DAB_READONLY" in r.get("refused", ""), "a refused build says why: %s" % r.get("refused"))
    c = subprocess.run([dab_bin, "--read-only", "probe", "3x3", "3x3@0,1"], capture_output=True, text=True,
                       cwd=cwd, env=env_ro)
    check(c.returncode != 0 and "read-only mode" in c.stderr and "DAB_READONLY" in c.stderr,
          "dab --read-only probe of a table not built says why it is not built: %s" % c.stderr.strip())
    for args in (["solve", "3x3@0,1", "--json"], ["solve", "2x5@0,1,2,3,4,5,6,7,8", "--json"],
                 ["play", "2x3", "--player", "perfect"], ["info"]):
        c = subprocess.run([dab_bin, "--read-only"] + args, capture_output=True, text=True, cwd=cwd, env=env_ro)
        check(c.returncode == 0, "dab --read-only %s answers (%s)" % (" ".join(args), c.stderr.strip()[-200:]))
    after = snapshot(*watched)
    changed = sorted(set(before.items()) ^ set(after.items()))
    check(not changed, "read-only mode: no file created or changed under HOME, cache, DAB_TB_PATH, cwd "
          "(%d entries; changed: %s)" % (len(after), changed[:4]))
    # the same queries without read-only do write (so the check above can fail)
    run = subprocess.run([py, "-c", "import dab; dab.Tablebase('2x2')"], capture_output=True, text=True, cwd=cwd,
                         env=dict(env_ro))
    check(run.returncode == 0 and snapshot(*watched) != after, "without read-only, the same query builds a file")
finally:
    shutil.rmtree(tmp, ignore_errors=True)

report("test_pkg.py")
