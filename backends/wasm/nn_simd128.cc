// SIMD128 int32 kernels of the CVM nn family: conv2d (a GEMM over int16 pairs of a padded,
// channel-paired copy of x in lent scratch, or direct), dense and max_pool2d.
//
// Exactness. The reference accumulates int32 products with two's-complement wrapping, i.e.
// modulo 2^32, where any summation order gives the same bits. Two multiply paths:
// - i32x4.mul keeps the low 32 bits of each product: exact for every int32 operand.
// - i32x4.dot_i16x8_s multiplies int16 pairs into exact int32 products (|p| <= 2^30) and adds
//   each pair with a wrapping i32 add (WebAssembly spec: imul then iadd, both modulo 2^32; the
//   one overflowing case, (-32768)^2 * 2 = 2^31, wraps to INT32_MIN as the reference does).
//   So when every operand fits int16 the dot product is exact modulo 2^32 too, at twice the
//   products per instruction. conv2d takes it when a range check over x and w (O(input +
//   weights), small next to the products) passes and the op layer lends scratch to pack into;
//   CVM int32 tensors may hold anything at run time, so values outside int16 take i32x4.mul.
// There is no relaxed-SIMD anywhere.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "params/nn.h"
#include "simd128.h"
#include "strided_loop.h"
#include "wasm_kernels.h"

