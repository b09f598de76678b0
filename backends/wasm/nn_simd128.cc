// SIMD128 int32 kernels of the CVM nn family: conv2d and dense (the int16-pair GEMMs of
// gemm_simd128.cc when the operands fit int16, else the exact i32x4.mul paths here) and
// max_pool2d. Every conv2d path applies Conv2dParams::clamp, then Conv2dParams::scale
// (OutputStage, simd128.h), and every dense path DenseParams::clamp (OutputClamp), to each
// output as it stores it. Every conv2d and dense path also reads an int8 x and writes an int8 y
// (KernelEntry::takes_int8_activations: Act, act_types_ok in simd128.h).
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
#include <type_traits>

#include "params/nn.h"
#include "gemm_simd128.h"
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
  OutputStage stage;  // Conv2dParams::clamp and scale, applied as the outputs are stored
};

// One output element exactly as the reference computes it, before the output stage (used on
// the borders).
int32_t conv_point(const ConvGeometry& g, int64_t n, int64_t ic0, int64_t oc, int64_t h0,
                   int64_t kh_lo, int64_t kh_hi, int64_t ow) {
  const Conv2dParams& p = *g.p;
  const TensorView& x = *g.x;
  const TensorView& w = *g.w;
  const int64_t w0 = ow * p.stride_w - p.pad_w;
  int64_t kw_lo, kw_hi;
  taps_inside(w0, p.dilation_w, g.kernel_w, g.in_w, &kw_lo, &kw_hi);
  const Act xd(x);
  const auto* wd = static_cast<const int32_t*>(w.data);
  uint32_t sum = 0;
  for (int64_t c = 0; c < g.group_c; ++c) {
    for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
      const int64_t ih = h0 + kh * p.dilation_h;
      for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
        const int64_t iw = w0 + kw * p.dilation_w;
        sum = mac(sum, xd.get(n * x.strides[0] + (ic0 + c) * x.strides[1] + ih * x.strides[2] + iw),
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
  const Act xn = Act(x).at(n * x.strides[0] + ow * sw - p.pad_w);
  const auto* wd = static_cast<const int32_t*>(w.data);
  for (int64_t c = 0; c < g.group_c; ++c) {
    const Act xc = xn.at((ic0 + c) * x.strides[1]);
    for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
      const int64_t row = (h0 + kh * p.dilation_h) * x.strides[2];
      for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
        const int64_t col = row + kw * p.dilation_w;
        v128_t xv[NV];
        for (int v = 0; v < NV; ++v) xv[v] = xc.load4<S>(col + 4 * v * sw, sw);
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
    const OutputStage::Channel stage = g.stage.channel(oc0 + b);
    const Act yr =
        Act(y).at(n * y.strides[0] + (oc0 + b) * y.strides[1] + oh * y.strides[2] + ow);
    for (int v = 0; v < NV; ++v) yr.store4(4 * v, stage.vec(wasm_i32x4_add(acc[b][v], bias)));
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
  const Act yd(y);
  auto point = [&](int64_t ow) {
    for (int b = 0; b < NB; ++b) {
      yd.set(n * y.strides[0] + (oc0 + b) * y.strides[1] + oh * y.strides[2] + ow,
             g.stage.channel(oc0 + b).one(
                 conv_point(g, n, grp * g.group_c, oc0 + b, h0, kh_lo, kh_hi, ow)));
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
// dense

// y[m0 .. m0 + MR, u0 .. u0 + NR) = clamp(x[m, :] . w[u, :] (+ bias)) with i32x4.mul: each x load
// serves NR units and each w load MR rows, so w streams from memory ceil(M / MR) times. (The
// int16 dot product needs both operands narrowed first; without packing, that measured slower.)
template <int MR, int NR>
void dense_block(const TensorView& x, const TensorView& w, const TensorView* bias,
                 const TensorView& y, const OutputClamp& clamp, int64_t m0, int64_t u0) {
  const int64_t depth = x.shape[1];
  const Act xd(x), yd(y);
  int64_t xr[MR];  // row i of x at element xr[i]
  const int32_t* wr[NR];
  v128_t acc[MR][NR];
  for (int i = 0; i < MR; ++i) xr[i] = (m0 + i) * x.strides[0];
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
      const v128_t xv = xd.load4<1>(xr[i] + k, 1);
      for (int j = 0; j < NR; ++j) acc[i][j] = wasm_i32x4_add(acc[i][j], wasm_i32x4_mul(xv, wv[j]));
    }
  }
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NR; ++j) {
      uint32_t sum = hsum(acc[i][j]);
      for (int64_t kk = k; kk < depth; ++kk) sum = mac(sum, xd.get(xr[i] + kk), wr[j][kk]);
      if (bias != nullptr) {
        sum += static_cast<uint32_t>(
            static_cast<const int32_t*>(bias->data)[(u0 + j) * bias->strides[0]]);
      }
      yd.set((m0 + i) * y.strides[0] + (u0 + j) * y.strides[1],
             clamp.one(static_cast<int32_t>(sum)));
    }
  }
}

// Rows in blocks of MR, each block's units in blocks of NR, then one by one.
template <int MR, int NR>
void dense_rows(const TensorView& x, const TensorView& w, const TensorView* bias,
                const TensorView& y, const OutputClamp& clamp, int64_t m) {
  const int64_t units = y.shape[1];
  int64_t u = 0;
  for (; u + NR <= units; u += NR) dense_block<MR, NR>(x, w, bias, y, clamp, m, u);
  for (; u < units; ++u) dense_block<MR, 1>(x, w, bias, y, clamp, m, u);
}

// ---------------------------------------------------------------------------------------------
// max_pool2d

// Eight outputs of a stride-2 pooling of 2- or 3-column windows on an int8 row, in byte lanes:
// `rows` window rows from `top` (the first row's first window column), `step` apart, their
// maximum per byte over 16 columns (and over the 16 from one column on, for 3-column windows);
// then per int16 lane i the maximum of its two bytes (columns 2i, 2i + 1) and of the odd byte
// one column on (2i + 2). int16 lanes within int8.
v128_t pool_s2_bytes(const int8_t* top, int64_t rows, int64_t step, int64_t pool) {
  v128_t lo = wasm_i8x16_splat(-128), hi = lo;
  for (int64_t r = 0; r < rows; ++r) {
    lo = wasm_i8x16_max(lo, wasm_v128_load(top + r * step));
    if (pool == 3) hi = wasm_i8x16_max(hi, wasm_v128_load(top + r * step + 1));
  }
  const v128_t best = wasm_i16x8_max(wasm_i16x8_shr(wasm_i16x8_shl(lo, 8), 8),
                                     wasm_i16x8_shr(lo, 8));
  return pool == 3 ? wasm_i16x8_max(best, wasm_i16x8_shr(hi, 8)) : best;
}

// The eight int16 lanes (within int8) as bytes at y.
void store_pool_bytes(int8_t* y, v128_t v) {
  wasm_v128_store64_lane(y, wasm_i8x16_narrow_i16x8(v, v), 0);
}

// Over elements T: int32_t, or int8_t for int8 activation views (a valid op's windows each
// hold an input cell, so the padding's INT32_MIN never reaches an int8 output). Stride-2 rows
// of 2- or 3-column windows on int8 go eight outputs a vector in byte lanes (pool_s2_bytes).
template <int S, typename T>
void pool_all(const KernelCall& call) {
  const auto& p = *static_cast<const MaxPool2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  const int64_t in_h = x.shape[2], in_w = x.shape[3], out_w = y.shape[3];
  const auto* xd = static_cast<const T*>(x.data);
  auto* yd = static_cast<T*>(y.data);
  const bool unit = x.strides[3] == 1 && y.strides[3] == 1;  // else one output at a time
  int64_t ow_lo, ow_hi;
  interior(out_w, p.stride_w, p.pad_w, p.pool_w, in_w, &ow_lo, &ow_hi);
  for (int64_t n = 0; n < y.shape[0]; ++n) {
    for (int64_t c = 0; c < y.shape[1]; ++c) {
      const T* xc = xd + n * x.strides[0] + c * x.strides[1];
      for (int64_t oh = 0; oh < y.shape[2]; ++oh) {
        const int64_t h0 = oh * p.stride_h - p.pad_h;
        int64_t kh_lo, kh_hi;
        taps_inside(h0, 1, p.pool_h, in_h, &kh_lo, &kh_hi);
        T* yr = yd + n * y.strides[0] + c * y.strides[1] + oh * y.strides[2];
        auto point = [&](int64_t ow) {
          const int64_t w0 = ow * p.stride_w - p.pad_w;
          int64_t kw_lo, kw_hi;
          taps_inside(w0, 1, p.pool_w, in_w, &kw_lo, &kw_hi);
          int32_t best = INT32_MIN;  // padding cells are INT32_MIN
          for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
            for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
              const T v = xc[(h0 + kh) * x.strides[2] + (w0 + kw) * x.strides[3]];
              best = std::max(best, static_cast<int32_t>(v));
            }
          }
          yr[ow * y.strides[3]] = static_cast<T>(best);
        };
        int64_t ow = 0;
        for (; ow < ow_lo; ++ow) point(ow);
        if constexpr (S == 2 && std::is_same_v<T, int8_t>) {
          if (unit && (p.pool_w == 2 || p.pool_w == 3)) {
            for (; ow + 8 <= ow_hi; ow += 8) {
              const int8_t* top = xc + (h0 + kh_lo) * x.strides[2] + ow * 2 - p.pad_w;
              store_pool_bytes(yr + ow, pool_s2_bytes(top, kh_hi - kh_lo, x.strides[2], p.pool_w));
            }
          }
        }
        for (; unit && ow + 4 <= ow_hi; ow += 4) {
          v128_t best = wasm_i32x4_splat(INT32_MIN);
          const T* xw = xc + ow * p.stride_w - p.pad_w;
          for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
            const T* xr = xw + (h0 + kh) * x.strides[2];
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

// pool_all with the input column step of stride_w as a constant where it is 1 or 2.
template <typename T>
void pool_at_stride(const KernelCall& call, int64_t stride_w) {
  if (stride_w == 1) {
    pool_all<1, T>(call);
  } else if (stride_w == 2) {
    pool_all<2, T>(call);
  } else {
    pool_all<0, T>(call);
  }
}

}  // namespace

KernelStatus conv2d_i32__wasm_simd128(const KernelCall& call) {
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView& y = call.outputs[0];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  // int32 or int8 activations (act_types_ok), else declined.
  if (!act_types_ok(call, p.clamp, p.scale)) return KernelStatus::kDeclined;
  for (int d = 0; d < 4; ++d) {
    if (y.shape[d] == 0) return KernelStatus::kDone;  // nothing to write
  }
  // The vector paths read rows of x and write rows of y with unit stride; anything else (and
  // a degenerate kernel) is declined, before anything is written.
  if (x.strides[3] != 1 || y.strides[3] != 1 || w.shape[1] == 0 || w.shape[2] == 0 ||
      w.shape[3] == 0) {
    return KernelStatus::kDeclined;
  }
  // Depthwise layers (depthwise_simd128.cc), else the int16 GEMM, else the direct path. (3x3
  // stride-1 layers meet conv2d_i32__wasm_winograd first, an entry of its own.)
  if (conv2d_depthwise_simd128(call)) return KernelStatus::kDone;
  const ConvGeometry g{&p, &x, &w, bias, &y, w.shape[1], w.shape[2], w.shape[3], x.shape[2],
                       x.shape[3], OutputStage(p.clamp, p.scale)};
  if (conv2d_gemm_simd128(call)) return KernelStatus::kDone;
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
  const auto* p = static_cast<const DenseParams*>(call.params);
  // The dot products read rows of x and w with unit stride; anything else is declined.
  if (x.strides[1] != 1 || w.strides[1] != 1 ||
      !act_types_ok(call, p == nullptr ? nullptr : p->clamp, nullptr)) {
    return KernelStatus::kDeclined;
  }
  if (dense_gemm_simd128(call)) return KernelStatus::kDone;
  const OutputClamp clamp(p == nullptr ? nullptr : p->clamp);
  int64_t m = 0;
  for (; m + 4 <= y.shape[0]; m += 4) dense_rows<4, 2>(x, w, bias, y, clamp, m);
  for (; m < y.shape[0]; ++m) dense_rows<1, 4>(x, w, bias, y, clamp, m);
  return KernelStatus::kDone;
}

KernelStatus max_pool2d_i32__wasm_simd128(const KernelCall& call) {
  const auto& p = *static_cast<const MaxPool2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  // int32 rows of unit stride (others are declined), or int8 views of any strides (other rows
  // one output at a time); x and y of one type, else declined.
  if (x.type != y.type) return KernelStatus::kDeclined;
  if (x.type == ElemType::kInt8) {
    pool_at_stride<int8_t>(call, p.stride_w);
    return KernelStatus::kDone;
  }
  if (x.strides[3] != 1 || y.strides[3] != 1) return KernelStatus::kDeclined;
  pool_at_stride<int32_t>(call, p.stride_w);
  return KernelStatus::kDone;
}

}  // namespace wasm
}  // namespace kernel
}  // namespace cvm
