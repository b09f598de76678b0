// Scalar reference kernels of the float32 operators of imported (ONNX) float models.
//
// conv2d, dense, max_pool2d, relu, avg_pool2d, leaky_relu, clamp, sigmoid, softmax and pad; their
// order is spelled out in docs/determinism.md.
//
// The loops below, and conv2d and dense in nn_loops.h (shared with the int32 kernels) with the
// arithmetic of SequentialFloat32, are the contract: each output's float operations run in exactly
// this order, each rounded once (no FMA: -ffp-contract=off), and a NaN result is written as the
// canonical NaN.
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
#include "nn_loops.h"
#include "pad_rows.h"
#include "params/nn.h"
#include "scalar_kernels.h"

namespace cvm {
namespace kernel {
namespace scalar {
namespace {

// The value to store: NaN becomes the canonical NaN, whatever NaN the arithmetic produced.
inline float result(float v) { return std::isnan(v) ? canonical_nan<float>() : v; }

// float32 arithmetic of conv2d and dense: sequential sums, each product and each sum rounded once.
struct SequentialFloat32 {
  using Elem = float;
  using Acc = float;
  static float mac(float acc, float a, float b) {
    const float product = a * b;
    return acc + product;
  }
  static float add(float acc, float b) { return acc + b; }
  static float store(float acc) { return result(acc); }
};

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

KernelStatus conv2d_f32(const KernelCall& call) {
  conv2d_nchw<SequentialFloat32>(call);
  return KernelStatus::kDone;
}

KernelStatus dense_f32(const KernelCall& call) {
  dense_rows<SequentialFloat32>(call);
  return KernelStatus::kDone;
}

KernelStatus max_pool2d_f32(const KernelCall& call) {
  const auto& p = *static_cast<const MaxPool2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  for_each_pool_window(x, y, p, [&](const PoolWindow& win) {
    // Padding cells take no part; the first of equal values wins (strictly greater replaces), so
    // the result is an input element unless a NaN is present.
    float best = -std::numeric_limits<float>::infinity();
    bool nan = false;
    for (int64_t kh = win.kh_lo; kh < win.kh_hi; ++kh) {
      for (int64_t kw = win.kw_lo; kw < win.kw_hi; ++kw) {
        const float v = *at<float>(x, win.n, win.c, win.h0 + kh, win.w0 + kw);
        nan = nan || std::isnan(v);
        if (v > best) best = v;
      }
    }
    *out_at<float>(y, win.n, win.c, win.oh, win.ow) = nan ? canonical_nan<float>() : best;
  });
  return KernelStatus::kDone;
}

KernelStatus avg_pool2d_f32(const KernelCall& call) {
  const auto& p = *static_cast<const AvgPool2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  const int64_t in_h = x.shape[2], in_w = x.shape[3];
  const MaxPool2dParams window{p.pool_h, p.pool_w, p.stride_h, p.stride_w, p.pad_top, p.pad_left};
  for_each_pool_window(x, y, window, [&](const PoolWindow& win) {
    const int64_t rows = p.count_include_pad != 0
                             ? overlap(win.h0, p.pool_h, -p.pad_top, in_h + p.pad_bottom)
                             : win.kh_hi - win.kh_lo;
    const int64_t cols = p.count_include_pad != 0
                             ? overlap(win.w0, p.pool_w, -p.pad_left, in_w + p.pad_right)
                             : win.kw_hi - win.kw_lo;
    float sum = 0.0f;
    for (int64_t kh = win.kh_lo; kh < win.kh_hi; ++kh) {
      for (int64_t kw = win.kw_lo; kw < win.kw_hi; ++kw) {
        sum = sum + *at<float>(x, win.n, win.c, win.h0 + kh, win.w0 + kw);
      }
    }
    const int64_t divisor = rows * cols;  // <= pool_h * pool_w: exact as a float
    *out_at<float>(y, win.n, win.c, win.oh, win.ow) =
        divisor == 0 ? 0.0f : result(sum / static_cast<float>(divisor));
  });
  return KernelStatus::kDone;
}

KernelStatus relu_f32(const KernelCall& call) {
  map_elements<float, float, 1>(call, [](float x) {
    if (std::isnan(x)) return canonical_nan<float>();
    return x > 0.0f ? x : 0.0f;  // relu(-0.0) = +0.0
  });
  return KernelStatus::kDone;
}

KernelStatus leaky_relu_f32(const KernelCall& call) {
  const float alpha = static_cast<const LeakyReluParams*>(call.params)->alpha;
  map_elements<float, float, 1>(call, [alpha](float x) {
    if (std::isnan(x)) return canonical_nan<float>();
    return result(x < 0.0f ? x * alpha : x);  // -inf * 0 is NaN
  });
  return KernelStatus::kDone;
}

KernelStatus clamp_f32(const KernelCall& call) {
  const ClampParams p = *static_cast<const ClampParams*>(call.params);
  map_elements<float, float, 1>(call, [p](float x) {
    if (std::isnan(x)) return canonical_nan<float>();
    return x < p.lo ? p.lo : (x > p.hi ? p.hi : x);
  });
  return KernelStatus::kDone;
}

KernelStatus sigmoid_f32(const KernelCall& call) {
  map_elements<float, float, 1>(call, [](float x) {
    const double e = det_exp(-static_cast<double>(x));
    return result(static_cast<float>(1.0 / (1.0 + e)));
  });
  return KernelStatus::kDone;
}

KernelStatus softmax_f32(const KernelCall& call) {
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
  return KernelStatus::kDone;
}

// Elements move as 4 raw bytes (float32 or int32 alike), never as typed values.
KernelStatus pad_b32(const KernelCall& call) {
  const uint32_t value = static_cast<const PadParams*>(call.params)->value_bits;
  for_each_pad_row(call, [&](const PadRow& r) { pad_row_elements(r, value); });
  return KernelStatus::kDone;
}

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
