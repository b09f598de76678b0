// AVX-512 int32 max_pool2d and upsampling kernels (compiled with -mavx512f -mavx512bw for this
// file only).
#include "immintrin_avx512.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "params/nn.h"
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
#include "spatial.inc"
// clang-format on

}  // namespace

#define CVM_EXPORT_KERNEL(name, impl) \
  KernelStatus name##_avx512(const KernelCall& call) { return impl(call); }
CVM_SIMD_SPATIAL_KERNELS(CVM_EXPORT_KERNEL)
#undef CVM_EXPORT_KERNEL

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
