// Scalar reference kernels of the CVM nn family: conv2d, dense, max_pool2d, upsampling (int32).
#include "params/nn.h"

#include <algorithm>
#include <cstdint>

#include "nn_loops.h"
#include "scalar_kernels.h"

namespace cvm {
namespace kernel {
namespace scalar {
namespace {

// int32 arithmetic of conv2d and dense: two's-complement wrapping, done in uint32 (no signed
// overflow).
struct WrappingInt32 {
  using Elem = int32_t;
  using Acc = uint32_t;
  static uint32_t mac(uint32_t acc, int32_t a, int32_t b) {
    return acc + static_cast<uint32_t>(a) * static_cast<uint32_t>(b);
  }
  static uint32_t add(uint32_t acc, int32_t b) { return acc + static_cast<uint32_t>(b); }
  static int32_t store(uint32_t acc) { return static_cast<int32_t>(acc); }
};

}  // namespace

KernelStatus conv2d_i32(const KernelCall& call) {
  conv2d_nchw<WrappingInt32>(call);
  return KernelStatus::kDone;
}

KernelStatus dense_i32(const KernelCall& call) {
  dense_rows<WrappingInt32>(call);
  return KernelStatus::kDone;
}

KernelStatus max_pool2d_i32(const KernelCall& call) {
  const auto& p = *static_cast<const MaxPool2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  for_each_pool_window(x, y, p, [&](const PoolWindow& win) {
    int32_t best = INT32_MIN;  // padding cells are INT32_MIN
    for (int64_t kh = win.kh_lo; kh < win.kh_hi; ++kh) {
      for (int64_t kw = win.kw_lo; kw < win.kw_hi; ++kw) {
        best = std::max(best, *at<int32_t>(x, win.n, win.c, win.h0 + kh, win.w0 + kw));
      }
    }
    *out_at<int32_t>(y, win.n, win.c, win.oh, win.ow) = best;
  });
  return KernelStatus::kDone;
}

KernelStatus upsampling_i32(const KernelCall& call) {
  const auto& p = *static_cast<const UpsamplingParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& y = call.outputs[0];
  for (int64_t n = 0; n < y.shape[0]; ++n) {
    for (int64_t c = 0; c < y.shape[1]; ++c) {
      for (int64_t h = 0; h < y.shape[2]; ++h) {
        for (int64_t w = 0; w < y.shape[3]; ++w) {
          *out_at<int32_t>(y, n, c, h, w) = *at<int32_t>(x, n, c, h / p.scale, w / p.scale);
        }
      }
    }
  }
  return KernelStatus::kDone;
}

}  // namespace scalar
}  // namespace kernel
}  // namespace cvm
