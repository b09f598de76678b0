// Portable int32 conv2d: a GEMM per image and group over an implicit im2col (gemm.h), in int8
// pair lanes when x and w fit int8, else int32 lanes; one input channel per group goes to the
// direct depthwise kernel (depthwise.cc).
//
// Per group: A = the group's weights (out channels x K), K = (channel, kh, kw) taps; B = its
// im2col (K x output pixels), packed panel by panel straight from x, padding taps as 0 (a
// product 0 * w adds nothing modulo 2^32, as a skipped tap does in the reference).
#include <cstddef>
#include <cstdint>
#include <limits>

#include "gemm.h"
#include "params/nn.h"
#include "portable_kernels.h"

namespace cvm {
namespace kernel {
namespace portable {
namespace {

// One tap k = (c, kh, kw) of a group's K: its offsets in x (from the group's first channel of
// the image) and in w (from an output channel's row), and its row and column shifts.
struct Tap {
  ptrdiff_t x, w, dh, dw;
};

// B of one image and group: element (k, pixel) is x at tap k of the pixel's window, or 0.
template <int kNB>
struct Im2col {
  const int32_t* x;  // the image's first channel of the group
  const Tap* taps;
  ptrdiff_t in_h, in_w, xs_h, xs_w, out_w, n;
  ptrdiff_t stride_h, stride_w, pad_h, pad_w;
  ptrdiff_t h0[kNB], w0[kNB];  // the panel's window origins (far outside for columns past n)

