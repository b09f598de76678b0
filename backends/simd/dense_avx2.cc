// dense on AVX2: int16 lanes and vpmaddwd (gemm_engine.inc), compiled with -mavx2.
#include <immintrin.h>

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
#include "gemm_avx2.inc"
#include "gemm_engine.inc"
#include "gemm_dense.inc"
// clang-format on

}  // namespace

KernelStatus dense_i16i32__avx2(const KernelCall& call) { return dense_entry(call); }
size_t dense_i16i32__avx2_prepack(const TensorView& w, const void* params, void* out, size_t cap) {
  return dense_prepack(w, params, out, cap);
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
