// Detects the x86 features the SIMD kernels need, once per process, honouring CVMRT_ISA.
#include <cstdlib>
#include <cstring>

#include "gemm_plan.h"
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

// The CVMRT_ISA levels, lowest first, and the features each allows (amx: everything).
struct IsaLevel {
  const char* name;
  uint32_t allowed;
};
constexpr uint32_t kAvx2Set = kCpuAvx2 | kCpuFma | kCpuAvxVnni;
constexpr uint32_t kAvx512Set =
    kAvx2Set | kCpuAvx512f | kCpuAvx512bw | kCpuAvx512vl | kCpuAvx512vnni;
constexpr IsaLevel kLevels[] = {
    {"scalar", kCpuNone}, {"avx2", kAvx2Set}, {"avx512", kAvx512Set}, {"amx", ~0u}};

// The level CVMRT_ISA names, or null when it is unset, empty or unknown (no cap).
const IsaLevel* cap_level() {
  const char* isa = std::getenv("CVMRT_ISA");
  if (isa == nullptr || *isa == '\0') return nullptr;
  for (const IsaLevel& l : kLevels) {
    if (std::strcmp(isa, l.name) == 0) return &l;
  }
  return nullptr;
}

}  // namespace

uint32_t detected_cpu_features() {
  static const uint32_t features = detect();
  return features;
}

// CVMRT_ISA caps the level: scalar < avx2 < avx512 < amx. Unknown values leave it uncapped.
// AMX counts only once the kernel lets this process use the tile state (gemm_plan.cc), which
// is asked only when the cap allows AMX.
uint32_t cpu_features() {
  static const uint32_t features = [] {
    const IsaLevel* cap = cap_level();
    uint32_t f = detected_cpu_features() & (cap ? cap->allowed : ~0u);
    constexpr uint32_t kAmx = kCpuAmxTile | kCpuAmxInt8;
    if ((f & kAmx) != 0 && ((f & kAmx) != kAmx || !amx_permitted())) f &= ~kAmx;
    return f;
  }();
  return features;
}

const char* isa_cap() {
  const IsaLevel* cap = cap_level();
  return cap ? cap->name : "";
}

const char* isa_level_name(int level) {
  constexpr int kCount = sizeof(kLevels) / sizeof(kLevels[0]);
  return level >= 0 && level < kCount ? kLevels[level].name : nullptr;
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
