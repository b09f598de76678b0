#!/usr/bin/env bash
# The main job: quantize the trained Fashion-MNIST CNN (examples/fashion_mnist) to a CVM int8
# model and classify the 10,000 Fashion-MNIST test images with it; prints accuracy and cost.
#   usage: main_job.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
cvmrt="$build/tools/cvmrt"
work="$build/main-job"
mkdir -p "$work"
/usr/bin/python3 examples/fashion_mnist/make_calib.py --out "$work"
"$cvmrt" quantize examples/fashion_mnist/fashion_cnn.onnx --calib "$work/calib.npy" \
  -o "$work/fashion_int8.cvmrt" --cvm "$work/fashion_int8_cvm"
"$cvmrt" eval "$work/fashion_int8.cvmrt" --inputs "$work/t10k_images.npy" \
  --labels "$work/t10k_labels.npy"
# One image, float in and float out (the ten class probabilities), for a look at the interface.
/usr/bin/python3 -c "import numpy as np, sys; np.save(sys.argv[1], np.load(sys.argv[2])[:1])" \
  "$work/first_image.npy" "$work/t10k_images.npy"
"$cvmrt" run "$work/fashion_int8.cvmrt" --input "data=$work/first_image.npy" --dequantize
# The same 10,000 images scored by two Dask worker processes through the Python package.
if compgen -G "$build/python/cvmrt/_cvmrt*.so" > /dev/null; then
  PYTHONPATH="$build/python" /usr/bin/python3 examples/fashion_mnist/dask_score.py \
    --model "$work/fashion_int8.cvmrt" --images "$work/t10k_images.npy" \
    --labels "$work/t10k_labels.npy"
else
  echo "(no Python module in $build: the Dask scoring is skipped; see README \"Python\")"
fi
