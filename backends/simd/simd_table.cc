// The x86 SIMD backend's kernel table: one line per kernel, with the CPU features it needs.
#include "kernel_abi.h"
#include "simd_kernels.h"

namespace cvm {
namespace kernel {
namespace {

using E = ElemType;
namespace s = simd;
constexpr uint32_t kAvx512 = kCpuAvx512f | kCpuAvx512bw;

// Entries for one dtype come widest ISA first: the registry takes the first usable one.
#define CVM_INT_ADDSUB(T) \
  {"add", E::T, "avx512", s::add_avx512<E::T>, kAvx512}, \
  {"add", E::T, "avx2", s::add_avx2<E::T>, kCpuAvx2},    \
  {"sub", E::T, "avx512", s::sub_avx512<E::T>, kAvx512}, \
  {"sub", E::T, "avx2", s::sub_avx2<E::T>, kCpuAvx2},

const KernelEntry kEntries[] = {
    CVM_INT_ADDSUB(kInt8) CVM_INT_ADDSUB(kInt16) CVM_INT_ADDSUB(kInt32) CVM_INT_ADDSUB(kInt64)
    CVM_INT_ADDSUB(kUInt8) CVM_INT_ADDSUB(kUInt16) CVM_INT_ADDSUB(kUInt32) CVM_INT_ADDSUB(kUInt64)
};
#undef CVM_INT_ADDSUB

}  // namespace

extern const BackendTable kSimdBackend = {
    "simd", kEntries, sizeof(kEntries) / sizeof(kEntries[0]), simd::cpu_features, 1 /* kDLCPU */};

}  // namespace kernel
}  // namespace cvm
