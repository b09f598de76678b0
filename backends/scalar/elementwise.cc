// Scalar reference kernels for dtype-generic elementwise ops on strided views: arithmetic
// (add, sub, mul, div), maximum/minimum, negative/abs and the six comparisons.
#include <cmath>
#include <type_traits>

#include "convert.h"
#include "elementwise_map.h"
#include "scalar_kernels.h"

namespace cvm {
namespace kernel {
namespace scalar {
namespace {

// The value an element stands for, in a type C++ can compare: 16-bit floats widen exactly to
// double, everything else is itself.
template <typename T>
auto value_of(T x) {
  if constexpr (is_small_float_v<T>) {
    return to_double(x);
  } else {
    return x;
  }
}

template <typename V>
bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// One arithmetic operation on one element type: integers wrap, native floats round once,
// 16-bit floats are computed exactly in double and rounded once to their format (double has
// more than twice their significand bits, so this equals one correct rounding). A NaN result is
// always the canonical NaN.
template <typename T, typename Op>
T apply(T a, T b, Op op) {
  if constexpr (is_small_float_v<T>) {
    return from_double<T>(op(to_double(a), to_double(b)));
  } else if constexpr (std::is_floating_point_v<T>) {
    const T r = op(a, b);
    return std::isnan(r) ? canonical_nan<T>() : r;
  } else {
    return op(a, b);
  }
}

template <ElemType E, typename Op>
void arith(const KernelCall& call, Op op) {
  using T = ElemT<E>;
  map_elements<T, T, 2>(call, [&](T a, T b) { return apply(a, b, op); });
}

struct AddOp {
  template <typename V>
  V operator()(V a, V b) const {
    if constexpr (std::is_integral_v<V>)
      return wrap_add(a, b);
    else
      return a + b;
  }
};
struct SubOp {
  template <typename V>
  V operator()(V a, V b) const {
    if constexpr (std::is_integral_v<V>)
      return wrap_sub(a, b);
    else
      return a - b;
  }
};
struct MulOp {
  template <typename V>
  V operator()(V a, V b) const {
    if constexpr (std::is_integral_v<V>)
      return wrap_mul(a, b);
    else
      return a * b;
  }
};
// Integers: x / 0 = 0, truncation toward zero, MIN / -1 wraps to MIN. Floats: IEEE.
struct DivOp {
  template <typename V>
  V operator()(V a, V b) const {
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

// maximum (kMax) / minimum: a NaN operand wins (the first one's bits when both are NaN), and
// on a tie (including -0 vs +0) the first operand is returned, bits unchanged.
template <bool kMax, ElemType E>
void extremum(const KernelCall& call) {
  using T = ElemT<E>;
  map_elements<T, T, 2>(call, [](T a, T b) {
    const auto va = value_of(a), vb = value_of(b);
    if (is_nan(va)) return a;
    if (is_nan(vb)) return b;
    return (kMax ? vb > va : vb < va) ? b : a;
  });
}

// Comparisons: 0/1 into a bool or an int32 output (broadcast_greater), IEEE for floats (any
// comparison with NaN is false except !=).
template <ElemType E, typename Cmp>
void compare(const KernelCall& call, Cmp cmp) {
  using T = ElemT<E>;
  auto fn = [&](T a, T b) { return cmp(value_of(a), value_of(b)); };
  if (call.outputs[0].type == ElemType::kInt32) {
    map_elements<int32_t, T, 2>(call, [&](T a, T b) { return int32_t{fn(a, b)}; });
  } else {
    map_elements<bool, T, 2>(call, fn);
  }
}

// The element with its sign bit flipped (kFlip) or cleared: float negative and abs touch
// nothing else, so NaN payloads and infinities survive.
template <bool kFlip, typename T>
T sign_bit_op(T x) {
  using U = std::conditional_t<sizeof(T) == 2, uint16_t,
                               std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
  constexpr U kSign = U(U(1) << (8 * sizeof(T) - 1));
  U bits;
  std::memcpy(&bits, &x, sizeof(T));
  bits = kFlip ? U(bits ^ kSign) : U(bits & U(~kSign));
  std::memcpy(&x, &bits, sizeof(T));
  return x;
}

}  // namespace

template <ElemType T>
KernelStatus add(const KernelCall& call) {
  arith<T>(call, AddOp{});
  return KernelStatus::kDone;
}
template <ElemType T>
KernelStatus sub(const KernelCall& call) {
  arith<T>(call, SubOp{});
  return KernelStatus::kDone;
}
template <ElemType T>
KernelStatus mul(const KernelCall& call) {
  arith<T>(call, MulOp{});
  return KernelStatus::kDone;
}
template <ElemType T>
KernelStatus div(const KernelCall& call) {
  arith<T>(call, DivOp{});
  return KernelStatus::kDone;
}
template <ElemType T>
KernelStatus maximum(const KernelCall& call) {
  extremum<true, T>(call);
  return KernelStatus::kDone;
}
template <ElemType T>
KernelStatus minimum(const KernelCall& call) {
  extremum<false, T>(call);
  return KernelStatus::kDone;
}

template <ElemType E>
KernelStatus negative(const KernelCall& call) {
  using T = ElemT<E>;
  map_elements<T, T, 1>(call, [](T x) {
    if constexpr (std::is_integral_v<T>)
      return wrap_sub(T(0), x);
    else
      return sign_bit_op<true>(x);
  });
  return KernelStatus::kDone;
}
template <ElemType E>
KernelStatus abs(const KernelCall& call) {
  using T = ElemT<E>;
  map_elements<T, T, 1>(call, [](T x) {
    if constexpr (std::is_integral_v<T>)
      return x < 0 ? wrap_sub(T(0), x) : x;
    else
      return sign_bit_op<false>(x);
  });
  return KernelStatus::kDone;
}

template <ElemType T>
KernelStatus equal(const KernelCall& call) {
  compare<T>(call, [](auto a, auto b) { return a == b; });
  return KernelStatus::kDone;
}
template <ElemType T>
KernelStatus not_equal(const KernelCall& call) {
  compare<T>(call, [](auto a, auto b) { return a != b; });
  return KernelStatus::kDone;
}
template <ElemType T>
KernelStatus less(const KernelCall& call) {
  compare<T>(call, [](auto a, auto b) { return a < b; });
  return KernelStatus::kDone;
}
template <ElemType T>
KernelStatus less_equal(const KernelCall& call) {
  compare<T>(call, [](auto a, auto b) { return a <= b; });
  return KernelStatus::kDone;
}
template <ElemType T>
KernelStatus greater(const KernelCall& call) {
  compare<T>(call, [](auto a, auto b) { return a > b; });
  return KernelStatus::kDone;
}
template <ElemType T>
KernelStatus greater_equal(const KernelCall& call) {
  compare<T>(call, [](auto a, auto b) { return a >= b; });
  return KernelStatus::kDone;
}

#define CVM_INSTANTIATE_COMPARE(E)                                  \
  template KernelStatus equal<ElemType::E>(const KernelCall&);      \
  template KernelStatus not_equal<ElemType::E>(const KernelCall&);  \
  template KernelStatus less<ElemType::E>(const KernelCall&);       \
  template KernelStatus less_equal<ElemType::E>(const KernelCall&); \
  template KernelStatus greater<ElemType::E>(const KernelCall&);    \
  template KernelStatus greater_equal<ElemType::E>(const KernelCall&);
#define CVM_INSTANTIATE_NUMERIC(E)                               \
  CVM_INSTANTIATE_COMPARE(E)                                     \
  template KernelStatus add<ElemType::E>(const KernelCall&);     \
  template KernelStatus sub<ElemType::E>(const KernelCall&);     \
  template KernelStatus mul<ElemType::E>(const KernelCall&);     \
  template KernelStatus div<ElemType::E>(const KernelCall&);     \
  template KernelStatus maximum<ElemType::E>(const KernelCall&); \
  template KernelStatus minimum<ElemType::E>(const KernelCall&);
#define CVM_INSTANTIATE_SIGNED(E)                                 \
  CVM_INSTANTIATE_NUMERIC(E)                                      \
  template KernelStatus negative<ElemType::E>(const KernelCall&); \
  template KernelStatus abs<ElemType::E>(const KernelCall&);
CVM_INSTANTIATE_SIGNED(kInt8)
CVM_INSTANTIATE_SIGNED(kInt16)
CVM_INSTANTIATE_SIGNED(kInt32)
CVM_INSTANTIATE_SIGNED(kInt64)
CVM_INSTANTIATE_NUMERIC(kUInt8)
CVM_INSTANTIATE_NUMERIC(kUInt16)
CVM_INSTANTIATE_NUMERIC(kUInt32)
CVM_INSTANTIATE_NUMERIC(kUInt64)
CVM_INSTANTIATE_SIGNED(kFloat16)
CVM_INSTANTIATE_SIGNED(kBFloat16)
CVM_INSTANTIATE_SIGNED(kFloat32)
CVM_INSTANTIATE_SIGNED(kFloat64)
CVM_INSTANTIATE_COMPARE(kBool)
#undef CVM_INSTANTIATE_SIGNED
#undef CVM_INSTANTIATE_NUMERIC
#undef CVM_INSTANTIATE_COMPARE

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
