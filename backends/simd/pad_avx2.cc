// float32/int32 constant pad on AVX2: contiguous rows as one copy and 8-lane fills (bits only).
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "pad_rows.h"
#include "simd_kernels.h"

namespace cvm {
namespace kernel {
namespace simd {

KernelStatus pad_b32__avx2(const KernelCall& call) {
  const auto value = static_cast<int32_t>(static_cast<const PadParams*>(call.params)->value_bits);
  const __m256i lanes = _mm256_set1_epi32(value);
  pad_b32_with<8>(call, [&](char* y) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(y), lanes); });
  return KernelStatus::kDone;
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
