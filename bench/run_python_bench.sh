#!/usr/bin/env bash
# Runs bench/python_bench.py (Python binding vs C++ CLI images/s), making its inputs when missing.
#   usage: bench/run_python_bench.sh [--quick] [--repeat N] [python_bench.py options]
# Needs a build in build/ with the CLI (build/tools/cvmrt) and the Python extension (build/python).
set -euo pipefail
cd "$(dirname "$0")/.."
work=build/main-job
if [[ ! -f $work/fashion_int8.cvmrt || ! -f $work/t10k_images.npy || ! -f $work/t10k_labels.npy ]]
then
  # The steps of scripts/main_job.sh that write the model and the test set.
  mkdir -p "$work"
  /usr/bin/python3 examples/fashion_mnist/make_calib.py --out "$work"
  build/tools/cvmrt quantize examples/fashion_mnist/fashion_cnn.onnx --calib "$work/calib.npy" \
    -o "$work/fashion_int8.cvmrt"
fi
PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py "$@"
