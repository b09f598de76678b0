// CUDA kernels of the dtype-generic elementwise ops (arithmetic, extrema, sign, comparisons).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "convert.h"
#include "cuda_kernels.h"
#include "elementwise_common.cuh"

namespace cvm {
namespace kernel {
namespace cuda {
namespace {

// The value an element stands for, in a type C++ can compare: 16-bit floats widen exactly to
// double, everything else is itself.
template <typename T>
__device__ auto value_of(T x) {
  if constexpr (is_small_float_v<T>) {
    return to_double(x);
  } else {
    return x;
  }
}

template <typename V>
__device__ bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

struct AddOp {
  template <typename V>
  __device__ V operator()(V a, V b) const {
    if constexpr (std::is_integral_v<V>)
      return wrap_add(a, b);
    else
      return a + b;
  }
};
struct SubOp {
  template <typename V>
  __device__ V operator()(V a, V b) const {
    if constexpr (std::is_integral_v<V>)
      return wrap_sub(a, b);
    else
      return a - b;
  }
};
struct MulOp {
  template <typename V>
  __device__ V operator()(V a, V b) const {
    if constexpr (std::is_integral_v<V>)
      return wrap_mul(a, b);
    else
      return a * b;
  }
};
// Integers: x / 0 = 0, truncation toward zero, MIN / -1 wraps to MIN. Floats: IEEE.
struct DivOp {
  template <typename V>
  __device__ V operator()(V a, V b) const {
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

// One arithmetic operation on one element type: integers wrap, native floats round once,
// 16-bit floats are computed in double and rounded once to their format. A NaN result is
// always the canonical NaN.
template <typename T, typename Op>
struct Arith {
  __device__ T operator()(T a, T b) const {
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

template <ElemType E, typename Op>
KernelStatus arith(const KernelCall& call, const char* name) {
  using T = ElemT<E>;
  return map_elements<T, T, 2>(call, Arith<T, Op>{}, name);
}

// maximum (kMax) / minimum: a NaN operand wins (the first one's bits when both are NaN), and
// on a tie (including -0 vs +0) the first operand is returned, bits unchanged.
template <bool kMax, typename T>
struct Extremum {
  __device__ T operator()(T a, T b) const {
    const auto va = value_of(a), vb = value_of(b);
    if (is_nan(va)) return a;
    if (is_nan(vb)) return b;
    return (kMax ? vb > va : vb < va) ? b : a;
  }
};

struct EqualCmp {
  template <typename V>
  __device__ bool operator()(V a, V b) const { return a == b; }
};
struct NotEqualCmp {
  template <typename V>
  __device__ bool operator()(V a, V b) const { return a != b; }
};
struct LessCmp {
  template <typename V>
  __device__ bool operator()(V a, V b) const { return a < b; }
};
struct LessEqualCmp {
  template <typename V>
  __device__ bool operator()(V a, V b) const { return a <= b; }
};
struct GreaterCmp {
  template <typename V>
  __device__ bool operator()(V a, V b) const { return a > b; }
};
struct GreaterEqualCmp {
  template <typename V>
  __device__ bool operator()(V a, V b) const { return a >= b; }
};

template <typename Out, typename T, typename Cmp>
struct Compare {
  __device__ Out operator()(T a, T b) const {
    return static_cast<Out>(Cmp{}(value_of(a), value_of(b)));
  }
};

// Comparisons: 0/1 into a bool or an int32 output (broadcast_greater), IEEE for floats (any
// comparison with NaN is false except !=).
template <ElemType E, typename Cmp>
KernelStatus compare(const KernelCall& call, const char* name) {
  using T = ElemT<E>;
  if (call.outputs[0].type == ElemType::kInt32) {
    return map_elements<int32_t, T, 2>(call, Compare<int32_t, T, Cmp>{}, name);
  }
  return map_elements<bool, T, 2>(call, Compare<bool, T, Cmp>{}, name);
}

// The element with its sign bit flipped (kFlip) or cleared: float negative and abs touch
// nothing else, so NaN payloads and infinities survive.
template <bool kFlip, typename T>
__device__ T sign_bit_op(T x) {
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
  __device__ T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return wrap_sub(T(0), x);
    else
      return sign_bit_op<true>(x);
  }
};
// Signed integers wrap (|MIN| = MIN); floats clear the sign bit.
template <typename T>
struct Abs {
  __device__ T operator()(T x) const {
    if constexpr (std::is_integral_v<T>)
      return x < 0 ? wrap_sub(T(0), x) : x;
    else
      return sign_bit_op<false>(x);
  }
};

}  // namespace

template <ElemType T>
KernelStatus add(const KernelCall& call) {
  return arith<T, AddOp>(call, "add");
}
template <ElemType T>
KernelStatus sub(const KernelCall& call) {
  return arith<T, SubOp>(call, "sub");
}
template <ElemType T>
KernelStatus mul(const KernelCall& call) {
  return arith<T, MulOp>(call, "mul");
}
template <ElemType T>
KernelStatus div(const KernelCall& call) {
  return arith<T, DivOp>(call, "div");
}
template <ElemType E>
KernelStatus maximum(const KernelCall& call) {
  using T = ElemT<E>;
  return map_elements<T, T, 2>(call, Extremum<true, T>{}, "maximum");
}
template <ElemType E>
KernelStatus minimum(const KernelCall& call) {
  using T = ElemT<E>;
  return map_elements<T, T, 2>(call, Extremum<false, T>{}, "minimum");
}
template <ElemType E>
KernelStatus negative(const KernelCall& call) {
  using T = ElemT<E>;
  return map_elements<T, T, 1>(call, Negative<T>{}, "negative");
}
template <ElemType E>
KernelStatus abs(const KernelCall& call) {
  using T = ElemT<E>;
  return map_elements<T, T, 1>(call, Abs<T>{}, "abs");
}

template <ElemType T>
KernelStatus equal(const KernelCall& call) {
  return compare<T, EqualCmp>(call, "equal");
}
template <ElemType T>
KernelStatus not_equal(const KernelCall& call) {
  return compare<T, NotEqualCmp>(call, "not_equal");
}
template <ElemType T>
KernelStatus less(const KernelCall& call) {
  return compare<T, LessCmp>(call, "less");
}
template <ElemType T>
KernelStatus less_equal(const KernelCall& call) {
  return compare<T, LessEqualCmp>(call, "less_equal");
}
template <ElemType T>
KernelStatus greater(const KernelCall& call) {
  return compare<T, GreaterCmp>(call, "greater");
}
template <ElemType T>
KernelStatus greater_equal(const KernelCall& call) {
  return compare<T, GreaterEqualCmp>(call, "greater_equal");
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

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
