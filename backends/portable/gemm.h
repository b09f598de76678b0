// The blocked GEMM engine of the portable conv2d and dense kernels: y (M x N) += A (M x K) B
// (K x N), then the fused output stage (the clamp, and conv2d's channel scale), over packed
// panels of lanes (lanes.h) and a register-blocked micro-kernel.
//
// K is cut into blocks of at most block_depth() (which also keeps each sum within its lane
// format's exact depth). Per block, A is packed whole as panels of kMR rows, [k][kMR] lanes
// (zero rows past M), and B one panel at a time, kNR lanes (kNR * kOuts outputs) wide, [k][kNR]
// lanes (zero lanes past N). Each B panel (at most kMaxBlockDepth * kNR lanes: L1) meets every A
// panel (the A block: L2), and each tile's sums are split into outputs and added to y modulo
// 2^32; in the last K block, where y takes its final values, the fused output stage
// (GemmOut::clamp, then GemmOut::scale: staged_sum) is applied to each output as it is stored.
// The tile's kMR * kNR accumulators, kMR A lanes and one B lane (11) fit the registers V8 gives
// wasm code on x86-64; of the tiles measured (1..4 x 2..8) 2 x 4 was the fastest.
//
// A constant weight operand (conv2d's A, dense's B) may come packed whole ahead of time by the
// kernel entry's packer (KernelEntry::prepack): every block in the very layout gemm() packs per
// call, behind a PackHeader, read in place; the sums are the same either way.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "lanes.h"
#include "portable_kernels.h"

