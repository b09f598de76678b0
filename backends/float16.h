// Exact, deterministic conversions between double and the 16-bit float formats (IEEE binary16
// and bfloat16), round to nearest even, shared by every backend and the core.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "host_device.h"

namespace cvm {
namespace kernel {

CVM_HOST_DEVICE inline uint64_t double_bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, sizeof(b));
  return b;
}

CVM_HOST_DEVICE inline double bits_double(uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof(x));
  return x;
}

// Rounds a finite or infinite double to a binary format with `mant_bits` stored mantissa bits
// and `exp_bits` exponent bits; returns the raw bits (sign in the top bit). One rounding.
CVM_HOST_DEVICE inline uint16_t round_double_to_small_float(double x, int mant_bits, int exp_bits) {
  const uint64_t b = double_bits(x);
  const uint16_t sign = static_cast<uint16_t>((b >> 63) << 15);
  const int bias = (1 << (exp_bits - 1)) - 1;
  const uint16_t exp_all_ones = static_cast<uint16_t>(((1 << exp_bits) - 1) << mant_bits);
  // Every NaN becomes the one canonical NaN (sign clear, top mantissa bit): deterministic bits.
  if (std::isnan(x)) return static_cast<uint16_t>(exp_all_ones | (1u << (mant_bits - 1)));
  double a = std::fabs(x);
  if (std::isinf(a)) return static_cast<uint16_t>(sign | exp_all_ones);
  if (a == 0.0) return sign;
  int e;  // a = f * 2^e, f in [0.5, 1)
  std::frexp(a, &e);
  int unbiased = e - 1;  // a in [2^unbiased, 2^(unbiased+1))
  int min_normal = 1 - bias;
  // Quantum (value of one unit in the last place) of the target at this magnitude.
  int quantum_exp = (unbiased < min_normal ? min_normal : unbiased) - mant_bits;
  double scaled = std::ldexp(a, -quantum_exp);  // exact: a power-of-two scale
  double q = std::nearbyint(scaled);            // default rounding mode: nearest even
  uint64_t units = static_cast<uint64_t>(q);    // integer count of quanta, <= 2^(mant_bits+1)
  // Re-normalise after rounding (e.g. 1.111..1 rounding up to 10.000).
  uint64_t out;
  if (unbiased < min_normal) {
    // Subnormal range: units is the stored mantissa; reaching 2^mant_bits means the smallest
    // normal, whose bit pattern is the same integer.
    out = units;
  } else {
    int exp_field = unbiased + bias;
    if (units >= (uint64_t(1) << (mant_bits + 1))) {
      units >>= 1;
      exp_field += 1;
    }
    if (exp_field >= (1 << exp_bits) - 1) return static_cast<uint16_t>(sign | exp_all_ones);
    out = (uint64_t(exp_field) << mant_bits) | (units & ((uint64_t(1) << mant_bits) - 1));
  }
  return static_cast<uint16_t>(sign | out);
}

CVM_HOST_DEVICE inline double small_float_to_double(uint16_t h, int mant_bits, int exp_bits) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const bool neg = (h >> 15) != 0;
  const int exp_field = (h >> mant_bits) & ((1 << exp_bits) - 1);
  const uint32_t mant = h & ((1u << mant_bits) - 1);
  double v;
  if (exp_field == 0) {
    v = std::ldexp(static_cast<double>(mant), 1 - bias - mant_bits);
  } else if (exp_field == (1 << exp_bits) - 1) {
    v = mant ? std::nan("") : HUGE_VAL;
  } else {
    v = std::ldexp(static_cast<double>(mant | (1u << mant_bits)), exp_field - bias - mant_bits);
  }
  return neg ? -v : v;
}

CVM_HOST_DEVICE inline uint16_t double_to_half_bits(double x) { return round_double_to_small_float(x, 10, 5); }
CVM_HOST_DEVICE inline uint16_t double_to_bfloat16_bits(double x) { return round_double_to_small_float(x, 7, 8); }
CVM_HOST_DEVICE inline double half_bits_to_double(uint16_t h) { return small_float_to_double(h, 10, 5); }
CVM_HOST_DEVICE inline double bfloat16_bits_to_double(uint16_t h) { return small_float_to_double(h, 7, 8); }

// A 64-bit integer as a double that rounds to any format of at most 50 mantissa bits exactly as
// the integer itself would: low bits beyond double's precision are folded into a sticky bit.
CVM_HOST_DEVICE inline double int_for_single_rounding(uint64_t magnitude, bool negative) {
  int shift = 0;
  while ((magnitude >> shift) >= (uint64_t(1) << 53)) ++shift;
  uint64_t kept = magnitude >> shift;
  if (shift > 0 && (magnitude & ((uint64_t(1) << shift) - 1)) != 0) kept |= 1;
  double v = std::ldexp(static_cast<double>(kept), shift);
  return negative ? -v : v;
}

}  // namespace kernel
}  // namespace cvm
