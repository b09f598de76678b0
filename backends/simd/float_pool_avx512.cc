// float32 max_pool2d and avg_pool2d on AVX-512.
//
// Bit-identical to the scalar reference (float_pool.inc; compiled with -mavx512f -mavx512bw for
// this file only, no FMA).
#include "immintrin_avx512.h"

#include <cstdint>
#include <cstring>
#include <limits>

#include "params/float_nn.h"
#include "params/nn.h"
#include "simd_kernels.h"

namespace cvm {
namespace kernel {
namespace simd {
namespace {

// clang-format off
#include "kernel_loops.inc"
#include "float_vec_avx512.inc"
#include "float_loops.inc"
#include "float_pool.inc"
// clang-format on

}  // namespace

KernelStatus max_pool2d_f32__avx512(const KernelCall& call) {
  f_pool<false>(call);
  return KernelStatus::kDone;
}
KernelStatus avg_pool2d_f32__avx512(const KernelCall& call) {
  f_pool<true>(call);
  return KernelStatus::kDone;
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
