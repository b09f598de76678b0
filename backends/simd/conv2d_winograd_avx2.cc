// conv2d 3x3 stride 1 on AVX2 by integer Winograd F(2x2, 3x3) (the transforms, the exactness
// bounds and the weight layout: backends/winograd_f23.h): vpmaddwd over channel pairs, 16
// products per 2x2 output tile and channel instead of 36, the same bits as the reference.
//
// V: [16 positions][channel pairs][16 tiles] for one strip of 16 tiles (two vectors of 8),
// tiles flattened over (tile row, tile column). Per strip and block of 4 output channels the 16
// micro-GEMMs leave M[4][2][16] vectors, and the output transform writes the block's 16 tiles.
// Blocks run in parallel; the input transform of a group of strips runs first, on the caller.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "gemm_kernels.h"
#include "params/nn.h"
#include "winograd_f23.h"

namespace cvm {
namespace kernel {
namespace simd {
namespace {

using idx = ptrdiff_t;
namespace wf = winograd_f23;

constexpr uint32_t kMagic = 0x32574741u;  // "AGW2"
constexpr idx kStrip = 16;                // tiles per strip
constexpr idx kVBytes = 512 * 1024;       // V of the strips one pass over A serves

struct Run {
  wf::Shape s;
  wf::Tiles g;
  idx plane;          // cells of X per channel pair
  const TensorView* y;
  const TensorView* bias;
  const CvmClampParams* clamp;  // Conv2dParams::clamp, applied as the outputs are stored
  const ChannelScale* scale;    // Conv2dParams::scale, applied after it
  const int32_t* a;   // winograd_f23.h's packed weights
  const int32_t* xp;  // X: [channel pairs][xh][xw]
  int32_t* v;         // V of a group of strips: [strips][16][cpairs][16]
  idx n;              // the image
};

// X of image n: cell (j, r, col) pairs channels 2j and 2j + 1 (0 past an odd count) of input
// row r - pad_h, column col - pad_w; 0 outside the input.
void pack_x(const TensorView& x, idx n, const Conv2dParams& p, const Run& m, int32_t* dst) {
  const auto* xd = static_cast<const int32_t*>(x.data);
  const idx in_h = static_cast<idx>(x.shape[2]), in_w = static_cast<idx>(x.shape[3]);
  const idx ph = static_cast<idx>(p.pad_h), pw = static_cast<idx>(p.pad_w);
  for (idx j = 0; j < m.s.cpairs; ++j) {
    const int32_t* c0 = xd + n * x.strides[0] + 2 * j * x.strides[1];
    const bool odd = 2 * j + 1 == m.s.in_c;
    for (idx r = 0; r < m.g.xh; ++r, dst += m.g.xw) {
      const idx ih = r - ph;
      if (ih < 0 || ih >= in_h) {
        std::memset(dst, 0, static_cast<size_t>(m.g.xw) * 4);
        continue;
      }
      const int32_t* row = c0 + ih * x.strides[2];
      for (idx col = 0; col < m.g.xw; ++col) {
        const idx iw = col - pw;
        if (iw < 0 || iw >= in_w) {
          dst[col] = 0;
          continue;
        }
        const int32_t lo = row[iw * x.strides[3]];
        dst[col] = wf::pair16(lo, odd ? 0 : row[x.strides[1] + iw * x.strides[3]]);
      }
    }
  }
}

// p[0], p[2], ..., p[14].
inline __m256i evens(const int32_t* p) {
  const __m256 lo = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  const __m256 hi =
      _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 8)));
  const __m256 sh = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));  // 64-bit chunks 0 2 1 3
  return _mm256_castpd_si256(_mm256_permute4x64_pd(_mm256_castps_pd(sh), _MM_SHUFFLE(3, 1, 2, 0)));
}

