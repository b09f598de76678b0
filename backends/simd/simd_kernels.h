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

uint32_t cpu_features();           // CpuFeature bits of this machine, capped by CVMRT_ISA
uint32_t detected_cpu_features();  // the same before the cap
const char* isa_cap();             // the CVMRT_ISA level in force ("" when uncapped)
const char* isa_level_name(int level);  // CVMRT_ISA level `level` (0 = lowest), else null

template <ElemType T>
KernelStatus add_avx2(const KernelCall& call);
template <ElemType T>
KernelStatus sub_avx2(const KernelCall& call);
template <ElemType T>
KernelStatus add_avx512(const KernelCall& call);
template <ElemType T>
KernelStatus sub_avx512(const KernelCall& call);

// int32 elementwise (elementwise_<isa>.cc; scalar equivalents in backends/scalar): mul, div
// and maximum are binary (broadcast inputs have stride 0); relu, and clip / cvm_right_shift /
// cvm_left_shift with CvmClampParams, are unary and may run in place.
// max_pool2d / upsampling (spatial_<isa>.cc): MaxPool2dParams / UpsamplingParams.
// reduce_sum / reduce_max (int32) and reduce_sum (float32) (reduce_<isa>.cc): ReduceParams,
// view layout of params/reduce.h.
#define CVM_DECLARE_SIMD_KERNEL(name)              \
  KernelStatus name##_avx2(const KernelCall& call); \
  KernelStatus name##_avx512(const KernelCall& call);
CVM_DECLARE_SIMD_KERNEL(mul_i32)
CVM_DECLARE_SIMD_KERNEL(maximum_i32)
CVM_DECLARE_SIMD_KERNEL(div_i32)
CVM_DECLARE_SIMD_KERNEL(relu_i32)
CVM_DECLARE_SIMD_KERNEL(clip_i32)
CVM_DECLARE_SIMD_KERNEL(cvm_right_shift_i32)
CVM_DECLARE_SIMD_KERNEL(cvm_left_shift_i32)
CVM_DECLARE_SIMD_KERNEL(max_pool2d_i32)
CVM_DECLARE_SIMD_KERNEL(upsampling_i32)
CVM_DECLARE_SIMD_KERNEL(reduce_sum_i32)
CVM_DECLARE_SIMD_KERNEL(reduce_max_i32)
CVM_DECLARE_SIMD_KERNEL(reduce_sum_f32)
#undef CVM_DECLARE_SIMD_KERNEL

// float32 conv2d / dense (float_nn_<isa>.cc, template float_nn.inc): Conv2dParams / DenseParams,
// bit-identical to backends/scalar/float_nn.cc; output columns (conv2d) or units (dense) in the
// lanes. dense packs its weight into the params' scratch when it has more than 4 rows (else, or
// when none is lent, slices of it on the stack).
KernelStatus conv2d_f32__avx2(const KernelCall& call);
KernelStatus dense_f32__avx2(const KernelCall& call);
KernelStatus conv2d_f32__avx512(const KernelCall& call);
KernelStatus dense_f32__avx512(const KernelCall& call);

// The other float32 operators, bit-identical to backends/scalar/float_nn.cc: relu, leaky_relu
// (LeakyReluParams), clamp (ClampParams), sigmoid and softmax (SoftmaxParams) (float_act_<isa>.cc,
// template float_act.inc); max_pool2d (MaxPool2dParams) and avg_pool2d (AvgPool2dParams)
// (float_pool_<isa>.cc, template float_pool.inc).
#define CVM_DECLARE_SIMD_F32_KERNEL(name)                \
  KernelStatus name##_f32__avx2(const KernelCall& call); \
  KernelStatus name##_f32__avx512(const KernelCall& call);
CVM_DECLARE_SIMD_F32_KERNEL(relu)
CVM_DECLARE_SIMD_F32_KERNEL(leaky_relu)
CVM_DECLARE_SIMD_F32_KERNEL(clamp)
CVM_DECLARE_SIMD_F32_KERNEL(sigmoid)
CVM_DECLARE_SIMD_F32_KERNEL(softmax)
CVM_DECLARE_SIMD_F32_KERNEL(max_pool2d)
CVM_DECLARE_SIMD_F32_KERNEL(avg_pool2d)
#undef CVM_DECLARE_SIMD_F32_KERNEL

// Same-dtype copy of any 4-byte element type, or of int8 views on both sides (copy_avx512.cc):
// rows gathering every 2nd, 3rd or 4th input element by permutes (bytes: shuffles), the rest
// as the reference (bits only).
KernelStatus copy_bits__avx512(const KernelCall& call);

// Constant pad of any 4-byte element type (PadParams; pad_avx2.cc, walk in backends/pad_rows.h):
// bits are moved, never converted, so every backend's result is the reference's.
KernelStatus pad_b32__avx2(const KernelCall& call);

// `bytes` of the call's scratch (null when none is lent), for the float32 kernels; compiled
// without ISA flags (simd_table.cc).
void* f32_scratch(const Scratch* scratch, int64_t bytes);

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