namespace cvm {
namespace kernel {
namespace wasm {
namespace {

inline uint32_t mac(uint32_t acc, int32_t a, int32_t b) {
  return acc + static_cast<uint32_t>(a) * static_cast<uint32_t>(b);
}

// Whether every element of `v` is in [-32768, 32767]. A compact view is one row (a row per
// innermost row costs a call each: 1x1 conv weights have rows of one element).
bool fits_int16(const TensorView& v) {
  v128_t lo = wasm_i32x4_splat(0), hi = wasm_i32x4_splat(0);
  int32_t slo = 0, shi = 0;
  auto row = [&](char* const* ptr, int64_t n, const int64_t* step) {
    const auto* p = reinterpret_cast<const int32_t*>(ptr[0]);
    int64_t i = 0;
    if (step[0] == static_cast<int64_t>(sizeof(int32_t))) {
      for (; i + 4 <= n; i += 4) {
        const v128_t x = load4(p + i);
        lo = wasm_i32x4_min(lo, x);
        hi = wasm_i32x4_max(hi, x);
      }
    }
    const int64_t s = step[0] / static_cast<int64_t>(sizeof(int32_t));
    for (; i < n; ++i) {
      slo = std::min(slo, p[i * s]);
      shi = std::max(shi, p[i * s]);
    }
  };
  if (v.contiguous()) {
    char* const ptr[1] = {static_cast<char*>(v.data)};
    const int64_t step[1] = {static_cast<int64_t>(sizeof(int32_t))};
    row(ptr, v.numel(), step);
  } else {
    const TensorView* const views[1] = {&v};
    for_each_row(views, row);
  }
  return std::min(slo, hmin(lo)) >= -32768 && std::max(shi, hmax(hi)) <= 32767;
}

// Taps t in [*lo, *hi) of a window starting at `start` with step `dilation` over `taps` taps
// that land inside [0, extent) (the reference's helper, same arithmetic).
void taps_inside(int64_t start, int64_t dilation, int64_t taps, int64_t extent, int64_t* lo,
                 int64_t* hi) {
  *lo = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
  *hi = start >= extent ? 0 : std::min(taps, (extent - start + dilation - 1) / dilation);
  if (*hi < *lo) *hi = *lo;
}

// Outputs [*lo, *hi) along one axis whose every tap lies inside [0, extent): window of output
// o starts at o * stride - pad and spans (taps - 1) * dilation + 1 elements.
void interior(int64_t outs, int64_t stride, int64_t pad, int64_t span, int64_t extent, int64_t* lo,
              int64_t* hi) {
  *lo = std::min(outs, (pad + stride - 1) / stride);
  const int64_t last_start = extent - span;  // largest window start that fits
  *hi = last_start + pad < 0 ? 0 : std::min(outs, (last_start + pad) / stride + 1);
  if (*hi < *lo) *hi = *lo;
}

// ---------------------------------------------------------------------------------------------
// conv2d

struct ConvGeometry {
  const Conv2dParams* p;
  const TensorView* x;
  const TensorView* w;
  const TensorView* bias;
  const TensorView* y;
  int64_t group_c, kernel_h, kernel_w, in_h, in_w;
};

// One output element exactly as the reference computes it (used on the borders).
int32_t conv_point(const ConvGeometry& g, int64_t n, int64_t ic0, int64_t oc, int64_t h0,
                   int64_t kh_lo, int64_t kh_hi, int64_t ow) {
  const Conv2dParams& p = *g.p;
  const TensorView& x = *g.x;
  const TensorView& w = *g.w;
  const int64_t w0 = ow * p.stride_w - p.pad_w;
  int64_t kw_lo, kw_hi;
  taps_inside(w0, p.dilation_w, g.kernel_w, g.in_w, &kw_lo, &kw_hi);
  const auto* xd = static_cast<const int32_t*>(x.data);
  const auto* wd = static_cast<const int32_t*>(w.data);
  uint32_t sum = 0;
  for (int64_t c = 0; c < g.group_c; ++c) {
    for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
      const int64_t ih = h0 + kh * p.dilation_h;
      for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
        const int64_t iw = w0 + kw * p.dilation_w;
        sum = mac(sum, xd[n * x.strides[0] + (ic0 + c) * x.strides[1] + ih * x.strides[2] + iw],
                  wd[oc * w.strides[0] + c * w.strides[1] + kh * w.strides[2] + kw * w.strides[3]]);
      }
    }
  }
  if (g.bias != nullptr) {
    sum +=
        static_cast<uint32_t>(static_cast<const int32_t*>(g.bias->data)[oc * g.bias->strides[0]]);
  }
  return static_cast<int32_t>(sum);
}

// NB output channels [oc0, oc0 + NB) of group grp x NV vectors of 4 interior outputs from
// column ow, on output row oh, with i32x4.mul. S: the column stride (1, 2, or 0 for any).
template <int NB, int NV, int S>
void conv_block(const ConvGeometry& g, int64_t n, int64_t grp, int64_t oc0, int64_t oh, int64_t h0,
                int64_t kh_lo, int64_t kh_hi, int64_t ow) {
  const Conv2dParams& p = *g.p;
  const TensorView& x = *g.x;
  const TensorView& w = *g.w;
  const int64_t sw = p.stride_w;
  const int64_t ic0 = grp * g.group_c;
  v128_t acc[NB][NV];
  for (int b = 0; b < NB; ++b) {
    for (int v = 0; v < NV; ++v) acc[b][v] = wasm_i32x4_splat(0);
  }
  const auto* xd = static_cast<const int32_t*>(x.data);
  const auto* wd = static_cast<const int32_t*>(w.data);
  const int32_t* xn = xd + n * x.strides[0] + ow * sw - p.pad_w;
  for (int64_t c = 0; c < g.group_c; ++c) {
    const int32_t* xc = xn + (ic0 + c) * x.strides[1];
    for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
      const int64_t row = (h0 + kh * p.dilation_h) * x.strides[2];
      for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
        const int64_t col = row + kw * p.dilation_w;
        v128_t xv[NV];
        for (int v = 0; v < NV; ++v) xv[v] = load4_strided<S>(xc + col + 4 * v * sw, sw);
        for (int b = 0; b < NB; ++b) {
          const v128_t wv =
              wasm_v128_load32_splat(wd + (oc0 + b) * w.strides[0] + c * w.strides[1] +
                                     kh * w.strides[2] + kw * w.strides[3]);
          for (int v = 0; v < NV; ++v) {
            acc[b][v] = wasm_i32x4_add(acc[b][v], wasm_i32x4_mul(xv[v], wv));
          }
        }
      }
    }
  }
  const TensorView& y = *g.y;
  for (int b = 0; b < NB; ++b) {
    v128_t bias = wasm_i32x4_splat(0);
    if (g.bias != nullptr) {
      bias = wasm_i32x4_splat(
          static_cast<const int32_t*>(g.bias->data)[(oc0 + b) * g.bias->strides[0]]);
    }
    int32_t* yr = static_cast<int32_t*>(y.data) + n * y.strides[0] + (oc0 + b) * y.strides[1] +
                  oh * y.strides[2] + ow;
    for (int v = 0; v < NV; ++v) store4(yr + 4 * v, wasm_i32x4_add(acc[b][v], bias));
  }
}