// The 16 V vectors of 8 tiles from tile p0 of one channel-pair plane x (tiles past the last
// repeat it). 16-bit arithmetic transforms both channels of a pair at once, exactly while
// |x| <= kMaxX.
void input_octet(const Run& m, const int32_t* x, idx p0, __m256i (&v)[16]) {
  __m256i d[4][4];
  if (p0 + 7 < m.g.tiles && p0 % m.g.tw + 7 < m.g.tw) {  // 8 tiles on one tile row
    const int32_t* base = x + 2 * (p0 / m.g.tw) * m.g.xw + 2 * (p0 % m.g.tw);
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) d[r][c] = evens(base + r * m.g.xw + c);
    }
  } else {
    alignas(32) int32_t lanes[4][4][8];
    for (int l = 0; l < 8; ++l) {
      const idx p = std::min(p0 + l, m.g.tiles - 1);
      const int32_t* base = x + 2 * (p / m.g.tw) * m.g.xw + 2 * (p % m.g.tw);
      for (int r = 0; r < 4; ++r) {
        for (int c = 0; c < 4; ++c) lanes[r][c][l] = base[r * m.g.xw + c];
      }
    }
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) {
        d[r][c] = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes[r][c]));
      }
    }
  }
  wf::input_transform(
      d, v, [](__m256i p, __m256i q) { return _mm256_add_epi16(p, q); },
      [](__m256i p, __m256i q) { return _mm256_sub_epi16(p, q); });
}

// V of strip st into dst: [16][cpairs][16].
void input_strip(const Run& m, idx st, int32_t* dst) {
  for (idx j = 0; j < m.s.cpairs; ++j) {
    const int32_t* x = m.xp + j * m.plane;
    for (int q = 0; q < 2; ++q) {
      __m256i v[16];
      input_octet(m, x, st * kStrip + 8 * q, v);
      for (int t = 0; t < 16; ++t) {
        _mm256_store_si256(reinterpret_cast<__m256i*>(dst + (t * m.s.cpairs + j) * kStrip + 8 * q),
                           v[t]);
      }
    }
  }
}

// acc[i][q] = sum over channel pairs of A lane i times V vector q: 4 channels x 16 tiles.
inline void micro(const int32_t* a, const int32_t* b, idx kp, __m256i (&acc)[4][2]) {
  for (int i = 0; i < 4; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_si256();
  for (idx k = 0; k < kp; ++k, a += 4, b += kStrip) {
    const __m256i b0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(b));
    const __m256i b1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(b + 8));
    for (int i = 0; i < 4; ++i) {
      const __m256i av = _mm256_set1_epi32(a[i]);
      acc[i][0] = _mm256_add_epi32(acc[i][0], _mm256_madd_epi16(b0, av));
      acc[i][1] = _mm256_add_epi32(acc[i][1], _mm256_madd_epi16(b1, av));
    }
  }
}

#include "clamp_lanes.inc"  // ClampLanes

