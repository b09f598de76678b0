// Declarations of the WebAssembly SIMD128 kernels listed in wasm_table.cc.
//
// Every kernel equals the scalar reference (backends/scalar) bit for bit. Layouts a kernel's
// vector path does not cover (an inner stride other than 1, unusual extents) run the scalar
// reference kernel itself, so the two can never disagree there.
#pragma once

#include "kernel_abi.h"

namespace cvm {
namespace kernel {
namespace wasm {

// ---- elementwise (elementwise_simd128.cc): int32, same-shaped strided views ----
void add_i32__wasm_simd128(const KernelCall& call);
void sub_i32__wasm_simd128(const KernelCall& call);
void mul_i32__wasm_simd128(const KernelCall& call);
void maximum_i32__wasm_simd128(const KernelCall& call);
void minimum_i32__wasm_simd128(const KernelCall& call);
void relu_i32__wasm_simd128(const KernelCall& call);
void clip_i32__wasm_simd128(const KernelCall& call);             // CvmClampParams
void cvm_right_shift_i32__wasm_simd128(const KernelCall& call);  // CvmClampParams
void cvm_left_shift_i32__wasm_simd128(const KernelCall& call);   // CvmClampParams

// ---- reduce (reduce_simd128.cc): int32, view layout of params/reduce.h ----
void reduce_sum_i32__wasm_simd128(const KernelCall& call);
void reduce_max_i32__wasm_simd128(const KernelCall& call);  // ReduceParams (optional)

// ---- nn (nn_simd128.cc): int32, views and params of params/nn.h ----
void conv2d_i32__wasm_simd128(const KernelCall& call);      // Conv2dParams; x, w[, bias]
void dense_i32__wasm_simd128(const KernelCall& call);       // x, w[, bias]
void max_pool2d_i32__wasm_simd128(const KernelCall& call);  // MaxPool2dParams

// ---- float32 nn (float_nn_simd128.cc): bit-identical to backends/scalar/float_nn.cc ----
void conv2d_f32__wasm_simd128(const KernelCall& call);  // Conv2dParams; x, w[, bias]
void dense_f32__wasm_simd128(const KernelCall& call);   // DenseParams (optional); x, w[, bias]

// ---- the other float32 operators: relu, leaky_relu (LeakyReluParams), clamp (ClampParams),
// sigmoid, softmax (SoftmaxParams) (float_act_simd128.cc); max_pool2d (MaxPool2dParams),
// avg_pool2d (AvgPool2dParams) (float_pool_simd128.cc). The x86 kernel templates
// (backends/simd/float_act.inc, float_pool.inc) on SIMD128 lanes; every layout vectorised. ----
void relu_f32__wasm_simd128(const KernelCall& call);
void leaky_relu_f32__wasm_simd128(const KernelCall& call);
void clamp_f32__wasm_simd128(const KernelCall& call);
void sigmoid_f32__wasm_simd128(const KernelCall& call);
void softmax_f32__wasm_simd128(const KernelCall& call);
void max_pool2d_f32__wasm_simd128(const KernelCall& call);
void avg_pool2d_f32__wasm_simd128(const KernelCall& call);
// Constant pad of any 4-byte element type (PadParams; pad_simd128.cc, walk in backends/pad_rows.h).
void pad_b32__wasm_simd128(const KernelCall& call);

// The depthwise path of conv2d (depthwise_simd128.cc), called by conv2d_i32__wasm_simd128 once
// the call has passed its checks (non-empty output, unit inner strides): runs the call and
// returns true when every group has one input and one output channel and the op layer lends
// the scratch; returns false, having written nothing, otherwise.
bool conv2d_depthwise_simd128(const KernelCall& call);

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
