// float32/int32 constant pad on AVX2: contiguous rows as one copy and 8-lane fills (bits only).
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "pad_rows.h"
#include "simd_kernels.h"

namespace cvm {
namespace kernel {
namespace simd {

void pad_b32__avx2(const KernelCall& call) {
  const uint32_t value = static_cast<const PadParams*>(call.params)->value_bits;
  auto fill = [](char* y, int64_t n, uint32_t v) {
    const __m256i lanes = _mm256_set1_epi32(static_cast<int32_t>(v));
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + 4 * i), lanes);
    for (; i < n; ++i) std::memcpy(y + 4 * i, &v, 4);
  };
  for_each_pad_row(call, [&](const PadRow& r) { pad_row_runs(r, value, fill); });
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
