# Emscripten (wasm32) settings, included instead of CvmDependencies.cmake under emcmake.
#
#   emcmake cmake -S . -B build-wasm-simd -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node \
#                 -DCVMRT_WASM_VARIANT=simd        # or plain
#
# The build has no shared library, install rules, pkg-config file, tools, benchmarks or C tests:
# it makes the ES module js/dist/wasm/cvmrt-<variant>.{mjs,wasm} (wasm/CMakeLists.txt) and the
# Catch2 suite as a node program. Every dependency is used as headers only, found on the host and
# exposed through a folder of symlinks: the emscripten toolchain confines find_* to its sysroot,
# and -I/usr/include would pull in the host's glibc headers.
if(NOT EMSCRIPTEN)
  message(FATAL_ERROR "CvmEmscripten.cmake is for emcmake builds only")
endif()

set(CVMRT_WASM_VARIANT "simd" CACHE STRING
    "simd: with the SIMD128 'wasm' kernel backend; plain: scalar kernels only (no SIMD needed)")
set_property(CACHE CVMRT_WASM_VARIANT PROPERTY STRINGS simd plain)
if(NOT CVMRT_WASM_VARIANT MATCHES "^(simd|plain)$")
  message(FATAL_ERROR "CVMRT_WASM_VARIANT must be simd or plain, found '${CVMRT_WASM_VARIANT}'")
endif()
set(CVMRT_WASM_OUT_DIR "${PROJECT_SOURCE_DIR}/js/dist/wasm" CACHE PATH
    "Folder receiving cvmrt-<variant>.mjs and cvmrt-<variant>.wasm")
if(CVMRT_SANITIZE)
  message(FATAL_ERROR "CVMRT_SANITIZE is not supported by the Emscripten build")
endif()
# The tool and the benchmarks need the shared library and the host's files and clocks: native only.
set(CVMRT_BUILD_TOOLS OFF)
set(CVMRT_BUILD_BENCH OFF)
message(STATUS "cvmrt: Emscripten build, variant '${CVMRT_WASM_VARIANT}', module into "
               "${CVMRT_WASM_OUT_DIR}")

# The C ABI turns C++ exceptions into status codes: catching needs exception support compiled
# into every object and the link (without it a throw escapes to JS as a bare number).
#   wasm: WebAssembly exception handling (-fwasm-exceptions): try/catch in the wasm itself, no JS
#         invoke_* trampolines around every call that may throw; smaller and faster. Needs an
#         engine with wasm EH: Node >= 17, Chrome >= 95, Firefox >= 100, Safari >= 15.2.
#   js:   emscripten's JS-based -fexceptions (any engine with WebAssembly).
set(CVMRT_WASM_EXCEPTIONS "wasm" CACHE STRING "C++ exceptions: wasm (-fwasm-exceptions) or js (-fexceptions)")
set_property(CACHE CVMRT_WASM_EXCEPTIONS PROPERTY STRINGS wasm js)
if(CVMRT_WASM_EXCEPTIONS STREQUAL "wasm")
  add_compile_options(-fwasm-exceptions)
  add_link_options(-fwasm-exceptions)
elseif(CVMRT_WASM_EXCEPTIONS STREQUAL "js")
  add_compile_options(-fexceptions)
  add_link_options(-fexceptions)
else()
  message(FATAL_ERROR "CVMRT_WASM_EXCEPTIONS must be wasm or js, found '${CVMRT_WASM_EXCEPTIONS}'")
endif()

# Size (docs/wasm-size.md): everything is compiled for size except the kernel backends, which
# keep their speed (-Oz makes the SIMD conv2d about 4x slower). wasm/CMakeLists.txt applies
# CVMRT_WASM_KERNEL_OPT to every backend target once they all exist. Debug builds keep -O0.
# Every object gets exactly one -O flag: em++ given "-Oz ... -O3" keeps optimising for size
# (the GEMM micro-kernels were no longer inlined: conv2d 2.5x slower), so the build type's -O
# is dropped here and each target adds its own.
set(CVMRT_WASM_OPT "-Oz" CACHE STRING "optimisation flag of the non-kernel wasm code")
set(CVMRT_WASM_KERNEL_OPT "-O3" CACHE STRING "optimisation flag of the kernel backends")
# The scalar reference backend: in the simd variant only the fallback for the ops that have no
# SIMD128 kernel (cast, comparisons, ...), so -Oz (28 KB gzip less, the benchmarked ops keep their
# speed); in the plain variant it runs every op but conv2d/dense/depthwise (portable), so
# "per-family": -O3 for the op families quantized models run, -Oz for the rest
# (wasm/CMakeLists.txt).
set(CVMRT_WASM_SCALAR_OPT "auto" CACHE STRING
    "scalar reference backend: an -O flag, per-family, or auto (simd: -Oz, plain: per-family)")
if(CVMRT_WASM_SCALAR_OPT STREQUAL "auto")
  if(CVMRT_WASM_VARIANT STREQUAL "simd")
    set(CVM_WASM_SCALAR_OPT "-Oz")
  else()
    set(CVM_WASM_SCALAR_OPT "per-family")
  endif()
