// conv2d on AVX-512 VNNI: int8 lanes and vpdpbusd (gemm_engine.inc), compiled with -mavx512f
// -mavx512bw -mavx512vnni.
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
// clang-format on

}  // namespace

KernelStatus conv2d_i8i32__avx512vnni(const KernelCall& call) { return conv2d_entry(call); }
size_t conv2d_i8i32__avx512vnni_prepack(const TensorView& w, const void* params, void* out,
                                         size_t cap) {
  return conv2d_prepack(w, params, out, cap);
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
