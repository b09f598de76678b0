// conv2d on AVX-512 VNNI: int8 lanes and vpdpbusd (gemm_engine.inc), compiled with -mavx512f
// -mavx512bw -mavx512vnni. GCC 12 warns about the _mm512_undefined_*() placeholders inside its own
// AVX-512 intrinsics (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cstdint>
#include <cstring>

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

void conv2d_i8i32__avx512vnni(const KernelCall& call) { conv2d_entry(call); }
size_t conv2d_i8i32__avx512vnni_prepack(const TensorView& w, const void* params, void* out,
                                         size_t cap) {
  return conv2d_prepack(w, params, out, cap);
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
