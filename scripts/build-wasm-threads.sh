#!/usr/bin/env bash
# Builds the SIMD wasm module with -pthread (the wasm threads experiment, docs/wasm-threads.md)
# into build-wasm-threads/out/cvmrt-simd.{mjs,wasm}, then times whole models in it at 1 and 2
# threads against the package's single-thread SIMD build (bench/ort/model_bench.mjs threads).
#
#   scripts/build-wasm-threads.sh [LIST.jsonl] [--quick]
#
# LIST: bench/ort/model_bench.mjs's model list (default build/model-bench/cvmrt_models.jsonl,
# written by bench/run_model_bench.sh). Needs emscripten and js/dist (cd js && npm run build).
# The module is not part of the npm package: see docs/wasm-threads.md for why.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
list="${1:-$root/build/model-bench/cvmrt_models.jsonl}"
shift || true
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
dir=build-wasm-threads
out="$root/$dir/out"
mkdir -p "$out"
# PTHREAD_POOL_SIZE=2: the workers exist before the first run (a worker started during a run
# would need the event loop, which a synchronous model run never yields to).
emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCVMRT_WASM_VARIANT=simd \
  -DCMAKE_CROSSCOMPILING_EMULATOR="$(command -v node)" -DCVMRT_WASM_OUT_DIR="$out" \
  -DCVMRT_BUILD_TESTS=OFF -DCMAKE_CXX_FLAGS=-pthread -DCMAKE_C_FLAGS=-pthread \
  "-DCMAKE_EXE_LINKER_FLAGS=-pthread -sPTHREAD_POOL_SIZE=2" >/dev/null
cmake --build "$dir" -j2 --target cvmrt_wasm
for f in "$out"/cvmrt-simd.*; do
  printf '%-28s %9d bytes, %8d gzip -9\n' "$(basename "$f")" "$(stat -c %s "$f")" \
    "$(gzip -9c "$f" | wc -c)"
done
node bench/ort/model_bench.mjs threads "$list" "$out" "$@"
