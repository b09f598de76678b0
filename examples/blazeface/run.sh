#!/usr/bin/env bash
# The BlazeFace example in one command: fetch, prepare, import, quantize, compare with ORT.
#
#   examples/blazeface/run.sh [WORK_DIR] [--no-extra] [--study]
#
# WORK_DIR defaults to build/blazeface (relative to the repository root). Steps:
#   1. fetch_model.sh WORK_DIR                      -> WORK_DIR/blazeface.onnx
#   2. the demo photos of npm @vladmandic/face-api@1.7.15 (npm pack + tar) -> WORK_DIR/face-api/
#      (extra test inputs, not committed; skipped with --no-extra or when npm cannot reach them)
#   3. onnxruntime-node in bench/ort/node_modules (npm install there when it is missing)
#   4. prepare_inputs.py                            -> WORK_DIR/inputs/*.npy, calib.npy
#   5. cvmrt import                                 -> WORK_DIR/blazeface.cvmrt
#   6. cvmrt quantize, --split (15-bit weights and activations as int8 halves), per-channel and
#      --per-tensor                                 -> WORK_DIR/blazeface_int8{_split,,_pt}.cvmrt
#      When the quantizer refuses the model as it is, its message is printed and the model is
#      rewritten by concat_to_pad.py (equivalent Pad nodes for the Concat-with-zeros channel
#      padding) and quantized from that; the float import always uses the original file.
#   6b. the float and --split models: the same output hash from the scalar reference and the
#      best backend at 1 and 7 threads (exit 1 otherwise)
#   7. compare.py: ORT vs cvmrt float vs the three int8 models; tables, targets (gated on the
#      --split model), timings
#   8. cvmrt bench of the float and the int8 models (20 runs)
#   9. with --study: int8_study.py (the int8 scheme as fake-quant under ORT, see its docstring)
# The exit status is compare.py's: 0 when every target of the issue is met, 1 when one is not;
# other failures exit with their own status. CVMRT=path overrides build/tools/cvmrt.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY=/usr/bin/python3
CVMRT="${CVMRT:-$ROOT/build/tools/cvmrt}"
WORK=""
EXTRA=1
STUDY=0
for arg in "$@"; do
  case "$arg" in
    --no-extra) EXTRA=0 ;;
    --study) STUDY=1 ;;
    -h|--help) awk 'NR > 1 && !/^#/ {exit} NR > 1' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $arg" >&2; exit 2 ;;
    *) WORK="$arg" ;;
  esac
done
WORK="${WORK:-$ROOT/build/blazeface}"
mkdir -p "$WORK"
WORK="$(cd "$WORK" && pwd)"
if [ ! -x "$CVMRT" ]; then
  echo "run.sh: $CVMRT is not built (cmake --build build)" >&2
  exit 2
fi

now() { date +%s.%N; }
took() { "$PY" -c "import sys; print('%.2f s' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$(now)"; }
step() { echo; echo "== $*"; }

step "1. model"
t=$(now)
"$HERE/fetch_model.sh" "$WORK"
echo "   ($(took "$t"))"

step "2. extra test photos (@vladmandic/face-api demo images)"
EXTRA_ARGS=()
if [ "$EXTRA" = 1 ]; then
  if ls "$WORK"/face-api/sample*.jpg >/dev/null 2>&1; then
    echo "   already in $WORK/face-api"
  else
    TMP="$(mktemp -d)"
    if (cd "$TMP" && npm pack @vladmandic/face-api@1.7.15 --fetch-retries=1 \
          --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 >pack.log 2>&1); then
      mkdir -p "$WORK/face-api"
      tar -xzf "$TMP"/vladmandic-face-api-1.7.15.tgz -C "$TMP" --wildcards 'package/demo/sample*.jpg'
      cp "$TMP"/package/demo/sample*.jpg "$WORK/face-api/"
      N=$(find "$WORK/face-api" -name 'sample*.jpg' | wc -l)
      echo "   wrote $N photos to $WORK/face-api (MIT package; not committed)"
    else
      echo "   npm cannot fetch @vladmandic/face-api; going on with the four skimage photos only"
    fi
    rm -rf "$TMP"
  fi
  if ls "$WORK"/face-api/sample*.jpg >/dev/null 2>&1; then EXTRA_ARGS=(--extra "$WORK/face-api"); fi
else
  echo "   skipped (--no-extra)"
fi

step "3. onnxruntime-node"
if [ ! -d "$ROOT/bench/ort/node_modules/onnxruntime-node" ]; then
  (cd "$ROOT/bench/ort" && ONNXRUNTIME_NODE_INSTALL=skip npm install --no-audit --no-fund)
fi
echo "   $(node -p "require('$ROOT/bench/ort/node_modules/onnxruntime-node/package.json').version")"

step "4. inputs"
t=$(now)
"$PY" "$HERE/prepare_inputs.py" "$WORK/inputs" "${EXTRA_ARGS[@]}"
echo "   ($(took "$t"))"

step "5. import"
t=$(now)
"$CVMRT" import "$WORK/blazeface.onnx" -o "$WORK/blazeface.cvmrt"
echo "   ($(took "$t"))"