  void panel(ptrdiff_t n0) {
    ptrdiff_t oh = n0 / out_w, ow = n0 % out_w;
    for (int l = 0; l < kNB; ++l) {
      const bool in = n0 + l < n;
      h0[l] = in ? oh * stride_h - pad_h : std::numeric_limits<ptrdiff_t>::min() / 2;
      w0[l] = ow * stride_w - pad_w;
      if (++ow == out_w) ow = 0, ++oh;
    }
  }
  void values(ptrdiff_t k, int32_t* v) const {
    const Tap& t = taps[k];
    const int32_t* xc = x + t.x;
    for (int l = 0; l < kNB; ++l) {
      const ptrdiff_t ih = h0[l] + t.dh, iw = w0[l] + t.dw;
      v[l] = static_cast<size_t>(ih) < static_cast<size_t>(in_h) &&
                     static_cast<size_t>(iw) < static_cast<size_t>(in_w)
                 ? xc[ih * xs_h + iw * xs_w]
                 : 0;
    }
  }
};

template <class L>
KernelStatus conv_gemm(const KernelCall& call) {
  using T = typename L::T;
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView* bias = call.num_inputs > 2 ? &call.inputs[2] : nullptr;
  const TensorView& y = call.outputs[0];
  const int64_t group_c = w.shape[1], kernel_h = w.shape[2], kernel_w = w.shape[3];
  const int64_t out_c = y.shape[1], out_h = y.shape[2], out_w = y.shape[3];
  const int64_t per_group = out_c / p.groups, depth = group_c * kernel_h * kernel_w;
  if (p.scratch == nullptr) return KernelStatus::kDeclined;
  auto* taps = static_cast<Tap*>(
      p.scratch->acquire(p.scratch->ctx, depth * static_cast<int64_t>(sizeof(Tap))));
  auto* buf = static_cast<T*>(p.scratch->acquire(
      p.scratch->ctx, gemm_scratch_lanes<L>(per_group, depth) * static_cast<int64_t>(sizeof(T))));
  if (taps == nullptr || buf == nullptr) return KernelStatus::kDeclined;
  Tap* t = taps;
  for (int64_t c = 0; c < group_c; ++c) {
    for (int64_t kh = 0; kh < kernel_h; ++kh) {
      for (int64_t kw = 0; kw < kernel_w; ++kw) {
        *t++ = {static_cast<ptrdiff_t>(c * x.strides[1]),
                static_cast<ptrdiff_t>(c * w.strides[1] + kh * w.strides[2] + kw * w.strides[3]),
                static_cast<ptrdiff_t>(kh * p.dilation_h),
                static_cast<ptrdiff_t>(kw * p.dilation_w)};
      }
    }
  }
  // y = bias (or 0), then each GEMM adds its sums.
  auto* yd = static_cast<uint32_t*>(y.data);
  const int64_t pixels = out_h * out_w;
  for (int64_t n = 0; n < y.shape[0]; ++n) {
    for (int64_t oc = 0; oc < out_c; ++oc) {
      const uint32_t b = bias == nullptr ? 0u
                                         : static_cast<const uint32_t*>(
                                               bias->data)[oc * bias->strides[0]];
      uint32_t* yr = yd + n * y.strides[0] + oc * y.strides[1];
      for (int64_t i = 0; i < pixels; ++i) yr[i * y.strides[3]] = b;
    }
  }
  const auto* xd = static_cast<const int32_t*>(x.data);
  const auto* wd = static_cast<const int32_t*>(w.data);
  Im2col<kNR * L::kOuts> b_src{};
  b_src.taps = taps;
  b_src.in_h = static_cast<ptrdiff_t>(x.shape[2]);
  b_src.in_w = static_cast<ptrdiff_t>(x.shape[3]);
  b_src.xs_h = static_cast<ptrdiff_t>(x.strides[2]);
  b_src.xs_w = static_cast<ptrdiff_t>(x.strides[3]);
  b_src.out_w = static_cast<ptrdiff_t>(out_w);
  b_src.n = static_cast<ptrdiff_t>(pixels);
  b_src.stride_h = static_cast<ptrdiff_t>(p.stride_h);
  b_src.stride_w = static_cast<ptrdiff_t>(p.stride_w);
  b_src.pad_h = static_cast<ptrdiff_t>(p.pad_h);
  b_src.pad_w = static_cast<ptrdiff_t>(p.pad_w);
  for (int64_t n = 0; n < y.shape[0]; ++n) {
    for (int64_t g = 0; g < p.groups; ++g) {
      b_src.x = xd + n * x.strides[0] + g * group_c * x.strides[1];
      const int32_t* wg = wd + g * per_group * w.strides[0];
      const auto ws = static_cast<ptrdiff_t>(w.strides[0]);
      auto a_elem = [&](ptrdiff_t i, ptrdiff_t k) { return wg[i * ws + taps[k].w]; };
      const GemmOut out{yd + n * y.strides[0] + g * per_group * y.strides[1],
                        static_cast<ptrdiff_t>(y.strides[1]), static_cast<ptrdiff_t>(y.strides[3])};
      gemm<L>(static_cast<ptrdiff_t>(per_group), static_cast<ptrdiff_t>(pixels),
              static_cast<ptrdiff_t>(depth), a_elem, b_src, buf, out);
    }
  }
  return KernelStatus::kDone;
}

}  // namespace

KernelStatus conv2d_i32__portable(const KernelCall& call) {
  const auto& p = *static_cast<const Conv2dParams*>(call.params);
  const TensorView& x = call.inputs[0];
  const TensorView& w = call.inputs[1];
  const TensorView& y = call.outputs[0];
  if (y.numel() == 0) return KernelStatus::kDone;
  if (w.shape[1] == 1 && p.groups > 1) {
    return conv2d_depthwise(call) ? KernelStatus::kDone : KernelStatus::kDeclined;
  }
  // Pixel (oh, ow) of an output plane at (oh * out_w + ow) * strides[3].
  if (y.shape[2] > 1 && y.strides[2] != y.shape[3] * y.strides[3]) return KernelStatus::kDeclined;
  return fits_int8(x) && fits_int8(w) ? conv_gemm<PairF64>(call) : conv_gemm<Int32Lanes>(call);
}

}  // namespace portable
}  // namespace kernel
}  // namespace cvm
