// Declarations of the x86 conv2d/dense GEMM kernels listed in simd_table.cc.
//
// Each takes the views and params of the reference (scalar nn.cc): conv2d Conv2dParams, dense
// DenseParams or null. They repack operands into scratch from the params' Scratch and equal
// the reference bit for bit for every input (see gemm_engine.inc for the paths).
#pragma once

#include <cstddef>

#include "kernel_abi.h"

namespace cvm {
namespace kernel {
namespace simd {

// They decline (KernelStatus::kDeclined, nothing written) when none of their paths applies:
// no input channels / no K, no scratch lent or a plan out of proportion to the operands, and
// for dense x or w strided along K (gemm_engine.inc).
KernelStatus conv2d_i8i32__amx(const KernelCall& call);         // AMX tdpbssd; needs AVX-512 VNNI
KernelStatus conv2d_i8i32__avx512vnni(const KernelCall& call);  // AVX-512 vpdpbusd
KernelStatus conv2d_i16i32__avx2(const KernelCall& call);       // AVX2 vpmaddwd
// 3x3 stride-1 conv2d by integer Winograd F(2x2, 3x3) on AVX2 (conv2d_winograd_avx2.cc, exact
// within the bounds of backends/winograd_f23.h): declines every other layer and operand ranges
// beyond those bounds; ahead of conv2d_i16i32__avx2 in the table.
KernelStatus conv2d_i16i32__avx2_winograd(const KernelCall& call);
KernelStatus dense_i8i32__amx(const KernelCall& call);
KernelStatus dense_i8i32__avx512vnni(const KernelCall& call);
KernelStatus dense_i16i32__avx2(const KernelCall& call);

// Their KernelEntry::prepack functions (kernel_abi.h): the weights in the narrow or AMX layout
// the kernel's fastest path packs them into (gemm_plan.h: PrepackHeader).
size_t conv2d_i8i32__amx_prepack(const TensorView& w, const void* params, void* out, size_t cap);
size_t conv2d_i8i32__avx512vnni_prepack(const TensorView& w, const void* params, void* out,
                                        size_t cap);
size_t conv2d_i16i32__avx2_prepack(const TensorView& w, const void* params, void* out, size_t cap);
size_t conv2d_i16i32__avx2_winograd_prepack(const TensorView& w, const void* params, void* out,
                                            size_t cap);
size_t dense_i8i32__amx_prepack(const TensorView& w, const void* params, void* out, size_t cap);
size_t dense_i8i32__avx512vnni_prepack(const TensorView& w, const void* params, void* out,
                                       size_t cap);
size_t dense_i16i32__avx2_prepack(const TensorView& w, const void* params, void* out, size_t cap);

// KernelEntry::suits of the AMX dense entries: false for a data input (inputs[0]) of one row,
// where the AVX-512 VNNI entry is faster (gemm_plan.cc). Compiled without ISA flags: it runs
// when a session is made, on any CPU.
bool dense_amx_suits(const TensorView* inputs, int32_t num_inputs);
// KernelEntry::suits of the AMX conv2d entry: false for fewer than 16 input channels a group
// (the stem of an image model), where the AVX-512 VNNI entry is faster (gemm_plan.cc).
bool conv2d_amx_suits(const TensorView* inputs, int32_t num_inputs);

// The AMX kernels with every tile instruction emulated in software (AVX-512 VNNI suffices):
// for tests of the AMX packing and tiling on machines without AMX. Not in the table.
KernelStatus conv2d_i8i32__amx_emulated(const KernelCall& call);
KernelStatus dense_i8i32__amx_emulated(const KernelCall& call);
size_t conv2d_i8i32__amx_emulated_prepack(const TensorView& w, const void* params, void* out,
                                          size_t cap);
size_t dense_i8i32__amx_emulated_prepack(const TensorView& w, const void* params, void* out,
                                         size_t cap);

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
