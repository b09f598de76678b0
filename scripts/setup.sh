#!/usr/bin/env bash
# Setup command: installs dependencies, builds the release tree, and runs the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build build -j"$(nproc)"
mkdir -p build/demo && ./build/tools/cvmrt demo build/demo
# The main job: quantize the Fashion-MNIST CNN and classify the 10,000 test images in int8.
bash scripts/main_job.sh build
