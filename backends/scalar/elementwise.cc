// Scalar reference kernels for dtype-generic elementwise ops on strided views: arithmetic
// (add, sub, mul, div), maximum/minimum, negative/abs and the six comparisons, mapping the
// per-element rules of element_ops.h.
#include "element_ops.h"
#include "elementwise_map.h"
#include "reference_keys.h"
#include "scalar_kernels.h"

namespace cvm {
namespace kernel {
namespace scalar {
namespace {

using namespace element_ops;  // NOLINT: the shared per-element rules

template <ElemType E, typename Op>
KernelStatus arith(const KernelCall& call) {
  using T = ElemT<E>;
  map_elements<T, T, 2>(call, Arith<T, Op>{});
  return KernelStatus::kDone;
}

// 0/1 into a bool or an int32 output (broadcast_greater).
template <ElemType E, typename Cmp>
KernelStatus compare(const KernelCall& call) {
  using T = ElemT<E>;
  if (call.outputs[0].type == ElemType::kInt32) {
    map_elements<int32_t, T, 2>(call, Compare<int32_t, T, Cmp>{});
  } else {
    map_elements<bool, T, 2>(call, Compare<bool, T, Cmp>{});
  }
  return KernelStatus::kDone;
}

template <ElemType E, typename Fn>
KernelStatus unary(const KernelCall& call) {
  using T = ElemT<E>;
  map_elements<T, T, 1>(call, Fn{});
  return KernelStatus::kDone;
}

template <ElemType E, typename Fn>
KernelStatus binary(const KernelCall& call) {
  using T = ElemT<E>;
  map_elements<T, T, 2>(call, Fn{});
  return KernelStatus::kDone;
}

}  // namespace

template <ElemType T>
KernelStatus add(const KernelCall& call) {
  return arith<T, AddOp>(call);
}
template <ElemType T>
KernelStatus sub(const KernelCall& call) {
  return arith<T, SubOp>(call);
}
template <ElemType T>
KernelStatus mul(const KernelCall& call) {
  return arith<T, MulOp>(call);
}
template <ElemType T>
KernelStatus div(const KernelCall& call) {
  return arith<T, DivOp>(call);
}
template <ElemType T>
KernelStatus maximum(const KernelCall& call) {
  return binary<T, Extremum<true, ElemT<T>>>(call);
}
template <ElemType T>
KernelStatus minimum(const KernelCall& call) {
  return binary<T, Extremum<false, ElemT<T>>>(call);
}
template <ElemType T>
KernelStatus negative(const KernelCall& call) {
  return unary<T, Negative<ElemT<T>>>(call);
}
template <ElemType T>
KernelStatus abs(const KernelCall& call) {
  return unary<T, Abs<ElemT<T>>>(call);
}
template <ElemType T>
KernelStatus equal(const KernelCall& call) {
  return compare<T, EqualCmp>(call);
}
template <ElemType T>
KernelStatus not_equal(const KernelCall& call) {
  return compare<T, NotEqualCmp>(call);
}
template <ElemType T>
KernelStatus less(const KernelCall& call) {
  return compare<T, LessCmp>(call);
}
template <ElemType T>
KernelStatus less_equal(const KernelCall& call) {
  return compare<T, LessEqualCmp>(call);
}
template <ElemType T>
KernelStatus greater(const KernelCall& call) {
  return compare<T, GreaterCmp>(call);
}
template <ElemType T>
KernelStatus greater_equal(const KernelCall& call) {
  return compare<T, GreaterEqualCmp>(call);
}

CVM_REFERENCE_ELEMENTWISE(CVM_INSTANTIATE_KERNEL)

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
