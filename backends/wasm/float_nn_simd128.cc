// float32 conv2d and dense on WebAssembly SIMD128, bit-identical to the scalar reference: output
// columns (conv2d) or units (dense) in four lanes, each lane the reference's sequential sum.
//
// The same scheme as the x86 kernels (backends/simd/float_nn.inc), with four lanes. Lanes never
// exchange values, so each output sees exactly acc = acc + (x * w) per tap in the reference's
// order, then + bias, one IEEE rounding each (f32x4.mul and f32x4.add, never relaxed-SIMD or a
// fused multiply-add). A padding tap is SKIPPED per lane (add_where keeps acc's bits) rather than
// added as 0 * w, which would differ for infinite or NaN weights. Lanes past the output's end
// compute garbage that is never stored. NaN results become the canonical NaN 0x7FC00000
// (WebAssembly's own NaN results are non-deterministic in sign and payload).
#include <wasm_simd128.h>

#include <cstdint>
#include <cstring>

#include "params/nn.h"
#include "simd128.h"
#include "wasm_kernels.h"

namespace cvm {
namespace kernel {
namespace wasm {
namespace {

int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

int64_t numel_of(const TensorView& v) {
  int64_t n = 1;
  for (int d = 0; d < v.ndim; ++d) n *= v.shape[d];
  return n;
}

void* scratch_of(const Scratch* s, int64_t bytes) {
  if (s == nullptr || s->acquire == nullptr || bytes <= 0) return nullptr;
  return s->acquire(s->ctx, bytes);
}

// Four float32 lanes; masks are all-ones/all-zeros lanes.
struct F {
  using V = v128_t;
  using M = v128_t;
  static constexpr int kLanes = 4;
  static V zero() { return wasm_f32x4_splat(0.0f); }
  static V splat(float v) { return wasm_f32x4_splat(v); }
  static V load(const float* p) { return wasm_v128_load(p); }
  static void store(float* p, V v) { wasm_v128_store(p, v); }
  static void store_first(float* p, V v, int n) {
    alignas(16) float tmp[4];
    wasm_v128_store(tmp, v);
    for (int j = 0; j < n; ++j) p[j] = tmp[j];
  }
  static V add(V a, V b) { return wasm_f32x4_add(a, b); }
  static V mul(V a, V b) { return wasm_f32x4_mul(a, b); }
  // acc + p in the lanes of m; acc's bits unchanged elsewhere.
  static V add_where(V acc, V p, M m) {
    return wasm_v128_bitselect(wasm_f32x4_add(acc, p), acc, m);
  }
  static V canonical_nan(V v) {
    return wasm_v128_bitselect(wasm_i32x4_splat(0x7FC00000), v, wasm_f32x4_ne(v, v));
  }
  static M mask_bits(uint32_t bits) {
    const v128_t lane = wasm_i32x4_make(1, 2, 4, 8);
    return wasm_i32x4_eq(wasm_v128_and(wasm_i32x4_splat(static_cast<int32_t>(bits)), lane), lane);
  }
};

// Shapes and element strides of one conv2d call.
struct FConv {
  const float *x, *w, *b;
  float* y;
  int64_t xs[4], ws[4], ys[4], bs;
  int64_t in_c, in_h, in_w, out_c, out_h, out_w;
  int64_t group_c, group_oc, kh, kw;
  int64_t sh, sw, ph, pw, dh, dw;
};

// Taps [*lo, *hi) of a window at `start` (step `dil`, `taps` taps) inside [0, extent), as the
// reference computes them.
void f_taps_inside(int64_t start, int64_t dil, int64_t taps, int64_t extent, int64_t* lo,
                   int64_t* hi) {
  *lo = start >= 0 ? 0 : (-start + dil - 1) / dil;
  *hi = start >= extent ? 0 : min64(taps, (extent - start + dil - 1) / dil);
  if (*hi < *lo) *hi = *lo;
}

// Lane bits [lo, hi) of a vector, lo and hi clamped to [0, kLanes].
uint32_t f_lane_bits(int64_t lo, int64_t hi) {
  lo = max64(0, lo);
  hi = min64(F::kLanes, hi);
  if (hi <= lo) return 0;
  const uint32_t upto_hi = hi >= 32 ? ~0u : (1u << hi) - 1;
  return upto_hi & ~((1u << lo) - 1);
}

constexpr uint32_t kFAllLanes = F::kLanes >= 32 ? ~0u : (1u << F::kLanes) - 1;

// Writes lanes [0, cnt) of v to p[j * step].
void f_store_lanes(float* p, int64_t step, typename F::V v, int64_t cnt) {
  if (step == 1) {
    if (cnt >= F::kLanes) {
      F::store(p, v);
    } else if (cnt > 0) {
      F::store_first(p, v, static_cast<int>(cnt));
    }
    return;
  }
  alignas(16) float tmp[F::kLanes];
  F::store(tmp, v);
  for (int64_t j = 0; j < cnt && j < F::kLanes; ++j) p[j * step] = tmp[j];
}

// OCB output channels (oc0 ...; a group's) x NV vectors of output columns (ow0 ...) of row oh of
// image n. Lanes: consecutive output columns.
template <int OCB, int NV>
void f_conv_block(const FConv& c, int64_t n, int64_t oc0, int64_t oh, int64_t ow0) {
  constexpr int L = F::kLanes;
  using V = typename F::V;
  V acc[OCB][NV];
#pragma GCC unroll 16
  for (int o = 0; o < OCB; ++o) {
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) acc[o][v] = F::zero();
  }
  const int64_t h0 = oh * c.sh - c.ph, w0 = ow0 * c.sw - c.pw;
  int64_t kh_lo, kh_hi;
  f_taps_inside(h0, c.dh, c.kh, c.in_h, &kh_lo, &kh_hi);
  const int64_t ic0 = oc0 / c.group_oc * c.group_c;
  const bool unit = c.xs[3] == 1 && c.sw == 1;  // lanes read consecutive x elements
  for (int64_t ci = 0; ci < c.group_c; ++ci) {
    const float* xc = c.x + n * c.xs[0] + (ic0 + ci) * c.xs[1];
    const float* wc = c.w + oc0 * c.ws[0] + ci * c.ws[1];
    for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
      const float* xrow = xc + (h0 + kh * c.dh) * c.xs[2];
      const float* wrow = wc + kh * c.ws[2];
      for (int64_t kw = 0; kw < c.kw; ++kw) {
        const int64_t iw0 = w0 + kw * c.dw;
        V wv[OCB];
#pragma GCC unroll 16
        for (int o = 0; o < OCB; ++o) wv[o] = F::splat(wrow[o * c.ws[0] + kw * c.ws[3]]);
        if (unit) {
          // Lane j (of all NV * L) reads xrow[iw0 + j]: inside for j in [-iw0, in_w - iw0).
          const int64_t lo = -iw0, hi = c.in_w - iw0;
          if (lo <= 0 && hi >= NV * L) {
            const float* p = xrow + iw0;
#pragma GCC unroll 16
            for (int v = 0; v < NV; ++v) {
              const V xv = F::load(p + v * L);
#pragma GCC unroll 16
              for (int o = 0; o < OCB; ++o) acc[o][v] = F::add(acc[o][v], F::mul(xv, wv[o]));
            }
          } else {
#pragma GCC unroll 16
            for (int v = 0; v < NV; ++v) {
              const uint32_t bits = f_lane_bits(lo - v * L, hi - v * L);
              if (bits == 0) continue;
              // No masked loads in SIMD128: the lanes inside are copied, the others are 0.
              alignas(16) float tmp[L] = {};
              for (int j = 0; j < L; ++j) {
                if ((bits >> j) & 1u) tmp[j] = xrow[iw0 + v * L + j];
              }
              const typename F::M m = F::mask_bits(bits);
              const V xv = F::load(tmp);
#pragma GCC unroll 16
              for (int o = 0; o < OCB; ++o) {
                acc[o][v] = F::add_where(acc[o][v], F::mul(xv, wv[o]), m);
              }
            }
          }
        } else {
#pragma GCC unroll 16
          for (int v = 0; v < NV; ++v) {
            alignas(16) float tmp[L];
            uint32_t bits = 0;
            for (int j = 0; j < L; ++j) {
              const int64_t iw = iw0 + (v * L + j) * c.sw;
              const bool in = iw >= 0 && iw < c.in_w;
              tmp[j] = in ? xrow[iw * c.xs[3]] : 0.0f;
              bits |= in ? 1u << j : 0u;
            }
            if (bits == 0) continue;
            const V xv = F::load(tmp);
            if (bits == kFAllLanes) {
#pragma GCC unroll 16
              for (int o = 0; o < OCB; ++o) acc[o][v] = F::add(acc[o][v], F::mul(xv, wv[o]));
            } else {
              const typename F::M m = F::mask_bits(bits);
#pragma GCC unroll 16
              for (int o = 0; o < OCB; ++o) {
                acc[o][v] = F::add_where(acc[o][v], F::mul(xv, wv[o]), m);
              }
            }
          }
        }
      }
    }
  }
  const int64_t cnt = min64(NV * L, c.out_w - ow0);
#pragma GCC unroll 16
  for (int o = 0; o < OCB; ++o) {
    const V bias = c.b != nullptr ? F::splat(c.b[(oc0 + o) * c.bs]) : F::zero();
    float* yp = c.y + n * c.ys[0] + (oc0 + o) * c.ys[1] + oh * c.ys[2] + ow0 * c.ys[3];
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      V r = acc[o][v];
      if (c.b != nullptr) r = F::add(r, bias);
      f_store_lanes(yp + v * L * c.ys[3], c.ys[3], F::canonical_nan(r), cnt - v * L);
    }
  }
}

// Every column block of one output row for output channels [oc0, oc0 + ocn), ocn <= 4.
template <int NV>
void f_conv_row(const FConv& c, int64_t n, int64_t oc0, int ocn, int64_t oh) {
  constexpr int64_t cols = NV * F::kLanes;
  for (int64_t ow0 = 0; ow0 < c.out_w; ow0 += cols) {
    switch (ocn) {
      case 4:
        f_conv_block<4, NV>(c, n, oc0, oh, ow0);
        break;
      case 3:
        f_conv_block<3, NV>(c, n, oc0, oh, ow0);
        break;
      case 2:
        f_conv_block<2, NV>(c, n, oc0, oh, ow0);
        break;
      default:
        f_conv_block<1, NV>(c, n, oc0, oh, ow0);
        break;
    }
  }
}

void f_conv2d(const KernelCall& call) {
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const TensorView& y = call.outputs[0];
  if (numel_of(y) == 0) return;
  FConv c;
  c.x = static_cast<const float*>(x.data);
  c.w = static_cast<const float*>(w.data);
  c.b = bias != nullptr ? static_cast<const float*>(bias->data) : nullptr;
  c.bs = bias != nullptr ? bias->strides[0] : 0;
  c.y = static_cast<float*>(y.data);
  for (int d = 0; d < 4; ++d) {
    c.xs[d] = x.strides[d];
    c.ws[d] = w.strides[d];
    c.ys[d] = y.strides[d];
  }
  c.in_c = x.shape[1];
  c.in_h = x.shape[2];
  c.in_w = x.shape[3];
  c.out_c = y.shape[1];
  c.out_h = y.shape[2];
  c.out_w = y.shape[3];
  c.group_c = w.shape[1];
  c.kh = w.shape[2];
  c.kw = w.shape[3];
  c.group_oc = c.out_c / p.groups;
  c.sh = p.stride_h;
  c.sw = p.stride_w;
  c.ph = p.pad_h;
  c.pw = p.pad_w;
  c.dh = p.dilation_h;
  c.dw = p.dilation_w;
  // Items: (image, group, output row, block of up to 4 of the group's output channels), the
  // channel blocks fastest so that consecutive items read the same input rows.
  const int64_t oc_blocks = (c.group_oc + 3) / 4;
  const int64_t rows = c.out_h, per_image = p.groups * oc_blocks * rows;
  const int64_t items = y.shape[0] * per_image;
  const bool narrow = c.out_w <= F::kLanes;
  const int64_t work = 4 * c.out_w * max64(1, c.group_c * c.kh * c.kw);
  parallel_items(call, items, work, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t n = i / per_image, r = i % per_image;
      const int64_t g = r / (oc_blocks * rows), q = r % (oc_blocks * rows);
      const int64_t oh = q / oc_blocks, blk = q % oc_blocks;
      const int64_t oc0 = g * c.group_oc + blk * 4;
      const int ocn = static_cast<int>(min64(4, c.group_oc - blk * 4));
      if (narrow) {
        f_conv_row<1>(c, n, oc0, ocn, oh);
      } else {
        f_conv_row<2>(c, n, oc0, ocn, oh);
      }
    }
  });
}

