// AVX2 elementwise integer kernels: add/sub of every integer width, int32 mul, div, maximum,
// relu, clip and the CVM shifts (compiled with -mavx2 for this file only).
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "params/elementwise.h"
#include "simd_kernels.h"

namespace cvm {
namespace kernel {
namespace simd {
namespace {

// In this order: the ISA's vector primitives, the shared loop helpers, then the kernel
// templates that use both.
// clang-format off
#include "vec_avx2.inc"
#include "kernel_loops.inc"
#include "elementwise_rows.inc"
// clang-format on

}  // namespace

template <ElemType T>
KernelStatus add_avx2(const KernelCall& call) {
  return add_sub_kernel<T, false>(call);
}
template <ElemType T>
KernelStatus sub_avx2(const KernelCall& call) {
  return add_sub_kernel<T, true>(call);
}

#define CVM_INSTANTIATE(E)                                \
  template KernelStatus add_avx2<ElemType::E>(const KernelCall&); \
  template KernelStatus sub_avx2<ElemType::E>(const KernelCall&);
CVM_INSTANTIATE(kInt8)
CVM_INSTANTIATE(kInt16)
CVM_INSTANTIATE(kInt32)
CVM_INSTANTIATE(kInt64)
CVM_INSTANTIATE(kUInt8)
CVM_INSTANTIATE(kUInt16)
CVM_INSTANTIATE(kUInt32)
CVM_INSTANTIATE(kUInt64)
#undef CVM_INSTANTIATE

#define CVM_EXPORT_KERNEL(name, impl) \
  KernelStatus name##_avx2(const KernelCall& call) { return impl(call); }
CVM_SIMD_ELEMENTWISE_KERNELS(CVM_EXPORT_KERNEL)
#undef CVM_EXPORT_KERNEL

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
