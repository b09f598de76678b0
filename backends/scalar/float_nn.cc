// Scalar reference kernels of the float32 operators of imported (ONNX) float models.
//
// conv2d, dense, max_pool2d, relu, avg_pool2d, leaky_relu, clamp, sigmoid, softmax and pad; their
// order is spelled out in docs/determinism.md.
//
// The loops below are the contract: each output's float operations run in exactly this order, each
// rounded once (no FMA: -ffp-contract=off), and a NaN result is written as the canonical NaN.
// Faster kernels vectorise across independent outputs, never inside one output's order.
#include "params/float_nn.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "convert.h"
#include "elementwise_map.h"
#include "float_math.h"
#include "params/nn.h"
#include "scalar_kernels.h"

namespace cvm {
namespace kernel {
namespace scalar {
namespace {

// Element [i0, ...] of a float32 view; views carry element strides, so any layout works.
inline const float* at(const TensorView& v, int64_t i0) {
  return static_cast<const float*>(v.data) + i0 * v.strides[0];
}
inline const float* at(const TensorView& v, int64_t i0, int64_t i1) {
  return static_cast<const float*>(v.data) + i0 * v.strides[0] + i1 * v.strides[1];
}
inline const float* at(const TensorView& v, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return at(v, i0, i1) + i2 * v.strides[2] + i3 * v.strides[3];
}
inline float* out_at(const TensorView& v, int64_t i0, int64_t i1) {
  return const_cast<float*>(at(v, i0, i1));
}
inline float* out_at(const TensorView& v, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return const_cast<float*>(at(v, i0, i1, i2, i3));
}

// The value to store: NaN becomes the canonical NaN, whatever NaN the arithmetic produced.
inline float result(float v) { return std::isnan(v) ? canonical_nan<float>() : v; }

// Taps t in [*lo, *hi) of a window starting at `start` with step `dilation` over `taps` taps that
// land inside [0, extent); the other taps lie in the padding.
void taps_inside(int64_t start, int64_t dilation, int64_t taps, int64_t extent, int64_t* lo,
                 int64_t* hi) {
  *lo = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
  *hi = start >= extent ? 0 : std::min(taps, (extent - start + dilation - 1) / dilation);
  if (*hi < *lo) *hi = *lo;
}

// Cells of [start, start + size) inside [lo, hi).
inline int64_t overlap(int64_t start, int64_t size, int64_t lo, int64_t hi) {
  return std::max<int64_t>(0, std::min(start + size, hi) - std::max(start, lo));
}

// Calls body(in_offset, out_offset) for every index of `out`'s shape with dimension `skip` held at
// 0 (skip = -1: none held), in row-major order; offsets are in elements.
template <typename Body>
void for_each_index(const TensorView& out, const TensorView& in, int skip, Body&& body) {
  const int nd = out.ndim;
  for (int d = 0; d < nd; ++d) {
    if (out.shape[d] == 0) return;
  }
  int64_t index[kMaxKernelDims] = {};
  for (;;) {
    int64_t in_off = 0, out_off = 0;
    for (int d = 0; d < nd; ++d) {
      in_off += index[d] * in.strides[d];
      out_off += index[d] * out.strides[d];
    }
    body(in_off, out_off);
    int d = nd - 1;
    for (; d >= 0; --d) {
      if (d == skip) continue;
      if (++index[d] < out.shape[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace

void conv2d_f32(const KernelCall& call) {
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
          // ic, then kh, then kw ascending; padding taps are skipped, not added as 0 * w.
          float acc = 0.0f;
          for (int64_t c = 0; c < group_c; ++c) {
            for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
              const int64_t ih = h0 + kh * p.dilation_h;
              for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
                const int64_t iw = w0 + kw * p.dilation_w;
                const float product = *at(x, n, ic0 + c, ih, iw) * *at(w, oc, c, kh, kw);
                acc = acc + product;
              }
            }
          }
          if (bias != nullptr) acc = acc + *at(*bias, oc);
          *out_at(y, n, oc, oh, ow) = result(acc);
        }
      }
    }
  }
}

void dense_f32(const KernelCall& call) {
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const TensorView& y = call.outputs[0];
  const int64_t rows = y.shape[0], units = y.shape[1], depth = x.shape[1];
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t u = 0; u < units; ++u) {
      float acc = 0.0f;
      for (int64_t k = 0; k < depth; ++k) {
        const float product = *at(x, m, k) * *at(w, u, k);
        acc = acc + product;
      }
      if (bias != nullptr) acc = acc + *at(*bias, u);
      *out_at(y, m, u) = result(acc);
    }
  }
}

void max_pool2d_f32(const KernelCall& call) {
  const auto& p = *static_cast<const MaxPool2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  const int64_t in_h = x.shape[2], in_w = x.shape[3];
  for (int64_t n = 0; n < y.shape[0]; ++n) {
    for (int64_t c = 0; c < y.shape[1]; ++c) {
      for (int64_t oh = 0; oh < y.shape[2]; ++oh) {
        const int64_t h0 = oh * p.stride_h - p.pad_h;
        int64_t kh_lo, kh_hi;
        taps_inside(h0, 1, p.pool_h, in_h, &kh_lo, &kh_hi);
        for (int64_t ow = 0; ow < y.shape[3]; ++ow) {
          const int64_t w0 = ow * p.stride_w - p.pad_w;
          int64_t kw_lo, kw_hi;
          taps_inside(w0, 1, p.pool_w, in_w, &kw_lo, &kw_hi);
          // Padding cells take no part; the first of equal values wins (strictly greater replaces),
          // so the result is an input element unless a NaN is present.
          float best = -std::numeric_limits<float>::infinity();
          bool nan = false;
          for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
            for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
              const float v = *at(x, n, c, h0 + kh, w0 + kw);
              nan = nan || std::isnan(v);
              if (v > best) best = v;
            }
          }
          *out_at(y, n, c, oh, ow) = nan ? canonical_nan<float>() : best;
        }
      }
    }
  }
}

