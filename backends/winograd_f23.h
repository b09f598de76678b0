// Integer Winograd F(2x2, 3x3) for 3x3 stride-1 conv2d: the parts every backend's kernel shares
// (which layers, the exactness bounds, the filter transform and the packed weights).
//
// The transforms (Lavin and Gray's F(2x2, 3x3), with G doubled so every entry is an integer):
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]    V = B^T d B     (d: a 4x4 input tile)
//   G'  = [2 0 0; 1 1 1; 1 -1 1; 0 0 2]               U = G' g G'^T   (g: a 3x3 filter)
//   A^T = [1 1 1 0; 0 1 -1 -1]                         A^T (sum over channels of U . V) A = 4 y
// Exactness: each step is a ring operation on integers, so int32 arithmetic that wraps computes
// 4y modulo 2^32, and that is 4y itself when |y| < 2^29; then an arithmetic shift by 2 gives y
// (the reference's sum, to which the bias is then added modulo 2^32). A kernel bounds |y| by
// 9 * C * max|x| * max|w| from the operands' actual ranges and declines above 2^29. The products
// run as int16 pair dot products (i32x4.dot_i16x8_s, vpmaddwd) over channel pairs, so U and V
// must fit int16: |V| <= 4 max|x| and |U| <= 9 max|w| ask for max|x| <= 8191 and
// max|w| <= 3640, also checked.
//
// Packed weights (A): [16 positions][blocks of 4 output channels][channel pairs][4] int32 lanes,
// lane i of (t, block, j) = U[t] of output channel 4 * block + i for channels 2j (low int16
// half) and 2j + 1 (high half; 0 past an odd channel count or the last output channel).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernel_abi.h"
#include "params/nn.h"

