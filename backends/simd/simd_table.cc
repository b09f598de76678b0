// The x86 SIMD backend's kernel table: each kernel's name, op, dtype and the CPU features it needs.
#include "kernel_abi.h"
#include "simd_kernels.h"
#include "gemm_kernels.h"  // conv2d / dense (gemm)
#include "winograd_f23.h"   // the Winograd entries' suits

namespace cvm {
namespace kernel {
namespace {

using E = ElemType;
namespace s = simd;
constexpr uint32_t kAvx512 = kCpuAvx512f | kCpuAvx512bw;
constexpr uint32_t kGemmVnni = kAvx512 | kCpuAvx512vnni;           // conv2d / dense (gemm)
constexpr uint32_t kGemmAmx = kGemmVnni | kCpuAmxTile | kCpuAmxInt8;  // conv2d / dense (gemm)

// An entry's name, "<op>_<dtype>__<isa>" (kernel_abi.h), from bare tokens:
// CVM_NAME(add, i32, avx512) is "add_i32__avx512".
#define CVM_NAME(op, dt, isa) #op "_" #dt "__" #isa

// Entries for one op and dtype come widest ISA first: a node's chain tries them in this order
// (a kernel that declines a call passes it to the next), then the scalar reference.

// add and sub of an integer type: s::add_<isa><T>, s::sub_<isa><T> (elementwise_*); the int32
// ones apply a fused clamp run's stage when one is passed (KernelEntry::applies_clamp), and
// then take int8 activation views when that clamp lies within int8 (takes_int8_activations).
#define CVM_INT_ADDSUB_ENTRY(op, T, dt, isa, features)                                        \
  {CVM_NAME(op, dt, isa), #op, E::T, s::op##_##isa<E::T>, features, nullptr, nullptr,         \
   E::T == E::kInt32, false, E::T == E::kInt32},
#define CVM_INT_ADDSUB(T, dt)                         \
  CVM_INT_ADDSUB_ENTRY(add, T, dt, avx512, kAvx512)   \
  CVM_INT_ADDSUB_ENTRY(add, T, dt, avx2, kCpuAvx2)    \
  CVM_INT_ADDSUB_ENTRY(sub, T, dt, avx512, kAvx512)   \
  CVM_INT_ADDSUB_ENTRY(sub, T, dt, avx2, kCpuAvx2)

// One op and dtype on both ISAs: s::<op>_<dt>_<isa> (elementwise_*, spatial_*, reduce_*).
#define CVM_BOTH_ISAS(op, T, dt)                                            \
  {CVM_NAME(op, dt, avx512), #op, E::T, s::op##_##dt##_avx512, kAvx512}, \
  {CVM_NAME(op, dt, avx2), #op, E::T, s::op##_##dt##_avx2, kCpuAvx2},
// The same for an int32 op whose kernels also take int8 activation views, every view of a call
// alike (KernelEntry::takes_int8_activations: elementwise_rows.inc's map_int32).
#define CVM_BOTH_ISAS_INT8(op)                                                                  \
  {CVM_NAME(op, i32, avx512), #op, E::kInt32, s::op##_i32_avx512, kAvx512, nullptr, nullptr,   \
   false, false, true},                                                                         \
  {CVM_NAME(op, i32, avx2), #op, E::kInt32, s::op##_i32_avx2, kCpuAvx2, nullptr, nullptr, false, \
   false, true},

// A float32 op on both ISAs: the kernel is named as its entry, s::<op>_f32__<isa> (float_*).
#define CVM_F32_BOTH_ISAS(op)                                                 \
  {CVM_NAME(op, f32, avx512), #op, E::kFloat32, s::op##_f32__avx512, kAvx512}, \
  {CVM_NAME(op, f32, avx2), #op, E::kFloat32, s::op##_f32__avx2, kCpuAvx2},

// An int32 conv2d / dense (gemm) kernel, its weight packer and shape preference (or nullptr),
// named by its operand types (e.g. i8i32: int8 lanes, int32 sums): s::<op>_<dt>__<isa> and
// s::<op>_<dt>__<isa>_prepack; then KernelEntry::applies_clamp, applies_channel_scale and
// takes_int8_activations.
#define CVM_GEMM(op, dt, isa, features, suits, clamp, scale, int8)          \
  {CVM_NAME(op, dt, isa), #op, E::kInt32, s::op##_##dt##__##isa, features, \
   s::op##_##dt##__##isa##_prepack, suits, clamp, scale, int8},

const KernelEntry kEntries[] = {
    // ---- integer add / sub (elementwise_*) ----
    CVM_INT_ADDSUB(kInt8, i8)
    CVM_INT_ADDSUB(kInt16, i16)
    CVM_INT_ADDSUB(kInt32, i32)
    CVM_INT_ADDSUB(kInt64, i64)
    CVM_INT_ADDSUB(kUInt8, u8)
    CVM_INT_ADDSUB(kUInt16, u16)
    CVM_INT_ADDSUB(kUInt32, u32)
    CVM_INT_ADDSUB(kUInt64, u64)
    // ---- int32 elementwise, pooling/upsampling, reductions (elementwise_*, spatial_*,
    // reduce_*) ----
    CVM_BOTH_ISAS(mul, kInt32, i32)
    CVM_BOTH_ISAS(maximum, kInt32, i32)
    CVM_BOTH_ISAS(div, kInt32, i32)
    CVM_BOTH_ISAS_INT8(relu)
    CVM_BOTH_ISAS_INT8(clip)
    CVM_BOTH_ISAS_INT8(cvm_right_shift)
    CVM_BOTH_ISAS(cvm_left_shift, kInt32, i32)
    CVM_BOTH_ISAS_INT8(max_pool2d)
    CVM_BOTH_ISAS(upsampling, kInt32, i32)
    CVM_BOTH_ISAS(reduce_sum, kInt32, i32)
    CVM_BOTH_ISAS(reduce_max, kInt32, i32)
    CVM_BOTH_ISAS(reduce_sum, kFloat32, f32)
    // ---- int32 conv2d / dense (gemm: conv2d_*, dense_*) ----
    // Every conv2d and dense entry applies Conv2dParams::clamp / DenseParams::clamp as it
    // stores (the sixth argument); the conv2d entries Conv2dParams::scale after it (the
    // seventh). The GEMM entries take int8 activation views (the last: gemm_engine.inc's
    // load_act / store_out); Winograd declines them.
    // A group of under 16 input channels goes to the VNNI entry first (conv2d_amx_suits).
    CVM_GEMM(conv2d, i8i32, amx, kGemmAmx, s::conv2d_amx_suits, true, true, true)
    CVM_GEMM(conv2d, i8i32, avx512vnni, kGemmVnni, nullptr, true, true, true)
    // Winograd F(2x2, 3x3) takes 3x3 stride-1 layers on AVX2 machines, ahead of the GEMM (other
    // nodes move it behind: winograd_f23.h's suits).
    CVM_GEMM(conv2d, i16i32, avx2_winograd, kCpuAvx2, winograd_f23::suits, true, true, false)
    CVM_GEMM(conv2d, i16i32, avx2, kCpuAvx2, nullptr, true, true, true)
    // A one-row dense goes to the VNNI entry first (dense_amx_suits, gemm_plan.cc).
    CVM_GEMM(dense, i8i32, amx, kGemmAmx, s::dense_amx_suits, true, false, true)
    CVM_GEMM(dense, i8i32, avx512vnni, kGemmVnni, nullptr, true, false, true)
    CVM_GEMM(dense, i16i32, avx2, kCpuAvx2, nullptr, true, false, true)
    // ---- float32 conv2d / dense (float_nn_*) ----
    CVM_F32_BOTH_ISAS(conv2d)
    CVM_F32_BOTH_ISAS(dense)
    // ---- the other float32 operators (float_act_*, float_pool_*) ----
    CVM_F32_BOTH_ISAS(relu)
    CVM_F32_BOTH_ISAS(leaky_relu)
    CVM_F32_BOTH_ISAS(clamp)
    CVM_F32_BOTH_ISAS(sigmoid)
    CVM_F32_BOTH_ISAS(softmax)
    CVM_F32_BOTH_ISAS(max_pool2d)
    CVM_F32_BOTH_ISAS(avg_pool2d)
    // ---- same-dtype copy of 4-byte elements (copy_avx512.cc: one kernel, bits only); the
    // int32 entry takes int8 activation views too ----
    {CVM_NAME(copy, f32, avx512), "copy", E::kFloat32, s::copy_bits__avx512, kAvx512},
    {CVM_NAME(copy, i32, avx512), "copy", E::kInt32, s::copy_bits__avx512, kAvx512, nullptr,
     nullptr, false, false, true},
    // ---- constant pad of 4-byte elements (pad_avx2.cc: one kernel, bits only) ----
    {CVM_NAME(pad, f32, avx2), "pad", E::kFloat32, s::pad_b32__avx2, kCpuAvx2},
    {CVM_NAME(pad, i32, avx2), "pad", E::kInt32, s::pad_b32__avx2, kCpuAvx2},
};

#undef CVM_GEMM
#undef CVM_F32_BOTH_ISAS
#undef CVM_BOTH_ISAS
#undef CVM_INT_ADDSUB
#undef CVM_NAME

}  // namespace

namespace simd {

void* f32_scratch(const Scratch* scratch, int64_t bytes) {
  if (scratch == nullptr || scratch->acquire == nullptr || bytes <= 0) return nullptr;
  return scratch->acquire(scratch->ctx, bytes);
}

}  // namespace simd

extern const BackendTable kSimdBackend = {"simd",
                                          kEntries,
                                          sizeof(kEntries) / sizeof(kEntries[0]),
                                          simd::cpu_features,
                                          1 /* kDLCPU */,
                                          simd::detected_cpu_features,
                                          simd::isa_cap,
                                          simd::isa_level_name};

}  // namespace kernel
}  // namespace cvm
