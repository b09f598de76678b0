// float32 relu, leaky_relu, clamp, sigmoid and softmax on AVX-512.
//
// Bit-identical to the scalar reference (float_act.inc; compiled with -mavx512f -mavx512bw for this
// file only, no FMA).
#include "immintrin_avx512.h"

#include <cstdint>
#include <cstring>
#include <limits>

#include "float_math.h"
#include "params/float_nn.h"
#include "simd_kernels.h"

namespace cvm {
namespace kernel {
namespace simd {
namespace {

// clang-format off
#include "kernel_loops.inc"
#include "float_vec_avx512.inc"
#include "float_loops.inc"
#include "float_act.inc"
// clang-format on

}  // namespace

KernelStatus relu_f32__avx512(const KernelCall& call) {
  f_relu(call);
  return KernelStatus::kDone;
}
KernelStatus leaky_relu_f32__avx512(const KernelCall& call) {
  f_leaky_relu(call);
  return KernelStatus::kDone;
}
KernelStatus clamp_f32__avx512(const KernelCall& call) {
  f_clamp(call);
  return KernelStatus::kDone;
}
KernelStatus sigmoid_f32__avx512(const KernelCall& call) {
  f_sigmoid(call);
  return KernelStatus::kDone;
}
KernelStatus softmax_f32__avx512(const KernelCall& call) {
  f_softmax(call);
  return KernelStatus::kDone;
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
