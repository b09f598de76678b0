// Same-dtype copy of 4-byte elements, and of int8 activation views, on WebAssembly SIMD128: rows
// that gather every 2nd, 3rd or 4th input element (an NHWC image's channels into NCHW planes)
// by lane shuffles, 4 at a time (bytes: K swizzles, 16 at a time); transposes of the last two
// dims (NCHW into NHWC) by 4 x 4 tiles of lanes (bytes: 16 x 16); other rows as the reference
// copies them (bits only, no arithmetic).
#include <wasm_simd128.h>

#include <cstdint>
#include <cstring>

#include "copy_rows.h"
#include "strided_loop.h"
#include "wasm_kernels.h"

namespace cvm {
namespace kernel {
namespace wasm {
namespace {

// Lanes j of the result: element j * K of the 4 * K elements at `in` (K = 2, 3, 4).
template <int K>
v128_t gather_every(const char* in) {
  auto load = [in](int v) { return wasm_v128_load(in + v * 16); };
  if constexpr (K == 2) {
    return wasm_i32x4_shuffle(load(0), load(1), 0, 2, 4, 6);
  } else if constexpr (K == 3) {
    // Elements 0, 3 and 6 from the first two vectors, then 9 (lane 1 of the third).
    const v128_t first = wasm_i32x4_shuffle(load(0), load(1), 0, 3, 6, 6);
    return wasm_i32x4_shuffle(first, load(2), 0, 1, 2, 5);
  } else {
    const v128_t lo = wasm_i32x4_shuffle(load(0), load(1), 0, 4, 0, 4);
    const v128_t hi = wasm_i32x4_shuffle(load(2), load(3), 0, 4, 0, 4);
    return wasm_i32x4_shuffle(lo, hi, 0, 1, 4, 5);
  }
}

// Bytes j of the result: byte j * K of the 16 * K bytes at `in` (K = 2, 3, 4); a swizzle index
// past the vector gives 0.
template <int K>
v128_t gather_every_byte(const char* in) {
  static constexpr ByteGather<K> kIndex = byte_gather<K>();
  v128_t out = wasm_i32x4_splat(0);
  for (int v = 0; v < K; ++v) {
    out = wasm_v128_or(out, wasm_i8x16_swizzle(wasm_v128_load(in + v * 16),
                                               wasm_v128_load(kIndex.index[v])));
  }
  return out;
}

// ---- transposes of the last two dims (copy_transposes_tiles) ----

// A partial tile of transpose_tile_rows, element by element (bits only).
template <int Size>
void transpose_tile_elements(char* out, int64_t out_step, const char* in, int64_t in_step,
                             int na, int nb) {
  for (int j = 0; j < na; ++j) {
    for (int r = 0; r < nb; ++r) {
      std::memcpy(out + (j * out_step + r) * Size, in + (r * in_step + j) * Size, Size);
    }
  }
}

// A 4 x 4 tile of 4-byte elements: pairs, then halves.
void transpose_tile_b32(char* out, int64_t out_step, const char* in, int64_t in_step, int na,
                        int nb) {
  if (na < 4 || nb < 4) return transpose_tile_elements<4>(out, out_step, in, in_step, na, nb);
  v128_t r[4];
  for (int i = 0; i < 4; ++i) r[i] = wasm_v128_load(in + i * in_step * 4);
  const v128_t t0 = wasm_i32x4_shuffle(r[0], r[1], 0, 4, 1, 5);  // columns 0, 1 of rows 0, 1
  const v128_t t1 = wasm_i32x4_shuffle(r[0], r[1], 2, 6, 3, 7);  // columns 2, 3
  const v128_t t2 = wasm_i32x4_shuffle(r[2], r[3], 0, 4, 1, 5);
  const v128_t t3 = wasm_i32x4_shuffle(r[2], r[3], 2, 6, 3, 7);
  wasm_v128_store(out, wasm_i64x2_shuffle(t0, t2, 0, 2));
  wasm_v128_store(out + out_step * 4, wasm_i64x2_shuffle(t0, t2, 1, 3));
  wasm_v128_store(out + 2 * out_step * 4, wasm_i64x2_shuffle(t1, t3, 0, 2));
  wasm_v128_store(out + 3 * out_step * 4, wasm_i64x2_shuffle(t1, t3, 1, 3));
}

// A 16 x 16 tile of bytes: four unpack stages (copy_rows.h), of bytes, pairs, quads, eights.
void transpose_tile_b8(char* out, int64_t out_step, const char* in, int64_t in_step, int na,
                       int nb) {
  if (na < 16 || nb < 16) return transpose_tile_elements<1>(out, out_step, in, in_step, na, nb);
  v128_t r[16], t[16];
  for (int i = 0; i < 16; ++i) r[i] = wasm_v128_load(in + i * in_step);
  unpack_stage(
      r, t, 1,
      [](v128_t a, v128_t b) {
        return wasm_i8x16_shuffle(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
      },
      [](v128_t a, v128_t b) {
        return wasm_i8x16_shuffle(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15,
                                  31);
      });
  unpack_stage(
      t, r, 2,
      [](v128_t a, v128_t b) { return wasm_i16x8_shuffle(a, b, 0, 8, 1, 9, 2, 10, 3, 11); },
      [](v128_t a, v128_t b) { return wasm_i16x8_shuffle(a, b, 4, 12, 5, 13, 6, 14, 7, 15); });
  unpack_stage(
      r, t, 4, [](v128_t a, v128_t b) { return wasm_i32x4_shuffle(a, b, 0, 4, 1, 5); },
      [](v128_t a, v128_t b) { return wasm_i32x4_shuffle(a, b, 2, 6, 3, 7); });
  unpack_stage(
      t, r, 8, [](v128_t a, v128_t b) { return wasm_i64x2_shuffle(a, b, 0, 2); },
      [](v128_t a, v128_t b) { return wasm_i64x2_shuffle(a, b, 1, 3); });
  for (int j = 0; j < 16; ++j) wasm_v128_store(out + j * out_step, r[j]);
}

}  // namespace

KernelStatus copy_bits__wasm_simd128(const KernelCall& call) {
  const int size = copy_elem_size(call);
  if (size == 0) return KernelStatus::kDeclined;
  const TensorView* const views[2] = {&call.outputs[0], &call.inputs[0]};
  TileDims t;
  if (copy_transposes_tiles(call, &t)) {
    const TensorView &out = call.outputs[0], &in = call.inputs[0];
    if (size == 4) {
      transpose_tile_rows<4, 4>(out, in, t, 0, transpose_tile_row_count<4>(out, t),
                                transpose_tile_b32);
    } else {
      transpose_tile_rows<1, 16>(out, in, t, 0, transpose_tile_row_count<16>(out, t),
                                 transpose_tile_b8);
    }
    return KernelStatus::kDone;
  }
  if (size == 1) {
    for_each_row(views, [](char* const* ptr, int64_t n, const int64_t* step) {
      copy_row<1, 16>(ptr, n, step, [](char* out, const char* in, auto k) {
        wasm_v128_store(out, gather_every_byte<decltype(k)::value>(in));
      });
    });
    return KernelStatus::kDone;
  }
  for_each_row(views, [](char* const* ptr, int64_t n, const int64_t* step) {
    copy_row<4, 4>(ptr, n, step, [](char* out, const char* in, auto k) {
      wasm_v128_store(out, gather_every<decltype(k)::value>(in));
    });
  });
  return KernelStatus::kDone;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