// Output row (n, oh) of NB channels from oc0: scalar borders, vector interior [ow_lo, ow_hi).
template <int NB, int S>
void conv_row(const ConvGeometry& g, int64_t n, int64_t grp, int64_t oc0, int64_t oh, int64_t ow_lo,
              int64_t ow_hi) {
  const Conv2dParams& p = *g.p;
  const TensorView& y = *g.y;
  const int64_t out_w = y.shape[3];
  const int64_t h0 = oh * p.stride_h - p.pad_h;
  int64_t kh_lo, kh_hi;
  taps_inside(h0, p.dilation_h, g.kernel_h, g.in_h, &kh_lo, &kh_hi);
  auto* yd = static_cast<int32_t*>(y.data);
  auto point = [&](int64_t ow) {
    for (int b = 0; b < NB; ++b) {
      yd[n * y.strides[0] + (oc0 + b) * y.strides[1] + oh * y.strides[2] + ow] =
          conv_point(g, n, grp * g.group_c, oc0 + b, h0, kh_lo, kh_hi, ow);
    }
  };
  int64_t ow = 0;
  for (; ow < ow_lo; ++ow) point(ow);
  for (; ow + 8 <= ow_hi; ow += 8) {
    conv_block<NB, 2, S>(g, n, grp, oc0, oh, h0, kh_lo, kh_hi, ow);
  }
  for (; ow + 4 <= ow_hi; ow += 4) {
    conv_block<NB, 1, S>(g, n, grp, oc0, oh, h0, kh_lo, kh_hi, ow);
  }
  for (; ow < out_w; ++ow) point(ow);
}

