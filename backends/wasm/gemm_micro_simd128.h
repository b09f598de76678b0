// The int16-pair GEMM's shared parts (gemm_simd128.cc, winograd_simd128.cc): pair packing, the
// micro-kernel, the prepack header, X's channel-pair copy and operand range scans.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernel_abi.h"
#include "simd128.h"

namespace cvm {
namespace kernel {
namespace wasm {

using idx = ptrdiff_t;  // wasm32's native width: no i64 arithmetic in the loops

inline int32_t pair16(int32_t lo, int32_t hi) {
  return static_cast<int32_t>((static_cast<uint32_t>(lo) & 0xFFFFu) | static_cast<uint32_t>(hi)
                                                                          << 16);
}

inline bool in16(int32_t v) { return v >= -32768 && v <= 32767; }

// ---------------------------------------------------------------------------------------------
// The micro-kernel: acc[i][v] += sum over k < kp of A row i times B quad v, A at a: [kp][AS] (AS =
// 4, or 1 for the single rows of dense), B at b: [kp][4 * NV]. In V8 on x64 one step is NV vector
// loads, MR vbroadcastss, MR * NV vpmaddwd and as many vpaddd, nothing else.

template <int MR, int NV>
inline void step(const int32_t* a, const int32_t* b, v128_t (&acc)[MR][NV]) {
  v128_t bv[NV];
  for (int v = 0; v < NV; ++v) bv[v] = wasm_v128_load(b + 4 * v);
  for (int i = 0; i < MR; ++i) {
    // Keeps each splat next to its uses (hoisted, the splats outgrow V8's 15 vector registers).
    __asm__ volatile("" ::: "memory");
    const v128_t av = wasm_v128_load32_splat(a + i);
    for (int v = 0; v < NV; ++v) {
      acc[i][v] = wasm_i32x4_add(acc[i][v], wasm_i32x4_dot_i16x8(bv[v], av));
    }
  }
}

// init: the sums to continue from ([MR][NV] vectors), or null to start from 0. The accumulators
// are locals (copied to out at the end): a reference parameter would live in memory, which the
// barrier in step() forces the compiler to store and reload every step. One step per iteration:
// V8's scheduler issues an iteration's loads first, and with two steps the 4 B vectors and 8
// splats next to the 8 accumulators outgrow its 15 vector registers (spills on every iteration;
// the 4 x 2 kernel ran at 30 GMAC/s in Node 20 on Zen 5, and at 45 with one step, 96 % of the
// measured dot peak).
template <int MR, int NV, int AS>
inline void micro(const int32_t* a, const int32_t* b, idx kp, const v128_t* init,
                  v128_t (&out)[MR][NV]) {
  v128_t acc[MR][NV];
  for (int i = 0; i < MR; ++i) {
    for (int v = 0; v < NV; ++v) acc[i][v] = init ? init[i * NV + v] : wasm_i32x4_splat(0);
  }
  const int32_t* const a_end = a + kp * AS;
  for (; a != a_end; a += AS, b += 4 * NV) step<MR, NV>(a, b, acc);
  for (int i = 0; i < MR; ++i) {
    for (int v = 0; v < NV; ++v) out[i][v] = acc[i][v];
  }
}

// The prepack header (64 bytes, so the lanes after it stay 64-byte aligned).
struct PackHeader {
  uint32_t magic;
  uint32_t pad_;
  int64_t d[7];
};
static_assert(sizeof(PackHeader) == 64, "header size");

// Where cell (r, col) of a packed copy of x lies in x: input row r * sh - ph, column
// col * sw - pw (sh, sw > 1: every sh-th row and sw-th column, as a strided 1x1 kernel reads).
struct CellMap {
  idx ph, pw, sh, sw;
};

// The zero-padded, channel-paired copy of image n of x, channels [c0, c0 + channels): cell
// (j, r, col) of dst ([pairs][xh][xw]) pairs channels c0 + 2j and c0 + 2j + 1 (the high half 0
// past an odd end) at the input cell `at` maps (r, col) to, 0 outside the input. x has unit
// inner stride.
void pack_channel_pairs(const TensorView& x, idx n, idx c0, idx channels, const CellMap& at,
                        idx xh, idx xw, int32_t* dst);

// lo = min(0, smallest element), hi = max(0, largest element) of an int32 view of up to 4
// dimensions (any strides); false for more dimensions.
bool view_range(const TensorView& v, int32_t& lo, int32_t& hi);

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
