#!/usr/bin/env bash
# One command for the wasm size and speed report: builds the native op_latency_bench, runs it and
# bench/wasm_bench.mjs on bench/workloads/ops.json, and prints one table (native scalar, native
# best, wasm plain, wasm simd, time ratios, output checksums equal) and the package sizes.
#
#   bench/run_wasm_bench.sh [--quick] [--filter SUBSTRING] [--clock cpu|wall]
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
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) ARGS+=(--quick) ;;
    --filter | --clock)
      [[ $# -ge 2 ]] || { echo "$1 needs a value" >&2; exit 2; }
      if [[ $1 == --filter ]]; then ARGS+=("$1" "$2"); else CLOCK=("$1" "$2"); fi
      shift ;;
    *) echo "usage: $0 [--quick] [--filter SUBSTRING] [--clock cpu|wall]" >&2; exit 2 ;;
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
cmake --build "$BUILD_DIR" -j2 --target op_latency_bench >/dev/null
mkdir -p "$OUT"

echo "== load before: $(uptime)"
echo "== native (one thread)"
"$BUILD_DIR/bench/op_latency_bench" "$WORKLOADS" "${ARGS[@]}" | tee "$OUT/native_ops.jsonl"
echo "== wasm in node, and the report"
node "$ROOT/bench/wasm_bench.mjs" --workloads "$WORKLOADS" --native "$OUT/native_ops.jsonl" \
  "${ARGS[@]}" "${CLOCK[@]}"
echo "== load after: $(uptime)"
