"""Builds the cvmrt package: the _cvmrt extension module through the repository's CMake project.

    pip install --no-build-isolation ./python

Environment:
  CVMRT_BUILD_DIR  an existing CMake build tree of this repository (configured with the Python
                   module on, e.g. the test command's build/): its _cvmrt target is built there
                   and installed, so nothing compiles twice. Unset: a fresh tree under pip's
                   build folder, Release, without tests, benchmarks or tools.
  CMAKE_ARGS       extra arguments for that fresh configure (e.g. -DCVMRT_CUDA=OFF).
  CMAKE_BUILD_PARALLEL_LEVEL  compile jobs (default: the CPU count).
"""
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


class CMakeExtension(Extension):
    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        if not (ROOT / "CMakeLists.txt").is_file():
            sys.exit(f"cvmrt: {ROOT} is not the cvmrt repository (install from its python/ folder)")
        given = os.environ.get("CVMRT_BUILD_DIR")
        build_dir = Path(given).resolve() if given else Path(self.build_temp).resolve() / "cmake"
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        if not given or not (build_dir / "CMakeCache.txt").is_file():
            args = [f"-DPython3_EXECUTABLE={sys.executable}", "-DCVMRT_PYTHON=ON",
                    "-DCMAKE_BUILD_TYPE=Release"]
            if not given:
                args += ["-DCVMRT_BUILD_TESTS=OFF", "-DCVMRT_BUILD_BENCH=OFF",
                         "-DCVMRT_BUILD_TOOLS=OFF"]
            if shutil.which("ccache"):
                args += ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
            args += shlex.split(os.environ.get("CMAKE_ARGS", ""))
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build_dir), *args])
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "_cvmrt",
                               "-j", jobs])
        built = sorted((build_dir / "python" / "cvmrt").glob("_cvmrt*.so"))
        if len(built) != 1:
            sys.exit(f"cvmrt: expected one _cvmrt module in {build_dir}/python/cvmrt, found "
                     f"{[p.name for p in built]} (is CVMRT_PYTHON on in that build?)")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    name="cvmrt",
    version=(ROOT / "VERSION").read_text().strip(),
    description="Deterministic tensor runtime: quantized integer models, the same bits everywhere",
    license="UNLICENSED",
    python_requires=">=3.9",
    install_requires=["numpy"],
    extras_require={"dask": ["dask", "distributed"]},
    packages=["cvmrt"],
    package_data={"cvmrt": ["py.typed", "*.pyi"]},
    ext_modules=[CMakeExtension("cvmrt._cvmrt")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
