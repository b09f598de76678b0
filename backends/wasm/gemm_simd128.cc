// SIMD128 int16-pair GEMM of conv2d (packed im2col panels) and dense, and their weight packers.
//
// Both ops become C[r, c] = sum over k of A[r, k] * B[k, c] with k running over int16 pairs: each
// int32 lane holds two int16 values (the first in the low half, 0 past an odd end), and each
// i32x4.dot_i16x8_s does 8 multiply-adds. Exact modulo 2^32 when every operand fits int16 (see
// nn_simd128.cc): the callers check the ranges first and fall back to i32x4.mul paths.
//
// Layouts (int32 lanes):
//   A: [row blocks of 4][k pairs][4]       4 rows' pairs side by side, splatted one at a time
//   B: [column strips of 8][k pairs][8]    8 columns' pairs side by side, loaded as 2 vectors
// The micro-kernel keeps 4 x 8 accumulators (8 vectors) in registers and reads only A and B,
// contiguously: 2 vector loads and 4 splat loads per 8 dot products, no address arithmetic besides
// two pointer increments.
//   conv2d: rows = output channels of a group (A = the weights, packed once per call or
//           prepacked), columns = output pixels of one image, flattened over (oh, ow), so no
//           lanes are wasted on row ends; B is gathered tile by tile from a zero-padded,
//           channel-paired copy of x (no border cases), or column-paired for few channels and
//           wide kernels (ConvShape).
//   dense:  rows = rows of x (A packed per call), columns = units (B = the weights, packed per
//           call or prepacked).
// Both add the bias and apply the fused output stage to the accumulators in registers as they
// store them: conv2d Conv2dParams::clamp, then Conv2dParams::scale of each row's output channel
// (OutputStage in simd128.h); dense DenseParams::clamp (OutputClamp). x may be an int8 view and
// y too (int8 activations): the packing widens x's values into the int16 pairs, the stores
// narrow y's (Act in simd128.h).
#include "gemm_simd128.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "gemm_micro_simd128.h"
#include "params/nn.h"

namespace cvm {
namespace kernel {
namespace wasm {
namespace {

// 4x4 transpose of int32 lanes: r[i] lane j -> out[j] lane i.
inline void transpose4(v128_t (&r)[4]) {
  const v128_t t0 = wasm_i32x4_shuffle(r[0], r[1], 0, 4, 1, 5);
  const v128_t t1 = wasm_i32x4_shuffle(r[2], r[3], 0, 4, 1, 5);
  const v128_t t2 = wasm_i32x4_shuffle(r[0], r[1], 2, 6, 3, 7);
  const v128_t t3 = wasm_i32x4_shuffle(r[2], r[3], 2, 6, 3, 7);
  r[0] = wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5);
  r[1] = wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7);
  r[2] = wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5);
  r[3] = wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7);
}

