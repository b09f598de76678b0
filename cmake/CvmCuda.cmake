# The optional CUDA backend: built whenever nvcc is found (CVMRT_CUDA=AUTO), required (ON) or not
# (OFF). Sets CVMRT_HAVE_CUDA. Included after project(); the architectures are set before it
# (CMakeLists.txt), where CMake reads them.
set(CVMRT_HAVE_CUDA OFF)
if(EMSCRIPTEN OR CVMRT_CUDA STREQUAL "OFF")
  return()
endif()
if(CVMRT_SANITIZE OR CVMRT_TSAN)
  # The sanitizer runtimes do not instrument device code and report the CUDA driver's own
  # allocations; the release build compiles and tests the backend.
  message(STATUS "CUDA backend: off in sanitizer builds")
  return()
endif()
include(CheckLanguage)
check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  if(CVMRT_CUDA STREQUAL "ON")
    message(FATAL_ERROR "CVMRT_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
  message(STATUS "CUDA backend: off (no nvcc found)")
  return()
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
if(CVM_CCACHE)
  set(CMAKE_CUDA_COMPILER_LAUNCHER "${CVM_CCACHE}")
endif()
# Device code follows the same float contract as host code: no fused multiply-add contraction.
# constexpr helpers (convert.h, float_math.h) are called from device code.
# The device code of every kernel and dtype for two architectures is most of the library's size:
# compressed, libcvmrt.so is about 9 MB instead of 39 (the driver inflates it once, at load).
add_compile_options($<$<COMPILE_LANGUAGE:CUDA>:-fmad=false>
                    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>
                    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-ffp-contract=off,-fno-fast-math>
                    $<$<COMPILE_LANGUAGE:CUDA>:-Xfatbin=-compress-all>)
if(CVMRT_WERROR)
  add_compile_options($<$<COMPILE_LANGUAGE:CUDA>:--Werror=all-warnings>)
endif()
set(CVMRT_HAVE_CUDA ON)
message(STATUS "CUDA backend: on (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures "
               "${CMAKE_CUDA_ARCHITECTURES})")
