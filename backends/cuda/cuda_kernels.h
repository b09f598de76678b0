// Declarations of the CUDA kernels listed in cuda_table.cc: the scalar table's ops and dtypes, on the GPU.
#pragma once

#include "kernel_abi.h"

namespace cvm {
namespace kernel {
namespace cuda {

// Each kernel enqueues its work on call.stream and returns kDone, or kFailed when the launch
// failed (message: cuda_last_error). The CUDA table ends every chain on a device, so a kernel
// declines nothing it is listed for; a faster path decides on the device (e.g. dp4a when the
// operands fit int8) and falls back there to its exact general path. Same semantics as the
// scalar reference (scalar_kernels.h), bit for bit; views may be strided, broadcast (stride 0)
// and, for in-place operators, the output may be input 0.

KernelStatus fill(const KernelCall& call);  // outputs[0] = params (FillParams), any dtype
KernelStatus copy(const KernelCall& call);  // outputs[0] = inputs[0], same dtype, moves bytes
KernelStatus cast(const KernelCall& call);  // outputs[0] = convert(inputs[0]), any dtype pair

template <ElemType T>
KernelStatus add(const KernelCall& call);
template <ElemType T>
KernelStatus sub(const KernelCall& call);
template <ElemType T>
KernelStatus mul(const KernelCall& call);

// ---- elementwise and broadcast (cvm_elementwise.cc, elementwise.cc) ----
// Dtype-generic (elementwise.cc), T = element type of the inputs. Integer div: x / 0 = 0,
// truncating, MIN / -1 = MIN; float div IEEE. maximum/minimum: a NaN operand wins (the first
// one's bits), ties return the first operand.
template <ElemType T>
KernelStatus div(const KernelCall& call);
template <ElemType T>
KernelStatus maximum(const KernelCall& call);
template <ElemType T>
KernelStatus minimum(const KernelCall& call);
// Signed integers wrap (-MIN = |MIN| = MIN); floats flip / clear the sign bit only.
template <ElemType T>
KernelStatus negative(const KernelCall& call);
template <ElemType T>
KernelStatus abs(const KernelCall& call);
// Write 0/1 into outputs[0] of type bool, or of type int32 (broadcast_greater).
template <ElemType T>
KernelStatus equal(const KernelCall& call);
template <ElemType T>
KernelStatus not_equal(const KernelCall& call);
template <ElemType T>
KernelStatus less(const KernelCall& call);
template <ElemType T>
KernelStatus less_equal(const KernelCall& call);
template <ElemType T>
KernelStatus greater(const KernelCall& call);
template <ElemType T>
KernelStatus greater_equal(const KernelCall& call);
// int32 only (cvm_elementwise.cc); clip and the shifts take CvmClampParams.
KernelStatus relu(const KernelCall& call);
KernelStatus cvm_precision(const KernelCall& call);
KernelStatus clip(const KernelCall& call);
KernelStatus cvm_right_shift(const KernelCall& call);
KernelStatus cvm_left_shift(const KernelCall& call);
// ---- reduce (reduce.cc) ----
// Reductions (view layout and ReduceParams: params/reduce.h): outputs[0] of the input's type
// (int64 for argmax); float sums and means in the 16-lane order of docs/determinism.md.
template <ElemType T>
KernelStatus reduce_sum(const KernelCall& call);
template <ElemType T>
KernelStatus reduce_mean(const KernelCall& call);
template <ElemType T>
KernelStatus reduce_max(const KernelCall& call);
template <ElemType T>
KernelStatus reduce_min(const KernelCall& call);
template <ElemType T>
KernelStatus argmax(const KernelCall& call);
// ---- linear algebra (matmul.cc) ----
// outputs[0] (B..., M, N) = inputs[0] (B..., M, K) x inputs[1] (B..., K, N); int8 gives int32.
template <ElemType T>
KernelStatus matmul(const KernelCall& call);
// ---- nn (nn.cc) ----
KernelStatus conv2d_i32(const KernelCall& call);      // Conv2dParams; inputs x, w[, bias]
KernelStatus dense_i32(const KernelCall& call);       // no params; inputs x, w[, bias]
KernelStatus max_pool2d_i32(const KernelCall& call);  // MaxPool2dParams
KernelStatus upsampling_i32(const KernelCall& call);  // UpsamplingParams
// ---- float32 nn (float_nn.cc): imported float models, order of docs/determinism.md ----
KernelStatus conv2d_f32(const KernelCall& call);      // Conv2dParams; inputs x, w[, bias]
KernelStatus dense_f32(const KernelCall& call);       // inputs x, w[, bias]; params unused
KernelStatus max_pool2d_f32(const KernelCall& call);  // MaxPool2dParams; padding cells take no part
KernelStatus avg_pool2d_f32(const KernelCall& call);  // AvgPool2dParams
KernelStatus relu_f32(const KernelCall& call);
KernelStatus leaky_relu_f32(const KernelCall& call);  // LeakyReluParams
KernelStatus clamp_f32(const KernelCall& call);       // ClampParams
KernelStatus sigmoid_f32(const KernelCall& call);
KernelStatus softmax_f32(const KernelCall& call);  // SoftmaxParams
KernelStatus pad_b32(const KernelCall& call);      // PadParams; any 32-bit element type
// ---- vision (vision.cc) ----
KernelStatus get_valid_counts_i32(const KernelCall& call);     // GetValidCountsParams; 2 outputs
KernelStatus non_max_suppression_i32(const KernelCall& call);  // NmsParams
// ---- transform (transform.cc) ----
// int32 gather: outputs[0] (outer, n, inner) = inputs[0] (outer, dim, inner) at
// clamp(inputs[1][j], 0, dim - 1) for j < n; inputs[1] is a 1-d int32 view of the indices.
KernelStatus take(const KernelCall& call);
// int32 select: outputs[0] = inputs[0] != 0 ? inputs[1] : inputs[2], all views the same shape.
KernelStatus where(const KernelCall& call);

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
