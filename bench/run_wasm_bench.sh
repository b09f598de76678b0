#!/usr/bin/env bash
# One command for the wasm size and speed report: builds the native op_latency_bench, runs it and
# bench/wasm_bench.mjs on bench/workloads/ops.json, and prints one table (native scalar, native
# best, wasm plain, wasm simd, time ratios, output checksums equal) and the package sizes; then
# bench/wasm_ort_bench.mjs: the int8 ResNet-18/MobileNet-v1 layers of conv_bench as CVM models
# against onnxruntime-web in the same Node process (ratios, GOPS, % of the SIMD128 dot peak,
# plain/simd) and the startup times in Node; then bench/wasm_startup_browser.mjs: the startup
# times in headless Chromium (where /usr/bin/chromium and js/node_modules/playwright-core exist).
#
#   bench/run_wasm_bench.sh [--quick] [--filter SUBSTRING] [--clock cpu|wall] [--no-ort]
#
# --filter applies to both tables (op names there, layer names like "3x3 dw" here). The ORT-web
# part needs Debian's python3-onnx (make_models.py) and onnxruntime-web in bench/ort (installed
# with npm --ignore-scripts when missing); --no-ort skips it.
#
# --clock picks the times the table compares: CPU (default; steadier on a loaded machine) or wall.
#
# Environment: BUILD_DIR (default build-bench), CVMRT_BENCH_OUT (default $BUILD_DIR/bench-out).
# Needs node and js/dist with both wasm variants (`cd js && npm run build`; about 10 minutes per
# variant). Exit status 1 when any wasm output differs from the native one. Timings on shared
# machines are noisy: the load average is printed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-bench}"
OUT="${CVMRT_BENCH_OUT:-$BUILD_DIR/bench-out}"
WORKLOADS="$ROOT/bench/workloads/ops.json"
ARGS=()
CLOCK=()
ORT=1
FILTER=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) ARGS+=(--quick) ;;
    --no-ort) ORT=0 ;;
    --filter | --clock)
      [[ $# -ge 2 ]] || { echo "$1 needs a value" >&2; exit 2; }
      if [[ $1 == --filter ]]; then ARGS+=("$1" "$2"); FILTER="$2"; else CLOCK=("$1" "$2"); fi
      shift ;;
    *) echo "usage: $0 [--quick] [--filter SUBSTRING] [--clock cpu|wall] [--no-ort]" >&2; exit 2 ;;
  esac
  shift
done

command -v node >/dev/null || { echo "run_wasm_bench: node is required" >&2; exit 2; }
for f in cvmrt-plain.wasm cvmrt-plain.mjs cvmrt-simd.wasm cvmrt-simd.mjs; do
  if [[ ! -f "$ROOT/js/dist/wasm/$f" ]]; then
    echo "run_wasm_bench: js/dist/wasm/$f is missing; build it: (cd js && npm run build)" >&2
    exit 2
  fi
done
if [[ ! -f "$ROOT/js/dist/index.mjs" ]]; then
  echo "run_wasm_bench: js/dist/index.mjs is missing: (cd js && npm run build:js)" >&2
  exit 2
fi

echo "== building op_latency_bench in $BUILD_DIR"
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCVMRT_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" -j2 --target op_latency_bench conv_bench >/dev/null
mkdir -p "$OUT"

echo "== load before: $(uptime)"
echo "== native (one thread)"
"$BUILD_DIR/bench/op_latency_bench" "$WORKLOADS" "${ARGS[@]}" | tee "$OUT/native_ops.jsonl"
echo "== wasm in node, and the report"
node "$ROOT/bench/wasm_bench.mjs" --workloads "$WORKLOADS" --native "$OUT/native_ops.jsonl" \
  "${ARGS[@]}" "${CLOCK[@]}"

if [[ $ORT -eq 1 ]]; then
  if ! /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
    echo "== skipping onnxruntime-web: /usr/bin/python3 lacks onnx (apt-get install python3-onnx)"
  else
    if [[ ! -d "$ROOT/bench/ort/node_modules/onnxruntime-web" ]]; then
      echo "== installing onnxruntime-web into bench/ort"
      (cd "$ROOT/bench/ort" && npm install --ignore-scripts --no-audit --no-fund >/dev/null)
    fi
    echo "== the same int8 layers as CVM models and as ONNX models (conv_bench --list)"
    "$BUILD_DIR/bench/conv_bench" --list >"$OUT/workloads.jsonl"
    /usr/bin/python3 "$ROOT/bench/layer_models.py" "$OUT/workloads.jsonl" "$OUT/layers"
    /usr/bin/python3 "$ROOT/bench/ort/make_models.py" "$OUT/workloads.jsonl" "$OUT/models"
    QUICK=()
    [[ " ${ARGS[*]} " == *" --quick "* ]] && QUICK=(--quick)
    node "$ROOT/bench/wasm_ort_bench.mjs" --layers "$OUT/layers" --ort "$OUT/models" \
      --filter "$FILTER" "${QUICK[@]}" \
      --startup-model "$ROOT/examples/models/lenet.json,$ROOT/examples/models/lenet.params"
  fi
fi
if [[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" && -d "$ROOT/js/node_modules/playwright-core" ]]; then
  node "$ROOT/bench/wasm_startup_browser.mjs" --runs "$([[ " ${ARGS[*]} " == *" --quick "* ]] && echo 3 || echo 7)"
else
  echo "== skipping the Chromium startup times: no chromium or no js/node_modules/playwright-core"
fi
echo "== load after: $(uptime)"
