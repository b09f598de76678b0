#!/usr/bin/env bash
# Rebuilds gen_vectors and rewrites tests/vectors/generated/*.json from the scalar reference.
#
# Usage: tests/vectors/regenerate.sh [op ...]    (no ops: every operator, stale files removed)
# Environment: BUILD_DIR (default: <repo>/build-vectors), JOBS (default: 2).
# Review the diff before committing: a generated expectation that changes means the scalar
# reference changed behaviour, and the hand cases in hand/ are what says which side is right.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${BUILD_DIR:-$root/build-vectors}"

cmake -S "$root" -B "$build" >/dev/null
cmake --build "$build" --target gen_vectors -j"${JOBS:-2}"

if [ $# -eq 0 ]; then
  rm -f "$here"/generated/*.json
fi
"$build/tools/gen_vectors" "$here/generated" "$@"
du -ch "$here"/generated/*.json | tail -n 1
