// A model input's values into its session entry, clipped to the input's precision (the loops of
// Session::State::write_input), in a file of their own that the wasm build compiles for speed.
#pragma once

#include <cstdint>

namespace cvm {
namespace graph {

// dst[i] = src[i] clipped to [lo, hi] (lo <= hi, both within dst's type), for n elements. The
// int32 sources are little-endian bytes at any alignment (what the C ABI hands over).
// They run over every input element of every model run: core is compiled for size in the wasm
// build, where these loops took 1.3 ns per element (a third of a small layer's run), so
// wasm/CMakeLists.txt compiles this file like the kernels.
void clip_input(const int8_t* src, int64_t n, int32_t lo, int32_t hi, int8_t* dst);
void clip_input(const int8_t* src, int64_t n, int32_t lo, int32_t hi, int32_t* dst);
void clip_input_le32(const uint8_t* src, int64_t n, int32_t lo, int32_t hi, int8_t* dst);
void clip_input_le32(const uint8_t* src, int64_t n, int32_t lo, int32_t hi, int32_t* dst);

}  // namespace graph
}  // namespace cvm