// Output rows outermost, so one row's input rows stay in cache across the output channels.
template <int S>
void conv_all(const ConvGeometry& g) {
  const Conv2dParams& p = *g.p;
  const TensorView& y = *g.y;
  const int64_t batch = y.shape[0], out_c = y.shape[1], out_h = y.shape[2], out_w = y.shape[3];
  const int64_t out_per_group = out_c / p.groups;
  int64_t ow_lo, ow_hi;
  interior(out_w, p.stride_w, p.pad_w, (g.kernel_w - 1) * p.dilation_w + 1, g.in_w, &ow_lo, &ow_hi);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t oh = 0; oh < out_h; ++oh) {
      for (int64_t grp = 0; grp < p.groups; ++grp) {
        const int64_t oc_end = (grp + 1) * out_per_group;
        int64_t oc = grp * out_per_group;
        for (; oc + 4 <= oc_end; oc += 4) conv_row<4, S>(g, n, grp, oc, oh, ow_lo, ow_hi);
        for (; oc < oc_end; ++oc) conv_row<1, S>(g, n, grp, oc, oh, ow_lo, ow_hi);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// conv2d as a GEMM over int16 pairs: y[oc, pixel] = sum over k of A[oc, k] * B[k, pixel], with
// k = (kh, kw, channel pair) and each int32 lane holding two int16 values: channel 2j of the
// group in the low half, channel 2j + 1 in the high half (0 past the group's last channel), so
// each i32x4.dot_i16x8_s does 8 multiply-adds. Layouts (int32 lanes):
//   A: [groups][oc blocks of 4][kh][kw][channel pairs][4]  the weights, packed once per call
//   X: [channel pairs][xh][xw]  one image and group of x, channels paired, zero-padded so that
//      every tap of every output quad lies inside it (no border cases anywhere)
// Output rows are cut into ceil(out_w / 4) quads of 4 pixels (the last one partial: its extra
// lanes read X's padding and are never stored). With stride_w 1 the B lanes of a quad at one
// tap and channel pair are 4 consecutive cells of X, which the kernel reads in place (an
// implicit im2col); other strides first gather one output row's B into a tile
// [kh][kw][channel pairs][quads][4]. Either way quad q + 1 lies 4 lanes after quad q.
// Scratch: A, X (about one image-group of x: the im2col itself would be kernel_h * kernel_w
// times larger) and the row tile.

struct Gemm {
  const ConvGeometry* g;
  int64_t out_h, out_w, per_group;  // output channels per group
  int64_t cpairs;                   // channel pairs: ceil(group_c / 2)
  int64_t pairs;                    // k pairs: kernel_h * kernel_w * cpairs
  int64_t blocks;                   // oc blocks of 4 per group
  int64_t row_quads;                // quads per output row
  int64_t xh, xw, plane;            // rows, columns and cells of one channel pair of X
  int32_t* a;
  int32_t* x;
  int32_t* b;  // the row tile (stride_w != 1)
};

// Two int16 values in one lane: lo in the low half.
inline int32_t pair16(int32_t lo, int32_t hi) {
  return static_cast<int32_t>((static_cast<uint32_t>(lo) & 0xFFFFu) |
                              static_cast<uint32_t>(hi) << 16);
}

// A from w: weight (oc, c, kh, kw) is the c % 2 half of lane oc % 4 of pair (kh, kw, c / 2).
void pack_a(const Gemm& m) {
  const ConvGeometry& g = *m.g;
  const TensorView& w = *g.w;
  const auto* wd = static_cast<const int32_t*>(w.data);
  const int64_t out_c = g.y->shape[1], cs = w.strides[1];
  std::memset(m.a, 0, static_cast<size_t>(g.p->groups * m.blocks * m.pairs * 16));
  for (int64_t oc = 0; oc < out_c; ++oc) {
    const int64_t grp = oc / m.per_group, o = oc % m.per_group;
    int32_t* lane = m.a + ((grp * m.blocks + o / 4) * m.pairs * 4 + o % 4);
    for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
      for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
        const int32_t* wt = wd + oc * w.strides[0] + kh * w.strides[2] + kw * w.strides[3];
        for (int64_t c = 0; c < g.group_c; c += 2, lane += 4) {
          *lane = pair16(wt[c * cs], c + 1 < g.group_c ? wt[(c + 1) * cs] : 0);
        }
      }
    }
  }
}

// X of image n, group grp: cell (j, r, col) pairs channels 2j and 2j + 1 at input row
// r - pad_h and column col - pad_w, 0 outside the input.
void pack_x(const Gemm& m, int64_t n, int64_t grp) {
  const ConvGeometry& g = *m.g;
  const TensorView& x = *g.x;
  const int64_t ph = g.p->pad_h, pw = g.p->pad_w;
  const int64_t lo = std::min(m.xw, pw), hi = std::max(lo, std::min(m.xw, g.in_w + pw));
  const auto* xg =
      static_cast<const int32_t*>(x.data) + n * x.strides[0] + grp * g.group_c * x.strides[1];
  int32_t* dst = m.x;
  for (int64_t c = 0; c < g.group_c; c += 2) {
    const int32_t* x0 = xg + c * x.strides[1];
    const bool odd = c + 1 == g.group_c;  // no partner channel: high halves 0
    for (int64_t r = 0; r < m.xh; ++r, dst += m.xw) {
      const int64_t ih = r - ph;
      if (ih < 0 || ih >= g.in_h) {
        std::memset(dst, 0, static_cast<size_t>(m.xw * 4));
        continue;
      }
      std::memset(dst, 0, static_cast<size_t>(lo * 4));
      const int32_t* r0 = x0 + ih * x.strides[2];  // column col at r0[col - pw]
      const int32_t* r1 = odd ? r0 : r0 + x.strides[1];
      int64_t col = lo;
      if (!odd) {
        for (; col + 4 <= hi; col += 4) {
          store4(dst + col, interleave_low16(load4(r0 + col - pw), load4(r1 + col - pw)));
        }
      }
      for (; col < hi; ++col) dst[col] = pair16(r0[col - pw], odd ? 0 : r1[col - pw]);
      std::memset(dst + hi, 0, static_cast<size_t>((m.xw - hi) * 4));
    }
  }
}

