// Detects the x86 features the SIMD kernels need, once per process, honouring CVMRT_ISA.
#include <cpuid.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gemm_plan.h"
#include "simd_kernels.h"

namespace cvm {
namespace kernel {
namespace simd {
namespace {

// CPUID leaf/subleaf registers; all zero when the leaf is beyond the processor's maximum.
struct CpuidRegs {
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

CpuidRegs cpuid(uint32_t leaf, uint32_t subleaf) {
  CpuidRegs r;
  if (static_cast<uint32_t>(__get_cpuid_max(0, nullptr)) < leaf) return r;
  __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
  return r;
}

// XCR0: which register states the operating system saves (only valid when OSXSAVE is set).
uint64_t xcr0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t{hi} << 32) | lo;
}

bool bit(uint32_t reg, int n) { return ((reg >> n) & 1u) != 0; }

// Features from CPUID directly (bit positions from the Intel SDM, Vol. 2A, CPUID), each counted
// only when the OS also saves the state it uses: YMM for AVX2/FMA/AVX-VNNI, opmask and ZMM for
// AVX-512, the tile state for AMX. Compiler builtins differ in which names they know (clang 14
// rejects "avxvnni" and "amx-*"), so none are used.
uint32_t detect() {
  const CpuidRegs l1 = cpuid(1, 0);
  if (!bit(l1.ecx, 27)) return kCpuNone;  // OSXSAVE: no XGETBV, no AVX state
  const uint64_t xcr = xcr0();
  const bool ymm = (xcr & 0x6) == 0x6;           // SSE + AVX state
  const bool zmm = ymm && (xcr & 0xE0) == 0xE0;  // opmask + ZMM_Hi256 + Hi16_ZMM
  const bool tiles = (xcr & 0x60000) == 0x60000;  // XTILECFG + XTILEDATA
  const CpuidRegs l7 = cpuid(7, 0);
  const CpuidRegs l7s1 = l7.eax >= 1 ? cpuid(7, 1) : CpuidRegs{};
  uint32_t f = kCpuNone;
  if (ymm && bit(l1.ecx, 28)) {  // AVX
    if (bit(l7.ebx, 5)) f |= kCpuAvx2;
    if (bit(l1.ecx, 12)) f |= kCpuFma;
    if (bit(l7s1.eax, 4)) f |= kCpuAvxVnni;
  }
  if (zmm) {
    if (bit(l7.ebx, 16)) f |= kCpuAvx512f;
    if (bit(l7.ebx, 30)) f |= kCpuAvx512bw;
    if (bit(l7.ebx, 31)) f |= kCpuAvx512vl;
    if (bit(l7.ecx, 11)) f |= kCpuAvx512vnni;
  }
  if (tiles) {
    if (bit(l7.edx, 24)) f |= kCpuAmxTile;
    if (bit(l7.edx, 25)) f |= kCpuAmxInt8;
  }
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
