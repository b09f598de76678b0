// SIMD128 integer Winograd F(2x2, 3x3) for 3x3 stride-1 conv2d: 16 multiplies per 2x2 output tile
// and input channel instead of 36, with the same bits as the reference.
//
// The transforms (Lavin and Gray's F(2x2, 3x3), with G doubled so every entry is an integer):
//   B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]    V = B^T d B     (d: a 4x4 input tile)
//   G'  = [2 0 0; 1 1 1; 1 -1 1; 0 0 2]               U = G' g G'^T   (g: a 3x3 filter)
//   A^T = [1 1 1 0; 0 1 -1 -1]                         A^T (sum over channels of U . V) A = 4 y
// Exactness: each step is a ring operation on integers, so int32 arithmetic that wraps computes
// 4y modulo 2^32, and that is 4y itself when |y| < 2^29; then an arithmetic shift by 2 gives y.
// The kernel bounds |y| by 9 * C * max|x| * max|w| from the operands' actual ranges and declines
// above 2^29 (the int16 GEMM then runs the call). The products run as i32x4.dot_i16x8_s over
// channel pairs, so U and V must fit int16: |V| <= 4 max|x| and |U| <= 9 max|w| ask for
// max|x| <= 8191 and max|w| <= 3640, also checked.
//
// Layouts (int32 lanes holding int16 channel pairs, as in gemm_simd128.cc):
//   A (U):  [16 positions][blocks of 4 output channels][channel pairs][4]
//   V:      [16 positions][channel pairs][8 tiles]  for one strip of 8 tiles
// Tiles are the 2x2 output blocks, flattened over (tile row, tile column); a strip is 8 of them,
// so no lanes are lost at row ends. Per strip and block the 16 micro-GEMMs leave M[16][4][8] in
// registers and a small buffer, and the output transform writes the 4 channels' 8 tiles.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "gemm_micro_simd128.h"
#include "kernel_abi.h"
#include "params/nn.h"
#include "wasm_kernels.h"

