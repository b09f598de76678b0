// Declarations of the portable kernels listed in portable_table.cc, and the helpers they share.
//
// Every kernel equals the scalar reference (backends/scalar) bit for bit, and returns
// KernelStatus::kDone, or kDeclined, having written nothing, when the op layer lends no scratch
// for its packed operands (or an output layout it does not index): the op layer then runs the
// next entry of the node's chain, the scalar reference last. Both kernels apply
// Conv2dParams::clamp / DenseParams::clamp (when set) to every output as they store it, on
// every path (KernelEntry::applies_clamp); conv2d then applies Conv2dParams::scale (when set)
// too (KernelEntry::applies_channel_scale).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernel_abi.h"
#include "params/elementwise.h"
#include "params/nn.h"

namespace cvm {
namespace kernel {
namespace portable {

// ---- nn (conv2d.cc, dense.cc): int32, views and params of params/nn.h ----
KernelStatus conv2d_i32__portable(const KernelCall& call);  // Conv2dParams; x, w[, bias]
KernelStatus dense_i32__portable(const KernelCall& call);   // DenseParams (optional); x, w[, bias]

// KernelEntry::prepack of the two (KernelCall::prepacked): an int8 w as the GEMM operand the
// kernel reads (gemm.h: conv2d's A of every group, dense's whole B, in int8-pair lanes) behind a
// PackHeader; 0 (declined) when a value of w is outside int8, or for a depthwise conv2d.
size_t conv2d_i32__portable_prepack(const TensorView& w, const void* params, void* out,
                                    size_t cap);
size_t dense_i32__portable_prepack(const TensorView& w, const void* params, void* out, size_t cap);

// 3x3 stride-1 single-group conv2d with at least 4 output channels on int8 x and w, as Winograd
// F(2x2, 3x3) (winograd.cc); declines other layers and ranges, and calls without its pack below
// winograd_f23::kMinTilesUnpacked tiles. Its packer: the transformed filters behind a PackHeader
// (0 for a layer it does not take or a w outside int8).
KernelStatus conv2d_i32__portable_winograd(const KernelCall& call);
size_t conv2d_i32__portable_winograd_prepack(const TensorView& w, const void* params, void* out,
                                             size_t cap);

// ---- helpers ----
// An output as a kernel stores it: a + b modulo 2^32 (a sum and the bias, or y and the last
// part of its sum), then clamped by `clamp` (apply_clamp_one) unless it is null.
inline uint32_t clamped_sum(uint32_t a, uint32_t b, const CvmClampParams* clamp) {
  const uint32_t v = a + b;
  return clamp == nullptr ? v
                          : static_cast<uint32_t>(apply_clamp_one(static_cast<int32_t>(v), *clamp));
}
// A conv2d output of channel oc as the kernel stores it: clamped_sum(a, b, clamp), then, unless
// `scale` (Conv2dParams::scale) is null, times scale->multiplier[oc] modulo 2^32 and clamped by
// scale->clamp (apply_clamp_one).
inline uint32_t staged_sum(uint32_t a, uint32_t b, const CvmClampParams* clamp,
                           const ChannelScale* scale, ptrdiff_t oc) {
  const uint32_t v = clamped_sum(a, b, clamp);
  if (scale == nullptr) return v;
  const uint32_t m = static_cast<uint32_t>(scale->multiplier[oc]);
  return static_cast<uint32_t>(apply_clamp_one(static_cast<int32_t>(v * m), scale->clamp));
}
// Whether every element of the int32 view `v` is in [-128, 127] (range.cc).
bool fits_int8(const TensorView& v);
// conv2d with one input channel per group (depthwise, any channel multiplier), direct
// (depthwise.cc); false when it declines.
bool conv2d_depthwise(const KernelCall& call);

}  // namespace portable
}  // namespace kernel
}  // namespace cvm
