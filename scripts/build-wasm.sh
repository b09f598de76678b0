#!/usr/bin/env bash
# Builds both WebAssembly variants of cvmrt with emscripten (Debian's 3.1.6) and runs their test
# suites under node:
#   build-wasm-simd/   SIMD128 kernels ("wasm" backend) -> js/dist/wasm/cvmrt-simd.{mjs,wasm}
#   build-wasm-plain/  scalar kernels only               -> js/dist/wasm/cvmrt-plain.{mjs,wasm}
# Needs: apt-get install emscripten (plus the native build's packages). Options:
#   --no-test        build only
#   --out-dir DIR    where the modules go (default js/dist/wasm)
#   -jN              parallel jobs (default 2)
# What the bytes are: python3 scripts/wasm_size_map.py --relink build-wasm-simd (docs/wasm-size.md).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
run_tests=1
out_dir="$root/js/dist/wasm"
jobs=2
while [ $# -gt 0 ]; do
  case "$1" in
    --no-test) run_tests=0 ;;
    --out-dir) out_dir="$(realpath -m "$2")"; shift ;;
    -j*) jobs="${1#-j}" ;;
    *) echo "build-wasm.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done

if ! command -v emcmake >/dev/null; then
  echo "emcmake not found: apt-get install emscripten" >&2
  exit 1
fi
# emscripten 3.1.6's optimizing link needs Debian's acorn, which NodeSource node does not search.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
node_bin="$(command -v node)"

for variant in simd plain; do
  dir="build-wasm-$variant"
  echo "== wasm $variant: configure and build ($dir)"
  # The emulator must be plain node: emcmake's default adds a flag node 20 rejects.
  emcmake cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCVMRT_WASM_VARIANT="$variant" -DCVMRT_WERROR=ON \
    -DCMAKE_CROSSCOMPILING_EMULATOR="$node_bin" -DCVMRT_WASM_OUT_DIR="$out_dir" \
    -DCVMRT_BUILD_TESTS=$([ $run_tests = 1 ] && echo ON || echo OFF) >/dev/null
  cmake --build "$dir" -j"$jobs"
  if [ $run_tests = 1 ]; then
    echo "== wasm $variant: tests"
    ctest --test-dir "$dir" --output-on-failure -j"$jobs"
    # What the wasm run leaves out (cmake/CvmEmscripten.cmake), said out loud.
    echo "WARNING: not run under wasm32 ([large]: > 2 GiB; [threads]: std::thread), native only:"
    "$node_bin" "$dir/tests/cvmrt_tests.js" "[large],[threads]" --list-test-names-only | \
      sed 's/^/  /' || true
  fi
done

echo "== module sizes (bytes: raw, gzip -9)"
for variant in simd plain; do
  for ext in wasm mjs; do
    f="$out_dir/cvmrt-$variant.$ext"
    printf '%-22s %9d %9d\n' "cvmrt-$variant.$ext" "$(stat -c %s "$f")" "$(gzip -9c "$f" | wc -c)"
  done
done