// y of 8 tiles from p0 for output channel oc: A^T M A / 4 + bias, then Conv2dParams::clamp and
// scale when set; M[t] in mq[t].
void output_octet(const Run& m, idx oc, idx p0, const __m256i* mq, int32_t bias) {
  __m256i y4[4];
  wf::output_transform(
      mq, y4, [](__m256i p, __m256i q) { return _mm256_add_epi32(p, q); },
      [](__m256i p, __m256i q) { return _mm256_sub_epi32(p, q); });
  const __m256i b = _mm256_set1_epi32(bias);
  const ClampLanes<Lanes256> clamp(m.clamp);
  const ClampLanes<Lanes256> scale_clamp(m.scale != nullptr ? &m.scale->clamp : nullptr);
  auto finish = [&](__m256i s4) {
    __m256i v = _mm256_add_epi32(_mm256_srai_epi32(s4, 2), b);
    if (m.clamp != nullptr) v = clamp(v);
    if (m.scale != nullptr) {
      v = scale_clamp(_mm256_mullo_epi32(v, _mm256_set1_epi32(m.scale->multiplier[oc])));
    }
    return v;
  };
  const __m256i y00 = finish(y4[0]), y01 = finish(y4[1]), y10 = finish(y4[2]),
                y11 = finish(y4[3]);
  const TensorView& y = *m.y;
  int32_t* yc = static_cast<int32_t*>(y.data) + m.n * y.strides[0] + oc * y.strides[1];
  const idx tr = p0 / m.g.tw, tc = p0 % m.g.tw;
  if (y.strides[3] == 1 && p0 + 7 < m.g.tiles && tc + 7 < m.g.tw && 2 * tc + 16 <= m.g.out_w &&
      2 * tr + 2 <= m.g.out_h) {
    // 8 whole tiles on one tile row: 2 rows of 16 outputs.
    int32_t* r0 = yc + 2 * tr * y.strides[2] + 2 * tc;
    const __m256i rows[2][2] = {{y00, y01}, {y10, y11}};
    for (int r = 0; r < 2; ++r) {
      const __m256i lo = _mm256_unpacklo_epi32(rows[r][0], rows[r][1]);
      const __m256i hi = _mm256_unpackhi_epi32(rows[r][0], rows[r][1]);
      int32_t* dst = r0 + r * y.strides[2];
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_permute2x128_si256(lo, hi, 0x20));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 8),
                          _mm256_permute2x128_si256(lo, hi, 0x31));
    }
    return;
  }
  alignas(32) int32_t q[4][8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(q[0]), y00);
  _mm256_store_si256(reinterpret_cast<__m256i*>(q[1]), y01);
  _mm256_store_si256(reinterpret_cast<__m256i*>(q[2]), y10);
  _mm256_store_si256(reinterpret_cast<__m256i*>(q[3]), y11);
  for (idx l = 0; l < 8 && p0 + l < m.g.tiles; ++l) {
    const idx oh = 2 * ((p0 + l) / m.g.tw), ow = 2 * ((p0 + l) % m.g.tw);
    for (idx r = 0; r < 2 && oh + r < m.g.out_h; ++r) {
      for (idx c = 0; c < 2 && ow + c < m.g.out_w; ++c) {
        yc[(oh + r) * y.strides[2] + (ow + c) * y.strides[3]] = q[2 * r + c][l];
      }
    }
  }
}

// Blocks [begin, end) of the strips [g0, g0 + ng), whose V is at m.v.
struct Blocks {
  const Run* m;
  idx g0, ng;
};

void run_blocks(void* user, int64_t begin, int64_t end) {
  const Blocks& b = *static_cast<const Blocks*>(user);
  const Run& m = *b.m;
  const idx vs = 16 * m.s.cpairs * kStrip;  // lanes of one strip's V
  for (idx blk = static_cast<idx>(begin); blk < static_cast<idx>(end); ++blk) {
    const int32_t* ab = m.a + blk * m.s.cpairs * 4;
    const idx rows = std::min<idx>(4, m.s.out_c - blk * 4);
    for (idx k = 0; k < b.ng; ++k) {
      __m256i mb[4][2][16];  // [channel][tile octet][position]
      for (int t = 0; t < 16; ++t) {
        __m256i acc[4][2];
        micro(ab + t * m.s.blocks * m.s.cpairs * 4, m.v + k * vs + t * m.s.cpairs * kStrip,
              m.s.cpairs, acc);
        for (int i = 0; i < 4; ++i) {
          mb[i][0][t] = acc[i][0];
          mb[i][1][t] = acc[i][1];
        }
      }
      for (idx i = 0; i < rows; ++i) {
        const idx oc = blk * 4 + i;
        const int32_t bias =
            m.bias == nullptr
                ? 0
                : static_cast<const int32_t*>(m.bias->data)[oc * m.bias->strides[0]];
        for (int q = 0; q < 2; ++q) {
          const idx p0 = (b.g0 + k) * kStrip + 8 * q;
          if (p0 < m.g.tiles) output_octet(m, oc, p0, mb[i][q], bias);
        }
      }
    }
  }
}

// The largest |x| over a 4-D view (any strides), stopping early past `limit`.
int64_t input_max(const TensorView& x, int64_t limit) {
  const auto* d = static_cast<const int32_t*>(x.data);
  int64_t m = 0;
  for (int64_t a = 0; a < x.shape[0]; ++a) {
    for (int64_t c = 0; c < x.shape[1]; ++c) {
      for (int64_t h = 0; h < x.shape[2]; ++h) {
        const int32_t* row = d + a * x.strides[0] + c * x.strides[1] + h * x.strides[2];
        for (int64_t w = 0; w < x.shape[3]; ++w) {
          const int64_t v = row[w * x.strides[3]];
          m = std::max(m, v < 0 ? -v : v);
        }
        if (m > limit) return m;
      }
    }
  }
  return m;
}

}  // namespace

