// SIMD128 integer Winograd F(2x2, 3x3) for 3x3 stride-1 conv2d (the transforms, the exactness
// bounds and the weight layout: backends/winograd_f23.h): 16 multiplies per 2x2 output tile and
// input channel instead of 36, with the same bits as the reference.
//
// Layouts (int32 lanes holding int16 channel pairs, as in gemm_simd128.cc):
//   A (U):  winograd_f23.h's packed weights
//   V:      [16 positions][channel pairs][8 tiles]  for one strip of 8 tiles
// Tiles are the 2x2 output blocks, flattened over (tile row, tile column); a strip is 8 of them,
// so no lanes are lost at row ends. Per strip and block the 16 micro-GEMMs leave M[16][4][8] in
// registers and a small buffer, and the output transform writes the 4 channels' 8 tiles, each
// vector plus the bias, then through the fused output stage (Conv2dParams::clamp and scale,
// OutputStage in simd128.h) before it is stored.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "gemm_micro_simd128.h"
#include "kernel_abi.h"
#include "params/nn.h"
#include "wasm_kernels.h"
#include "winograd_f23.h"

namespace cvm {
namespace kernel {
namespace wasm {
namespace {

namespace wf = winograd_f23;

constexpr uint32_t kWinogradMagic = 0x474E5957u;  // "WYNG"
constexpr idx kVBytes = 256 * 1024;                // V of the strips one pass over A serves

struct Run {
  wf::Shape s;
  wf::Tiles g;  // the tiles and the padded copy X of one channel pair
  idx plane;    // cells of X per channel pair
  const TensorView* y;
  const TensorView* bias;
  const int32_t* a;
  const int32_t* xp;  // X: [channel pairs][xh][xw]
  int32_t* v;         // V of a group of strips: [strips][16][cpairs][8]
  OutputStage stage;  // Conv2dParams::clamp and scale, applied as the outputs are stored
};

// The 16 V vectors of 4 tiles starting at tile p0, channel pair plane x (tiles past the last
// repeat it). i16x8 arithmetic transforms both channels of a pair at once; exact as |x| <= kMaxX.
void input_quad(const Run& m, const int32_t* x, idx p0, v128_t (&v)[16]) {
  v128_t d[4][4];
  const idx pl = std::min(p0 + 3, m.g.tiles - 1);
  if (p0 / m.g.tw == pl / m.g.tw && p0 + 3 < m.g.tiles) {
    const int32_t* base = x + 2 * (p0 / m.g.tw) * m.g.xw + 2 * (p0 % m.g.tw);
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) d[r][c] = load4_strided<2>(base + r * m.g.xw + c, 2);
    }
  } else {
    const int32_t* base[4];
    for (int l = 0; l < 4; ++l) {
      const idx p = std::min(p0 + l, m.g.tiles - 1);
      base[l] = x + 2 * (p / m.g.tw) * m.g.xw + 2 * (p % m.g.tw);
    }
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) {
        const idx o = r * m.g.xw + c;
        d[r][c] = wasm_i32x4_make(base[0][o], base[1][o], base[2][o], base[3][o]);
      }
    }
  }
  wf::input_transform(
      d, v, [](v128_t p, v128_t q) { return wasm_i16x8_add(p, q); },
      [](v128_t p, v128_t q) { return wasm_i16x8_sub(p, q); });
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

// y of 4 tiles from p0 for output channel oc of image n: the output stage of A^T M A / 4 + bias
// (the clamp, then the channel's scale), M[t] in mq[t].
void output_quad(const Run& m, idx n, idx oc, idx p0, const v128_t* mq, int32_t bias) {
  v128_t y4[4];
  wf::output_transform(
      mq, y4, [](v128_t p, v128_t q) { return wasm_i32x4_add(p, q); },
      [](v128_t p, v128_t q) { return wasm_i32x4_sub(p, q); });
  const v128_t b = wasm_i32x4_splat(bias);
  const OutputStage::Channel stage = m.stage.channel(oc);
  auto finish = [&](v128_t s4) { return stage.vec(wasm_i32x4_add(wasm_i32x4_shr(s4, 2), b)); };
  const v128_t y00 = finish(y4[0]), y01 = finish(y4[1]), y10 = finish(y4[2]), y11 = finish(y4[3]);
  const TensorView& y = *m.y;
  const idx ys2 = static_cast<idx>(y.strides[2]);
  int32_t* yc = static_cast<int32_t*>(y.data) + n * static_cast<idx>(y.strides[0]) +
                oc * static_cast<idx>(y.strides[1]);
  const idx tr = p0 / m.g.tw, tc = p0 % m.g.tw;
  if (p0 + 3 < m.g.tiles && tc + 3 < m.g.tw && 2 * tc + 8 <= m.g.out_w && 2 * tr + 2 <= m.g.out_h) {
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
  for (idx l = 0; l < 4 && p0 + l < m.g.tiles; ++l) {
    const idx oh = 2 * ((p0 + l) / m.g.tw), ow = 2 * ((p0 + l) % m.g.tw);
    for (idx r = 0; r < 2 && oh + r < m.g.out_h; ++r) {
      for (idx c = 0; c < 2 && ow + c < m.g.out_w; ++c) yc[(oh + r) * ys2 + ow + c] = q[2 * r + c][l];
    }
  }
}

// Block blk (4 output channels) of image n over the ng strips from g0, whose V is at m.v.
void run_block(const Run& m, idx n, idx g0, idx ng, idx blk) {
  const idx vs = 16 * m.s.cpairs * 8;  // lanes of one strip's V
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
      const int32_t b = m.bias == nullptr ? 0
                                          : static_cast<const int32_t*>(m.bias->data)
                                                [oc * static_cast<idx>(m.bias->strides[0])];
      for (int q = 0; q < 2; ++q) {
        const idx p0 = (g0 + k) * 8 + 4 * q;
        if (p0 < m.g.tiles) output_quad(m, n, oc, p0, mb[i][q], b);
      }
    }
  }
}

