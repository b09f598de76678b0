// Same-dtype copy of 4-byte elements, and of int8 activation views, on WebAssembly SIMD128: rows
// that gather every 2nd, 3rd or 4th input element (an NHWC image's channels into NCHW planes)
// by lane shuffles, 4 at a time (bytes: K swizzles, 16 at a time); other rows as the reference
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

}  // namespace

KernelStatus copy_bits__wasm_simd128(const KernelCall& call) {
  const int size = copy_elem_size(call);
  if (size == 0) return KernelStatus::kDeclined;
  const TensorView* const views[2] = {&call.outputs[0], &call.inputs[0]};
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