// ---- dense: output units in the lanes, the weight packed transposed into lent scratch ----

// Units per packed block: each block is K rows of kDenseBlock floats (unit j of the block at column
// j; columns past the last unit hold 0 and their lanes are never stored).
constexpr int64_t kDenseVecs = 4;
constexpr int64_t kDenseBlock = kDenseVecs * F::kLanes;

// Writes the MR x NV vectors of sums for rows m0... and units u0... (+ bias, canonical NaN).
template <int MR, int NV>
void f_dense_store(const typename F::V (&acc)[MR][NV], const float* b, int64_t bs,
                   const TensorView& y, int64_t m0, int64_t u0) {
  using V = typename F::V;
  constexpr int L = F::kLanes;
  const int64_t units = y.shape[1];
  float* yp = static_cast<float*>(y.data) + m0 * y.strides[0];
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) {
    const int64_t ub = u0 + v * L, cnt = min64(L, units - ub);
    if (cnt <= 0) continue;
    V bias = F::zero();
    if (b != nullptr) {
      alignas(16) float tmp[L] = {};
      for (int64_t j = 0; j < cnt; ++j) tmp[j] = b[(ub + j) * bs];
      bias = F::load(tmp);
    }
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      V out = acc[r][v];
      if (b != nullptr) out = F::add(out, bias);
      f_store_lanes(yp + r * y.strides[0] + ub * y.strides[1], y.strides[1], F::canonical_nan(out),
                    cnt);
    }
  }
}

