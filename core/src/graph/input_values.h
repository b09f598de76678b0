// A model input's values into its session entry (the loops of Session::State::write_input), in
// a file of their own that the wasm build compiles for speed.
#pragma once

#include <cstdint>

namespace cvm {
namespace graph {

// They run over every input element of every model run: core is compiled for size in the wasm
// build, where these loops took 1.3 ns per element (a third of a small layer's run), so
// wasm/CMakeLists.txt compiles this file like the kernels. Sources are what the C ABI hands
// over: int8, or little-endian 32-bit values at any alignment.

// The n values at src (int8 when src_int8, else little-endian int32) clipped to [lo, hi]
// (lo <= hi, both within dst's type) into dst (int8 when dst_int8, else int32).
void clip_input(const void* src, bool src_int8, int64_t n, int32_t lo, int32_t hi, void* dst,
                bool dst_int8);

// The n little-endian float32 values at src, their bits as they are, into dst.
void copy_input_f32(const void* src, int64_t n, void* dst);

}  // namespace graph
}  // namespace cvm
