// The lane formats of the portable kernels: how operands sit in the accumulators, and why each
// format's sums equal the reference's wrapping int32 sums exactly.
//
// The reference sums int32 products modulo 2^32, where any order and any split of a sum into
// parts gives the same bits; so every format only has to give each output's sum modulo 2^32.
//
// Int32Lanes: any int32 operands. One output per accumulator, wrapping uint32 products and sums.
//
// PairF64: operands in [-128, 127] (fits_int8). One operand of two neighbouring outputs is
// packed into one double as b = b0 + b1 * 2^26, the other operand a is the plain value, and one
// multiply-add does both outputs' products: over a depth of K, s = S0 + S1 * 2^26 with S0 = sum
// a * b0 and S1 = sum a * b1. Every value is an integer of magnitude < 2^53, so every product
// and partial sum is exact: |b| <= 2^7 + 2^33, |a * b| <= 2^14 + 2^40, and for K <= kMaxDepth
// = 2047 (each product |a * b0| <= 128 * 128 = 2^14), |S0| <= K * 2^14 < 2^25 and |S1| * 2^26
// < 2^51. S0 is then the low 26 bits of s taken in [-2^25, 2^25), and S1 = (s - S0) / 2^26,
// both exact. Deeper sums are cut into parts of at most kMaxDepth, each part added to the
// output modulo 2^32. (Doubles use the FP units: two multiplies and two adds per cycle on x86,
// against one 64-bit integer multiply; the same pairs in uint64 lanes, b0 + b1 * 2^32,
// measured 2.8x slower in V8.)
#pragma once

#include <cstdint>

namespace cvm {
namespace kernel {
namespace portable {

struct Int32Lanes {
  using T = uint32_t;
  static constexpr int kOuts = 1;                     // outputs per lane
  static constexpr int64_t kMaxDepth = INT64_MAX;     // terms per exact sum
  static T one(int32_t v) { return static_cast<uint32_t>(v); }  // an operand as a lane
  static T join(const T* v) { return v[0]; }  // the packed operand of kOuts outputs, from one()s
  static void split(T s, uint32_t* out) { out[0] = s; }  // kOuts sums modulo 2^32
};

struct PairF64 {
  using T = double;
  static constexpr int kOuts = 2;
  static constexpr int64_t kMaxDepth = 2047;
  static T one(int32_t v) { return static_cast<double>(v); }
  static T join(const T* v) { return v[0] + v[1] * 67108864.0; }
  static void split(T s, uint32_t* out) {
    const auto t = static_cast<int64_t>(s);
    const int64_t s0 = ((t + (int64_t{1} << 25)) & ((int64_t{1} << 26) - 1)) - (int64_t{1} << 25);
    out[0] = static_cast<uint32_t>(s0);
    out[1] = static_cast<uint32_t>((t - s0) / (int64_t{1} << 26));
  }
};

}  // namespace portable
}  // namespace kernel
}  // namespace cvm