// MR rows (m0 ...) x NV vectors of units, at vector `v0` of packed block `blk`.
template <int MR, int NV>
void f_dense_tile(const TensorView& x, const float* packed, const float* b, int64_t bs,
                  const TensorView& y, int64_t m0, int64_t blk, int64_t v0) {
  using V = typename F::V;
  constexpr int L = F::kLanes;
  const int64_t depth = x.shape[1];
  const float* xp = static_cast<const float*>(x.data) + m0 * x.strides[0];
  const int64_t xs0 = x.strides[0], xs1 = x.strides[1];
  const float* wp = packed + blk * depth * kDenseBlock + v0 * L;
  V acc[MR][NV];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) acc[r][v] = F::zero();
  }
  for (int64_t k = 0; k < depth; ++k) {
    V wv[NV];
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) wv[v] = F::load(wp + k * kDenseBlock + v * L);
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      const V xv = F::splat(xp[r * xs0 + k * xs1]);
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) acc[r][v] = F::add(acc[r][v], F::mul(xv, wv[v]));
    }
  }
  f_dense_store<MR, NV>(acc, b, bs, y, m0, blk * kDenseBlock + v0 * L);
}

// The same tile straight from w (any strides, no scratch): the weight of kDenseChunk k's at a time
// is copied transposed into a stack buffer, the sums staying in registers across chunks. Used for
// few rows (each unit block is then read once, and packing all of w first would cost as much as the
// products) and when no scratch is lent.
constexpr int64_t kDenseChunk = 64;

