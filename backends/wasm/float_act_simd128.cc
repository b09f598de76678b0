// float32 relu, leaky_relu, clamp, sigmoid and softmax on WebAssembly SIMD128.
//
// Bit-identical to the scalar reference: the x86 kernels' template (backends/simd/float_act.inc,
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
#include "simd/kernel_loops.inc"
#include "float_vec_simd128.inc"
#include "simd/float_loops.inc"
#include "simd/float_act.inc"
// clang-format on

}  // namespace

void relu_f32__wasm_simd128(const KernelCall& call) { f_relu(call); }
void leaky_relu_f32__wasm_simd128(const KernelCall& call) { f_leaky_relu(call); }
void clamp_f32__wasm_simd128(const KernelCall& call) { f_clamp(call); }
void sigmoid_f32__wasm_simd128(const KernelCall& call) { f_sigmoid(call); }
void softmax_f32__wasm_simd128(const KernelCall& call) { f_softmax(call); }

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
