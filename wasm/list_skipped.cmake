# Prints the Catch2 tests that the wasm32 run leaves out (CVM_WASM_SKIPPED_SPEC) and why; passes
# unless the list cannot be made. ctest -V, or the log of scripts/build-wasm.sh, shows it.
#   cmake -DEMULATOR=node -DEXE=cvmrt_tests.js -DSPEC="[large],[threads]" -P list_skipped.cmake
execute_process(COMMAND ${EMULATOR} ${EXE} ${SPEC} --list-test-names-only
                OUTPUT_VARIABLE names RESULT_VARIABLE rc)
# --list-test-names-only exits with the number of tests listed.
if(NOT rc MATCHES "^[0-9]+$")
  message(FATAL_ERROR "cannot list the tests matching ${SPEC}: ${rc}")
endif()
string(STRIP "${names}" names)
string(REPLACE "\n" "\n  " names "${names}")
message("WARNING: ${rc} test cases do not run under wasm32 (${SPEC}: [large] needs > 2 GiB of "
        "memory or file mappings, [threads] needs std::thread, which the single-threaded module "
        "lacks); they run in the native suites:\n  ${names}")
