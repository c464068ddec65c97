"""`pip install .` builds the `peverify` module with this project's CMake (docs/features.md §13).

setuptools drives the build and packs the wheel; CMake compiles the module and the static
libraries it links exactly as `cmake --build` does, so the installed module is the one the suite
tests. Nothing is downloaded: the build uses Debian's packages (scripts/setup).

PEVERIFY_CMAKE_BUILD_DIR=DIR packs the module of an existing, configured build tree instead of
configuring a new one (the test suite does, so that CI installs the module it has just built
rather than compiling it twice).
"""
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
REUSED_BUILD = os.environ.get("PEVERIFY_CMAKE_BUILD_DIR")
# setuptools' own scratch space, away from the source tree and from CMake's `build/`.
SCRATCH = Path(REUSED_BUILD, "pip") if REUSED_BUILD else ROOT / "build-python"


def project_version():
    """The CMake project's version: one place for it."""
    match = re.search(r"project\(peverify VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    if not match:
        sys.exit("setup.py: no `project(peverify VERSION ...)` in CMakeLists.txt")
    return match.group(1)


class CMakeBuild(build_ext):
    """Builds the one extension, `peverify`, as the CMake target `peverify_python`."""

    def build_extension(self, ext):
        build_dir = Path(REUSED_BUILD) if REUSED_BUILD else SCRATCH / "cmake"
        if not (build_dir / "CMakeCache.txt").exists():
            if REUSED_BUILD:
                sys.exit(f"setup.py: PEVERIFY_CMAKE_BUILD_DIR={build_dir} is not a configured build tree")
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            self.run_cmake(["-S", str(ROOT), "-B", str(build_dir), *generator,
                            "-DCMAKE_BUILD_TYPE=Release", "-DPEV_BUILD_TESTS=OFF",
                            "-DPEV_BUILD_BENCHMARKS=OFF", f"-DPEV_PYTHON={sys.executable}"])
        self.run_cmake(["--build", str(build_dir), "--target", "peverify_python"])
        # The module CMake made for this interpreter: its suffix names the ABI, so a tree built for
        # another Python is refused here rather than failing at import.
        built = build_dir / "python" / ("peverify" + sysconfig.get_config_var("EXT_SUFFIX"))
        if not built.exists():
            sys.exit(f"setup.py: {built} was not built: the build tree is for another Python "
                     f"than {sys.executable}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)

    @staticmethod
    def run_cmake(args):
        print("setup.py: cmake " + " ".join(args), flush=True)
        subprocess.run(["cmake", *args], check=True)


SCRATCH.mkdir(parents=True, exist_ok=True)
setup(
    version=project_version(),
    ext_modules=[Extension("peverify", sources=[])],
    packages=[],  # the extension is the whole package: no automatic discovery of the tree
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(SCRATCH)}, "egg_info": {"egg_base": str(SCRATCH)}},
    zip_safe=False,
)
