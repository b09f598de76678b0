// The keys of a complete backend (the scalar reference, CUDA) as X-macro lists: which dtypes
// each kernel template of reference_kernels.inc serves. A complete backend's table and explicit
// instantiations are written from these lists, so they cannot drift from the reference's.
//
// TYPED(op, T, t): kernel template `op` for ElemType::T (t: the short dtype name in entry
// names, "i32"). ONE(what, op, T, fn): a kernel function `fn` serving op "op" for ElemType::T,
// named what + "__" + backend.
#pragma once

// Every numeric element type (T, t), and the signed ones (negation and abs).
#define CVM_NUMERIC_TYPES(X, op)                                                        \
  X(op, kInt8, i8) X(op, kInt16, i16) X(op, kInt32, i32) X(op, kInt64, i64)             \
  X(op, kUInt8, u8) X(op, kUInt16, u16) X(op, kUInt32, u32) X(op, kUInt64, u64)         \
  X(op, kFloat16, f16) X(op, kBFloat16, bf16) X(op, kFloat32, f32) X(op, kFloat64, f64)
#define CVM_SIGNED_TYPES(X, op)                                             \
  X(op, kInt8, i8) X(op, kInt16, i16) X(op, kInt32, i32) X(op, kInt64, i64) \
  X(op, kFloat16, f16) X(op, kBFloat16, bf16) X(op, kFloat32, f32) X(op, kFloat64, f64)

// Elementwise: arithmetic, division and extrema, negation (scalar/elementwise.cc) and the
// comparisons, bool compares too (scalar/compare.cc); elementwise.cu has both.
#define CVM_REFERENCE_ARITHMETIC(TYPED)                                   \
  CVM_NUMERIC_TYPES(TYPED, add) CVM_NUMERIC_TYPES(TYPED, sub)             \
  CVM_NUMERIC_TYPES(TYPED, mul) CVM_NUMERIC_TYPES(TYPED, div)             \
  CVM_NUMERIC_TYPES(TYPED, maximum) CVM_NUMERIC_TYPES(TYPED, minimum)     \
  CVM_SIGNED_TYPES(TYPED, negative) CVM_SIGNED_TYPES(TYPED, abs)
#define CVM_REFERENCE_COMPARE(TYPED)                                              \
  CVM_NUMERIC_TYPES(TYPED, equal) CVM_NUMERIC_TYPES(TYPED, not_equal)             \
  CVM_NUMERIC_TYPES(TYPED, less) CVM_NUMERIC_TYPES(TYPED, less_equal)             \
  CVM_NUMERIC_TYPES(TYPED, greater) CVM_NUMERIC_TYPES(TYPED, greater_equal)       \
  TYPED(equal, kBool, bool) TYPED(not_equal, kBool, bool) TYPED(less, kBool, bool) \
  TYPED(less_equal, kBool, bool) TYPED(greater, kBool, bool)                      \
  TYPED(greater_equal, kBool, bool)
#define CVM_REFERENCE_ELEMENTWISE(TYPED) \
  CVM_REFERENCE_ARITHMETIC(TYPED) CVM_REFERENCE_COMPARE(TYPED)

// reduce.cc / reduce.cu.
#define CVM_REFERENCE_REDUCE(TYPED)                                        \
  CVM_NUMERIC_TYPES(TYPED, reduce_sum) CVM_NUMERIC_TYPES(TYPED, reduce_mean) \
  CVM_NUMERIC_TYPES(TYPED, reduce_max) CVM_NUMERIC_TYPES(TYPED, reduce_min)  \
  CVM_NUMERIC_TYPES(TYPED, argmax)

// matmul.cc / matmul.cu (int8 gives int32).
#define CVM_REFERENCE_MATMUL(TYPED)                                                    \
  TYPED(matmul, kInt8, i8) TYPED(matmul, kInt32, i32) TYPED(matmul, kFloat32, f32) \
  TYPED(matmul, kFloat64, f64)

// Every key, for a table: TYPED and ONE as above.
#define CVM_REFERENCE_TABLE(TYPED, ONE)                                                   \
  ONE("fill_any", "fill", kAny, fill)                                                     \
  ONE("copy_any", "copy", kAny, copy)                                                     \
  ONE("cast_any", "cast", kAny, cast)                                                     \
  CVM_REFERENCE_ELEMENTWISE(TYPED)                                                        \
  ONE("relu_i32", "relu", kInt32, relu)                                                   \
  ONE("cvm_precision_i32", "cvm_precision", kInt32, cvm_precision)                        \
  ONE("clip_i32", "clip", kInt32, clip)                                                   \
  ONE("cvm_right_shift_i32", "cvm_right_shift", kInt32, cvm_right_shift)                  \
  ONE("cvm_left_shift_i32", "cvm_left_shift", kInt32, cvm_left_shift)                    \
  CVM_REFERENCE_REDUCE(TYPED)                                                             \
  CVM_REFERENCE_MATMUL(TYPED)                                                             \
  ONE("conv2d_i32", "conv2d", kInt32, conv2d_i32)                                         \
  ONE("dense_i32", "dense", kInt32, dense_i32)                                            \
  ONE("max_pool2d_i32", "max_pool2d", kInt32, max_pool2d_i32)                             \
  ONE("upsampling_i32", "upsampling", kInt32, upsampling_i32)                             \
  ONE("conv2d_f32", "conv2d", kFloat32, conv2d_f32)                                       \
  ONE("dense_f32", "dense", kFloat32, dense_f32)                                          \
  ONE("max_pool2d_f32", "max_pool2d", kFloat32, max_pool2d_f32)                           \
  ONE("relu_f32", "relu", kFloat32, relu_f32)                                             \
  ONE("avg_pool2d_f32", "avg_pool2d", kFloat32, avg_pool2d_f32)                           \
  ONE("leaky_relu_f32", "leaky_relu", kFloat32, leaky_relu_f32)                           \
  ONE("clamp_f32", "clamp", kFloat32, clamp_f32)                                          \
  ONE("sigmoid_f32", "sigmoid", kFloat32, sigmoid_f32)                                    \
  ONE("softmax_f32", "softmax", kFloat32, softmax_f32)                                    \
  ONE("pad_f32", "pad", kFloat32, pad_b32) /* one kernel for both: it moves 32-bit words */ \
  ONE("pad_i32", "pad", kInt32, pad_b32)                                                  \
  ONE("get_valid_counts_i32", "get_valid_counts", kInt32, get_valid_counts_i32)           \
  ONE("non_max_suppression_i32", "non_max_suppression", kInt32, non_max_suppression_i32)  \
  ONE("take_i32", "take", kInt32, take)                                                   \
  ONE("where_i32", "where", kInt32, where)

// One explicit instantiation of a kernel template (for TYPED in a backend's kernel sources).
#define CVM_INSTANTIATE_KERNEL(op, T, t) template KernelStatus op<ElemType::T>(const KernelCall&);