step "6. quantize"
QSRC="$WORK/blazeface.onnx"
if ! "$CVMRT" quantize "$QSRC" --calib "$WORK/inputs/calib.npy" -o "$WORK/blazeface_int8.cvmrt" \
      --report >"$WORK/quantize_report.txt" 2>"$WORK/quantize_error.txt"; then
  echo "   cvmrt quantize refuses the original model:"
  sed 's/^/     /' "$WORK/quantize_error.txt"
  echo "   -> rewriting its Concat-with-zeros channel padding as Pad (concat_to_pad.py) and retrying"
  "$PY" "$HERE/concat_to_pad.py" "$WORK/blazeface.onnx" "$WORK/blazeface_pad.onnx"
  QSRC="$WORK/blazeface_pad.onnx"
  t=$(now)
  "$CVMRT" quantize "$QSRC" --calib "$WORK/inputs/calib.npy" -o "$WORK/blazeface_int8.cvmrt" \
      --report >"$WORK/quantize_report.txt"
  echo "   per-channel: $(grep '^quantized' "$WORK/quantize_report.txt") ($(took "$t"))"
else
  rm -f "$WORK/quantize_error.txt"
  echo "   per-channel: $(grep '^quantized' "$WORK/quantize_report.txt")"
fi
t=$(now)
"$CVMRT" quantize "$QSRC" --calib "$WORK/inputs/calib.npy" -o "$WORK/blazeface_int8_pt.cvmrt" \
    --per-tensor --report >"$WORK/quantize_report_pt.txt"
echo "   per-tensor:  $(grep '^quantized' "$WORK/quantize_report_pt.txt") ($(took "$t"))"
t=$(now)
"$CVMRT" quantize "$QSRC" --calib "$WORK/inputs/calib.npy" -o "$WORK/blazeface_int8_split.cvmrt" \
    --split --report >"$WORK/quantize_report_split.txt"
echo "   split:       $(grep '^quantized' "$WORK/quantize_report_split.txt") ($(took "$t"))"
echo "   calibrated ranges: $WORK/quantize_report{,_pt,_split}.txt"

step "6b. the same bits from every backend and thread count (float and --split models)"
# cvmrt eval hashes output 0 of every calibration input; the scalar reference at 1 thread, the
# best backend at 1 and 7 threads (and the GPU, where cvmrt info lists one) must print the same
# hash.
runs=("--backend scalar --threads 1" "--threads 1" "--threads 7")
if "$CVMRT" info | grep -q '^cuda:0: '; then runs+=("--device cuda"); fi
for m in blazeface blazeface_int8_split; do
  hashes=()
  for run in "${runs[@]}"; do
    # shellcheck disable=SC2086
    hashes+=("$("$CVMRT" eval "$WORK/$m.cvmrt" --inputs "$WORK/inputs/calib.npy" $run |
                sed -n 's/^outputs: *xxh64 \([0-9a-f]*\).*/\1/p')")
  done
  echo "   $m: ${hashes[*]}"
  for h in "${hashes[@]}"; do
    if [ -z "$h" ] || [ "$h" != "${hashes[0]}" ]; then
      echo "run.sh: $m gives different bits on different backends or thread counts" >&2
      exit 1
    fi
  done
done

step "7. compare"
set +e
"$PY" "$HERE/compare.py" --inputs "$WORK/inputs" --work "$WORK" --onnx "$WORK/blazeface.onnx" \
    --float "$WORK/blazeface.cvmrt" --quant int8-split="$WORK/blazeface_int8_split.cvmrt" \
    --quant int8="$WORK/blazeface_int8.cvmrt" \
    --quant int8-per-tensor="$WORK/blazeface_int8_pt.cvmrt" --cvmrt "$CVMRT" \
    --json "$WORK/results.json" | tee "$WORK/compare.txt"
STATUS=${PIPESTATUS[0]}
set -e

step "8. latency (cvmrt bench, 20 runs, $(nproc) hardware threads)"
# `cvmrt bench` wants float32 for a float model (its seeded default input is int32, which a
# float model refuses) and integers for a quantized one (it refuses float32): the float model
# gets the astronaut input, the int8 models their seeded default.
for m in blazeface blazeface_int8_split blazeface_int8 blazeface_int8_pt; do
  IN=()
  if [ "$m" = blazeface ]; then IN=(--input "data=$WORK/inputs/astronaut.npy"); fi
  printf '   %-20s ' "$m"
  "$CVMRT" bench "$WORK/$m.cvmrt" "${IN[@]}" --runs 20 --profile 0 2>/dev/null | grep -E '^latency' \
      || echo "(cvmrt bench failed)"
done

if [ "$STUDY" = 1 ]; then
  step "9. int8 scheme study (fake-quant under ORT)"
  "$PY" "$HERE/int8_study.py" "$WORK" | tee "$WORK/study.txt"
fi

echo
echo "run.sh: compare.py exit status $STATUS (results: $WORK/compare.txt, $WORK/results.json)"
exit "$STATUS"
