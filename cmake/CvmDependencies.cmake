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
