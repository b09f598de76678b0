// The row walk of the same-dtype copy kernels for 4-byte elements, shared by the x86 and
// WebAssembly backends: each gives it its vector gather of every K-th element.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernel_abi.h"

namespace cvm {
namespace kernel {

// Whether a copy call moves 4-byte elements, the only ones the b32 kernels take (others, e.g. a
// session's int8 activations, they decline: the reference's copy takes every type). Static:
// each ISA's source keeps its own copy (simd_kernels.h).
static inline bool copies_b32(const KernelCall& call) {
  return kElemSizes[static_cast<int>(call.outputs[0].type)] == 4 &&
         kElemSizes[static_cast<int>(call.inputs[0].type)] == 4;
}

// n contiguous outputs from every K-th input element: store(out, in, K) (K an
// std::integral_constant) writes the Lanes outputs gathered from the Lanes * K elements at `in`.
// Those vectors read past the last element a group needs by K - 1: a group runs only while a
// later element of the row follows, which lies beyond everything it reads.
template <int Lanes, int K, class Store>
void gather_row_b32(char* out, const char* in, int64_t n, const Store& store) {
  int64_t i = 0;
  for (; i + Lanes < n; i += Lanes) {
    store(out + i * 4, in + i * K * 4, std::integral_constant<int, K>{});
  }
  for (; i < n; ++i) std::memcpy(out + i * 4, in + i * K * 4, 4);
}

// One row of a copy (the ptr / n / step of a strided row walk): contiguous rows as one memmove,
// contiguous outputs gathering every 2nd, 3rd or 4th input element through `store`, any other
// layout element by element (bits only).
template <int Lanes, class Store>
void copy_row_b32(char* const* ptr, int64_t n, const int64_t* step, const Store& store) {
  char* out = ptr[0];
  const char* in = ptr[1];
  if (step[0] == 4) {
    switch (step[1]) {
      case 4:
        std::memmove(out, in, static_cast<size_t>(n * 4));
        return;
      case 8:
        return gather_row_b32<Lanes, 2>(out, in, n, store);
      case 12:
        return gather_row_b32<Lanes, 3>(out, in, n, store);
      case 16:
        return gather_row_b32<Lanes, 4>(out, in, n, store);
      default:
        break;
    }
  }
  for (int64_t i = 0; i < n; ++i, out += step[0], in += step[1]) std::memcpy(out, in, 4);
}

}  // namespace kernel
}  // namespace cvm
