# Runs the ctest fuzz entries (tests/fuzz/CMakeLists.txt). Two modes:
#  - FUZZER, CORPUS, REGRESSIONS, WORK_DIR, SECONDS, FLAGS: fuzz a fresh copy of CORPUS (new
#    inputs go to the copy; REGRESSIONS is read too) for SECONDS; fails on any crash, leak,
#    timeout, out-of-memory or UBSan report (libFuzzer's exit status), printing the artifact.
#  - FUZZERS (name=path;...), REGRESSIONS, WORK_DIR, FLAGS: replay every file of
#    REGRESSIONS/<name> once through its fuzzer.
# UBSan is fatal (-fno-sanitize-recover=undefined in the build); the options below make its
# and ASan's reports print a stack and end the run.
set(ENV{UBSAN_OPTIONS} "halt_on_error=1:print_stacktrace=1")
set(ENV{ASAN_OPTIONS} "detect_leaks=1:abort_on_error=0:allocator_may_return_null=0")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/artifacts")

function(run_checked what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(LENGTH "${out}" len)
  if(len GREATER 20000)
    math(EXPR start "${len} - 20000")
    string(SUBSTRING "${out}" ${start} -1 out)
  endif()
  if(NOT rc EQUAL 0)
    file(GLOB artifacts "${WORK_DIR}/artifacts/*")
    message(FATAL_ERROR "${what}: FAIL (exit ${rc})\n${out}\nartifacts: ${artifacts}\n"
                        "Reproduce: <fuzzer> <artifact>; commit it under tests/fuzz/regressions/ "
                        "(docs/fuzzing.md).")
  endif()
  message("${out}")
endfunction()

if(DEFINED FUZZERS)
  foreach(entry IN LISTS FUZZERS)
    string(REGEX MATCH "^([^=]+)=(.*)$" _ "${entry}")
    set(name "${CMAKE_MATCH_1}")
    set(fuzzer "${CMAKE_MATCH_2}")
    file(GLOB inputs LIST_DIRECTORIES false "${REGRESSIONS}/${name}/*")
    list(LENGTH inputs n)
    message("${name}: ${n} regression input(s)")
    if(n GREATER 0)
      run_checked("fuzz_${name} regressions" "${fuzzer}" ${FLAGS}
                  "-artifact_prefix=${WORK_DIR}/artifacts/" ${inputs})
    endif()
  endforeach()
  return()
endif()

file(MAKE_DIRECTORY "${WORK_DIR}/corpus")
if(EXISTS "${CORPUS}")
  file(GLOB seeds LIST_DIRECTORIES false "${CORPUS}/*")
  if(seeds)
    file(COPY ${seeds} DESTINATION "${WORK_DIR}/corpus")
  endif()
endif()
set(dirs "${WORK_DIR}/corpus")
if(EXISTS "${REGRESSIONS}")
  list(APPEND dirs "${REGRESSIONS}")
endif()
run_checked("${FUZZER}" "${FUZZER}" ${FLAGS} -max_total_time=${SECONDS} -print_final_stats=1
            "-artifact_prefix=${WORK_DIR}/artifacts/" ${dirs})
