// float32 conv2d and dense on AVX2, bit-identical to the scalar reference (float_nn.inc; compiled
// with -mavx2 for this file only, no FMA).
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "params/nn.h"
#include "simd_kernels.h"

namespace cvm {
namespace kernel {
namespace simd {
namespace {

// clang-format off
#include "kernel_loops.inc"
// clang-format on

// Eight float32 lanes; masks are all-ones/all-zeros lanes.
struct F {
  using V = __m256;
  using M = __m256i;
  static constexpr int kLanes = 8;
  static V zero() { return _mm256_setzero_ps(); }
  static V splat(float v) { return _mm256_set1_ps(v); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  // Lanes of m from the 8 floats at byte address `base`; 0 elsewhere, which is never read.
  static V load_masked(uintptr_t base, M m) {
    return _mm256_maskload_ps(reinterpret_cast<const float*>(base), m);
  }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static void store_first(float* p, V v, int n) {
    _mm256_maskstore_ps(p, mask_bits((1u << n) - 1), v);
  }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  // acc + p in the lanes of m; acc's bits unchanged elsewhere.
  static V add_where(V acc, V p, M m) {
    return _mm256_blendv_ps(acc, _mm256_add_ps(acc, p), _mm256_castsi256_ps(m));
  }
  static V canonical_nan(V v) {
    return _mm256_blendv_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)),
                            _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
  static M mask_bits(uint32_t bits) {
    const __m256i lane = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256i b = _mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits)), lane);
    return _mm256_cmpeq_epi32(b, lane);
  }
};

// clang-format off
#include "float_nn.inc"
// clang-format on

}  // namespace

void conv2d_f32__avx2(const KernelCall& call) { f_conv2d(call); }
void dense_f32__avx2(const KernelCall& call) { f_dense(call); }

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
