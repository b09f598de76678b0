// The x86 SIMD backend's kernel table: one line per kernel, with the CPU features it needs.
#include "kernel_abi.h"
#include "simd_kernels.h"
#include "gemm_kernels.h"  // conv2d / dense (gemm)

namespace cvm {
namespace kernel {
namespace {

using E = ElemType;
namespace s = simd;
constexpr uint32_t kAvx512 = kCpuAvx512f | kCpuAvx512bw;
constexpr uint32_t kGemmVnni = kAvx512 | kCpuAvx512vnni;           // conv2d / dense (gemm)
constexpr uint32_t kGemmAmx = kGemmVnni | kCpuAmxTile | kCpuAmxInt8;  // conv2d / dense (gemm)

// Entries for one dtype come widest ISA first: the registry takes the first usable one.
#define CVM_INT_ADDSUB(T) \
  {"add", E::T, "avx512", s::add_avx512<E::T>, kAvx512}, \
  {"add", E::T, "avx2", s::add_avx2<E::T>, kCpuAvx2},    \
  {"sub", E::T, "avx512", s::sub_avx512<E::T>, kAvx512}, \
  {"sub", E::T, "avx2", s::sub_avx2<E::T>, kCpuAvx2},

const KernelEntry kEntries[] = {
    CVM_INT_ADDSUB(kInt8) CVM_INT_ADDSUB(kInt16) CVM_INT_ADDSUB(kInt32) CVM_INT_ADDSUB(kInt64)
    CVM_INT_ADDSUB(kUInt8) CVM_INT_ADDSUB(kUInt16) CVM_INT_ADDSUB(kUInt32) CVM_INT_ADDSUB(kUInt64)
    // ---- int32 elementwise, pooling/upsampling, reductions (elementwise_*, spatial_*,
    // reduce_*) ----
#define CVM_BOTH_ISAS(op, T, fn) \
  {op, E::T, "avx512", s::fn##_avx512, kAvx512}, {op, E::T, "avx2", s::fn##_avx2, kCpuAvx2},
    CVM_BOTH_ISAS("mul", kInt32, mul_i32)
    CVM_BOTH_ISAS("maximum", kInt32, maximum_i32)
    CVM_BOTH_ISAS("div", kInt32, div_i32)
    CVM_BOTH_ISAS("relu", kInt32, relu_i32)
    CVM_BOTH_ISAS("clip", kInt32, clip_i32)
    CVM_BOTH_ISAS("cvm_right_shift", kInt32, cvm_right_shift_i32)
    CVM_BOTH_ISAS("cvm_left_shift", kInt32, cvm_left_shift_i32)
    CVM_BOTH_ISAS("max_pool2d", kInt32, max_pool2d_i32)
    CVM_BOTH_ISAS("upsampling", kInt32, upsampling_i32)
    CVM_BOTH_ISAS("reduce_sum", kInt32, reduce_sum_i32)
    CVM_BOTH_ISAS("reduce_max", kInt32, reduce_max_i32)
    CVM_BOTH_ISAS("reduce_sum", kFloat32, reduce_sum_f32)
#undef CVM_BOTH_ISAS
    // ---- conv2d / dense (gemm) ----
    {"conv2d", E::kInt32, "amx", s::conv2d_i8i32__amx, kGemmAmx,
     s::conv2d_i8i32__amx_prepack},
    {"conv2d", E::kInt32, "avx512vnni", s::conv2d_i8i32__avx512vnni, kGemmVnni,
     s::conv2d_i8i32__avx512vnni_prepack},
    {"conv2d", E::kInt32, "avx2", s::conv2d_i16i32__avx2, kCpuAvx2,
     s::conv2d_i16i32__avx2_prepack},
    {"dense", E::kInt32, "amx", s::dense_i8i32__amx, kGemmAmx,
     s::dense_i8i32__amx_prepack},
    {"dense", E::kInt32, "avx512vnni", s::dense_i8i32__avx512vnni, kGemmVnni,
     s::dense_i8i32__avx512vnni_prepack},
    {"dense", E::kInt32, "avx2", s::dense_i16i32__avx2, kCpuAvx2,
     s::dense_i16i32__avx2_prepack},
    // ---- float32 conv2d / dense (float_nn_*) ----
    {"conv2d", E::kFloat32, "avx512", s::conv2d_f32__avx512, kAvx512},
    {"conv2d", E::kFloat32, "avx2", s::conv2d_f32__avx2, kCpuAvx2},
    {"dense", E::kFloat32, "avx512", s::dense_f32__avx512, kAvx512},
    {"dense", E::kFloat32, "avx2", s::dense_f32__avx2, kCpuAvx2},
    // ---- the other float32 operators (float_act_*, float_pool_*) ----
#define CVM_F32_BOTH_ISAS(op)                                  \
  {#op, E::kFloat32, "avx512", s::op##_f32__avx512, kAvx512}, \
  {#op, E::kFloat32, "avx2", s::op##_f32__avx2, kCpuAvx2},
    CVM_F32_BOTH_ISAS(relu)
    CVM_F32_BOTH_ISAS(leaky_relu)
    CVM_F32_BOTH_ISAS(clamp)
    CVM_F32_BOTH_ISAS(sigmoid)
    CVM_F32_BOTH_ISAS(softmax)
    CVM_F32_BOTH_ISAS(max_pool2d)
    CVM_F32_BOTH_ISAS(avg_pool2d)
#undef CVM_F32_BOTH_ISAS
    {"pad", E::kFloat32, "avx2", s::pad_b32__avx2, kCpuAvx2},
    {"pad", E::kInt32, "avx2", s::pad_b32__avx2, kCpuAvx2},
};
#undef CVM_INT_ADDSUB

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