// The B tile of output row oh (stride_w S != 1): [kh][kw][channel pairs][quads][4].
template <int S>
void pack_row(const Gemm& m, int64_t oh) {
  const ConvGeometry& g = *m.g;
  const int64_t sw = g.p->stride_w;
  int32_t* dst = m.b;
  for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
    const int32_t* row = m.x + (oh * g.p->stride_h + kh * g.p->dilation_h) * m.xw;
    for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
      for (int64_t j = 0; j < m.cpairs; ++j) {
        const int32_t* src = row + j * m.plane + kw * g.p->dilation_w;
        for (int64_t q = 0; q < m.row_quads; ++q, dst += 4) {
          store4(dst, load4_strided<S>(src + q * 4 * sw, sw));
        }
      }
    }
  }
}

// Where B lies: quad v of tap (kh, kw), channel pair j at
// b + 4 * v + kh * row_step + kw * col_step + j * pair_step.
struct BView {
  const int32_t* b;
  int64_t row_step, col_step, pair_step;
};

// One channel pair step of the kernel: A lanes at a, B quads at b + 4 * v. The empty asm
// keeps each splat load next to its uses: hoisted together, the splats of two steps and the
// 8 accumulators outgrow the 15 vector registers V8 allocates on x64 and spill (measured ~5%).
template <int NV>
inline void gemm_step(const int32_t* a, const int32_t* b, v128_t (&acc)[4][NV]) {
  v128_t xv[NV];
  for (int v = 0; v < NV; ++v) xv[v] = load4(b + 4 * v);
  for (int i = 0; i < 4; ++i) {
    __asm__ volatile("" ::: "memory");
    const v128_t wv = wasm_v128_load32_splat(a + i);
    for (int v = 0; v < NV; ++v) {
      acc[i][v] = wasm_i32x4_add(acc[i][v], wasm_i32x4_dot_i16x8(xv[v], wv));
    }
  }
}

// acc[i][v] = dot of A block row i (a: [kh][kw][channel pairs][4]) with B quad v. The channel
// pairs go two at a time (the loop's bookkeeping, not the dot products, was the cost of a
// simple one).
template <int NV>
void gemm_kernel(const Gemm& m, const int32_t* a, const BView& bv, v128_t (&out)[4][NV]) {
  v128_t acc[4][NV];  // local, so that the compiler keeps it in registers across the loads
  for (int i = 0; i < 4; ++i) {
    for (int v = 0; v < NV; ++v) acc[i][v] = wasm_i32x4_splat(0);
  }
  const int64_t even = m.cpairs & ~int64_t{1}, ps = bv.pair_step;
  for (int64_t kh = 0; kh < m.g->kernel_h; ++kh) {
    for (int64_t kw = 0; kw < m.g->kernel_w; ++kw) {
      const int32_t* b = bv.b + kh * bv.row_step + kw * bv.col_step;
      for (const int32_t* const a_end = a + even * 4; a != a_end; a += 8, b += 2 * ps) {
        gemm_step<NV>(a, b, acc);
        gemm_step<NV>(a + 4, b + ps, acc);
      }
      if (m.cpairs & 1) {
        gemm_step<NV>(a, b, acc);
        a += 4;
      }
    }
  }
  for (int i = 0; i < 4; ++i) {
    for (int v = 0; v < NV; ++v) out[i][v] = acc[i][v];
  }
}

