// AVX-512 kernels for wrapping integer add/sub (compiled with -mavx512f -mavx512bw for this file only).
#include <immintrin.h>

#include <cstring>

#include "simd_kernels.h"
#include "strided_loop.h"

namespace cvm {
namespace kernel {
namespace simd {
namespace {

struct Vec {
  static constexpr int kBytes = 64;
  static __m512i load(const void* p) { return _mm512_loadu_si512(p); }
  static void store(void* p, __m512i v) { _mm512_storeu_si512(p, v); }
  template <int Bits>
  static __m512i add(__m512i a, __m512i b) {
    if constexpr (Bits == 8) return _mm512_add_epi8(a, b);
    else if constexpr (Bits == 16) return _mm512_add_epi16(a, b);
    else if constexpr (Bits == 32) return _mm512_add_epi32(a, b);
    else return _mm512_add_epi64(a, b);
  }
  template <int Bits>
  static __m512i sub(__m512i a, __m512i b) {
    if constexpr (Bits == 8) return _mm512_sub_epi8(a, b);
    else if constexpr (Bits == 16) return _mm512_sub_epi16(a, b);
    else if constexpr (Bits == 32) return _mm512_sub_epi32(a, b);
    else return _mm512_sub_epi64(a, b);
  }
  template <int Bits, typename U>
  static __m512i splat(U v) {
    if constexpr (Bits == 8) return _mm512_set1_epi8(static_cast<char>(v));
    else if constexpr (Bits == 16) return _mm512_set1_epi16(static_cast<short>(v));
    else if constexpr (Bits == 32) return _mm512_set1_epi32(static_cast<int>(v));
    else return _mm512_set1_epi64(static_cast<long long>(v));
  }
};

#include "binary_int_rows.inc"

constexpr int bits_of(ElemType t) { return 8 * kElemSizes[static_cast<int>(t)]; }

}  // namespace

template <ElemType T>
void add_avx512(const KernelCall& call) { binary_int_rows<bits_of(T), false>(call); }
template <ElemType T>
void sub_avx512(const KernelCall& call) { binary_int_rows<bits_of(T), true>(call); }

#define CVM_INSTANTIATE(E)                                 \
  template void add_avx512<ElemType::E>(const KernelCall&); \
  template void sub_avx512<ElemType::E>(const KernelCall&);
CVM_INSTANTIATE(kInt8)
CVM_INSTANTIATE(kInt16)
CVM_INSTANTIATE(kInt32)
CVM_INSTANTIATE(kInt64)
CVM_INSTANTIATE(kUInt8)
CVM_INSTANTIATE(kUInt16)
CVM_INSTANTIATE(kUInt32)
CVM_INSTANTIATE(kUInt64)
#undef CVM_INSTANTIATE

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
