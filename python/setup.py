"""setup.py: copies libdab.so into the built package (pyproject.toml has
the metadata): $DAB_LIB when set, else ../build/libdab.so of this checkout.
Without either the package still installs, and finds libdab.so at run time
through $DAB_LIB or the install prefix (dab.library_path)."""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithLib(build_py):
    def run(self):
        super().run()
        here = os.path.dirname(os.path.abspath(__file__))
        lib = os.environ.get("DAB_LIB") or os.path.join(here, "..", "build", "libdab.so")
        if os.path.isfile(lib):
            dst = os.path.join(self.build_lib, "dab", "libdab.so")
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(lib, dst)
            os.chmod(dst, 0o755)
        else:
            print("setup.py: no libdab.so at %s; dab will look for it at run time" % lib)


setup(cmdclass={"build_py": BuildWithLib})
