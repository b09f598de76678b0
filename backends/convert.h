// The element conversion rules of `cast`, one function per (source, destination) pair family.
//
// integer -> integer: two's-complement truncation (wraps). float -> integer: truncate toward
// zero, NaN -> 0, saturate at the destination's range. anything -> bool: x != 0.
// -> float32/float64: correctly rounded (nearest even). -> float16/bfloat16: one correct
// rounding from the exact source value.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "elem_types.h"
#include "float16.h"

namespace cvm {
namespace kernel {

// The one NaN every float kernel writes whenever an arithmetic result is NaN, in place of
// whatever NaN the hardware produced (its sign and payload depend on operand order and on the
// platform: x86 and wasm differ): sign clear, only the top mantissa bit set. F is float or
// double; 16-bit formats get the same pattern from float16.h.
template <typename F>
CVM_HOST_DEVICE F canonical_nan() {
  static_assert(sizeof(F) == 4 || sizeof(F) == 8, "float or double");
  F f;
  if constexpr (sizeof(F) == 4) {
    const uint32_t bits = 0x7FC00000u;
    std::memcpy(&f, &bits, sizeof(f));
  } else {
    const uint64_t bits = 0x7FF8000000000000ull;
    std::memcpy(&f, &bits, sizeof(f));
  }
  return f;
}

template <typename T>
constexpr bool is_small_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// The exact value of a non-integer source as a double (every float format fits exactly).
CVM_HOST_DEVICE inline double to_double(Half h) { return half_bits_to_double(h.bits); }
CVM_HOST_DEVICE inline double to_double(BFloat16 h) { return bfloat16_bits_to_double(h.bits); }
CVM_HOST_DEVICE inline double to_double(float f) { return f; }
CVM_HOST_DEVICE inline double to_double(double d) { return d; }

template <typename Dst>
CVM_HOST_DEVICE Dst from_double(double v) {
  if constexpr (std::is_same_v<Dst, Half>) {
    return Half{double_to_half_bits(v)};
  } else if constexpr (std::is_same_v<Dst, BFloat16>) {
    return BFloat16{double_to_bfloat16_bits(v)};
  } else if constexpr (std::is_same_v<Dst, bool>) {
    return v != 0.0;
  } else if constexpr (std::is_floating_point_v<Dst>) {
    return static_cast<Dst>(v);
  } else {
    if (std::isnan(v)) return 0;
    double t = std::trunc(v);
    // Saturate: compare against the range as doubles (the bounds are exact powers of two).
    constexpr double lo = static_cast<double>(std::numeric_limits<Dst>::min());
    constexpr double hi_excl = 2.0 * static_cast<double>(std::numeric_limits<Dst>::max() / 2 + 1);
    if (t < lo) return std::numeric_limits<Dst>::min();
    if (t >= hi_excl) return std::numeric_limits<Dst>::max();
    return static_cast<Dst>(t);
  }
}

template <typename Dst, typename Src>
CVM_HOST_DEVICE Dst convert(Src s) {
  if constexpr (std::is_same_v<Dst, Src>) {
    return s;
  } else if constexpr (std::is_same_v<Src, bool>) {
    return convert<Dst>(static_cast<uint8_t>(s ? 1 : 0));
  } else if constexpr (std::is_integral_v<Src>) {
    if constexpr (std::is_same_v<Dst, bool>) {
      return s != 0;
    } else if constexpr (std::is_integral_v<Dst>) {
      using UD = std::make_unsigned_t<Dst>;
      return static_cast<Dst>(static_cast<UD>(s));  // wrap
    } else if constexpr (std::is_floating_point_v<Dst>) {
      return static_cast<Dst>(s);  // the hardware conversion rounds once
    } else {
      bool neg = false;
      uint64_t mag;
      if constexpr (std::is_signed_v<Src>) {
        neg = s < 0;
        mag = neg ? uint64_t(0) - static_cast<uint64_t>(s) : static_cast<uint64_t>(s);
      } else {
        mag = s;
      }
      return from_double<Dst>(int_for_single_rounding(mag, neg));
    }
  } else {
    if constexpr (std::is_same_v<Dst, float> && std::is_same_v<Src, double>) {
      return static_cast<float>(s);
    } else {
      return from_double<Dst>(to_double(s));
    }
  }
}

}  // namespace kernel
}  // namespace cvm
