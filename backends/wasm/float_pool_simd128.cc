// float32 max_pool2d and avg_pool2d on WebAssembly SIMD128, bit-identical to the scalar reference.
//
// The x86 kernels' template (backends/float_pool.inc, with its loop helpers) over four float32
// and two float64 lanes (float_vec_simd128.inc): the same per-lane operation sequence, so the same
// exactness argument as there.
#include <wasm_simd128.h>

#include <cstdint>
#include <cstring>
#include <limits>

#include "params/float_nn.h"
#include "params/nn.h"
#include "wasm_kernels.h"

namespace cvm {
namespace kernel {
namespace wasm {
namespace {

// clang-format off
#include "kernel_loops.inc"
#include "float_vec_simd128.inc"
#include "float_loops.inc"
#include "float_pool.inc"
// clang-format on

}  // namespace

KernelStatus max_pool2d_f32__wasm_simd128(const KernelCall& call) {
  f_pool<false>(call);
  return KernelStatus::kDone;
}
KernelStatus avg_pool2d_f32__wasm_simd128(const KernelCall& call) {
  f_pool<true>(call);
  return KernelStatus::kDone;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
