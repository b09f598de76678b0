// The blocked GEMM engine of the portable conv2d and dense kernels: y (M x N) += A (M x K) B
// (K x N) over packed panels of lanes (lanes.h) and a register-blocked micro-kernel.
//
// K is cut into blocks of at most block_depth() (which also keeps each sum within its lane
// format's exact depth). Per block, A is packed whole as panels of kMR rows, [k][kMR] lanes
// (zero rows past M), and B one panel at a time, kNR lanes (kNR * kOuts outputs) wide, [k][kNR]
// lanes (zero lanes past N). Each B panel (at most kMaxBlockDepth * kNR lanes: L1) meets every A
// panel (the A block: L2), and each tile's sums are split into outputs and added to y modulo
// 2^32. The tile's kMR * kNR accumulators, kMR A lanes and one B lane (11) fit the registers
// V8 gives wasm code on x86-64; of the tiles measured (1..4 x 2..8) 2 x 4 was the fastest.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "lanes.h"

namespace cvm {
namespace kernel {
namespace portable {

constexpr int kMR = 2;                      // A rows per tile
constexpr int kNR = 4;                      // B lanes per tile
constexpr ptrdiff_t kMaxBlockDepth = 1024;  // K per block, at most

// Output (m, n) of a GEMM lies at y + m * row_stride + n * col_stride; the GEMM adds to it.
struct GemmOut {
  uint32_t* y;
  ptrdiff_t row_stride, col_stride;
};

// K per block: K cut into equal blocks of at most kMaxBlockDepth and L::kMaxDepth.
template <class L>
ptrdiff_t block_depth(ptrdiff_t k) {
  const ptrdiff_t cap = static_cast<ptrdiff_t>(std::min<int64_t>(kMaxBlockDepth, L::kMaxDepth));
  const ptrdiff_t blocks = (k + cap - 1) / cap;
  return blocks == 0 ? 0 : (k + blocks - 1) / blocks;
}

// Lanes of scratch gemm() needs for an M x K A.
template <class L>
int64_t gemm_scratch_lanes(int64_t m, int64_t k) {
  return ((m + kMR - 1) / kMR * kMR + kNR) * static_cast<int64_t>(block_depth<L>(k));
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

// y (m x n) += A B. a_elem(i, k): element (i, k) of A. b_src.panel(n0) prepares columns
// [n0, n0 + kNR * kOuts) of B; then b_src.values(k, v) writes their elements of row k to v,
// 0 past column n - 1. scratch: gemm_scratch_lanes() lanes.
template <class L, class AElem, class BSrc>
void gemm(ptrdiff_t m, ptrdiff_t n, ptrdiff_t k, const AElem& a_elem, BSrc& b_src,
          typename L::T* scratch, const GemmOut& out) {
  using T = typename L::T;
  constexpr int kNB = kNR * L::kOuts;  // B columns per panel
  const ptrdiff_t kc = block_depth<L>(k), panels = (m + kMR - 1) / kMR;
  T* const a = scratch;
  T* const b = scratch + panels * kMR * kc;
  for (ptrdiff_t k0 = 0; k0 < k; k0 += kc) {
    const ptrdiff_t kn = std::min(kc, k - k0);
    T* dst = a;
    for (ptrdiff_t p = 0; p < panels; ++p) {
      for (ptrdiff_t kk = 0; kk < kn; ++kk) {
        for (ptrdiff_t i = p * kMR; i < (p + 1) * kMR; ++i) {
          *dst++ = i < m ? L::one(a_elem(i, k0 + kk)) : T{0};
        }
      }
    }
    for (ptrdiff_t n0 = 0; n0 < n; n0 += kNB) {
      b_src.panel(n0);
      for (ptrdiff_t kk = 0; kk < kn; ++kk) {
        int32_t v[kNB];
        b_src.values(k0 + kk, v);
        for (int j = 0; j < kNR; ++j) {
          T t[L::kOuts];
          for (int l = 0; l < L::kOuts; ++l) t[l] = L::one(v[j * L::kOuts + l]);
          b[kk * kNR + j] = L::join(t);
        }
      }
      const ptrdiff_t cols = std::min<ptrdiff_t>(kNB, n - n0);
      for (ptrdiff_t p = 0; p < panels; ++p) {
        const int rows = static_cast<int>(std::min<ptrdiff_t>(kMR, m - p * kMR));
        T acc[kMR][kNR];
        tile_rows<L>(rows, a + p * kn * kMR, b, kn, acc);
        for (int i = 0; i < rows; ++i) {
          uint32_t* y = out.y + (p * kMR + i) * out.row_stride + n0 * out.col_stride;
          for (int j = 0; j < kNR; ++j) {
            uint32_t s[L::kOuts];
            L::split(acc[i][j], s);
            for (int l = 0; l < L::kOuts && j * L::kOuts + l < cols; ++l) {
              y[(j * L::kOuts + l) * out.col_stride] += s[l];
            }
          }
        }
      }
    }
  }
}

}  // namespace portable
}  // namespace kernel
}  // namespace cvm
