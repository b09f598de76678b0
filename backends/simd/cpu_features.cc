// Detects the x86 features the SIMD kernels need, once per process, honouring CVMRT_ISA.
#include <cstdlib>
#include <cstring>

#include "simd_kernels.h"

namespace cvm {
namespace kernel {
namespace simd {
namespace {

uint32_t detect() {
  uint32_t f = kCpuNone;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) f |= kCpuAvx2;
  if (__builtin_cpu_supports("fma")) f |= kCpuFma;
  if (__builtin_cpu_supports("avx512f")) f |= kCpuAvx512f;
  if (__builtin_cpu_supports("avx512bw")) f |= kCpuAvx512bw;
  if (__builtin_cpu_supports("avx512vl")) f |= kCpuAvx512vl;
  if (__builtin_cpu_supports("avx512vnni")) f |= kCpuAvx512vnni;
  if (__builtin_cpu_supports("avxvnni")) f |= kCpuAvxVnni;
  if (__builtin_cpu_supports("amx-tile")) f |= kCpuAmxTile;
  if (__builtin_cpu_supports("amx-int8")) f |= kCpuAmxInt8;
  return f;
}

// CVMRT_ISA caps the level: scalar < avx2 < avx512 < amx. Unknown values leave it uncapped.
uint32_t cap_from_env(uint32_t f) {
  const char* isa = std::getenv("CVMRT_ISA");
  if (isa == nullptr || *isa == '\0') return f;
  const uint32_t avx2 = kCpuAvx2 | kCpuFma | kCpuAvxVnni;
  const uint32_t avx512 = avx2 | kCpuAvx512f | kCpuAvx512bw | kCpuAvx512vl | kCpuAvx512vnni;
  if (std::strcmp(isa, "scalar") == 0) return kCpuNone;
  if (std::strcmp(isa, "avx2") == 0) return f & avx2;
  if (std::strcmp(isa, "avx512") == 0) return f & avx512;
  return f;
}

}  // namespace

uint32_t cpu_features() {
  static const uint32_t features = cap_from_env(detect());
  return features;
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
