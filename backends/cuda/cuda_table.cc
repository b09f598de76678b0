// The CUDA backend's kernel table: one line per kernel, every key of the scalar table on the GPU.
#include "kernel_abi.h"
#include "cuda_kernels.h"
#include "cuda_nn_kernels.h"
#include "device_abi.h"

namespace cvm {
namespace kernel {
namespace {

using E = ElemType;
namespace s = cuda;

// One line of a dtype-templated kernel s::op<E::T>, named "op_t__cuda" (t: the short dtype).
#define CVM_TYPED(op, T, t) {#op "_" #t "__cuda", #op, E::T, s::op<E::T>, kCpuNone}

#define CVM_ARITH(T, t) CVM_TYPED(add, T, t), CVM_TYPED(sub, T, t), CVM_TYPED(mul, T, t),

const KernelEntry kEntries[] = {
    {"fill_any__cuda", "fill", E::kAny, s::fill, kCpuNone},
    {"copy_any__cuda", "copy", E::kAny, s::copy, kCpuNone},
    {"cast_any__cuda", "cast", E::kAny, s::cast, kCpuNone},
    CVM_ARITH(kInt8, i8) CVM_ARITH(kInt16, i16) CVM_ARITH(kInt32, i32) CVM_ARITH(kInt64, i64)
    CVM_ARITH(kUInt8, u8) CVM_ARITH(kUInt16, u16) CVM_ARITH(kUInt32, u32) CVM_ARITH(kUInt64, u64)
    CVM_ARITH(kFloat16, f16) CVM_ARITH(kBFloat16, bf16)
    CVM_ARITH(kFloat32, f32) CVM_ARITH(kFloat64, f64)
    // ---- elementwise and broadcast (cvm_elementwise.cc, elementwise.cc) ----
#define CVM_COMPARE(T, t)                                                    \
  CVM_TYPED(equal, T, t), CVM_TYPED(not_equal, T, t), CVM_TYPED(less, T, t), \
  CVM_TYPED(less_equal, T, t), CVM_TYPED(greater, T, t), CVM_TYPED(greater_equal, T, t),
#define CVM_NUMERIC(T, t) CVM_COMPARE(T, t) \
  CVM_TYPED(div, T, t), CVM_TYPED(maximum, T, t), CVM_TYPED(minimum, T, t),
#define CVM_SIGNED(T, t) CVM_NUMERIC(T, t) \
  CVM_TYPED(negative, T, t), CVM_TYPED(abs, T, t),
    CVM_SIGNED(kInt8, i8) CVM_SIGNED(kInt16, i16) CVM_SIGNED(kInt32, i32) CVM_SIGNED(kInt64, i64)
    CVM_NUMERIC(kUInt8, u8) CVM_NUMERIC(kUInt16, u16)
    CVM_NUMERIC(kUInt32, u32) CVM_NUMERIC(kUInt64, u64)
    CVM_SIGNED(kFloat16, f16) CVM_SIGNED(kBFloat16, bf16)
    CVM_SIGNED(kFloat32, f32) CVM_SIGNED(kFloat64, f64)
    CVM_COMPARE(kBool, bool)
#undef CVM_SIGNED
#undef CVM_NUMERIC
#undef CVM_COMPARE
    {"relu_i32__cuda", "relu", E::kInt32, s::relu, kCpuNone},
    {"cvm_precision_i32__cuda", "cvm_precision", E::kInt32, s::cvm_precision, kCpuNone},
    {"clip_i32__cuda", "clip", E::kInt32, s::clip, kCpuNone},
    {"cvm_right_shift_i32__cuda", "cvm_right_shift", E::kInt32, s::cvm_right_shift, kCpuNone},
    {"cvm_left_shift_i32__cuda", "cvm_left_shift", E::kInt32, s::cvm_left_shift, kCpuNone},
    // ---- reduce (reduce.cc) ----
#define CVM_REDUCE(T, t)                                     \
  CVM_TYPED(reduce_sum, T, t), CVM_TYPED(reduce_mean, T, t), \
  CVM_TYPED(reduce_max, T, t), CVM_TYPED(reduce_min, T, t), CVM_TYPED(argmax, T, t),
    CVM_REDUCE(kInt8, i8) CVM_REDUCE(kInt16, i16) CVM_REDUCE(kInt32, i32) CVM_REDUCE(kInt64, i64)
    CVM_REDUCE(kUInt8, u8) CVM_REDUCE(kUInt16, u16)
    CVM_REDUCE(kUInt32, u32) CVM_REDUCE(kUInt64, u64)
    CVM_REDUCE(kFloat16, f16) CVM_REDUCE(kBFloat16, bf16)
    CVM_REDUCE(kFloat32, f32) CVM_REDUCE(kFloat64, f64)
#undef CVM_REDUCE
    // ---- linear algebra (matmul.cc) ----
    CVM_TYPED(matmul, kInt8, i8),
    CVM_TYPED(matmul, kInt32, i32),
    CVM_TYPED(matmul, kFloat32, f32),
    CVM_TYPED(matmul, kFloat64, f64),
    // ---- nn (nn.cc) ----
    // int8 operands (decided on the device, exact fallback there); decline without scratch.
    {"conv2d_i8i32__cuda_dp4a", "conv2d", E::kInt32, s::conv2d_i8i32_dp4a, kCpuNone},
    {"dense_i8i32__cuda_dp4a", "dense", E::kInt32, s::dense_i8i32_dp4a, kCpuNone},
    {"conv2d_i32__cuda", "conv2d", E::kInt32, s::conv2d_i32, kCpuNone},
    {"dense_i32__cuda", "dense", E::kInt32, s::dense_i32, kCpuNone},
    {"max_pool2d_i32__cuda", "max_pool2d", E::kInt32, s::max_pool2d_i32, kCpuNone},
    {"upsampling_i32__cuda", "upsampling", E::kInt32, s::upsampling_i32, kCpuNone},
    // ---- float32 nn (float_nn.cc) ----
    {"conv2d_f32__cuda", "conv2d", E::kFloat32, s::conv2d_f32, kCpuNone},
    {"dense_f32__cuda", "dense", E::kFloat32, s::dense_f32, kCpuNone},
    {"max_pool2d_f32__cuda", "max_pool2d", E::kFloat32, s::max_pool2d_f32, kCpuNone},
    {"relu_f32__cuda", "relu", E::kFloat32, s::relu_f32, kCpuNone},
    {"avg_pool2d_f32__cuda", "avg_pool2d", E::kFloat32, s::avg_pool2d_f32, kCpuNone},
    {"leaky_relu_f32__cuda", "leaky_relu", E::kFloat32, s::leaky_relu_f32, kCpuNone},
    {"clamp_f32__cuda", "clamp", E::kFloat32, s::clamp_f32, kCpuNone},
    {"sigmoid_f32__cuda", "sigmoid", E::kFloat32, s::sigmoid_f32, kCpuNone},
    {"softmax_f32__cuda", "softmax", E::kFloat32, s::softmax_f32, kCpuNone},
    {"pad_f32__cuda", "pad", E::kFloat32, s::pad_b32, kCpuNone},  // one kernel for both:
    {"pad_i32__cuda", "pad", E::kInt32, s::pad_b32, kCpuNone},    // it moves 32-bit words
    // ---- vision (vision.cc) ----
    {"get_valid_counts_i32__cuda", "get_valid_counts", E::kInt32, s::get_valid_counts_i32,
     kCpuNone},
    {"non_max_suppression_i32__cuda", "non_max_suppression", E::kInt32,
     s::non_max_suppression_i32, kCpuNone},
    // ---- transform (transform.cc) ----
    {"take_i32__cuda", "take", E::kInt32, s::take, kCpuNone},
    {"where_i32__cuda", "where", E::kInt32, s::where, kCpuNone},
};
#undef CVM_ARITH
#undef CVM_TYPED

}  // namespace

extern const BackendTable kCudaBackend = {
    "cuda", kEntries, sizeof(kEntries) / sizeof(kEntries[0]), nullptr, 2 /* kDLCUDA */};

}  // namespace kernel
}  // namespace cvm
