#!/usr/bin/env bash
# Long libFuzzer campaigns (docs/fuzzing.md): builds build-fuzz/ (clang-14, CVMRT_FUZZ and
# CVMRT_SANITIZE on) and fuzzes each target for N minutes on a working corpus seeded from the
# committed one, then prints executions, exec/s, coverage, corpus size and crash files.
#
# usage: scripts/fuzz.sh [--minutes N] [--cpu-minutes] [--parallel P] [--keep-going] [--merge]
#                        [--seeds] [TARGET...]
#   TARGET        params cvm_graph model_file op_run npy onnx_import (default: all built)
#   --minutes N   minutes per target (default 60; 0 = no fuzzing, e.g. with --merge)
#   --cpu-minutes N counts CPU time, not wall time: each target stops once it has had N minutes
#                 of a core (on a busy machine, or with --parallel above the core count)
#   --timeout S   seconds one input may take (default: the ctest value); libFuzzer counts wall
#                 time, so raise it when the fuzzers share a busy machine at low priority
#   --parallel P  targets fuzzed at once (default 1)
#   --keep-going  fork mode: go on after a crash, timeout or OOM (each one is still saved)
#   --merge       minimize the working corpus into tests/fuzz/corpus/TARGET (libFuzzer -merge=1)
#   --seeds       regenerate seeds from the test data (fuzz_make_seeds) and merge them in too
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=$ROOT/build-fuzz

