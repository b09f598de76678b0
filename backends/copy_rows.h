// The row walk of the same-dtype copy kernels, shared by the x86 and WebAssembly backends: for
// 4-byte elements and for int8 activation views, each backend gives it its vector gather of
// every K-th element.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernel_abi.h"

namespace cvm {
namespace kernel {

// The element size a copy call moves, when the kernels take it: 4 (any 4-byte type), or 1 for
// int8 views on both sides (a session's int8 activations); 0 for anything else, which they
// decline (the reference's copy takes every type). Static: each ISA's source keeps its own copy
// (simd_kernels.h).
static inline int copy_elem_size(const KernelCall& call) {
  const ElemType out = call.outputs[0].type, in = call.inputs[0].type;
  if (kElemSizes[static_cast<int>(out)] == 4 && kElemSizes[static_cast<int>(in)] == 4) return 4;
  return out == ElemType::kInt8 && in == ElemType::kInt8 ? 1 : 0;
}

// n contiguous Size-byte outputs from every K-th input element: store(out, in, K) (K an
// std::integral_constant) writes the Lanes outputs gathered from the Lanes * K elements at `in`.
// Those vectors read past the last element a group needs by K - 1: a group runs only while a
// later element of the row follows, which lies beyond everything it reads.
template <int Size, int Lanes, int K, class Store>
void gather_row(char* out, const char* in, int64_t n, const Store& store) {
  int64_t i = 0;
  for (; i + Lanes < n; i += Lanes) {
    store(out + i * Size, in + i * K * Size, std::integral_constant<int, K>{});
  }
  for (; i < n; ++i) std::memcpy(out + i * Size, in + i * K * Size, Size);
}

// One row of a copy of Size-byte elements (the ptr / n / step of a strided row walk):
// contiguous rows as one memmove, contiguous outputs gathering every 2nd, 3rd or 4th input
// element through `store`, any other layout element by element (bits only).
template <int Size, int Lanes, class Store>
void copy_row(char* const* ptr, int64_t n, const int64_t* step, const Store& store) {
  char* out = ptr[0];
  const char* in = ptr[1];
  if (step[0] == Size) {
    const int64_t every = step[1] % Size == 0 ? step[1] / Size : 0;  // the input's step
    switch (every) {
      case 1:
        std::memmove(out, in, static_cast<size_t>(n * Size));
        return;
      case 2:
        return gather_row<Size, Lanes, 2>(out, in, n, store);
      case 3:
        return gather_row<Size, Lanes, 3>(out, in, n, store);
      case 4:
        return gather_row<Size, Lanes, 4>(out, in, n, store);
      default:
        break;
    }
  }
  for (int64_t i = 0; i < n; ++i, out += step[0], in += step[1]) std::memcpy(out, in, Size);
}

// Byte shuffles gathering every K-th byte of 16 * K consecutive bytes into 16: output byte j is
// byte (j * K) % 16 of vector (j * K) / 16, so vector v's shuffle picks those of its bytes and
// -128 (an index past the vector: zero) elsewhere; OR-ing the K shuffles gives the 16 bytes.
template <int K>
struct ByteGather {
  int8_t index[K][16];
};
template <int K>
constexpr ByteGather<K> byte_gather() {
  ByteGather<K> g{};
  for (int v = 0; v < K; ++v) {
    for (int j = 0; j < 16; ++j) {
      g.index[v][j] = static_cast<int8_t>(j * K / 16 == v ? j * K % 16 : -128);
    }
  }
  return g;
}

}  // namespace kernel
}  // namespace cvm