namespace cvm {
namespace kernel {
namespace wasm {
namespace {

constexpr uint32_t kWinogradMagic = 0x474E5957u;  // "WYNG"
constexpr int32_t kMaxX = 8191;                    // 4 max|x| fits int16
constexpr int32_t kMaxW = 3640;                    // 9 max|w| fits int16
constexpr int64_t kMaxY = int64_t{1} << 29;        // 4y fits int32
constexpr idx kVBytes = 256 * 1024;                // V of the strips one pass over A serves

bool eligible(const TensorView& w, const Conv2dParams& p) {
  return w.ndim == 4 && p.groups == 1 && w.shape[2] == 3 && w.shape[3] == 3 && p.stride_h == 1 &&
         p.stride_w == 1 && p.dilation_h == 1 && p.dilation_w == 1 && w.shape[0] >= 4 &&
         w.shape[1] >= 1;
}

struct Shape {
  idx out_c, in_c, blocks, cpairs;
};

Shape shape_of(const TensorView& w) {
  const idx out_c = static_cast<idx>(w.shape[0]), in_c = static_cast<idx>(w.shape[1]);
  return Shape{out_c, in_c, (out_c + 3) / 4, (in_c + 1) / 2};
}

int64_t a_lanes(const Shape& s) { return int64_t{16} * s.blocks * s.cpairs * 4; }

// U of one filter g (3x3 at strides s2, s3) into u[16] (position 4r + c).
void filter_transform(const int32_t* g, idx s2, idx s3, int32_t* u) {
  int32_t t[4][3];  // G' g
  for (idx k = 0; k < 3; ++k) {
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

// A from w. The largest |w| comes back in wmax; false (a unspecified) beyond kMaxW.
bool pack_a(const Shape& s, const TensorView& w, int32_t* a, int32_t& wmax) {
  int32_t lo = 0, hi = 0;
  if (!view_range(w, lo, hi) || lo < -kMaxW || hi > kMaxW) return false;
  wmax = std::max(-lo, hi);
  std::memset(a, 0, static_cast<size_t>(a_lanes(s) * 4));
  const auto* wd = static_cast<const int32_t*>(w.data);
  const idx s0 = static_cast<idx>(w.strides[0]), s1 = static_cast<idx>(w.strides[1]);
  const idx s2 = static_cast<idx>(w.strides[2]), s3 = static_cast<idx>(w.strides[3]);
  int32_t u0[16], u1[16];
  for (idx oc = 0; oc < s.out_c; ++oc) {
    for (idx j = 0; j < s.cpairs; ++j) {
      filter_transform(wd + oc * s0 + 2 * j * s1, s2, s3, u0);
      if (2 * j + 1 < s.in_c) {
        filter_transform(wd + oc * s0 + (2 * j + 1) * s1, s2, s3, u1);
      } else {
        std::fill(u1, u1 + 16, 0);
      }
      for (idx t = 0; t < 16; ++t) {
        a[((t * s.blocks + oc / 4) * s.cpairs + j) * 4 + oc % 4] = pair16(u0[t], u1[t]);
      }
    }
  }
  return true;
}

struct Run {
  Shape s;
  const TensorView* y;
  const TensorView* bias;
  idx out_h, out_w, tw, tiles;  // tw: tiles per tile row
  idx xh, xw, plane;            // the padded copy X of one channel pair
  const int32_t* a;
  const int32_t* xp;  // X: [channel pairs][xh][xw]
  int32_t* v;         // V of a group of strips: [strips][16][cpairs][8]
};

// The 16 V vectors of 4 tiles starting at tile p0, channel pair plane x (tiles past the last
// repeat it). i16x8 arithmetic transforms both channels of a pair at once; exact as |x| <= kMaxX.
void input_quad(const Run& m, const int32_t* x, idx p0, v128_t (&v)[16]) {
  v128_t d[4][4];
  const idx pl = std::min(p0 + 3, m.tiles - 1);
  if (p0 / m.tw == pl / m.tw && p0 + 3 < m.tiles) {
    const int32_t* base = x + 2 * (p0 / m.tw) * m.xw + 2 * (p0 % m.tw);
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) d[r][c] = load4_strided<2>(base + r * m.xw + c, 2);
    }
  } else {
    const int32_t* base[4];
    for (int l = 0; l < 4; ++l) {
      const idx p = std::min(p0 + l, m.tiles - 1);
      base[l] = x + 2 * (p / m.tw) * m.xw + 2 * (p % m.tw);
    }
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) {
        const idx o = r * m.xw + c;
        d[r][c] = wasm_i32x4_make(base[0][o], base[1][o], base[2][o], base[3][o]);
      }
    }
  }
  v128_t e[4][4];  // B^T d
  for (int c = 0; c < 4; ++c) {
    e[0][c] = wasm_i16x8_sub(d[0][c], d[2][c]);
    e[1][c] = wasm_i16x8_add(d[1][c], d[2][c]);
    e[2][c] = wasm_i16x8_sub(d[2][c], d[1][c]);
    e[3][c] = wasm_i16x8_sub(d[1][c], d[3][c]);
  }
  for (int r = 0; r < 4; ++r) {  // (B^T d) B
    v[4 * r + 0] = wasm_i16x8_sub(e[r][0], e[r][2]);
    v[4 * r + 1] = wasm_i16x8_add(e[r][1], e[r][2]);
    v[4 * r + 2] = wasm_i16x8_sub(e[r][2], e[r][1]);
    v[4 * r + 3] = wasm_i16x8_sub(e[r][1], e[r][3]);
  }
}

// V of strip st (tiles st * 8 ..) into dst: [16][cpairs][8].
void input_strip(const Run& m, idx st, int32_t* dst) {
  for (idx j = 0; j < m.s.cpairs; ++j) {
    const int32_t* x = m.xp + j * m.plane;
    for (int q = 0; q < 2; ++q) {
      v128_t v[16];
      input_quad(m, x, st * 8 + 4 * q, v);
      for (int t = 0; t < 16; ++t) store4(dst + (t * m.s.cpairs + j) * 8 + 4 * q, v[t]);
    }
  }
}

// y of 4 tiles from p0 for output channel oc of image n: A^T M A / 4 + bias, M[t] in mq[t].
void output_quad(const Run& m, idx n, idx oc, idx p0, const v128_t* mq, int32_t bias) {
  v128_t t0[4], t1[4];  // A^T M
  for (int c = 0; c < 4; ++c) {
    t0[c] = wasm_i32x4_add(wasm_i32x4_add(mq[c], mq[4 + c]), mq[8 + c]);
    t1[c] = wasm_i32x4_sub(wasm_i32x4_sub(mq[4 + c], mq[8 + c]), mq[12 + c]);
  }
  const v128_t b = wasm_i32x4_splat(bias);
  auto finish = [&](v128_t s) { return wasm_i32x4_add(wasm_i32x4_shr(s, 2), b); };
  const v128_t y00 = finish(wasm_i32x4_add(wasm_i32x4_add(t0[0], t0[1]), t0[2]));
  const v128_t y01 = finish(wasm_i32x4_sub(wasm_i32x4_sub(t0[1], t0[2]), t0[3]));
  const v128_t y10 = finish(wasm_i32x4_add(wasm_i32x4_add(t1[0], t1[1]), t1[2]));
  const v128_t y11 = finish(wasm_i32x4_sub(wasm_i32x4_sub(t1[1], t1[2]), t1[3]));
  const TensorView& y = *m.y;
  const idx ys2 = static_cast<idx>(y.strides[2]);
  int32_t* yc = static_cast<int32_t*>(y.data) + n * static_cast<idx>(y.strides[0]) +
                oc * static_cast<idx>(y.strides[1]);
  const idx tr = p0 / m.tw, tc = p0 % m.tw;
  if (p0 + 3 < m.tiles && tc + 3 < m.tw && 2 * tc + 8 <= m.out_w && 2 * tr + 2 <= m.out_h) {
    int32_t* r0 = yc + 2 * tr * ys2 + 2 * tc;  // 4 whole tiles on one tile row: 2 x 8 outputs
    store4(r0, wasm_i32x4_shuffle(y00, y01, 0, 4, 1, 5));
    store4(r0 + 4, wasm_i32x4_shuffle(y00, y01, 2, 6, 3, 7));
    store4(r0 + ys2, wasm_i32x4_shuffle(y10, y11, 0, 4, 1, 5));
    store4(r0 + ys2 + 4, wasm_i32x4_shuffle(y10, y11, 2, 6, 3, 7));
    return;
  }
  int32_t q[4][4];
  wasm_v128_store(q[0], y00);
  wasm_v128_store(q[1], y01);
  wasm_v128_store(q[2], y10);
  wasm_v128_store(q[3], y11);
  for (idx l = 0; l < 4 && p0 + l < m.tiles; ++l) {
    const idx oh = 2 * ((p0 + l) / m.tw), ow = 2 * ((p0 + l) % m.tw);
    for (idx r = 0; r < 2 && oh + r < m.out_h; ++r) {
      for (idx c = 0; c < 2 && ow + c < m.out_w; ++c) yc[(oh + r) * ys2 + ow + c] = q[2 * r + c][l];
    }
  }
}

void run(const Run& m, idx n, idx group_strips) {
  const idx strips = (m.tiles + 7) / 8;
  const idx vs = 16 * m.s.cpairs * 8;  // lanes of one strip's V
  for (idx g0 = 0; g0 < strips; g0 += group_strips) {
    const idx ng = std::min(group_strips, strips - g0);
    for (idx k = 0; k < ng; ++k) input_strip(m, g0 + k, m.v + k * vs);
    // Blocks outer: a block's A (16 * cpairs * 16 bytes) stays in cache across the strips.
    for (idx blk = 0; blk < m.s.blocks; ++blk) {
      const int32_t* ab = m.a + blk * m.s.cpairs * 4;
      const idx rows = std::min<idx>(4, m.s.out_c - blk * 4);
      for (idx k = 0; k < ng; ++k) {
        v128_t mb[4][2][16];  // [channel][tile quad][position]
        for (int t = 0; t < 16; ++t) {
          v128_t acc[4][2];
          micro<4, 2, 4>(ab + t * m.s.blocks * m.s.cpairs * 4, m.v + k * vs + t * m.s.cpairs * 8,
                         m.s.cpairs, nullptr, acc);
          for (int i = 0; i < 4; ++i) {
            mb[i][0][t] = acc[i][0];
            mb[i][1][t] = acc[i][1];
          }
        }
        for (idx i = 0; i < rows; ++i) {
          const idx oc = blk * 4 + i;
          const int32_t b =
              m.bias == nullptr ? 0
                                : static_cast<const int32_t*>(m.bias->data)
                                      [oc * static_cast<idx>(m.bias->strides[0])];
          for (int q = 0; q < 2; ++q) {
            const idx p0 = (g0 + k) * 8 + 4 * q;
            if (p0 < m.tiles) output_quad(m, n, oc, p0, mb[i][q], b);
          }
        }
      }
    }
  }
}

const int32_t* prepacked(const KernelCall& call, const Shape& s, int32_t& wmax) {
  const auto* h = static_cast<const PackHeader*>(call.prepacked);
  if (h == nullptr || h->magic != kWinogradMagic || h->d[0] != s.out_c || h->d[1] != s.in_c) {
    return nullptr;
  }
  wmax = static_cast<int32_t>(h->d[2]);
  return reinterpret_cast<const int32_t*>(h + 1);
}

// The call when it suits (see the top of the file); false, having written nothing, otherwise.
// Rows of x and y have unit stride (anything else is declined here).
bool winograd(const KernelCall& call, const Conv2dParams& p, const TensorView& x,
              const TensorView& w, const TensorView& y) {
  if (!eligible(w, p) || p.scratch == nullptr || x.strides[3] != 1 || y.strides[3] != 1 ||
      y.shape[0] == 0 || y.shape[2] * y.shape[3] < 4) {
    return false;
  }
  Run m{};
  m.s = shape_of(w);
  m.y = &y;
  m.bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  m.out_h = static_cast<idx>(y.shape[2]);
  m.out_w = static_cast<idx>(y.shape[3]);
  m.tw = (m.out_w + 1) / 2;
  const idx th = (m.out_h + 1) / 2;
  m.tiles = th * m.tw;
  m.xh = 2 * th + 2;
  m.xw = 2 * m.tw + 2;
  m.plane = m.xh * m.xw;
  constexpr int64_t kMaxLanes = int64_t{1} << 28;
  if (a_lanes(m.s) > kMaxLanes || static_cast<int64_t>(m.plane) * m.s.cpairs > kMaxLanes ||
      int64_t{16} * m.s.cpairs * 8 > kMaxLanes / 64) {
    return false;
  }
  // The ranges that keep every product and sum exact (see the top of the file).
  int32_t xlo = 0, xhi = 0, wmax = 0;
  const int32_t* a = prepacked(call, m.s, wmax);
  if (!view_range(x, xlo, xhi) || xlo < -kMaxX || xhi > kMaxX) return false;
  auto acquire = [&](int64_t lanes) {
    return static_cast<int32_t*>(p.scratch->acquire(p.scratch->ctx, lanes * 4));
  };
  int32_t* own = nullptr;
  if (a == nullptr) {
    int32_t lo = 0, hi = 0;
    if (!view_range(w, lo, hi) || lo < -kMaxW || hi > kMaxW) return false;
    wmax = std::max(-lo, hi);
  }
  const int64_t xmax = std::max(-xlo, xhi);
  if (int64_t{9} * m.s.in_c * xmax * wmax >= kMaxY) return false;
  const idx strip_bytes = 16 * m.s.cpairs * 32;
  const idx group_strips = std::max<idx>(1, std::min((m.tiles + 7) / 8, kVBytes / strip_bytes));
  if (a == nullptr) {
    own = acquire(a_lanes(m.s));
    if (own == nullptr) return false;
  }
  int32_t* xp = acquire(static_cast<int64_t>(m.s.cpairs) * m.plane + 8);
  m.v = acquire(static_cast<int64_t>(group_strips) * 16 * m.s.cpairs * 8);
  if (xp == nullptr || m.v == nullptr) return false;
  if (own != nullptr && !pack_a(m.s, w, own, wmax)) return false;
  m.a = a != nullptr ? a : own;
  m.xp = xp;
  for (idx n = 0; n < static_cast<idx>(y.shape[0]); ++n) {
    pack_channel_pairs(x, n, 0, m.s.in_c, static_cast<idx>(p.pad_h), static_cast<idx>(p.pad_w),
                       m.xh, m.xw, xp);
    run(m, n, group_strips);
  }
  return true;
}

}  // namespace

size_t conv2d_i32__wasm_winograd_prepack(const TensorView& w, const void* params, void* out,
                                         size_t cap) {
  if (!eligible(w, *static_cast<const Conv2dParams*>(params))) return 0;
  const Shape s = shape_of(w);
  if (a_lanes(s) > (int64_t{1} << 28)) return 0;
  const size_t bytes = sizeof(PackHeader) + static_cast<size_t>(a_lanes(s)) * 4;
  if (out == nullptr || cap < bytes) {
    int32_t lo = 0, hi = 0;
    return view_range(w, lo, hi) && lo >= -kMaxW && hi <= kMaxW ? bytes : 0;
  }
  auto* h = static_cast<PackHeader*>(out);
  int32_t wmax = 0;
  if (!pack_a(s, w, reinterpret_cast<int32_t*>(h + 1), wmax)) return 0;
  *h = PackHeader{kWinogradMagic, 0, {s.out_c, s.in_c, wmax, 0, 0, 0, 0}};
  return bytes;
}

KernelStatus conv2d_i32__wasm_winograd(const KernelCall& call) {
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView& y = call.outputs[0];
  return winograd(call, p, x, w, y) ? KernelStatus::kDone : KernelStatus::kDeclined;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
