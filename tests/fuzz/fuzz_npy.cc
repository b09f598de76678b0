// libFuzzer target: the CLI's .npy reader (cvm::cli::parse_npy, tools/cli_util.cc) and its writer on what it reads.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "cli_util.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cvm_fuzz::init();
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  cvm::NDArray array;
  if (!cvm_fuzz::accept_logic_errors([&] { array = cvm::cli::parse_npy(bytes, "fuzz.npy"); })) {
    return 0;
  }
  cvm_fuzz::touch(array.data(), array.nbytes());
  // What parses writes back as a .npy that parses to the same bytes.
  std::string written = cvm::cli::to_npy(array);
  try {
    cvm::NDArray again = cvm::cli::parse_npy(written, "rewritten.npy");
    if (again.shape() != array.shape() || again.dtype() != array.dtype() ||
        again.nbytes() != array.nbytes() ||
        std::memcmp(again.data(), array.data(), array.nbytes()) != 0) {
      cvm_fuzz::fail("npy round trip", "different array");
    }
  } catch (const cvm::LogicError& e) {
    cvm_fuzz::fail("npy round trip", e.what());
  }
  return 0;
}
