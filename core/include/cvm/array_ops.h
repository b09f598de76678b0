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

// NumPy-broadcasting arithmetic on two arrays of the same numeric dtype. Integers wrap;
// floats round once per operation. LogicError for mismatched dtypes or shapes, or bool.
CVM_EXPORT NDArray add(const NDArray& a, const NDArray& b);
CVM_EXPORT NDArray sub(const NDArray& a, const NDArray& b);
CVM_EXPORT NDArray mul(const NDArray& a, const NDArray& b);

// The NumPy broadcast of two shapes; LogicError naming both when incompatible.
CVM_EXPORT Shape broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace cvm
