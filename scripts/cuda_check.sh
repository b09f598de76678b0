#!/usr/bin/env bash
# On a GPU machine: builds the CUDA-enabled tree and runs every suite that exercises the GPU, then
# the CUDA benchmark. Usage: scripts/cuda_check.sh [BUILD_DIR] (default build-cuda).
#   [cuda]      device memory, copies, DLPack, allocator, models on the GPU vs the CPU, C ABI
#   [kernels]   every CUDA table entry against the scalar reference (generated cases)
#   [vectors]   the conformance vectors through every backend, "cuda" on the GPU
#   [graph]     sessions on every runnable backend (the GPU's included)
set -uo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-cuda}"
jobs="$(nproc)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCVMRT_CUDA=ON > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j"$jobs" --target cvmrt_tests cvmrt_cli cuda_bench || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>/dev/null || true
"$build/tools/cvmrt" info | sed -n '1,6p'
status=0
for spec in "[cuda]" "[kernels]" "[vectors]" "[graph]" "[cvmapi]" "[quantize]"; do
  echo "== cvmrt_tests $spec"
  "$build/tests/cvmrt_tests" "$spec" || status=1
done
echo "== cvmrt verify (conformance vectors, every backend)"
"$build/tools/cvmrt" verify | tail -n 5 || status=1
echo "== benchmark"
bash bench/run_cuda_bench.sh "$build" || status=1
exit "$status"