void avg_pool2d_f32(const KernelCall& call) {
  const auto& p = *static_cast<const AvgPool2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  const int64_t in_h = x.shape[2], in_w = x.shape[3];
  for (int64_t n = 0; n < y.shape[0]; ++n) {
    for (int64_t c = 0; c < y.shape[1]; ++c) {
      for (int64_t oh = 0; oh < y.shape[2]; ++oh) {
        const int64_t h0 = oh * p.stride_h - p.pad_top;
        int64_t kh_lo, kh_hi;
        taps_inside(h0, 1, p.pool_h, in_h, &kh_lo, &kh_hi);
        const int64_t rows = p.count_include_pad != 0
                                 ? overlap(h0, p.pool_h, -p.pad_top, in_h + p.pad_bottom)
                                 : kh_hi - kh_lo;
        for (int64_t ow = 0; ow < y.shape[3]; ++ow) {
          const int64_t w0 = ow * p.stride_w - p.pad_left;
          int64_t kw_lo, kw_hi;
          taps_inside(w0, 1, p.pool_w, in_w, &kw_lo, &kw_hi);
          const int64_t cols = p.count_include_pad != 0
                                   ? overlap(w0, p.pool_w, -p.pad_left, in_w + p.pad_right)
                                   : kw_hi - kw_lo;
          float sum = 0.0f;
          for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
            for (int64_t kw = kw_lo; kw < kw_hi; ++kw) sum = sum + *at(x, n, c, h0 + kh, w0 + kw);
          }
          const int64_t divisor = rows * cols;  // <= pool_h * pool_w: exact as a float
          *out_at(y, n, c, oh, ow) =
              divisor == 0 ? 0.0f : result(sum / static_cast<float>(divisor));
        }
      }
    }
  }
}

void relu_f32(const KernelCall& call) {
  map_elements<float, float, 1>(call, [](float x) {
    if (std::isnan(x)) return canonical_nan<float>();
    return x > 0.0f ? x : 0.0f;  // relu(-0.0) = +0.0
  });
}