size_t conv2d_i16i32__avx2_winograd_prepack(const TensorView& w, const void* params, void* out,
                                            size_t cap) {
  return wf::prepack(w, params, out, cap, kMagic);
}

KernelStatus conv2d_i16i32__avx2_winograd(const KernelCall& call) {
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView& y = call.outputs[0];
  // int32 activations only (no KernelEntry::takes_int8_activations): an int8 view declines.
  if (x.type != ElemType::kInt32 || y.type != ElemType::kInt32) return KernelStatus::kDeclined;
  if (!wf::eligible(w, p) || p.scratch == nullptr || y.shape[0] == 0 ||
      y.shape[2] * y.shape[3] < 4) {
    return KernelStatus::kDeclined;
  }
  Run m{};
  m.s = wf::shape_of(w);
  m.g = wf::tiles_of(y);
  m.plane = m.g.xh * m.g.xw;
  m.y = &y;
  m.bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  m.clamp = p.clamp;
  m.scale = p.scale;
  constexpr int64_t kMaxLanes = int64_t{1} << 28;
  if (wf::a_lanes(m.s) > kMaxLanes || static_cast<int64_t>(m.plane) * m.s.cpairs > kMaxLanes) {
    return KernelStatus::kDeclined;
  }
  // The ranges that keep every product and sum exact (winograd_f23.h).
  int64_t wmax = 0;
  const int32_t* a = wf::packed(call.prepacked, m.s, kMagic, wmax);
  if (a == nullptr && m.g.tiles * y.shape[0] < wf::kMinTilesUnpacked) {
    return KernelStatus::kDeclined;
  }
  if (a == nullptr) wmax = wf::weight_max(w);
  if (!wf::exact(m.s.in_c, input_max(x, wf::kMaxX), wmax)) return KernelStatus::kDeclined;
  const idx strip_bytes = 16 * m.s.cpairs * kStrip * 4;
  const idx strips = (m.g.tiles + kStrip - 1) / kStrip;
  const idx group = std::max<idx>(1, std::min(strips, kVBytes / strip_bytes));
  auto acquire = [&](int64_t lanes) {
    return static_cast<int32_t*>(p.scratch->acquire(p.scratch->ctx, lanes * 4));
  };
  int32_t* own = a == nullptr ? acquire(wf::a_lanes(m.s)) : nullptr;
  // X with a vector's slack past its end (the stride-2 loads read one cell past a row).
  int32_t* xp = acquire(static_cast<int64_t>(m.s.cpairs) * m.plane + 16);
  m.v = acquire(static_cast<int64_t>(group) * 16 * m.s.cpairs * kStrip);
  if ((a == nullptr && own == nullptr) || xp == nullptr || m.v == nullptr) {
    return KernelStatus::kDeclined;
  }
  if (own != nullptr) wf::pack_weights(m.s, w, own);  // its range: exact() above
  m.a = a != nullptr ? a : own;
  m.xp = xp;
  std::memset(xp + m.s.cpairs * m.plane, 0, 16 * 4);
  for (idx n = 0; n < static_cast<idx>(y.shape[0]); ++n) {
    m.n = n;
    pack_x(x, n, p, m, xp);
    for (idx g0 = 0; g0 < strips; g0 += group) {
      Blocks b{&m, g0, std::min(group, strips - g0)};
      for (idx k = 0; k < b.ng; ++k) input_strip(m, g0 + k, m.v + k * 16 * m.s.cpairs * kStrip);
      const ParallelFor* par = call.parallel;
      const int64_t work = int64_t{16} * b.ng * kStrip * m.s.cpairs * 8;  // MACs a block
      if (par == nullptr || m.s.blocks < 2 || m.s.blocks * work < 2 * par->min_task_work) {
        run_blocks(&b, 0, m.s.blocks);
      } else {
        par->run(par->ctx, m.s.blocks, run_blocks, &b);
      }
    }
  }
  return KernelStatus::kDone;
}

}  // namespace simd
}  // namespace kernel
}  // namespace cvm
