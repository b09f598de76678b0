#!/usr/bin/env bash
# Test command: installs dependencies, builds every variant once, and runs every suite.
#   build/       release build (-Werror): unit, C ABI and README tests; the Python package
#                (pip-installed into build/pyenv from it) and its pytest suites, Dask included
#   build-sanitize/  clang 14: the same suites under -fsanitize=address,undefined, and the
#                    libFuzzer targets (tests/fuzz) for a short fixed budget each
#   build-tsan/  the threaded suites under -fsanitize=thread
#   build-wasm-{simd,plain}/  the WebAssembly variants, then the npm package's suites (js/)
#   demo/        the in-browser demos on the packed package, tested in headless Chromium
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs="$(nproc)"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/cvmrt-ccache}"
# Paths inside the checkout hash relative to it, so clones in other folders share the cache.
export CCACHE_BASEDIR="$PWD"

# ONNX Runtime (npm onnxruntime-node, CPU) for the real-model accuracy test; its install step
# would otherwise try to download a CUDA add-on, which the CPU library does not need.
(cd bench/ort && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund)

echo "== release build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCVMRT_WERROR=ON \
      -DCVMRT_PYTHON=ON -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== Python package: pip install into a virtual environment, then pytest against it"
# As a user installs it (README "Python"), reusing the release tree's module (CVMRT_BUILD_DIR);
# --no-index: nothing is downloaded. The tests then import the installed package.
/usr/bin/python3 -m venv --system-site-packages build/pyenv
CVMRT_BUILD_DIR="$PWD/build" build/pyenv/bin/pip install --quiet --no-index \
  --no-build-isolation --force-reinstall --no-deps ./python
CVMRT_EXPECT_PREFIX="$PWD/build/pyenv" CVMRT_CLI="$PWD/build/tools/cvmrt" \
  build/pyenv/bin/python -m pytest -q python/tests

echo "== sanitizer build (clang 14: address, undefined, libFuzzer coverage)"
# The second compiler's build: every suite under ASan and UBSan, plus the fuzz.* tests (each
# libFuzzer target for a fixed budget on its committed corpus, and the regression inputs).
CC=clang-14 CXX=clang++-14 cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Release \
      -DCVMRT_SANITIZE=ON -DCVMRT_FUZZ=ON -DCVMRT_WERROR=ON -DCVMRT_BUILD_BENCH=OFF
cmake --build build-sanitize -j"$jobs"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-sanitize --output-on-failure -j"$jobs"

echo "== ThreadSanitizer build: the threaded suites"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Release -DCVMRT_TSAN=ON -DCVMRT_WERROR=ON \
      -DCVMRT_BUILD_BENCH=OFF
cmake --build build-tsan -j"$jobs" --target cvmrt_tests
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 build-tsan/tests/cvmrt_tests "[threads]"

echo "== WebAssembly builds (Catch2 suite under node) and the npm package"
# npm run build: both wasm variants (scripts/build-wasm.sh, with their ctest suites) and dist/;
# npm test: every JS suite (conformance vectors through both variants, models, lifetimes, leaks,
# types, the packed tarball in a temporary project, the page built by Vite and by webpack 5 in
# headless Chromium).
(
  cd js
  npm install --no-audit --no-fund
  npm run build -- --wasm-tests
  npm test
  npm pack --pack-destination ../build
)

echo "== in-browser demos (demo/: the packed cvmrt tarball, Vite, headless Chromium)"
# npm test: prepare.py (quantized models, bundled inputs, the native CLI's results), vite build
# with the per-page weight budgets, then Playwright against the production build, simd and plain.
(
  cd demo
  npm install --no-audit --no-fund
  npm test
)

echo "== main job"
mkdir -p build/demo && ./build/tools/cvmrt demo build/demo
bash scripts/main_job.sh build
