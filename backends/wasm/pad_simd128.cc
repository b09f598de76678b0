// float32/int32 constant pad on WebAssembly SIMD128: contiguous rows as one copy and 4-lane fills.
#include <wasm_simd128.h>

#include <cstdint>
#include <cstring>

#include "pad_rows.h"
#include "wasm_kernels.h"

namespace cvm {
namespace kernel {
namespace wasm {

// Every layout is covered (strided rows go element by element): never declines.
KernelStatus pad_b32__wasm_simd128(const KernelCall& call) {
  const auto value = static_cast<int32_t>(static_cast<const PadParams*>(call.params)->value_bits);
  const v128_t lanes = wasm_i32x4_splat(value);
  pad_b32_with<4>(call, [&](char* y) { wasm_v128_store(y, lanes); });
  return KernelStatus::kDone;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