// Quads [q, q + NV) of output row oh times oc block blk of group grp; bv.b at quad q.
template <int NV>
void gemm_quads(const Gemm& m, int64_t n, int64_t grp, int64_t blk, int64_t oh, int64_t q,
                const BView& bv) {
  const ConvGeometry& g = *m.g;
  const TensorView& y = *g.y;
  v128_t acc[4][NV];
  gemm_kernel<NV>(m, m.a + (grp * m.blocks + blk) * m.pairs * 4, bv, acc);
  const int64_t rows = std::min<int64_t>(4, m.per_group - blk * 4);
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t oc = grp * m.per_group + blk * 4 + i;
    v128_t bias = wasm_i32x4_splat(0);
    if (g.bias != nullptr) {
      bias = wasm_i32x4_splat(static_cast<const int32_t*>(g.bias->data)[oc * g.bias->strides[0]]);
    }
    int32_t* yr = static_cast<int32_t*>(y.data) + n * y.strides[0] + oc * y.strides[1] +
                  oh * y.strides[2];
    for (int v = 0; v < NV; ++v) {
      const int64_t ow0 = (q + v) * 4;
      const v128_t out = wasm_i32x4_add(acc[i][v], bias);
      if (ow0 + 4 <= m.out_w) {
        store4(yr + ow0, out);
      } else {
        int32_t lane[4];
        wasm_v128_store(lane, out);
        for (int64_t l = 0; ow0 + l < m.out_w; ++l) yr[ow0 + l] = lane[l];
      }
    }
  }
}

// Output row by output row; each pair of quads runs every oc block of the group, so its B
// (about 9 KiB for a 3x3 kernel over 64 channels) stays in L1 while the weights stream. (The
// other order, blocks outer, measured the same.)
template <int S>
void gemm_all(const Gemm& m) {
  const ConvGeometry& g = *m.g;
  const Conv2dParams& p = *g.p;
  for (int64_t n = 0; n < g.y->shape[0]; ++n) {
    for (int64_t grp = 0; grp < p.groups; ++grp) {
      pack_x(m, n, grp);
      for (int64_t oh = 0; oh < m.out_h; ++oh) {
        BView bv;
        if constexpr (S == 1) {
          bv = {m.x + oh * p.stride_h * m.xw, p.dilation_h * m.xw, p.dilation_w, m.plane};
        } else {
          pack_row<S>(m, oh);
          const int64_t ps = m.row_quads * 4;
          bv = {m.b, g.kernel_w * m.cpairs * ps, m.cpairs * ps, ps};
        }
        const int32_t* b0 = bv.b;
        int64_t q = 0;
        for (; q + 2 <= m.row_quads; q += 2) {
          bv.b = b0 + q * 4;
          for (int64_t blk = 0; blk < m.blocks; ++blk) gemm_quads<2>(m, n, grp, blk, oh, q, bv);
        }
        if (q < m.row_quads) {
          bv.b = b0 + q * 4;
          for (int64_t blk = 0; blk < m.blocks; ++blk) gemm_quads<1>(m, n, grp, blk, oh, q, bv);
        }
      }
    }
  }
}

