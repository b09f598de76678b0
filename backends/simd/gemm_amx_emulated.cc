// The AMX conv2d/dense kernels with software tiles (CVM_AMX_EMULATE in gemm_amx.inc), for tests
// of their packing and tiling on CPUs without AMX. Compiled with AVX-512 VNNI flags only.
#include "immintrin_avx512.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gemm_kernels.h"
#include "gemm_plan.h"
#include "params/nn.h"

#define CVM_AMX_EMULATE 1

namespace cvm {
namespace kernel {
namespace simd {
namespace {

// clang-format off: the engine parts build on each other in this order
#include "gemm_avx512.inc"
#include "gemm_engine.inc"
#include "gemm_depthwise.inc"
#include "gemm_conv2d.inc"
#include "gemm_dense.inc"
#include "gemm_amx.inc"
// clang-format on

}  // namespace

KernelStatus conv2d_i8i32__amx_emulated(const KernelCall& call) { return conv2d_amx_entry(call); }
KernelStatus dense_i8i32__amx_emulated(const KernelCall& call) { return dense_amx_entry(call); }
size_t conv2d_i8i32__amx_emulated_prepack(const TensorView& w, const void* params, void* out,
                                           size_t cap) {
  return conv2d_amx_prepack(w, params, out, cap);
}
size_t dense_i8i32__amx_emulated_prepack(const TensorView& w, const void* params, void* out,
                                          size_t cap) {
  return dense_amx_prepack(w, params, out, cap);
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
