// Small SIMD128 helpers shared by the wasm kernel sources (all compiled with -msimd128).
#pragma once

#include <wasm_simd128.h>

#include <cstdint>
#include <cstring>

namespace cvm {
namespace kernel {
namespace wasm {

// Four int32 at p (any alignment).
inline v128_t load4(const int32_t* p) { return wasm_v128_load(p); }
inline void store4(int32_t* p, v128_t v) { wasm_v128_store(p, v); }

// p[0], p[S], p[2S], p[3S]. Reads only those elements' span: the stride-2 form loads p[0..3]
// and p[3..6], never p[7], so a window ending at the last element of an array stays inside it.
template <int S>
inline v128_t load4_strided(const int32_t* p, int64_t step) {
  if constexpr (S == 1) {
    return wasm_v128_load(p);
  } else if constexpr (S == 2) {
    return wasm_i32x4_shuffle(wasm_v128_load(p), wasm_v128_load(p + 3), 0, 2, 5, 7);
  } else {
    return wasm_i32x4_make(p[0], p[step], p[2 * step], p[3 * step]);
  }
}

// i32x4.shr_s / i32x4.shl by a run-time count (taken modulo 32). LLVM 14 hoists the count's
// splat out of a loop and then lowers the shift as four extract_lane / i32.shr_s / replace_lane
// sequences; an opaque copy of the count made next to the shift keeps the splat in the loop
// body, where it lowers to the one instruction.
inline v128_t shr_var(v128_t v, uint32_t count) {
  __asm__ volatile("" : "+r"(count));
  return wasm_i32x4_shr(v, count);
}
inline v128_t shl_var(v128_t v, uint32_t count) {
  __asm__ volatile("" : "+r"(count));
  return wasm_i32x4_shl(v, count);
}

// Lane sum with two's-complement wrapping (lane order is irrelevant modulo 2^32).
inline uint32_t hsum(v128_t v) {
  v = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_i32x4_add(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return static_cast<uint32_t>(wasm_i32x4_extract_lane(v, 0));
}

inline int32_t hmax(v128_t v) {
  v = wasm_i32x4_max(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_i32x4_max(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_i32x4_extract_lane(v, 0);
}

inline int32_t hmin(v128_t v) {
  v = wasm_i32x4_min(v, wasm_i32x4_shuffle(v, v, 2, 3, 0, 1));
  v = wasm_i32x4_min(v, wasm_i32x4_shuffle(v, v, 1, 0, 3, 2));
  return wasm_i32x4_extract_lane(v, 0);
}

// The int16 halves of a's and b's lanes interleaved: lanes (a0, b0, a1, b1, ...). Exact when
// every lane of a and b is in int16 range (the low half of such an int32 is its value).
inline v128_t interleave_low16(v128_t a, v128_t b) {
  return wasm_i8x16_shuffle(a, b, 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29);
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
