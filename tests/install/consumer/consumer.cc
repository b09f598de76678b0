// Uses the installed C++ API: allocate, fill, add, read back.
#include <cvm/cvm.h>

#include <cstdio>

int main() {
  cvm::NDArray a = cvm::NDArray::zeros({4}, cvm::DataType::Int(32));
  cvm::fill(a, 20);
  cvm::NDArray b = cvm::add(a, a);
  int ok = b.data_as<int32_t>()[3] == 40;
  std::printf("%s: cvmrt %s via find_package\n", ok ? "ok" : "FAIL", CVMRT_VERSION_STRING);
  return ok ? 0 : 1;
}
