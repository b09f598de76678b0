// conv2d on AMX tdpbssd tiles (gemm_amx.inc), compiled with -mavx512f -mavx512bw -mavx512vnni
// -mamx-tile -mamx-int8; the AVX-512 VNNI paths cover what AMX does not.
#include "immintrin_avx512.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gemm_kernels.h"
#include "gemm_plan.h"
#include "params/nn.h"

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

KernelStatus conv2d_i8i32__amx(const KernelCall& call) { return conv2d_amx_entry(call); }
size_t conv2d_i8i32__amx_prepack(const TensorView& w, const void* params, void* out, size_t cap) {
  return conv2d_amx_prepack(w, params, out, cap);
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
