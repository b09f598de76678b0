// float32 conv2d and dense on AVX-512, bit-identical to the scalar reference (float_nn.inc;
// compiled with -mavx512f -mavx512bw for this file only, no FMA). GCC 12 warns about the
// _mm512_undefined_*() placeholders inside its own AVX-512 intrinsics (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

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

// Sixteen float32 lanes; masks are mask registers.
struct F {
  using V = __m512;
  using M = __mmask16;
  static constexpr int kLanes = 16;
  static V zero() { return _mm512_setzero_ps(); }
  static V splat(float v) { return _mm512_set1_ps(v); }
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  // Lanes of m from the 16 floats at byte address `base`; 0 elsewhere, which is never read.
  static V load_masked(uintptr_t base, M m) {
    return _mm512_maskz_loadu_ps(m, reinterpret_cast<const void*>(base));
  }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static void store_first(float* p, V v, int n) {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), v);
  }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  // acc + p in the lanes of m; acc's bits unchanged elsewhere.
  static V add_where(V acc, V p, M m) { return _mm512_mask_add_ps(acc, m, acc, p); }
  static V canonical_nan(V v) {
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    return _mm512_mask_mov_ps(v, nan, _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
  }
  static M mask_bits(uint32_t bits) { return static_cast<__mmask16>(bits); }
};

// clang-format off
#include "float_nn.inc"
// clang-format on

}  // namespace

void conv2d_f32__avx512(const KernelCall& call) { f_conv2d(call); }
void dense_f32__avx512(const KernelCall& call) { f_dense(call); }

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
