// Scalar reference kernels of the CVM nn family: conv2d, dense, max_pool2d, upsampling (int32).
#include "params/nn.h"

#include <algorithm>
#include <cstdint>

#include "scalar_kernels.h"

namespace cvm {
namespace kernel {
namespace scalar {
namespace {

// Element [i0, ...] of an int32 view; views carry element strides, so any layout works.
inline int32_t at1(const TensorView& v, int64_t i) {
  return static_cast<const int32_t*>(v.data)[i * v.strides[0]];
}
inline const int32_t* at(const TensorView& v, int64_t i0, int64_t i1) {
  return static_cast<const int32_t*>(v.data) + i0 * v.strides[0] + i1 * v.strides[1];
}
inline const int32_t* at(const TensorView& v, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return at(v, i0, i1) + i2 * v.strides[2] + i3 * v.strides[3];
}
inline int32_t* out_at(const TensorView& v, int64_t i0, int64_t i1) {
  return const_cast<int32_t*>(at(v, i0, i1));
}
inline int32_t* out_at(const TensorView& v, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return const_cast<int32_t*>(at(v, i0, i1, i2, i3));
}

// Taps t in [*lo, *hi) of a window starting at `start` with step `dilation` over `taps` taps
// that land inside [0, extent): the other taps read padding. Keeps the inner loops branch-free.
void taps_inside(int64_t start, int64_t dilation, int64_t taps, int64_t extent, int64_t* lo,
                 int64_t* hi) {
  *lo = start >= 0 ? 0 : (-start + dilation - 1) / dilation;
  *hi = start >= extent ? 0 : std::min(taps, (extent - start + dilation - 1) / dilation);
  if (*hi < *lo) *hi = *lo;
}

// int32 multiply-accumulate with two's-complement wrapping, done in uint32 (no signed overflow).
inline uint32_t mac(uint32_t acc, int32_t a, int32_t b) {
  return acc + static_cast<uint32_t>(a) * static_cast<uint32_t>(b);
}

}  // namespace

void conv2d_i32(const KernelCall& call) {
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
          uint32_t sum = 0;
          for (int64_t c = 0; c < group_c; ++c) {
            for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
              const int64_t ih = h0 + kh * p.dilation_h;
              for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
                const int64_t iw = w0 + kw * p.dilation_w;
                sum = mac(sum, *at(x, n, ic0 + c, ih, iw), *at(w, oc, c, kh, kw));
              }
            }
          }
          // The whole sum first, then the bias, as the reference does.
          if (bias != nullptr) sum += static_cast<uint32_t>(at1(*bias, oc));
          *out_at(y, n, oc, oh, ow) = static_cast<int32_t>(sum);
        }
      }
    }
  }
}

void dense_i32(const KernelCall& call) {
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const TensorView& y = call.outputs[0];
  const int64_t rows = y.shape[0], units = y.shape[1], depth = x.shape[1];
  for (int64_t m = 0; m < rows; ++m) {
    for (int64_t u = 0; u < units; ++u) {
      uint32_t sum = 0;
      for (int64_t k = 0; k < depth; ++k) sum = mac(sum, *at(x, m, k), *at(w, u, k));
      if (bias != nullptr) sum += static_cast<uint32_t>(at1(*bias, u));
      *out_at(y, m, u) = static_cast<int32_t>(sum);
    }
  }
}

void max_pool2d_i32(const KernelCall& call) {
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
          int32_t best = INT32_MIN;  // padding cells are INT32_MIN
          for (int64_t kh = kh_lo; kh < kh_hi; ++kh) {
            for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
              best = std::max(best, *at(x, n, c, h0 + kh, w0 + kw));
            }
          }
          *out_at(y, n, c, oh, ow) = best;
        }
      }
    }
  }
}

void upsampling_i32(const KernelCall& call) {
  const auto& p = *static_cast<const UpsamplingParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  for (int64_t n = 0; n < y.shape[0]; ++n) {
    for (int64_t c = 0; c < y.shape[1]; ++c) {
      for (int64_t h = 0; h < y.shape[2]; ++h) {
        for (int64_t w = 0; w < y.shape[3]; ++w) {
          *out_at(y, n, c, h, w) = *at(x, n, c, h / p.scale, w / p.scale);
        }
      }
    }
  }
}

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
