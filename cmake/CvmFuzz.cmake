# CVMRT_FUZZ: coverage-guided fuzzing with libFuzzer (tests/fuzz, docs/fuzzing.md). Clang only.
# Included from the root before CvmCompilerSettings, since it turns CVMRT_SANITIZE on.
# When ON, every target is compiled with -fsanitize=fuzzer-no-link (so coverage reaches the
# library) on top of CVMRT_SANITIZE's address,undefined; tests/fuzz links its executables with
# -fsanitize=fuzzer.
option(CVMRT_FUZZ "Build the libFuzzer targets of tests/fuzz (clang; implies CVMRT_SANITIZE)" OFF)
set(CVMRT_FUZZ_SECONDS 30 CACHE STRING
    "Seconds each ctest fuzz.<target> entry fuzzes (CVMRT_FUZZ builds)")

if(CVMRT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR
      "CVMRT_FUZZ=ON needs clang for C and C++ (libFuzzer), found C ${CMAKE_C_COMPILER_ID}, "
      "C++ ${CMAKE_CXX_COMPILER_ID}: configure a fresh build dir with "
      "CC=clang-14 CXX=clang++-14 (scripts/fuzz.sh does), or set CVMRT_FUZZ=OFF")
  endif()
  if(NOT CVMRT_SANITIZE)
    message(STATUS "cvmrt: CVMRT_FUZZ=ON turns CVMRT_SANITIZE on (address,undefined)")
    set(CVMRT_SANITIZE ON CACHE BOOL "Build everything with -fsanitize=address,undefined" FORCE)
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
  enable_testing()  # the fuzz.* entries, whether or not CVMRT_BUILD_TESTS is on
endif()