minutes=60
cpu_budget=0
timeout=
parallel=1
keep_going=0
merge=0
seeds=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --minutes=*) minutes=${1#*=}; shift ;;
    --cpu-minutes) minutes=$2; cpu_budget=1; shift 2 ;;
    --cpu-minutes=*) minutes=${1#*=}; cpu_budget=1; shift ;;
    --timeout) timeout=$2; shift 2 ;;
    --timeout=*) timeout=${1#*=}; shift ;;
    --parallel) parallel=$2; shift 2 ;;
    --parallel=*) parallel=${1#*=}; shift ;;
    --keep-going) keep_going=1; shift ;;
    --merge) merge=1; shift ;;
    --seeds) seeds=1; shift ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 1 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[[ "$minutes" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: --minutes takes a whole number" >&2; exit 1; }
[[ "$parallel" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --parallel takes a count >= 1" >&2; exit 1; }
[[ -z "$timeout" || "$timeout" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --timeout takes seconds >= 1" >&2; exit 1; }

export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/cvmrt-ccache} CCACHE_BASEDIR=$ROOT
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
    -DCVMRT_FUZZ=ON -DCVMRT_SANITIZE=ON -DCVMRT_WERROR=ON -DCVMRT_BUILD_BENCH=OFF
fi
all=(params cvm_graph model_file op_run npy)
# fuzz_onnx_import exists where the importer is built (libonnx-dev found).
build_help=$(cmake --build "$BUILD" --target help)
[[ "$build_help" == *fuzz_onnx_import* ]] && all+=(onnx_import)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target '$t' (${all[*]})" >&2; exit 1; }
done
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz_$t"); done
[ "$seeds" = 1 ] && build_targets+=(fuzz_make_seeds)
cmake --build "$BUILD" -j"$(nproc)" --target "${build_targets[@]}"

# The ctest flags (CVMRT_FUZZ_FLAGS in the cache: -timeout, -rss_limit_mb, -malloc_limit_mb).
read -r -a flags <<<"$(sed -n 's/^CVMRT_FUZZ_FLAGS:STRING=//p' "$BUILD/CMakeCache.txt" | tr ';' ' ')"
[ -n "$timeout" ] && flags+=("-timeout=$timeout")  # libFuzzer: the last value of a flag wins
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0

dict_flag() { [ -f "$ROOT/tests/fuzz/$1.dict" ] && echo "-dict=$ROOT/tests/fuzz/$1.dict" || true; }

run_target() {
  local t=$1 bin=$BUILD/tests/fuzz/fuzz_$1 work=$BUILD/corpus/$1 art=$BUILD/artifacts/$1/
  rm -rf "$art"  # findings of an earlier run: handled (docs/fuzzing.md) or to be found again
  mkdir -p "$work" "$art" "$BUILD/logs"
  [ -d "$ROOT/tests/fuzz/corpus/$t" ] && cp -n "$ROOT/tests/fuzz/corpus/$t"/* "$work"/ 2>/dev/null || true
  local dirs=("$work")
  [ -d "$ROOT/tests/fuzz/regressions/$t" ] && dirs+=("$ROOT/tests/fuzz/regressions/$t")
  local mode=()
  [ "$keep_going" = 1 ] && mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  local d; d=$(dict_flag "$t")
  # CPU seconds (user + sys) of the whole run go to logs/TARGET.cpu: with --parallel or a busy
  # machine, wall time overstates how much fuzzing a target had.
  local TIMEFORMAT='%U %S'
  { time fuzz_one "$bin" "${flags[@]}" ${d:+"$d"} "${mode[@]}" -print_final_stats=1 \
    -artifact_prefix="$art" "${dirs[@]}" >"$BUILD/logs/$t.log" 2>&1; } 2>"$BUILD/logs/$t.cpu"
}

# Runs one fuzzer for `minutes` of wall time or, with --cpu-minutes, until it has used that much
# CPU time, reaped children included (polled from /proc; then SIGINT, on which libFuzzer prints
# its final stats and exits).
fuzz_one() {
  if [ "$cpu_budget" = 0 ]; then
    "$@" -max_total_time=$((minutes * 60)) || true
    return
  fi
  "$@" -max_total_time=$((minutes * 60 * 20)) &
  local pid=$! tick; tick=$(getconf CLK_TCK)
  while kill -0 "$pid" 2>/dev/null; do
    sleep 5
    local used; used=$(awk -v hz="$tick" '{ sub(/^.*\) /, ""); print int(($12 + $13 + $14 + $15) / hz) }' \
      "/proc/$pid/stat" 2>/dev/null) || break
    if [ "${used:-0}" -ge $((minutes * 60)) ]; then kill -INT "$pid" 2>/dev/null; break; fi
  done
  wait "$pid" || true
}

if [ "$seeds" = 1 ]; then
  rm -rf "$BUILD/seeds"
  "$BUILD/tests/fuzz/fuzz_make_seeds" "$ROOT" "$BUILD/seeds"
  for t in "${targets[@]}"; do
    mkdir -p "$BUILD/corpus/$t"
    [ -d "$BUILD/seeds/$t" ] && cp "$BUILD/seeds/$t"/* "$BUILD/corpus/$t"/
  done
fi

if [ "$minutes" -gt 0 ]; then
  echo "fuzzing ${targets[*]} for $minutes $([ "$cpu_budget" = 1 ] && echo CPU-)min each" \
    "($parallel at a time); logs in $BUILD/logs"
  running=0
  for t in "${targets[@]}"; do
    run_target "$t" &
    running=$((running + 1))
    if [ "$running" -ge "$parallel" ]; then wait -n || true; running=$((running - 1)); fi
  done
  wait || true
fi

if [ "$merge" = 1 ] || [ "$seeds" = 1 ]; then
  for t in "${targets[@]}"; do
    work=$BUILD/corpus/$t dest=$ROOT/tests/fuzz/corpus/$t tmp=$BUILD/merge/$t
    [ -d "$work" ] || continue
    rm -rf "$tmp"; mkdir -p "$tmp" "$dest"
    "$BUILD/tests/fuzz/fuzz_$t" "${flags[@]}" -merge=1 "$tmp" "$dest" "$work" \
      >"$BUILD/logs/$t.merge.log" 2>&1 || { echo "merge of $t failed: $BUILD/logs/$t.merge.log"; exit 1; }
    rm -rf "$dest"; mv "$tmp" "$dest"
    echo "merged $t: $(ls "$dest" | wc -l) files, $(du -sb "$dest" | cut -f1) bytes in tests/fuzz/corpus/$t"
  done
fi

if [ "$minutes" -gt 0 ]; then
  printf '\n%-12s %8s %12s %8s %7s %8s %7s %10s  %s\n' target cpu-min execs exec/s cov ft files \
    bytes crashes
  for t in "${targets[@]}"; do
    log=$BUILD/logs/$t.log
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
    cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
    [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
    files=$(ls "$BUILD/corpus/$t" | wc -l)
    bytes=$(du -sb "$BUILD/corpus/$t" | cut -f1)
    crashes=$(ls "$BUILD/artifacts/$t" 2>/dev/null | tr '\n' ' ')
    cpu=$(awk '{ printf "%.1f", ($1 + $2) / 60 }' "$BUILD/logs/$t.cpu" 2>/dev/null || true)
    printf '%-12s %8s %12s %8s %7s %8s %7s %10s  %s\n' "$t" "${cpu:-?}" "${execs:-?}" "${rate:-?}" \
      "${cov:-?}" "${ft:-?}" "$files" "$bytes" "${crashes:-none}"
  done
  # This run's targets only (another campaign may share build-fuzz/). slow-unit-* files are
  # inputs that took long in wall time, which a starved fuzzer also produces: listed, replayed
  # by hand for their CPU time, not counted as findings.
  found=0 slow=0
  for t in "${targets[@]}"; do
    for f in "$BUILD/artifacts/$t"/*; do
      [ -f "$f" ] || continue
      case "$(basename "$f")" in slow-unit-*) slow=$((slow + 1)) ;; *) found=$((found + 1)) ;; esac
    done
  done
  if [ "$slow" -gt 0 ]; then
    echo "$slow slow input(s) (wall time above libFuzzer's -report_slow_units): replay each to" \
      "see its CPU time: build-fuzz/tests/fuzz/fuzz_TARGET FILE"
  fi
  if [ "$found" -gt 0 ]; then
    echo "$found finding(s) under $BUILD/artifacts: reproduce with build-fuzz/tests/fuzz/fuzz_TARGET FILE"
    exit 1
  fi
fi
