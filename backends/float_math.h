// Deterministic transcendental functions (det_exp) for float kernels: no libm, same bits anywhere.
//
// libm's last bit differs between glibc, musl/wasm and CUDA, so kernels never call it.
//
// Every function here is a fixed sequence of IEEE-754 double operations (+, -, *, / and
// exponent-bit construction), each rounded once to nearest even: compiled without FMA contraction
// and without fast-math, it gives the same bits on x86-64, wasm32 and CUDA. SIMD versions must
// evaluate the very same sequence per lane. Std headers only.
#pragma once

#include <cstdint>
#include <cstring>

#include "host_device.h"
#include <limits>

namespace cvm {
namespace kernel {
namespace float_math {

// 2^k as a double for k in [-1022, 1023], from its exponent bits.
CVM_HOST_DEVICE inline double pow2_normal(int64_t k) {
  const uint64_t bits = static_cast<uint64_t>(k + 1023) << 52;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// Cody-Waite split of ln 2: kLn2Hi has its low 21 mantissa bits zero, so k * kLn2Hi is exact for
// |k| < 2^21; kLn2Hi + kLn2Lo approximates ln 2 to about 2^-85 (fdlibm's constants).
constexpr double kLn2Hi = 6.93147180369123816490e-01;   // 0x3FE62E42FEE00000
constexpr double kLn2Lo = 1.90821492927058770002e-10;   // 0x3DEA39EF35793C76
constexpr double kInvLn2 = 1.44269504088896338700e+00;  // 0x3FF71547652B82FE, 1 / ln 2
// Adding and subtracting 1.5 * 2^52 rounds a double of magnitude < 2^51 to the nearest integer
// (ties to even) with two exact-by-construction operations, independent of any rounding-mode
// function or library.
constexpr double kRoundShift = 6755399441055744.0;
// Beyond these, exp overflows to +inf (above ln(DBL_MAX) = 709.78...) or rounds to +0 (below
// ln(2^-1075) = -745.133...); the margins keep k within [-1076, 1025].
constexpr double kExpOverflow = 710.0;
constexpr double kExpUnderflow = -745.5;
// Taylor coefficients 1/j! for j = 0..14 of det_exp's polynomial: the truncation error is below
// 1e-17 for |r| <= 0.35. Constants only: SIMD sources (compiled with ISA flags) read them, never
// calling this header's inline functions.
constexpr double kExpTaylor[15] = {1.0,
                                   1.0,
                                   1.0 / 2.0,
                                   1.0 / 6.0,
                                   1.0 / 24.0,
                                   1.0 / 120.0,
                                   1.0 / 720.0,
                                   1.0 / 5040.0,
                                   1.0 / 40320.0,
                                   1.0 / 362880.0,
                                   1.0 / 3628800.0,
                                   1.0 / 39916800.0,
                                   1.0 / 479001600.0,
                                   1.0 / 6227020800.0,
                                   1.0 / 87178291200.0};

}  // namespace float_math

// e^x in double precision, deterministic (see above); relative error about 1e-16 for normal results
// (subnormal results are rounded once, from the same approximation).
//
// The order, which SIMD versions must reproduce exactly:
//   NaN -> x itself; x > 710 -> +inf; x < -745.5 -> +0.
//   k = (x * (1/ln2) + 1.5*2^52) - 1.5*2^52   (the nearest integer of the rounded product)
//   r = (x - k * ln2_hi) - k * ln2_lo        (|r| <= ~0.347)
//   p = c14; then p = p * r + c_j for j = 13, 12, ..., 0   (Horner; c_j = the double nearest 1/j!)
//   k in [-1022, 1023]: p * 2^k
//   k > 1023:  (p * 2^1023) * 2^(k - 1023)   (overflows to +inf as it should)
//   k < -1022: (p * 2^(k + 64)) * 2^-64      (one rounding into the subnormal range)
CVM_HOST_DEVICE inline double det_exp(double x) {
  using namespace float_math;  // NOLINT: this header's own constants
  if (x != x) return x;
  if (x > kExpOverflow) return std::numeric_limits<double>::infinity();
  if (x < kExpUnderflow) return 0.0;
  const double k = (x * kInvLn2 + kRoundShift) - kRoundShift;
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  // A local copy, read at compile time: device code cannot index a namespace-scope array.
  constexpr double c[15] = {kExpTaylor[0],  kExpTaylor[1],  kExpTaylor[2],  kExpTaylor[3],
                            kExpTaylor[4],  kExpTaylor[5],  kExpTaylor[6],  kExpTaylor[7],
                            kExpTaylor[8],  kExpTaylor[9],  kExpTaylor[10], kExpTaylor[11],
                            kExpTaylor[12], kExpTaylor[13], kExpTaylor[14]};
  double p = c[14];
  for (int j = 13; j >= 0; --j) p = p * r + c[j];
  const int64_t ki = static_cast<int64_t>(k);
  if (ki > 1023) return (p * pow2_normal(1023)) * pow2_normal(ki - 1023);
  if (ki < -1022) return (p * pow2_normal(ki + 64)) * pow2_normal(-64);
  return p * pow2_normal(ki);
}

}  // namespace kernel
}  // namespace cvm
