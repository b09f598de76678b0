#!/usr/bin/env bash
# Setup command: installs dependencies, builds the release tree, and runs the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
mkdir -p build/demo && ./build/tools/cvmrt demo build/demo
# The main job: run the example LeNet-shaped int8 CVM model and print its output and cost.
./build/tools/cvmrt run examples/models/lenet.json --params examples/models/lenet.params \
  --input data=examples/models/lenet_input.npy
