// The loop nests the scalar int32 (nn.cc) and float32 (float_nn.cc) nn kernels share.
//
// conv2d, dense and the pooling window walk are the same loops for both element types; what
// differs is the arithmetic (int32 wraps in uint32, float32 sums in order and rounds each step),
// which each kernel passes in. The loops fix the order of every output's terms.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernel_abi.h"
#include "params/nn.h"

namespace cvm {
namespace kernel {
namespace scalar {

// Element [i0, ...] of a view of T; views carry element strides, so any layout works.
template <typename T>
inline const T* at(const TensorView& v, int64_t i0) {
  return static_cast<const T*>(v.data) + i0 * v.strides[0];
}
template <typename T>
inline const T* at(const TensorView& v, int64_t i0, int64_t i1) {
  return static_cast<const T*>(v.data) + i0 * v.strides[0] + i1 * v.strides[1];
}
template <typename T>
inline const T* at(const TensorView& v, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return at<T>(v, i0, i1) + i2 * v.strides[2] + i3 * v.strides[3];
}
template <typename T>
inline T* out_at(const TensorView& v, int64_t i0, int64_t i1) {
  return const_cast<T*>(at<T>(v, i0, i1));
}
template <typename T>
inline T* out_at(const TensorView& v, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return const_cast<T*>(at<T>(v, i0, i1, i2, i3));
}

// Taps t in [*lo, *hi) of a window starting at `start` with step `dilation` over `taps` taps
// that land inside [0, extent): the other taps read padding. Keeps the inner loops branch-free.
inline void taps_inside(int64_t start, int64_t dilation, int64_t taps, int64_t extent, int64_t* lo,
                        int64_t* hi) {
  *lo = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
  *hi = start >= extent ? 0 : std::min(taps, (extent - start + dilation - 1) / dilation);
  if (*hi < *lo) *hi = *lo;
}

// conv2d and dense take their arithmetic from Arith, a struct of
//   Elem                      the element type of every input and the output;
//   Acc                       the type of a running sum, which starts at 0;
//   Acc mac(Acc, Elem, Elem)  the sum with one more product;
//   Acc add(Acc, Elem)        the whole sum with the bias added;
//   Elem store(Acc)           the value written for a sum.
// Both are always_inline: inlined early, like loops written out in each kernel, their innermost
// loops compile as they did there; inlined late, GCC kept a stride of the int32 conv2d's
// innermost loop on the stack (10-20% slower).

// conv2d (Conv2dParams): x (N, C, H, W), w (OC, C / groups, KH, KW), optional bias (OC). Each
// output sums its taps over ic, then kh, then kw ascending; padding taps are skipped, not added as
// 0 * w. The whole sum first, then the bias, as the reference does.
template <typename Arith>
__attribute__((always_inline)) inline void conv2d_nchw(const KernelCall& call) {
  using T = typename Arith::Elem;
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const TensorView& y = call.outputs[0];
  const int64_t batch = y.shape[0], out_c = y.shape[1], out_h = y.shape[2], out_w = y.shape[3];
  const int64_t in_h = x.shape[2], in_w = x.shape[3];
  const int64_t group_c = w.shape[1], kernel_h = w.shape[2], kernel_w = w.shape[3];
  if (out_c == 0) return;
  const int64_t out_per_group = out_c / p.groups;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t oc = 0; oc < out_c; ++oc) {
      const int64_t ic0 = oc / out_per_group * group_c;  // first input channel of oc's group
      for (int64_t oh = 0; oh < out_h; ++oh) {
        const int64_t h0 = oh * p.stride_h - p.pad_h;
        int64_t kh_lo, kh_hi;
        taps_inside(h0, p.dilation_h, kernel_h, in_h, &kh_lo, &kh_hi);
        for (int64_t ow = 0; ow < out_w; ++ow) {
          const int64_t w0 = ow * p.stride_w - p.pad_w;
          int64_t kw_lo, kw_hi;
          taps_inside(w0, p.dilation_w, kernel_w, in_w, &kw_lo, &kw_hi);
          typename Arith::Acc sum = 0;
          for (int64_t c = 0; c < group_c; ++c) {
            for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
              const int64_t ih = h0 + kh * p.dilation_h;
              for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
                const int64_t iw = w0 + kw * p.dilation_w;
                sum = Arith::mac(sum, *at<T>(x, n, ic0 + c, ih, iw), *at<T>(w, oc, c, kh, kw));
              }
            }
          }
          if (bias != nullptr) sum = Arith::add(sum, *at<T>(*bias, oc));
          *out_at<T>(y, n, oc, oh, ow) = Arith::store(sum);
        }
      }
    }
  }
}

// dense: x (M, K), w (units, K), optional bias (units). Each output sums k ascending, then adds
// the bias.
template <typename Arith>
__attribute__((always_inline)) inline void dense_rows(const KernelCall& call) {
  using T = typename Arith::Elem;
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const TensorView& y = call.outputs[0];
  const int64_t rows = y.shape[0], units = y.shape[1], depth = x.shape[1];
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t u = 0; u < units; ++u) {
      typename Arith::Acc sum = 0;
      for (int64_t k = 0; k < depth; ++k) sum = Arith::mac(sum, *at<T>(x, m, k), *at<T>(w, u, k));
      if (bias != nullptr) sum = Arith::add(sum, *at<T>(*bias, u));
      *out_at<T>(y, m, u) = Arith::store(sum);
    }
  }
}

// One output element of a 2-D pooling and the input window it reads.
struct PoolWindow {
  int64_t n, c, oh, ow;                // the output element
  int64_t h0, w0;                      // the input row and column of tap (0, 0)
  int64_t kh_lo, kh_hi, kw_lo, kw_hi;  // the taps inside the input (taps_inside)
};

// Calls fn(const PoolWindow&) for every element of y (N, C, OH, OW) in row-major order, for the
// window `g` describes (pool_h x pool_w, moved by the strides, over x (N, C, H, W) padded by pad_h
// rows above and pad_w columns to the left); g's type is max_pool2d's, any pooling may use it.
template <typename Fn>
void for_each_pool_window(const TensorView& x, const TensorView& y, const MaxPool2dParams& g,
                          Fn&& fn) {
  const int64_t in_h = x.shape[2], in_w = x.shape[3];
  for (int64_t n = 0; n < y.shape[0]; ++n) {
    for (int64_t c = 0; c < y.shape[1]; ++c) {
      for (int64_t oh = 0; oh < y.shape[2]; ++oh) {
        const int64_t h0 = oh * g.stride_h - g.pad_h;
        int64_t kh_lo, kh_hi;
        taps_inside(h0, 1, g.pool_h, in_h, &kh_lo, &kh_hi);
        for (int64_t ow = 0; ow < y.shape[3]; ++ow) {
          const int64_t w0 = ow * g.stride_w - g.pad_w;
          int64_t kw_lo, kw_hi;
          taps_inside(w0, 1, g.pool_w, in_w, &kw_lo, &kw_hi);
          fn(PoolWindow{n, c, oh, ow, h0, w0, kh_lo, kh_hi, kw_lo, kw_hi});
        }
      }
    }
  }
}

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
