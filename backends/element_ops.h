// The per-element rules of the dtype-generic elementwise ops, as functors every complete backend
// maps over its views (the scalar reference on the CPU, CUDA on the device): one definition of
// add/sub/mul/div, maximum/minimum, negative/abs and the comparisons.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "convert.h"
#include "host_device.h"

namespace cvm {
namespace kernel {
namespace element_ops {

// The value an element stands for, in a type C++ can compare: 16-bit floats widen exactly to
// double, everything else is itself.
template <typename T>
CVM_HOST_DEVICE auto value_of(T x) {
  if constexpr (is_small_float_v<T>) {
    return to_double(x);
  } else {
    return x;
  }
}

template <typename V>
CVM_HOST_DEVICE bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

struct AddOp {
  template <typename V>
  CVM_HOST_DEVICE V operator()(V a, V b) const {
    if constexpr (std::is_integral_v<V>)
      return wrap_add(a, b);
    else
      return a + b;
  }
};
struct SubOp {
  template <typename V>
  CVM_HOST_DEVICE V operator()(V a, V b) const {
    if constexpr (std::is_integral_v<V>)
      return wrap_sub(a, b);
    else
      return a - b;
  }
};
struct MulOp {
  template <typename V>
  CVM_HOST_DEVICE V operator()(V a, V b) const {
    if constexpr (std::is_integral_v<V>)
      return wrap_mul(a, b);
    else
      return a * b;
  }
};
// Integers: x / 0 = 0, truncation toward zero, MIN / -1 wraps to MIN. Floats: IEEE.
struct DivOp {
  template <typename V>
  CVM_HOST_DEVICE V operator()(V a, V b) const {
    if constexpr (std::is_integral_v<V>) {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<V>) {
        if (b == -1) return wrap_sub(V(0), a);
      }
      return static_cast<V>(a / b);
    } else {
      return a / b;
    }
  }
};

// One arithmetic operation Op on element type T: integers wrap, native floats round once,
// 16-bit floats are computed exactly in double and rounded once to their format (double has
// more than twice their significand bits, so this equals one correct rounding). A NaN result is
// always the canonical NaN.
template <typename T, typename Op>
struct Arith {
  CVM_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (is_small_float_v<T>) {
      return from_double<T>(Op{}(to_double(a), to_double(b)));
    } else if constexpr (std::is_floating_point_v<T>) {
      const T r = Op{}(a, b);
      return std::isnan(r) ? canonical_nan<T>() : r;
    } else {
      return Op{}(a, b);
    }
  }
};

// maximum (kMax) / minimum: a NaN operand wins (the first one's bits when both are NaN), and
// on a tie (including -0 vs +0) the first operand is returned, bits unchanged.
template <bool kMax, typename T>
struct Extremum {
  CVM_HOST_DEVICE T operator()(T a, T b) const {
    const auto va = value_of(a), vb = value_of(b);
    if (is_nan(va)) return a;
    if (is_nan(vb)) return b;
    return (kMax ? vb > va : vb < va) ? b : a;
  }
};

// Comparisons: IEEE for floats (any comparison with NaN is false except !=), into 0/1 of the
// output type (bool, or int32 for broadcast_greater).
struct EqualCmp {
  template <typename V>
  CVM_HOST_DEVICE bool operator()(V a, V b) const { return a == b; }
};
struct NotEqualCmp {
  template <typename V>
  CVM_HOST_DEVICE bool operator()(V a, V b) const { return a != b; }
};
struct LessCmp {
  template <typename V>
  CVM_HOST_DEVICE bool operator()(V a, V b) const { return a < b; }
};
struct LessEqualCmp {
  template <typename V>
  CVM_HOST_DEVICE bool operator()(V a, V b) const { return a <= b; }
};
struct GreaterCmp {
  template <typename V>
  CVM_HOST_DEVICE bool operator()(V a, V b) const { return a > b; }
};
struct GreaterEqualCmp {
  template <typename V>
  CVM_HOST_DEVICE bool operator()(V a, V b) const { return a >= b; }
};
template <typename Out, typename T, typename Cmp>
struct Compare {
  CVM_HOST_DEVICE Out operator()(T a, T b) const {
    return static_cast<Out>(Cmp{}(value_of(a), value_of(b)));
  }
};

// The element with its sign bit flipped (kFlip) or cleared: float negative and abs touch
// nothing else, so NaN payloads and infinities survive.
template <bool kFlip, typename T>
CVM_HOST_DEVICE T sign_bit_op(T x) {
  using U = std::conditional_t<sizeof(T) == 2, uint16_t,
                               std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
  constexpr U kSign = U(U(1) << (8 * sizeof(T) - 1));
  U bits;
  std::memcpy(&bits, &x, sizeof(T));
  bits = kFlip ? U(bits ^ kSign) : U(bits & U(~kSign));
  std::memcpy(&x, &bits, sizeof(T));
  return x;
}

// Signed integers wrap (-MIN = MIN); floats flip the sign bit.
template <typename T>
struct Negative {
  CVM_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return wrap_sub(T(0), x);
    else
      return sign_bit_op<true>(x);
  }
};
// Signed integers wrap (|MIN| = MIN); floats clear the sign bit.
template <typename T>
struct Abs {
  CVM_HOST_DEVICE T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return x < 0 ? wrap_sub(T(0), x) : x;
    else
      return sign_bit_op<false>(x);
  }
};

}  // namespace element_ops
}  // namespace kernel
}  // namespace cvm
