// The row walk of the same-dtype copy kernels, shared by the x86 and WebAssembly backends: for
// 4-byte elements and for int8 activation views, each backend gives it its vector gather of
// every K-th element.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
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

// The tile walk's templates are static: each ISA's source instantiates its own (the linker
// cannot take one compiled for another ISA), as the row gathers are by their lambdas.

// The last two dims of a copy that transposes them: `along`, where the input is contiguous, and
// `across`, where the output is (an NCHW image into NHWC: each output pixel takes one element
// of every channel plane).
struct TileDims {
  int along, across;
};

// Whether a copy transposes its last two dims (*t: which is which), both at least 2 long, and
// its rows would go element by element: such a copy goes by square tiles through registers
// (transpose_tile_rows). Rows along the output's last dim that gather every 2nd to 4th input
// element stay rows (their vector gathers fill every lane where a tile of 3 channels would not).
static inline bool copy_transposes_tiles(const KernelCall& call, TileDims* t) {
  const TensorView &out = call.outputs[0], &in = call.inputs[0];
  const int nd = out.ndim;
  if (nd < 2 || out.shape[nd - 1] < 2 || out.shape[nd - 2] < 2) return false;
  for (const TileDims d : {TileDims{nd - 2, nd - 1}, TileDims{nd - 1, nd - 2}}) {
    if (in.strides[d.along] != 1 || out.strides[d.across] != 1) continue;
    const int64_t step = in.strides[d.across];
    if (d.across == nd - 1 && (step == 1 || (step >= 2 && step <= 4))) return false;
    *t = d;
    return true;
  }
  return false;
}

// The tile rows of a copy_transposes_tiles copy: its outer indices (the dims before the last
// two) times ceil(A / T), A the along dim's length.
template <int T>
static int64_t transpose_tile_row_count(const TensorView& out, TileDims t) {
  int64_t rows = (out.shape[t.along] + T - 1) / T;
  for (int d = 0; d < out.ndim - 2; ++d) rows *= out.shape[d];
  return rows;
}

// Tile rows [begin, end) of a copy_transposes_tiles copy of Size-byte elements: each tile, T x T
// or smaller at the ends, goes through tile(out, out_step, in, in_step, na, nb), which writes
// out + j * out_step + r (elements) from in + r * in_step + j for j < na along and r < nb across.
template <int Size, int T, class Tile>
static void transpose_tile_rows(const TensorView& out, const TensorView& in, TileDims t,
                                int64_t begin, int64_t end, const Tile& tile) {
  const int nd = out.ndim;
  const int64_t a_len = out.shape[t.along], b_len = out.shape[t.across];
  const int64_t blocks = (a_len + T - 1) / T;
  const int64_t out_step = out.strides[t.along], in_step = in.strides[t.across];
  for (int64_t row = begin; row < end; ++row) {
    // The outer index of the row, last dim fastest.
    int64_t outer = row / blocks, out_at = 0, in_at = 0;
    for (int d = nd - 3; d >= 0; --d) {
      const int64_t i = outer % out.shape[d];
      outer /= out.shape[d];
      out_at += i * out.strides[d];
      in_at += i * in.strides[d];
    }
    const int64_t a0 = row % blocks * T, na = a_len - a0 < T ? a_len - a0 : T;
    char* o = static_cast<char*>(out.data) + (out_at + a0 * out_step) * Size;
    const char* x = static_cast<const char*>(in.data) + (in_at + a0) * Size;
    for (int64_t b0 = 0; b0 < b_len; b0 += T) {
      tile(o + b0 * Size, out_step, x + b0 * in_step * Size, in_step, static_cast<int>(na),
           static_cast<int>(b_len - b0 < T ? b_len - b0 : T));
    }
  }
}

// One unpack stage of a 16-row transpose in registers (each backend gives its vector type and
// interleaves): in groups of 2 span rows, row r < span of a group with row r + span, the low
// halves' interleave (lo) into row 2r of the group, the high (hi) into 2r + 1. Stages of span
// 1, 2, 4 and 8 over 16 rows of 16 lanes, interleaving lanes, pairs, quads and eights,
// transpose them.
template <class V, class Lo, class Hi>
static void unpack_stage(const V (&in)[16], V (&out)[16], int span, Lo lo, Hi hi) {
  for (int g = 0; g < 16; g += 2 * span) {
    for (int r = 0; r < span; ++r) {
      out[g + 2 * r] = lo(in[g + r], in[g + r + span]);
      out[g + 2 * r + 1] = hi(in[g + r], in[g + r + span]);
    }
  }
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
