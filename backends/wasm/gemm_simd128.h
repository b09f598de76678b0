// The int16-pair GEMM paths of conv2d and dense (gemm_simd128.cc) and their weight packers.
#pragma once

#include <cstddef>

#include "kernel_abi.h"

namespace cvm {
namespace kernel {
namespace wasm {

// conv2d as a GEMM over int16 pairs (groups of >= 4 output channels), called by
// conv2d_i32__wasm_simd128 once the call has passed its checks (non-empty output, unit inner
// strides): runs the call and returns true when x and w fit int16 and the op layer lends the
// scratch; returns false, having written nothing, otherwise. Uses KernelCall::prepacked when it
// was made for this weight shape. Applies Conv2dParams::clamp, then Conv2dParams::scale, to the
// outputs as it stores them.
bool conv2d_gemm_simd128(const KernelCall& call);
// dense likewise (rows of >= 4, or a prepacked weight; DenseParams::clamp), called by
// dense_i32__wasm_simd128.
bool dense_gemm_simd128(const KernelCall& call);

// KernelEntry::prepack of conv2d_i32__wasm_simd128 / dense_i32__wasm_simd128: the weights in the
// GEMM's A / B layout behind a 64-byte header; 0 (declined) when a weight is outside int16 or the
// layer takes another path (depthwise, groups of < 4 output channels).
size_t conv2d_i32__wasm_simd128_prepack(const TensorView& w, const void* params, void* out,
                                        size_t cap);
size_t dense_i32__wasm_simd128_prepack(const TensorView& w, const void* params, void* out,
                                       size_t cap);

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
