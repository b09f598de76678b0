// Scalar reference kernels for dtype-generic elementwise arithmetic on strided views: add, sub,
// mul, div, maximum/minimum, negative/abs, mapping the per-element rules of element_ops.h (the
// comparisons are in compare.cc).
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

CVM_REFERENCE_ARITHMETIC(CVM_INSTANTIATE_KERNEL)

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
