// Array operations for SDK users: fill, copy/cast between dtypes, and broadcasting arithmetic.
#pragma once

#include <cstdint>

#include "cvm/export.h"
#include "cvm/ndarray.h"

namespace cvm {

// One numeric value of any supported dtype, kept exactly: integers as int64/uint64, floats as
// double. Converted to the target dtype with the same rules as `cast`.
class CVM_EXPORT Scalar {
 public:
  enum class Kind { kInt, kUInt, kFloat };
  Scalar(int v) : kind_(Kind::kInt), i_(v) {}                       // NOLINT: implicit on purpose
  Scalar(long v) : kind_(Kind::kInt), i_(v) {}                      // NOLINT
  Scalar(long long v) : kind_(Kind::kInt), i_(v) {}                 // NOLINT
  Scalar(unsigned v) : kind_(Kind::kUInt), u_(v) {}                 // NOLINT
  Scalar(unsigned long v) : kind_(Kind::kUInt), u_(v) {}            // NOLINT
  Scalar(unsigned long long v) : kind_(Kind::kUInt), u_(v) {}       // NOLINT
  Scalar(double v) : kind_(Kind::kFloat), f_(v) {}                  // NOLINT
  Scalar(float v) : kind_(Kind::kFloat), f_(v) {}                   // NOLINT
  Scalar(bool v) : kind_(Kind::kInt), i_(v ? 1 : 0) {}              // NOLINT

  Kind kind() const { return kind_; }
  int64_t as_int() const { return i_; }
  uint64_t as_uint() const { return u_; }
  double as_float() const { return f_; }
  // The value as one element of `dtype`, little-endian, in out[0 .. dtype.bytes()).
  void encode(DataType dtype, uint8_t out[16]) const;

 private:
  Kind kind_;
  union {
    int64_t i_;
    uint64_t u_;
    double f_;
  };
};

// Sets every element of `dst` (any strides; broadcast views are rejected).
CVM_EXPORT void fill(NDArray& dst, Scalar value);
// Element-wise copy of `src` into `dst`, broadcasting src to dst's shape and converting dtypes.
// Conversions: integer to integer wraps (two's complement truncation); float to integer
// truncates toward zero, NaN gives 0 and out-of-range values saturate; anything to bool is
// (x != 0); float16/bfloat16 round to nearest even.
CVM_EXPORT void copy_into(NDArray& dst, const NDArray& src);
// A new contiguous array of dtype `to` (a copy even when the dtype is unchanged).
CVM_EXPORT NDArray cast(const NDArray& x, DataType to);

// NumPy-broadcasting arithmetic on two CPU arrays of the same numeric dtype, returning a new
// contiguous array of that dtype. Integers wrap; floats round once per operation. LogicError
// for mismatched dtypes or shapes, or bool. These run the operators of the same names
// (run_op), so they validate and compute exactly as a model or the C API would.
CVM_EXPORT NDArray add(const NDArray& a, const NDArray& b);
CVM_EXPORT NDArray sub(const NDArray& a, const NDArray& b);
CVM_EXPORT NDArray mul(const NDArray& a, const NDArray& b);
// Integers: truncating toward zero, x / 0 = 0, MIN / -1 = MIN (wraps). Floats: IEEE.
CVM_EXPORT NDArray div(const NDArray& a, const NDArray& b);
// Elementwise maximum / minimum. Deterministic for floats: when either operand is NaN the
// result is NaN (the bits of the first NaN operand); when the operands compare equal (also
// -0 vs +0) the result is the first operand, bit for bit.
CVM_EXPORT NDArray maximum(const NDArray& a, const NDArray& b);
CVM_EXPORT NDArray minimum(const NDArray& a, const NDArray& b);

// -x and |x| of a signed integer or float array (unsigned and bool are LogicErrors). Integers
// wrap: -MIN = |MIN| = MIN. Floats change the sign bit only (NaN payloads are kept).
CVM_EXPORT NDArray negative(const NDArray& x);
CVM_EXPORT NDArray abs(const NDArray& x);

// NumPy-broadcasting comparisons of two arrays of the same dtype (any, bool included), giving a
// bool array. Floats compare as IEEE: NaN is unequal to everything, -0 == +0.
CVM_EXPORT NDArray equal(const NDArray& a, const NDArray& b);
CVM_EXPORT NDArray not_equal(const NDArray& a, const NDArray& b);
CVM_EXPORT NDArray less(const NDArray& a, const NDArray& b);
CVM_EXPORT NDArray less_equal(const NDArray& a, const NDArray& b);
CVM_EXPORT NDArray greater(const NDArray& a, const NDArray& b);
CVM_EXPORT NDArray greater_equal(const NDArray& a, const NDArray& b);

// The NumPy broadcast of two shapes; LogicError naming both when incompatible.
CVM_EXPORT Shape broadcast_shapes(const Shape& a, const Shape& b);

// ---- reductions and linear algebra ----

// The axes a reduction covers: every axis (the default, also written `{}`) or a list such as
// `{0, -1}` (negative axes count from the end; each dimension at most once). An explicitly empty
// vector reduces nothing, as NumPy's axis=().
class ReduceAxes {
 public:
  ReduceAxes() = default;
  ReduceAxes(std::initializer_list<int64_t> axes) : all_(false), axes_(axes) {}  // NOLINT
  ReduceAxes(const std::vector<int64_t>& axes) : all_(false), axes_(axes) {}     // NOLINT
  bool all() const { return all_; }
  const std::vector<int64_t>& axes() const { return axes_; }

 private:
  bool all_ = true;
  std::vector<int64_t> axes_;
};

// Reductions of a numeric (not bool) CPU array, returning a new contiguous array of the same
// dtype; they run the operators of the same names (run_op). keepdims keeps reduced dimensions
// as 1s; without it they are dropped (reducing every axis gives a 0-d array). Integer sums wrap
// in the dtype; integer means divide the 64-bit wrapping sum, truncating toward zero; float sums
// and means use the fixed evaluation order of docs/determinism.md, independent of strides.
// max/min: the first extreme element wins, and a NaN ranks beyond every number (the first NaN
// is returned, bit for bit). LogicError for bool, bad or repeated axes, and for max, min, mean
// or argmax over zero elements.
CVM_EXPORT NDArray reduce_sum(const NDArray& x, const ReduceAxes& axes = {}, bool keepdims = false);
CVM_EXPORT NDArray reduce_mean(const NDArray& x, const ReduceAxes& axes = {},
                               bool keepdims = false);
CVM_EXPORT NDArray reduce_max(const NDArray& x, const ReduceAxes& axes = {}, bool keepdims = false);
CVM_EXPORT NDArray reduce_min(const NDArray& x, const ReduceAxes& axes = {}, bool keepdims = false);
// The int64 position of the first maximum (NaN ranks highest, the first NaN wins) within the
// reduced axes, as a row-major flat index over them (one axis: the index along it).
CVM_EXPORT NDArray argmax(const NDArray& x, const ReduceAxes& axes = {}, bool keepdims = false);

// NumPy matmul: (..., M, K) x (..., K, N) -> (..., M, N) with broadcast batch dimensions; a 1-D
// a is a row (its M dimension dropped from the result), a 1-D b a column (N dropped). dtypes:
// int8 x int8 -> int32, int32 x int32 -> int32 (wrapping), float32 and float64 (same dtype out).
// Each output accumulates in k order from 0, rounding once per multiply and once per add.
// LogicError for mismatched K (naming both shapes), batch dimensions or dtypes, or 0-d inputs.
CVM_EXPORT NDArray matmul(const NDArray& a, const NDArray& b);

}  // namespace cvm
