# Compiler settings shared by every native target: standard, warnings, determinism, sanitizers.
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
endif()
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_C_STANDARD 11)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
set(CMAKE_CXX_VISIBILITY_PRESET hidden)
set(CMAKE_C_VISIBILITY_PRESET hidden)
set(CMAKE_VISIBILITY_INLINES_HIDDEN ON)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)

find_program(CVM_CCACHE ccache)
if(CVM_CCACHE)
  set(CMAKE_C_COMPILER_LAUNCHER "${CVM_CCACHE}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CVM_CCACHE}")
endif()

# Float results are part of the contract: no FMA contraction, no fast-math, anywhere (nvcc's
# equivalent, -fmad=false, is set by cmake/CvmCuda.cmake).
add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-ffp-contract=off> $<$<COMPILE_LANGUAGE:C,CXX>:-fno-fast-math>)

# Warnings for our own targets (generated and third-party headers are included as SYSTEM).
# Both compilers are supported (g++ 12 and clang 14, warnings clean under each with -Werror);
# shadowing of locals is spelled differently by each.
set(CVM_WARNING_FLAGS -Wall -Wextra -Wpedantic -Wno-unused-parameter)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND CVM_WARNING_FLAGS -Wshadow=local)
else()
  list(APPEND CVM_WARNING_FLAGS -Wshadow-uncaptured-local)
endif()
if(CVMRT_WERROR)
  list(APPEND CVM_WARNING_FLAGS -Werror)
  if(CVMRT_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12's object-size warnings misfire on sanitizer-instrumented code (standard-library
    # inlines); they stay warnings there and errors in the normal build.
    list(APPEND CVM_WARNING_FLAGS -Wno-error=stringop-overflow -Wno-error=array-bounds)
  endif()
endif()

if(CVMRT_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # The library's C++ UBSan checks (vptr, function type) need the C++ part of the runtime,
    # which clang links only into C++ programs: the C tests and examples ask for it (and for
    # the C++ library it depends on).
    add_link_options($<$<LINK_LANGUAGE:C>:-fsanitize-link-c++-runtime>
                     $<$<LINK_LANGUAGE:C>:-lstdc++>)
  endif()
  add_compile_definitions(CVMRT_SANITIZER_BUILD=1)
endif()

# ThreadSanitizer (its own build: it cannot be combined with AddressSanitizer). The test command
# runs the threaded suites under it (the [threads] tests of cvmrt_tests).
if(CVMRT_TSAN)
  if(CVMRT_SANITIZE)
    message(FATAL_ERROR "CVMRT_TSAN and CVMRT_SANITIZE cannot be combined: use two build folders")
  endif()
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
  add_compile_definitions(CVMRT_SANITIZER_BUILD=1 CVMRT_TSAN_BUILD=1)
endif()

# cvm_target_warnings(target): our warning set on one target's own sources.
# CUDA sources get the same set through nvcc's -Xcompiler (for their host code).
function(cvm_target_warnings target)
  foreach(flag IN LISTS CVM_WARNING_FLAGS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C,CXX>:${flag}>)
  endforeach()
  if(CMAKE_CUDA_COMPILER)
    # Not -Wpedantic: nvcc's generated host code has GCC-style line directives.
    set(cuda_flags ${CVM_WARNING_FLAGS})
    list(REMOVE_ITEM cuda_flags -Wpedantic)
    string(REPLACE ";" "," host_flags "${cuda_flags}")
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${host_flags}>)
  endif()
endfunction()