// The GEMM path when x and w fit int16, each group has at least 4 output channels (depthwise
// layers would mostly multiply padding) and the op layer lends the scratch; false otherwise.
bool conv_gemm(const ConvGeometry& g) {
  const Conv2dParams& p = *g.p;
  const TensorView& y = *g.y;
  Gemm m{};
  m.g = &g;
  m.out_h = y.shape[2];
  m.out_w = y.shape[3];
  m.per_group = y.shape[1] / p.groups;
  if (p.scratch == nullptr || m.per_group < 4) return false;
  m.cpairs = (g.group_c + 1) / 2;
  m.pairs = g.kernel_h * g.kernel_w * m.cpairs;
  m.blocks = (m.per_group + 3) / 4;
  m.row_quads = (m.out_w + 3) / 4;
  m.xh = (m.out_h - 1) * p.stride_h + (g.kernel_h - 1) * p.dilation_h + 1;
  m.xw = (m.row_quads * 4 - 1) * p.stride_w + (g.kernel_w - 1) * p.dilation_w + 1;
  m.plane = m.xh * m.xw;
  if (!fits_int16(*g.x) || !fits_int16(*g.w)) return false;
  auto acquire = [&](int64_t lanes) {
    return static_cast<int32_t*>(p.scratch->acquire(p.scratch->ctx, lanes * 4));
  };
  m.a = acquire(p.groups * m.blocks * m.pairs * 4);
  m.x = acquire(m.cpairs * m.plane);
  if (m.a == nullptr || m.x == nullptr) return false;
  if (p.stride_w != 1) {
    m.b = acquire(m.pairs * m.row_quads * 4);
    if (m.b == nullptr) return false;
  }
  pack_a(m);
  if (p.stride_w == 1) {
    gemm_all<1>(m);
  } else if (p.stride_w == 2) {
    gemm_all<2>(m);
  } else {
    gemm_all<0>(m);
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// dense

// y[m0 .. m0 + MR, u0 .. u0 + NR) = x[m, :] . w[u, :] (+ bias) with i32x4.mul: each x load
// serves NR units and each w load MR rows, so w streams from memory ceil(M / MR) times. (The
// int16 dot product needs both operands narrowed first; without packing, that measured slower.)
template <int MR, int NR>
void dense_block(const TensorView& x, const TensorView& w, const TensorView* bias,
                 const TensorView& y, int64_t m0, int64_t u0) {
  const int64_t depth = x.shape[1];
  const int32_t* xr[MR];
  const int32_t* wr[NR];
  v128_t acc[MR][NR];
  for (int i = 0; i < MR; ++i)
    xr[i] = static_cast<const int32_t*>(x.data) + (m0 + i) * x.strides[0];
  for (int j = 0; j < NR; ++j)
    wr[j] = static_cast<const int32_t*>(w.data) + (u0 + j) * w.strides[0];
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NR; ++j) acc[i][j] = wasm_i32x4_splat(0);
  }
  int64_t k = 0;
  for (; k + 4 <= depth; k += 4) {
    v128_t wv[NR];
    for (int j = 0; j < NR; ++j) wv[j] = load4(wr[j] + k);
    for (int i = 0; i < MR; ++i) {
      const v128_t xv = load4(xr[i] + k);
      for (int j = 0; j < NR; ++j) acc[i][j] = wasm_i32x4_add(acc[i][j], wasm_i32x4_mul(xv, wv[j]));
    }
  }
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NR; ++j) {
      uint32_t sum = hsum(acc[i][j]);
      for (int64_t kk = k; kk < depth; ++kk) sum = mac(sum, xr[i][kk], wr[j][kk]);
      if (bias != nullptr) {
        sum += static_cast<uint32_t>(
            static_cast<const int32_t*>(bias->data)[(u0 + j) * bias->strides[0]]);
      }
      static_cast<int32_t*>(y.data)[(m0 + i) * y.strides[0] + (u0 + j) * y.strides[1]] =
          static_cast<int32_t>(sum);
    }
  }
}

// Rows in blocks of MR, each block's units in blocks of NR, then one by one.
template <int MR, int NR>
void dense_rows(const TensorView& x, const TensorView& w, const TensorView* bias,
                const TensorView& y, int64_t m) {
  const int64_t units = y.shape[1];
  int64_t u = 0;
  for (; u + NR <= units; u += NR) dense_block<MR, NR>(x, w, bias, y, m, u);
  for (; u < units; ++u) dense_block<MR, 1>(x, w, bias, y, m, u);
}

// ---------------------------------------------------------------------------------------------
// max_pool2d