void leaky_relu_f32(const KernelCall& call) {
  const float alpha = static_cast<const LeakyReluParams*>(call.params)->alpha;
  map_elements<float, float, 1>(call, [alpha](float x) {
    if (std::isnan(x)) return canonical_nan<float>();
    return result(x < 0.0f ? x * alpha : x);  // -inf * 0 is NaN
  });
}

void clamp_f32(const KernelCall& call) {
  const ClampParams p = *static_cast<const ClampParams*>(call.params);
  map_elements<float, float, 1>(call, [p](float x) {
    if (std::isnan(x)) return canonical_nan<float>();
    return x < p.lo ? p.lo : (x > p.hi ? p.hi : x);
  });
}

void sigmoid_f32(const KernelCall& call) {
  map_elements<float, float, 1>(call, [](float x) {
    const double e = det_exp(-static_cast<double>(x));
    return result(static_cast<float>(1.0 / (1.0 + e)));
  });
}

void softmax_f32(const KernelCall& call) {
  const int axis = static_cast<const SoftmaxParams*>(call.params)->axis;
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  const int64_t n = x.shape[axis], xs = x.strides[axis], ys = y.strides[axis];
  const auto* xb = static_cast<const float*>(x.data);
  auto* yb = static_cast<float*>(y.data);
  for_each_index(y, x, axis, [&](int64_t x_off, int64_t y_off) {
    const float* xp = xb + x_off;
    float* yp = yb + y_off;
    float m = -std::numeric_limits<float>::infinity();
    bool nan = false;
    for (int64_t i = 0; i < n && !nan; ++i) {
      const float v = xp[i * xs];
      nan = std::isnan(v);
      if (v > m) m = v;
    }
    if (nan) {
      for (int64_t i = 0; i < n; ++i) yp[i * ys] = canonical_nan<float>();
      return;
    }
    const double md = m;
    double s = 0.0;  // 0 + e_0 = e_0 exactly: the sum is e_0 + e_1 + ... in order
    for (int64_t i = 0; i < n; ++i) s = s + det_exp(static_cast<double>(xp[i * xs]) - md);
    for (int64_t i = 0; i < n; ++i) {
      const double e = det_exp(static_cast<double>(xp[i * xs]) - md);
      yp[i * ys] = result(static_cast<float>(e / s));
    }
  });
}

void pad_b32(const KernelCall& call) {
  const auto& p = *static_cast<const PadParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  const int nd = y.ndim;
  // Elements move as 4 raw bytes (float32 or int32 alike), never as typed values.
  constexpr int64_t kBytes = 4;
  const auto* xb = static_cast<const char*>(x.data);
  auto* yb = static_cast<char*>(y.data);
  if (nd == 0) {
    std::memcpy(yb, xb, kBytes);
    return;
  }
  for (int d = 0; d < nd; ++d) {
    if (y.shape[d] == 0) return;
  }
  // One output row (the last dimension) at a time: the part inside the input is copied, the rest
  // filled. A row whose outer index lies in the padding is filled whole.
  const int last = nd - 1;
  const int64_t row_in = x.shape[last], begin = p.begin[last];
  const int64_t xs = x.strides[last] * kBytes, ys = y.strides[last] * kBytes;
  int64_t index[kMaxKernelDims] = {};
  for (;;) {
    bool inside = true;
    int64_t x_off = 0, y_off = 0;
    for (int d = 0; d < last; ++d) {
      const int64_t i = index[d] - p.begin[d];
      inside = inside && i >= 0 && i < x.shape[d];
      x_off += i * x.strides[d];
      y_off += index[d] * y.strides[d];
    }
    char* yp = yb + y_off * kBytes;
    for (int64_t j = 0; j < y.shape[last]; ++j) {
      const int64_t i = j - begin;
      if (inside && i >= 0 && i < row_in) {
        std::memcpy(yp + j * ys, xb + x_off * kBytes + i * xs, kBytes);
      } else {
        std::memcpy(yp + j * ys, &p.value_bits, kBytes);
      }
    }
    int d = last - 1;
    for (; d >= 0; --d) {
      if (++index[d] < y.shape[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
