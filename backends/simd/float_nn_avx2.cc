// float32 conv2d and dense on AVX2, bit-identical to the scalar reference (float_nn.inc; compiled
// with -mavx2 for this file only, no FMA).
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "params/nn.h"
#include "simd_kernels.h"

namespace cvm {
namespace kernel {
namespace simd {
namespace {

// clang-format off
#include "kernel_loops.inc"
#include "float_vec_avx2.inc"
#include "float_loops.inc"
#include "float_nn.inc"
// clang-format on

}  // namespace

KernelStatus conv2d_f32__avx2(const KernelCall& call) {
  f_conv2d(call);
  return KernelStatus::kDone;
}
KernelStatus dense_f32__avx2(const KernelCall& call) {
  f_dense(call);
  return KernelStatus::kDone;
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