template <int S>
void pool_all(const KernelCall& call) {
  const auto& p = *static_cast<const MaxPool2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  const int64_t in_h = x.shape[2], in_w = x.shape[3], out_w = y.shape[3];
  const auto* xd = static_cast<const int32_t*>(x.data);
  auto* yd = static_cast<int32_t*>(y.data);
  int64_t ow_lo, ow_hi;
  interior(out_w, p.stride_w, p.pad_w, p.pool_w, in_w, &ow_lo, &ow_hi);
  for (int64_t n = 0; n < y.shape[0]; ++n) {
    for (int64_t c = 0; c < y.shape[1]; ++c) {
      const int32_t* xc = xd + n * x.strides[0] + c * x.strides[1];
      for (int64_t oh = 0; oh < y.shape[2]; ++oh) {
        const int64_t h0 = oh * p.stride_h - p.pad_h;
        int64_t kh_lo, kh_hi;
        taps_inside(h0, 1, p.pool_h, in_h, &kh_lo, &kh_hi);
        int32_t* yr = yd + n * y.strides[0] + c * y.strides[1] + oh * y.strides[2];
        auto point = [&](int64_t ow) {
          const int64_t w0 = ow * p.stride_w - p.pad_w;
          int64_t kw_lo, kw_hi;
          taps_inside(w0, 1, p.pool_w, in_w, &kw_lo, &kw_hi);
          int32_t best = INT32_MIN;  // padding cells are INT32_MIN
          for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
            for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
              best = std::max(best, xc[(h0 + kh) * x.strides[2] + w0 + kw]);
            }
          }
          yr[ow] = best;
        };
        int64_t ow = 0;
        for (; ow < ow_lo; ++ow) point(ow);
        for (; ow + 4 <= ow_hi; ow += 4) {
          v128_t best = wasm_i32x4_splat(INT32_MIN);
          const int32_t* xw = xc + ow * p.stride_w - p.pad_w;
          for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
            const int32_t* xr = xw + (h0 + kh) * x.strides[2];
            for (int64_t kw = 0; kw < p.pool_w; ++kw) {
              best = wasm_i32x4_max(best, load4_strided<S>(xr + kw, p.stride_w));
            }
          }
          store4(yr + ow, best);
        }
        for (; ow < out_w; ++ow) point(ow);
      }
    }
  }
}

}  // namespace

KernelStatus conv2d_i32__wasm_simd128(const KernelCall& call) {
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView& y = call.outputs[0];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  for (int d = 0; d < 4; ++d) {
    if (y.shape[d] == 0) return KernelStatus::kDone;  // nothing to write
  }
  // The vector paths read rows of x and write rows of y with unit stride; anything else (and
  // a degenerate kernel) is declined, before anything is written.
  if (x.strides[3] != 1 || y.strides[3] != 1 || w.shape[1] == 0 || w.shape[2] == 0 ||
      w.shape[3] == 0) {
    return KernelStatus::kDeclined;
  }
  // Depthwise layers (depthwise_simd128.cc), else the int16 GEMM, else the direct path.
  if (conv2d_depthwise_simd128(call)) return KernelStatus::kDone;
  const ConvGeometry g{&p, &x, &w, bias, &y, w.shape[1], w.shape[2], w.shape[3], x.shape[2],
                       x.shape[3]};
  if (conv_gemm(g)) return KernelStatus::kDone;
  if (p.stride_w == 1) {
    conv_all<1>(g);
  } else if (p.stride_w == 2) {
    conv_all<2>(g);
  } else {
    conv_all<0>(g);
  }
  return KernelStatus::kDone;
}

KernelStatus dense_i32__wasm_simd128(const KernelCall& call) {
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const TensorView& y = call.outputs[0];
  // The dot products read rows of x and w with unit stride; anything else is declined.
  if (x.strides[1] != 1 || w.strides[1] != 1) return KernelStatus::kDeclined;
  int64_t m = 0;
  for (; m + 4 <= y.shape[0]; m += 4) dense_rows<4, 2>(x, w, bias, y, m);
  for (; m < y.shape[0]; ++m) dense_rows<1, 4>(x, w, bias, y, m);
  return KernelStatus::kDone;
}

KernelStatus max_pool2d_i32__wasm_simd128(const KernelCall& call) {
  const auto& p = *static_cast<const MaxPool2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  // Rows of x and y with unit stride only; anything else is declined.
  if (x.strides[3] != 1 || y.strides[3] != 1) return KernelStatus::kDeclined;
  if (p.stride_w == 1) {
    pool_all<1>(call);
  } else if (p.stride_w == 2) {
    pool_all<2>(call);
  } else {
    pool_all<0>(call);
  }
  return KernelStatus::kDone;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
