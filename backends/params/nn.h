// POD kernel parameters of the CVM nn family (conv2d, dense, max_pool2d, upsampling).
#pragma once

#include <cstdint>

#include "kernel_abi.h"
#include "params/elementwise.h"

namespace cvm {
namespace kernel {

// After Conv2dParams::clamp: every output of channel oc times multiplier[oc] (wrapping int32,
// as broadcast_mul), then `clamp` (as CvmClampParams). The per-channel requantization of a model
// quantized with per-channel weight scales.
struct ChannelScale {
  const int32_t* multiplier;  // one per output channel
  CvmClampParams clamp;
};

// "conv2d" (int32): inputs x (N, C, H, W), w (OC, C/groups, KH, KW) and, when there are three
// inputs, bias (OC); output (N, OC, OH, OW), whose extents the op layer computed. Zero
// padding: pad_h rows before the input and, after it, as many as the output's windows reach
// (pad_h for the conv2d op; more when a CPU session fuses an asymmetric pad into the call, e.g.
// TensorFlow's "SAME" padding of a stride-2 convolution, graph/pad_fusion.h); columns likewise.
// Every value is >= 1 except the paddings (>= 0).
struct Conv2dParams {
  int64_t stride_h, stride_w;
  int64_t pad_h, pad_w;
  int64_t dilation_h, dilation_w;
  int64_t groups;
  // Scratch the kernel may ask for (kernel_abi.h); null: none. The reference asks for none;
  // the x86 kernels repack operands into it, and decline the call without it.
  const Scratch* scratch;
  // A clamp to apply to every output after the bias, as the cvm_right_shift kernel computes it
  // (CvmClampParams; shift 0: no shift), or null. Only entries with KernelEntry::applies_clamp
  // read it: the caller applies it itself after any other entry.
  const CvmClampParams* clamp = nullptr;
  // Then a per-channel multiply and a second clamp, or null. Only entries with
  // KernelEntry::applies_channel_scale (which apply `clamp` too) read it.
  const ChannelScale* scale = nullptr;
};

// "dense" (int32): inputs x (M, K), w (units, K) and, when there are three inputs, bias
// (units); output (M, units). The params pointer itself may be null (no scratch, no clamp).
struct DenseParams {
  const Scratch* scratch;  // as in Conv2dParams
  // As Conv2dParams::clamp: read only by entries with KernelEntry::applies_clamp.
  const CvmClampParams* clamp = nullptr;
};

// "max_pool2d" (int32): input (N, C, H, W), output (N, C, OH, OW). Window (oh, ow) covers rows
// [oh * stride_h - pad_h, + pool_h) and columns likewise; cells outside the input are INT32_MIN.
struct MaxPool2dParams {
  int64_t pool_h, pool_w;
  int64_t stride_h, stride_w;
  int64_t pad_h, pad_w;
};

// "upsampling" (int32, nearest neighbour): input (N, C, H, W), output (N, C, H * scale,
// W * scale); Y[n, c, h, w] = X[n, c, h / scale, w / scale].
struct UpsamplingParams {
  int64_t scale;
};

}  // namespace kernel
}  // namespace cvm