namespace cvm {
namespace kernel {
namespace winograd_f23 {

constexpr int32_t kMaxX = 8191;              // 4 max|x| fits int16
constexpr int32_t kMaxW = 3640;              // 9 max|w| fits int16
constexpr int64_t kMaxY = int64_t{1} << 29;  // 4y fits int32

// 3x3 filters, stride and dilation 1, one group of at least 4 output channels.
inline bool eligible(const TensorView& w, const Conv2dParams& p) {
  return w.ndim == 4 && p.groups == 1 && w.shape[2] == 3 && w.shape[3] == 3 && p.stride_h == 1 &&
         p.stride_w == 1 && p.dilation_h == 1 && p.dilation_w == 1 && w.shape[0] >= 4 &&
         w.shape[1] >= 1;
}

// KernelEntry::suits of the Winograd entries: a 3x3 weight of at least 4 output channels and as
// many input channels as x has (one group). Other nodes move the entry behind the general one
// (stride and dilation, which the inputs do not show, are checked by the kernel).
inline bool suits(const TensorView* inputs, int32_t num_inputs) {
  if (num_inputs < 2 || inputs[0].ndim != 4 || inputs[1].ndim != 4) return false;
  const TensorView& w = inputs[1];
  return w.shape[2] == 3 && w.shape[3] == 3 && w.shape[0] >= 4 && w.shape[1] == inputs[0].shape[1];
}

// Whether 9 * C * max|x| * max|w| stays below 2^29 (every sum exact).
inline bool exact(int64_t in_c, int64_t xmax, int64_t wmax) {
  return xmax <= kMaxX && wmax <= kMaxW && int64_t{9} * in_c * xmax * wmax < kMaxY;
}

// Without weights packed ahead of time (an operator call, not a model run) a call transforms
// its weights itself, at a cost that grows with out_c * in_c while the multiplies it saves grow
// with out_c * in_c * tiles: measured on AVX2, the transform outweighs the saving below about
// 128 tiles (256x14x14 -> 256: 49 tiles, 4.4 ms against the GEMM's 3.3). Such calls decline.
constexpr int64_t kMinTilesUnpacked = 128;

struct Shape {
  ptrdiff_t out_c, in_c, blocks, cpairs;
};

inline Shape shape_of(const TensorView& w) {
  const auto out_c = static_cast<ptrdiff_t>(w.shape[0]), in_c = static_cast<ptrdiff_t>(w.shape[1]);
  return Shape{out_c, in_c, (out_c + 3) / 4, (in_c + 1) / 2};
}

inline int64_t a_lanes(const Shape& s) { return int64_t{16} * s.blocks * s.cpairs * 4; }

// U of one filter g (3x3 at strides s2, s3) into u[16] (position 4r + c).
inline void filter_transform(const int32_t* g, ptrdiff_t s2, ptrdiff_t s3, int32_t* u) {
  int32_t t[4][3];  // G' g
  for (ptrdiff_t k = 0; k < 3; ++k) {
    const int32_t g0 = g[k * s3], g1 = g[s2 + k * s3], g2 = g[2 * s2 + k * s3];
    t[0][k] = 2 * g0;
    t[1][k] = g0 + g1 + g2;
    t[2][k] = g0 - g1 + g2;
    t[3][k] = 2 * g2;
  }
  for (int r = 0; r < 4; ++r) {  // (G' g) G'^T
    u[4 * r + 0] = 2 * t[r][0];
    u[4 * r + 1] = t[r][0] + t[r][1] + t[r][2];
    u[4 * r + 2] = t[r][0] - t[r][1] + t[r][2];
    u[4 * r + 3] = 2 * t[r][2];
  }
}

// The largest |w| over a 4-D weight view (any strides).
inline int64_t weight_max(const TensorView& w) {
  const auto* d = static_cast<const int32_t*>(w.data);
  int64_t m = 0;
  for (int64_t o = 0; o < w.shape[0]; ++o) {
    for (int64_t c = 0; c < w.shape[1]; ++c) {
      for (int64_t h = 0; h < 3; ++h) {
        for (int64_t k = 0; k < 3; ++k) {
          const int64_t v = d[o * w.strides[0] + c * w.strides[1] + h * w.strides[2] +
                              k * w.strides[3]];
          m = std::max(m, v < 0 ? -v : v);
        }
      }
    }
  }
  return m;
}

inline int32_t pair16(int32_t lo, int32_t hi) {
  return static_cast<int32_t>((static_cast<uint32_t>(lo) & 0xFFFFu) | static_cast<uint32_t>(hi)
                                                                          << 16);
}

// A (a_lanes(s) lanes) from w, whose weight_max() the caller has checked against kMaxW.
inline void pack_weights(const Shape& s, const TensorView& w, int32_t* a) {
  std::memset(a, 0, static_cast<size_t>(a_lanes(s) * 4));
  const auto* wd = static_cast<const int32_t*>(w.data);
  const auto s0 = static_cast<ptrdiff_t>(w.strides[0]), s1 = static_cast<ptrdiff_t>(w.strides[1]);
  const auto s2 = static_cast<ptrdiff_t>(w.strides[2]), s3 = static_cast<ptrdiff_t>(w.strides[3]);
  int32_t u0[16], u1[16];
  for (ptrdiff_t oc = 0; oc < s.out_c; ++oc) {
    for (ptrdiff_t j = 0; j < s.cpairs; ++j) {
      filter_transform(wd + oc * s0 + 2 * j * s1, s2, s3, u0);
      if (2 * j + 1 < s.in_c) {
        filter_transform(wd + oc * s0 + (2 * j + 1) * s1, s2, s3, u1);
      } else {
        std::fill(u1, u1 + 16, 0);
      }
      for (ptrdiff_t t = 0; t < 16; ++t) {
        a[((t * s.blocks + oc / 4) * s.cpairs + j) * 4 + oc % 4] = pair16(u0[t], u1[t]);
      }
    }
  }
}

// V = B^T d B, element-wise over vectors of tiles (position 4r + c in v); add and sub are the
// backend's lane-wise 16-bit operations (both channels of a pair at once, exact while
// |x| <= kMaxX).
template <class V, class Add, class Sub>
inline void input_transform(const V (&d)[4][4], V (&v)[16], Add add, Sub sub) {
  V e[4][4];  // B^T d
  for (int c = 0; c < 4; ++c) {
    e[0][c] = sub(d[0][c], d[2][c]);
    e[1][c] = add(d[1][c], d[2][c]);
    e[2][c] = sub(d[2][c], d[1][c]);
    e[3][c] = sub(d[1][c], d[3][c]);
  }
  for (int r = 0; r < 4; ++r) {  // (B^T d) B
    v[4 * r + 0] = sub(e[r][0], e[r][2]);
    v[4 * r + 1] = add(e[r][1], e[r][2]);
    v[4 * r + 2] = sub(e[r][2], e[r][1]);
    v[4 * r + 3] = sub(e[r][1], e[r][3]);
  }
}

// A^T M A = 4y for the 2x2 outputs y00, y01, y10, y11 of vectors of tiles (M at position t in
// m[t]); add and sub are the backend's lane-wise 32-bit operations.
template <class V, class Add, class Sub>
inline void output_transform(const V* m, V (&y4)[4], Add add, Sub sub) {
  V t0[4], t1[4];  // A^T M
  for (int c = 0; c < 4; ++c) {
    t0[c] = add(add(m[c], m[4 + c]), m[8 + c]);
    t1[c] = sub(sub(m[4 + c], m[8 + c]), m[12 + c]);
  }
  y4[0] = add(add(t0[0], t0[1]), t0[2]);
  y4[1] = sub(sub(t0[1], t0[2]), t0[3]);
  y4[2] = add(add(t1[0], t1[1]), t1[2]);
  y4[3] = sub(sub(t1[1], t1[2]), t1[3]);
}

// The packed weights behind a 64-byte header (the lanes after it stay 64-byte aligned), tagged
// with the packing backend's magic number.
struct PackHeader {
  uint32_t magic;
  uint32_t pad_;
  int64_t out_c, in_c, wmax, reserved[4];
};
static_assert(sizeof(PackHeader) == 64, "header size");

// A KernelEntry::prepack of a Winograd entry (kernel_abi.h): 0 for a layer it does not take or a
// weight beyond kMaxW.
inline size_t prepack(const TensorView& w, const void* params, void* out, size_t cap,
                      uint32_t magic) {
  if (!eligible(w, *static_cast<const Conv2dParams*>(params))) return 0;
  const Shape s = shape_of(w);
  if (a_lanes(s) > (int64_t{1} << 28)) return 0;
  const size_t bytes = sizeof(PackHeader) + static_cast<size_t>(a_lanes(s)) * 4;
  const int64_t wmax = weight_max(w);
  if (wmax > kMaxW) return 0;
  if (out == nullptr || cap < bytes) return bytes;
  auto* h = static_cast<PackHeader*>(out);
  pack_weights(s, w, reinterpret_cast<int32_t*>(h + 1));
  *h = PackHeader{magic, 0, s.out_c, s.in_c, wmax, {0, 0, 0, 0}};
  return bytes;
}

// The packed weights of a call's prepack made by `magic`'s prepack() for this shape (their
// largest |w| in wmax), else null.
inline const int32_t* packed(const void* prepacked, const Shape& s, uint32_t magic,
                             int64_t& wmax) {
  const auto* h = static_cast<const PackHeader*>(prepacked);
  if (h == nullptr || h->magic != magic || h->out_c != s.out_c || h->in_c != s.in_c) {
    return nullptr;
  }
  wmax = h->wmax;
  return reinterpret_cast<const int32_t*>(h + 1);
}

// Output geometry: 2x2 tiles over the output, flattened over (tile row, tile column), and the
// zero-padded channel-paired copy of x they read (X: xh x xw cells a channel pair).
struct Tiles {
  ptrdiff_t out_h, out_w, tw, tiles, xh, xw;
};

inline Tiles tiles_of(const TensorView& y) {
  Tiles t{};
  t.out_h = static_cast<ptrdiff_t>(y.shape[2]);
  t.out_w = static_cast<ptrdiff_t>(y.shape[3]);
  t.tw = (t.out_w + 1) / 2;
  const ptrdiff_t th = (t.out_h + 1) / 2;
  t.tiles = th * t.tw;
  t.xh = 2 * th + 2;
  t.xw = 2 * t.tw + 2;
  return t;
}

}  // namespace winograd_f23
}  // namespace kernel
}  // namespace cvm
