// Declarations of the scalar reference kernels listed in scalar_table.cc.
#pragma once

#include "kernel_abi.h"

namespace cvm {
namespace kernel {
namespace scalar {

void fill(const KernelCall& call);  // outputs[0] = params (FillParams), any dtype
void copy(const KernelCall& call);  // outputs[0] = inputs[0], same dtype, moves bytes
void cast(const KernelCall& call);  // outputs[0] = convert(inputs[0]), any dtype pair

template <ElemType T>
void add(const KernelCall& call);
template <ElemType T>
void sub(const KernelCall& call);
template <ElemType T>
void mul(const KernelCall& call);

// ---- elementwise and broadcast (cvm_elementwise.cc, elementwise.cc) ----
// Dtype-generic (elementwise.cc), T = element type of the inputs. Integer div: x / 0 = 0,
// truncating, MIN / -1 = MIN; float div IEEE. maximum/minimum: a NaN operand wins (the first
// one's bits), ties return the first operand.
template <ElemType T>
void div(const KernelCall& call);
template <ElemType T>
void maximum(const KernelCall& call);
template <ElemType T>
void minimum(const KernelCall& call);
// Signed integers wrap (-MIN = |MIN| = MIN); floats flip / clear the sign bit only.
template <ElemType T>
void negative(const KernelCall& call);
template <ElemType T>
void abs(const KernelCall& call);
// Write 0/1 into outputs[0] of type bool, or of type int32 (broadcast_greater).
template <ElemType T>
void equal(const KernelCall& call);
template <ElemType T>
void not_equal(const KernelCall& call);
template <ElemType T>
void less(const KernelCall& call);
template <ElemType T>
void less_equal(const KernelCall& call);
template <ElemType T>
void greater(const KernelCall& call);
template <ElemType T>
void greater_equal(const KernelCall& call);
// int32 only (cvm_elementwise.cc); clip and the shifts take CvmClampParams.
void relu(const KernelCall& call);
void cvm_precision(const KernelCall& call);
void clip(const KernelCall& call);
void cvm_right_shift(const KernelCall& call);
void cvm_left_shift(const KernelCall& call);
// ---- reduce (reduce.cc) ----
// Reductions (view layout and ReduceParams: params/reduce.h): outputs[0] of the input's type
// (int64 for argmax); float sums and means in the 16-lane order of docs/determinism.md.
template <ElemType T>
void reduce_sum(const KernelCall& call);
template <ElemType T>
void reduce_mean(const KernelCall& call);
template <ElemType T>
void reduce_max(const KernelCall& call);
template <ElemType T>
void reduce_min(const KernelCall& call);
template <ElemType T>
void argmax(const KernelCall& call);
// ---- linear algebra (matmul.cc) ----
// outputs[0] (B..., M, N) = inputs[0] (B..., M, K) x inputs[1] (B..., K, N); int8 gives int32.
template <ElemType T>
void matmul(const KernelCall& call);
// ---- nn (nn.cc) ----
void conv2d_i32(const KernelCall& call);      // Conv2dParams; inputs x, w[, bias]
void dense_i32(const KernelCall& call);       // no params; inputs x, w[, bias]
void max_pool2d_i32(const KernelCall& call);  // MaxPool2dParams
void upsampling_i32(const KernelCall& call);  // UpsamplingParams
// ---- float32 nn (float_nn.cc): imported float models, order of docs/determinism.md ----
void conv2d_f32(const KernelCall& call);      // Conv2dParams; inputs x, w[, bias]
void dense_f32(const KernelCall& call);       // inputs x, w[, bias]; params unused
void max_pool2d_f32(const KernelCall& call);  // MaxPool2dParams; padding cells take no part
void avg_pool2d_f32(const KernelCall& call);  // AvgPool2dParams
void relu_f32(const KernelCall& call);
void leaky_relu_f32(const KernelCall& call);  // LeakyReluParams
void clamp_f32(const KernelCall& call);       // ClampParams
void sigmoid_f32(const KernelCall& call);
void softmax_f32(const KernelCall& call);  // SoftmaxParams
void pad_b32(const KernelCall& call);      // PadParams; any 32-bit element type
// ---- vision (vision.cc) ----
void get_valid_counts_i32(const KernelCall& call);     // GetValidCountsParams; 2 outputs
void non_max_suppression_i32(const KernelCall& call);  // NmsParams
// ---- transform (transform.cc) ----
// int32 gather: outputs[0] (outer, n, inner) = inputs[0] (outer, dim, inner) at
// clamp(inputs[1][j], 0, dim - 1) for j < n; inputs[1] is a 1-d int32 view of the indices.
void take(const KernelCall& call);
// int32 select: outputs[0] = inputs[0] != 0 ? inputs[1] : inputs[2], all views the same shape.
void where(const KernelCall& call);

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