template <int MR, int NV>
void f_dense_tile_direct(const TensorView& x, const TensorView& w, const float* b, int64_t bs,
                         const TensorView& y, int64_t m0, int64_t u0) {
  using V = typename F::V;
  constexpr int L = F::kLanes;
  constexpr int64_t kWidth = NV * L;
  const int64_t depth = x.shape[1], units = y.shape[1];
  const float* xp = static_cast<const float*>(x.data) + m0 * x.strides[0];
  const int64_t xs0 = x.strides[0], xs1 = x.strides[1];
  const float* wd = static_cast<const float*>(w.data);
  const int64_t ws0 = w.strides[0], ws1 = w.strides[1];
  const int64_t un = min64(kWidth, units - u0);
  alignas(16) float buf[kDenseChunk * kWidth];
  V acc[MR][NV];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) acc[r][v] = F::zero();
  }
  for (int64_t k0 = 0; k0 < depth; k0 += kDenseChunk) {
    const int64_t kn = min64(kDenseChunk, depth - k0);
    for (int64_t j = 0; j < kWidth; ++j) {
      if (j < un) {
        const float* src = wd + (u0 + j) * ws0 + k0 * ws1;
        for (int64_t kk = 0; kk < kn; ++kk) buf[kk * kWidth + j] = src[kk * ws1];
      } else {
        for (int64_t kk = 0; kk < kn; ++kk) buf[kk * kWidth + j] = 0.0f;
      }
    }
    for (int64_t kk = 0; kk < kn; ++kk) {
      V wv[NV];
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) wv[v] = F::load(buf + kk * kWidth + v * L);
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        const V xv = F::splat(xp[r * xs0 + (k0 + kk) * xs1]);
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) acc[r][v] = F::add(acc[r][v], F::mul(xv, wv[v]));
      }
    }
  }
  f_dense_store<MR, NV>(acc, b, bs, y, m0, u0);
}

