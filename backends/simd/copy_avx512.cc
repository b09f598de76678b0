// Same-dtype copy of 4-byte elements, and of int8 activation views, on AVX-512: rows that gather
// every 2nd, 3rd or 4th input element (an NHWC image's channels into NCHW planes) by two-table
// permutes, 16 at a time (bytes: K byte shuffles of 16-byte vectors); transposes of the last two
// dims (NCHW into NHWC) by 16 x 16 tiles in registers; other rows as the reference copies them
// (bits only, no arithmetic).
#include "immintrin_avx512.h"

#include <cstdint>
#include <cstring>

#include "copy_rows.h"
#include "simd_kernels.h"

namespace cvm {
namespace kernel {
namespace simd {
namespace {

// clang-format off
#include "kernel_loops.inc"
// clang-format on

constexpr int kLanes = 16;

// Lanes j of the result: element j * K of the 16 * K elements at `in` (K = 2, 3, 4).
template <int K>
__m512i gather_every(const char* in) {
  auto load = [in](int v) { return _mm512_loadu_si512(in + v * 64); };
  if constexpr (K == 2) {
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4,
                                          2, 0);
    return _mm512_permutex2var_epi32(load(0), even, load(1));
  } else if constexpr (K == 3) {
    // Lanes 0-10 from the first two vectors (elements 0, 3, ..., 30), then lanes 11-15 from
    // the third (elements 33, ..., 45: its lanes 1, 4, ..., 13), index 16 + lane.
    const __m512i first = _mm512_set_epi32(0, 0, 0, 0, 0, 30, 27, 24, 21, 18, 15, 12, 9, 6, 3, 0);
    const __m512i then = _mm512_set_epi32(29, 26, 23, 20, 17, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    return _mm512_permutex2var_epi32(_mm512_permutex2var_epi32(load(0), first, load(1)), then,
                                     load(2));
  } else {
    // Lanes 0-7 of each pair of vectors (elements 0, 4, ..., 28), then the low halves joined.
    const __m512i every4 = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 28, 24, 20, 16, 12, 8, 4, 0);
    const __m512i lo = _mm512_permutex2var_epi32(load(0), every4, load(1));
    const __m512i hi = _mm512_permutex2var_epi32(load(2), every4, load(3));
    return _mm512_shuffle_i64x2(lo, hi, 0x44);  // 128-bit blocks lo 0, 1, hi 0, 1
  }
}

// Bytes j of the result: byte j * K of the 16 * K bytes at `in` (K = 2, 3, 4).
template <int K>
__m128i gather_every_byte(const char* in) {
  static constexpr ByteGather<K> kIndex = byte_gather<K>();
  __m128i out = _mm_setzero_si128();
  for (int v = 0; v < K; ++v) {
    const __m128i index = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kIndex.index[v]));
    const __m128i part = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + v * 16));
    out = _mm_or_si128(out, _mm_shuffle_epi8(part, index));
  }
  return out;
}

// ---- transposes of the last two dims (copy_transposes_tiles) ----

// rows[j] lane r = rows[r] lane j before, for 16 rows of 16 int32: pairs and quads within each
// 128-bit block (after them u[4i + k], block b, holds column 4b + k of rows 4i .. 4i + 3), then
// the blocks of four row groups.
void transpose_16x16_b32(__m512i (&rows)[16]) {
  __m512i t[16], u[16];
  unpack_stage(rows, t, 1, [](__m512i a, __m512i b) { return _mm512_unpacklo_epi32(a, b); },
               [](__m512i a, __m512i b) { return _mm512_unpackhi_epi32(a, b); });
  unpack_stage(t, u, 2, [](__m512i a, __m512i b) { return _mm512_unpacklo_epi64(a, b); },
               [](__m512i a, __m512i b) { return _mm512_unpackhi_epi64(a, b); });
  for (int k = 0; k < 4; ++k) {
    const __m512i v0 = _mm512_shuffle_i32x4(u[k], u[4 + k], 0x88);  // blocks 0, 2 of each
    const __m512i v1 = _mm512_shuffle_i32x4(u[k], u[4 + k], 0xDD);  // blocks 1, 3
    const __m512i w0 = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0x88);
    const __m512i w1 = _mm512_shuffle_i32x4(u[8 + k], u[12 + k], 0xDD);
    rows[k] = _mm512_shuffle_i32x4(v0, w0, 0x88);
    rows[4 + k] = _mm512_shuffle_i32x4(v1, w1, 0x88);
    rows[8 + k] = _mm512_shuffle_i32x4(v0, w0, 0xDD);
    rows[12 + k] = _mm512_shuffle_i32x4(v1, w1, 0xDD);
  }
}

