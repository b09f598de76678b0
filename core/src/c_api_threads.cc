// C ABI: the kernels' thread count (cvm/threads.h).
#include "c_api_common.h"
#include "cvm/c_api.h"
#include "cvm/threads.h"

using cvm::capi::guard;
using cvm::capi::require_not_null;

extern "C" {

int CVMSetNumThreads(int n) {
  return guard([&] { cvm::set_num_threads(n); });
}

int CVMGetNumThreads(int* n) {
  return guard([&] {
    require_not_null(n, "CVMGetNumThreads", "n");
    *n = cvm::num_threads();
  });
}

}  // extern "C"
