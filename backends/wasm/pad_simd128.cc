// float32/int32 constant pad on WebAssembly SIMD128: contiguous rows as one copy and 4-lane fills.
#include <wasm_simd128.h>

#include <cstdint>
#include <cstring>

#include "pad_rows.h"
#include "wasm_kernels.h"

namespace cvm {
namespace kernel {
namespace wasm {

void pad_b32__wasm_simd128(const KernelCall& call) {
  const uint32_t value = static_cast<const PadParams*>(call.params)->value_bits;
  auto fill = [](char* y, int64_t n, uint32_t v) {
    const v128_t lanes = wasm_i32x4_splat(static_cast<int32_t>(v));
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) wasm_v128_store(y + 4 * i, lanes);
    for (; i < n; ++i) std::memcpy(y + 4 * i, &v, 4);
  };
  for_each_pad_row(call, [&](const PadRow& r) { pad_row_runs(r, value, fill); });
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
