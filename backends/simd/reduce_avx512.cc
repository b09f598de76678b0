// AVX-512 reduction kernels: int32 sum and max, float32 sum in the 16-lane order (compiled with
// -mavx512f -mavx512bw for this file only).
#include "immintrin_avx512.h"

#include <cstdint>
#include <cstring>

#include "params/reduce.h"
#include "simd_kernels.h"

namespace cvm {
namespace kernel {
namespace simd {
namespace {

// In this order: the ISA's vector primitives, the shared loop helpers, then the kernel
// templates that use both.
// clang-format off
#include "vec_avx512.inc"
#include "kernel_loops.inc"
#include "reduce.inc"
// clang-format on

}  // namespace

#define CVM_EXPORT_KERNEL(name, impl)                  \
  KernelStatus name##_avx512(const KernelCall& call) { \
    impl(call);                                      \
    return KernelStatus::kDone;                      \
  }
CVM_SIMD_REDUCE_KERNELS(CVM_EXPORT_KERNEL)
#undef CVM_EXPORT_KERNEL

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