// The same for 16 rows of 16 bytes: four unpack stages, of bytes, pairs, quads and eights.
void transpose_16x16_b8(__m128i (&rows)[16]) {
  __m128i t[16];
  unpack_stage(rows, t, 1, [](__m128i a, __m128i b) { return _mm_unpacklo_epi8(a, b); },
               [](__m128i a, __m128i b) { return _mm_unpackhi_epi8(a, b); });
  unpack_stage(t, rows, 2, [](__m128i a, __m128i b) { return _mm_unpacklo_epi16(a, b); },
               [](__m128i a, __m128i b) { return _mm_unpackhi_epi16(a, b); });
  unpack_stage(rows, t, 4, [](__m128i a, __m128i b) { return _mm_unpacklo_epi32(a, b); },
               [](__m128i a, __m128i b) { return _mm_unpackhi_epi32(a, b); });
  unpack_stage(t, rows, 8, [](__m128i a, __m128i b) { return _mm_unpacklo_epi64(a, b); },
               [](__m128i a, __m128i b) { return _mm_unpackhi_epi64(a, b); });
}

// A tile of transpose_tile_rows: na <= 16 elements of each of nb <= 16 input rows, transposed,
// na output rows of nb elements (masked loads and stores: nothing past them is touched).
void transpose_tile_b32(char* out, int64_t out_step, const char* in, int64_t in_step, int na,
                        int nb) {
  const __mmask16 load_mask = static_cast<__mmask16>((1u << na) - 1);
  const __mmask16 store_mask = static_cast<__mmask16>((1u << nb) - 1);
  __m512i rows[16];
  for (int r = 0; r < 16; ++r) {
    rows[r] = r < nb ? _mm512_maskz_loadu_epi32(load_mask, in + r * in_step * 4)
                     : _mm512_setzero_si512();
  }
  transpose_16x16_b32(rows);
  for (int j = 0; j < na; ++j) {
    _mm512_mask_storeu_epi32(out + j * out_step * 4, store_mask, rows[j]);
  }
}
void transpose_tile_b8(char* out, int64_t out_step, const char* in, int64_t in_step, int na,
                       int nb) {
  const __mmask64 load_mask = (__mmask64{1} << na) - 1;
  const __mmask64 store_mask = (__mmask64{1} << nb) - 1;
  __m128i rows[16];
  for (int r = 0; r < 16; ++r) {
    const __m512i row = r < nb ? _mm512_maskz_loadu_epi8(load_mask, in + r * in_step)
                               : _mm512_setzero_si512();
    rows[r] = _mm512_castsi512_si128(row);
  }
  transpose_16x16_b8(rows);
  for (int j = 0; j < na; ++j) {
    _mm512_mask_storeu_epi8(out + j * out_step, store_mask, _mm512_castsi128_si512(rows[j]));
  }
}

// A row of the copy (copy_rows.h): 16 outputs a vector. The gathers are templates instantiated
// here with this file's lambdas only, so no other ISA's build of them can stand in for them.
void copy_row_b32(char* const* ptr, int64_t n, const int64_t* step) {
  copy_row<4, kLanes>(ptr, n, step, [](char* out, const char* in, auto k) {
    _mm512_storeu_si512(out, gather_every<decltype(k)::value>(in));
  });
}
void copy_row_b8(char* const* ptr, int64_t n, const int64_t* step) {
  copy_row<1, 16>(ptr, n, step, [](char* out, const char* in, auto k) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), gather_every_byte<decltype(k)::value>(in));
  });
}

}  // namespace

KernelStatus copy_bits__avx512(const KernelCall& call) {
  const int size = copy_elem_size(call);
  if (size == 0) return KernelStatus::kDeclined;
  const TensorView &out = call.outputs[0], &in = call.inputs[0];
  TileDims t;
  if (copy_transposes_tiles(call, &t)) {
    const int64_t rows = transpose_tile_row_count<16>(out, t);
    parallel_items(call, rows, 16 * out.shape[t.across], [&](int64_t begin, int64_t end) {
      if (size == 4) {
        transpose_tile_rows<4, 16>(out, in, t, begin, end, transpose_tile_b32);
      } else {
        transpose_tile_rows<1, 16>(out, in, t, begin, end, transpose_tile_b8);
      }
    });
    return KernelStatus::kDone;
  }
  const TensorView* views[2] = {&out, &in};
  parallel_items(call, numel_of(out), 1, [&](int64_t begin, int64_t end) {
    for_each_row_range(views, begin, end, size == 4 ? copy_row_b32 : copy_row_b8);
  });
  return KernelStatus::kDone;
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
