// Same-dtype copy of 4-byte elements on WebAssembly SIMD128: rows that gather every 2nd, 3rd or
// 4th input element (an NHWC image's channels into NCHW planes) by lane shuffles, 4 at a time;
// other rows as the reference copies them (bits only, no arithmetic).
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

}  // namespace

KernelStatus copy_b32__wasm_simd128(const KernelCall& call) {
  if (!copies_b32(call)) return KernelStatus::kDeclined;
  const TensorView* const views[2] = {&call.outputs[0], &call.inputs[0]};
  for_each_row(views, [](char* const* ptr, int64_t n, const int64_t* step) {
    copy_row_b32<4>(ptr, n, step, [](char* out, const char* in, auto k) {
      wasm_v128_store(out, gather_every<decltype(k)::value>(in));
    });
  });
  return KernelStatus::kDone;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
