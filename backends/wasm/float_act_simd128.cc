// float32 relu, leaky_relu, clamp, sigmoid and softmax on WebAssembly SIMD128.
//
// Bit-identical to the scalar reference: the x86 kernels' template (backends/float_act.inc,
// with its loop helpers) over four float32 and two float64 lanes (float_vec_simd128.inc): the same
// per-lane operation sequence, so the same exactness argument as there.
#include <wasm_simd128.h>

#include <cstdint>
#include <cstring>
#include <limits>

#include "float_math.h"
#include "params/float_nn.h"
#include "wasm_kernels.h"

namespace cvm {
namespace kernel {
namespace wasm {
namespace {

// clang-format off
#include "kernel_loops.inc"
#include "float_vec_simd128.inc"
#include "float_loops.inc"
#include "float_act.inc"
// clang-format on

}  // namespace

KernelStatus relu_f32__wasm_simd128(const KernelCall& call) {
  f_relu(call);
  return KernelStatus::kDone;
}
KernelStatus leaky_relu_f32__wasm_simd128(const KernelCall& call) {
  f_leaky_relu(call);
  return KernelStatus::kDone;
}
KernelStatus clamp_f32__wasm_simd128(const KernelCall& call) {
  f_clamp(call);
  return KernelStatus::kDone;
}
KernelStatus sigmoid_f32__wasm_simd128(const KernelCall& call) {
  f_sigmoid(call);
  return KernelStatus::kDone;
}
KernelStatus softmax_f32__wasm_simd128(const KernelCall& call) {
  f_softmax(call);
  return KernelStatus::kDone;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