// Rows r0 .. r0 + nr (nr <= 4; missing rows are zero) of a row-major matrix of T (int32_t, or
// int8_t: int8 activations; row pitch rs, unit inner stride, depth k) as int16 pairs interleaved
// by lanes: dst[kp][ls] with lane i = pair (2j, 2j + 1) of row i (ls >= nr: the lane stride, 4
// or 8). lo/hi: running min / max.
template <class T>
void pack_rows4(const T* src, idx rs, idx nr, idx depth, int32_t* dst, idx ls, v128_t& lo,
                v128_t& hi) {
  static const T kZero[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const T* row[4];
  for (idx i = 0; i < 4; ++i) row[i] = i < nr ? src + i * rs : kZero;
  idx k = 0;
  const idx kp = (depth + 1) / 2;
  for (; k + 8 <= depth; k += 8) {
    v128_t r[4];
    for (int i = 0; i < 4; ++i) {
      const T* q = row[i] + (i < nr ? k : 0);
      const v128_t a = load4(q), b = load4(q + 4);
      lo = wasm_i32x4_min(lo, wasm_i32x4_min(a, b));
      hi = wasm_i32x4_max(hi, wasm_i32x4_max(a, b));
      r[i] = wasm_i16x8_narrow_i32x4(a, b);  // exact once the range check passes
    }
    transpose4(r);
    int32_t* d = dst + (k / 2) * ls;
    for (int c = 0; c < 4; ++c) store4(d + c * ls, r[c]);
  }
  for (idx j = k / 2; j < kp; ++j) {
    int32_t lane[4];
    for (idx i = 0; i < 4; ++i) {
      if (i >= nr) {
        lane[i] = 0;
        continue;
      }
      const int32_t v0 = row[i][2 * j], v1 = 2 * j + 1 < depth ? row[i][2 * j + 1] : 0;
      lo = wasm_i32x4_min(lo, wasm_i32x4_splat(std::min(v0, v1)));
      hi = wasm_i32x4_max(hi, wasm_i32x4_splat(std::max(v0, v1)));
      lane[i] = pair16(v0, v1);
    }
    store4(dst + j * ls, wasm_v128_load(lane));
  }
}

// ---------------------------------------------------------------------------------------------
// conv2d

constexpr uint32_t kConvMagic = 0x43363157u;   // "W16C"
constexpr uint32_t kDenseMagic = 0x44363157u;  // "W16D"

// A lane's int16 pair holds two channels of one tap (channel pairs), or two taps of one
// channel side by side in a kernel row (column pairs: kw and kw + 1), whichever needs fewer
// pairs: column pairs for few channels and wide kernels (an RGB 7x7 stem: 84 instead of 98,
// where every second channel pair is half empty).
struct ConvShape {
  idx out_c, group_c, kh, kw, groups;
  idx per_group, cpairs, blocks;
  bool column_pairs;
  idx taps_w;  // k steps along a kernel row: kw, or ceil(kw / 2) with column pairs
  idx depth;   // pairs per tap step (X's planes): cpairs, or group_c with column pairs
  idx kp;      // k pairs: kh * taps_w * depth
};

ConvShape conv_shape(const TensorView& w, int64_t groups) {
  ConvShape s{};
  s.out_c = static_cast<idx>(w.shape[0]);
  s.group_c = static_cast<idx>(w.shape[1]);
  s.kh = static_cast<idx>(w.shape[2]);
  s.kw = static_cast<idx>(w.shape[3]);
  s.groups = static_cast<idx>(groups);
  s.per_group = s.out_c / s.groups;
  s.cpairs = (s.group_c + 1) / 2;
  s.column_pairs = (s.kw + 1) / 2 * s.group_c < s.kw * s.cpairs;
  s.taps_w = s.column_pairs ? (s.kw + 1) / 2 : s.kw;
  s.depth = s.column_pairs ? s.group_c : s.cpairs;
  s.kp = s.kh * s.taps_w * s.depth;
  s.blocks = (s.per_group + 3) / 4;
  return s;
}

// Lanes of A for every group: groups * blocks * kp * 4.
int64_t conv_a_lanes(const ConvShape& s) {
  return static_cast<int64_t>(s.groups) * s.blocks * s.kp * 4;
}

// A from w: weight (oc, c, kh, kw) is the c % 2 half of lane oc % 4 of pair (kh, kw, c / 2) of
// block oc / 4 of its group (with column pairs: the kw % 2 half of pair (kh, kw / 2, c)). False
// (a in an unspecified state) when a weight is outside int16.
bool pack_conv_a(const ConvShape& s, const TensorView& w, int32_t* a) {
  const auto* wd = static_cast<const int32_t*>(w.data);
  const idx s0 = static_cast<idx>(w.strides[0]), s1 = static_cast<idx>(w.strides[1]),
            s2 = static_cast<idx>(w.strides[2]), s3 = static_cast<idx>(w.strides[3]);
  if (s.kh == 1 && s.kw == 1 && s1 == 1) {
    // 1x1: each block is 4 rows of w as int16 pairs side by side, as dense packs x.
    v128_t lo = wasm_i32x4_splat(0), hi = wasm_i32x4_splat(0);
    for (idx grp = 0; grp < s.groups; ++grp) {
      for (idx blk = 0; blk < s.blocks; ++blk) {
        const idx o = blk * 4, nr = std::min<idx>(4, s.per_group - o);
        pack_rows4(wd + (grp * s.per_group + o) * s0, s0, nr, s.group_c,
                   a + (grp * s.blocks + blk) * s.kp * 4, 4, lo, hi);
      }
    }
    return hmin(lo) >= -32768 && hmax(hi) <= 32767;
  }
  std::memset(a, 0, static_cast<size_t>(conv_a_lanes(s) * 4));
  int32_t lo = 0, hi = 0;
  for (idx oc = 0; oc < s.out_c; ++oc) {
    const idx grp = oc / s.per_group, o = oc % s.per_group;
    int32_t* lane = a + ((grp * s.blocks + o / 4) * s.kp * 4 + o % 4);
    for (idx kh = 0; kh < s.kh; ++kh) {
      for (idx t = 0; t < s.taps_w; ++t) {
        for (idx j = 0; j < s.depth; ++j, lane += 4) {
          // The pair's two weights: channels 2j, 2j + 1 of tap t, or taps 2t, 2t + 1 of channel j.
          const idx c = s.column_pairs ? j : 2 * j, kw = s.column_pairs ? 2 * t : t;
          const bool second = s.column_pairs ? kw + 1 < s.kw : c + 1 < s.group_c;
          const int32_t* wt = wd + oc * s0 + c * s1 + kh * s2 + kw * s3;
          const int32_t v0 = wt[0], v1 = second ? wt[s.column_pairs ? s3 : s1] : 0;
          lo = std::min(lo, std::min(v0, v1));
          hi = std::max(hi, std::max(v0, v1));
          *lane = pair16(v0, v1);
        }
      }
    }
  }
  return lo >= -32768 && hi <= 32767;
}

// The zero-padded, column-paired copy of image n of x, channels [c0, c0 + channels): cell
// (c, r, col) of dst ([channels][xh][xw]) pairs input row r - ph of channel c0 + c at columns
// col - pw and col - pw + dw (the taps kw, kw + 1 of a kernel row), 0 outside the input. (Column
// pairs come with kernels wider than 1, so at's steps are 1.) T: int32_t or int8_t.
template <class T>
void pack_columns_of(const TensorView& x, idx n, idx c0, idx channels, const CellMap& at, idx dw,
                     idx xh, idx xw, int32_t* dst) {
  const idx in_h = static_cast<idx>(x.shape[2]), in_w = static_cast<idx>(x.shape[3]);
  const idx xs1 = static_cast<idx>(x.strides[1]), xs2 = static_cast<idx>(x.strides[2]);
  // Cells [lo, hi) read both columns inside the input: col - pw >= 0, col - pw + dw < in_w.
  const idx lo = std::min(xw, at.pw), hi = std::max(lo, std::min(xw, in_w - dw + at.pw));
  const T* xg = static_cast<const T*>(x.data) + n * static_cast<idx>(x.strides[0]) + c0 * xs1;
  auto cell = [&](const T* row, idx col) {
    const idx i0 = col - at.pw, i1 = i0 + dw;
    return pair16(i0 >= 0 && i0 < in_w ? row[i0] : 0, i1 >= 0 && i1 < in_w ? row[i1] : 0);
  };
  for (idx c = 0; c < channels; ++c) {
    for (idx r = 0; r < xh; ++r, dst += xw) {
      const idx ih = r - at.ph;
      if (ih < 0 || ih >= in_h) {
        std::memset(dst, 0, static_cast<size_t>(xw * 4));
        continue;
      }
      const T* row = xg + c * xs1 + ih * xs2;
      idx col = 0;
      for (; col < lo; ++col) dst[col] = cell(row, col);
      for (; col + 4 <= hi; col += 4) {
        const T* q = row + col - at.pw;
        store4(dst + col, interleave_low16(load4(q), load4(q + dw)));
      }
      for (; col < xw; ++col) dst[col] = cell(row, col);
    }
  }
}

void pack_column_pairs(const TensorView& x, idx n, idx c0, idx channels, const CellMap& at, idx dw,
                       idx xh, idx xw, int32_t* dst) {
  if (x.type == ElemType::kInt8) {
    pack_columns_of<int8_t>(x, n, c0, channels, at, dw, xh, xw, dst);
  } else {
    pack_columns_of<int32_t>(x, n, c0, channels, at, dw, xh, xw, dst);
  }
}

struct ConvRun {
  const Conv2dParams* p;
  const TensorView* x;
  const TensorView* bias;
  const TensorView* y;
  ConvShape s;
  idx out_h, out_w, npix;
  idx sh, sw, dh, dw;  // the GEMM's strides and dilations over X
  CellMap at;          // where X's cells lie in x
  idx xh, xw,
      plane;         // the padded copy X: rows, columns and cells of one channel pair
  idx tile_strips;   // strips of 8 pixels per B tile
  idx kc;            // k pairs per chunk
  const int32_t* a;  // A of every group
  int32_t* xp;       // X: [channel pairs][xh][xw]
  int32_t* bt;       // the B tile: [strips][kp][8]
  v128_t* c;         // partial sums between chunks: [strips][blocks][4][2]
  OutputStage stage;  // Conv2dParams::clamp and scale, applied as the outputs are stored
};

// X of image n, group grp (pack_channel_pairs, or pack_column_pairs).
void pack_x(const ConvRun& m, idx n, idx grp) {
  if (m.s.column_pairs) {
    pack_column_pairs(*m.x, n, grp * m.s.group_c, m.s.group_c, m.at, m.dw, m.xh, m.xw, m.xp);
  } else {
    pack_channel_pairs(*m.x, n, grp * m.s.group_c, m.s.group_c, m.at, m.xh, m.xw, m.xp);
  }
}

// The B tile of strips [s0, s0 + ns): strip t, k pair (kh, kw, j), lane l holds the X cell
// (j, oh * sh + kh * dh, ow * sw + kw * dw) of pixel p = (s0 + t) * 8 + l = oh * out_w + ow.
// Lanes past the last pixel repeat it (computed, never stored). A quad of pixels on one output
// row reads 4 cells of one X row (a vector load for stride 1); others gather.
template <int S>
void pack_b(const ConvRun& m, idx s0, idx ns) {
  const idx kp = m.s.kp;
  for (idx t = 0; t < ns; ++t) {
    int32_t* dst = m.bt + t * kp * 8;
    idx base[2];
    bool row[2];
    idx off[2][4];
    for (int q = 0; q < 2; ++q) {
      const idx p0 = (s0 + t) * 8 + q * 4;
      for (int l = 0; l < 4; ++l) {
        const idx p = std::min(p0 + l, m.npix - 1);
        off[q][l] = p / m.out_w * m.sh * m.xw + p % m.out_w * m.sw;
      }
      const idx pl = std::min(p0 + 3, m.npix - 1), pf = std::min(p0, m.npix - 1);
      row[q] = p0 + 3 < m.npix && pf / m.out_w == pl / m.out_w;
      base[q] = off[q][0];
    }
    // Column pairs step two taps along a row at a time (the pair holds both).
    const idx tap_step = m.s.column_pairs ? 2 * m.dw : m.dw;
    for (idx kh = 0; kh < m.s.kh; ++kh) {
      for (idx t = 0; t < m.s.taps_w; ++t) {
        const int32_t* src = m.xp + kh * m.dh * m.xw + t * tap_step;
        for (idx j = 0; j < m.s.depth; ++j, src += m.plane, dst += 8) {
          for (int q = 0; q < 2; ++q) {
            v128_t v;
            if (row[q]) {
              v = load4_strided<S>(src + base[q], m.sw);
            } else {
              v = wasm_i32x4_make(src[off[q][0]], src[off[q][1]], src[off[q][2]], src[off[q][3]]);
            }
            store4(dst + 4 * q, v);
          }
        }
      }
    }
  }
}

// Block blk (of group grp) times strip t of the tile at s0, k pairs [k0, k0 + kn): 4 output
// channels x 8 pixels. Continues from the sums in c unless first; stores them back to c unless
// last, when it adds the bias, applies each channel's output stage and writes y.
void conv_strip(const ConvRun& m, idx n, idx grp, idx blk, idx s0, idx t, idx k0, idx kn, v128_t* c,
                bool first, bool last) {
  v128_t acc[4][2];
  micro<4, 2, 4>(m.a + ((grp * m.s.blocks + blk) * m.s.kp + k0) * 4, m.bt + (t * m.s.kp + k0) * 8,
                 kn, first ? nullptr : c, acc);
  if (!last) {
    for (int i = 0; i < 4; ++i) {
      for (int v = 0; v < 2; ++v) c[i * 2 + v] = acc[i][v];
    }
    return;
  }
  const TensorView& y = *m.y;
  const idx rows = std::min<idx>(4, m.s.per_group - blk * 4);
  const idx p0 = (s0 + t) * 8;
  const idx ys2 = static_cast<idx>(y.strides[2]);
  // Where each vector's pixels go, once for the 4 rows: at yc + at[v] when they lie in one output
  // row (or y's rows follow each other: pixel p at yc + p), else lane by lane (at[v] < 0); its
  // first count[v] lanes are pixels (none when count[v] <= 0).
  const bool compact = ys2 == m.out_w || m.out_h == 1;
  idx at[2], count[2];
  for (int v = 0; v < 2; ++v) {
    const idx p = p0 + 4 * v;
    count[v] = std::min<idx>(4, m.npix - p);
    if (compact) {
      at[v] = p;
    } else {
      const idx oh = p / m.out_w, ow = p % m.out_w;
      at[v] = ow + 4 <= m.out_w ? oh * ys2 + ow : -1;
    }
  }
  for (idx i = 0; i < rows; ++i) {
    const idx oc = grp * m.s.per_group + blk * 4 + i;
    const int32_t b =
        m.bias == nullptr
            ? 0
            : static_cast<const int32_t*>(m.bias->data)[oc * static_cast<idx>(m.bias->strides[0])];
    const v128_t bv = wasm_i32x4_splat(b);
    const OutputStage::Channel stage = m.stage.channel(oc);
    const Act yc = Act(y).at(n * static_cast<idx>(y.strides[0]) +
                             oc * static_cast<idx>(y.strides[1]));
    for (int v = 0; v < 2; ++v) {
      if (count[v] <= 0) break;
      const v128_t out = stage.vec(wasm_i32x4_add(acc[i][v], bv));
      if (at[v] >= 0) {
        yc.store_n(at[v], out, count[v]);
        continue;
      }
      int32_t lane[4];
      wasm_v128_store(lane, out);
      for (idx l = 0, p = p0 + 4 * v; l < count[v]; ++l) {
        yc.set((p + l) / m.out_w * ys2 + (p + l) % m.out_w, lane[l]);
      }
    }
  }
}

// Per tile: its B is packed once, then for each chunk of k pairs, strip by strip, every block of
// the group: the strip's chunk of B (kc * 32 bytes) stays in L1 while the blocks' chunks of A
// (blocks * kc * 16 bytes, from L2 or L3: kChunkABytes) stream past it. (Blocks outer, strips
// inner, i.e. B streaming from L2 instead, measured 25% slower.) Partial sums of a tile wait in
// m.c between chunks. With threads, each takes a range of the blocks (its own output channels
// and partial sums) and keeps that order within it.
template <int S>
void conv_run(const KernelCall& call, const ConvRun& m) {
  const idx strips = (m.npix + 7) / 8;
  for (idx n = 0; n < static_cast<idx>(m.y->shape[0]); ++n) {
    for (idx grp = 0; grp < m.s.groups; ++grp) {
      pack_x(m, n, grp);
      for (idx s0 = 0; s0 < strips; s0 += m.tile_strips) {
        const idx ns = std::min(m.tile_strips, strips - s0);
        pack_b<S>(m, s0, ns);
        for (idx k0 = 0; k0 < m.s.kp; k0 += m.kc) {
          const idx kn = std::min(m.kc, m.s.kp - k0);
          const bool first = k0 == 0, last = k0 + kn == m.s.kp;
          parallel_items(call, m.s.blocks, ns * kn * 64, [&](idx b0, idx b1) {
            for (idx t = 0; t < ns; ++t) {
              for (idx blk = b0; blk < b1; ++blk) {
                conv_strip(m, n, grp, blk, s0, t, k0, kn, m.c + (t * m.s.blocks + blk) * 8,
                           first, last);
              }
            }
          });
        }
      }
    }
  }
}

constexpr idx kTileBytes = 256 * 1024;  // B tile target
// A chunk target (every block of a group). A streams at 16 bytes per 8 dot products, a rate L3
// sustains as well as L2, while each chunk boundary costs every (strip, block) a round trip of
// its partial sums: with 192 KiB chunks (L2-sized) the 1x1 1024 -> 1024 layer on 7 x 7 (11
// chunks of 47 k pairs) ran 20 % slower and the 3x3 stride-2 256 -> 512 8 % slower in Node 20 on
// Zen 5. Chunks remain for weights far past any cache.
constexpr idx kChunkABytes = 4 * 1024 * 1024;

// Validates a prepack: the header must describe exactly this weight shape and groups.
const int32_t* conv_prepacked(const KernelCall& call, const ConvShape& s) {
  const auto* h = static_cast<const PackHeader*>(call.prepacked);
  if (h == nullptr || h->magic != kConvMagic || h->d[0] != s.out_c || h->d[1] != s.group_c ||
      h->d[2] != s.kh || h->d[3] != s.kw || h->d[4] != s.groups) {
    return nullptr;
  }
  return reinterpret_cast<const int32_t*>(h + 1);
}

// Whether every element of v fits int16 (any strides).
bool view_fits16(const TensorView& v) {
  int32_t lo = 0, hi = 0;
  return view_range(v, lo, hi) && in16(lo) && in16(hi);
}

}  // namespace

