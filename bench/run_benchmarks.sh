#!/usr/bin/env bash
# Builds and runs the conv2d/dense benchmark (bench/conv_bench.cc) and the same work on ONNX
# Runtime, and prints one table: scalar vs every x86 ISA level, 1 and 2 threads, GOPS, % of
# the int8 MAC peak (VNNI, or vpmaddwd without it), and the cvmrt/ONNX Runtime time ratio. Then
# whole models: ResNet-18 and MobileNet-v1 shaped int8 CVM models (examples/gen_models.py
# --bench) timed by `cvmrt bench` on the scalar and simd backends, 1 and 2 threads
# (bench/models_report.py prints that table).
#
#   bench/run_benchmarks.sh [--quick] [--no-ort] [--no-models] [--no-prepack] [--filter SUBSTRING]
#
# The kernels get their weights prepacked outside the timing (conv_bench --prepacked), as the
# graph runtime does for constant weights and ONNX Runtime does at session creation; with
# --no-prepack every call packs its weight (what run_op on a fresh weight costs).
# --filter applies to the per-operator table only. --quick: fewer runs, and for the whole
# models a single scalar run and no AVX2-capped rows.
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
MODELS=1
PREPACK="--prepacked"
FILTER=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) QUICK="--quick" ;;
    --no-ort) ORT=0 ;;
    --no-models) MODELS=0 ;;
    --no-prepack) PREPACK="" ;;
    --filter) FILTER=(--filter "$2"); shift ;;
    *) echo "usage: $0 [--quick] [--no-ort] [--no-models] [--no-prepack] [--filter SUBSTRING]" >&2
       exit 2 ;;
  esac
  shift
done

echo "== building conv_bench and cvmrt in $BUILD_DIR"
cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCVMRT_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" -j2 --target conv_bench cvmrt_cli >/dev/null
BENCH="$BUILD_DIR/bench/conv_bench"
CVMRT="$BUILD_DIR/tools/cvmrt"
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
"$BENCH" --json $QUICK $PREPACK "${FILTER[@]}" >"$OUT/cvm.jsonl"

# One `cvmrt bench --format json` line, labelled, into models.jsonl.
# usage: bench_model LABEL THREADS RUNS WARMUP MODEL [ENV=VALUE...]
bench_model() {
  local label="$1" threads="$2" runs="$3" warmup="$4" model="$5"
  shift 5
  echo "   $label, $threads thread(s): $(basename "$model") x $runs" >&2
  env CVMRT_THREADS="$threads" "$@" "$CVMRT" bench "$model.json" --params "$model.params" \
      --input "data=${model}_input.npy" --runs "$runs" --warmup "$warmup" --profile 0 \
      --format json | sed 's/^{/{"label": "'"$label"'", /' >>"$OUT/models.jsonl"
}

: >"$OUT/models.jsonl"
if [[ $MODELS -eq 1 ]]; then
  echo "== whole models"
  /usr/bin/python3 "$ROOT/examples/gen_models.py" --bench "$OUT/cvm-models"
  if [[ -n $QUICK ]]; then
    runs=5 warmup=1 scalar_runs=1 scalar_warmup=0
  else
    runs=20 warmup=3 scalar_runs=3 scalar_warmup=1
  fi
  for name in resnet18 mobilenet_v1; do
    model="$OUT/cvm-models/$name"
    # The scalar kernels are single-threaded: one thread only.
    bench_model scalar 1 "$scalar_runs" "$scalar_warmup" "$model" CVMRT_BACKEND=scalar
    for threads in 1 2; do
      [[ -n $QUICK ]] ||
        bench_model "simd avx2" "$threads" "$runs" "$warmup" "$model" CVMRT_BACKEND=simd \
          CVMRT_ISA=avx2
      bench_model simd "$threads" "$runs" "$warmup" "$model" CVMRT_BACKEND=simd
    done
  done
fi
echo "== load after: $(uptime)"
echo
/usr/bin/python3 "$ROOT/bench/ort/report.py" "$OUT/cvm.jsonl" "$OUT/ort.jsonl"
if [[ $MODELS -eq 1 ]]; then
  echo
  /usr/bin/python3 "$ROOT/bench/models_report.py" "$OUT/models.jsonl" \
      "$OUT/cvm-models/expected.json"
fi