else()
  set(CVM_WASM_SCALAR_OPT "${CVMRT_WASM_SCALAR_OPT}")
endif()
foreach(config RELEASE RELWITHDEBINFO MINSIZEREL)
  foreach(lang C CXX)
    string(REGEX REPLACE "(^| )-O[0-9sz]( |$)" " " CMAKE_${lang}_FLAGS_${config}
           "${CMAKE_${lang}_FLAGS_${config}}")
  endforeach()
endforeach()
set(CVM_WASM_OPT_GENEX "$<$<NOT:$<CONFIG:Debug>>:${CVMRT_WASM_OPT}>")
add_compile_options("${CVM_WASM_OPT_GENEX}")

# emscripten 3.1.6's optimizing link runs acorn from Debian's /usr/share/nodejs, which NodeSource
# node does not search: set NODE_PATH for every link, whatever the caller's environment.
set(CMAKE_CXX_LINKER_LAUNCHER "${CMAKE_COMMAND};-E;env;NODE_PATH=/usr/share/nodejs")
set(CMAKE_C_LINKER_LAUNCHER "${CMAKE_COMMAND};-E;env;NODE_PATH=/usr/share/nodejs")

# GCC's -Wshadow=local has no clang spelling; the native build keeps that check.
list(REMOVE_ITEM CVM_WARNING_FLAGS -Wshadow=local)

# ---- host headers (no host libraries, no host include root) ----
set(CVM_HOST_HEADERS "${PROJECT_BINARY_DIR}/host_headers")
file(MAKE_DIRECTORY "${CVM_HOST_HEADERS}")

# cvm_host_header(<entry> <dir>): symlinks /usr/include/<entry> (a folder or a header) into
# CVM_HOST_HEADERS; FATAL_ERROR naming the Debian package when it is missing.
function(cvm_host_header entry package)
  find_path(found_${entry} "${entry}" PATHS /usr/include NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  if(NOT found_${entry})
    message(FATAL_ERROR "/usr/include/${entry} not found: apt-get install ${package}")
  endif()
  file(CREATE_LINK "${found_${entry}}/${entry}" "${CVM_HOST_HEADERS}/${entry}" SYMBOLIC)
endfunction()
cvm_host_header(flatbuffers libflatbuffers-dev)
cvm_host_header(dlpack libdlpack-dev)
cvm_host_header(xxhash.h libxxhash-dev)
cvm_host_header(nlohmann nlohmann-json3-dev)
cvm_host_header(catch2 catch2)

# flatbuffers: the core uses only the header-only builder and Verifier, never libflatbuffers.
# The schemas need no FLATBUFFERS_MAX_ALIGNMENT (no force_align: payloads live outside the
# flatbuffer). flatc is the host's compiler.
add_library(flatbuffers::flatbuffers INTERFACE IMPORTED)
target_include_directories(flatbuffers::flatbuffers SYSTEM INTERFACE "${CVM_HOST_HEADERS}")
find_program(CVM_FLATC flatc REQUIRED NO_CMAKE_FIND_ROOT_PATH)
add_executable(flatbuffers::flatc IMPORTED)
set_target_properties(flatbuffers::flatc PROPERTIES IMPORTED_LOCATION "${CVM_FLATC}")

add_library(cvm_dlpack INTERFACE)
target_include_directories(cvm_dlpack SYSTEM INTERFACE "${CVM_HOST_HEADERS}")

# xxhash in its header-only mode: every function inlined, no libxxhash to link.
add_library(cvm_xxhash INTERFACE)
target_include_directories(cvm_xxhash SYSTEM INTERFACE "${CVM_HOST_HEADERS}")
target_compile_definitions(cvm_xxhash INTERFACE XXH_INLINE_ALL)

add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json SYSTEM INTERFACE "${CVM_HOST_HEADERS}")

# The module is single-threaded (SharedArrayBuffer would need cross-origin isolation in
# browsers); std::mutex and std::call_once still work. Threads::Threads adds nothing.
add_library(Threads::Threads INTERFACE IMPORTED)

# Catch2 v2 headers and its ctest discovery (run through CMAKE_CROSSCOMPILING_EMULATOR = node).
if(CVMRT_BUILD_TESTS)
  add_library(Catch2::Catch2 INTERFACE IMPORTED)
  target_include_directories(Catch2::Catch2 SYSTEM INTERFACE "${CVM_HOST_HEADERS}")
  include(/usr/lib/cmake/Catch2/Catch.cmake)
  # Left out of the wasm32 runs (wasm/ lists them as a test of its own): [large] needs > 2 GiB of
  # memory or a file mapping that large; [threads] starts std::threads, which this
  # single-threaded build cannot.
  set(CVM_WASM_SKIPPED_SPEC "[large],[threads]")
  set(CVM_TEST_SPEC "~[large]~[threads]")
  if(NOT CMAKE_CROSSCOMPILING_EMULATOR MATCHES "node$")
    message(FATAL_ERROR "configure with -DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node: emcmake's "
                        "default adds --experimental-wasm-threads, which node 20 rejects, and "
                        "test discovery then finds nothing "
                        "(found '${CMAKE_CROSSCOMPILING_EMULATOR}')")
  endif()
endif()