size_t conv2d_i32__wasm_simd128_prepack(const TensorView& w, const void* params, void* out,
                                        size_t cap) {
  const auto& p = *static_cast<const Conv2dParams*>(params);
  if (w.ndim != 4 || p.groups < 1 || w.shape[0] % p.groups != 0 || w.shape[0] / p.groups < 4 ||
      w.shape[1] < 1 || w.shape[2] < 1 || w.shape[3] < 1) {
    return 0;  // no GEMM: depthwise layers and groups of < 4 channels take other paths
  }
  const ConvShape s = conv_shape(w, p.groups);
  const int64_t lanes = conv_a_lanes(s);
  if (lanes > (int64_t{1} << 28)) return 0;
  const size_t bytes = sizeof(PackHeader) + static_cast<size_t>(lanes) * 4;
  if (out == nullptr || cap < bytes) {
    return view_fits16(w) ? bytes : 0;
  }
  auto* h = static_cast<PackHeader*>(out);
  *h = PackHeader{kConvMagic, 0, {s.out_c, s.group_c, s.kh, s.kw, s.groups, s.kp, 0}};
  if (!pack_conv_a(s, w, reinterpret_cast<int32_t*>(h + 1))) return 0;
  return bytes;
}

bool conv2d_gemm_simd128(const KernelCall& call) {
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView& y = call.outputs[0];
  if (p.scratch == nullptr || y.shape[1] / p.groups < 4) return false;
  ConvRun m{};
  m.p = &p;
  m.stage = OutputStage(p.clamp, p.scale);
  m.x = &x;
  m.bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  m.y = &y;
  m.s = conv_shape(w, p.groups);
  m.out_h = static_cast<idx>(y.shape[2]);
  m.out_w = static_cast<idx>(y.shape[3]);
  m.npix = m.out_h * m.out_w;
  m.sh = static_cast<idx>(p.stride_h);
  m.sw = static_cast<idx>(p.stride_w);
  m.dh = static_cast<idx>(p.dilation_h);
  m.dw = static_cast<idx>(p.dilation_w);
  m.at = {static_cast<idx>(p.pad_h), static_cast<idx>(p.pad_w), 1, 1};
  if (m.s.kh == 1 && m.s.kw == 1) {
    // A 1x1 kernel reads one cell per output pixel: X holds just those (every stride-th row and
    // column), and the GEMM runs a stride-1 1x1 over them. A stride-2 layer packs a quarter of
    // its input, and B's tiles load whole vectors instead of gathering.
    m.at.sh = m.sh;
    m.at.sw = m.sw;
    m.sh = m.sw = 1;
  }
  m.xh = (m.out_h - 1) * m.sh + (m.s.kh - 1) * m.dh + 1;
  m.xw = (m.out_w - 1) * m.sw + (m.s.kw - 1) * m.dw + 1;
  // Sizes in lanes must stay far from wasm32's index range (huge layers take the other path).
  constexpr int64_t kMaxLanes = int64_t{1} << 28;
  if (conv_a_lanes(m.s) > kMaxLanes || static_cast<int64_t>(m.xh) * m.xw * m.s.depth > kMaxLanes ||
      static_cast<int64_t>(m.s.kp) * 8 > kMaxLanes / 64) {
    return false;
  }
  m.plane = m.xh * m.xw;
  const idx strip_bytes = m.s.kp * 32;
  m.tile_strips = std::max<idx>(1, std::min((m.npix + 7) / 8, kTileBytes / strip_bytes));
  const idx chunks = std::max<idx>(1, (m.s.blocks * m.s.kp * 16 + kChunkABytes - 1) / kChunkABytes);
  m.kc = std::max<idx>(1, (m.s.kp + chunks - 1) / chunks);
  const int32_t* packed = conv_prepacked(call, m.s);
  if (x.type != ElemType::kInt8 && !view_fits16(x)) return false;  // int8 values fit int16
  auto acquire = [&](int64_t lanes) {
    return static_cast<int32_t*>(p.scratch->acquire(p.scratch->ctx, lanes * 4));
  };
  int32_t* a = nullptr;
  if (packed == nullptr) {
    a = acquire(conv_a_lanes(m.s));
    if (a == nullptr) return false;
  }
  m.xp = acquire(static_cast<int64_t>(m.s.depth) * m.plane + 8);
  m.bt = acquire(static_cast<int64_t>(m.tile_strips) * m.s.kp * 8);
  m.c = m.kc < m.s.kp ? reinterpret_cast<v128_t*>(
                            acquire(static_cast<int64_t>(m.tile_strips) * m.s.blocks * 32))
                      : nullptr;
  if (m.xp == nullptr || m.bt == nullptr || (m.kc < m.s.kp && m.c == nullptr)) return false;
  // The packing checks w's range on the way (nothing is written to y before this returns).
  if (packed == nullptr && !pack_conv_a(m.s, w, a)) return false;
  m.a = packed != nullptr ? packed : a;
  if (m.sw == 1) {
    conv_run<1>(call, m);
  } else if (m.sw == 2) {
    conv_run<2>(call, m);
  } else {
    conv_run<0>(call, m);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// dense

namespace {

// B from w (units, K), unit inner stride: [strips of 8 units][kp][8]. False when a weight is
// outside int16.
bool pack_dense_b(const TensorView& w, int32_t* b) {
  const idx units = static_cast<idx>(w.shape[0]), depth = static_cast<idx>(w.shape[1]);
  const idx kp = (depth + 1) / 2, ws = static_cast<idx>(w.strides[0]);
  const auto* wd = static_cast<const int32_t*>(w.data);
  v128_t lo = wasm_i32x4_splat(0), hi = wasm_i32x4_splat(0);
  for (idx u = 0; u < units; u += 8) {
    int32_t* dst = b + u * kp;  // strip u / 8 at (u / 8) * kp * 8
    for (idx q = 0; q < 2; ++q) {
      const idx u0 = u + 4 * q;
      const idx nr = std::max<idx>(0, std::min<idx>(4, units - u0));
      pack_rows4(wd + u0 * ws, ws, nr, depth, dst + 4 * q, 8, lo, hi);
    }
  }
  return hmin(lo) >= -32768 && hmax(hi) <= 32767;
}

struct DenseRun {
  idx rows, units, depth, kp;
  const int32_t* a;  // x: [row blocks of 4][kp][4], then the last rows % 4 rows: [kp] each
  const int32_t* b;  // w: [strips of 8][kp][8]
  const TensorView* bias;
  const TensorView* y;
  OutputClamp clamp;  // DenseParams::clamp, applied as the outputs are stored
};

// Rows [m0, m0 + MR) (A at a, lane stride AS) times unit strip u0: the sums plus the bias,
// clamped, into y.
template <int MR, int AS>
void dense_strip(const DenseRun& d, const int32_t* a, idx m0, idx u0) {
  v128_t acc[MR][2];
  micro<MR, 2, AS>(a, d.b + u0 * d.kp, d.kp, nullptr, acc);
  int32_t bl[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const idx nu = std::min<idx>(8, d.units - u0);
  if (d.bias != nullptr) {
    const auto* bd = static_cast<const int32_t*>(d.bias->data);
    for (idx l = 0; l < nu; ++l) bl[l] = bd[(u0 + l) * static_cast<idx>(d.bias->strides[0])];
  }
  const v128_t b0 = wasm_v128_load(bl), b1 = wasm_v128_load(bl + 4);
  const TensorView& y = *d.y;
  for (int i = 0; i < MR; ++i) {
    const Act yr = Act(y).at((m0 + i) * static_cast<idx>(y.strides[0]) + u0);
    yr.store_n(0, d.clamp.vec(wasm_i32x4_add(acc[i][0], b0)), nu);
    if (nu > 4) yr.store_n(4, d.clamp.vec(wasm_i32x4_add(acc[i][1], b1)), nu - 4);
  }
}

// A from the rows of x (T: int32_t, or int8_t for int8 activations; row pitch xs): blocks of 4
// rows as pack_rows4 lays them out, then the last rows % 4 one by one ([kp] each, lane stride
// 1). lo/hi: running min / max of the values.
template <class T>
void pack_dense_a(const T* xd, idx xs, idx rows, idx depth, int32_t* a, v128_t& lo, v128_t& hi) {
  const idx full = rows / 4 * 4, kp = (depth + 1) / 2;
  for (idx m = 0; m < full; m += 4) pack_rows4(xd + m * xs, xs, 4, depth, a + m * kp, 4, lo, hi);
  for (idx m = full; m < rows; ++m) {
    int32_t* dst = a + m * kp;
    const T* r = xd + m * xs;
    for (idx j = 0; j < kp; ++j) {
      const int32_t v0 = r[2 * j], v1 = 2 * j + 1 < depth ? r[2 * j + 1] : 0;
      lo = wasm_i32x4_min(lo, wasm_i32x4_splat(std::min(v0, v1)));
      hi = wasm_i32x4_max(hi, wasm_i32x4_splat(std::max(v0, v1)));
      dst[j] = pair16(v0, v1);
    }
  }
}

const int32_t* dense_prepacked(const KernelCall& call, idx units, idx depth) {
  const auto* h = static_cast<const PackHeader*>(call.prepacked);
  if (h == nullptr || h->magic != kDenseMagic || h->d[0] != units || h->d[1] != depth) {
    return nullptr;
  }
  return reinterpret_cast<const int32_t*>(h + 1);
}

int64_t dense_b_lanes(int64_t units, int64_t depth) {
  return (units + 7) / 8 * 8 * ((depth + 1) / 2);
}

}  // namespace

size_t dense_i32__wasm_simd128_prepack(const TensorView& w, const void*, void* out, size_t cap) {
  if (w.ndim != 2 || w.shape[0] < 1 || w.shape[1] < 1 || w.strides[1] != 1) return 0;
  const int64_t lanes = dense_b_lanes(w.shape[0], w.shape[1]);
  if (lanes > (int64_t{1} << 28)) return 0;
  const size_t bytes = sizeof(PackHeader) + static_cast<size_t>(lanes) * 4;
  if (out == nullptr || cap < bytes) return view_fits16(w) ? bytes : 0;
  auto* h = static_cast<PackHeader*>(out);
  *h = PackHeader{kDenseMagic, 0, {w.shape[0], w.shape[1], 0, 0, 0, 0, 0}};
  if (!pack_dense_b(w, reinterpret_cast<int32_t*>(h + 1))) return 0;
  return bytes;
}

bool dense_gemm_simd128(const KernelCall& call) {
  const auto* p = static_cast<const DenseParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView& y = call.outputs[0];
  DenseRun d{};
  d.clamp = OutputClamp(p == nullptr ? nullptr : p->clamp);
  d.rows = static_cast<idx>(x.shape[0]);
  d.depth = static_cast<idx>(x.shape[1]);
  d.units = static_cast<idx>(y.shape[1]);
  d.kp = (d.depth + 1) / 2;
  d.bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  d.y = &y;
  if (p == nullptr || p->scratch == nullptr || d.rows == 0 || d.depth == 0 || y.strides[1] != 1) {
    return false;
  }
  const int32_t* packed = dense_prepacked(call, d.units, d.depth);
  // Packing w per call reads it once, as the int32 path does: worth it only when rows reuse it.
  if (packed == nullptr && d.rows < 4) return false;
  auto acquire = [&](int64_t lanes) {
    return static_cast<int32_t*>(p->scratch->acquire(p->scratch->ctx, lanes * 4));
  };
  const idx full = d.rows / 4 * 4;
  auto* a = acquire(static_cast<int64_t>((d.rows + 3) / 4) * 4 * d.kp + 8);
  int32_t* b = nullptr;
  if (packed == nullptr) b = acquire(dense_b_lanes(d.units, d.depth));
  if (a == nullptr || (packed == nullptr && b == nullptr)) return false;
  v128_t lo = wasm_i32x4_splat(0), hi = wasm_i32x4_splat(0);
  const idx xs = static_cast<idx>(x.strides[0]);
  if (x.type == ElemType::kInt8) {
    pack_dense_a(static_cast<const int8_t*>(x.data), xs, d.rows, d.depth, a, lo, hi);
  } else {
    pack_dense_a(static_cast<const int32_t*>(x.data), xs, d.rows, d.depth, a, lo, hi);
  }
  if (hmin(lo) < -32768 || hmax(hi) > 32767) return false;
  if (packed == nullptr && !pack_dense_b(w, b)) return false;
  d.a = a;
  d.b = packed != nullptr ? packed : b;
  // Unit strips outermost: each strip of w (kp * 32 bytes) stays in L1 across the rows.
  for (idx u0 = 0; u0 < d.units; u0 += 8) {
    for (idx m = 0; m < full; m += 4) dense_strip<4, 4>(d, a + m * d.kp, m, u0);
    for (idx m = full; m < d.rows; ++m) dense_strip<1, 1>(d, a + m * d.kp, m, u0);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Shared with winograd_simd128.cc (gemm_micro_simd128.h)

namespace {

// Row r0 (and its partner r1, or none when odd) of a channel pair into cells [lo, hi) of dst,
// column col at r0[col * S] (S: the column step; 0: any, given as sw). T: int32_t or int8_t.
template <int S, class T>
void pack_pair_row(const T* r0, const T* r1, bool odd, idx sw, idx lo, idx hi, int32_t* dst) {
  idx col = lo;
  if (!odd && S != 0) {
    for (; col + 4 <= hi; col += 4) {
      store4(dst + col, interleave_low16(load4_strided<S>(r0 + col * S, S),
                                         load4_strided<S>(r1 + col * S, S)));
    }
  }
  const idx step = S != 0 ? S : sw;
  for (; col < hi; ++col) dst[col] = pair16(r0[col * step], odd ? 0 : r1[col * step]);
}

// pack_channel_pairs of an x of T (int32_t, or int8_t: int8 activations).
template <class T>
void pack_pairs_of(const TensorView& x, idx n, idx c0, idx channels, const CellMap& at, idx xh,
                   idx xw, int32_t* dst) {
  const idx in_h = static_cast<idx>(x.shape[2]), in_w = static_cast<idx>(x.shape[3]);
  const idx xs1 = static_cast<idx>(x.strides[1]), xs2 = static_cast<idx>(x.strides[2]);
  // Cells [lo, hi) of a row lie inside the input: 0 <= col * sw - pw < in_w.
  const idx lo = std::min(xw, (at.pw + at.sw - 1) / at.sw);
  const idx hi = std::max(lo, std::min(xw, (in_w - 1 + at.pw) / at.sw + 1));
  const T* xg = static_cast<const T*>(x.data) + n * static_cast<idx>(x.strides[0]) + c0 * xs1;
  for (idx c = 0; c < channels; c += 2) {
    const T* x0 = xg + c * xs1;
    const bool odd = c + 1 == channels;  // no partner channel: high halves 0
    for (idx r = 0; r < xh; ++r, dst += xw) {
      const idx ih = r * at.sh - at.ph;
      if (ih < 0 || ih >= in_h) {
        std::memset(dst, 0, static_cast<size_t>(xw * 4));
        continue;
      }
      std::memset(dst, 0, static_cast<size_t>(lo * 4));
      const T* r0 = x0 + ih * xs2 - at.pw;  // cell col at r0[col * sw]
      const T* r1 = r0 + xs1;
      if (at.sw == 1) {
        pack_pair_row<1>(r0, r1, odd, 1, lo, hi, dst);
      } else if (at.sw == 2) {
        pack_pair_row<2>(r0, r1, odd, 2, lo, hi, dst);
      } else {
        pack_pair_row<0>(r0, r1, odd, at.sw, lo, hi, dst);
      }
      std::memset(dst + hi, 0, static_cast<size_t>((xw - hi) * 4));
    }
  }
}

}  // namespace

void pack_channel_pairs(const TensorView& x, idx n, idx c0, idx channels, const CellMap& at,
                        idx xh, idx xw, int32_t* dst) {
  if (x.type == ElemType::kInt8) {
    pack_pairs_of<int8_t>(x, n, c0, channels, at, xh, xw, dst);
  } else {
    pack_pairs_of<int32_t>(x, n, c0, channels, at, xh, xw, dst);
  }
}

bool view_range(const TensorView& v, int32_t& lo_out, int32_t& hi_out) {
  lo_out = hi_out = 0;
  const auto* d = static_cast<const int32_t*>(v.data);
  if (v.contiguous()) {
    const idx n = static_cast<idx>(v.numel());
    v128_t lo = wasm_i32x4_splat(0), hi = wasm_i32x4_splat(0);
    idx i = 0;
    for (; i + 16 <= n; i += 16) {
      const v128_t a = load4(d + i), b = load4(d + i + 4), c = load4(d + i + 8),
                   e = load4(d + i + 12);
      lo = wasm_i32x4_min(lo, wasm_i32x4_min(wasm_i32x4_min(a, b), wasm_i32x4_min(c, e)));
      hi = wasm_i32x4_max(hi, wasm_i32x4_max(wasm_i32x4_max(a, b), wasm_i32x4_max(c, e)));
    }
    int32_t l = hmin(lo), h = hmax(hi);
    for (; i < n; ++i) {
      l = std::min(l, d[i]);
      h = std::max(h, d[i]);
    }
    lo_out = l;
    hi_out = h;
    return true;
  }
  // Up to 4-D (conv2d and dense views): walk the rows.
  int64_t shape[4] = {1, 1, 1, 1}, st[4] = {0, 0, 0, 0};
  const int off = 4 - v.ndim;
  if (v.ndim > 4) return false;
  for (int d0 = 0; d0 < v.ndim; ++d0) {
    shape[off + d0] = v.shape[d0];
    st[off + d0] = v.strides[d0];
  }
  int32_t l = 0, h = 0;
  for (int64_t a = 0; a < shape[0]; ++a) {
    for (int64_t b = 0; b < shape[1]; ++b) {
      for (int64_t c = 0; c < shape[2]; ++c) {
        const int32_t* r = d + a * st[0] + b * st[1] + c * st[2];
        for (int64_t e = 0; e < shape[3]; ++e) {
          l = std::min(l, r[e * st[3]]);
          h = std::max(h, r[e * st[3]]);
        }
      }
    }
  }
  lo_out = l;
  hi_out = h;
  return true;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
