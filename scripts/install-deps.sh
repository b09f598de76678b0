#!/usr/bin/env bash
# Installs every system package cvmrt needs to build and test, from Debian's archive, idempotently.
set -euo pipefail

packages=(
  cmake g++ make pkg-config ccache
  # The second compiler: the sanitizer build and the libFuzzer targets (tests/fuzz) use clang.
  clang-14 libclang-rt-14-dev
  flatbuffers-compiler libflatbuffers-dev
  catch2 libxxhash-dev libdlpack-dev nlohmann-json3-dev
  # The WebAssembly build (scripts/build-wasm.sh) and the npm package's browser test.
  emscripten chromium
  # The ONNX Runtime comparison models of bench/run_benchmarks.sh.
  python3-onnx
  # The ONNX importer (import/) and `cvmrt import`.
  libonnx-dev libprotobuf-dev protobuf-compiler
  # Real data and models: Fashion-MNIST (the main job and the accuracy test), numpy for its
  # scripts (Debian's /usr/bin/python3), scikit-image's public-domain/CC0 photos (BlazeFace).
  dataset-fashion-mnist python3-numpy python3-skimage
  # The Python package (python/): pybind11 and the headers to build it, pip/setuptools/wheel and
  # venv to install it offline, pytest and Dask (with distributed) for its tests.
  pybind11-dev python3-dev python3-pip python3-setuptools python3-wheel python3-venv
  python3-pytest python3-dask python3-distributed
)
# Node.js >= 18 with npm runs the package's tests; a machine that has none gets Debian's.
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "all build dependencies present"
fi
