"""Builds the extension esdirk._esdirk with the repository's CMake project (the library is
linked into it statically) and installs it with the pure-Python modules of esdirk/.

    pip install --no-build-isolation ./python

The interpreter that runs pip is the one the extension is built for. Extra CMake arguments:
ESDIRK_CMAKE_ARGS="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"; parallel jobs: ESDIRK_BUILD_JOBS.
"""

import os
import pathlib
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

REPOSITORY = pathlib.Path(__file__).resolve().parent.parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = pathlib.Path(self.build_temp).resolve() / "cmake"
        args = ["-DCMAKE_BUILD_TYPE=Release", "-DPython3_EXECUTABLE=" + sys.executable,
                "-DESDIRK_REQUIRE_PYTHON=ON", "-DESDIRK_BUILD_TESTS=OFF",
                "-DESDIRK_BUILD_EXAMPLES=OFF", "-DESDIRK_BUILD_BENCH=OFF",
                "-DESDIRK_BUILD_FORTRAN=OFF"]
        args += shlex.split(os.environ.get("ESDIRK_CMAKE_ARGS", ""))
        subprocess.run(["cmake", "-S", str(REPOSITORY), "-B", str(build)] + args, check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "esdirk_python_extension",
                        "-j", os.environ.get("ESDIRK_BUILD_JOBS", "2")], check=True)
        built = next((build / "python" / "esdirk").glob("_esdirk*"))
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, target)
        # esdirk._sbml (esdirk.sbml), built beside _esdirk when libSBML was found: the same
        # folder of the package, under its own name.
        for sbml_module in (build / "python" / "esdirk").glob("_sbml*"):
            shutil.copy2(sbml_module, target.parent / sbml_module.name)


setup(ext_modules=[CMakeExtension("esdirk._esdirk")], cmdclass={"build_ext": CMakeBuild})