namespace cvm {
namespace kernel {
namespace portable {

constexpr int kMR = 2;                      // A rows per tile
constexpr int kNR = 4;                      // B lanes per tile
constexpr ptrdiff_t kMaxBlockDepth = 1024;  // K per block, at most

// Output (m, n) of a GEMM lies at y + m * row_stride + n * col_stride; the GEMM adds to it, and
// clamps the result by `clamp` (Conv2dParams::clamp / DenseParams::clamp) unless it is null,
// then applies `scale` (Conv2dParams::scale; conv2d only) unless it is null, row m being output
// channel channel0 + m (staged_sum).
struct GemmOut {
  uint32_t* y;
  ptrdiff_t row_stride, col_stride;
  const CvmClampParams* clamp = nullptr;
  const ChannelScale* scale = nullptr;
  ptrdiff_t channel0 = 0;
};

// K per block: K cut into equal blocks of at most kMaxBlockDepth and L::kMaxDepth.
template <class L>
ptrdiff_t block_depth(ptrdiff_t k) {
  const ptrdiff_t cap = static_cast<ptrdiff_t>(std::min<int64_t>(kMaxBlockDepth, L::kMaxDepth));
  const ptrdiff_t blocks = (k + cap - 1) / cap;
  return blocks == 0 ? 0 : (k + blocks - 1) / blocks;
}

// Lanes of a whole packed A (m x k) and B (k x n): every K block of block_depth<L>(k) one after
// another, A's block at k0 starting at lane a_rows * k0 and B's at b_lanes * k0 (a_rows, b_lanes:
// the per-k lanes below). In a block of kn, A panel p (rows [p * kMR, + kMR)) lies at
// p * kn * kMR as [kn][kMR] and B panel q (columns [q * kNB, + kNB)) at q * kn * kNR as
// [kn][kNR]: what gemm() reads, so a packed operand (KernelEntry::prepack) is used in place.
template <class L>
int64_t a_rows(int64_t m) {
  return (m + kMR - 1) / kMR * kMR;
}
template <class L>
int64_t b_lanes(int64_t n) {
  constexpr int kNB = kNR * L::kOuts;
  return (n + kNB - 1) / kNB * kNR;
}
template <class L>
int64_t packed_a_lanes(int64_t m, int64_t k) {
  return a_rows<L>(m) * k;
}
template <class L>
int64_t packed_b_lanes(int64_t n, int64_t k) {
  return b_lanes<L>(n) * k;
}

// The lane of element (i, k) of an m x depth A packed whole (pack_a()): for writers that make
// the elements in another order than pack_a() asks for them.
template <class L>
int64_t packed_a_lane(int64_t m, int64_t depth, int64_t i, int64_t k) {
  const int64_t kc = block_depth<L>(depth), k0 = k / kc * kc;
  const int64_t kn = std::min<int64_t>(kc, depth - k0);
  return a_rows<L>(m) * k0 + i / kMR * kn * kMR + (k - k0) * kMR + i % kMR;
}

// Lanes of scratch gemm() needs for an M x K A, without a packed A (a_packed) or B (b_packed).
template <class L>
int64_t gemm_scratch_lanes(int64_t m, int64_t k, bool a_packed = false, bool b_packed = false) {
  return ((a_packed ? 0 : a_rows<L>(m)) + (b_packed ? 0 : kNR)) *
         static_cast<int64_t>(block_depth<L>(k));
}

// Packs rows [0, m) and depths [k0, k0 + kn) of A into dst as the block's panels (zero rows past
// m). a_elem(i, k): element (i, k) of A.
template <class L, class AElem>
void pack_a_block(ptrdiff_t m, ptrdiff_t k0, ptrdiff_t kn, const AElem& a_elem,
                  typename L::T* dst) {
  using T = typename L::T;
  const ptrdiff_t panels = (m + kMR - 1) / kMR;
  for (ptrdiff_t p = 0; p < panels; ++p) {
    for (ptrdiff_t kk = 0; kk < kn; ++kk) {
      for (ptrdiff_t i = p * kMR; i < (p + 1) * kMR; ++i) {
        *dst++ = i < m ? L::one(a_elem(i, k0 + kk)) : T{0};
      }
    }
  }
}

// Packs the B panel of columns [n0, n0 + kNB) and depths [k0, k0 + kn) into dst, [kn][kNR].
// b_src.panel(n0) prepares the columns; b_src.values(k, v) writes their elements of row k to v,
// 0 past the last column.
template <class L, class BSrc>
void pack_b_panel(ptrdiff_t n0, ptrdiff_t k0, ptrdiff_t kn, BSrc& b_src, typename L::T* dst) {
  using T = typename L::T;
  constexpr int kNB = kNR * L::kOuts;
  b_src.panel(n0);
  for (ptrdiff_t kk = 0; kk < kn; ++kk) {
    int32_t v[kNB];
    b_src.values(k0 + kk, v);
    for (int j = 0; j < kNR; ++j) {
      T t[L::kOuts];
      for (int l = 0; l < L::kOuts; ++l) t[l] = L::one(v[j * L::kOuts + l]);
      dst[kk * kNR + j] = L::join(t);
    }
  }
}

// A (m x k) and B (k x n) packed whole, packed_a_lanes() / packed_b_lanes() lanes.
template <class L, class AElem>
void pack_a(ptrdiff_t m, ptrdiff_t k, const AElem& a_elem, typename L::T* dst) {
  const ptrdiff_t kc = block_depth<L>(k);
  for (ptrdiff_t k0 = 0; k0 < k; k0 += kc) {
    pack_a_block<L>(m, k0, std::min(kc, k - k0), a_elem, dst + a_rows<L>(m) * k0);
  }
}
template <class L, class BSrc>
void pack_b(ptrdiff_t n, ptrdiff_t k, BSrc& b_src, typename L::T* dst) {
  constexpr int kNB = kNR * L::kOuts;
  const ptrdiff_t kc = block_depth<L>(k);
  for (ptrdiff_t k0 = 0; k0 < k; k0 += kc) {
    const ptrdiff_t kn = std::min(kc, k - k0);
    typename L::T* block = dst + b_lanes<L>(n) * k0;
    for (ptrdiff_t n0 = 0; n0 < n; n0 += kNB) {
      pack_b_panel<L>(n0, k0, kn, b_src, block + n0 / kNB * kn * kNR);
    }
  }
}

// acc[i][j] = sum over k of a[k][i] * b[k][j] for the first R rows of A panel a.
template <class L, int R>
inline void tile(const typename L::T* a, const typename L::T* b, ptrdiff_t depth,
                 typename L::T (&acc)[kMR][kNR]) {
  using T = typename L::T;
  T c[R][kNR] = {};
  for (ptrdiff_t k = 0; k < depth; ++k, a += kMR, b += kNR) {
    T bv[kNR];
    for (int j = 0; j < kNR; ++j) bv[j] = b[j];
    for (int i = 0; i < R; ++i) {
      const T av = a[i];
      for (int j = 0; j < kNR; ++j) c[i][j] += av * bv[j];
    }
  }
  for (int i = 0; i < R; ++i) {
    for (int j = 0; j < kNR; ++j) acc[i][j] = c[i][j];
  }
}

// tile() for the first `rows` (1 to R) rows.
template <class L, int R = kMR>
inline void tile_rows(int rows, const typename L::T* a, const typename L::T* b, ptrdiff_t depth,
                      typename L::T (&acc)[kMR][kNR]) {
  if constexpr (R > 1) {
    if (rows < R) return tile_rows<L, R - 1>(rows, a, b, depth, acc);
  }
  tile<L, R>(a, b, depth, acc);
}

// y (m x n) += A B, then the output stage of `out` (out.clamp, out.scale; each unless null).
// a_elem(i, k): element (i, k) of A; b_src: B's columns as pack_b_panel() reads them.
// a_packed / b_packed: A / B packed whole (pack_a(), pack_b()), used in place of a_elem / b_src;
// or null. scratch: gemm_scratch_lanes() lanes for the operands not packed.
template <class L, class AElem, class BSrc>
void gemm(ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const AElem& a_elem, BSrc& b_src,
          typename L::T* scratch, const GemmOut& out, const typename L::T* a_packed = nullptr,
          const typename L::T* b_packed = nullptr) {
  using T = typename L::T;
  constexpr int kNB = kNR * L::kOuts;  // B columns per panel
  const ptrdiff_t kc = block_depth<L>(k), panels = (m + kMR - 1) / kMR;
  T* const a_buf = scratch;
  T* const b_buf = scratch + (a_packed != nullptr ? 0 : panels * kMR * kc);
  for (ptrdiff_t k0 = 0; k0 < k; k0 += kc) {
    const ptrdiff_t kn = std::min(kc, k - k0);
    const bool last = k0 + kn == k;  // y's final values: the output stage
    const CvmClampParams* clamp = last ? out.clamp : nullptr;
    const ChannelScale* scale = last ? out.scale : nullptr;
    const T* a = a_packed != nullptr ? a_packed + a_rows<L>(m) * k0 : a_buf;
    if (a_packed == nullptr) pack_a_block<L>(m, k0, kn, a_elem, a_buf);
    for (ptrdiff_t n0 = 0; n0 < n; n0 += kNB) {
      const T* b = b_buf;
      if (b_packed != nullptr) {
        b = b_packed + b_lanes<L>(n) * k0 + n0 / kNB * kn * kNR;
      } else {
        pack_b_panel<L>(n0, k0, kn, b_src, b_buf);
      }
      const ptrdiff_t cols = std::min<ptrdiff_t>(kNB, n - n0);
      for (ptrdiff_t p = 0; p < panels; ++p) {
        const int rows = static_cast<int>(std::min<ptrdiff_t>(kMR, m - p * kMR));
        T acc[kMR][kNR];
        tile_rows<L>(rows, a + p * kn * kMR, b, kn, acc);
        for (int i = 0; i < rows; ++i) {
          const ptrdiff_t channel = out.channel0 + p * kMR + i;
          uint32_t* y = out.y + (p * kMR + i) * out.row_stride + n0 * out.col_stride;
          for (int j = 0; j < kNR; ++j) {
            uint32_t s[L::kOuts];
            L::split(acc[i][j], s);
            for (int l = 0; l < L::kOuts && j * L::kOuts + l < cols; ++l) {
              uint32_t& o = y[(j * L::kOuts + l) * out.col_stride];
              o = staged_sum(o, s[l], clamp, scale, channel);
            }
          }
        }
      }
    }
  }
}

// The header in front of a portable packer's lanes (64 bytes, so the lanes stay 64-byte
// aligned): which packer, and the weight's shape (and groups) it was made for. A kernel uses a
// pack only when every field matches its call.
struct PackHeader {
  uint32_t magic;
  uint32_t lane_bytes;
  int64_t d[7];
};
static_assert(sizeof(PackHeader) == 64, "header size");

}  // namespace portable
}  // namespace kernel
}  // namespace cvm