template <int MR>
void f_dense_rows(const TensorView& x, const float* packed, const float* b, int64_t bs,
                  const TensorView& y, int64_t m0, int64_t blk) {
  const int64_t vecs =
      min64(kDenseVecs, (y.shape[1] - blk * kDenseBlock + F::kLanes - 1) / F::kLanes);
  if constexpr (MR <= 2) {
    // Few rows: all four vectors at once, so that enough independent sums are in flight.
    if (vecs > 2) {
      f_dense_tile<MR, 4>(x, packed, b, bs, y, m0, blk, 0);
      return;
    }
  }
  f_dense_tile<MR, 2>(x, packed, b, bs, y, m0, blk, 0);
  if (vecs > 2) f_dense_tile<MR, 2>(x, packed, b, bs, y, m0, blk, 2);
}

// More than 4 rows: w packed once into lent scratch; else (or without scratch) tiles that pack
// their own slices of w on the stack.
void f_dense(const KernelCall& call) {
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const TensorView& y = call.outputs[0];
  const int64_t rows = y.shape[0], units = y.shape[1], depth = x.shape[1];
  if (rows == 0 || units == 0) return;
  const auto* prm = static_cast<const DenseParams*>(call.params);
  const float* b = bias != nullptr ? static_cast<const float*>(bias->data) : nullptr;
  const int64_t bs = bias != nullptr ? bias->strides[0] : 0;
  const int64_t row_blocks = (rows + 3) / 4;
  const int64_t blocks = (units + kDenseBlock - 1) / kDenseBlock;
  float* packed = nullptr;
  if (rows > 4 && depth <= INT64_MAX / 4 / kDenseBlock / blocks) {
    packed = static_cast<float*>(scratch_of(prm != nullptr ? prm->scratch : nullptr,
                                            blocks * max64(1, depth) * kDenseBlock * 4));
  }
  if (packed == nullptr) {
    // Few rows or no scratch: tiles of up to 4 rows x 2 vectors (4 vectors for one or two rows).
    const int64_t width = (rows <= 2 ? 4 : 2) * F::kLanes;
    const int64_t unit_blocks = (units + width - 1) / width;
    parallel_items(call, row_blocks * unit_blocks, 4 * width * max64(1, depth),
                   [&](int64_t begin, int64_t end) {
                     for (int64_t i = begin; i < end; ++i) {
                       const int64_t m0 = i / unit_blocks * 4, u0 = i % unit_blocks * width;
                       switch (min64(4, rows - m0)) {
                         case 4:
                           f_dense_tile_direct<4, 2>(x, w, b, bs, y, m0, u0);
                           break;
                         case 3:
                           f_dense_tile_direct<3, 2>(x, w, b, bs, y, m0, u0);
                           break;
                         case 2:
                           f_dense_tile_direct<2, 4>(x, w, b, bs, y, m0, u0);
                           break;
                         default:
                           f_dense_tile_direct<1, 4>(x, w, b, bs, y, m0, u0);
                           break;
                       }
                     }
                   });
    return;
  }
  const float* wd = static_cast<const float*>(w.data);
  const int64_t ws0 = w.strides[0], ws1 = w.strides[1];
  parallel_items(call, blocks, depth * kDenseBlock, [&](int64_t begin, int64_t end) {
    for (int64_t blk = begin; blk < end; ++blk) {
      float* dst = packed + blk * depth * kDenseBlock;
      const int64_t u0 = blk * kDenseBlock, un = min64(kDenseBlock, units - u0);
      for (int64_t k = 0; k < depth; ++k) {
        float* row = dst + k * kDenseBlock;
        for (int64_t j = 0; j < un; ++j) row[j] = wd[(u0 + j) * ws0 + k * ws1];
        for (int64_t j = un; j < kDenseBlock; ++j) row[j] = 0.0f;
      }
    }
  });
  parallel_items(call, row_blocks * blocks, 4 * kDenseBlock * max64(1, depth),
                 [&](int64_t begin, int64_t end) {
                   for (int64_t i = begin; i < end; ++i) {
                     const int64_t m0 = i / blocks * 4, blk = i % blocks;
                     switch (min64(4, rows - m0)) {
                       case 4:
                         f_dense_rows<4>(x, packed, b, bs, y, m0, blk);
                         break;
                       case 3:
                         f_dense_rows<3>(x, packed, b, bs, y, m0, blk);
                         break;
                       case 2:
                         f_dense_rows<2>(x, packed, b, bs, y, m0, blk);
                         break;
                       default:
                         f_dense_rows<1>(x, packed, b, bs, y, m0, blk);
                         break;
                     }
                   }
                 });
}

}  // namespace

KernelStatus conv2d_f32__wasm_simd128(const KernelCall& call) {
  f_conv2d(call);
  return KernelStatus::kDone;
}
KernelStatus dense_f32__wasm_simd128(const KernelCall& call) {
  f_dense(call);
  return KernelStatus::kDone;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
