// Same-dtype copy of 4-byte elements on WebAssembly SIMD128: rows that gather every 2nd, 3rd or
// 4th input element (an NHWC image's channels into NCHW planes) by lane shuffles, 4 at a time;
// other rows as the reference copies them (bits only, no arithmetic).
#include <wasm_simd128.h>

#include <cstdint>
#include <cstring>

#include "strided_loop.h"
#include "wasm_kernels.h"

namespace cvm {
namespace kernel {
namespace wasm {
namespace {

constexpr int64_t kElem = 4;

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

// n contiguous outputs from every K-th input element. The vectors read 4 * K elements from the
// group's first, past the last one the group needs by K - 1: a vector group runs only while a
// later element of the row follows, which lies beyond everything it reads.
template <int K>
void gather_row(char* out, const char* in, int64_t n) {
  int64_t i = 0;
  for (; i + 4 < n; i += 4) wasm_v128_store(out + i * kElem, gather_every<K>(in + i * K * kElem));
  for (; i < n; ++i) std::memcpy(out + i * kElem, in + i * K * kElem, kElem);
}

}  // namespace

KernelStatus copy_b32__wasm_simd128(const KernelCall& call) {
  const TensorView* const views[2] = {&call.outputs[0], &call.inputs[0]};
  for_each_row(views, [](char* const* ptr, int64_t n, const int64_t* step) {
    char* out = ptr[0];
    const char* in = ptr[1];
    if (step[0] == kElem) {
      if (step[1] == kElem) {
        std::memmove(out, in, static_cast<size_t>(n * kElem));
        return;
      }
      if (step[1] == 2 * kElem) return gather_row<2>(out, in, n);
      if (step[1] == 3 * kElem) return gather_row<3>(out, in, n);
      if (step[1] == 4 * kElem) return gather_row<4>(out, in, n);
    }
    for (int64_t i = 0; i < n; ++i, out += step[0], in += step[1]) std::memcpy(out, in, kElem);
  });
  return KernelStatus::kDone;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
