// CUDA kernels of the dtype-generic elementwise ops (arithmetic, extrema, sign, comparisons).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda_kernels.h"
#include "element_ops.h"
#include "elementwise_common.cuh"
#include "reference_keys.h"

namespace cvm {
namespace kernel {
namespace cuda {
namespace {

using namespace element_ops;  // NOLINT: the shared per-element rules

template <ElemType E, typename Op>
KernelStatus arith(const KernelCall& call, const char* name) {
  using T = ElemT<E>;
  return map_elements<T, T, 2>(call, Arith<T, Op>{}, name);
}

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

CVM_REFERENCE_ELEMENTWISE(CVM_INSTANTIATE_KERNEL)

}  // namespace cuda
}  // namespace kernel
}  // namespace cvm
