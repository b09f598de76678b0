// Declarations of the WebAssembly SIMD128 kernels listed in wasm_table.cc.
//
// Every kernel equals the scalar reference (backends/scalar) bit for bit, and returns
// KernelStatus::kDone, or kDeclined, having written nothing, for a layout its vector paths do
// not cover (an inner stride other than 1, a degenerate kernel, a reduction that reduces
// nothing): the op layer then runs the next entry of the node's chain, the scalar reference
// last. No kernel here calls into another backend.
#pragma once

#include "kernel_abi.h"

namespace cvm {
namespace kernel {
namespace wasm {

// ---- elementwise (elementwise_simd128.cc): int32, same-shaped strided views ----
KernelStatus add_i32__wasm_simd128(const KernelCall& call);  // CvmClampParams or null
KernelStatus sub_i32__wasm_simd128(const KernelCall& call);  // CvmClampParams or null
KernelStatus mul_i32__wasm_simd128(const KernelCall& call);
KernelStatus maximum_i32__wasm_simd128(const KernelCall& call);
KernelStatus minimum_i32__wasm_simd128(const KernelCall& call);
KernelStatus relu_i32__wasm_simd128(const KernelCall& call);
KernelStatus clip_i32__wasm_simd128(const KernelCall& call);             // CvmClampParams
KernelStatus cvm_right_shift_i32__wasm_simd128(const KernelCall& call);  // CvmClampParams
KernelStatus cvm_left_shift_i32__wasm_simd128(const KernelCall& call);   // CvmClampParams

// ---- reduce (reduce_simd128.cc): int32, view layout of params/reduce.h ----
KernelStatus reduce_sum_i32__wasm_simd128(const KernelCall& call);
KernelStatus reduce_max_i32__wasm_simd128(const KernelCall& call);  // ReduceParams (optional)

// ---- nn (nn_simd128.cc): int32, views and params of params/nn.h ----
// conv2d (both entries) and dense apply Conv2dParams::clamp / DenseParams::clamp (when set) to
// every output they store, on every path (KernelEntry::applies_clamp); both conv2d entries then
// apply Conv2dParams::scale (when set) too (KernelEntry::applies_channel_scale).
KernelStatus conv2d_i32__wasm_simd128(const KernelCall& call);      // Conv2dParams; x, w[, bias]
// 3x3 stride-1 conv2d by integer Winograd F(2x2, 3x3) (winograd_simd128.cc), an entry of its own
// ahead of conv2d_i32__wasm_simd128: declines every other layer, and operand ranges beyond the
// bounds that keep it exact. Its packer holds the transformed weights (0: not such a layer, or a
// weight beyond what the transform keeps in int16).
KernelStatus conv2d_i32__wasm_winograd(const KernelCall& call);
size_t conv2d_i32__wasm_winograd_prepack(const TensorView& w, const void* params, void* out,
                                         size_t cap);
KernelStatus dense_i32__wasm_simd128(const KernelCall& call);  // DenseParams (optional); x, w[, b]
KernelStatus max_pool2d_i32__wasm_simd128(const KernelCall& call);  // MaxPool2dParams

// ---- float32 nn (float_nn_simd128.cc): bit-identical to backends/scalar/float_nn.cc ----
// conv2d: Conv2dParams; x, w[, bias]. dense: DenseParams (optional); x, w[, bias].
KernelStatus conv2d_f32__wasm_simd128(const KernelCall& call);
KernelStatus dense_f32__wasm_simd128(const KernelCall& call);

// ---- the other float32 operators: relu, leaky_relu (LeakyReluParams), clamp (ClampParams),
// sigmoid, softmax (SoftmaxParams) (float_act_simd128.cc); max_pool2d (MaxPool2dParams),
// avg_pool2d (AvgPool2dParams) (float_pool_simd128.cc). The x86 kernel templates
// (backends/float_act.inc, float_pool.inc) on SIMD128 lanes; every layout vectorised. ----
KernelStatus relu_f32__wasm_simd128(const KernelCall& call);
KernelStatus leaky_relu_f32__wasm_simd128(const KernelCall& call);
KernelStatus clamp_f32__wasm_simd128(const KernelCall& call);
KernelStatus sigmoid_f32__wasm_simd128(const KernelCall& call);
KernelStatus softmax_f32__wasm_simd128(const KernelCall& call);
KernelStatus max_pool2d_f32__wasm_simd128(const KernelCall& call);
KernelStatus avg_pool2d_f32__wasm_simd128(const KernelCall& call);
// Same-dtype copy of any 4-byte element type, or of int8 views on both sides (copy_simd128.cc):
// rows gathering every 2nd, 3rd or 4th input element by shuffles (bytes: swizzles), the rest
// as the reference (bits only).
KernelStatus copy_bits__wasm_simd128(const KernelCall& call);

// Constant pad of any 4-byte element type (PadParams; pad_simd128.cc, walk in backends/pad_rows.h).
KernelStatus pad_b32__wasm_simd128(const KernelCall& call);

// The depthwise path of conv2d (depthwise_simd128.cc), called by conv2d_i32__wasm_simd128 once
// the call has passed its checks (non-empty output, unit inner strides): runs the call and
// returns true when every group has one input and one output channel and the op layer lends
// the scratch (Conv2dParams::clamp and scale applied to its outputs as they are stored);
// returns false, having written nothing, otherwise.
bool conv2d_depthwise_simd128(const KernelCall& call);

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
