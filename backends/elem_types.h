// Maps each ElemType to its C++ storage type, and wrapping integer arithmetic helpers.
#pragma once

#include <cstdint>
#include <type_traits>

#include "host_device.h"
#include "kernel_abi.h"

namespace cvm {
namespace kernel {

// 16-bit float formats are stored as raw bits in distinct wrapper types.
struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

template <ElemType T>
struct ElemTraits;
#define CVM_ELEM_TRAITS(E, C) \
  template <>                 \
  struct ElemTraits<ElemType::E> { using type = C; };
CVM_ELEM_TRAITS(kInt8, int8_t)
CVM_ELEM_TRAITS(kInt16, int16_t)
CVM_ELEM_TRAITS(kInt32, int32_t)
CVM_ELEM_TRAITS(kInt64, int64_t)
CVM_ELEM_TRAITS(kUInt8, uint8_t)
CVM_ELEM_TRAITS(kUInt16, uint16_t)
CVM_ELEM_TRAITS(kUInt32, uint32_t)
CVM_ELEM_TRAITS(kUInt64, uint64_t)
CVM_ELEM_TRAITS(kFloat16, Half)
CVM_ELEM_TRAITS(kBFloat16, BFloat16)
CVM_ELEM_TRAITS(kFloat32, float)
CVM_ELEM_TRAITS(kFloat64, double)
CVM_ELEM_TRAITS(kBool, bool)
#undef CVM_ELEM_TRAITS

template <ElemType T>
using ElemT = typename ElemTraits<T>::type;

// Two's-complement wrapping arithmetic on any integer type, without signed-overflow UB.
template <typename I>
CVM_HOST_DEVICE I wrap_add(I a, I b) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename I>
CVM_HOST_DEVICE I wrap_sub(I a, I b) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
}
template <typename I>
CVM_HOST_DEVICE I wrap_mul(I a, I b) {
  // Promote to at least unsigned int so that uint16 * uint16 cannot overflow a signed int.
  using U = std::conditional_t<(sizeof(I) < sizeof(unsigned)), unsigned, std::make_unsigned_t<I>>;
  return static_cast<I>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
}

// Calls fn(std::integral_constant<ElemType, T>{}) for the runtime value `t` (not kAny).
template <typename Fn>
void visit_elem_type(ElemType t, Fn&& fn) {
  switch (t) {
#define CVM_VISIT(E) \
  case ElemType::E:  \
    fn(std::integral_constant<ElemType, ElemType::E>{}); \
    return;
    CVM_VISIT(kInt8) CVM_VISIT(kInt16) CVM_VISIT(kInt32) CVM_VISIT(kInt64)
    CVM_VISIT(kUInt8) CVM_VISIT(kUInt16) CVM_VISIT(kUInt32) CVM_VISIT(kUInt64)
    CVM_VISIT(kFloat16) CVM_VISIT(kBFloat16) CVM_VISIT(kFloat32) CVM_VISIT(kFloat64)
    CVM_VISIT(kBool)
#undef CVM_VISIT
    case ElemType::kAny:
      return;
  }
}

}  // namespace kernel
}  // namespace cvm
