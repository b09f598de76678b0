# Third-party dependencies, all from Debian packages (see scripts/install-deps.sh).
find_package(FlatBuffers CONFIG REQUIRED)
find_package(Threads REQUIRED)

find_path(DLPACK_INCLUDE_DIR dlpack/dlpack.h REQUIRED)
add_library(cvm_dlpack INTERFACE)
target_include_directories(cvm_dlpack SYSTEM INTERFACE "${DLPACK_INCLUDE_DIR}")

find_path(XXHASH_INCLUDE_DIR xxhash.h REQUIRED)
find_library(XXHASH_LIBRARY xxhash REQUIRED)
add_library(cvm_xxhash INTERFACE)
target_include_directories(cvm_xxhash SYSTEM INTERFACE "${XXHASH_INCLUDE_DIR}")
target_link_libraries(cvm_xxhash INTERFACE "${XXHASH_LIBRARY}")

# JSON for the C ABI's operator attributes (CVMOpRun) and the conformance-vector tools.
find_package(nlohmann_json 3 REQUIRED)

# The ONNX importer (import/): Debian's libonnx-dev with libprotobuf-dev. Optional: without them
# the importer library, its tests and `cvmrt import` are left out (scripts/install-deps.sh
# installs them, so the test command always has them).
find_package(Protobuf QUIET)
if(Protobuf_FOUND)
  find_package(ONNX CONFIG QUIET)
endif()
if(Protobuf_FOUND AND ONNX_FOUND AND TARGET onnx AND TARGET onnx_proto)
  set(CVMRT_HAVE_ONNX ON)
else()
  set(CVMRT_HAVE_ONNX OFF)
endif()
