// Declarations of the x86 SIMD kernels listed in simd_table.cc, one group per ISA file.
//
// ISA sources (compiled with -mavx2, -mavx512f, ...) must not call inline functions from
// shared headers: the linker keeps one copy of such a function, possibly the one compiled with
// the wider ISA, which would then run on CPUs that lack it. They use PODs, tables and
// intrinsics only, and keep their helpers in anonymous namespaces.
#pragma once

#include "kernel_abi.h"

namespace cvm {
namespace kernel {
namespace simd {

uint32_t cpu_features();  // CpuFeature bits of this machine, capped by CVMRT_ISA

template <ElemType T>
void add_avx2(const KernelCall& call);
template <ElemType T>
void sub_avx2(const KernelCall& call);
template <ElemType T>
void add_avx512(const KernelCall& call);
template <ElemType T>
void sub_avx512(const KernelCall& call);

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
