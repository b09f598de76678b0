// conv2d on AVX2: int16 lanes and vpmaddwd (gemm_engine.inc), compiled with -mavx2.
#include <immintrin.h>

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
#include "gemm_avx2.inc"
#include "gemm_engine.inc"
#include "gemm_depthwise.inc"
#include "gemm_conv2d.inc"
// clang-format on

}  // namespace

KernelStatus conv2d_i16i32__avx2(const KernelCall& call) { return conv2d_entry(call); }
size_t conv2d_i16i32__avx2_prepack(const TensorView& w, const void* params, void* out, size_t cap) {
  return conv2d_prepack(w, params, out, cap);
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
