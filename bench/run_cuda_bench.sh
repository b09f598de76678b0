# GPU benchmark run: builds and runs cuda_bench, then `cvmrt bench --device cuda` on LeNet.
# shellcheck shell=sh
#
#   bash bench/run_cuda_bench.sh [BUILD_DIR] [cuda_bench options: --quick --filter S --json]
#
# BUILD_DIR (default: build, relative to the repository root) must be a configured build folder
# with the CUDA backend on (cmake/CvmCuda.cmake: nvcc found, CVMRT_HAVE_CUDA), e.g.
#   cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
# The CLI's target is cvmrt_cli (the target "cvmrt" is the shared library); it lands in
# BUILD_DIR/tools/cvmrt. Without a GPU, cuda_bench prints why and exits 0, and cvmrt bench fails
# to make its cuda session. Exit status: 0 when both succeeded, else the last failure's status
# (both always run). POSIX sh, so `sh` or `bash` may run it.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=build
if [ $# -gt 0 ]; then
  case $1 in
    -*) ;;  # no build folder given: the rest are cuda_bench's options
    *) BUILD=$1; shift ;;
  esac
fi
case $BUILD in
  /*) ;;
  *) BUILD=$ROOT/$BUILD ;;
esac
cd "$ROOT"

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  echo "run_cuda_bench.sh: $BUILD is not a configured build folder" \
       "(cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release)" >&2
  exit 2
fi
if [ ! -d "$BUILD/bench/CMakeFiles/cuda_bench.dir" ]; then
  echo "run_cuda_bench.sh: $BUILD has no cuda_bench target: configured without the CUDA backend" \
       "(nvcc not found, or CVMRT_CUDA=OFF)" >&2
  exit 2
fi

echo "== building cuda_bench and cvmrt in $BUILD"
cmake --build "$BUILD" --target cuda_bench cvmrt_cli

status=0
echo "== cuda_bench $*"
"$BUILD/bench/cuda_bench" "$@" || status=$?

echo "== cvmrt bench examples/models/lenet.json --device cuda"
"$BUILD/tools/cvmrt" bench examples/models/lenet.json --params examples/models/lenet.params \
  --device cuda || status=$?

exit "$status"
