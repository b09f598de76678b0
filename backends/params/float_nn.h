// POD kernel parameters of the float32 operators of imported float models (float_nn.cc).
//
// avg_pool2d, leaky_relu, clamp, softmax and pad; float32 conv2d, dense and max_pool2d take
// params/nn.h's.
#pragma once

#include <cstdint>

#include "kernel_abi.h"

namespace cvm {
namespace kernel {

// "avg_pool2d" (float32): input (N, C, H, W), output (N, C, OH, OW), extents from the op layer.
// Window (oh, ow) covers rows [oh * stride_h - pad_top, + pool_h) and columns likewise. Its sum
// runs over the cells inside the input, in row-major window order, from +0.0f; the divisor is the
// number of those cells, or with count_include_pad the number of window cells inside [-pad_top, H +
// pad_bottom) x [-pad_left, W + pad_right). No cell to divide by: +0.0f.
struct AvgPool2dParams {
  int64_t pool_h, pool_w;
  int64_t stride_h, stride_w;
  int64_t pad_top, pad_left, pad_bottom, pad_right;
  int32_t count_include_pad;  // 0 or 1
};

// "leaky_relu" (float32): y = x < 0 ? x * alpha : x.
struct LeakyReluParams {
  float alpha;
};

// "clamp" (float32): y = x < lo ? lo : (x > hi ? hi : x); lo <= hi, neither NaN (may be +-inf).
struct ClampParams {
  float lo, hi;
};

// "softmax" (float32): input and output of the same shape (ndim >= 1); every slice along `axis` (in
// [0, ndim)) is normalised on its own.
struct SoftmaxParams {
  int32_t axis;
};

// "pad" (32-bit elements: float32, int32): output extent d = input extent d + begin[d] + end[d]
// (the op layer computed them); output[i] = input[i - begin] where that lies inside the input, else
// `value_bits` (the raw bits of one element). begin[d] for d < ndim; >= 0.
struct PadParams {
  int64_t begin[kMaxKernelDims];
  uint32_t value_bits;
};

}  // namespace kernel
}  // namespace cvm