void run(const KernelCall& call, const Run& m, idx n, idx group_strips) {
  const idx strips = (m.g.tiles + 7) / 8;
  const idx vs = 16 * m.s.cpairs * 8;  // lanes of one strip's V
  for (idx g0 = 0; g0 < strips; g0 += group_strips) {
    const idx ng = std::min(group_strips, strips - g0);
    for (idx k = 0; k < ng; ++k) input_strip(m, g0 + k, m.v + k * vs);
    // Blocks outer: a block's A (16 * cpairs * 16 bytes) stays in cache across the strips. Each
    // block writes its own 4 output channels, so the blocks split over threads.
    parallel_items(call, m.s.blocks, int64_t{16} * ng * m.s.cpairs * 64, [&](idx b0, idx b1) {
      for (idx blk = b0; blk < b1; ++blk) run_block(m, n, g0, ng, blk);
    });
  }
}

// The call when it suits (see the top of the file); false, having written nothing, otherwise.
// Rows of x and y have unit stride (anything else is declined here).
bool winograd(const KernelCall& call) {
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView &x = call.inputs[0], &w = call.inputs[1], &y = call.outputs[0];
  if (!wf::eligible(w, p) || p.scratch == nullptr || x.strides[3] != 1 || y.strides[3] != 1 ||
      y.shape[0] == 0 || y.shape[2] * y.shape[3] < 4) {
    return false;
  }
  Run m{};
  m.s = wf::shape_of(w);
  m.g = wf::tiles_of(y);
  m.plane = m.g.xh * m.g.xw;
  m.y = &y;
  m.bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  m.stage = OutputStage(p.clamp, p.scale);
  constexpr int64_t kMaxLanes = int64_t{1} << 28;
  if (wf::a_lanes(m.s) > kMaxLanes || static_cast<int64_t>(m.plane) * m.s.cpairs > kMaxLanes ||
      int64_t{16} * m.s.cpairs * 8 > kMaxLanes / 64) {
    return false;
  }
  // The ranges that keep every product and sum exact (winograd_f23.h).
  int32_t xlo = 0, xhi = 0;
  int64_t wmax = 0;
  const int32_t* a = wf::packed(call.prepacked, m.s, kWinogradMagic, wmax);
  if (!view_range(x, xlo, xhi)) return false;
  auto acquire = [&](int64_t lanes) {
    return static_cast<int32_t*>(p.scratch->acquire(p.scratch->ctx, lanes * 4));
  };
  int32_t* own = nullptr;
  if (a == nullptr && m.g.tiles * y.shape[0] < wf::kMinTilesUnpacked) return false;
  if (a == nullptr) wmax = wf::weight_max(w);
  if (!wf::exact(m.s.in_c, std::max<int64_t>(-int64_t{xlo}, xhi), wmax)) return false;
  const idx strip_bytes = 16 * m.s.cpairs * 32;
  const idx group_strips = std::max<idx>(1, std::min((m.g.tiles + 7) / 8, kVBytes / strip_bytes));
  if (a == nullptr) {
    own = acquire(wf::a_lanes(m.s));
    if (own == nullptr) return false;
  }
  int32_t* xp = acquire(static_cast<int64_t>(m.s.cpairs) * m.plane + 8);
  m.v = acquire(static_cast<int64_t>(group_strips) * 16 * m.s.cpairs * 8);
  if (xp == nullptr || m.v == nullptr) return false;
  if (own != nullptr) wf::pack_weights(m.s, w, own);  // its range: exact() above
  m.a = a != nullptr ? a : own;
  m.xp = xp;
  for (idx n = 0; n < static_cast<idx>(y.shape[0]); ++n) {
    pack_channel_pairs(x, n, 0, m.s.in_c,
                       {static_cast<idx>(p.pad_h), static_cast<idx>(p.pad_w), 1, 1}, m.g.xh,
                       m.g.xw, xp);
    run(call, m, n, group_strips);
  }
  return true;
}

}  // namespace

size_t conv2d_i32__wasm_winograd_prepack(const TensorView& w, const void* params, void* out,
                                         size_t cap) {
  return wf::prepack(w, params, out, cap, kWinogradMagic);
}

KernelStatus conv2d_i32__wasm_winograd(const KernelCall& call) {
  return winograd(call) ? KernelStatus::kDone : KernelStatus::kDeclined;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
