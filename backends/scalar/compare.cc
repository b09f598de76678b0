// Scalar reference kernels for the six comparisons on strided views of every numeric dtype and
// bool: 0/1 into a bool or an int32 output (broadcast_greater), by element_ops.h's rules.
#include "element_ops.h"
#include "elementwise_map.h"
#include "reference_keys.h"
#include "scalar_kernels.h"

namespace cvm {
namespace kernel {
namespace scalar {
namespace {

using namespace element_ops;  // NOLINT: the shared per-element rules

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

}  // namespace

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

CVM_REFERENCE_COMPARE(CVM_INSTANTIATE_KERNEL)

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
