// The scalar reference backend's kernel table: one line per kernel.
#include "kernel_abi.h"
#include "scalar_kernels.h"

namespace cvm {
namespace kernel {
namespace {

using E = ElemType;
namespace s = scalar;

#define CVM_ARITH(T) \
  {"add", E::T, "ref", s::add<E::T>, kCpuNone}, \
  {"sub", E::T, "ref", s::sub<E::T>, kCpuNone}, \
  {"mul", E::T, "ref", s::mul<E::T>, kCpuNone},

const KernelEntry kEntries[] = {
    {"fill", E::kAny, "ref", s::fill, kCpuNone},
    {"copy", E::kAny, "ref", s::copy, kCpuNone},
    {"cast", E::kAny, "ref", s::cast, kCpuNone},
    CVM_ARITH(kInt8) CVM_ARITH(kInt16) CVM_ARITH(kInt32) CVM_ARITH(kInt64)
    CVM_ARITH(kUInt8) CVM_ARITH(kUInt16) CVM_ARITH(kUInt32) CVM_ARITH(kUInt64)
    CVM_ARITH(kFloat16) CVM_ARITH(kBFloat16) CVM_ARITH(kFloat32) CVM_ARITH(kFloat64)
    // ---- elementwise and broadcast (cvm_elementwise.cc, elementwise.cc) ----
#define CVM_COMPARE(T) \
  {"equal", E::T, "ref", s::equal<E::T>, kCpuNone}, \
  {"not_equal", E::T, "ref", s::not_equal<E::T>, kCpuNone}, \
  {"less", E::T, "ref", s::less<E::T>, kCpuNone}, \
  {"less_equal", E::T, "ref", s::less_equal<E::T>, kCpuNone}, \
  {"greater", E::T, "ref", s::greater<E::T>, kCpuNone}, \
  {"greater_equal", E::T, "ref", s::greater_equal<E::T>, kCpuNone},
#define CVM_NUMERIC(T) CVM_COMPARE(T) \
  {"div", E::T, "ref", s::div<E::T>, kCpuNone}, \
  {"maximum", E::T, "ref", s::maximum<E::T>, kCpuNone}, \
  {"minimum", E::T, "ref", s::minimum<E::T>, kCpuNone},
#define CVM_SIGNED(T) CVM_NUMERIC(T) \
  {"negative", E::T, "ref", s::negative<E::T>, kCpuNone}, \
  {"abs", E::T, "ref", s::abs<E::T>, kCpuNone},
    CVM_SIGNED(kInt8) CVM_SIGNED(kInt16) CVM_SIGNED(kInt32) CVM_SIGNED(kInt64)
    CVM_NUMERIC(kUInt8) CVM_NUMERIC(kUInt16) CVM_NUMERIC(kUInt32) CVM_NUMERIC(kUInt64)
    CVM_SIGNED(kFloat16) CVM_SIGNED(kBFloat16) CVM_SIGNED(kFloat32) CVM_SIGNED(kFloat64)
    CVM_COMPARE(kBool)
#undef CVM_SIGNED
#undef CVM_NUMERIC
#undef CVM_COMPARE
    {"relu", E::kInt32, "ref", s::relu, kCpuNone},
    {"cvm_precision", E::kInt32, "ref", s::cvm_precision, kCpuNone},
    {"clip", E::kInt32, "ref", s::clip, kCpuNone},
    {"cvm_right_shift", E::kInt32, "ref", s::cvm_right_shift, kCpuNone},
    {"cvm_left_shift", E::kInt32, "ref", s::cvm_left_shift, kCpuNone},
    // ---- reduce (reduce.cc) ----
#define CVM_REDUCE(T)                                          \
  {"reduce_sum", E::T, "ref", s::reduce_sum<E::T>, kCpuNone},   \
  {"reduce_mean", E::T, "ref", s::reduce_mean<E::T>, kCpuNone}, \
  {"reduce_max", E::T, "ref", s::reduce_max<E::T>, kCpuNone},   \
  {"reduce_min", E::T, "ref", s::reduce_min<E::T>, kCpuNone},   \
  {"argmax", E::T, "ref", s::argmax<E::T>, kCpuNone},
    CVM_REDUCE(kInt8) CVM_REDUCE(kInt16) CVM_REDUCE(kInt32) CVM_REDUCE(kInt64)
    CVM_REDUCE(kUInt8) CVM_REDUCE(kUInt16) CVM_REDUCE(kUInt32) CVM_REDUCE(kUInt64)
    CVM_REDUCE(kFloat16) CVM_REDUCE(kBFloat16) CVM_REDUCE(kFloat32) CVM_REDUCE(kFloat64)
#undef CVM_REDUCE
    // ---- linear algebra (matmul.cc) ----
    {"matmul", E::kInt8, "ref", s::matmul<E::kInt8>, kCpuNone},
    {"matmul", E::kInt32, "ref", s::matmul<E::kInt32>, kCpuNone},
    {"matmul", E::kFloat32, "ref", s::matmul<E::kFloat32>, kCpuNone},
    {"matmul", E::kFloat64, "ref", s::matmul<E::kFloat64>, kCpuNone},
    // ---- nn (nn.cc) ----
    {"conv2d", E::kInt32, "ref", s::conv2d_i32, kCpuNone},
    {"dense", E::kInt32, "ref", s::dense_i32, kCpuNone},
    {"max_pool2d", E::kInt32, "ref", s::max_pool2d_i32, kCpuNone},
    {"upsampling", E::kInt32, "ref", s::upsampling_i32, kCpuNone},
    // ---- float32 nn (float_nn.cc) ----
    {"conv2d", E::kFloat32, "ref", s::conv2d_f32, kCpuNone},
    {"dense", E::kFloat32, "ref", s::dense_f32, kCpuNone},
    {"max_pool2d", E::kFloat32, "ref", s::max_pool2d_f32, kCpuNone},
    {"relu", E::kFloat32, "ref", s::relu_f32, kCpuNone},
    {"avg_pool2d", E::kFloat32, "ref", s::avg_pool2d_f32, kCpuNone},
    {"leaky_relu", E::kFloat32, "ref", s::leaky_relu_f32, kCpuNone},
    {"clamp", E::kFloat32, "ref", s::clamp_f32, kCpuNone},
    {"sigmoid", E::kFloat32, "ref", s::sigmoid_f32, kCpuNone},
    {"softmax", E::kFloat32, "ref", s::softmax_f32, kCpuNone},
    {"pad", E::kFloat32, "ref", s::pad_b32, kCpuNone},
    {"pad", E::kInt32, "ref", s::pad_b32, kCpuNone},
    // ---- vision (vision.cc) ----
    {"get_valid_counts", E::kInt32, "ref", s::get_valid_counts_i32, kCpuNone},
    {"non_max_suppression", E::kInt32, "ref", s::non_max_suppression_i32, kCpuNone},
    // ---- transform (transform.cc) ----
    {"take", E::kInt32, "ref", s::take, kCpuNone},
    {"where", E::kInt32, "ref", s::where, kCpuNone},
};
#undef CVM_ARITH

}  // namespace

extern const BackendTable kScalarBackend = {
    "scalar", kEntries, sizeof(kEntries) / sizeof(kEntries[0]), nullptr, 1 /* kDLCPU */};

}  // namespace kernel
}  // namespace cvm
