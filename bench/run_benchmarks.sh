#!/usr/bin/env bash
# Builds and runs the conv2d/dense benchmark (bench/conv_bench.cc) and the same work on ONNX
# Runtime, and prints one table: scalar vs every x86 ISA level, 1 and 2 threads, GOPS, % of
# the int8 VNNI peak, and the cvmrt/ONNX Runtime time ratio.
#
#   bench/run_benchmarks.sh [--quick] [--no-ort] [--filter SUBSTRING]
#
# Environment: BUILD_DIR (default build-bench), CVMRT_BENCH_OUT (default $BUILD_DIR/bench-out).
# The ONNX Runtime part needs node/npm (onnxruntime-node is installed into bench/ort with
# --ignore-scripts: its CPU binaries ship in the package) and Debian's python3-onnx for
# /usr/bin/python3 (installed with apt-get when missing and allowed); without them it is
# skipped with a message. Timings on shared machines are noisy: the load average is printed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-bench}"
OUT="${CVMRT_BENCH_OUT:-$BUILD_DIR/bench-out}"
QUICK=""
ORT=1
FILTER=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) QUICK="--quick" ;;
    --no-ort) ORT=0 ;;
    --filter) FILTER=(--filter "$2"); shift ;;
    *) echo "usage: $0 [--quick] [--no-ort] [--filter SUBSTRING]" >&2; exit 2 ;;
  esac
  shift
done

echo "== building conv_bench in $BUILD_DIR"
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCVMRT_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" -j2 --target conv_bench >/dev/null
BENCH="$BUILD_DIR/bench/conv_bench"
mkdir -p "$OUT"

ort_ready() {
  command -v node >/dev/null && command -v npm >/dev/null || { echo "no node/npm"; return 1; }
  if ! /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
    echo "== installing python3-onnx"
    local sudo=""
    [[ $(id -u) -eq 0 ]] || sudo="sudo -n"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y python3-onnx >/dev/null ||
      { echo "cannot install python3-onnx"; return 1; }
  fi
  if [[ ! -d "$ROOT/bench/ort/node_modules/onnxruntime-node" ]]; then
    echo "== installing onnxruntime-node into bench/ort"
    (cd "$ROOT/bench/ort" && npm install --ignore-scripts --no-audit --no-fund >/dev/null) ||
      { echo "npm install failed"; return 1; }
  fi
}

echo "== load before: $(uptime)"
: >"$OUT/ort.jsonl"
if [[ $ORT -eq 1 ]]; then
  if ort_ready; then
    echo "== ONNX Runtime"
    "$BENCH" --list >"$OUT/workloads.jsonl"
    if [[ ${#FILTER[@]} -gt 0 ]]; then
      grep -F -- "${FILTER[1]}" "$OUT/workloads.jsonl" >"$OUT/workloads.sel.jsonl" || true
      mv "$OUT/workloads.sel.jsonl" "$OUT/workloads.jsonl"
    fi
    /usr/bin/python3 "$ROOT/bench/ort/make_models.py" "$OUT/workloads.jsonl" "$OUT/models"
    (cd "$ROOT/bench/ort" && node ort_bench.mjs "$OUT/models" $QUICK) >"$OUT/ort.jsonl"
  else
    echo "== skipping ONNX Runtime"
  fi
fi
echo "== cvmrt"
"$BENCH" --json $QUICK "${FILTER[@]}" >"$OUT/cvm.jsonl"
echo "== load after: $(uptime)"
echo
/usr/bin/python3 "$ROOT/bench/ort/report.py" "$OUT/cvm.jsonl" "$OUT/ort.jsonl"
