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

void conv2d_i8i32__amx(const KernelCall& call);         // AMX tdpbssd; needs AVX-512 VNNI too
void conv2d_i8i32__avx512vnni(const KernelCall& call);  // AVX-512 vpdpbusd
void conv2d_i16i32__avx2(const KernelCall& call);       // AVX2 vpmaddwd
void dense_i8i32__amx(const KernelCall& call);
void dense_i8i32__avx512vnni(const KernelCall& call);
void dense_i16i32__avx2(const KernelCall& call);

// Their KernelEntry::prepack functions (kernel_abi.h): the weights in the narrow or AMX layout
// the kernel's fastest path packs them into (gemm_plan.h: PrepackHeader).
size_t conv2d_i8i32__amx_prepack(const TensorView& w, const void* params, void* out, size_t cap);
size_t conv2d_i8i32__avx512vnni_prepack(const TensorView& w, const void* params, void* out,
                                        size_t cap);
size_t conv2d_i16i32__avx2_prepack(const TensorView& w, const void* params, void* out, size_t cap);
size_t dense_i8i32__amx_prepack(const TensorView& w, const void* params, void* out, size_t cap);
size_t dense_i8i32__avx512vnni_prepack(const TensorView& w, const void* params, void* out,
                                       size_t cap);
size_t dense_i16i32__avx2_prepack(const TensorView& w, const void* params, void* out, size_t cap);

// The AMX kernels with every tile instruction emulated in software (AVX-512 VNNI suffices):
// for tests of the AMX packing and tiling on machines without AMX. Not in the table.
void conv2d_i8i32__amx_emulated(const KernelCall& call);
void dense_i8i32__amx_emulated(const KernelCall& call);
size_t conv2d_i8i32__amx_emulated_prepack(const TensorView& w, const void* params, void* out,
                                          size_t cap);
size_t dense_i8i32__amx_emulated_prepack(const TensorView& w, const void* params, void* out,
                                         size_t cap);

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
